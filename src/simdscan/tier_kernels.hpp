// One ISA tier's translation unit: its kernel table, filled from the scan kernels for its xsimd architecture.
// Before including this, a tier's file defines SIMDSCAN_TIER (its namespace), SIMDSCAN_TIER_ARCH (the xsimd
// architecture), SIMDSCAN_TIER_TABLE (the entry point's name) and includes its lane header (cmake/tiers.cmake).
#pragma once

#include <xsimd/xsimd.hpp>

#include "kernels.hpp"
#include "scan_kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

template <class A, class T, class Op>
void fill_typed(TypedKernels<T, typename Op::template state<T>>& k) {
    k.scan[0] = &scan_line<A, T, Op, false>;
    k.scan[1] = &scan_line<A, T, Op, true>;
    k.rebase = &rebase<A, T, Op>;
    k.rows[0] = &scan_rows<A, T, Op, false>;
    k.rows[1] = &scan_rows<A, T, Op, true>;
    if constexpr (std::is_same<typename Op::template state<T>, T>::value) {
        k.combine = &combine_rows<A, T, Op>;
    } else {
        k.combine = nullptr;
    }
    k.advance[0] = &advance_rows<A, T, Op, false>;
    k.advance[1] = &advance_rows<A, T, Op, true>;
    k.apply = &apply_op<T, Op>;
    k.neutral = Op::template neutral<T>();
    k.identity = Op::template identity<T>();
}

template <class A, class Op, class... Ts>
void fill_set(TypedKernelSet<Plain, Ts...>& set) {
    (fill_typed<A, Ts, Op>(static_cast<TypedKernels<Ts, Ts>&>(set)), ...);
}

template <class A, class... Ts>
void fill_compensated_set(TypedKernelSet<CompensatedState, Ts...>& set) {
    (fill_typed<A, Ts, CompensatedOp<Ts>>(static_cast<TypedKernels<Ts, CompensatedState<Ts>>&>(set)), ...);
}

template <class A>
KernelTable make_table() {
    KernelTable table{};
    fill_set<A, Summation>(table.summation);
    fill_set<A, Product>(table.product);
    fill_compensated_set<A>(table.compensated_summation);
    table.half_to_float = &Lanes<A>::half_to_float;
    table.float_to_half = &Lanes<A>::float_to_half;
    return table;
}

}  // namespace SIMDSCAN_TIER

KernelTable SIMDSCAN_TIER_TABLE() { return SIMDSCAN_TIER::make_table<SIMDSCAN_TIER_ARCH>(); }

}  // namespace detail
}  // namespace simdscan
