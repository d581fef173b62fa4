// The linear recurrence's kernels (RecurrenceKernels): y[i] = a[i] * y[i-1] + b[i] along a contiguous span, the
// pairs (a, b) composed a vector at a time in registers. Compiled once per tier (families/recurrences.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "kernels.hpp"
#include "lanes/lanes_generic.hpp"
#include "ops.hpp"
#include "scan_kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

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

// A scalar a's powers: a^K for each step K = 1, 2, 4, ... of compose_lanes (`steps`), lane j's power a^(j+1) in the
// walk (`walked`: from the vector's end where Reverse), and a to the vector's width (`reach`).
template <class A, class T, bool Reverse>
struct PowersOf {
    using B = xsimd::batch<T, A>;
    static constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    B steps[8];
    B walked;
    T reach;

    explicit PowersOf(T a) {
        T power = a;
        std::size_t k = 0;
        for (std::ptrdiff_t step = 1; step < lanes; step *= 2, power = power * power) {
            steps[k++] = B(power);
        }
        alignas(A::alignment()) T lane_powers[lanes];
        T p = a;
        for (std::ptrdiff_t j = 0; j < lanes; ++j, p = p * a) {
            lane_powers[Reverse ? lanes - 1 - j : j] = p;
        }
        walked = B::load_aligned(lane_powers);
        reach = lane_powers[Reverse ? 0 : lanes - 1];
    }
};

// Whether a vector's composed products of a (`given`: its a's) are those the walk meets: none overflowed (inf, or NaN
// from inf * 0) and none underflowed to 0 before an a of 0. Composed behind a state of 0 (or inf), such a product
// gives NaN where the walk element by element gives 0 (or inf).
template <class A, bool Reverse, class T>
bool composes_in_range(const xsimd::batch<T, A>& products, const xsimd::batch<T, A>& given) {
    using B = xsimd::batch<T, A>;
    const B zero(T(0));
    const auto finite = xsimd::abs(products) <= B(std::numeric_limits<T>::max());
    if (xsimd::all(finite & (products != zero))) {
        return true;
    }
    if (!xsimd::all(finite)) {
        return false;
    }
    // A lane is 0 from the walk's first a of 0 on: the first 0 in walk order must fall on an a of 0.
    const B before = Reverse ? Lanes<A>::template down<1>(products, B(T(1)))
                             : Lanes<A>::template up<1>(products, B(T(1)));
    return !xsimd::any((products == zero) & (before != zero) & (given != zero));
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

// RecurrenceKernels::span for one direction: whole vectors composed in registers
// (compose_lanes), each put behind the state before it (a multiply-add per chain); vectors where a segment begins or
// whose products leave the range (composes_in_range; a scalar a's: the whole span), and the rest, one element at a
// time.
template <class A, class T, bool Reverse>
SIMDSCAN_FLATTEN RecurrencePair<T> recur_span(const RecurrenceSpan<T>& given, T state, RecurrenceModes modes) {
    // A copy: the vector stores may alias the caller's struct, whose fields would be loaded again each vector.
    const RecurrenceSpan<T> span = given;
    RecurrenceChains<T> at{state, T(0), T(1), false, false};
    std::ptrdiff_t done = 0;
    const bool scalar_a = span.a == nullptr;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        using L = Lanes<A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        const PowersOf<A, T, Reverse> powers(span.a_value);
        // A scalar a whose powers leave the range (as composes_in_range): every vector one element at a time.
        const T reach = powers.reach;
        const bool whole_vectors = !scalar_a || (std::abs(reach) <= std::numeric_limits<T>::max() &&
                                                 (reach != T(0) || span.a_value == T(0)));
        B y(at.y), z(T(0)), product(T(1));
        auto zeros = B(T(1)) == B(T(0));
        const auto exclusive_lanes = B(T(modes.exclusive ? 1 : 0)) == B(T(1));
        const bool streams = modes.streams && Lanes<A>::streams;
        // The scans' streamed outputs, realigned in registers (the vectors' grouping, so the bits, kept).
        auto streamed = span_outputs<A, T, Reverse, Lanes<A>::streams>(span.out);
        for (; whole_vectors && done + lanes <= span.n; done += lanes) {
            const std::ptrdiff_t i = Reverse ? span.n - lanes - done : done;
            prefetch_ahead<Reverse>(span.b + i);
            if (!scalar_a) {
                prefetch_ahead<Reverse>(span.a + i);
            }
            const B a_lanes = scalar_a ? B(T(0)) : B::load_unaligned(span.a + i);
            B xa = a_lanes;
            B xb = B::load_unaligned(span.b + i);
            compose_lanes<A, Reverse>(xa, xb, scalar_a ? powers.steps : nullptr);
            if (starts_within<T, Reverse>(span, done, lanes) ||
                (!scalar_a && !composes_in_range<A, Reverse>(xa, a_lanes))) {
                RecurrenceChains<T> one{first_lane(y), first_lane(z), first_lane(product), at.restarted,
                                        at.zero_a || xsimd::any(zeros)};
                // Its elements stored as they come: the streamed vectors start again after them.
                finish_vectors(streamed, 0);
                streamed = span_outputs<A, T, Reverse, Lanes<A>::streams>(span.out);
                recur_elements(span, done, lanes, one, modes, Reverse);
                y = B(one.y), z = B(one.z), product = B(one.product);
                at.restarted = one.restarted;
                at.zero_a = one.zero_a;
                zeros = B(T(1)) == B(T(0));
                continue;
            }
            if (!scalar_a) {
                zeros = zeros | (a_lanes == B(T(0)));
            }
            const B multiplier = scalar_a ? powers.walked : xa;
            if (modes.writes) {
                const B next = L::multiply_add(multiplier, y, xb);
                // The state before each element, chosen by a mask, not a branch: the compiler would copy the loop
                // for each value of a flag it tests.
                const B before = Reverse ? L::template down<1>(next, y) : L::template up<1>(next, y);
                const B values = xsimd::select(exclusive_lanes, before, next);
                if (streams) {
                    streamed.vector(i, values);
                } else {
                    values.store_unaligned(span.out + i);
                }
                y = Reverse ? L::broadcast_first(next) : L::broadcast_last(next);
            }
            {
                const B next = L::multiply_add(multiplier, z, xb);
                z = Reverse ? L::broadcast_first(next) : L::broadcast_last(next);
                if (!scalar_a) {
                    product = product * (Reverse ? L::broadcast_first(xa) : L::broadcast_last(xa));
                }
            }
        }
        finish_vectors(streamed, 0);
        at = RecurrenceChains<T>{first_lane(y), first_lane(z), first_lane(product), at.restarted,
                                 at.zero_a || xsimd::any(zeros)};
        if (scalar_a) {
            // The vectors' a's (read only where no segment began, so no vector went one element at a time).
            at.product = at.product * power_of(span.a_value, done);
        }
    }
    recur_elements(span, done, span.n - done, at, modes, Reverse);
    return RecurrencePair<T>{at.product, at.z, at.restarted, at.zero_a || (scalar_a && span.a_value == T(0)), at.y};
}

