// The linear recurrence's kernels (RecurrenceKernels): y[i] = a[i] * y[i-1] + b[i] along a contiguous span, the
// pairs (a, b) composed a vector at a time in registers. Compiled once per tier (families/recurrences.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "kernels.hpp"
#include "lanes/lanes_generic.hpp"
#include "ops.hpp"
#include "scan_kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// The two chains a span's walk keeps: the outputs' states from the state before the span (`y`), and the span's own
// composition from 0 (`z`, with the product of its a's), for its pair.
template <class T>
struct RecurrenceChains {
    T y;
    T z;
    T product;  // of the a's walked so far, 0 from a segment's start on
};

// n elements of a span one at a time, from walk position `from` on: the vector loops' tails and vectors with a
// segment's start, and the whole span where the type has no vectors.
template <class T, bool Reverse, bool Writes, bool Totals>
void recur_one_by_one(const RecurrenceSpan<T>& span, std::ptrdiff_t from, std::ptrdiff_t n, RecurrenceChains<T>& at,
                      bool exclusive) {
    for (std::ptrdiff_t k = from; k < from + n; ++k) {
        const std::ptrdiff_t i = Reverse ? span.n - 1 - k : k;
        const T a = span.a != nullptr ? span.a[i] : span.a_value;
        if (span.starts != nullptr && i < span.readable && span.starts[i] != 0) {
            at = RecurrenceChains<T>{span.initial, span.initial, T(0)};
        }
        if constexpr (Writes) {
            const T next = a * at.y + span.b[i];
            span.out[i] = exclusive ? at.y : next;
            at.y = next;
        }
        if constexpr (Totals) {
            at.z = a * at.z + span.b[i];
            at.product = at.product * a;
        }
    }
}

// The pairs of a vector composed with their predecessors in the walk, lane by lane: on return, lane j holds the
// composition of lanes 0..j (j..L-1 where Reverse), as (products of a, states from 0): a scan within the register in
// log2(L) steps of lanes K apart. Where `powers` is set (a scalar a), the products are its powers and only b moves.
template <class A, bool Reverse, std::size_t K = 1, class T>
void compose_lanes(xsimd::batch<T, A>& a, xsimd::batch<T, A>& b, const xsimd::batch<T, A>* powers) {
    using B = xsimd::batch<T, A>;
    using L = Lanes<A>;
    if constexpr (K < B::size) {
        const B zero(T(0));
        const B before = Reverse ? L::template down<K>(b, zero) : L::template up<K>(b, zero);
        if (powers != nullptr) {
            b = L::multiply_add(*powers, before, b);
        } else {
            b = L::multiply_add(a, before, b);
            const B one(T(1));
            a = a * (Reverse ? L::template down<K>(a, one) : L::template up<K>(a, one));
        }
        compose_lanes<A, Reverse, 2 * K>(a, b, powers == nullptr ? nullptr : powers + 1);
    }
}

// Whether a segment begins among the vector of walk positions [k, k + lanes) of a span.
template <class T, bool Reverse>
bool starts_within(const RecurrenceSpan<T>& span, std::ptrdiff_t k, std::ptrdiff_t lanes) {
    if (span.starts == nullptr) {
        return false;
    }
    const std::ptrdiff_t first = Reverse ? span.n - k - lanes : k;  // the vector's lowest index
    if (first + lanes <= span.readable && lanes % 8 == 0) {
        std::uint64_t any = 0;
        for (std::ptrdiff_t j = 0; j < lanes; j += 8) {
            std::uint64_t word;
            std::memcpy(&word, span.starts + first + j, sizeof(word));
            any |= word;
        }
        return any != 0;
    }
    for (std::ptrdiff_t i = first; i < first + lanes && i < span.readable; ++i) {
        if (span.starts[i] != 0) {
            return true;
        }
    }
    return false;
}

// a^n by squaring (the same steps for the same n, whichever call asks).
template <class T>
T power_of(T a, std::ptrdiff_t n) {
    T result(1);
    for (; n > 0; n >>= 1, a = a * a) {
        if ((n & 1) != 0) {
            result = result * a;
        }
    }
    return result;
}

