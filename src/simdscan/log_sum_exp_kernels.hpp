// The log-sum-exp kernels' blocks: a block of a line scanned with one exp and one log per element, and the total of
// a chunk (for TypedKernels::total). scan_kernels.hpp runs them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "exp_log.hpp"
#include "ops.hpp"
#include "scan_kernels.hpp"
#include "vector_state.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// The type a log-sum-exp kernel computes in: float32 for float16 and float32 (twice the lanes of double, and its
// exp and log half the terms), double otherwise. The running value between blocks and chunks is a double always.
template <class T>
using LogSumExpCompute = typename std::conditional<std::is_same<T, float>::value, float, double>::type;

// How far below a block's shift its running value may start (log_sum_exp_block): every running sum then stays
// above exp(-reach), a normal number, and an element whose exp(x - shift) leaves the normal range (clamped in
// exp_in_range) lies over 58 (double) / 27 (float) below the running value, adding less than 2^-38 of it.
template <class F>
constexpr double log_sum_exp_reach() { return std::is_same<F, float>::value ? 60.0 : 650.0; }

// A block (log_sum_exp_block) is this many vectors of the compute type.
constexpr std::ptrdiff_t log_sum_exp_block_vectors = 64;
template <class A, class T>
constexpr std::ptrdiff_t log_sum_exp_block_elements() {
    return log_sum_exp_block_vectors * std::ptrdiff_t(xsimd::batch<LogSumExpCompute<T>, A>::size);
}

// Whether sums of exp(x - shift) may be taken against a shift of 0: the largest value in play is at most
// ExpLogFormat::highest, and the smallest running value that must stay normal lies within the reach below 0. x - 0 is
// exact, where x - reference rounds (a float32 result near 0 would be off by up to 2e-6 with its block's maximum 60
// above it).
template <class F>
bool shifts_by_zero(double largest, double smallest_running) {
    return largest <= ExpLogFormat<F>::highest && smallest_running >= -log_sum_exp_reach<F>();
}

// The largest of the vectors it is shown, and whether any of them holds NaN (then the largest is meaningless).
template <class A, class F>
struct LargestSeen {
    using B = xsimd::batch<F, A>;
    B largest = B(-std::numeric_limits<F>::infinity());
    typename B::batch_bool_type unordered = xsimd::isnan(largest);

    void see(const B& x) {
        unordered = unordered | xsimd::isnan(x);
        largest = xsimd::max(largest, x);
    }
    F value() const {
        alignas(A::alignment()) F lane_values[B::size];
        largest.store_aligned(lane_values);
        return *std::max_element(lane_values, lane_values + B::size);
    }
    bool has_nan() const { return xsimd::any(unordered); }
};

// The largest of n contiguous elements, and whether any is NaN (then the largest is meaningless).
template <class A, class T>
LogSumExpCompute<T> largest_of(const T* in, std::ptrdiff_t n, bool& has_nan) {
    using F = LogSumExpCompute<T>;
    using B = xsimd::batch<F, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    const std::ptrdiff_t vectors_end = n / lanes * lanes;
    LargestSeen<A, F> seen;
    for (std::ptrdiff_t i = 0; i < vectors_end; i += lanes) {
        seen.see(load_vector<B>(in + i));
    }
    F result = seen.value();
    has_nan = seen.has_nan();
    for (std::ptrdiff_t i = vectors_end; i < n; ++i) {
        has_nan = has_nan || std::isnan(in[i]);
        result = std::max(result, F(in[i]));
    }
    return result;
}

// sum plus a vector's lanes, in double precision, lane by lane in scan order (from the last lane where Reverse), so
// that a line walked down memory gets the bits of the same values walked up.
template <bool Reverse, class F, class A>
double add_lanes(double sum, const xsimd::batch<F, A>& x) {
    constexpr std::size_t lanes = xsimd::batch<F, A>::size;
    alignas(A::alignment()) F lane_values[lanes];
    x.store_aligned(lane_values);
    for (std::size_t i = 0; i < lanes; ++i) {
        sum += double(lane_values[Reverse ? lanes - 1 - i : i]);
    }
    return sum;
}