// Whether any of n flags is set, eight at a time where n allows.
inline bool any_flag(const std::uint8_t* flags, std::ptrdiff_t n) {
    std::uint64_t any = 0;
    std::ptrdiff_t k = 0;
    for (; k + 8 <= n; k += 8) {
        std::uint64_t word;
        std::memcpy(&word, flags + k, sizeof(word));
        any |= word;
    }
    for (; k < n; ++k) {
        any |= flags[k];
    }
    return any != 0;
}

// Rows a band of RecurrenceRows walks with its columns' states in registers: stored once a band, not once a row.
// Short: the chains of a band's next vectors (or columns) run beside those of the last ones, which a long band would
// walk alone.
constexpr std::ptrdiff_t recurrence_band_rows = 8;

// Rows [r0, r1) of w elements at `at` (rows `step` bytes apart, clipped to `rows`) asked into the caches, a cache
// line at a time, where they are narrower than 2 KiB and a page or more apart: such a tile's rows lie in as many
// pages, which the processor's prefetchers do not follow (16 threads walking tiles of 64 columns down the rows
// waited on every row). Wider rows they follow, and asked for as well they left the caches before their turn; rows
// closer together they take for one stream ((2048, 64) float32: 25 -> 29 us with every row asked for).
template <class T>
void prefetch_rows(const T* at, std::ptrdiff_t step, std::ptrdiff_t w, std::ptrdiff_t r0, std::ptrdiff_t r1,
                   std::ptrdiff_t rows) {
    if (w * std::ptrdiff_t(sizeof(T)) >= 2048 || std::abs(step) < 4096) {
        return;
    }
    for (std::ptrdiff_t r = r0; r < std::min(r1, rows); ++r) {
        const char* row = reinterpret_cast<const char*>(row_of(at, step, r));
        for (std::ptrdiff_t b = 0; b < w * std::ptrdiff_t(sizeof(T)); b += 64) {
            prefetch(row + b);
        }
    }
}

// y's lanes whose column begins a segment (a nonzero flag of `flags`, one a column) set to their initial states:
// int32 lanes from as many flag bytes, one register of them to a float32 vector, or to two float64 ones.
template <class A, class B, std::ptrdiff_t K>
SIMDSCAN_ALWAYS_INLINE void restart_lanes(const std::uint8_t* flags, const B (&initial)[K], B (&y)[K]) {
    using T = typename B::value_type;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    const B zero(T(0));
    if constexpr (K == 1) {
        // One vector's flags, no more (a wider load could read past the row's last flag, and the array's).
        alignas(B::arch_type::alignment()) T begins[lanes];
        for (std::ptrdiff_t i = 0; i < lanes; ++i) {
            begins[i] = T(flags[i]);
        }
        y[0] = xsimd::select(B::load_aligned(begins) != zero, initial[0], y[0]);
    } else if constexpr (std::is_same<T, float>::value) {
        for (std::ptrdiff_t k = 0; k < K; ++k) {
            const B begins = Lanes<A>::to_float(Lanes<A>::load_bytes(flags + k * lanes));
            y[k] = xsimd::select(begins != zero, initial[k], y[k]);
        }
    } else {
        static_assert(K % 2 == 0, "float64 vectors restart in pairs");
        for (std::ptrdiff_t k = 0; k < K; k += 2) {
            B first, second;
            Lanes<A>::to_doubles(Lanes<A>::load_bytes(flags + k * lanes), first, second);
            y[k] = xsimd::select(first != zero, initial[k], y[k]);
            y[k + 1] = xsimd::select(second != zero, initial[k + 1], y[k + 1]);
        }
    }
}

