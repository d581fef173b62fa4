// Vector exp and log in double and single precision for the log-sum-exp kernels, on the inputs those kernels give
// them: polynomials on plain arithmetic and bit moves, the same on every ISA. xsimd's own handle every input, with
// two divisions and many selects, and cost about 3x as much.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "lanes/lanes_generic.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

// A floating type's bit layout and the constants of its exp and log below.
template <class F>
struct ExpLogFormat;
template <>
struct ExpLogFormat<double> {
    using Bits = std::uint64_t;
    static constexpr int mantissa_bits = 52;
    static constexpr Bits exponent_bias = 1023;
    static constexpr double lowest = -709.0;  // k = -1023 there: a scale of 0, so exp gives 0 below -708.3
    static constexpr double highest = 700.0;  // 2^10 terms up to exp(highest) add up to a finite sum
    static constexpr double ln2_upper = 0x1.62e42fee00000p-1;  // 32 bits: k times it is exact
    static constexpr double ln2_lower = 0x1.a39ef35793c76p-33;
    static constexpr Bits near_sqrt_half = 0x3fe6955500000000;  // log's split point, about 0.707
    // Degree 11, a minimax fit (Remez, relative error) to exp on [-ln(2) / 2, ln(2) / 2]: 2.3e-17 with the
    // coefficients rounded to double (Taylor needs degree 13 for that).
    static constexpr double exp_polynomial[] = {
        0x1.ad661d8a99f75p-26, 0x1.28b311c4abb3bp-22, 0x1.71df4520100a1p-19, 0x1.a01992d102296p-16,
        0x1.a01a0110576fcp-13, 0x1.6c16c18781105p-10, 0x1.1111111130dd5p-7,  0x1.555555554f370p-5,
        0x1.55555555554a2p-3,  0x1.0000000000010p-1,  1.0,                   1.0};
    // The tail T(s) of log(z) = 2f + f s T(s), s = f^2, |f| < 0.172, fitted as exp's: 5.5e-19 of log(z) (the
    // series needs 10 terms).
    static constexpr double atanh_tail[] = {0x1.0c080b8a8371bp-3, 0x1.0fbe254f7d68ep-3, 0x1.3b1c39ba8b0edp-3,
                                            0x1.745cf8ef0042cp-3, 0x1.c71c72018f7dbp-3, 0x1.2492492476ac2p-2,
                                            0x1.9999999999a38p-2, 0x1.5555555555555p-1};
};
template <>
struct ExpLogFormat<float> {
    using Bits = std::uint32_t;
    static constexpr int mantissa_bits = 23;
    static constexpr Bits exponent_bias = 127;
    static constexpr float lowest = -87.0f;  // k = -126 and r > 0.33 there: exp gives exp(-87), still normal
    static constexpr float highest = 80.0f;
    static constexpr float ln2_upper = 0x1.62e4p-1f;  // 16 bits: k (8 bits) times it is exact
    static constexpr float ln2_lower = 0x1.7f7d1cp-20f;
    static constexpr Bits near_sqrt_half = 0x3f350000;
    // Degree 6, fitted to exp on [-ln(2) / 2, ln(2) / 2] by weighted least squares towards the smallest largest
    // relative error: 1.7e-8 with the coefficients rounded to float (Taylor needs degree 7).
    static constexpr float exp_polynomial[] = {0x1.6ab88ap-10f, 0x1.126cc4p-7f, 0x1.55589ap-5f, 0x1.55540cp-3f,
                                               0x1.fffffap-2f,  1.0f,           1.0f};
    // The tail T(s) of log(z) = 2f + f s T(s), s = f^2, fitted as exp's: 2.6e-9 of log(z) (the series to f^9
    // has 4 terms).
    static constexpr float atanh_tail[] = {0x1.2ee85cp-2f, 0x1.997c16p-2f, 0x1.55555cp-1f};
};

