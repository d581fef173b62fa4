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

// Log-sum-exp over one block of log_sum_exp_block_vectors vectors, against one shift (0, or else the larger of the
// block's maximum and the running value `carry`, in the compute type): the running sum of exp(x - shift) is a plain
// vector scan, and each output is shift + log(sum): one exp and one log per element, where LogAddExp::apply, step
// by step, costs an exp and a log1p per vector step. The block's own sum starts from zero, the carry's term is added
// to each output, and the carry itself moves on in double precision: float32 roundings stay within one block.
// Declines (returns false, writes nothing) when the block holds NaN or +inf, or when the running value at its start
// (exclusive: the carry itself) lies more than log_sum_exp_reach below the shift.
constexpr std::ptrdiff_t log_sum_exp_block_vectors = 32;
template <class A, class T>
constexpr std::ptrdiff_t log_sum_exp_block_elements() {
    return log_sum_exp_block_vectors * std::ptrdiff_t(xsimd::batch<LogSumExpCompute<T>, A>::size);
}
template <class A, class T, bool Reverse, bool Exclusive>
SIMDSCAN_FLATTEN bool log_sum_exp_block(const T* in, T* out, double& carry) {
    using F = LogSumExpCompute<T>;
    using B = xsimd::batch<F, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    constexpr std::ptrdiff_t block = log_sum_exp_block_elements<A, T>();
    if (std::isnan(carry)) {
        return false;
    }
    B largest(-std::numeric_limits<F>::infinity());
    auto unordered = xsimd::isnan(largest);
    for (std::ptrdiff_t v = 0; v < log_sum_exp_block_vectors; ++v) {
        const B x = load_vector<B>(in + v * lanes);
        unordered = unordered | xsimd::isnan(x);
        largest = xsimd::max(largest, x);
    }
    alignas(A::alignment()) F top[lanes];
    largest.store_aligned(top);
    const double reference = std::max(carry, double(*std::max_element(top, top + lanes)));
    const double start = std::max(carry, double(in[Reverse ? block - 1 : 0]));
    // Against 0 where every term's exp stays in range: x - 0 is exact, where x - reference rounds (a float32 result
    // near 0 would be off by up to 2e-6 with the block's maximum 60 above it).
    const F shift_value = reference <= ExpLogFormat<F>::highest && start >= -log_sum_exp_reach<F>() ? F(0)
                                                                                                      : F(reference);
    // An exclusive scan's first output is the running value itself: it must stay in range too.
    const bool carry_underflows = Exclusive && carry != -std::numeric_limits<double>::infinity() &&
                                  shift_value - carry > log_sum_exp_reach<F>();
    if (xsimd::any(unordered) || !std::isfinite(reference) || shift_value - start > log_sum_exp_reach<F>() ||
        carry_underflows) {
        return false;
    }
    // In passes over the block, each a loop of independent vectors but the short running-sum chain: one loop
    // around exp, prefix and log would chain their latencies, with little overlap between vectors.
    const B shift(shift_value);
    const B fill(F(0));
    alignas(A::alignment()) F sums[block];
    for (std::ptrdiff_t at = 0; at < block; at += lanes) {
        exp_in_range<false>(load_vector<B>(in + at) - shift).store_aligned(sums + at);
    }
    const double carried = std::exp(carry - double(shift_value));  // the carry's term
    const B carried_term = B(F(carried));
    B partial(F(0));
    for (std::ptrdiff_t step = 0; step < log_sum_exp_block_vectors; ++step) {
        const std::ptrdiff_t at = (Reverse ? log_sum_exp_block_vectors - 1 - step : step) * lanes;
        const B prefix = vector_prefix<A, Summation, Reverse, 1, B::size>(B::load_aligned(sums + at), fill);
        const B before = Exclusive ? shifted<A, Reverse, 1>(prefix, fill) : prefix;
        (carried_term + (partial + before)).store_aligned(sums + at);
        partial = partial + broadcast_total<A, Reverse>(prefix);
    }
    for (std::ptrdiff_t at = 0; at < block; at += lanes) {
        store_vector(out + at, log_normal_plus<false>(B::load_aligned(sums + at), shift));
    }
    if (Exclusive && carried == 0.0) {  // the line's first output: the log of an empty sum
        out[Reverse ? block - 1 : 0] = -std::numeric_limits<T>::infinity();
    }
    carry = double(shift_value) + std::log(carried + double(first_lane(partial)));
    return true;
}

// The log-sum-exp of n contiguous elements, in double precision: their maximum m, then m + log(sum of exp(x - m)),
// the terms in the compute type and summed in it over groups of log_sum_exp_block_vectors vectors, each group's
// lanes then in double. NaN among them gives NaN, +inf gives +inf, and all -inf (or none) gives -inf.
template <class A, class T>
double log_sum_exp_total(const T* in, std::ptrdiff_t n) {
    using F = LogSumExpCompute<T>;
    using B = xsimd::batch<F, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    const std::ptrdiff_t vectors_end = n / lanes * lanes;
    B largest(-std::numeric_limits<F>::infinity());
    auto unordered = xsimd::isnan(largest);
    for (std::ptrdiff_t i = 0; i < vectors_end; i += lanes) {
        const B x = load_vector<B>(in + i);
        unordered = unordered | xsimd::isnan(x);
        largest = xsimd::max(largest, x);
    }
    alignas(A::alignment()) F lane_values[lanes];
    largest.store_aligned(lane_values);
    F reference = *std::max_element(lane_values, lane_values + lanes);
    bool has_nan = xsimd::any(unordered);
    for (std::ptrdiff_t i = vectors_end; i < n; ++i) {
        has_nan = has_nan || std::isnan(in[i]);
        reference = std::max(reference, F(in[i]));
    }
    if (has_nan) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (std::isinf(reference)) {
        return double(reference);
    }
    const B shift(reference);
    double sum = 0.0;
    for (std::ptrdiff_t i = 0; i < vectors_end;) {
        const std::ptrdiff_t group_end = std::min(vectors_end, i + log_sum_exp_block_vectors * lanes);
        B group(F(0));
        for (; i < group_end; i += lanes) {
            group = group + exp_in_range<false>(load_vector<B>(in + i) - shift);
        }
        group.store_aligned(lane_values);
        for (std::ptrdiff_t lane = 0; lane < lanes; ++lane) {
            sum += double(lane_values[lane]);
        }
    }
    for (std::ptrdiff_t i = vectors_end; i < n; ++i) {
        sum += exp_in_range(double(in[i]) - double(reference));
    }
    return double(reference) + log_normal(sum);
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