// Columns [j, j + K vectors) of rows [r0, r1): K independent chains (a multiply and an add each, the loads and stores
// of a row's K vectors between them), the states loaded before the band and stored after it; at a row where columns
// begin a segment, their lanes take their initial states by a mask (a branch on the flags, one row in a few with
// random episodes, was mispredicted). (`rows` by value: read through a reference, its fields would be loaded again
// after every store, which may alias them.)
template <class A, class B, std::ptrdiff_t K, class T>
SIMDSCAN_ALWAYS_INLINE void recur_band(const RecurrenceRows<T> rows, std::ptrdiff_t j, std::ptrdiff_t r0,
                                       std::ptrdiff_t r1, const typename B::batch_bool_type& exclusive,
                                       bool streamed) {
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    B y[K];
    B initial[K];
    for (std::ptrdiff_t k = 0; k < K; ++k) {
        y[k] = B::load_unaligned(rows.states + j + k * lanes);
        initial[k] = rows.starts == nullptr ? y[k] : B::load_unaligned(rows.initial + j + k * lanes);
    }
    const bool a_lanes_given = rows.a != nullptr && !rows.a_every_column;
    const T* a = rows.a == nullptr ? nullptr : row_of(rows.a, rows.a_step, r0) + (a_lanes_given ? j : 0);
    const T* b = row_of(rows.b, rows.b_step, r0) + j;
    T* out = row_of(rows.out, rows.out_step, r0) + j;
    for (std::ptrdiff_t r = r0; r < r1; ++r) {
        if (r > 0 && rows.starts != nullptr) {
            const std::uint8_t* flags = row_of(rows.starts, rows.starts_step, r - 1);
            if (rows.starts_every_column) {
                const auto begins = B(T(*flags)) != B(T(0));
                for (std::ptrdiff_t k = 0; k < K; ++k) {
                    y[k] = xsimd::select(begins, initial[k], y[k]);
                }
            } else {
                restart_lanes<A>(flags + j, initial, y);
            }
        }
        const B row_a(a == nullptr ? rows.a_value : *a);
        for (std::ptrdiff_t k = 0; k < K; ++k) {
            const B next = (a_lanes_given ? B::load_unaligned(a + k * lanes) : row_a) * y[k] +
                           B::load_unaligned(b + k * lanes);
            // (The state before each element chosen by a mask: a branch would have the compiler copy the loop.)
            store_or_stream(out + k * lanes, xsimd::select(exclusive, y[k], next), streamed);
            y[k] = next;
        }
        a = a == nullptr ? nullptr : row_of(a, rows.a_step, 1);
        b = row_of(b, rows.b_step, 1);
        out = row_of(out, rows.out_step, 1);
    }
    for (std::ptrdiff_t k = 0; k < K; ++k) {
        y[k].store_unaligned(rows.states + j + k * lanes);
    }
}

// Where a row of w columns at `out` (rows `out_step` bytes apart) is stored a vector at a time: from `head` (where
// out's rows align for streaming stores, which need every row's vectors aligned) to `whole`; the rest one by one.
struct RowVectors {
    std::ptrdiff_t head = 0;
    std::ptrdiff_t whole = 0;
    bool streamed = false;
};
template <class A, class T>
RowVectors row_vectors(const T* out, std::ptrdiff_t out_step, std::ptrdiff_t w, bool streams) {
    RowVectors at;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        at.streamed = streams && streams_vectors<B, T>() && out_step % std::ptrdiff_t(lanes * sizeof(T)) == 0;
        at.head = at.streamed ? aligning_head<B, false>(out, w) : 0;
        at.whole = at.head + (w - at.head) / lanes * lanes;
    }
    return at;
}

// RecurrenceKernels::rows: bands of rows, each walked four vectors of columns at a time (four chains hide the multiply
// and add's latency), then one at a time (as fast as pairs, in less code); the columns before the first
// vector that out's rows align for streaming and after the last vector one by one (recur_columns).
template <class A, class T>
void recur_rows(const RecurrenceRows<T>& given, bool exclusive, bool streams) {
    const RecurrenceRows<T> rows = given;  // (a copy: the stores may alias the caller's struct)
    const auto [head, whole, streamed] = row_vectors<A>(rows.out, rows.out_step, rows.w, streams);
    std::ptrdiff_t vectors_end = 0;  // the columns that vectors walk end here
    // Every column in blocks of four vectors (no vector nor column alone, whose chains need the next ones beside
    // them): their own chains keep the arithmetic busy, and bands as long as 16 KiB of each operand's rows save the
    // states' round trips and each band's last-row branch ((2048, 64) float32 on an AVX-512 Xeon: 20.1 -> 15.7 us).
    std::ptrdiff_t band = recurrence_band_rows;
    if constexpr (is_vectorized<A, T>()) {
        const std::ptrdiff_t block = 4 * std::ptrdiff_t(xsimd::batch<T, A>::size);
        if (head == 0 && whole == rows.w && whole % block == 0) {
            band = std::max(band, 16384 / (rows.w * std::ptrdiff_t(sizeof(T))));
        }
    }
    for (std::ptrdiff_t r0 = 0; r0 < rows.rows; r0 += band) {
        const std::ptrdiff_t r1 = std::min(rows.rows, r0 + band);
        prefetch_rows(rows.b, rows.b_step, rows.w, r1, r1 + band, rows.rows);
        if (rows.a != nullptr && !rows.a_every_column) {
            prefetch_rows(rows.a, rows.a_step, rows.w, r1, r1 + band, rows.rows);
        }
        if constexpr (is_vectorized<A, T>()) {
            using B = xsimd::batch<T, A>;
            constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
            const auto exclusive_lanes = B(T(exclusive ? 1 : 0)) == B(T(1));
            for (vectors_end = head; vectors_end + 4 * lanes <= whole; vectors_end += 4 * lanes) {
                recur_band<A, B, 4>(rows, vectors_end, r0, r1, exclusive_lanes, streamed);
            }
            for (; vectors_end + lanes <= whole; vectors_end += lanes) {
                recur_band<A, B, 1>(rows, vectors_end, r0, r1, exclusive_lanes, streamed);
            }
        }
        // The columns left (every one without vectors), each on its own: the same arithmetic, so the same bits.
        recur_columns(rows, 0, head, r0, r1, exclusive);
        recur_columns(rows, vectors_end, rows.w, r0, r1, exclusive);
    }
}

