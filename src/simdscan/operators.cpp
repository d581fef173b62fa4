// What each operator takes (scan.hpp's OperatorTraits): the one home of the data type and option rules, which
// validation and the Python bindings read.
#include "element_types.hpp"
#include "scan.hpp"

namespace simdscan {
namespace {

using detail::is_complex;

bool is_real_floating(DataType t) {
    return t == DataType::float16 || t == DataType::float32 || t == DataType::float64;
}

}  // namespace

const OperatorTraits& operator_traits(CumulativeOperator op) {
    // In CumulativeOperator's order: name, needs_order, needs_nan, counts, computes_in_floating, compensates,
    // skips_nan, writes_indices, builds_tables, on_recurrence_runner, recurs, carries_states, takes_segments,
    // takes_groups, fills.
    static constexpr OperatorTraits traits[] = {
        {"sum", false, false, true, false, true, true, false, true, false, false, false, true, true, false},
        {"product", false, false, true, false, false, true, false, false, false, false, false, true, true, false},
        {"maximum", true, false, false, false, false, true, true, false, false, false, false, true, true, false},
        {"minimum", true, false, false, false, false, true, true, false, false, false, false, true, true, false},
        {"log-sum-exp", false, false, false, true, false, false, false, false, false, false, false, true, true, false},
        {"forward fill", false, true, false, false, false, false, false, false, false, false, false, true, true, true},
        {"linear recurrence", false, false, false, false, false, false, false, false, true, true, false, true, false,
         false},
        {"exponentially weighted mean", false, false, false, true, false, false, false, false, true, false, true, false,
         false, false},
    };
    return traits[std::size_t(op)];
}

std::string refusal(CumulativeOperator op, DataType t) {
    const OperatorTraits& traits = operator_traits(op);
    if (traits.needs_order && is_complex(t)) {
        return std::string("complex numbers have no order: no running ") + traits.name;
    }
    if (traits.on_recurrence_runner && !is_real_floating(t) && !is_complex(t)) {
        return std::string(traits.name) + " gives floating and complex results only";
    }
    if (traits.computes_in_floating && !is_real_floating(t)) {
        return std::string(traits.name) + " computes in real floating types only";
    }
    if (traits.needs_nan && !is_real_floating(t) && !is_complex(t)) {
        return std::string(traits.name) + " takes floating and complex types only: others have no NaN";
    }
    if (traits.counts && t == DataType::boolean) {
        return std::string("a ") + traits.name + " of booleans needs an integer type";
    }
    return {};
}

}  // namespace simdscan
