// execute: checks a job, plans it, and dispatches on its element type and op to the kernels of the active tier.
//
// How a plan runs (plan.hpp's Path, run by paths.hpp):
//  direct          - the scan axis is element-contiguous in input and output: kernels run on the arrays themselves;
//  outer           - the scan axis is strided but another axis is contiguous: whole rows combine elementwise, row by
//                    row, in NumPy's order (outer_buffered: rows staged through a buffer);
//  lines_buffered  - anything else (strided, byte-swapped, float16, misaligned): blocks of a line are gathered into a
//                    buffer in scan order, scanned there, and scattered back.
#include <type_traits>

#include "dispatch.hpp"
#include "element_types.hpp"
#include "paths.hpp"
#include "plan.hpp"
#include "scan.hpp"

namespace simdscan {
namespace {

using detail::Plan;

template <class S, class C, class State>
void run_typed(const CumulativeOperatorDesc& desc, const Plan& plan, const detail::TypedKernels<C, State>& kernels) {
    detail::run_path(detail::Job<S, C, State>{plan, kernels, desc.exclusive, detail::active_kernels()});
}

// The op as the kernels compute it, states being values. Integer sums are exact: compensation changes nothing.
template <class S, class C>
void run_plain(const CumulativeOperatorDesc& desc, const Plan& plan) {
    const detail::KernelTable& table = detail::active_kernels();
    const auto& set = desc.op == CumulativeOperator::summation ? table.summation : table.product;
    run_typed<S>(desc, plan, set.template get<C>());
}

template <class S, class C>
void run_floating(const CumulativeOperatorDesc& desc, const Plan& plan) {
    if (desc.compensated) {
        run_typed<S>(desc, plan, detail::active_kernels().compensated_summation.template get<C>());
    } else {
        run_plain<S, C>(desc, plan);
    }
}

}  // namespace

void execute(const CumulativeOperatorDesc& desc) {
    detail::validate(desc);
    for (std::ptrdiff_t size : desc.input.sizes) {
        if (size == 0) {
            return;
        }
    }
    const Plan plan = detail::make_plan(desc);
    detail::visit_element_types(desc.input.data_type, [&](auto types) {
        using S = typename decltype(types)::Stored;
        using C = typename decltype(types)::Compute;
        if constexpr (std::is_integral<C>::value) {
            run_plain<S, C>(desc, plan);
        } else {
            run_floating<S, C>(desc, plan);
        }
    });
}

}  // namespace simdscan