// RecurrenceKernels::weighted_mean: the weighted sums of the values and of their weights as two recurrences of one
// a (decay, or 1 at a NaN where ignore_na), composed in registers a vector at a time, and their quotient; where the
// weights are few (WeightedMeanState), element by element. The chunk's own sums from 0 ride beside, lane by lane
// (the last lane's chain is the composition), whether or not it writes.
template <class A, class T>
SIMDSCAN_FLATTEN WeightedMeanChunk<T> weighted_mean(const T* x, T* out, std::ptrdiff_t n, T decay, bool ignore_na,
                                                    bool streams, WeightedMeanState<T>& at) {
    WeightedMeanChunk<T> chunk{T(1), T(0), T(0), n};
    const bool writes = out != nullptr;
    std::ptrdiff_t done = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        using L = Lanes<A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        const PowersOf<A, T, false> powers(decay);
        // A decay so small that a vector's weights could leave the normal range from few_weights (alpha near 1):
        // element by element throughout.
        const bool whole_vectors = powers.reach * at.few_weights >= std::numeric_limits<T>::min();
        streams = streams && Lanes<A>::streams;
        auto streamed = span_outputs<A, T, false, Lanes<A>::streams>(out);
        const B zero(T(0)), one(T(1));
        // The sums and the last mean in every lane, kept in registers (recursive_mean's `running`).
        B totals(at.totals), weights(at.weights), last_mean(at.mean);
        B chunk_ages(chunk.ages), chunk_totals(chunk.totals), chunk_weights(chunk.weights);
        const B few_weights(at.few_weights), no_value(std::numeric_limits<T>::quiet_NaN());
        for (; whole_vectors && done + lanes <= n; done += lanes) {
            prefetch_ahead<false>(x + done);
            const B values = B::load_unaligned(x + done);
            const auto seen = (values - values) == zero;  // numbers: NaN and +-inf are missing
            B value_sums = xsimd::select(seen, values, zero);
            B weight_sums = xsimd::select(seen, one, zero);
            B ages = powers.walked;
            if (ignore_na) {  // a NaN leaves the sums' ages
                ages = xsimd::select(seen, B(decay), one);
                B weight_ages = ages;
                compose_lanes<A, false>(ages, value_sums, static_cast<const B*>(nullptr));
                compose_lanes<A, false>(weight_ages, weight_sums, static_cast<const B*>(nullptr));
            } else {
                compose_lanes<A, false>(ages, value_sums, powers.steps);
                compose_lanes<A, false>(ages, weight_sums, powers.steps);
            }
            chunk_ages = chunk_ages * ages;
            chunk_totals = L::multiply_add(ages, chunk_totals, value_sums);
            chunk_weights = L::multiply_add(ages, chunk_weights, weight_sums);
            if (chunk.first == n && xsimd::any(seen)) {
                for (std::ptrdiff_t j = 0; chunk.first == n; ++j) {
                    chunk.first = x[done + j] - x[done + j] == T(0) ? done + j : n;
                }
            }
            if (!writes) {
                continue;
            }
            if (at.few) {
                // Its elements stored as they come: the streamed vectors start again after them.
                finish_vectors(streamed, 0);
                streamed = span_outputs<A, T, false, Lanes<A>::streams>(out);
                weighted_mean_elements(x, out, done, lanes, decay, ignore_na, at);
                totals = B(at.totals);
                weights = B(at.weights);
                last_mean = B(at.mean);
                continue;
            }
            const B next_sum = L::multiply_add(ages, totals, value_sums);
            const B next_weight = L::multiply_add(ages, weights, weight_sums);
            // A missing value's output is the last mean before it (weighted_mean_elements): the seen lanes'
            // quotients carried forward over the others, as a forward fill carries numbers over NaN (in a vector
            // that has a missing value: the carry costs as much as the rest of the step).
            B means = next_sum / next_weight;
            if (!xsimd::all(seen)) {
                const B carried =
                    vector_prefix<A, LastNumber, false, 1, B::size>(xsimd::select(seen, means, no_value), no_value);
                means = LastNumber::apply(last_mean, carried);
            }
            last_mean = L::broadcast_last(means);
            if (streams) {
                streamed.vector(done, means);
            } else {
                means.store_unaligned(out + done);
            }
            totals = L::broadcast_last(next_sum);
            weights = L::broadcast_last(next_weight);
            if (xsimd::any(weights < few_weights)) {
                at.few = true;  // the elements from here, from the state in registers
                at.totals = first_lane(totals);
                at.weights = first_lane(weights);
                at.mean = first_lane(last_mean);
            }
        }
        chunk.ages = last_lane(chunk_ages);
        chunk.totals = last_lane(chunk_totals);
        chunk.weights = last_lane(chunk_weights);
        if (writes && !at.few) {
            at.totals = first_lane(totals);
            at.weights = first_lane(weights);
            at.mean = first_lane(last_mean);
        }
        finish_vectors(streamed, 0);
    }
    // The rest: the chunk's composition first (out may be x).
    weighted_mean_chunk_elements(x, done, n - done, decay, ignore_na, chunk);
    if (writes) {
        weighted_mean_elements(x, out, done, n - done, decay, ignore_na, at);
    }
    return chunk;
}