// The lane-wise sum of exp(x - shift) over count contiguous elements (whole vectors), vector by vector in scan order,
// each term also stored to `terms` where given: a block's terms and its part of the total, or a total's part alone.
template <class A, bool Reverse, class T>
xsimd::batch<LogSumExpCompute<T>, A> exp_terms(const T* in, std::ptrdiff_t count,
                                               const xsimd::batch<LogSumExpCompute<T>, A>& shift,
                                               LogSumExpCompute<T>* terms) {
    using B = xsimd::batch<LogSumExpCompute<T>, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    B group(LogSumExpCompute<T>(0));
    for (std::ptrdiff_t step = 0; step < count; step += lanes) {
        const std::ptrdiff_t at = Reverse ? count - lanes - step : step;
        const B term = exp_in_range<false>(load_vector<B>(in + at) - shift);
        if (terms != nullptr) {
            term.store_aligned(terms + at);
        }
        group = group + term;
    }
    return group;
}

template <class F>
double total_from(F shift, double sum) {
    return double(shift) + log_normal(sum);
}

// What a span's blocks gather towards its total while every block is taken against a shift of 0.
template <class F>
struct BlocksSeen {
    double sum = 0.0;
    F largest = -std::numeric_limits<F>::infinity();
    bool against_zero = true;
};

// Log-sum-exp over one block of up to log_sum_exp_block_vectors vectors, against one shift (0, or else the larger of
// the block's maximum and the running value `carry`, in the compute type): the running sum of exp(x - shift) is a
// plain vector scan, and each output is shift + log(sum): one exp and one log per element, where LogAddExp::apply,
// step by step, costs an exp and a log1p per vector step. The block's own sum starts from zero, the carry's term is
// added to each output, and the carry itself moves on in double precision: float32 roundings stay within one block.
// The last `pad` elements in scan order are padding, -inf, whose terms are taken as 0 (log_sum_exp_rest).
// Declines (returns false, writes nothing) when the block holds NaN or +inf, or when the running value at its start
// (exclusive: the carry itself) lies more than log_sum_exp_reach below the shift.
template <class A, class T, bool Reverse>
SIMDSCAN_FLATTEN bool log_sum_exp_block(const T* in, T* out, std::ptrdiff_t vectors, std::ptrdiff_t pad,
                                        double& carry, BlocksSeen<LogSumExpCompute<T>>& seen, bool exclusive) {
    using F = LogSumExpCompute<T>;
    using B = xsimd::batch<F, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    const std::ptrdiff_t count = vectors * lanes;
    if (std::isnan(carry)) {
        return false;
    }
    const double start = std::max(carry, double(in[Reverse ? count - 1 : 0]));
    alignas(A::alignment()) F sums[log_sum_exp_block_elements<A, T>()];
    B group(F(0));
    // Where the carry and the block's start are in range, the shift is 0 unless the block holds a value above it (or
    // NaN): the exps are taken in the pass that finds the largest, and kept if it is in range.
    bool has_nan = false;
    F block_largest = F(0);
    bool terms_taken = false;
    if (shifts_by_zero<F>(carry, start)) {
        LargestSeen<A, F> largest;
        for (std::ptrdiff_t step = 0; step < count; step += lanes) {
            const std::ptrdiff_t at = Reverse ? count - lanes - step : step;  // the group summed in scan order
            const B x = load_vector<B>(in + at);
            largest.see(x);
            const B term = exp_in_range<false>(x);
            term.store_aligned(sums + at);
            group = group + term;
        }
        block_largest = largest.value();
        has_nan = largest.has_nan();
        terms_taken = !has_nan && block_largest <= ExpLogFormat<F>::highest;
    } else {
        block_largest = largest_of<A, T>(in, count, has_nan);
    }
    const double reference = std::max(carry, double(block_largest));
    const F shift_value = shifts_by_zero<F>(reference, start) ? F(0) : F(reference);
    // An exclusive scan's first output is the running value itself: it must stay in range too.
    const bool carry_underflows = exclusive && carry != -std::numeric_limits<double>::infinity() &&
                                  shift_value - carry > log_sum_exp_reach<F>();
    if (has_nan || !std::isfinite(reference) || shift_value - start > log_sum_exp_reach<F>() || carry_underflows) {
        return false;
    }
    seen.largest = std::max(seen.largest, block_largest);
    seen.against_zero = seen.against_zero && shift_value == F(0) && pad == 0;  // (the group counts padding)
    // In passes over the block, each a loop of independent vectors but the short running-sum chain: one loop
    // around exp, prefix and log would chain their latencies, with little overlap between vectors.
    const B shift(shift_value);
    const B fill(F(0));
    if (!terms_taken) {
        group = exp_terms<A, Reverse>(in, count, shift, sums);
    }
    seen.sum = add_lanes<Reverse>(seen.sum, group);
    std::fill_n(sums + (Reverse ? 0 : count - pad), pad, F(0));
    const double carried = std::exp(carry - double(shift_value));  // the carry's term
    B partial = B(F(carried));
    for (std::ptrdiff_t step = 0; step < vectors; ++step) {
        const std::ptrdiff_t at = (Reverse ? vectors - 1 - step : step) * lanes;
        const B prefix = vector_prefix<A, Summation, Reverse, 1, B::size>(B::load_aligned(sums + at), fill);
        const B before = exclusive ? shifted<A, Reverse, 1>(prefix, fill) : prefix;
        // The additions outside the prefix's levels on the multiply pipes, which this pass leaves idle (the same bits).
        Lanes<A>::add_beside(partial, before).store_aligned(sums + at);
        partial = Lanes<A>::add_beside(partial, broadcast_total<A, Reverse>(prefix));
    }
    for (std::ptrdiff_t at = 0; at < count; at += lanes) {
        store_vector(out + at, log_normal_plus<false>(B::load_aligned(sums + at), shift));
    }
    if (exclusive && carried == 0.0) {  // the line's first output: the log of an empty sum
        out[Reverse ? count - 1 : 0] = -std::numeric_limits<T>::infinity();
    }
    carry = double(shift_value) + std::log(carried + add_lanes<Reverse>(0.0, group));
    return true;
}

