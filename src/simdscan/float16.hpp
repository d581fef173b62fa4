// IEEE binary16 <-> binary32 one value at a time, in software; round to nearest even, as NumPy does.
#pragma once

#include <cstdint>
#include <cstring>

#ifndef SIMDSCAN_TIER
#error "define SIMDSCAN_TIER (the tier's namespace) before including float16.hpp"
#endif

namespace simdscan {
namespace detail {
// In the tier's namespace: compiled with the tier's flags, a shared inline copy could carry AVX into the baseline.
namespace SIMDSCAN_TIER {

inline float half_bits_to_float(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1Fu;
    std::uint32_t mantissa = h & 0x3FFu;
    std::uint32_t bits;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {
        // Subnormal half: normalise into a float exponent.
        std::uint32_t e = 113;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            --e;
        }
        bits = sign | (e << 23) | ((mantissa & 0x3FFu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

inline std::uint16_t float_to_half_bits(float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const std::uint16_t sign = std::uint16_t((bits >> 16) & 0x8000u);
    const std::uint32_t abs_bits = bits & 0x7FFFFFFFu;
    if (abs_bits >= 0x7F800000u) {
        // inf stays inf; NaN stays a quiet NaN with the top mantissa bits.
        const std::uint32_t nan_bits = abs_bits > 0x7F800000u ? (0x200u | ((abs_bits >> 13) & 0x3FFu)) : 0u;
        return std::uint16_t(sign | 0x7C00u | nan_bits);
    }
    if (abs_bits >= 0x477FF000u) {  // rounds to 65520 or above: overflow to inf
        return std::uint16_t(sign | 0x7C00u);
    }
    if (abs_bits < 0x38800000u) {  // below the smallest normal half: subnormal or zero
        if (abs_bits < 0x33000000u) {  // at most half the smallest subnormal: rounds to zero
            return sign;
        }
        const std::uint32_t exponent = abs_bits >> 23;
        const std::uint32_t mantissa = (abs_bits & 0x7FFFFFu) | 0x800000u;
        const std::uint32_t shift = 126u - exponent;  // 14..24
        std::uint32_t half_mantissa = mantissa >> shift;
        const std::uint32_t remainder = mantissa & ((1u << shift) - 1u);
        const std::uint32_t halfway = 1u << (shift - 1u);
        if (remainder > halfway || (remainder == halfway && (half_mantissa & 1u))) {
            ++half_mantissa;
        }
        return std::uint16_t(sign | half_mantissa);
    }
    // Normal: rebias and round the 13 dropped bits to nearest even; a carry into the exponent is correct.
    std::uint32_t rebased = abs_bits - (112u << 23);
    const std::uint32_t remainder = rebased & 0x1FFFu;
    std::uint32_t half_bits = rebased >> 13;
    if (remainder > 0x1000u || (remainder == 0x1000u && (half_bits & 1u))) {
        ++half_bits;
    }
    return std::uint16_t(sign | half_bits);
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