// The walk of WeightedMeanRows (as recur_rows'): bands of rows, each walked a vector of columns at a time by
// block(K = 1 vector, j, r0, r1, streamed), which keeps the columns' states in registers through the band and
// returns the row from which they go one element at a time (r1 where none did: a column whose weights are or become
// few); mean_columns takes that row, and the columns no vector covers.
template <class A, class T, class Block>
SIMDSCAN_ALWAYS_INLINE void walk_mean_bands(const WeightedMeanRows<T>& rows, const MeanSteps<T>& steps, bool streams,
                                            Block&& block) {
    const auto [head, whole, streamed] = row_vectors<A>(rows.out, rows.out_step, rows.w, streams);
    for (std::ptrdiff_t r0 = 0; r0 < rows.rows; r0 += recurrence_band_rows) {
        const std::ptrdiff_t r1 = std::min(rows.rows, r0 + recurrence_band_rows);
        prefetch_rows(rows.x, rows.x_step, rows.w, r1, r1 + recurrence_band_rows, rows.rows);
        if constexpr (is_vectorized<A, T>()) {
            constexpr std::ptrdiff_t lanes = std::ptrdiff_t(xsimd::batch<T, A>::size);
            for (std::ptrdiff_t j = head; j < whole; j += lanes) {
                // A row where the block's weights are few, one element at a time (the first row with a column's
                // first value leaves that mode), then the block again.
                for (std::ptrdiff_t r = r0; r < r1; ++r) {
                    r = block(std::integral_constant<std::ptrdiff_t, 1>{}, j, r, r1, streamed);
                    if (r < r1) {
                        mean_columns(rows, steps, j, j + lanes, r, r + 1);
                    }
                }
            }
        }
        mean_columns(rows, steps, 0, head, r0, r1);
        mean_columns(rows, steps, whole, rows.w, r0, r1);
    }
}

// RecurrenceKernels::weighted_mean_rows: the sums of each block's columns in registers while their weights are many.
template <class A, class T>
void weighted_mean_rows(const WeightedMeanRows<T>& given, T decay, bool ignore_na, bool streams) {
    const WeightedMeanRows<T> rows = given;  // (a copy: the stores may alias the caller's struct)
    const auto block = [&](auto vectors, std::ptrdiff_t j, std::ptrdiff_t r0, std::ptrdiff_t r1, bool streamed) {
        if constexpr (is_vectorized<A, T>()) {
            using B = xsimd::batch<T, A>;
            constexpr std::ptrdiff_t K = decltype(vectors)::value, lanes = std::ptrdiff_t(B::size);
            if (any_flag(rows.few + j, K * lanes)) {
                return r0;
            }
            const B zero(T(0)), one(T(1)), aged_by(decay), few_weights(WeightedMeanState<T>::few_weights);
            B totals[K], weights[K], means[K];
            for (std::ptrdiff_t k = 0; k < K; ++k) {
                totals[k] = B::load_unaligned(rows.totals + j + k * lanes);
                weights[k] = B::load_unaligned(rows.weights + j + k * lanes);
                means[k] = B::load_unaligned(rows.means + j + k * lanes);
            }
            std::ptrdiff_t r = r0;
            for (; r < r1; ++r) {
                const T* x = row_of(rows.x, rows.x_step, r) + j;
                T* out = row_of(rows.out, rows.out_step, r) + j;
                B values[K], ages[K], aged[K];
                typename B::batch_bool_type seen[K];
                bool few = false;
                for (std::ptrdiff_t k = 0; k < K; ++k) {
                    values[k] = B::load_unaligned(x + k * lanes);  // before out is written: out may be x
                    seen[k] = (values[k] - values[k]) == zero;  // numbers: NaN and +-inf are missing
                    ages[k] = ignore_na ? xsimd::select(seen[k], aged_by, one) : aged_by;
                    aged[k] = ages[k] * weights[k] + xsimd::select(seen[k], one, zero);
                    values[k] = xsimd::select(seen[k], values[k], zero);
                    few = few || xsimd::any(aged[k] < few_weights);
                }
                if (few) {
                    break;  // this row and the rest of the band one element at a time, from the states stored
                }
                for (std::ptrdiff_t k = 0; k < K; ++k) {
                    totals[k] = ages[k] * totals[k] + values[k];
                    weights[k] = aged[k];
                    // (A missing value's output the mean before it: weighted_mean_elements.)
                    means[k] = xsimd::select(seen[k], totals[k] / weights[k], means[k]);
                    store_or_stream(out + k * lanes, means[k], streamed);
                }
            }
            for (std::ptrdiff_t k = 0; k < K; ++k) {
                totals[k].store_unaligned(rows.totals + j + k * lanes);
                weights[k].store_unaligned(rows.weights + j + k * lanes);
                means[k].store_unaligned(rows.means + j + k * lanes);
            }
            return r;
        } else {
            return r0;
        }
    };
    walk_mean_bands<A, T>(rows, MeanSteps<T>{decay, T(0), true, ignore_na}, streams, block);
}