// A span's last elements after its whole vectors, fewer than a vector's: through a vector padded with -inf after them
// in scan order (before them in memory for Reverse), a block of its own.
template <class A, class T, bool Reverse>
bool log_sum_exp_rest(const T* in, T* out, std::ptrdiff_t n, double& carry, BlocksSeen<LogSumExpCompute<T>>& seen,
                      bool exclusive) {
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(xsimd::batch<LogSumExpCompute<T>, A>::size);
    const std::ptrdiff_t pad = lanes - n;
    const std::ptrdiff_t offset = Reverse ? pad : 0;
    alignas(A::alignment()) T staged_in[lanes];
    alignas(A::alignment()) T staged_out[lanes];
    std::fill_n(staged_in, lanes, -std::numeric_limits<T>::infinity());
    std::copy_n(in, n, staged_in + offset);
    if (!log_sum_exp_block<A, T, Reverse>(staged_in, staged_out, 1, pad, carry, seen, exclusive)) {
        return false;
    }
    std::copy_n(staged_out + offset, n, out);
    return true;
}

// A span's total as log_sum_exp_total gives it, from what its blocks saw, if they were all whole and taken against a
// shift of 0 and the span's largest element leaves that shift to log_sum_exp_total too.
template <class F>
bool total_on_the_way(const BlocksSeen<F>& seen, double& total) {
    if (!seen.against_zero || !shifts_by_zero<F>(seen.largest, seen.largest)) {
        return false;
    }
    total = total_from(F(0), seen.sum);
    return true;
}

