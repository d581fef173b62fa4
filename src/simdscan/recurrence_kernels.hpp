// The linear recurrence's kernels (RecurrenceKernels): y[i] = a[i] * y[i-1] + b[i] along a contiguous line, the
// pairs (a, b) composed a vector at a time. Compiled once per tier (families/recurrences.hpp).
#pragma once

#include <cstddef>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "kernels.hpp"
#include "lanes/lanes_generic.hpp"
#include "scan_kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// n elements one at a time from `state`, at positions first, first + 1, ... in memory (walked from the end where
// Reverse): the vector loops' tails, and the whole of a line where the type has no vectors. Returns the last state.
template <class T, bool Reverse>
T recur_one_by_one(const T* a, T a_value, const T* b, T* out, std::ptrdiff_t n, T state, bool exclusive) {
    for (std::ptrdiff_t k = 0; k < n; ++k) {
        const std::ptrdiff_t i = Reverse ? n - 1 - k : k;
        const T next = (a != nullptr ? a[i] : a_value) * state + b[i];
        out[i] = exclusive ? state : next;
        state = next;
    }
    return state;
}

// The pairs of a vector composed with their predecessors in the walk, lane by lane: on return, lane j holds the
// composition of lanes 0..j (j..L-1 where Reverse) of the vector, as (products of a, sums of b): a scan within the
// register in log2(L) steps of lanes K apart. Where `scalar_a`, the products are known (powers[]) and only b moves.
template <class A, bool Reverse, std::size_t K = 1, class T>
void compose_lanes(xsimd::batch<T, A>& a, xsimd::batch<T, A>& b, bool scalar_a, const xsimd::batch<T, A>* powers) {
    using B = xsimd::batch<T, A>;
    using L = Lanes<A>;
    if constexpr (K < B::size) {
        const B zero(T(0));
        const B before = Reverse ? L::template down<K>(b, zero) : L::template up<K>(b, zero);
        if (scalar_a) {
            b = L::multiply_add(*powers, before, b);
        } else {
            b = L::multiply_add(a, before, b);
            const B one(T(1));
            a = a * (Reverse ? L::template down<K>(a, one) : L::template up<K>(a, one));
        }
        compose_lanes<A, Reverse, 2 * K>(a, b, scalar_a, powers + 1);
    }
}

// RecurrenceKernels::line: whole vectors composed in registers (compose_lanes), each then put behind the state
// before it (one multiply-add), the rest one by one.
template <class A, class T, bool Reverse>
T recur_line(const T* a, T a_value, const T* b, T* out, std::ptrdiff_t n, T state, bool exclusive) {
    if constexpr (!is_vectorized<A, T>()) {
        return recur_one_by_one<T, Reverse>(a, a_value, b, out, n, state, exclusive);
    } else {
        using B = xsimd::batch<T, A>;
        using L = Lanes<A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        const bool scalar_a = a == nullptr;
        // a's powers for a scalar a: a^K for each step K = 1, 2, 4, ..., then lane j's a^(j+1) (counted in the walk).
        B powers[8];
        T power = a_value;
        std::size_t steps = 0;
        for (std::ptrdiff_t k = 1; k < lanes; k *= 2, power *= power) {
            powers[steps++] = B(power);
        }
        alignas(A::alignment()) T lane_powers[lanes];
        T p = a_value;
        for (std::ptrdiff_t j = 0; j < lanes; ++j, p *= a_value) {
            lane_powers[Reverse ? lanes - 1 - j : j] = p;
        }
        const B walked_powers = B::load_aligned(lane_powers);
        B carry(state);
        const std::ptrdiff_t whole = n / lanes * lanes;
        // Reverse walks the vectors from the end; the rest (n % lanes elements at the front) comes last.
        for (std::ptrdiff_t k = 0; k < whole; k += lanes) {
            const std::ptrdiff_t i = Reverse ? n - lanes - k : k;
            B xa = scalar_a ? B(T(0)) : B::load_unaligned(a + i);
            B xb = B::load_unaligned(b + i);
            compose_lanes<A, Reverse>(xa, xb, scalar_a, powers);
            const B y = L::multiply_add(scalar_a ? walked_powers : xa, carry, xb);
            if (exclusive) {
                (Reverse ? L::template down<1>(y, carry) : L::template up<1>(y, carry)).store_unaligned(out + i);
            } else {
                y.store_unaligned(out + i);
            }
            carry = Reverse ? L::broadcast_first(y) : L::broadcast_last(y);
        }
        alignas(A::alignment()) T last[lanes];
        carry.store_aligned(last);
        state = last[0];
        const std::ptrdiff_t rest = n - whole;
        const std::ptrdiff_t at = Reverse ? 0 : whole;
        return recur_one_by_one<T, Reverse>(a == nullptr ? nullptr : a + at, a_value, b + at, out + at, rest, state,
                                            exclusive);
    }
}

// Each element type's kernels; the complex types' (one by one in every tier) in the lowest tier only.
template <class A>
void fill_recurrences(RecurrenceSet& set) {
    RecurrenceSet::for_each_type([&](auto type) {
        using T = typename decltype(type)::type;
        if constexpr (SIMDSCAN_TIER_LOWEST || !scalar_only<T>::value) {
            auto& kernels = set.get<T>();
            kernels.line[0] = &recur_line<A, T, false>;
            kernels.line[1] = &recur_line<A, T, true>;
        }
    });
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
