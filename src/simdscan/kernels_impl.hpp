// Kernel definitions, templated on the xsimd architecture. Included only by the per-tier kernels_*.cpp files, each
// compiled with its own ISA flags.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "kernels.hpp"
#include "lanes.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

struct Summation {
    template <class V>
    static V apply(const V& a, const V& b) { return a + b; }
    // -0.0, not +0.0: -0.0 + x == x for every x, so a prefix of -0.0 stays -0.0.
    template <class T>
    static T neutral() {
        if constexpr (std::is_floating_point<T>::value) {
            return T(-0.0);
        } else if constexpr (std::is_integral<T>::value) {
            return T(0);
        } else {
            using R = typename T::value_type;
            return T(R(-0.0), R(-0.0));
        }
    }
    template <class T>
    static T identity() { return T(0); }
};

struct Product {
    template <class V>
    static V apply(const V& a, const V& b) { return a * b; }
    // The textbook formula, as NumPy computes it (std::complex's operator* adds C99 Annex G recovery).
    template <class R>
    static std::complex<R> apply(const std::complex<R>& a, const std::complex<R>& b) {
        return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
    }
    template <class T>
    static T neutral() { return T(1); }
    template <class T>
    static T identity() { return T(1); }
};

// Complex types run scalar.
template <class A, class T>
constexpr bool is_vectorized() { return std::is_arithmetic<T>::value; }

template <class A, class Op, bool Reverse, std::size_t K, class T>
xsimd::batch<T, A> vector_prefix(xsimd::batch<T, A> x, xsimd::batch<T, A> fill) {
    // log2(lanes) steps of "add the lanes K places behind": an inclusive scan inside the register.
    if constexpr (K < xsimd::batch<T, A>::size) {
        const auto moved = Reverse ? lane_moves<A>::template down<K>(x, fill) : lane_moves<A>::template up<K>(x, fill);
        return vector_prefix<A, Op, Reverse, 2 * K>(Op::apply(x, moved), fill);
    } else {
        return x;
    }
}

// The carry chain keeps few loads in flight out of cache; asking for data 2 KiB ahead keeps the memory busy.
template <bool Reverse, class T>
inline void prefetch_ahead(const T* at) {
#if defined(__GNUC__)
    constexpr std::ptrdiff_t distance = 2048 / std::ptrdiff_t(sizeof(T));
    __builtin_prefetch(reinterpret_cast<const char*>(at) + (Reverse ? -1 : 1) * distance * std::ptrdiff_t(sizeof(T)));
#else
    (void)at;
#endif
}

// Scans n contiguous elements onward from `carry`, the running value within the chunk, and returns the new one.
// The modes are template parameters so that the loop carries no branch and no reload of the caller's state.
template <class A, class T, class Op, bool Reverse, bool Exclusive, bool HasBase>
T scan_span(const T* in, T* out, std::ptrdiff_t n, T base, T carry) {
    std::ptrdiff_t done = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        using moves = lane_moves<A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        const B fill(Op::template neutral<T>());
        const B base_lanes(base);
        B running(carry);
        for (; done + lanes <= n; done += lanes) {
            const std::ptrdiff_t at = Reverse ? n - done - lanes : done;
            prefetch_ahead<Reverse>(in + at);
            const B prefix = vector_prefix<A, Op, Reverse, 1>(B::load_unaligned(in + at), fill);
            // The carry chain is one op per vector: the broadcast total is computed off it.
            const B total = Reverse ? moves::broadcast_first(prefix) : moves::broadcast_last(prefix);
            B result = prefix;
            if constexpr (Exclusive) {
                result = Reverse ? moves::template down<1>(prefix, fill) : moves::template up<1>(prefix, fill);
            }
            result = Op::apply(running, result);
            if constexpr (HasBase) {
                result = Op::apply(base_lanes, result);
            }
            result.store_unaligned(out + at);
            running = Op::apply(running, total);
        }
        if (done > 0) {
            alignas(A::alignment()) T lanes_out[lanes];
            running.store_aligned(lanes_out);
            carry = lanes_out[0];
        }
    }
    for (; done < n; ++done) {
        const std::ptrdiff_t at = Reverse ? n - 1 - done : done;
        const T next = Op::apply(carry, in[at]);
        const T result = Exclusive ? carry : next;
        out[at] = HasBase ? Op::apply(base, result) : result;
        carry = next;
    }
    return carry;
}

