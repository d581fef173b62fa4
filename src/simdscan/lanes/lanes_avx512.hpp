// Lanes<avx512bw>: lane moves by dword/byte aligns and permutes of AVX-512 registers, tables of 16 looked up by
// permutes, byte order reversed by a byte shuffle, int32/int64 -> float, uint8 -> int32 -> float64, float32 <->
// float64, and float16 <-> float32 16 values at a time (AVX-512F's vcvtph2ps/vcvtps2ph).
#pragma once

#include <immintrin.h>

#include "lanes_generic.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

template <>
struct Lanes<xsimd::avx512bw> : FusedLanes<xsimd::avx512bw, Lanes<xsimd::avx512bw>> {
    template <int Bytes>
    static __m512i move_up(__m512i a, __m512i f) { return window<64 - Bytes>(f, a); }
    template <int Bytes>
    static __m512i move_down(__m512i a, __m512i f) { return window<Bytes>(a, f); }
    // The 64 bytes from byte S (0 <= S <= 64) of [low | high]: a dword align where S allows, else a byte align of
    // each 128-bit lane with the one above it, from the windows at the 16-byte steps around S.
    template <int S>
    static __m512i window(__m512i low, __m512i high) {
        if constexpr (S == 0) {
            return low;
        } else if constexpr (S == 64) {
            return high;
        } else if constexpr (S % 4 == 0) {
            return _mm512_alignr_epi32(high, low, S / 4);
        } else {
            return _mm512_alignr_epi8(window<S / 16 * 16 + 16>(low, high), window<S / 16 * 16>(low, high), S % 16);
        }
    }

