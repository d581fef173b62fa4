// How an op family's translation unit fills its part of a tier's kernel table from the scan kernels for the tier's
// xsimd architecture (families/<family>.hpp). The tier's compile definitions give SIMDSCAN_TIER (the tier's
// namespace), SIMDSCAN_TIER_ARCH (the xsimd architecture) and SIMDSCAN_TIER_LOWEST, and its precompiled header has the
// tier's lane header before this (cmake/tier_build.cmake, src/simdscan/kernels_family.cpp.in).
#pragma once

#include <xsimd/xsimd.hpp>

#include "byte_order.hpp"
#include "group_kernels.hpp"
#include "half_line_kernels.hpp"
#include "indexed_kernels.hpp"
#include "kernels.hpp"
#include "log_sum_exp_kernels.hpp"
#include "outer_kernels.hpp"
#include "scan_kernels.hpp"
#include "two_axes_kernels.hpp"
#include "widening_kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// Stepwise: the op of the kernels that apply elements one at a time into states kept aside (StepwiseOp).
template <class A, class T, class Op, class Stepwise = StepwiseOp<Op>>
void fill_typed(StepwiseKernels<T, typename Op::template state<T>, typename Stepwise::template state<T>>& k) {
    k.scan[0] = &scan_line<A, T, Op, false>;
    k.scan[1] = &scan_line<A, T, Op, true>;
    if constexpr (SIMDSCAN_TIER_LOWEST) {
        k.scan_groups = &scan_groups<T, Stepwise>;
    } else {
        k.scan_groups = nullptr;
    }
    if constexpr (scans_segments_in_vectors<A, T, Op>()) {
        k.scan_segments[0] = &scan_segments<A, T, Op, false>;
        k.scan_segments[1] = &scan_segments<A, T, Op, true>;
    } else {
        k.scan_segments[0] = k.scan_segments[1] = nullptr;
    }
    if constexpr (Op::scans_chunks_from_totals) {
        k.scan_local[0] = k.scan_local[1] = nullptr;
        k.rebase = nullptr;
    } else {
        using Local = LocalOf<T, typename Op::template state<T>>;
        k.scan_local[0] = &scan_line<A, T, Op, false, Local>;
        k.scan_local[1] = &scan_line<A, T, Op, true, Local>;
        k.rebase = &rebase<A, T, Op>;
    }
    k.rows[0] = &scan_rows<A, T, Op, false>;
    k.rows[1] = &scan_rows<A, T, Op, true>;
    if constexpr (std::is_same<typename Stepwise::template state<T>, T>::value && Stepwise::admits_every) {
        k.combine[0] = &combine_rows<A, T, Stepwise, false>;
        k.combine[1] = &combine_rows<A, T, Stepwise, true>;
    } else {
        k.combine[0] = k.combine[1] = nullptr;
    }
    k.advance[0] = &advance_rows<A, T, Stepwise, false>;
    k.advance[1] = &advance_rows<A, T, Stepwise, true>;
    k.apply = &apply_op<T, Op>;
    if constexpr (Op::writes_indices) {
        k.scan_indexed = &scan_indexed<A, T, Op>;
        k.advance_indexed = &advance_indexed<A, T, Op>;
    } else {
        k.scan_indexed = nullptr;
        k.advance_indexed = nullptr;
    }
    if constexpr (Op::scans_chunks_from_totals) {
        k.total[0] = &Op::template total<A, T, false>;
        k.total[1] = &Op::template total<A, T, true>;
    } else {
        k.total[0] = k.total[1] = nullptr;
    }
    // Integer sums are exact: either order gives their table, so both slots take the row first (one kernel, not two).
    constexpr bool columns_first = !std::is_integral<T>::value;
    if constexpr (Op::builds_tables) {
        k.two_axes_row[0][0] = &scan_two_axes_row<A, T, Op, !columns_first, false>;
        k.two_axes_row[0][1] = &scan_two_axes_row<A, T, Op, !columns_first, true>;
        k.two_axes_row[1][0] = &scan_two_axes_row<A, T, Op, true, false>;
        k.two_axes_row[1][1] = &scan_two_axes_row<A, T, Op, true, true>;
    } else {
        k.two_axes_row[0][0] = k.two_axes_row[0][1] = k.two_axes_row[1][0] = k.two_axes_row[1][1] = nullptr;
    }
    // Only integers of two bytes or more and real floats are wider than another type (widens_exactly).
    if constexpr (Op::builds_tables && std::is_arithmetic<T>::value && sizeof(T) > 1) {
        k.two_axes_widened_row[0][0] = &scan_two_axes_widened_row<A, T, Op, !columns_first, false>;
        k.two_axes_widened_row[0][1] = &scan_two_axes_widened_row<A, T, Op, !columns_first, true>;
        k.two_axes_widened_row[1][0] = &scan_two_axes_widened_row<A, T, Op, true, false>;
        k.two_axes_widened_row[1][1] = &scan_two_axes_widened_row<A, T, Op, true, true>;
    } else {
        k.two_axes_widened_row[0][0] = k.two_axes_widened_row[0][1] = nullptr;
        k.two_axes_widened_row[1][0] = k.two_axes_widened_row[1][1] = nullptr;
    }
    if constexpr (Op::builds_tables && (std::is_same<T, std::uint32_t>::value || std::is_same<T, double>::value)) {
        k.two_axes_byte_row[0] = &scan_two_axes_byte_row<A, T, false>;
        k.two_axes_byte_row[1] = &scan_two_axes_byte_row<A, T, true>;
    } else {
        k.two_axes_byte_row[0] = k.two_axes_byte_row[1] = nullptr;
    }
    if constexpr (std::is_same<T, float>::value && Op::scans_float16_in_registers) {
        k.scan_half[0] = &scan_half_line<A, Op, false>;
        k.scan_half[1] = &scan_half_line<A, Op, true>;
    } else {
        k.scan_half[0] = k.scan_half[1] = nullptr;
    }
    k.streams_lines = streams_lines<A, T, Op>();
    k.neutral = Op::template neutral<T>();
    k.stepwise_neutral = Stepwise::template neutral<T>();
    k.identity = Op::template identity<T>();
    k.order_key = T();  // each extremum's own: operators.hpp
}

// Which op each element type T of a set scans with: Ops::op<T>. (Classes, not alias templates passed as template
// template arguments: GCC takes two such aliases of one template for the same and merges their instantiations.)
template <class Op>
struct Fixed {
    template <class T>
    using op = Op;
};
struct CompensatedOps {
    template <class T>
    using op = CompensatedOp<T>;
};
struct NaNSkippingCompensatedOps {
    template <class T>
    using op = NaNSkippingSummation<CompensatedOp<T>>;
};

// Each type's kernels; those of the types no tier vectorizes in the lowest tier only (take_lowest_tier_kernels).
template <class A, class Ops, template <class> class StateOf, template <class> class StepwiseOf, class... Ts>
void fill_set(KernelSet<StateOf, StepwiseOf, Ts...>& set) {
    const auto fill = [&](auto type) {
        using T = typename decltype(type)::type;
        if constexpr (SIMDSCAN_TIER_LOWEST || !scalar_only<T>::value) {
            fill_typed<A, T, typename Ops::template op<T>>(set.template get<T>());
        }
    };
    (fill(TypeTag<Ts>{}), ...);
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