// RecurrenceKernels::recursive_mean: where a vector's values are all numbers after the line's first, the mean's steps
// are one recurrence of constant pairs (kept: decay), composed in registers as a scalar a's; elsewhere element by
// element. The chunk's own steps after its first value ride beside (the same rule from the chunk's first value),
// lane by lane, whether or not it writes.
template <class A, class T>
SIMDSCAN_FLATTEN RecursiveMeanChunk<T> recursive_mean(const T* x, T* out, std::ptrdiff_t n, T decay, T alpha,
                                                      bool ignore_na, bool streams, RecursiveMeanState<T>& at) {
    RecursiveMeanChunk<T> chunk{n};
    const bool writes = out != nullptr;
    std::ptrdiff_t done = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        using L = Lanes<A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        // The step after a value, as recursive_mean_elements takes it: mean = carried * mean + gain * x.
        const T total = decay + alpha;
        const T carried = decay / total, gain = alpha / total;
        const PowersOf<A, T, false> powers(carried);
        // Powers that leave the normal range (alpha near 1) would compose through subnormals: element by element.
        const bool whole_vectors = powers.reach >= std::numeric_limits<T>::min();
        const B zero(T(0)), gains(gain);
        streams = streams && Lanes<A>::streams;
        auto streamed = span_outputs<A, T, false, Lanes<A>::streams>(out);
        // The mean in every lane, kept in a register: the chain from one vector to the next is a multiply-add and a
        // lane broadcast, no round trip through a scalar.
        B running(at.mean), chunk_a(chunk.a), chunk_b(chunk.b);
        for (; whole_vectors && done + lanes <= n; done += lanes) {
            prefetch_ahead<false>(x + done);
            const B values = B::load_unaligned(x + done);
            const bool numbers = xsimd::all((values - values) == zero);
            B terms = gains * values;
            const bool composes = numbers && chunk.first < done && chunk.kept == T(1);
            const bool walks = writes && numbers && at.seen && at.kept == T(1);
            if (composes || walks) {
                B unused = zero;
                compose_lanes<A, false>(unused, terms, powers.steps);
            }
            if (composes) {
                chunk_a = powers.walked * chunk_a;
                chunk_b = L::multiply_add(powers.walked, chunk_b, terms);
            } else {
                chunk.a = last_lane(chunk_a), chunk.b = last_lane(chunk_b);
                recursive_mean_chunk_elements(x, done, lanes, decay, alpha, ignore_na, chunk);
                chunk_a = B(chunk.a), chunk_b = B(chunk.b);
            }
            if (!writes) {
                continue;
            }
            if (!walks) {
                // Its elements stored as they come: the streamed vectors start again after them.
                finish_vectors(streamed, 0);
                streamed = span_outputs<A, T, false, Lanes<A>::streams>(out);
                at.mean = first_lane(running);
                recursive_mean_elements(x, out, done, lanes, decay, alpha, ignore_na, at);
                running = B(at.mean);
                continue;
            }
            const B means = L::multiply_add(powers.walked, running, terms);
            if (streams) {
                streamed.vector(done, means);
            } else {
                means.store_unaligned(out + done);
            }
            running = L::broadcast_last(means);
        }
        chunk.a = last_lane(chunk_a), chunk.b = last_lane(chunk_b);
        if (writes) {
            at.mean = first_lane(running);
        }
        finish_vectors(streamed, 0);
    }
    // The rest: the chunk's steps first (out may be x).
    recursive_mean_chunk_elements(x, done, n - done, decay, alpha, ignore_na, chunk);
    if (writes) {
        recursive_mean_elements(x, out, done, n - done, decay, alpha, ignore_na, at);
    }
    return chunk;
}

// RecurrenceKernels::recursive_mean_rows: each block's means and kept weights in registers once every column of it
// has its first value.
template <class A, class T>
void recursive_mean_rows(const WeightedMeanRows<T>& given, T decay, T alpha, bool ignore_na, bool streams) {
    const WeightedMeanRows<T> rows = given;  // (a copy: the stores may alias the caller's struct)
    const auto block = [&](auto vectors, std::ptrdiff_t j, std::ptrdiff_t r0, std::ptrdiff_t r1, bool streamed) {
        if constexpr (is_vectorized<A, T>()) {
            using B = xsimd::batch<T, A>;
            constexpr std::ptrdiff_t K = decltype(vectors)::value, lanes = std::ptrdiff_t(B::size);
            if (any_flag(rows.few + j, K * lanes)) {
                return r0;
            }
            const B zero(T(0)), one(T(1)), decays(decay), alphas(alpha);
            // A value's step after a value (kept 1), as the quotients below take it: no division a row.
            const T weights = decay + alpha;
            const B carried(decay / weights), gain(alpha / weights);
            B means[K], kept[K];
            for (std::ptrdiff_t k = 0; k < K; ++k) {
                means[k] = B::load_unaligned(rows.means + j + k * lanes);
                kept[k] = B::load_unaligned(rows.weights + j + k * lanes);
            }
            for (std::ptrdiff_t r = r0; r < r1; ++r) {
                const T* x = row_of(rows.x, rows.x_step, r) + j;
                T* out = row_of(rows.out, rows.out_step, r) + j;
                for (std::ptrdiff_t k = 0; k < K; ++k) {
                    const B values = B::load_unaligned(x + k * lanes);  // before out is written: out may be x
                    const auto seen = (values - values) == zero;  // numbers: NaN and +-inf are missing
                    if (xsimd::all(seen && kept[k] == one)) {
                        means[k] = carried * means[k] + gain * values;
                        store_or_stream(out + k * lanes, means[k], streamed);
                        continue;
                    }
                    const B weight = ignore_na ? xsimd::select(seen, kept[k] * decays, kept[k]) : kept[k] * decays;
                    const B total = weight + alphas;
                    means[k] = xsimd::select(seen, weight / total * means[k] + alphas / total * values, means[k]);
                    kept[k] = xsimd::select(seen, one, weight);
                    store_or_stream(out + k * lanes, means[k], streamed);
                }
            }
            for (std::ptrdiff_t k = 0; k < K; ++k) {
                means[k].store_unaligned(rows.means + j + k * lanes);
                kept[k].store_unaligned(rows.weights + j + k * lanes);
            }
            return r1;
        } else {
            return r0;
        }
    };
    walk_mean_bands<A, T>(rows, MeanSteps<T>{decay, alpha, false, ignore_na}, streams, block);
}