    template <std::size_t Size>
    static __m512i splat_last(__m512i a) {
        if constexpr (Size == 8) {
            return _mm512_permutexvar_epi64(_mm512_set1_epi64(7), a);
        } else if constexpr (Size == 4) {
            return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), a);
        } else if constexpr (Size == 2) {
            return _mm512_permutexvar_epi16(_mm512_set1_epi16(31), a);
        } else {
            // No byte permute without VBMI: the last byte of each 128-bit lane, then the last dword.
            return splat_last<4>(_mm512_shuffle_epi8(a, _mm512_set1_epi8(15)));
        }
    }
    template <std::size_t Size>
    static __m512i splat_first(__m512i a) {
        const __m128i low = _mm512_castsi512_si128(a);
        if constexpr (Size == 8) {
            return _mm512_broadcastq_epi64(low);
        } else if constexpr (Size == 4) {
            return _mm512_broadcastd_epi32(low);
        } else if constexpr (Size == 2) {
            return _mm512_broadcastw_epi16(low);
        } else {
            return _mm512_broadcastb_epi8(low);
        }
    }

    static batch<float> multiply_add(const batch<float>& x, const batch<float>& y, const batch<float>& z) {
        return _mm512_fmadd_ps(x, y, z);
    }
    static batch<double> multiply_add(const batch<double>& x, const batch<double>& y, const batch<double>& z) {
        return _mm512_fmadd_pd(x, y, z);
    }
    static void transpose(batch<double> (&rows)[8]) {
        // Pairs of rows interleaved within 128-bit lanes, then 128-bit lanes gathered in two rounds of shuffles.
        __m512d pairs[8];
        for (int i = 0; i < 8; i += 2) {
            pairs[i] = _mm512_unpacklo_pd(rows[i], rows[i + 1]);
            pairs[i + 1] = _mm512_unpackhi_pd(rows[i], rows[i + 1]);
        }
        // quads[h * 4 + c]: the columns c and c + 4 (c in 0, 2, 1, 3) of rows 4h to 4h + 3.
        __m512d quads[8];
        for (int h = 0; h < 2; ++h) {
            for (int odd = 0; odd < 2; ++odd) {
                const __m512d upper = pairs[4 * h + odd], lower = pairs[4 * h + 2 + odd];
                quads[4 * h + 2 * odd] = _mm512_shuffle_f64x2(upper, lower, 0x88);
                quads[4 * h + 2 * odd + 1] = _mm512_shuffle_f64x2(upper, lower, 0xDD);
            }
        }
        constexpr int column[4] = {0, 2, 1, 3};
        for (int q = 0; q < 4; ++q) {
            rows[column[q]] = _mm512_shuffle_f64x2(quads[q], quads[q + 4], 0x88);
            rows[column[q] + 4] = _mm512_shuffle_f64x2(quads[q], quads[q + 4], 0xDD);
        }
    }
    static batch<double> load_widened(const float* p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
    static batch<std::int32_t> load_bytes(const std::uint8_t* p) {
        return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static void to_doubles(const batch<std::int32_t>& x, batch<double>& first, batch<double>& second) {
        first = _mm512_cvtepi32_pd(_mm512_castsi512_si256(x));
        second = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(x, 1));
    }
    static void store_narrowed(float* p, const batch<double>& x) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(x)); }
    // Summed in uint16 lanes (32 x 255 fits): within each 128-bit lane by in-lane shifts, then each lane's total
    // carried to the lanes after it by two lane aligns; two widenings, against the int32 scan's ten lane moves.
    static constexpr bool sums_bytes = true;
    template <bool Reverse>
    static void byte_sums(const std::uint8_t* p, batch<std::int32_t>& first, batch<std::int32_t>& second) {
        __m512i x = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        const __m512i zero = _mm512_setzero_si512();
        if constexpr (Reverse) {
            x = _mm512_add_epi16(x, _mm512_bsrli_epi128(x, 2));
            x = _mm512_add_epi16(x, _mm512_bsrli_epi128(x, 4));
            x = _mm512_add_epi16(x, _mm512_bsrli_epi128(x, 8));
            const __m512i totals = _mm512_shuffle_epi8(x, _mm512_set1_epi16(0x0100));  // each lane's word 0
            const __m512i next = _mm512_alignr_epi64(zero, totals, 2);                 // lane k: lane k + 1's
            x = _mm512_add_epi16(x, _mm512_add_epi16(next,
                                                     _mm512_alignr_epi64(zero, _mm512_add_epi16(totals, next), 4)));
        } else {
            x = _mm512_add_epi16(x, _mm512_bslli_epi128(x, 2));
            x = _mm512_add_epi16(x, _mm512_bslli_epi128(x, 4));
            x = _mm512_add_epi16(x, _mm512_bslli_epi128(x, 8));
            const __m512i totals = _mm512_shuffle_epi8(x, _mm512_set1_epi16(0x0F0E));  // each lane's word 7
            const __m512i previous = _mm512_alignr_epi64(totals, zero, 6);             // lane k: lane k - 1's
            x = _mm512_add_epi16(x, _mm512_add_epi16(previous,
                                                     _mm512_alignr_epi64(_mm512_add_epi16(totals, previous), zero, 4)));
        }
        first = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(x));
        second = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(x, 1));
    }

    template <class Unit>
    static batch<Unit> reversed_bytes(const batch<Unit>& x) {
        static constexpr auto order = byte_reversal<sizeof(Unit), 64>();
        const __m512i control = _mm512_loadu_si512(order.data());
        return on_bits([&control](__m512i a) { return _mm512_shuffle_epi8(a, control); }, x);
    }
    template <class F>
    static constexpr int table_bits() { return 4; }
    template <class F>
    static constexpr bool converts_integers() { return true; }
    static batch<float> to_float(const batch<std::int32_t>& x) { return _mm512_cvtepi32_ps(x); }
    static batch<double> to_float(const batch<std::int64_t>& x) { return _mm512_cvtepi64_pd(x); }  // AVX-512DQ
    static batch<double> look_up(const double (&table)[16], const batch<std::uint64_t>& index) {
        return _mm512_permutex2var_pd(_mm512_loadu_pd(table), index, _mm512_loadu_pd(table + 8));
    }
    static batch<float> look_up(const float (&table)[16], const batch<std::uint32_t>& index) {
        return _mm512_permutexvar_ps(index, _mm512_loadu_ps(table));
    }

    static constexpr bool streams = true;
    template <class T>
    static void store_streaming(T* p, const batch<T>& x) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(p), bits_as<std::uint8_t>(x).data);
    }
    static void finish_streaming() { _mm_sfence(); }
    static constexpr bool streams_narrowed = true;
    static void store_narrowed_streaming(float* p, const batch<double>& x) { _mm256_stream_ps(p, _mm512_cvtpd_ps(x)); }
    using DwordWindow = __m512i;  // each dword's place in [low | high]
    static DwordWindow dword_window_at(std::size_t first) {
        return _mm512_add_epi32(_mm512_set1_epi32(int(first)),
                                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    }
    template <class T>
    static batch<T> dword_window(const batch<T>& low, const batch<T>& high, const DwordWindow& place) {
        return on_bits([&place](__m512i a, __m512i b) { return _mm512_permutex2var_epi32(a, place, b); }, low, high);
    }

    static batch<float> load_halves(const std::uint16_t* p) {
        return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    static void store_halves(std::uint16_t* p, const batch<float>& x) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
    }
    static batch<double> load_halves_widened(const std::uint16_t* p) {
        return _mm512_cvtps_pd(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }
    static void store_halves_narrowed(std::uint16_t* p, const batch<double>& x) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(_mm512_cvtpd_ps(x), _MM_FROUND_TO_NEAREST_INT));
    }
};

}  // namespace simdscan::detail::SIMDSCAN_TIER
