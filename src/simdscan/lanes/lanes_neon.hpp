// Lanes<neon64>: lane moves by vext and vdup on arm64 NEON registers, byte order reversed by vrev, integers widened by
// vmovl, int and float conversions by vcvt.
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "lanes_generic.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

template <>
struct Lanes<xsimd::neon64> : RegisterLanes<xsimd::neon64, Lanes<xsimd::neon64>> {
    template <int Bytes>
    static uint8x16_t move_up(uint8x16_t a, uint8x16_t f) { return vextq_u8(f, a, 16 - Bytes); }
    template <int Bytes>
    static uint8x16_t move_down(uint8x16_t a, uint8x16_t f) { return vextq_u8(a, f, Bytes); }
    // Element `Lane` (of Size bytes) in every lane.
    template <std::size_t Size, int Lane>
    static uint8x16_t splat(uint8x16_t a) {
        if constexpr (Size == 8) {
            return vreinterpretq_u8_u64(vdupq_laneq_u64(vreinterpretq_u64_u8(a), Lane));
        } else if constexpr (Size == 4) {
            return vreinterpretq_u8_u32(vdupq_laneq_u32(vreinterpretq_u32_u8(a), Lane));
        } else if constexpr (Size == 2) {
            return vreinterpretq_u8_u16(vdupq_laneq_u16(vreinterpretq_u16_u8(a), Lane));
        } else {
            return vdupq_laneq_u8(a, Lane);
        }
    }
    template <std::size_t Size>
    static uint8x16_t splat_last(uint8x16_t a) { return splat<Size, int(16 / Size) - 1>(a); }
    template <std::size_t Size>
    static uint8x16_t splat_first(uint8x16_t a) { return splat<Size, 0>(a); }

    static batch<float> multiply_add(const batch<float>& x, const batch<float>& y, const batch<float>& z) {
        return vfmaq_f32(z, x, y);
    }
    static batch<double> multiply_add(const batch<double>& x, const batch<double>& y, const batch<double>& z) {
        return vfmaq_f64(z, x, y);
    }
    static void transpose(batch<double> (&rows)[2]) {
        const float64x2_t low = vzip1q_f64(rows[0], rows[1]);
        rows[1] = vzip2q_f64(rows[0], rows[1]);
        rows[0] = low;
    }
    template <class Unit>
    static batch<Unit> reversed_bytes(const batch<Unit>& x) {
        return on_bits(
            [](uint8x16_t a) {
                if constexpr (sizeof(Unit) == 2) {
                    return vrev16q_u8(a);
                } else if constexpr (sizeof(Unit) == 4) {
                    return vrev32q_u8(a);
                } else {
                    return vrev64q_u8(a);
                }
            },
            x);
    }
    template <class F>
    static constexpr bool converts_integers() { return true; }
    static batch<float> to_float(const batch<std::int32_t>& x) { return vcvtq_f32_s32(x); }
    static batch<double> to_float(const batch<std::int64_t>& x) { return vcvtq_f64_s64(x); }
    static batch<double> load_widened(const float* p) { return vcvt_f64_f32(vld1_f32(p)); }
    static void store_narrowed(float* p, const batch<double>& x) { vst1_f32(p, vcvt_f32_f64(x)); }
    static batch<std::int32_t> load_bytes(const std::uint8_t* p) {
        std::uint32_t four;
        std::memcpy(&four, p, sizeof four);
        return vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(vmovl_u8(vcreate_u8(four)))));
    }
    static void to_doubles(const batch<std::int32_t>& x, batch<double>& first, batch<double>& second) {
        first = vcvtq_f64_s64(vmovl_s32(vget_low_s32(x)));
        second = vcvtq_f64_s64(vmovl_high_s32(x));
    }
};

}  // namespace simdscan::detail::SIMDSCAN_TIER