// RecurrenceKernels::span for one direction and what the call computes: whole vectors composed in registers
// (compose_lanes), each put behind the state before it (a multiply-add per chain); vectors where a segment begins,
// and the rest, one element at a time.
template <class A, class T, bool Reverse, bool Writes, bool Totals>
SIMDSCAN_FLATTEN RecurrencePair<T> recur_span(const RecurrenceSpan<T>& given, T state, bool exclusive) {
    // A copy: the vector stores may alias the caller's struct, whose fields would be loaded again each vector.
    const RecurrenceSpan<T> span = given;
    RecurrenceChains<T> at{state, T(0), T(1)};
    std::ptrdiff_t done = 0;
    const bool scalar_a = span.a == nullptr;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        using L = Lanes<A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        // A scalar a's powers: a^K for each step K = 1, 2, 4, ... of compose_lanes, then lane j's power in the walk.
        B powers[8];
        T power = span.a_value;
        std::size_t steps = 0;
        for (std::ptrdiff_t k = 1; k < lanes; k *= 2, power = power * power) {
            powers[steps++] = B(power);
        }
        alignas(A::alignment()) T lane_powers[lanes];
        T p = span.a_value;
        for (std::ptrdiff_t j = 0; j < lanes; ++j, p = p * span.a_value) {
            lane_powers[Reverse ? lanes - 1 - j : j] = p;
        }
        const B walked_powers = B::load_aligned(lane_powers);
        B y(at.y), z(T(0)), product(T(1));
        for (; done + lanes <= span.n; done += lanes) {
            const std::ptrdiff_t i = Reverse ? span.n - lanes - done : done;
            if (starts_within<T, Reverse>(span, done, lanes)) {
                RecurrenceChains<T> one{first_lane(y), first_lane(z), first_lane(product)};
                recur_one_by_one<T, Reverse, Writes, Totals>(span, done, lanes, one, exclusive);
                y = B(one.y), z = B(one.z), product = B(one.product);
                continue;
            }
            B xa = scalar_a ? B(T(0)) : B::load_unaligned(span.a + i);
            B xb = B::load_unaligned(span.b + i);
            compose_lanes<A, Reverse>(xa, xb, scalar_a ? powers : nullptr);
            const B multiplier = scalar_a ? walked_powers : xa;
            if constexpr (Writes) {
                const B next = L::multiply_add(multiplier, y, xb);
                if (exclusive) {
                    (Reverse ? L::template down<1>(next, y) : L::template up<1>(next, y)).store_unaligned(span.out + i);
                } else {
                    next.store_unaligned(span.out + i);
                }
                y = Reverse ? L::broadcast_first(next) : L::broadcast_last(next);
            }
            if constexpr (Totals) {
                const B next = L::multiply_add(multiplier, z, xb);
                z = Reverse ? L::broadcast_first(next) : L::broadcast_last(next);
                if (!scalar_a) {
                    product = product * (Reverse ? L::broadcast_first(xa) : L::broadcast_last(xa));
                }
            }
        }
        at = RecurrenceChains<T>{first_lane(y), first_lane(z), first_lane(product)};
        if (scalar_a && Totals) {
            // The product of the vectors' a's, from the last segment start on where one came (the scalar path set it
            // to 0 and counted on from there).
            at.product = at.product * power_of(span.a_value, done);
        }
    }
    recur_one_by_one<T, Reverse, Writes, Totals>(span, done, span.n - done, at, exclusive);
    return RecurrencePair<T>{at.product, at.z};
}

// RecurrenceKernels::weighted_mean: the weighted sums of the values and of their weights as two recurrences of one
// a (decay, or 1 at a NaN where ignore_na), composed in registers a vector at a time, and their quotient.
template <class A, class T>
SIMDSCAN_FLATTEN void weighted_mean(const T* x, T* out, std::ptrdiff_t n, T decay, bool ignore_na) {
    T totals(0), weights(0);
    std::ptrdiff_t done = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        using L = Lanes<A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        B powers[8];
        T power = decay;
        std::size_t steps = 0;
        for (std::ptrdiff_t k = 1; k < lanes; k *= 2, power = power * power) {
            powers[steps++] = B(power);
        }
        alignas(A::alignment()) T lane_powers[lanes];
        T p = decay;
        for (std::ptrdiff_t j = 0; j < lanes; ++j, p = p * decay) {
            lane_powers[j] = p;
        }
        const B walked_powers = B::load_aligned(lane_powers);
        const B zero(T(0)), one(T(1));
        B sum(T(0)), weight(T(0));
        for (; done + lanes <= n; done += lanes) {
            const B values = B::load_unaligned(x + done);
            const auto seen = values == values;
            B value_sums = xsimd::select(seen, values, zero);
            B weight_sums = xsimd::select(seen, one, zero);
            B multiplier = walked_powers;
            if (ignore_na) {
                B value_ages = xsimd::select(seen, B(decay), one);
                B weight_ages = value_ages;
                compose_lanes<A, false>(value_ages, value_sums, static_cast<const B*>(nullptr));
                compose_lanes<A, false>(weight_ages, weight_sums, static_cast<const B*>(nullptr));
                multiplier = value_ages;
            } else {
                compose_lanes<A, false>(multiplier, value_sums, powers);
                compose_lanes<A, false>(multiplier, weight_sums, powers);
            }
            const B next_sum = L::multiply_add(multiplier, sum, value_sums);
            const B next_weight = L::multiply_add(multiplier, weight, weight_sums);
            (next_sum / next_weight).store_unaligned(out + done);
            sum = L::broadcast_last(next_sum);
            weight = L::broadcast_last(next_weight);
        }
        totals = first_lane(sum);
        weights = first_lane(weight);
    }
    for (; done < n; ++done) {
        const bool seen = x[done] == x[done];
        const T age = seen || !ignore_na ? decay : T(1);
        totals = age * totals + (seen ? x[done] : T(0));
        weights = age * weights + (seen ? T(1) : T(0));
        out[done] = totals / weights;
    }
}

template <class A, class T, bool Reverse>
RecurrencePair<T> recur(const RecurrenceSpan<T>& span, T state, bool writes, bool totals, bool exclusive) {
    if (writes && totals) {
        return recur_span<A, T, Reverse, true, true>(span, state, exclusive);
    }
    if (writes) {
        return recur_span<A, T, Reverse, true, false>(span, state, exclusive);
    }
    return recur_span<A, T, Reverse, false, true>(span, state, exclusive);
}

// Each element type's kernels; the complex types' (one by one in every tier) in the lowest tier only.
template <class A>
void fill_recurrences(RecurrenceSet& set) {
    RecurrenceSet::for_each_type([&](auto type) {
        using T = typename decltype(type)::type;
        if constexpr (SIMDSCAN_TIER_LOWEST || !scalar_only<T>::value) {
            auto& kernels = set.get<T>();
            kernels.span[0] = &recur<A, T, false>;
            kernels.span[1] = &recur<A, T, true>;
            if constexpr (std::is_floating_point<T>::value) {
                kernels.weighted_mean = &weighted_mean<A, T>;
            } else {
                kernels.weighted_mean = nullptr;
            }
        }
    });
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
