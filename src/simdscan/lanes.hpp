// Whole-register lane moves for the in-register scan: shift lanes up or down with a fill value, and broadcast the
// first or last lane. xsimd 8.1 has no slide_left/slide_right and xsimd 13.x has none for avx512f, so x86 tiers use
// raw intrinsics here, and arm64 NEON's vext/vdup; any other architecture goes through memory (correct, slower).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <xsimd/xsimd.hpp>

// MSVC defines no __SSE2__, though every x86-64 CPU has SSE2.
#if defined(__SSE2__) || defined(_M_X64)
#define SIMDSCAN_SSE2 1
#endif
#if defined(SIMDSCAN_SSE2)
#include <immintrin.h>
#endif
#if defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#endif

#ifndef SIMDSCAN_TIER
#error "define SIMDSCAN_TIER (the tier's namespace) before including lanes.hpp"
#endif

namespace simdscan {
namespace detail {
// Everything compiled with a tier's flags lives in that tier's namespace: an inline function emitted by two
// tiers' files under one name would let the linker keep the AVX-512 copy for every tier.
namespace SIMDSCAN_TIER {

// Generic fallback: moves through an aligned stack buffer.
template <class A>
struct lane_moves {
    template <std::size_t K, class T>
    static xsimd::batch<T, A> up(xsimd::batch<T, A> x, xsimd::batch<T, A> fill) {
        constexpr std::size_t n = xsimd::batch<T, A>::size;
        alignas(A::alignment()) T buf[2 * n];
        fill.store_aligned(buf);
        x.store_aligned(buf + n);
        return xsimd::batch<T, A>::load_unaligned(buf + n - K);
    }
    template <std::size_t K, class T>
    static xsimd::batch<T, A> down(xsimd::batch<T, A> x, xsimd::batch<T, A> fill) {
        constexpr std::size_t n = xsimd::batch<T, A>::size;
        alignas(A::alignment()) T buf[2 * n];
        x.store_aligned(buf);
        fill.store_aligned(buf + n);
        return xsimd::batch<T, A>::load_unaligned(buf + K);
    }
    template <class T>
    static xsimd::batch<T, A> broadcast_last(xsimd::batch<T, A> x) {
        constexpr std::size_t n = xsimd::batch<T, A>::size;
        alignas(A::alignment()) T buf[n];
        x.store_aligned(buf);
        return xsimd::batch<T, A>(buf[n - 1]);
    }
    template <class T>
    static xsimd::batch<T, A> broadcast_first(xsimd::batch<T, A> x) {
        alignas(A::alignment()) T buf[xsimd::batch<T, A>::size];
        x.store_aligned(buf);
        return xsimd::batch<T, A>(buf[0]);
    }
};

#if defined(SIMDSCAN_SSE2)
// Bit casts between a batch's native register and the integer register of the same width.
inline __m128i as_int(__m128 r) { return _mm_castps_si128(r); }
inline __m128i as_int(__m128d r) { return _mm_castpd_si128(r); }
inline __m128i as_int(__m128i r) { return r; }
inline void from_int(__m128i r, __m128& out) { out = _mm_castsi128_ps(r); }
inline void from_int(__m128i r, __m128d& out) { out = _mm_castsi128_pd(r); }
inline void from_int(__m128i r, __m128i& out) { out = r; }
#endif
#if defined(__AVX2__)
inline __m256i as_int(__m256 r) { return _mm256_castps_si256(r); }
inline __m256i as_int(__m256d r) { return _mm256_castpd_si256(r); }
inline __m256i as_int(__m256i r) { return r; }
inline void from_int(__m256i r, __m256& out) { out = _mm256_castsi256_ps(r); }
inline void from_int(__m256i r, __m256d& out) { out = _mm256_castsi256_pd(r); }
inline void from_int(__m256i r, __m256i& out) { out = r; }
#endif
#if defined(__AVX512F__)
inline __m512i as_int(__m512 r) { return _mm512_castps_si512(r); }
inline __m512i as_int(__m512d r) { return _mm512_castpd_si512(r); }
inline __m512i as_int(__m512i r) { return r; }
inline void from_int(__m512i r, __m512& out) { out = _mm512_castsi512_ps(r); }
inline void from_int(__m512i r, __m512d& out) { out = _mm512_castsi512_pd(r); }
inline void from_int(__m512i r, __m512i& out) { out = r; }
#endif

// Applies an integer-register operation to a batch of any element type, bit for bit.
template <class T, class A, class F>
xsimd::batch<T, A> on_bits(xsimd::batch<T, A> x, F&& f) {
    typename xsimd::batch<T, A>::register_type r;
    from_int(f(as_int(x.data)), r);
    return xsimd::batch<T, A>(r);
}
template <class T, class A, class F>
xsimd::batch<T, A> on_bits(xsimd::batch<T, A> x, xsimd::batch<T, A> y, F&& f) {
    typename xsimd::batch<T, A>::register_type r;
    from_int(f(as_int(x.data), as_int(y.data)), r);
    return xsimd::batch<T, A>(r);
}

#if defined(SIMDSCAN_SSE2)
template <>
struct lane_moves<xsimd::sse2> {
    template <std::size_t K, class T>
    static xsimd::batch<T, xsimd::sse2> up(xsimd::batch<T, xsimd::sse2> x, xsimd::batch<T, xsimd::sse2> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits(x, fill, [](__m128i a, __m128i f) {
            return _mm_or_si128(_mm_slli_si128(a, bytes), _mm_srli_si128(f, 16 - bytes));
        });
    }
    template <std::size_t K, class T>
    static xsimd::batch<T, xsimd::sse2> down(xsimd::batch<T, xsimd::sse2> x, xsimd::batch<T, xsimd::sse2> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits(x, fill, [](__m128i a, __m128i f) {
            return _mm_or_si128(_mm_srli_si128(a, bytes), _mm_slli_si128(f, 16 - bytes));
        });
    }
    template <class T>
    static xsimd::batch<T, xsimd::sse2> broadcast_last(xsimd::batch<T, xsimd::sse2> x) {
        return on_bits(x, [](__m128i a) {
            if constexpr (sizeof(T) == 8) {
                return _mm_shuffle_epi32(a, 0xEE);
            } else if constexpr (sizeof(T) == 4) {
                return _mm_shuffle_epi32(a, 0xFF);
            } else if constexpr (sizeof(T) == 2) {
                return _mm_shuffle_epi32(_mm_shufflehi_epi16(a, 0xFF), 0xFF);
            } else {
                return _mm_shuffle_epi32(_mm_shufflehi_epi16(_mm_unpackhi_epi8(a, a), 0xFF), 0xFF);
            }
        });
    }
    template <class T>
    static xsimd::batch<T, xsimd::sse2> broadcast_first(xsimd::batch<T, xsimd::sse2> x) {
        return on_bits(x, [](__m128i a) {
            if constexpr (sizeof(T) == 8) {
                return _mm_shuffle_epi32(a, 0x44);
            } else if constexpr (sizeof(T) == 4) {
                return _mm_shuffle_epi32(a, 0x00);
            } else if constexpr (sizeof(T) == 2) {
                return _mm_shuffle_epi32(_mm_shufflelo_epi16(a, 0x00), 0x00);
            } else {
                return _mm_shuffle_epi32(_mm_shufflelo_epi16(_mm_unpacklo_epi8(a, a), 0x00), 0x00);
            }
        });
    }
};
#endif

#if defined(__AVX2__)
template <>
struct lane_moves<xsimd::avx2> {
    template <std::size_t K, class T>
    static xsimd::batch<T, xsimd::avx2> up(xsimd::batch<T, xsimd::avx2> x, xsimd::batch<T, xsimd::avx2> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits(x, fill, [](__m256i a, __m256i f) {
            // low half = fill.lo, high half = a.lo: the 128-bit neighbour of every lane after the move.
            __m256i below = _mm256_permute2x128_si256(a, f, 0x02);
            if constexpr (bytes < 16) {
                return _mm256_alignr_epi8(a, below, 16 - bytes);
            } else if constexpr (bytes == 16) {
                return below;
            } else {
                return _mm256_alignr_epi8(below, f, 32 - bytes);
            }
        });
    }
    template <std::size_t K, class T>
    static xsimd::batch<T, xsimd::avx2> down(xsimd::batch<T, xsimd::avx2> x, xsimd::batch<T, xsimd::avx2> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits(x, fill, [](__m256i a, __m256i f) {
            // low half = a.hi, high half = fill.lo.
            __m256i above = _mm256_permute2x128_si256(a, f, 0x21);
            if constexpr (bytes < 16) {
                return _mm256_alignr_epi8(above, a, bytes);
            } else if constexpr (bytes == 16) {
                return above;
            } else {
                return _mm256_alignr_epi8(f, above, bytes - 16);
            }
        });
    }
    template <class T>
    static xsimd::batch<T, xsimd::avx2> broadcast_last(xsimd::batch<T, xsimd::avx2> x) {
        return on_bits(x, [](__m256i a) {
            if constexpr (sizeof(T) == 8) {
                return _mm256_permute4x64_epi64(a, 0xFF);
            } else if constexpr (sizeof(T) == 4) {
                return _mm256_permutevar8x32_epi32(a, _mm256_set1_epi32(7));
            } else if constexpr (sizeof(T) == 2) {
                return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(a, _mm256_set1_epi16(0x0F0E)), 0xFF);
            } else {
                return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(a, _mm256_set1_epi8(15)), 0xFF);
            }
        });
    }
    template <class T>
    static xsimd::batch<T, xsimd::avx2> broadcast_first(xsimd::batch<T, xsimd::avx2> x) {
        return on_bits(x, [](__m256i a) {
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
        });
    }
};
#endif

#if defined(__AVX512BW__)
template <>
struct lane_moves<xsimd::avx512bw> {
    template <std::size_t K, class T>
    static xsimd::batch<T, xsimd::avx512bw> up(xsimd::batch<T, xsimd::avx512bw> x,
                                               xsimd::batch<T, xsimd::avx512bw> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits(x, fill, [](__m512i a, __m512i f) {
            if constexpr (bytes % 4 == 0) {
                return _mm512_alignr_epi32(a, f, 16 - bytes / 4);
            } else {
                // Each 128-bit lane next to the one below it (fill below the first), then a byte align per lane.
                return _mm512_alignr_epi8(a, _mm512_alignr_epi32(a, f, 12), 16 - bytes);
            }
        });
    }
    template <std::size_t K, class T>
    static xsimd::batch<T, xsimd::avx512bw> down(xsimd::batch<T, xsimd::avx512bw> x,
                                                 xsimd::batch<T, xsimd::avx512bw> fill) {
        constexpr int bytes = int(K * sizeof(T));
        return on_bits(x, fill, [](__m512i a, __m512i f) {
            if constexpr (bytes % 4 == 0) {
                return _mm512_alignr_epi32(f, a, bytes / 4);
            } else {
                return _mm512_alignr_epi8(_mm512_alignr_epi32(f, a, 4), a, bytes);
            }
        });
    }
    template <class T>
    static xsimd::batch<T, xsimd::avx512bw> broadcast_last(xsimd::batch<T, xsimd::avx512bw> x) {
        return on_bits(x, [](__m512i a) {
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
        });
    }
    template <class T>
    static xsimd::batch<T, xsimd::avx512bw> broadcast_first(xsimd::batch<T, xsimd::avx512bw> x) {
        return on_bits(x, [](__m512i a) {
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
        });
    }
};
#endif

#if defined(__ARM_NEON) && defined(__aarch64__)
inline uint8x16_t as_bytes(float32x4_t r) { return vreinterpretq_u8_f32(r); }
inline uint8x16_t as_bytes(float64x2_t r) { return vreinterpretq_u8_f64(r); }
inline uint8x16_t as_bytes(uint8x16_t r) { return r; }
inline uint8x16_t as_bytes(uint16x8_t r) { return vreinterpretq_u8_u16(r); }
inline uint8x16_t as_bytes(uint32x4_t r) { return vreinterpretq_u8_u32(r); }
inline uint8x16_t as_bytes(uint64x2_t r) { return vreinterpretq_u8_u64(r); }
inline void from_bytes(uint8x16_t r, float32x4_t& out) { out = vreinterpretq_f32_u8(r); }
inline void from_bytes(uint8x16_t r, float64x2_t& out) { out = vreinterpretq_f64_u8(r); }
inline void from_bytes(uint8x16_t r, uint8x16_t& out) { out = r; }
inline void from_bytes(uint8x16_t r, uint16x8_t& out) { out = vreinterpretq_u16_u8(r); }
inline void from_bytes(uint8x16_t r, uint32x4_t& out) { out = vreinterpretq_u32_u8(r); }
inline void from_bytes(uint8x16_t r, uint64x2_t& out) { out = vreinterpretq_u64_u8(r); }

template <class T, class F>
xsimd::batch<T, xsimd::neon64> on_bytes(xsimd::batch<T, xsimd::neon64> x, F&& f) {
    typename xsimd::batch<T, xsimd::neon64>::register_type r;
    from_bytes(f(as_bytes(x.data)), r);
    return xsimd::batch<T, xsimd::neon64>(r);
}

template <>
struct lane_moves<xsimd::neon64> {
    template <std::size_t K, class T>
    static xsimd::batch<T, xsimd::neon64> up(xsimd::batch<T, xsimd::neon64> x, xsimd::batch<T, xsimd::neon64> fill) {
        const uint8x16_t f = as_bytes(fill.data);
        return on_bytes(x, [f](uint8x16_t a) { return vextq_u8(f, a, int(16 - K * sizeof(T))); });
    }
    template <std::size_t K, class T>
    static xsimd::batch<T, xsimd::neon64> down(xsimd::batch<T, xsimd::neon64> x, xsimd::batch<T, xsimd::neon64> fill) {
        const uint8x16_t f = as_bytes(fill.data);
        return on_bytes(x, [f](uint8x16_t a) { return vextq_u8(a, f, int(K * sizeof(T))); });
    }
    template <class T>
    static xsimd::batch<T, xsimd::neon64> broadcast_last(xsimd::batch<T, xsimd::neon64> x) {
        return on_bytes(x, [](uint8x16_t a) {
            if constexpr (sizeof(T) == 8) {
                return vreinterpretq_u8_u64(vdupq_laneq_u64(vreinterpretq_u64_u8(a), 1));
            } else if constexpr (sizeof(T) == 4) {
                return vreinterpretq_u8_u32(vdupq_laneq_u32(vreinterpretq_u32_u8(a), 3));
            } else if constexpr (sizeof(T) == 2) {
                return vreinterpretq_u8_u16(vdupq_laneq_u16(vreinterpretq_u16_u8(a), 7));
            } else {
                return vdupq_laneq_u8(a, 15);
            }
        });
    }
    template <class T>
    static xsimd::batch<T, xsimd::neon64> broadcast_first(xsimd::batch<T, xsimd::neon64> x) {
        return on_bytes(x, [](uint8x16_t a) {
            if constexpr (sizeof(T) == 8) {
                return vreinterpretq_u8_u64(vdupq_laneq_u64(vreinterpretq_u64_u8(a), 0));
            } else if constexpr (sizeof(T) == 4) {
                return vreinterpretq_u8_u32(vdupq_laneq_u32(vreinterpretq_u32_u8(a), 0));
            } else if constexpr (sizeof(T) == 2) {
                return vreinterpretq_u8_u16(vdupq_laneq_u16(vreinterpretq_u16_u8(a), 0));
            } else {
                return vdupq_laneq_u8(a, 0);
            }
        });
    }
};
#endif

// float32 elements widened into a float64 register (as many as it has lanes) and narrowed back (rounding to nearest):
// xsimd 8.1 has no converting load for these, so each ISA uses its conversion instruction; others go through memory.
template <class A>
xsimd::batch<double, A> load_widened(const float* p) {
#if defined(__AVX512F__)
    if constexpr (std::is_same<A, xsimd::avx512bw>::value) {
        return _mm512_cvtps_pd(_mm256_loadu_ps(p));
    }
#endif
#if defined(__AVX2__)
    if constexpr (std::is_same<A, xsimd::avx2>::value) {
        return _mm256_cvtps_pd(_mm_loadu_ps(p));
    }
#endif
#if defined(SIMDSCAN_SSE2)
    if constexpr (std::is_same<A, xsimd::sse2>::value) {
        // _mm_loadl_epi64 reads through an unaligned type (_mm_load_sd would claim double alignment: UB).
        return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
    }
#endif
#if defined(__ARM_NEON) && defined(__aarch64__)
    if constexpr (std::is_same<A, xsimd::neon64>::value) {
        return vcvt_f64_f32(vld1_f32(p));
    }
#endif
    alignas(A::alignment()) double wide[xsimd::batch<double, A>::size];
    for (std::size_t i = 0; i < xsimd::batch<double, A>::size; ++i) {
        wide[i] = p[i];
    }
    return xsimd::batch<double, A>::load_aligned(wide);
}

template <class A>
void store_narrowed(float* p, const xsimd::batch<double, A>& x) {
#if defined(__AVX512F__)
    if constexpr (std::is_same<A, xsimd::avx512bw>::value) {
        _mm256_storeu_ps(p, _mm512_cvtpd_ps(x));
        return;
    }
#endif
#if defined(__AVX2__)
    if constexpr (std::is_same<A, xsimd::avx2>::value) {
        _mm_storeu_ps(p, _mm256_cvtpd_ps(x));
        return;
    }
#endif
#if defined(SIMDSCAN_SSE2)
    if constexpr (std::is_same<A, xsimd::sse2>::value) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_castps_si128(_mm_cvtpd_ps(x)));
        return;
    }
#endif
#if defined(__ARM_NEON) && defined(__aarch64__)
    if constexpr (std::is_same<A, xsimd::neon64>::value) {
        vst1_f32(p, vcvt_f32_f64(x));
        return;
    }
#endif
    alignas(A::alignment()) double wide[xsimd::batch<double, A>::size];
    x.store_aligned(wide);
    for (std::size_t i = 0; i < xsimd::batch<double, A>::size; ++i) {
        p[i] = float(wide[i]);
    }
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
