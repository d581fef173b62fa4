// Each operator's kernels: with operators.cpp (what each operator takes), the one place that names the operators;
// planning, the runners and the bindings read the traits and run the kernels they are handed.
#pragma once

#include <type_traits>

#include "kernels.hpp"
#include "scan.hpp"

namespace simdscan {
namespace detail {

// The key whose bits, xor an element's, order elements of type O (stored as C) for a running maximum in C's own
// order (unsigned for integers) as a maximum or a minimum in O's: the sign bit for a signed maximum (its
// negatives then come first), every other bit for a signed minimum, every bit for an unsigned minimum; for floats,
// the sign bit for a minimum (-x, NaN's payload kept and restored).
template <class C, class O>
C order_key(bool maximum) {
    if constexpr (std::is_floating_point<C>::value) {
        return maximum ? C(0) : C(-0.0);
    } else {
        const C sign = std::is_signed<O>::value ? C(C(1) << (8 * sizeof(C) - 1)) : C(0);
        return maximum ? sign : C(~sign);
    }
}

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
                StepwiseKernels<C, C, C> kernels = table.extremum.template get<C>();
                kernels.order_key = order_key<C, typename Types::Ordered>(maximum);
                kernels.identity = desc.output.data_type == DataType::boolean
                                       ? C(maximum ? 0 : 1)  // false and true, not the byte's extremes
                                       : xor_bits(kernels.identity, kernels.order_key);
                return run(TypeTag<S>{}, kernels);
            }
            return;
        case CumulativeOperator::log_sum_exp:
            if constexpr (std::is_floating_point<C>::value) {
                return run(TypeTag<S>{}, table.log_sum_exp.template get<C>());
            }
            return;
        case CumulativeOperator::forward_fill:
            if constexpr (!std::is_integral<C>::value) {
                return run(TypeTag<S>{}, table.forward_fill.template get<C>());
            }
            return;
        case CumulativeOperator::linear_recurrence:
        case CumulativeOperator::weighted_mean:
            return;  // the recurrences' runner's (recurrences/)
    }
}

}  // namespace detail
}  // namespace simdscan
