// The steps of a scan along an outer axis, elementwise over one row of contiguous elements, templated on the xsimd
// architecture A and the op. Compiled once per tier (tier_kernels.hpp), with that tier's flags.
#pragma once

#include <cstddef>

#include <xsimd/xsimd.hpp>

#include "ops.hpp"
#include "scan_kernels.hpp"
#include "vector_state.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// Visits a row of w elements as whole vectors of Lanes from element `head` on (on_vector(j)) and the elements
// before and after them one by one (on_element(j)), or all of it from its end when Descending: rows visited in
// decreasing address order then read memory in one falling stream, where rows each read upwards ran slower on the
// AMD CPU measured (scan.hpp's falling_row_walk). Inlined, so that the callers' loop state stays in registers (out
// of line, an outer scan was slower). Figures: benchmarks/README.md.
template <std::ptrdiff_t Lanes, bool Descending, class OnVector, class OnElement>
SIMDSCAN_ALWAYS_INLINE void walk_row(std::ptrdiff_t w, std::ptrdiff_t head, OnVector&& on_vector, OnElement&& on_element) {
    const std::ptrdiff_t whole = head + (w - head) / Lanes * Lanes;
    if constexpr (Descending) {
        for (std::ptrdiff_t j = w - 1; j >= whole; --j) {
            on_element(j);
        }
        for (std::ptrdiff_t j = whole - Lanes; j >= head; j -= Lanes) {
            on_vector(j);
        }
        for (std::ptrdiff_t j = head - 1; j >= 0; --j) {
            on_element(j);
        }
    } else {
        for (std::ptrdiff_t j = 0; j < head; ++j) {
            on_element(j);
        }
        for (std::ptrdiff_t j = head; j < whole; j += Lanes) {
            on_vector(j);
        }
        for (std::ptrdiff_t j = whole; j < w; ++j) {
            on_element(j);
        }
    }
}

template <class A, class T, class Op, bool Descending>
void combine_rows(const T* a, const T* b, T* out, std::ptrdiff_t w, T order_key) {
    const auto element = [&](std::ptrdiff_t j) {
        out[j] = keyed<Op>(Op::apply(keyed<Op>(a[j], order_key), keyed<Op>(b[j], order_key)), order_key);
    };
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        const B key(order_key);
        walk_row<std::ptrdiff_t(B::size), Descending>(
            w, 0,
            [&](std::ptrdiff_t j) {
                const B row = keyed<Op>(B::load_unaligned(a + j), key);
                keyed<Op>(Op::apply(row, keyed<Op>(B::load_unaligned(b + j), key)), key).store_unaligned(out + j);
            },
            element);
    } else {
        walk_row<1, Descending>(w, 0, element, element);
    }
}

template <class A, class T, class Op, bool Descending, class State = typename Op::template state<T>>
void advance_rows(const T* in, State* carry, T* out, std::ptrdiff_t w, bool exclusive, bool streams, T order_key) {
    const auto element = [&](std::ptrdiff_t j) {
        const T x = Op::admit(keyed<Op>(in[j], order_key));
        typename Op::template state<T> before;
        load_state(before, carry, w, j);
        const auto after = Op::apply(before, Op::lift(x));
        store_state(after, carry, w, j);
        out[j] = keyed<Op>(T(Op::lower(exclusive ? before : after)), order_key);
    };
    if constexpr (is_vectorized<A, T>()) {
        using B = typename Op::template vector<T, A>;
        streams = streams && streams_vectors<B, T>();
        const B key(order_key);
        // The vector step compiled for each mode, not tested in it (as scan_packed_rows').
        const auto walk = [&](auto exclusive_rows) {
            walk_row<std::ptrdiff_t(B::size), Descending>(
                w, streams ? aligning_head<B, false>(out, w) : 0,
                [&](std::ptrdiff_t j) {
                    // Before out is written: out may equal in.
                    const B x = Op::admit(keyed<Op>(load_vector<B>(in + j), key));
                    typename Op::template state<B> before;
                    load_state(before, carry, w, j);
                    const auto after = Op::apply(before, Op::lift(x));
                    store_state(after, carry, w, j);
                    const auto value = Op::lower(decltype(exclusive_rows)::value ? before : after);
                    store_or_stream(out + j, keyed<Op>(value, key), streams);
                },
                element);
        };
        if (exclusive) {
            walk(std::true_type{});
        } else {
            walk(std::false_type{});
        }
    } else {
        walk_row<1, Descending>(w, 0, element, element);
    }
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
