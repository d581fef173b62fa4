// Lanes<avx2>: lane moves by cross-half permutes and byte aligns of AVX2 registers, tables of 8 float32 looked up by
// a permute, byte order reversed by a byte shuffle, uint8 -> int32 -> float64, float32 <-> float64, and float16 <->
// float32 by F16C (which the avx2 tier's flags, MSVC's /arch:AVX2 included, and CPU test require).
#pragma once

#include <immintrin.h>

#include <type_traits>

#include "lanes_generic.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

template <>
struct Lanes<xsimd::avx2> : FusedLanes<xsimd::avx2, Lanes<xsimd::avx2>> {
    // The moves take bytes from the 64 of [low | high] (fill below a, or above it), through their middle 32 bytes.
    template <int Bytes>
    static __m256i move_up(__m256i a, __m256i f) {
        // middle: fill.lo, a.lo (fill.lo standing for fill.hi: a fill holds one value in all lanes).
        return window<32 - Bytes>(f, _mm256_permute2x128_si256(a, f, 0x02), a);
    }
    template <int Bytes>
    static __m256i move_down(__m256i a, __m256i f) {
        return window<Bytes>(a, _mm256_permute2x128_si256(a, f, 0x21), f);  // middle: a.hi, fill.lo
    }
    // The 32 bytes from byte S (0 < S < 32) of [low | high], given their middle: each 128-bit half byte-aligned with
    // its neighbour below.
    template <int S>
    static __m256i window(__m256i low, __m256i middle, __m256i high) {
        if constexpr (S < 16) {
            return _mm256_alignr_epi8(middle, low, S);
        } else if constexpr (S == 16) {
            return middle;
        } else {
            return _mm256_alignr_epi8(high, middle, S - 16);
        }
    }