// The log-sum-exp of n contiguous elements (TypedKernels::total), in double precision: shift + log(sum of
// exp(x - shift)), the sum taken as a scan in the direction of Reverse meets them, so that the scan can take the same
// total on the way (BlocksSeen): block by block in scan order (log_sum_exp_block_elements each, summed lane by lane
// in the compute type, each block's lanes then added in double), then the rest after the last whole block, its
// whole vectors as one group, its last elements one by one. NaN among them gives NaN, +inf gives +inf, and all -inf
// (or none) gives -inf.
template <class A, class T, bool Reverse>
double log_sum_exp_total(const T* in, std::ptrdiff_t n) {
    using F = LogSumExpCompute<T>;
    using B = xsimd::batch<F, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    constexpr std::ptrdiff_t block = log_sum_exp_block_elements<A, T>();
    bool has_nan = false;
    const F largest = largest_of<A, T>(in, n, has_nan);
    if (has_nan) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (std::isinf(largest)) {
        return double(largest);
    }
    const F shift_value = shifts_by_zero<F>(largest, largest) ? F(0) : largest;
    const B shift(shift_value);
    const std::ptrdiff_t whole = n / block * block;
    double sum = 0.0;
    for (std::ptrdiff_t done = 0; done < whole; done += block) {
        sum = add_lanes<Reverse>(sum, exp_terms<A, Reverse>(in + (Reverse ? n - done - block : done), block, shift,
                                                           nullptr));
    }
    // The rest in scan order: its whole vectors, then its last elements (the lowest in memory where Reverse).
    const std::ptrdiff_t rest = n - whole;
    const std::ptrdiff_t rest_vectors = rest / lanes * lanes;
    const std::ptrdiff_t singles = rest - rest_vectors;
    sum = add_lanes<Reverse>(sum, exp_terms<A, Reverse>(in + (Reverse ? singles : whole), rest_vectors, shift, nullptr));
    for (std::ptrdiff_t i = 0; i < singles; ++i) {
        const T x = Reverse ? in[singles - 1 - i] : in[whole + rest_vectors + i];
        sum += exp_in_range(double(x) - double(shift_value));
    }
    return total_from(shift_value, sum);
}

// LogAddExp::scan_span, log-sum-exp's scan_span_of (float and double elements): block by block (log_sum_exp_block), the whole vectors after
// the last whole block as a shorter one, the last elements padded to a vector (log_sum_exp_rest); a block that
// declines (NaN, +inf, a leap over the reach) goes step by step. Each chunk of a long line is scanned from its base
// (TypedKernels::total), st.local; where st.wants_total, the span's total too if its blocks took it on the way
// (total_on_the_way). Returns the new running value.
template <class A, class T, bool Reverse>
double LogAddExp::scan_span(const T* in, T* out, std::ptrdiff_t n, ScanState<double>& st, bool exclusive) {
    constexpr std::ptrdiff_t block = log_sum_exp_block_elements<A, T>();
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(xsimd::batch<LogSumExpCompute<T>, A>::size);
    constexpr T minus_infinity = -std::numeric_limits<T>::infinity();
    double carry = st.local;
    BlocksSeen<LogSumExpCompute<T>> seen;
    // Leading -inf while nothing came before: -inf out (the log of an empty sum, inclusive or exclusive), and the
    // blocks start after them (a block starting at -inf would decline).
    std::ptrdiff_t skipped = 0;
    if (carry == double(minus_infinity)) {
        while (skipped < n && in[Reverse ? n - 1 - skipped : skipped] == minus_infinity) {
            ++skipped;
        }
        std::fill_n(out + (Reverse ? n - skipped : 0), skipped, minus_infinity);
        seen.against_zero = skipped == 0;
    }
    in += Reverse ? 0 : skipped;
    out += Reverse ? 0 : skipped;
    n -= skipped;
    for (std::ptrdiff_t done = 0; done < n;) {
        const std::ptrdiff_t vectors = std::min(block, n - done) / lanes;
        const std::ptrdiff_t count = vectors > 0 ? vectors * lanes : n - done;
        const std::ptrdiff_t at = Reverse ? n - done - count : done;
        const bool taken =
            vectors > 0 ? log_sum_exp_block<A, T, Reverse>(in + at, out + at, vectors, 0, carry, seen, exclusive)
                        : log_sum_exp_rest<A, T, Reverse>(in + at, out + at, count, carry, seen, exclusive);
        if (!taken) {
            seen.against_zero = false;
            carry = scan_steps<A, T, LogAddExp, Reverse>(in + at, out + at, count, carry, carry,
                                                         SpanModes{exclusive, false});
        }
        done += count;
    }
    st.has_total = st.wants_total && total_on_the_way(seen, st.total);
    return carry;
}

template <class A, class T, bool Reverse>
double LogAddExp::total(const T* in, std::ptrdiff_t n) {
    return log_sum_exp_total<A, T, Reverse>(in, n);
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
