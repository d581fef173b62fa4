// The indexed kernels: a running maximum or minimum of a line with the positions that supplied its values
// (TypedKernels::scan_indexed). Compiled once per tier (tier_kernels.hpp), with that tier's flags.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

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

// n positions, all the supplier's (in every lane of `supplied`), in vector stores (past the caches where `streams`):
// the build turns off auto-vectorisation, which std::fill_n would rely on.
template <class A>
void fill_positions(std::int64_t* positions, std::ptrdiff_t n, const xsimd::batch<std::int64_t, A>& supplied,
                    bool streams = false) {
    for (std::ptrdiff_t k = 0; k < n; k += std::ptrdiff_t(supplied.size)) {
        store_or_stream(positions + k, supplied, streams);
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
// values, and the positions of their suppliers (find_suppliers): after each element, or before it where exclusive
// (the first element's: carry and the supplier so far). A vector the running value stays ahead of
// (Extremum::stays_ahead) takes it and the supplier so far with no prefix and no comparison more, in either mode: in
// one pass, where the values then the suppliers were slower, in cache too (benchmarks/README.md). `streams`: the
// positions go past the caches where the ISA streams, and the values too where they are then aligned as well.
template <class A, class T, class Op>
T scan_indexed(const T* x, T* values, std::int64_t* positions, std::ptrdiff_t n, T carry, std::int64_t first,
               std::int64_t& supplier, bool& reached_nan, bool exclusive, bool streams, T order_key) {
    // Elements [from, to) one at a time.
    const auto one_by_one = [&](std::ptrdiff_t from, std::ptrdiff_t to) {
        for (std::ptrdiff_t i = from; i < to; ++i) {
            const T before = carry;
            const std::int64_t supplier_before = supplier;
            const T element = keyed<Op>(x[i], order_key);
            carry = Op::apply(carry, element);
            find_supplier(element, carry, first + i, supplier, reached_nan);
            values[i] = keyed<Op>(exclusive ? before : carry, order_key);
            positions[i] = exclusive ? supplier_before : supplier;
        }
    };
    std::ptrdiff_t i = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        using Positions = xsimd::batch<std::int64_t, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        constexpr std::ptrdiff_t position_lanes = std::ptrdiff_t(Positions::size);
        // The vectors start where the positions' stores (two of a vector's three) split no cache line: from NumPy's
        // usual start, 16 bytes past a page, they would split lines (benchmarks/README.md). An extremum is exact:
        // where its vectors start changes no value.
        i = aligning_head<Positions, false>(positions, n);
        one_by_one(0, i);
        const bool streams_positions = streams && streams_vectors<Positions, std::int64_t>() && i < n;
        const bool streams_values =
            streams_positions && streams_vectors<B, T>() && aligning_head<B, false>(values + i, n - i) == 0;
        const B fill(Op::template neutral<T>());
        const B key(order_key);
        B running(carry);
        // The supplier so far in every lane, kept in a register: through the reference, it was reloaded for every
        // vector (a store to positions might have changed it).
        Positions supplied(supplier);
        // A vector with a new supplier finds its positions here, not in the outputs: a load from a line just
        // streamed waits for it to reach memory. Its values are the outputs, compared with the elements read. They
        // start a position vector in, the supplier before the vector just below them: an exclusive vector's
        // positions start there.
        alignas(A::alignment()) T found_values[lanes];
        alignas(A::alignment()) std::int64_t found[position_lanes + lanes];
        std::int64_t* const found_positions = found + position_lanes;
        const std::int64_t* const stored_positions = exclusive ? found_positions - 1 : found_positions;
        // The loop compiled for each choice of streams, none of them tested in it.
        const auto scan_vectors = [&](auto values_streamed, auto positions_streamed) {
            for (; i + lanes <= n; i += lanes) {
                const B v = keyed<Op>(B::load_unaligned(x + i), key);
                if (Op::stays_ahead(running, v)) {
                    store_or_stream(values + i, keyed<Op>(running, key), values_streamed);
                    fill_positions<A>(positions + i, lanes, supplied, positions_streamed);
                    continue;
                }
                const B result = Op::apply(running, vector_prefix<A, Op, false, 1, B::size>(v, fill));
                store_or_stream(values + i, keyed<Op>(exclusive ? shifted<A, false, 1>(result, running) : result, key),
                                values_streamed);
                running = broadcast_total<A, false>(result);
                keyed<Op>(result, key).store_aligned(found_values);
                found_positions[-1] = supplier;
                find_suppliers<A>(x + i, found_values, found_positions, lanes, first + i, supplier, reached_nan);
                for (std::ptrdiff_t k = 0; k < lanes; k += position_lanes) {
                    store_or_stream(positions + i + k, Positions::load_unaligned(stored_positions + k),
                                    positions_streamed);
                }
                supplied = Positions(supplier);
            }
        };
        if (streams_values) {
            scan_vectors(std::true_type{}, std::true_type{});
        } else if (streams_positions) {
            scan_vectors(std::false_type{}, std::true_type{});
        } else {
            scan_vectors(std::false_type{}, std::false_type{});
        }
        carry = first_lane(running);
    }
    one_by_one(i, n);
    return carry;
}

// n positions from `from` to `to`, past the caches where `streams` and the ISA streams (from an aligned place on).
template <class A>
void copy_positions(const std::int64_t* from, std::int64_t* to, std::ptrdiff_t n, bool streams) {
    using Positions = xsimd::batch<std::int64_t, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(Positions::size);
    streams = streams && streams_vectors<Positions, std::int64_t>();
    std::ptrdiff_t i = streams ? aligning_head<Positions, false>(to, n) : 0;
    std::copy(from, from + i, to);
    for (; i + lanes <= n; i += lanes) {
        store_or_stream(to + i, Positions::load_unaligned(from + i), streams);
    }
    std::copy(from + i, from + n, to + i);
}

// TypedKernels::advance_indexed: a row of w contiguous elements of a running extremum along an outer axis, at `index`
// along that axis. Each column's running value and the index of its supplier (-1: none yet) advance by the row's
// element, as scan_indexed's do along a line, into values and positions: after it, or before it where exclusive.
// values may be in (in place). `streams`: values and positions go past the caches where the ISA streams, each from
// its own aligned place (stored as usual, a large output and its positions were far slower: benchmarks/README.md).
template <class A, class T, class Op>
void advance_indexed(const T* in, T* running, std::int64_t* suppliers, T* values, std::int64_t* positions,
                     std::ptrdiff_t w, std::int64_t index, bool exclusive, bool streams, T order_key) {
    // Whether x supplies the running value `after` that follows `before`: it equals it, or it is the first NaN.
    const auto supplies = [](const auto& x, const auto& before, const auto& after) {
        return either(x == after, is_nan(after) && !is_nan(before));
    };
    const auto element = [&](std::ptrdiff_t j) {
        const T x = keyed<Op>(in[j], order_key);
        const T before = running[j];
        const T after = Op::apply(before, x);
        running[j] = after;
        values[j] = keyed<Op>(exclusive ? before : after, order_key);
        if (supplies(x, before, after)) {
            suppliers[j] = index;
        }
    };
    if (exclusive) {
        copy_positions<A>(suppliers, positions, w, streams);
    }
    std::ptrdiff_t j = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        const bool streams_values = streams && streams_vectors<B, T>();
        const B key(order_key);
        for (const std::ptrdiff_t head = streams_values ? aligning_head<B, false>(values, w) : 0; j < head; ++j) {
            element(j);
        }
        for (; j + lanes <= w; j += lanes) {
            const B x = keyed<Op>(B::load_unaligned(in + j), key);  // before values is written: values may be in
            const B before = B::load_unaligned(running + j);
            const B after = Op::apply(before, x);
            after.store_unaligned(running + j);
            store_or_stream(values + j, keyed<Op>(exclusive ? before : after, key), streams_values);
            // Most rows of unordered data change no supplier.
            if (xsimd::any(supplies(x, before, after))) {
                alignas(A::alignment()) T xs[lanes];
                alignas(A::alignment()) T befores[lanes];
                alignas(A::alignment()) T afters[lanes];
                x.store_aligned(xs);
                before.store_aligned(befores);
                after.store_aligned(afters);
                for (std::ptrdiff_t l = 0; l < lanes; ++l) {
                    if (supplies(xs[l], befores[l], afters[l])) {
                        suppliers[j + l] = index;
                    }
                }
            }
        }
    }
    for (; j < w; ++j) {
        element(j);
    }
    if (!exclusive) {
        copy_positions<A>(suppliers, positions, w, streams);
    }
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
