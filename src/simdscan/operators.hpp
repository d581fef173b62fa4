// Each operator's kernels: with operators.cpp (what each operator takes), the one place that names the operators;
// planning, the runners and the bindings read the traits and run the kernels they are handed.
#pragma once

#include <type_traits>

#include "kernels.hpp"
#include "scan.hpp"

namespace simdscan {
namespace detail {

template <class T>
struct TypeTag {
    using type = T;
};

// Calls run(TypeTag<Stored>{}, kernels) with the type the arrays hold and the kernels of `table` that run `desc` on
// elements of `Types` (element_types.hpp): the operator's set, or its variant for the options (compensated,
// skip_nan). Nothing for a description validate refuses (complex extrema, integer log-sum-exp).
template <class Types, class Run>
void visit_operator_kernels(const CumulativeOperatorDesc& desc, const KernelTable& table, Types, Run&& run) {
    using S = typename Types::Stored;
    using C = typename Types::Compute;
    switch (desc.op) {
        case CumulativeOperator::summation:
        case CumulativeOperator::product: {
            // Integer sums are exact: compensation changes nothing for them, and they have no NaN to skip.
            const bool summation = desc.op == CumulativeOperator::summation;
            if constexpr (!std::is_integral<C>::value) {
                if (summation && desc.compensated) {
                    const auto& set =
                        desc.skip_nan ? table.nan_skipping_compensated_summation : table.compensated_summation;
                    return run(TypeTag<S>{}, set.template get<C>());
                }
                if (desc.skip_nan) {
                    const auto& set = summation ? table.nan_skipping_summation : table.nan_skipping_product;
                    return run(TypeTag<S>{}, set.template get<C>());
                }
            }
            return run(TypeTag<S>{}, (summation ? table.summation : table.product).template get<C>());
        }
        case CumulativeOperator::maximum:
        case CumulativeOperator::minimum:
            // Running maxima and minima, in the element type's own order.
            if constexpr (std::is_arithmetic<C>::value) {
                const bool maximum = desc.op == CumulativeOperator::maximum;
                if constexpr (std::is_floating_point<C>::value) {
                    if (desc.skip_nan) {
                        const auto& set = maximum ? table.nan_skipping_maximum : table.nan_skipping_minimum;
                        return run(TypeTag<S>{}, set.template get<C>());
                    }
                }
                // Signed integers compare as themselves, stored as the same bits.
                using O = typename Types::Ordered;
                using Stored = typename std::conditional<std::is_integral<C>::value, O, S>::type;
                TypedKernels<O, O> kernels = (maximum ? table.maximum : table.minimum).template get<O>();
                if (desc.output.data_type == DataType::boolean) {
                    kernels.identity = maximum ? O(0) : O(1);  // false and true, not the byte's extremes
                }
                return run(TypeTag<Stored>{}, kernels);
            }
            return;
        case CumulativeOperator::log_sum_exp:
            if constexpr (std::is_floating_point<C>::value) {
                return run(TypeTag<S>{}, table.log_sum_exp.template get<C>());
            }
            return;
    }
}

}  // namespace detail
}  // namespace simdscan
