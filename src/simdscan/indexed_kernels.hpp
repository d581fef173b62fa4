// The indexed kernels: a running maximum or minimum of a line with the positions that supplied its values
// (TypedKernels::scan_indexed). Compiled once per tier (tier_kernels.hpp), with that tier's flags.
#pragma once

#include <cstddef>
#include <cstdint>

#include <xsimd/xsimd.hpp>

#include "ops.hpp"
#include "scan_kernels.hpp"
#include "vector_state.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// One element of find_suppliers: from the first NaN on, the supplier stays.
template <class T>
void find_supplier(T x, T running, std::int64_t position, std::int64_t& supplier, bool& reached_nan) {
    if (is_nan(running)) {
        if (!reached_nan) {
            supplier = position;
            reached_nan = true;
        }
    } else if (x == running) {
        supplier = position;
    }
}

// n positions, all the supplier's (in every lane of `supplied`), in vector stores: the build turns off
// auto-vectorisation, which std::fill_n would rely on.
template <class A>
void fill_positions(std::int64_t* positions, std::ptrdiff_t n, const xsimd::batch<std::int64_t, A>& supplied) {
    for (std::ptrdiff_t k = 0; k < n; k += std::ptrdiff_t(supplied.size)) {
        supplied.store_unaligned(positions + k);
    }
}

// The scan positions, from `first` on, of the elements that supplied n running values: where the element equals its
// running value, or where the first NaN arrives. A vector at a time, where no element equals its running value (and
// none is NaN) all of its positions are the supplier's so far; elsewhere element by element.
template <class A, class T>
void find_suppliers(const T* x, const T* values, std::int64_t* positions, std::ptrdiff_t n, std::int64_t first,
                    std::int64_t& supplier, bool& reached_nan) {
    std::ptrdiff_t i = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        static_assert(lanes % std::ptrdiff_t(xsimd::batch<std::int64_t, A>::size) == 0,
                      "whole position vectors per value vector");
        for (; i + lanes <= n && !reached_nan; i += lanes) {
            const B running = B::load_unaligned(values + i);
            if (!xsimd::any((B::load_unaligned(x + i) == running) | is_nan(running))) {
                fill_positions<A>(positions + i, lanes, xsimd::batch<std::int64_t, A>(supplier));
                continue;
            }
            for (std::ptrdiff_t lane = i; lane < i + lanes; ++lane) {
                find_supplier(x[lane], values[lane], first + lane, supplier, reached_nan);
                positions[lane] = supplier;
            }
        }
    }
    for (; i < n; ++i) {
        find_supplier(x[i], values[i], first + i, supplier, reached_nan);
        positions[i] = supplier;
    }
}

// TypedKernels::scan_indexed: a running extremum of n contiguous elements from `carry`, in increasing order, into
// values, and the positions of their suppliers (find_suppliers). A vector the running value stays ahead of
// (Extremum::stays_ahead) takes it and the supplier so far with no prefix and no comparison more: in one pass, where
// the values then the suppliers took 2.2x as long on random float32 in cache.
template <class A, class T, class Op>
T scan_indexed(const T* x, T* values, std::int64_t* positions, std::ptrdiff_t n, T carry, std::int64_t first,
               std::int64_t& supplier, bool& reached_nan) {
    // Elements [from, to) one at a time.
    const auto one_by_one = [&](std::ptrdiff_t from, std::ptrdiff_t to) {
        for (std::ptrdiff_t i = from; i < to; ++i) {
            carry = Op::apply(carry, x[i]);
            values[i] = carry;
        }
        find_suppliers<A>(x + from, values + from, positions + from, to - from, first + from, supplier, reached_nan);
    };
    std::ptrdiff_t i = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        using Positions = xsimd::batch<std::int64_t, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        // The vectors start where the positions' stores (two of a vector's three) split no cache line: 16384 float32
        // at NumPy's usual 16 bytes past a page took 4.1 us, 3.9 us so. An extremum is exact: where its vectors
        // start changes no value.
        i = aligning_head<Positions, false>(positions, n);
        one_by_one(0, i);
        const B fill(Op::template neutral<T>());
        B running(carry);
        // The supplier so far in every lane, kept in a register: through the reference, it was reloaded for every
        // vector (a store to positions might have changed it).
        Positions supplied(supplier);
        for (; i + lanes <= n; i += lanes) {
            const B v = B::load_unaligned(x + i);
            if (Op::stays_ahead(running, v)) {
                running.store_unaligned(values + i);
                fill_positions<A>(positions + i, lanes, supplied);
                continue;
            }
            const B result = Op::apply(running, vector_prefix<A, Op, false, 1, B::size>(v, fill));
            result.store_unaligned(values + i);
            running = broadcast_total<A, false>(result);
            find_suppliers<A>(x + i, values + i, positions + i, lanes, first + i, supplier, reached_nan);
            supplied = Positions(supplier);
        }
        carry = first_lane(running);
    }
    one_by_one(i, n);
    return carry;
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
