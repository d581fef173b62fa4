// Lanes<sse2>: lane moves by byte shifts and shuffles of SSE2 registers, uint8 -> int32 by unpacks, int32 -> float64 by
// cvtdq2pd, float32 <-> float64 by cvtps2pd/cvtpd2ps.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "lanes_generic.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

template <>
struct Lanes<xsimd::sse2> : RegisterLanes<xsimd::sse2, Lanes<xsimd::sse2>> {
    template <int Bytes>
    static __m128i move_up(__m128i a, __m128i f) {
        return _mm_or_si128(_mm_slli_si128(a, Bytes), _mm_srli_si128(f, 16 - Bytes));
    }
    template <int Bytes>
    static __m128i move_down(__m128i a, __m128i f) {
        return _mm_or_si128(_mm_srli_si128(a, Bytes), _mm_slli_si128(f, 16 - Bytes));
    }
    // The last (first) element: the highest (lowest) word or dword copied through its half, then everywhere.
    template <std::size_t Size, bool Last>
    static __m128i splat(__m128i a) {
        constexpr int all = Last ? 0xFF : 0x00;  // the shuffles' immediate: the last (first) of 4 everywhere
        if constexpr (Size == 8) {
            return _mm_shuffle_epi32(a, Last ? 0xEE : 0x44);
        } else if constexpr (Size == 4) {
            return _mm_shuffle_epi32(a, all);
        } else if constexpr (Size == 2) {
            return _mm_shuffle_epi32(Last ? _mm_shufflehi_epi16(a, all) : _mm_shufflelo_epi16(a, all), all);
        } else {
            return splat<2, Last>(Last ? _mm_unpackhi_epi8(a, a) : _mm_unpacklo_epi8(a, a));
        }
    }
    template <std::size_t Size>
    static __m128i splat_last(__m128i a) { return splat<Size, true>(a); }
    template <std::size_t Size>
    static __m128i splat_first(__m128i a) { return splat<Size, false>(a); }

    static void transpose(batch<double> (&rows)[2]) {
        const __m128d low = _mm_unpacklo_pd(rows[0], rows[1]);
        rows[1] = _mm_unpackhi_pd(rows[0], rows[1]);
        rows[0] = low;
    }

    static batch<double> load_widened(const float* p) {
        // _mm_loadl_epi64 reads through an unaligned type (_mm_load_sd would claim double alignment: UB).
        return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
    }
    static void store_narrowed(float* p, const batch<double>& x) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_castps_si128(_mm_cvtpd_ps(x)));
    }
    static batch<std::int32_t> load_bytes(const std::uint8_t* p) {
        std::int32_t four;
        std::memcpy(&four, p, sizeof four);
        const __m128i zero = _mm_setzero_si128();
        return _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(four), zero), zero);
    }
    // Summed in the uint16 lanes of one register by three shifts, then widened.
    static constexpr bool sums_bytes = true;
    template <bool Reverse>
    static void byte_sums(const std::uint8_t* p, batch<std::int32_t>& first, batch<std::int32_t>& second) {
        const __m128i zero = _mm_setzero_si128();
        __m128i x = _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), zero);
        if constexpr (Reverse) {
            x = _mm_add_epi16(x, _mm_srli_si128(x, 2));
            x = _mm_add_epi16(x, _mm_srli_si128(x, 4));
            x = _mm_add_epi16(x, _mm_srli_si128(x, 8));
        } else {
            x = _mm_add_epi16(x, _mm_slli_si128(x, 2));
            x = _mm_add_epi16(x, _mm_slli_si128(x, 4));
            x = _mm_add_epi16(x, _mm_slli_si128(x, 8));
        }
        first = _mm_unpacklo_epi16(x, zero);
        second = _mm_unpackhi_epi16(x, zero);
    }
    static void to_doubles(const batch<std::int32_t>& x, batch<double>& first, batch<double>& second) {
        first = _mm_cvtepi32_pd(x);
        second = _mm_cvtepi32_pd(_mm_shuffle_epi32(x, 0xEE));
    }

    static constexpr bool streams = true;
    template <class T>
    static void store_streaming(T* p, const batch<T>& x) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(p), bits_as<std::uint8_t>(x).data);
    }
    static void finish_streaming() { _mm_sfence(); }
    using DwordWindow = int;
    static DwordWindow dword_window_at(std::size_t first) { return int(first); }
    template <class T>
    static batch<T> dword_window(const batch<T>& low, const batch<T>& high, DwordWindow first) {
        return on_bits(
            [first](__m128i a, __m128i b) {
                switch (first) {
                    case 1: return move_down<4>(a, b);
                    case 2: return move_down<8>(a, b);
                    case 3: return move_down<12>(a, b);
                    default: return a;
                }
            },
            low, high);
    }
};

}  // namespace simdscan::detail::SIMDSCAN_TIER