    template <std::size_t Size>
    static __m256i splat_last(__m256i a) {
        if constexpr (Size == 8) {
            return _mm256_permute4x64_epi64(a, 0xFF);
        } else if constexpr (Size == 4) {
            return _mm256_permutevar8x32_epi32(a, _mm256_set1_epi32(7));
        } else {
            // The last element of each 128-bit half copied through its last qword, then the last qword everywhere.
            const __m256i last = Size == 2 ? _mm256_set1_epi16(0x0F0E) : _mm256_set1_epi8(15);
            return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(a, last), 0xFF);
        }
    }
    template <std::size_t Size>
    static __m256i splat_first(__m256i a) {
        const __m128i low = _mm256_castsi256_si128(a);
        if constexpr (Size == 8) {
            return _mm256_broadcastq_epi64(low);
        } else if constexpr (Size == 4) {
            return _mm256_broadcastd_epi32(low);
        } else if constexpr (Size == 2) {
            return _mm256_broadcastw_epi16(low);
        } else {
            return _mm256_broadcastb_epi8(low);
        }
    }

    static batch<float> multiply_add(const batch<float>& x, const batch<float>& y, const batch<float>& z) {
        return _mm256_fmadd_ps(x, y, z);
    }
    static batch<double> multiply_add(const batch<double>& x, const batch<double>& y, const batch<double>& z) {
        return _mm256_fmadd_pd(x, y, z);
    }
    static void transpose(batch<double> (&rows)[4]) {
        // Pairs of rows interleaved within 128-bit halves, then the halves exchanged.
        const __m256d even01 = _mm256_unpacklo_pd(rows[0], rows[1]);
        const __m256d odd01 = _mm256_unpackhi_pd(rows[0], rows[1]);
        const __m256d even23 = _mm256_unpacklo_pd(rows[2], rows[3]);
        const __m256d odd23 = _mm256_unpackhi_pd(rows[2], rows[3]);
        rows[0] = _mm256_permute2f128_pd(even01, even23, 0x20);
        rows[1] = _mm256_permute2f128_pd(odd01, odd23, 0x20);
        rows[2] = _mm256_permute2f128_pd(even01, even23, 0x31);
        rows[3] = _mm256_permute2f128_pd(odd01, odd23, 0x31);
    }
    static batch<double> load_widened(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
    static batch<std::int32_t> load_bytes(const std::uint8_t* p) {
        return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
    static void to_doubles(const batch<std::int32_t>& x, batch<double>& first, batch<double>& second) {
        first = _mm256_cvtepi32_pd(_mm256_castsi256_si128(x));
        second = _mm256_cvtepi32_pd(_mm256_extracti128_si256(x, 1));
    }
    static void store_narrowed(float* p, const batch<double>& x) { _mm_storeu_ps(p, _mm256_cvtpd_ps(x)); }
    // Summed in uint16 lanes within each 128-bit half by in-lane shifts, then the first half's total carried to the
    // other by one cross-half permute.
    static constexpr bool sums_bytes = true;
    template <bool Reverse>
    static void byte_sums(const std::uint8_t* p, batch<std::int32_t>& first, batch<std::int32_t>& second) {
        __m256i x = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        if constexpr (Reverse) {
            x = _mm256_add_epi16(x, _mm256_bsrli_epi128(x, 2));
            x = _mm256_add_epi16(x, _mm256_bsrli_epi128(x, 4));
            x = _mm256_add_epi16(x, _mm256_bsrli_epi128(x, 8));
            const __m256i totals = _mm256_shuffle_epi8(x, _mm256_set1_epi16(0x0100));  // each half's word 0
            x = _mm256_add_epi16(x, _mm256_permute2x128_si256(totals, totals, 0x81));  // the upper's, into the lower
        } else {
            x = _mm256_add_epi16(x, _mm256_bslli_epi128(x, 2));
            x = _mm256_add_epi16(x, _mm256_bslli_epi128(x, 4));
            x = _mm256_add_epi16(x, _mm256_bslli_epi128(x, 8));
            const __m256i totals = _mm256_shuffle_epi8(x, _mm256_set1_epi16(0x0F0E));  // each half's word 7
            x = _mm256_add_epi16(x, _mm256_permute2x128_si256(totals, totals, 0x08));  // the lower's, into the upper
        }
        first = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(x));
        second = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(x, 1));
    }

    // Doubles would take two dwords' indices per lane: float only.
    template <class Unit>
    static batch<Unit> reversed_bytes(const batch<Unit>& x) {
        static constexpr auto order = byte_reversal<sizeof(Unit), 32>();
        const __m256i control = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(order.data()));
        return on_bits([&control](__m256i a) { return _mm256_shuffle_epi8(a, control); }, x);
    }
    template <class F>
    static constexpr int table_bits() { return std::is_same<F, float>::value ? 3 : 0; }
    static batch<float> look_up(const float (&table)[8], const batch<std::uint32_t>& index) {
        return _mm256_permutevar8x32_ps(_mm256_loadu_ps(table), index);
    }

    static constexpr bool streams = true;
    template <class T>
    static void store_streaming(T* p, const batch<T>& x) {
        _mm256_stream_si256(reinterpret_cast<__m256i*>(p), bits_as<std::uint8_t>(x).data);
    }
    static void finish_streaming() { _mm_sfence(); }
    static constexpr bool streams_narrowed = true;
    static void store_narrowed_streaming(float* p, const batch<double>& x) { _mm_stream_ps(p, _mm256_cvtpd_ps(x)); }
    using DwordWindow = __m256i;  // each dword's place in [low | high]
    static DwordWindow dword_window_at(std::size_t first) {
        return _mm256_add_epi32(_mm256_set1_epi32(int(first)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
    template <class T>
    static batch<T> dword_window(const batch<T>& low, const batch<T>& high, const DwordWindow& place) {
        return on_bits(
            [&place](__m256i a, __m256i b) {
                // vpermd reads the place's low 3 bits: the dword within low, or within high where the place is >= 8.
                return _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(a, place), _mm256_permutevar8x32_epi32(b, place),
                                          _mm256_cmpgt_epi32(place, _mm256_set1_epi32(7)));
            },
            low, high);
    }

    static batch<float> load_halves(const std::uint16_t* p) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static void store_halves(std::uint16_t* p, const batch<float>& x) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
    }
    static batch<double> load_halves_widened(const std::uint16_t* p) {
        return _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
    }
    static void store_halves_narrowed(std::uint16_t* p, const batch<double>& x) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_cvtps_ph(_mm256_cvtpd_ps(x), _MM_FROUND_TO_NEAREST_INT));
    }
};

}  // namespace simdscan::detail::SIMDSCAN_TIER
