// Vector exp and log in double precision for the log-sum-exp kernels, on the inputs those kernels give them:
// polynomials on plain arithmetic and bit moves, the same on every ISA. xsimd's own handle every input, with two
// divisions and many selects, and cost about 3x as much.
#pragma once

#include <cstdint>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "lanes/lanes_generic.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

// exp(x) for x <= 0, -inf and NaN included, within 2 ulp; 0 below -708.3 (where the result leaves the normal
// range: the kernels' terms that small add nothing to a running sum of at least one).
template <class A>
xsimd::batch<double, A> exp_nonpositive(const xsimd::batch<double, A>& x) {
    using B = xsimd::batch<double, A>;
    using U = xsimd::batch<std::uint64_t, A>;
    const B shifter(0x1.8p52);  // adding it rounds to an integer, kept in the low bits of the sum
    const B clamped = xsimd::max(x, B(-709.0));
    const B biased = Lanes<A>::multiply_add(clamped, B(0x1.71547652b82fep0), shifter);  // x / ln 2 + shifter
    const B k = biased - shifter;
    // x - k ln 2 in two parts: ln 2's upper part has 32 bits, so k times it is exact.
    B r = Lanes<A>::multiply_add(k, B(-0x1.62e42fee00000p-1), clamped);
    r = Lanes<A>::multiply_add(k, B(-0x1.a39ef35793c76p-33), r);
    // Taylor to degree 13: |r| <= ln(2) / 2 leaves a remainder under 2^-57.
    constexpr double inverse_factorials[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
                                             1.0 / 3628800.0,    1.0 / 362880.0,    1.0 / 40320.0,
                                             1.0 / 5040.0,       1.0 / 720.0,       1.0 / 120.0,
                                             1.0 / 24.0,         1.0 / 6.0,         0.5,
                                             1.0,                1.0};
    B p(inverse_factorials[0]);
    for (std::size_t i = 1; i < sizeof(inverse_factorials) / sizeof(double); ++i) {
        p = Lanes<A>::multiply_add(p, r, B(inverse_factorials[i]));
    }
    // 2^k from the rounded sum's low bits (k + 1023 in the exponent field; 0 for k = -1023, below the normals).
    const U scale = (bits_as<std::uint64_t>(biased) + U(std::uint64_t(1023))) << 52;
    const B result = p * bits_as<double>(scale);
    return xsimd::select(xsimd::isnan(x), x, result);
}

// log(y) for y = 0 (-inf), positive normal y and NaN, within 2 ulp.
template <class A>
xsimd::batch<double, A> log_normal(const xsimd::batch<double, A>& y) {
    using B = xsimd::batch<double, A>;
    using U = xsimd::batch<std::uint64_t, A>;
    // y = 2^k z with z in [0.707, 1.414): k is the exponent of y's bits minus those of 0.707 (two's complement).
    const U bits = bits_as<std::uint64_t>(y);
    const U offset_bits = bits - U(std::uint64_t(0x3fe6955500000000));
    const U exponent_field = offset_bits & U(std::uint64_t(0xfff0000000000000));
    const B z = bits_as<double>(bits - exponent_field);
    // k + 2048 in [0, 4096) as a double, read from the mantissa bits of 2^52.
    const U biased_k = (offset_bits >> 52) ^ U(std::uint64_t(0x800));
    const B k = bits_as<double>(biased_k | U(std::uint64_t(0x4330000000000000))) - B(0x1p52 + 2048.0);
    // log(z) = 2 atanh(f), f = (z - 1) / (z + 1) in [-0.172, 0.172): the series to f^21 leaves under 2^-60.
    const B f = (z - B(1.0)) / (z + B(1.0));
    const B s = f * f;
    constexpr double odd_inverses[] = {2.0 / 21, 2.0 / 19, 2.0 / 17, 2.0 / 15, 2.0 / 13,
                                       2.0 / 11, 2.0 / 9,  2.0 / 7,  2.0 / 5,  2.0 / 3};
    B tail(odd_inverses[0]);
    for (std::size_t i = 1; i < sizeof(odd_inverses) / sizeof(double); ++i) {
        tail = Lanes<A>::multiply_add(tail, s, B(odd_inverses[i]));
    }
    // k ln 2 in two parts, the lower one added with the small terms.
    const B small = Lanes<A>::multiply_add(f * s, tail, k * B(0x1.a39ef35793c76p-33));
    const B result = Lanes<A>::multiply_add(k, B(0x1.62e42fee00000p-1), (f + f) + small);
    const B zero_to_minus_infinity = xsimd::select(y == B(0.0), B(-std::numeric_limits<double>::infinity()), result);
    return xsimd::select(xsimd::isnan(y), y, zero_to_minus_infinity);
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
inline double exp_nonpositive(double x) {
    return on_one_lane([](const auto& v) { return exp_nonpositive(v); }, x);
}
inline double log_normal(double y) {
    return on_one_lane([](const auto& v) { return log_normal(v); }, y);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