template <class A, class T, class Op, bool Reverse>
void scan_line(const T* in, T* out, std::ptrdiff_t n, ScanState<T>& st, bool exclusive) {
    if (n == 0) {
        return;
    }
    const T base = st.base;
    const T carry = st.local;
    if (exclusive) {
        st.local = st.has_base ? scan_span<A, T, Op, Reverse, true, true>(in, out, n, base, carry)
                               : scan_span<A, T, Op, Reverse, true, false>(in, out, n, base, carry);
        if (st.at_line_start) {
            // The empty range's value is the identity (+0.0 for sums), not the internal neutral -0.0.
            out[Reverse ? n - 1 : 0] = Op::template identity<T>();
        }
    } else {
        st.local = st.has_base ? scan_span<A, T, Op, Reverse, false, true>(in, out, n, base, carry)
                               : scan_span<A, T, Op, Reverse, false, false>(in, out, n, base, carry);
    }
    st.at_line_start = false;
}

template <class A, class T, class Op>
void rebase(const T* in, T* out, std::ptrdiff_t n, T base) {
    std::ptrdiff_t i = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        const B base_lanes(base);
        for (; i + lanes <= n; i += lanes) {
            Op::apply(base_lanes, B::load_unaligned(in + i)).store_unaligned(out + i);
        }
    }
    for (; i < n; ++i) {
        out[i] = Op::apply(base, in[i]);
    }
}

// vector_prefix within rows of n lanes: moves that would cross a row boundary bring the neutral element instead.
template <class A, class Op, bool Reverse, std::size_t K, class T>
xsimd::batch<T, A> row_prefix(xsimd::batch<T, A> x, xsimd::batch<T, A> fill, xsimd::batch<T, A> row_position,
                              std::size_t n) {
    if constexpr (K < xsimd::batch<T, A>::size) {
        if (K >= n) {
            return x;
        }
        const auto moved = Reverse ? lane_moves<A>::template down<K>(x, fill) : lane_moves<A>::template up<K>(x, fill);
        const auto within_row = row_position >= xsimd::batch<T, A>(T(K));
        return row_prefix<A, Op, Reverse, 2 * K>(Op::apply(x, xsimd::select(within_row, moved, fill)), fill,
                                                 row_position, n);
    } else {
        return x;
    }
}

// Rows of n elements stored back to back, n a power of two dividing the lane count: each vector holds whole rows,
// scanned in log2(n) steps whose lane moves are masked at row boundaries; no carry passes between vectors.
// Returns how many rows it scanned (whole vectors only).
template <class A, class T, class Op, bool Reverse, bool Exclusive>
std::ptrdiff_t scan_packed_rows(const T* in, T* out, std::ptrdiff_t n, std::ptrdiff_t rows) {
    using B = xsimd::batch<T, A>;
    using moves = lane_moves<A>;
    constexpr std::size_t lanes = B::size;
    // Each lane's distance from the start of its row (from the end, in reverse).
    alignas(A::alignment()) T position[lanes];
    for (std::size_t lane = 0; lane < lanes; ++lane) {
        const std::size_t in_row = lane % std::size_t(n);
        position[lane] = T(Reverse ? std::size_t(n) - 1 - in_row : in_row);
    }
    const B row_position = B::load_aligned(position);
    const B fill(Op::template neutral<T>());
    const B identity(Op::template identity<T>());
    const std::ptrdiff_t vectors = rows * n / std::ptrdiff_t(lanes);
    for (std::ptrdiff_t v = 0; v < vectors; ++v) {
        const std::ptrdiff_t at = v * std::ptrdiff_t(lanes);
        B prefix = row_prefix<A, Op, Reverse, 1>(B::load_unaligned(in + at), fill, row_position, std::size_t(n));
        if constexpr (Exclusive) {
            const B moved = Reverse ? moves::template down<1>(prefix, fill) : moves::template up<1>(prefix, fill);
            prefix = xsimd::select(row_position >= B(T(1)), moved, identity);
        }
        prefix.store_unaligned(out + at);
    }
    return vectors * std::ptrdiff_t(lanes) / n;
}

