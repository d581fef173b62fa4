// Lanes<sse2>: lane moves by byte shifts and shuffles of SSE2 registers, float32 <-> float64 by cvtps2pd/cvtpd2ps.
#pragma once

#include <immintrin.h>

#include "lanes_generic.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

template <>
struct Lanes<xsimd::sse2> : GenericLanes<xsimd::sse2> {
    using GenericLanes::as_int, GenericLanes::from_int;
    static __m128i as_int(__m128 r) { return _mm_castps_si128(r); }
    static __m128i as_int(__m128d r) { return _mm_castpd_si128(r); }
    static void from_int(__m128i r, __m128& out) { out = _mm_castsi128_ps(r); }
    static void from_int(__m128i r, __m128d& out) { out = _mm_castsi128_pd(r); }

    template <std::size_t K, class T>
    static batch<T> up(batch<T> x, batch<T> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits<Lanes>([](__m128i a, __m128i f) {
            return _mm_or_si128(_mm_slli_si128(a, bytes), _mm_srli_si128(f, 16 - bytes));
        }, x, fill);
    }
    template <std::size_t K, class T>
    static batch<T> down(batch<T> x, batch<T> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits<Lanes>([](__m128i a, __m128i f) {
            return _mm_or_si128(_mm_srli_si128(a, bytes), _mm_slli_si128(f, 16 - bytes));
        }, x, fill);
    }
    template <class T>
    static batch<T> broadcast_last(batch<T> x) {
        return on_bits<Lanes>([](__m128i a) {
            if constexpr (sizeof(T) == 8) {
                return _mm_shuffle_epi32(a, 0xEE);
            } else if constexpr (sizeof(T) == 4) {
                return _mm_shuffle_epi32(a, 0xFF);
            } else if constexpr (sizeof(T) == 2) {
                return _mm_shuffle_epi32(_mm_shufflehi_epi16(a, 0xFF), 0xFF);
            } else {
                return _mm_shuffle_epi32(_mm_shufflehi_epi16(_mm_unpackhi_epi8(a, a), 0xFF), 0xFF);
            }
        }, x);
    }
    template <class T>
    static batch<T> broadcast_first(batch<T> x) {
        return on_bits<Lanes>([](__m128i a) {
            if constexpr (sizeof(T) == 8) {
                return _mm_shuffle_epi32(a, 0x44);
            } else if constexpr (sizeof(T) == 4) {
                return _mm_shuffle_epi32(a, 0x00);
            } else if constexpr (sizeof(T) == 2) {
                return _mm_shuffle_epi32(_mm_shufflelo_epi16(a, 0x00), 0x00);
            } else {
                return _mm_shuffle_epi32(_mm_shufflelo_epi16(_mm_unpacklo_epi8(a, a), 0x00), 0x00);
            }
        }, x);
    }

    static batch<double> load_widened(const float* p) {
        // _mm_loadl_epi64 reads through an unaligned type (_mm_load_sd would claim double alignment: UB).
        return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
    }
    static void store_narrowed(float* p, const batch<double>& x) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_castps_si128(_mm_cvtpd_ps(x)));
    }
};

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