// Lane j's last number in the walk up to it (`last`: its walk position, -1 for none; `filled`: its value), from
// each lane's own: log2(L) steps of lanes K apart, a lane without one taking the one K lanes before it in the walk.
template <class A, bool Reverse, std::size_t K = 1, class B>
SIMDSCAN_ALWAYS_INLINE void carry_last_numbers(B& last, B& filled) {
    if constexpr (K < B::size) {
        using T = typename B::value_type;
        const B none(T(-1));
        const B last_before = Reverse ? Lanes<A>::template down<K>(last, none) : Lanes<A>::template up<K>(last, none);
        const B filled_before =
            Reverse ? Lanes<A>::template down<K>(filled, filled) : Lanes<A>::template up<K>(filled, filled);
        const auto without = last < B(T(0));
        filled = xsimd::select(without, filled_before, filled);
        last = xsimd::select(without, last_before, last);
        carry_last_numbers<A, Reverse, 2 * K>(last, filled);
    }
}

// RecurrenceKernels::limited_fill: each vector's last numbers found within it (carry_last_numbers), by their walk
// positions from the call's first element, then put behind the last number before it, whose position and value stay
// in every lane of a register (the chain from one vector to the next a blend each); outputs chosen by masks, so that
// every element keeps its bits or takes its number's. A limit below the lanes takes, after the first vector, the
// window of the `limit` elements before each one instead: no chain, no permutes, a load and a blend an element of it.
template <class A, class T, bool Reverse>
SIMDSCAN_FLATTEN std::ptrdiff_t limited_fill(const T* x, T* out, std::ptrdiff_t n, bool streams, FillLanes<T>& at) {
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        alignas(A::alignment()) T order[lanes];
        for (std::ptrdiff_t j = 0; j < lanes; ++j) {
            order[j] = T(Reverse ? lanes - 1 - j : j);
        }
        const B none(T(-1)), step = B(T(lanes));
        B position = B::load_aligned(order);         // each lane's walk position
        B reach = position - B(at.limit);            // the earliest position of a number that fills it
        B last_position(T(-1) - at.gap), value(at.value);  // the last number before the vector
        auto seen = none != none;
        const std::ptrdiff_t count = n / lanes * lanes;
        const std::ptrdiff_t window = at.limit < T(lanes) ? std::ptrdiff_t(at.limit) : -1;
        const std::ptrdiff_t behind = Reverse ? 1 : -1;  // the walk's step back, in elements
        B filled_before(T(0));  // the vector before's outputs, stored once the next window is loaded (out may be x)
        auto streamed = span_outputs<A, T, Reverse, Lanes<A>::streams>(out);
        const auto put = [&](std::ptrdiff_t i, const B& filled) {
            if (streams && Lanes<A>::streams) {
                streamed.vector(i, filled);
            } else {
                filled.store_unaligned(out + i);
            }
        };
        for (std::ptrdiff_t k = 0; k < count; k += lanes) {
            const std::ptrdiff_t first = Reverse ? n - k - lanes : k;
            prefetch_ahead<Reverse>(x + first);
            const B v = B::load_unaligned(x + first);
            const auto number = !is_nan(v);
            seen = seen | number;
            B filled = v;
            if (window >= 0 && k > 0) {
                for (std::ptrdiff_t d = 1; d <= window; ++d) {
                    filled = xsimd::select(is_nan(filled), B::load_unaligned(x + first + d * behind), filled);
                }
                filled = xsimd::select(is_nan(filled), v, filled);
            } else {
                B last = xsimd::select(number, position, none);
                carry_last_numbers<A, Reverse>(last, filled);
                // The vector's own last number, broadcast before the state joins: the chain is one blend.
                const B own_position = Reverse ? Lanes<A>::broadcast_first(last) : Lanes<A>::broadcast_last(last);
                const B own_value = Reverse ? Lanes<A>::broadcast_first(filled) : Lanes<A>::broadcast_last(filled);
                const auto found = last >= B(T(0));
                last = xsimd::select(found, last, last_position);
                filled = xsimd::select(number | (last < reach), v, xsimd::select(found, filled, value));
                const auto has_own = own_position >= B(T(0));
                last_position = xsimd::select(has_own, own_position, last_position);
                value = xsimd::select(has_own, own_value, value);
                position = position + step;
                reach = reach + step;
            }
            if (k > 0) {
                put(first + lanes * behind, filled_before);
            }
            filled_before = filled;
        }
        const std::ptrdiff_t last_first = Reverse ? n - count : count - lanes;  // the last vector walked
        if (window >= 0 && count > 0) {
            // The state from the last vector alone (read before its outputs are stored: out may be x): a number
            // further back lies beyond the limit.
            alignas(A::alignment()) T walked[lanes];
            B::load_unaligned(x + last_first).store_aligned(walked);
            at.gap = at.limit + T(1);
            for (std::ptrdiff_t j = 0; j < lanes; ++j) {
                const T element = walked[Reverse ? j : lanes - 1 - j];
                if (!is_nan(element)) {
                    at.gap = std::min(T(j), at.gap);  // (kept at limit + 1 beyond it)
                    at.value = element;
                    break;
                }
            }
        } else {
            alignas(A::alignment()) T lane[lanes];
            value.store_aligned(lane);
            at.value = lane[0];
            last_position.store_aligned(lane);
            at.gap = std::min(T(count - 1) - lane[0], at.limit + T(1));
        }
        if (count > 0) {
            put(last_first, filled_before);
        }
        finish_vectors(streamed, 0);
        at.seen = xsimd::any(seen);
        return count;
    } else {
        return 0;
    }
}

