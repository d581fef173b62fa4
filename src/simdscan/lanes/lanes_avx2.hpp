// Lanes<avx2>: lane moves by cross-half permutes and byte aligns of AVX2 registers, float32 <-> float64, and
// float16 <-> float32 by F16C (which the avx2 tier's flags, MSVC's /arch:AVX2 included, and CPU test require).
#pragma once

#include <immintrin.h>

#include "lanes_generic.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

template <>
struct Lanes<xsimd::avx2> : GenericLanes<xsimd::avx2> {
    using GenericLanes::as_int, GenericLanes::from_int;
    static __m256i as_int(__m256 r) { return _mm256_castps_si256(r); }
    static __m256i as_int(__m256d r) { return _mm256_castpd_si256(r); }
    static void from_int(__m256i r, __m256& out) { out = _mm256_castsi256_ps(r); }
    static void from_int(__m256i r, __m256d& out) { out = _mm256_castsi256_pd(r); }

    template <std::size_t K, class T>
    static batch<T> up(batch<T> x, batch<T> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits<Lanes>([](__m256i a, __m256i f) {
            // low half = fill.lo, high half = a.lo: the 128-bit neighbour of every lane after the move.
            __m256i below = _mm256_permute2x128_si256(a, f, 0x02);
            if constexpr (bytes < 16) {
                return _mm256_alignr_epi8(a, below, 16 - bytes);
            } else if constexpr (bytes == 16) {
                return below;
            } else {
                return _mm256_alignr_epi8(below, f, 32 - bytes);
            }
        }, x, fill);
    }
    template <std::size_t K, class T>
    static batch<T> down(batch<T> x, batch<T> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits<Lanes>([](__m256i a, __m256i f) {
            // low half = a.hi, high half = fill.lo.
            __m256i above = _mm256_permute2x128_si256(a, f, 0x21);
            if constexpr (bytes < 16) {
                return _mm256_alignr_epi8(above, a, bytes);
            } else if constexpr (bytes == 16) {
                return above;
            } else {
                return _mm256_alignr_epi8(f, above, bytes - 16);
            }
        }, x, fill);
    }
    template <class T>
    static batch<T> broadcast_last(batch<T> x) {
        return on_bits<Lanes>([](__m256i a) {
            if constexpr (sizeof(T) == 8) {
                return _mm256_permute4x64_epi64(a, 0xFF);
            } else if constexpr (sizeof(T) == 4) {
                return _mm256_permutevar8x32_epi32(a, _mm256_set1_epi32(7));
            } else if constexpr (sizeof(T) == 2) {
                return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(a, _mm256_set1_epi16(0x0F0E)), 0xFF);
            } else {
                return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(a, _mm256_set1_epi8(15)), 0xFF);
            }
        }, x);
    }
    template <class T>
    static batch<T> broadcast_first(batch<T> x) {
        return on_bits<Lanes>([](__m256i a) {
            __m128i low = _mm256_castsi256_si128(a);
            if constexpr (sizeof(T) == 8) {
                return _mm256_broadcastq_epi64(low);
            } else if constexpr (sizeof(T) == 4) {
                return _mm256_broadcastd_epi32(low);
            } else if constexpr (sizeof(T) == 2) {
                return _mm256_broadcastw_epi16(low);
            } else {
                return _mm256_broadcastb_epi8(low);
            }
        }, x);
    }

    static batch<double> load_widened(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
    static void store_narrowed(float* p, const batch<double>& x) { _mm_storeu_ps(p, _mm256_cvtpd_ps(x)); }

    // 8 values at a time, the rest one by one.
    static void half_to_float(const std::uint16_t* in, float* out, std::ptrdiff_t n) {
        std::ptrdiff_t i = 0;
        for (; i + 8 <= n; i += 8) {
            _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
        }
        GenericLanes::half_to_float(in + i, out + i, n - i);
    }
    static void float_to_half(const float* in, std::uint16_t* out, std::ptrdiff_t n) {
        std::ptrdiff_t i = 0;
        for (; i + 8 <= n; i += 8) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                             _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
        }
        GenericLanes::float_to_half(in + i, out + i, n - i);
    }
};

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
