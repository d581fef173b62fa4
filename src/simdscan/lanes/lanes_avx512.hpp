// Lanes<avx512bw>: lane moves by dword/byte aligns and permutes of AVX-512 registers, float32 <-> float64, and
// float16 <-> float32 16 values at a time (AVX-512F's vcvtph2ps/vcvtps2ph).
#pragma once

#include <immintrin.h>

#include "lanes_generic.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

template <>
struct Lanes<xsimd::avx512bw> : GenericLanes<xsimd::avx512bw> {
    using GenericLanes::as_int, GenericLanes::from_int;
    static __m512i as_int(__m512 r) { return _mm512_castps_si512(r); }
    static __m512i as_int(__m512d r) { return _mm512_castpd_si512(r); }
    static void from_int(__m512i r, __m512& out) { out = _mm512_castsi512_ps(r); }
    static void from_int(__m512i r, __m512d& out) { out = _mm512_castsi512_pd(r); }

    template <std::size_t K, class T>
    static batch<T> up(batch<T> x, batch<T> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits<Lanes>([](__m512i a, __m512i f) {
            if constexpr (bytes % 4 == 0) {
                return _mm512_alignr_epi32(a, f, 16 - bytes / 4);
            } else {
                // Each 128-bit lane next to the one below it (fill below the first), then a byte align per lane.
                return _mm512_alignr_epi8(a, _mm512_alignr_epi32(a, f, 12), 16 - bytes);
            }
        }, x, fill);
    }
    template <std::size_t K, class T>
    static batch<T> down(batch<T> x, batch<T> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits<Lanes>([](__m512i a, __m512i f) {
            if constexpr (bytes % 4 == 0) {
                return _mm512_alignr_epi32(f, a, bytes / 4);
            } else {
                return _mm512_alignr_epi8(_mm512_alignr_epi32(f, a, 4), a, bytes);
            }
        }, x, fill);
    }
    template <class T>
    static batch<T> broadcast_last(batch<T> x) {
        return on_bits<Lanes>([](__m512i a) {
            if constexpr (sizeof(T) == 8) {
                return _mm512_permutexvar_epi64(_mm512_set1_epi64(7), a);
            } else if constexpr (sizeof(T) == 4) {
                return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), a);
            } else if constexpr (sizeof(T) == 2) {
                return _mm512_permutexvar_epi16(_mm512_set1_epi16(31), a);
            } else {
                // No byte permute without VBMI: the last byte of each 128-bit lane, then the last dword.
                return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), _mm512_shuffle_epi8(a, _mm512_set1_epi8(15)));
            }
        }, x);
    }
    template <class T>
    static batch<T> broadcast_first(batch<T> x) {
        return on_bits<Lanes>([](__m512i a) {
            __m128i low = _mm512_castsi512_si128(a);
            if constexpr (sizeof(T) == 8) {
                return _mm512_broadcastq_epi64(low);
            } else if constexpr (sizeof(T) == 4) {
                return _mm512_broadcastd_epi32(low);
            } else if constexpr (sizeof(T) == 2) {
                return _mm512_broadcastw_epi16(low);
            } else {
                return _mm512_broadcastb_epi8(low);
            }
        }, x);
    }

    static batch<double> load_widened(const float* p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
    static void store_narrowed(float* p, const batch<double>& x) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(x)); }

    // 16 values at a time, the rest one by one.
    static void half_to_float(const std::uint16_t* in, float* out, std::ptrdiff_t n) {
        std::ptrdiff_t i = 0;
        for (; i + 16 <= n; i += 16) {
            _mm512_storeu_ps(out + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
        }
        GenericLanes::half_to_float(in + i, out + i, n - i);
    }
    static void float_to_half(const float* in, std::uint16_t* out, std::ptrdiff_t n) {
        std::ptrdiff_t i = 0;
        for (; i + 16 <= n; i += 16) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                                _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
        }
        GenericLanes::float_to_half(in + i, out + i, n - i);
    }
};

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
