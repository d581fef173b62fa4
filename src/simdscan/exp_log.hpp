// Vector exp and log in double and single precision for the log-sum-exp kernels, on the inputs those kernels give
// them: polynomials on plain arithmetic and bit moves, after a lookup in a table held in registers where the ISA has
// the permute for it (Lanes::table_bits). xsimd's own handle every input, with two divisions and many selects, and
// are slower for it (benchmarks/README.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

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
    static constexpr double lowest = -708.0;  // k >= -1022 there, with or without a table: 2^k is normal
    static constexpr double highest = 700.0;  // 2^10 terms up to exp(highest) add up to a finite sum
    static constexpr double ln2_upper = 0x1.62e42fee00000p-1;  // 32 bits: k times it is exact
    static constexpr double ln2_lower = 0x1.a39ef35793c76p-33;
};
template <>
struct ExpLogFormat<float> {
    using Bits = std::uint32_t;
    static constexpr int mantissa_bits = 23;
    static constexpr Bits exponent_bias = 127;
    static constexpr float lowest = -87.0f;  // k = -126 there, with or without a table: 2^k is normal
    static constexpr float highest = 80.0f;
    static constexpr float ln2_upper = 0x1.62e4p-1f;  // 16 bits: k (8 bits) times it is exact, n (12) inside an FMA
    static constexpr float ln2_lower = 0x1.7f7d1cp-20f;
};

