// The log-sum-exp kernels' blocks: a block of a line scanned with one exp and one log per element, and the total of
// a chunk (for TypedKernels::total). scan_kernels.hpp runs them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "exp_log.hpp"
#include "ops.hpp"
#include "vector_state.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// Log-sum-exp over one block of log_sum_exp_block_vectors vectors, against one reference (the larger of the block's
// maximum and the running value `carry`): the running sum of exp(x - reference) is a plain vector scan, and each
// output is reference + log(sum): one exp and one log per element, where LogAddExp::apply, step by step, costs an exp
// and a log1p per vector step. Declines (returns false, writes nothing) when the block holds NaN or +inf, or when
// the running value at its start (exclusive: the carry itself) lies more than 650 below the reference: every
// running sum then stays above exp(-650), a normal double, and an element whose exp(x - reference) underflows lies
// over 58 below the running value, adding less than 2^-80 of it.
constexpr std::ptrdiff_t log_sum_exp_block_vectors = 32;
template <class A, class T, bool Reverse, bool Exclusive>
SIMDSCAN_FLATTEN bool log_sum_exp_block(const T* in, T* out, double& carry) {
    using B = xsimd::batch<double, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    constexpr std::ptrdiff_t block = log_sum_exp_block_vectors * lanes;
    if (std::isnan(carry)) {
        return false;
    }
    B largest(carry);
    auto unordered = xsimd::isnan(largest);
    for (std::ptrdiff_t v = 0; v < log_sum_exp_block_vectors; ++v) {
        const B x = load_vector<B>(in + v * lanes);
        unordered = unordered | xsimd::isnan(x);
        largest = xsimd::max(largest, x);
    }
    alignas(A::alignment()) double top[lanes];
    largest.store_aligned(top);
    const double reference = *std::max_element(top, top + lanes);
    const double start = std::max(carry, double(in[Reverse ? block - 1 : 0]));
    // An exclusive scan's first output is the running value itself: it must not underflow either.
    const bool carry_underflows = Exclusive && carry != -std::numeric_limits<double>::infinity() &&
                                  reference - carry > 650.0;
    if (xsimd::any(unordered) || !std::isfinite(reference) || reference - start > 650.0 || carry_underflows) {
        return false;
    }
    // In passes over the block, each a loop of independent vectors but the short running-sum chain: one loop
    // around exp, prefix and log would chain their latencies, with little overlap between vectors.
    const B shift(reference);
    const B fill(0.0);
    alignas(A::alignment()) double sums[block];
    for (std::ptrdiff_t at = 0; at < block; at += lanes) {
        exp_nonpositive(load_vector<B>(in + at) - shift).store_aligned(sums + at);
    }
    B running(std::exp(carry - reference));
    for (std::ptrdiff_t step = 0; step < log_sum_exp_block_vectors; ++step) {
        const std::ptrdiff_t at = (Reverse ? log_sum_exp_block_vectors - 1 - step : step) * lanes;
        const B prefix = vector_prefix<A, Summation, Reverse, 1, B::size>(B::load_aligned(sums + at), fill);
        const B before = Exclusive ? shifted<A, Reverse, 1>(prefix, fill) : prefix;
        (running + before).store_aligned(sums + at);
        running = running + broadcast_total<A, Reverse>(prefix);
    }
    for (std::ptrdiff_t at = 0; at < block; at += lanes) {
        store_vector(out + at, shift + log_normal(B::load_aligned(sums + at)));
    }
    carry = reference + std::log(first_lane(running));
    return true;
}

// The log-sum-exp of n contiguous elements, in double precision: their maximum m, then m + log(sum of exp(x - m)).
// NaN among them gives NaN, +inf gives +inf, and all -inf (or none) gives -inf.
template <class A, class T>
double log_sum_exp_total(const T* in, std::ptrdiff_t n) {
    using B = xsimd::batch<double, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    const std::ptrdiff_t vectors_end = n / lanes * lanes;
    B largest(-std::numeric_limits<double>::infinity());
    auto unordered = xsimd::isnan(largest);
    for (std::ptrdiff_t i = 0; i < vectors_end; i += lanes) {
        const B x = load_vector<B>(in + i);
        unordered = unordered | xsimd::isnan(x);
        largest = xsimd::max(largest, x);
    }
    alignas(A::alignment()) double lane_values[lanes];
    largest.store_aligned(lane_values);
    double reference = *std::max_element(lane_values, lane_values + lanes);
    bool has_nan = xsimd::any(unordered);
    for (std::ptrdiff_t i = vectors_end; i < n; ++i) {
        has_nan = has_nan || std::isnan(double(in[i]));
        reference = std::max(reference, double(in[i]));
    }
    if (has_nan) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (std::isinf(reference)) {
        return reference;
    }
    const B shift(reference);
    B sums(0.0);
    for (std::ptrdiff_t i = 0; i < vectors_end; i += lanes) {
        sums = sums + exp_nonpositive(load_vector<B>(in + i) - shift);
    }
    sums.store_aligned(lane_values);
    double sum = 0.0;
    for (std::ptrdiff_t lane = 0; lane < lanes; ++lane) {
        sum += lane_values[lane];
    }
    for (std::ptrdiff_t i = vectors_end; i < n; ++i) {
        sum += exp_nonpositive(double(in[i]) - reference);
    }
    return reference + log_normal(sum);
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