// Columns [from, to) of FillRows' rows [r0, r1), one element at a time, with limited_fill_rows' selections.
template <class T>
void fill_columns(const FillRows<T>& rows, std::ptrdiff_t from, std::ptrdiff_t to, std::ptrdiff_t r0,
                  std::ptrdiff_t r1) {
    const T beyond = rows.limit + T(1);
    for (std::ptrdiff_t r = r0; r < r1; ++r) {
        const std::uint8_t* flags = r > 0 && rows.starts != nullptr ? row_of(rows.starts, rows.starts_step, r - 1)
                                                                     : nullptr;
        const T* x = row_of(rows.x, rows.x_step, r);
        T* out = row_of(rows.out, rows.out_step, r);
        for (std::ptrdiff_t j = from; j < to; ++j) {
            const T v = x[j];
            const bool number = !is_nan(v);
            const T gap = flags != nullptr && flags[j * rows.starts_column] != 0 ? beyond : rows.gaps[j];
            rows.gaps[j] = number ? T(0) : std::min(gap + T(1), beyond);
            rows.values[j] = number ? v : rows.values[j];
            out[j] = number || rows.gaps[j] > rows.limit ? v : rows.values[j];
        }
    }
}

// RecurrenceKernels::limited_fill_rows: bands of rows (as recur_rows'), each walked a vector of columns at a time with
// the columns' states in registers through the band; the columns before the first vector that out's rows align for
// streaming and after the last vector one by one (fill_columns).
template <class A, class T>
void limited_fill_rows(const FillRows<T>& given, bool streams) {
    const FillRows<T> rows = given;  // (a copy: the stores may alias the caller's struct)
    const auto [head, whole, streamed] = row_vectors<A>(rows.out, rows.out_step, rows.w, streams);
    for (std::ptrdiff_t r0 = 0; r0 < rows.rows; r0 += recurrence_band_rows) {
        const std::ptrdiff_t r1 = std::min(rows.rows, r0 + recurrence_band_rows);
        prefetch_rows(rows.x, rows.x_step, rows.w, r1, r1 + recurrence_band_rows, rows.rows);
        if constexpr (is_vectorized<A, T>()) {
            using B = xsimd::batch<T, A>;
            constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
            const B zero(T(0)), one(T(1)), limit(rows.limit), beyond(rows.limit + T(1));
            for (std::ptrdiff_t j = head; j < whole; j += lanes) {
                B gap = B::load_unaligned(rows.gaps + j), value = B::load_unaligned(rows.values + j);
                for (std::ptrdiff_t r = r0; r < r1; ++r) {
                    if (r > 0 && rows.starts != nullptr) {
                        const std::uint8_t* flags = row_of(rows.starts, rows.starts_step, r - 1);
                        alignas(A::alignment()) T begins[lanes];
                        for (std::ptrdiff_t i = 0; i < lanes; ++i) {
                            begins[i] = T(flags[(j + i) * rows.starts_column]);
                        }
                        gap = xsimd::select(B::load_aligned(begins) != zero, beyond, gap);
                    }
                    const B v = B::load_unaligned(row_of(rows.x, rows.x_step, r) + j);
                    const auto number = !is_nan(v);
                    gap = xsimd::select(number, zero, xsimd::min(gap + one, beyond));
                    value = xsimd::select(number, v, value);
                    store_or_stream(row_of(rows.out, rows.out_step, r) + j,
                                    xsimd::select(number | (gap > limit), v, value), streamed);
                }
                gap.store_unaligned(rows.gaps + j);
                value.store_unaligned(rows.values + j);
            }
        }
        fill_columns(rows, 0, head, r0, r1);
        fill_columns(rows, whole, rows.w, r0, r1);
    }
}

// Each element type's kernels; the complex types' (one by one in every tier) in the lowest tier only.
template <class A>
void fill_recurrences(RecurrenceSet& set) {
    RecurrenceSet::for_each_type([&](auto type) {
        using T = typename decltype(type)::type;
        if constexpr (SIMDSCAN_TIER_LOWEST || !scalar_only<T>::value) {
            auto& kernels = set.get<T>();
            kernels.span[0] = &recur_span<A, T, false>;
            kernels.span[1] = &recur_span<A, T, true>;
            kernels.rows = &recur_rows<A, T>;
            if constexpr (std::is_floating_point<T>::value) {
                kernels.limited_fill[0] = &limited_fill<A, T, false>;
                kernels.limited_fill[1] = &limited_fill<A, T, true>;
                kernels.limited_fill_rows = &limited_fill_rows<A, T>;
                kernels.weighted_mean = &weighted_mean<A, T>;
                kernels.weighted_mean_rows = &weighted_mean_rows<A, T>;
                kernels.recursive_mean = &recursive_mean<A, T>;
                kernels.recursive_mean_rows = &recursive_mean_rows<A, T>;
            } else {
                kernels.limited_fill[0] = nullptr;
                kernels.limited_fill[1] = nullptr;
                kernels.limited_fill_rows = nullptr;
                kernels.weighted_mean = nullptr;
                kernels.weighted_mean_rows = nullptr;
                kernels.recursive_mean = nullptr;
                kernels.recursive_mean_rows = nullptr;
            }
        }
    });
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
