// execute: checks a job, plans it, and dispatches on its element type and operator to the kernels of the active tier.
//
// How a plan runs (plan.hpp's Path, run by paths.hpp):
//  direct          - the scan axis is element-contiguous in input and output: kernels run on the arrays themselves;
//  outer           - the scan axis is strided but another axis is contiguous: whole rows combine elementwise, row by
//                    row, in NumPy's order (outer_buffered: rows staged through a buffer);
//  lines_buffered  - anything else (strided, byte-swapped, float16, misaligned): blocks of a line are gathered into a
//                    buffer in scan order, scanned there, and scattered back;
//  indices         - extrema with the positions that supplied them, an operand of the job as the others: on
//                    lines_buffered's path the positions found from each block's inputs and running values, along
//                    an outer axis each column's running value and supplier kept aside with the staged rows;
//  two axes        - a scan followed by another along a second axis: a plain sum with one of the two contiguous
//                    row by row in one pass (two_axes_path.hpp), anything else as the two scans in turn.
// An input of a narrower type than the output (widens_exactly) is converted as it is read: row by row on the one-pass
// path, block by block through the staging buffer (paths' buffered variants) on the others.
#include <type_traits>

#include "dispatch.hpp"
#include "element_types.hpp"
#include "operators.hpp"
#include "parallel.hpp"
#include "paths.hpp"
#include "plan.hpp"
#include "scan.hpp"
#include "two_axes_path.hpp"

namespace simdscan {
namespace {

// What runs a job: a plan along one axis, or a summed-area table's plan in one pass (with the converter of an input
// that widens, else null).
struct Route {
    const detail::Plan* plan;
    const detail::TwoAxesPlan* two_axes;
    detail::WidenFn widen;
};

template <class S, class C, class State, class Stepwise>
void run_typed(const CumulativeOperatorDesc& desc, const Route& route,
               const detail::StepwiseKernels<C, State, Stepwise>& kernels) {
    if constexpr (std::is_same<State, C>::value) {
        if (route.two_axes != nullptr) {
            return detail::run_two_axes(*route.two_axes, kernels, route.widen);
        }
    }
    detail::run_path(detail::Job<S, C, State>{*route.plan, kernels, desc.exclusive, detail::active_kernels()}, kernels);
}

void run(const CumulativeOperatorDesc& desc, const Route& route) {
    detail::visit_element_types(desc.output.data_type, [&](auto types) {
        detail::visit_operator_kernels(desc, detail::active_kernels(), types, [&](auto stored, const auto& kernels) {
            run_typed<typename decltype(stored)::type>(desc, route, kernels);
        });
    });
    detail::order_streamed_stores();  // what this thread streamed (the pool's threads order their own)
}

}  // namespace

void execute(const CumulativeOperatorDesc& desc) {
    detail::validate(desc);
    for (std::ptrdiff_t size : desc.input.sizes) {
        if (size == 0) {
            return;
        }
    }
    const detail::WidenFn widen =
        desc.input.data_type == desc.output.data_type
            ? nullptr
            : detail::active_kernels().widen[std::size_t(desc.input.data_type)][std::size_t(desc.output.data_type)];
    if (detail::on_recurrence_runner(desc)) {
        return detail::run_recurrence(detail::make_plan(desc), desc);
    }
    if (!desc.then) {
        detail::Plan plan = detail::make_plan(desc);
        plan.widen = widen;
        return run(desc, Route{&plan, nullptr, nullptr});
    }
    if (const auto two_axes = detail::make_two_axes_plan(desc)) {
        return run(desc, Route{nullptr, &*two_axes, widen});
    }
    CumulativeOperatorDesc first = desc;
    first.then.reset();
    execute(first);
    CumulativeOperatorDesc second = first;
    second.input = desc.output;
    second.axis = desc.then->axis;
    second.direction = desc.then->direction;
    second.exclusive = desc.then->exclusive;
    execute(second);
}

}  // namespace simdscan