// The polynomials of exp and log after a table of 2^TableBits entries (Lanes::table_bits), which leaves exp's
// reduced argument within ln(2) / 2^(TableBits + 1) and log's within 2^-(TableBits + 1): half the degree with 16,
// and log without a division. Every fit is a weighted least-squares one towards the smallest largest error, with
// its coefficients rounded (highest degree first); Taylor's would need more terms.
// Without a table (TableBits 0), log(z) = 2 atanh(f) with f = (z - 1) / (z + 1), z in [log_split, 2 log_split).
// With one, z in [log_split, 2 log_split) is cut into 2^TableBits parts by its mantissa bits, and log(z) =
// -log(c) + log1p(r), r = z c - 1, c the rounded reciprocal of z's part's middle; the split leaves 1 in the middle of
// a part whose reciprocal is 1, so that log(1) is 0 and r = z - 1 is exact near 1.
template <class F, int TableBits>
struct ExpLogConstants;
template <>
struct ExpLogConstants<double, 0> {
    // exp on [-ln(2) / 2, ln(2) / 2], degree 11 (Remez): 2.3e-17 relative.
    static constexpr double exp_polynomial[] = {
        0x1.ad661d8a99f75p-26, 0x1.28b311c4abb3bp-22, 0x1.71df4520100a1p-19, 0x1.a01992d102296p-16,
        0x1.a01a0110576fcp-13, 0x1.6c16c18781105p-10, 0x1.1111111130dd5p-7,  0x1.555555554f370p-5,
        0x1.55555555554a2p-3,  0x1.0000000000010p-1,  1.0,                   1.0};
    static constexpr std::uint64_t log_split = 0x3fe6955500000000;  // about 0.707
    // The tail T(s) of log(z) = 2f + f s T(s), s = f^2, |f| < 0.172: 5.5e-19 of log(z).
    static constexpr double atanh_tail[] = {0x1.0c080b8a8371bp-3, 0x1.0fbe254f7d68ep-3, 0x1.3b1c39ba8b0edp-3,
                                            0x1.745cf8ef0042cp-3, 0x1.c71c72018f7dbp-3, 0x1.2492492476ac2p-2,
                                            0x1.9999999999a38p-2, 0x1.5555555555555p-1};
};
template <>
struct ExpLogConstants<float, 0> {
    // Degree 6: 1.7e-8 relative.
    static constexpr float exp_polynomial[] = {0x1.6ab88ap-10f, 0x1.126cc4p-7f, 0x1.55589ap-5f, 0x1.55540cp-3f,
                                               0x1.fffffap-2f,  1.0f,           1.0f};
    static constexpr std::uint32_t log_split = 0x3f350000;
    // 2.6e-9 of log(z).
    static constexpr float atanh_tail[] = {0x1.2ee85cp-2f, 0x1.997c16p-2f, 0x1.55555cp-1f};
};
template <>
struct ExpLogConstants<double, 4> {
    static constexpr double exp2_fractions[16] = {  // 2^(j / 16)
        0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
        0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
        0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
        0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
    // Degree 6: 1.2e-17 relative.
    static constexpr double exp_polynomial[] = {0x1.6c14c5d9d0b1ap-10, 0x1.11123b47bcc0dp-7, 0x1.5555555900799p-5,
                                                0x1.555555548ebcbp-3,  0x1.fffffffffffb8p-2, 1.0, 1.0};
    static constexpr std::uint64_t log_split = 0x3fe7800000000000;  // 0.734375
    // The middles: 0.734375 + (j + 1/2) / 32, then (part 8, about 1) 1, then 1.03125 + (j - 17/2) / 16.
    static constexpr double reciprocals[16] = {
        0x1.5555555555555p+0, 0x1.47ae147ae147bp+0, 0x1.3b13b13b13b14p+0, 0x1.2f684bda12f68p+0,
        0x1.2492492492492p+0, 0x1.1a7b9611a7b96p+0, 0x1.1111111111111p+0, 0x1.0842108421084p+0,
        1.0,                  0x1.e1e1e1e1e1e1ep-1, 0x1.c71c71c71c71cp-1, 0x1.af286bca1af28p-1,
        0x1.999999999999ap-1, 0x1.8618618618618p-1, 0x1.745d1745d1746p-1, 0x1.642c8590b2164p-1};
    static constexpr double minus_log_reciprocals[16] = {
        -0x1.269621134db91p-2, -0x1.f991c6cb3b37ap-3, -0x1.a93ed3c8ad9e5p-3, -0x1.5bf406b543db0p-3,
        -0x1.1178e8227e47ap-3, -0x1.9335e5d594988p-4, -0x1.08598b59e3a06p-4, -0x1.0415d89e74440p-5,
        0.0,                   0x1.f0a30c01162a8p-5,  0x1.e27076e2af2eap-4,  0x1.5ff3070a793d6p-3,
        0x1.c8ff7c79a9a20p-3,  0x1.1675cababa60fp-2,  0x1.4618bc21c5ec2p-2,  0x1.739d7f6bbd007p-2};
    // The tail Q(r) of log1p(r) = r + r^2 Q(r), degree 6: 1.8e-17 absolute.
    static constexpr double log1p_tail[] = {-0x1.00850ab5edf6ep-3, 0x1.2507119b53b34p-3,  -0x1.5555379207921p-3,
                                            0x1.999986fc0d4b9p-3,  -0x1.000000014c513p-2, 0x1.55555555c79b6p-2,
                                            -0x1.fffffffffff77p-2};
};
template <>
struct ExpLogConstants<float, 4> {
    static constexpr float exp2_fractions[16] = {
        0x1.000000p+0f, 0x1.0b5586p+0f, 0x1.172b84p+0f, 0x1.2387a6p+0f, 0x1.306fe0p+0f, 0x1.3dea64p+0f,
        0x1.4bfdaep+0f, 0x1.5ab07ep+0f, 0x1.6a09e6p+0f, 0x1.7a1148p+0f, 0x1.8ace54p+0f, 0x1.9c4918p+0f,
        0x1.ae89fap+0f, 0x1.c199bep+0f, 0x1.d5818ep+0f, 0x1.ea4afap+0f};
    // Degree 3: 1.6e-9 relative.
    static constexpr float exp_polynomial[] = {0x1.55563ap-3f, 0x1.00022p-1f, 1.0f, 1.0f};
    static constexpr std::uint32_t log_split = 0x3f3c0000;  // 0.734375
    static constexpr float reciprocals[16] = {
        0x1.555556p+0f, 0x1.47ae14p+0f, 0x1.3b13b2p+0f, 0x1.2f684cp+0f, 0x1.24924ap+0f, 0x1.1a7b96p+0f,
        0x1.111112p+0f, 0x1.084210p+0f, 1.0f,           0x1.e1e1e2p-1f, 0x1.c71c72p-1f, 0x1.af286cp-1f,
        0x1.99999ap-1f, 0x1.861862p-1f, 0x1.745d18p-1f, 0x1.642c86p-1f};
    static constexpr float minus_log_reciprocals[16] = {
        -0x1.269624p-2f, -0x1.f991c4p-3f, -0x1.a93ed8p-3f, -0x1.5bf408p-3f, -0x1.1178eep-3f, -0x1.9335e4p-4f,
        -0x1.08599ap-4f, -0x1.0415c8p-5f, 0.0f,           0x1.f0a30ap-5f,  0x1.e27074p-4f,  0x1.5ff306p-3f,
        0x1.c8ff7ap-3f,  0x1.1675cap-2f,  0x1.4618bap-2f,  0x1.739d7ep-2f};
    // Degree 2: 7.9e-10 absolute.
    static constexpr float log1p_tail[] = {-0x1.0040fcp-2f, 0x1.5581dep-2f, -0x1.fffffap-2f};
};
template <>
struct ExpLogConstants<float, 3> {
    static constexpr float exp2_fractions[8] = {0x1.000000p+0f, 0x1.172b84p+0f, 0x1.306fe0p+0f, 0x1.4bfdaep+0f,
                                                0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f};
    // Degree 4: 1.9e-10 relative.
    static constexpr float exp_polynomial[] = {0x1.55483cp-5f, 0x1.555c7ap-3f, 0x1.000000p-1f, 1.0f, 1.0f};
    static constexpr std::uint32_t log_split = 0x3f380000;  // 0.71875
    // The middles: 0.71875 + (j + 1/2) / 16, then (part 4, about 1) 1, then 1.0625 + (j - 9/2) / 8.
    static constexpr float reciprocals[8] = {0x1.555556p+0f, 0x1.3b13b2p+0f, 0x1.24924ap+0f, 0x1.111112p+0f,
                                             1.0f,           0x1.c71c72p-1f, 0x1.99999ap-1f, 0x1.745d18p-1f};
    static constexpr float minus_log_reciprocals[8] = {-0x1.269624p-2f, -0x1.a93ed8p-3f, -0x1.1178eep-3f,
                                                       -0x1.08599ap-4f, 0.0f,            0x1.e27074p-4f,
                                                       0x1.c8ff7ap-3f,  0x1.4618bap-2f};
    // Degree 3: 4.3e-10 absolute.
    static constexpr float log1p_tail[] = {0x1.9b8e8cp-3f, -0x1.00ed48p-2f, 0x1.5554eep-2f, -0x1.ffffb8p-2f};
};

// The polynomial with these coefficients (highest degree first) at x, by Horner's rule.
template <class B, class F, std::size_t N>
B polynomial(const F (&coefficients)[N], const B& x) {
    B p(coefficients[0]);
    for (std::size_t i = 1; i < N; ++i) {
        p = Lanes<typename B::arch_type>::multiply_add(p, x, B(coefficients[i]));
    }
    return p;
}

// exp(x) for x <= ExpLogFormat::highest, -inf and NaN included (with Specials), within 2 ulp down to the clamp
// ExpLogFormat::lowest, below which it gives exp(lowest) (the kernels' terms that small add nothing to their running
// sums). Without Specials, x holds no NaN (the log-sum-exp blocks check first): no select.
template <bool Specials = true, class A, class F>
xsimd::batch<F, A> exp_in_range(const xsimd::batch<F, A>& x) {
    using B = xsimd::batch<F, A>;
    using Format = ExpLogFormat<F>;
    using Bits = typename Format::Bits;
    using U = xsimd::batch<Bits, A>;
    // x = (2^table_bits k + j) ln 2 / 2^table_bits + r: exp(x) = 2^k 2^(j / 2^table_bits) exp(r).
    constexpr int table_bits = Lanes<A>::template table_bits<F>();
    using Constants = ExpLogConstants<F, table_bits>;
    constexpr F steps = F(1 << table_bits);
    // Adding it rounds to an integer, kept in the low bits of the sum.
    const B shifter(F(3) * F(Bits(1) << Format::mantissa_bits) / F(2));
    const B clamped = xsimd::max(x, B(Format::lowest));
    const B biased = Lanes<A>::multiply_add(clamped, B(F(1.4426950408889634) * steps), shifter);
    const B n = biased - shifter;
    // x - n ln 2 / steps in two parts, the upper one exact times n.
    B r = Lanes<A>::multiply_add(n, B(-Format::ln2_upper / steps), clamped);
    r = Lanes<A>::multiply_add(n, B(-Format::ln2_lower / steps), r);
    // 2^k 2^(j / steps) from the rounded sum's low bits: k added to the exponent field of the table's entry (of 1).
    const U k_field = (bits_as<Bits>(biased) >> table_bits) << Format::mantissa_bits;
    U fraction_bits(Format::exponent_bias << Format::mantissa_bits);
    if constexpr (table_bits > 0) {
        fraction_bits = bits_as<Bits>(Lanes<A>::look_up(Constants::exp2_fractions, bits_as<Bits>(biased)));
    }
    const B result = polynomial(Constants::exp_polynomial, r) * bits_as<F>(fraction_bits + k_field);
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
    constexpr int table_bits = Lanes<A>::template table_bits<F>();
    using Constants = ExpLogConstants<F, table_bits>;
    // z in [split, 2 split): k is the exponent of y's bits minus those of the split (two's complement).
    const U bits = bits_as<Bits>(y);
    const U offset_bits = bits - U(Constants::log_split);
    const U exponent_field = offset_bits & U(~Bits(0) << exponent_shift);
    const B z = bits_as<F>(bits - exponent_field);
    B k;
    if constexpr (Lanes<A>::template converts_integers<F>()) {
        using Signed = typename std::make_signed<Bits>::type;
        k = Lanes<A>::to_float(bits_as<Signed>(offset_bits) >> exponent_shift);
    } else {
        // k + 2^(width - exponent_shift - 1) as a float, read from the mantissa bits of 2^mantissa_bits.
        constexpr int width = int(sizeof(Bits)) * 8;
        constexpr Bits k_offset = Bits(1) << (width - exponent_shift - 1);
        const Bits two_to_mantissa_bits = (Bits(exponent_shift) + Format::exponent_bias) << exponent_shift;
        const U biased_k = (offset_bits >> exponent_shift) ^ U(k_offset);
        k = bits_as<F>(biased_k | U(two_to_mantissa_bits)) - B(F(Bits(1) << exponent_shift) + F(k_offset));
    }
    // k ln 2 in two parts, the lower one added with the small terms.
    B small;
    B leading;
    if constexpr (table_bits > 0) {
        const U part = offset_bits >> (exponent_shift - table_bits);
        const B r = Lanes<A>::multiply_add(z, Lanes<A>::look_up(Constants::reciprocals, part), B(F(-1)));
        const B lower = Lanes<A>::multiply_add(k, B(Format::ln2_lower),
                                               Lanes<A>::look_up(Constants::minus_log_reciprocals, part));
        small = Lanes<A>::multiply_add(r * r, polynomial(Constants::log1p_tail, r), lower);
        leading = r;
    } else {
        const B f = (z - B(F(1))) / (z + B(F(1)));
        const B s = f * f;
        small = Lanes<A>::multiply_add(f * s, polynomial(Constants::atanh_tail, s), k * B(Format::ln2_lower));
        leading = f + f;
    }
    const B result = Lanes<A>::multiply_add(k, B(Format::ln2_upper), shift) + (leading + small);
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
template <class F, class... X>
double on_one_lane(F&& f, X... x) {
    using B = xsimd::batch<double, SIMDSCAN_TIER_ARCH>;
    alignas(B::arch_type::alignment()) double lanes[B::size];
    f(B(x)...).store_aligned(lanes);
    return lanes[0];
}
inline double exp_in_range(double x) {
    return on_one_lane([](const auto& v) { return exp_in_range(v); }, x);
}
inline double log_normal(double y) {
    return on_one_lane([](const auto& v) { return log_normal(v); }, y);
}
inline double log_normal_plus(double y, double shift) {
    return on_one_lane([](const auto& v, const auto& s) { return log_normal_plus(v, s); }, y, shift);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