template <class A, class T, class Op, bool Reverse>
void scan_rows(const char* in, char* out, std::ptrdiff_t n, std::ptrdiff_t rows, std::ptrdiff_t in_stride,
               std::ptrdiff_t out_stride, bool exclusive) {
    std::ptrdiff_t r = 0;
    if constexpr (is_vectorized<A, T>()) {
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(xsimd::batch<T, A>::size);
        const std::ptrdiff_t row_bytes = n * std::ptrdiff_t(sizeof(T));
        if (n > 1 && n <= lanes && lanes % n == 0 && in_stride == row_bytes && out_stride == row_bytes) {
            const auto* first_in = reinterpret_cast<const T*>(in);
            auto* first_out = reinterpret_cast<T*>(out);
            r = exclusive ? scan_packed_rows<A, T, Op, Reverse, true>(first_in, first_out, n, rows)
                          : scan_packed_rows<A, T, Op, Reverse, false>(first_in, first_out, n, rows);
        }
    }
    const T neutral = Op::template neutral<T>();
    for (; r < rows; ++r) {
        ScanState<T> st{neutral, neutral, false, true};
        scan_line<A, T, Op, Reverse>(reinterpret_cast<const T*>(in + r * in_stride),
                                           reinterpret_cast<T*>(out + r * out_stride), n, st, exclusive);
    }
}

template <class A, class T, class Op>
void combine_rows(const T* a, const T* b, T* out, std::ptrdiff_t w) {
    std::ptrdiff_t j = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        for (; j + lanes <= w; j += lanes) {
            Op::apply(B::load_unaligned(a + j), B::load_unaligned(b + j)).store_unaligned(out + j);
        }
    }
    for (; j < w; ++j) {
        out[j] = Op::apply(a[j], b[j]);
    }
}

template <class A, class T, class Op>
void exchange_rows(const T* in, T* carry, T* out, std::ptrdiff_t w) {
    std::ptrdiff_t j = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = xsimd::batch<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        for (; j + lanes <= w; j += lanes) {
            const B x = B::load_unaligned(in + j);
            const B before = B::load_unaligned(carry + j);
            before.store_unaligned(out + j);
            Op::apply(before, x).store_unaligned(carry + j);
        }
    }
    for (; j < w; ++j) {
        const T x = in[j];
        const T before = carry[j];
        out[j] = before;
        carry[j] = Op::apply(before, x);
    }
}

template <class T, class Op>
T apply_op(T a, T b) { return Op::apply(a, b); }

template <class A, class T, class Op>
void fill_typed(TypedKernels<T>& k) {
    k.scan[0] = &scan_line<A, T, Op, false>;
    k.scan[1] = &scan_line<A, T, Op, true>;
    k.rebase = &rebase<A, T, Op>;
    k.rows[0] = &scan_rows<A, T, Op, false>;
    k.rows[1] = &scan_rows<A, T, Op, true>;
    k.combine = &combine_rows<A, T, Op>;
    k.exchange = &exchange_rows<A, T, Op>;
    k.apply = &apply_op<T, Op>;
    k.neutral = Op::template neutral<T>();
    k.identity = Op::template identity<T>();
}

template <class A, class Op, class... Ts>
void fill_set(TypedKernelSet<Ts...>& set) {
    (fill_typed<A, Ts, Op>(static_cast<TypedKernels<Ts>&>(set)), ...);
}

// IEEE binary16 <-> binary32 in software, for tiers without F16C; round to nearest even, as NumPy does.
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

template <class A>
void half_to_float(const std::uint16_t* in, float* out, std::ptrdiff_t n) {
    std::ptrdiff_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16) {
        _mm512_storeu_ps(out + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
    }
#elif defined(__F16C__)
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
    }
#endif
    for (; i < n; ++i) {
        out[i] = half_bits_to_float(in[i]);
    }
}

template <class A>
void float_to_half(const float* in, std::uint16_t* out, std::ptrdiff_t n) {
    std::ptrdiff_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
    }
#elif defined(__F16C__)
    for (; i + 8 <= n; i += 8) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
    }
#endif
    for (; i < n; ++i) {
        out[i] = float_to_half_bits(in[i]);
    }
}

template <class A>
KernelTable make_table() {
    KernelTable table{};
    fill_set<A, Summation>(table.summation);
    fill_set<A, Product>(table.product);
    table.half_to_float = &half_to_float<A>;
    table.float_to_half = &float_to_half<A>;
    return table;
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