// exp(x) for x <= ExpLogFormat::highest, -inf and NaN included (with Specials), within 2 ulp down to the clamp
// ExpLogFormat::lowest, where the result leaves the normal range (the kernels' terms that small add nothing to their
// running sums). Without Specials, x holds no NaN (the log-sum-exp blocks check first): no select.
template <bool Specials = true, class A, class F>
xsimd::batch<F, A> exp_in_range(const xsimd::batch<F, A>& x) {
    using B = xsimd::batch<F, A>;
    using Format = ExpLogFormat<F>;
    using U = xsimd::batch<typename Format::Bits, A>;
    // Adding it rounds to an integer, kept in the low bits of the sum.
    const B shifter(F(3) * F(typename Format::Bits(1) << Format::mantissa_bits) / F(2));
    const B clamped = xsimd::max(x, B(Format::lowest));
    const B biased = Lanes<A>::multiply_add(clamped, B(F(1.4426950408889634)), shifter);  // x / ln 2 + shifter
    const B k = biased - shifter;
    // x - k ln 2 in two parts, the upper one exact times k.
    B r = Lanes<A>::multiply_add(k, B(-Format::ln2_upper), clamped);
    r = Lanes<A>::multiply_add(k, B(-Format::ln2_lower), r);
    B p(Format::exp_polynomial[0]);
    for (std::size_t i = 1; i < sizeof(Format::exp_polynomial) / sizeof(F); ++i) {
        p = Lanes<A>::multiply_add(p, r, B(Format::exp_polynomial[i]));
    }
    // 2^k from the rounded sum's low bits (k + bias in the exponent field).
    const U scale = (bits_as<typename Format::Bits>(biased) + U(Format::exponent_bias)) << Format::mantissa_bits;
    const B result = p * bits_as<F>(scale);
    return Specials ? xsimd::select(xsimd::isnan(x), x, result) : result;
}

// shift + log(y) for positive normal y, and with Specials also y = 0 (-inf) and NaN, within 2 ulp of log(y) and a
// rounding of the sum: with y = 2^k z, shift + k ln 2 is taken first, exact where the two nearly cancel.
template <bool Specials = true, class A, class F>
xsimd::batch<F, A> log_normal_plus(const xsimd::batch<F, A>& y, const xsimd::batch<F, A>& shift) {
    using B = xsimd::batch<F, A>;
    using Format = ExpLogFormat<F>;
    using Bits = typename Format::Bits;
    using U = xsimd::batch<Bits, A>;
    constexpr int exponent_shift = Format::mantissa_bits;
    constexpr int width = int(sizeof(Bits)) * 8;
    // z in [0.707, 1.414): k is the exponent of y's bits minus those of 0.707 (two's complement).
    const U bits = bits_as<Bits>(y);
    const U offset_bits = bits - U(Format::near_sqrt_half);
    const U exponent_field = offset_bits & U(~Bits(0) << exponent_shift);
    const B z = bits_as<F>(bits - exponent_field);
    // k + 2^(width - exponent_shift - 1) as a float, read from the mantissa bits of 2^mantissa_bits.
    constexpr Bits k_offset = Bits(1) << (width - exponent_shift - 1);
    const Bits two_to_mantissa_bits = (Bits(exponent_shift) + Format::exponent_bias) << exponent_shift;
    const U biased_k = (offset_bits >> exponent_shift) ^ U(k_offset);
    const B k = bits_as<F>(biased_k | U(two_to_mantissa_bits)) -
                B(F(Bits(1) << exponent_shift) + F(k_offset));
    // log(z) = 2 atanh(f), f = (z - 1) / (z + 1) in [-0.172, 0.172).
    const B f = (z - B(F(1))) / (z + B(F(1)));
    const B s = f * f;
    B tail(Format::atanh_tail[0]);
    for (std::size_t i = 1; i < sizeof(Format::atanh_tail) / sizeof(F); ++i) {
        tail = Lanes<A>::multiply_add(tail, s, B(Format::atanh_tail[i]));
    }
    // k ln 2 in two parts, the lower one added with the small terms.
    const B small = Lanes<A>::multiply_add(f * s, tail, k * B(Format::ln2_lower));
    const B result = Lanes<A>::multiply_add(k, B(Format::ln2_upper), shift) + ((f + f) + small);
    if (!Specials) {
        return result;
    }
    const B zero_to_minus_infinity = xsimd::select(y == B(F(0)), B(-std::numeric_limits<F>::infinity()), result);
    return xsimd::select(xsimd::isnan(y), y, zero_to_minus_infinity);
}
template <class A, class F>
xsimd::batch<F, A> log_normal(const xsimd::batch<F, A>& y) {
    return log_normal_plus(y, xsimd::batch<F, A>(F(0)));
}

// The same on one double, through a vector of the tier's own: a kernel's scalar and vector steps then agree to the
// bit, which results identical for every thread count need (the thread count moves where a line's vectors start).
template <class F>
double on_one_lane(F&& f, double x) {
    using B = xsimd::batch<double, SIMDSCAN_TIER_ARCH>;
    alignas(B::arch_type::alignment()) double lanes[B::size];
    f(B(x)).store_aligned(lanes);
    return lanes[0];
}
inline double exp_in_range(double x) {
    return on_one_lane([](const auto& v) { return exp_in_range(v); }, x);
}
inline double log_normal(double y) {
    return on_one_lane([](const auto& v) { return log_normal(v); }, y);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
