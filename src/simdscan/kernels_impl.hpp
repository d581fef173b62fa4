// Kernel definitions, templated on the xsimd architecture. Included only by the per-tier kernels_*.cpp files, each
// compiled with its own ISA flags.
#pragma once

#include <cmath>
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

// An op is the arithmetic of one scan: apply on states (scalars or batches), neutral and identity, and the
// conversions between elements and states (lift) and back (lower).
// Ops whose state is the element itself.
struct ExactState {
    template <class V>
    static V lift(const V& x) { return x; }
    template <class V>
    static V lower(const V& state) { return state; }
};

template <class T>
constexpr T summation_neutral() {
    // -0.0, not +0.0: -0.0 + x == x for every x, so a prefix of -0.0 stays -0.0.
    if constexpr (std::is_floating_point<T>::value) {
        return T(-0.0);
    } else if constexpr (std::is_integral<T>::value) {
        return T(0);
    } else {
        using R = typename T::value_type;
        return T(R(-0.0), R(-0.0));
    }
}

struct Summation : ExactState {
    template <class T, class A>
    using vector = xsimd::batch<T, A>;  // the register the vector loops work in
    template <class T>
    using state = T;
    template <class V>
    static V apply(const V& a, const V& b) { return a + b; }
    template <class T>
    static T neutral() { return summation_neutral<T>(); }
    template <class T>
    static T identity() { return T(0); }
};

struct Product : ExactState {
    template <class T, class A>
    using vector = xsimd::batch<T, A>;
    template <class T>
    using state = T;
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

// sum + error rounded once. An error of zero keeps the sum's sign of zero (-0.0 + +0.0 would be +0.0); a NaN error
// comes only from an infinite or NaN sum, which is the result.
template <class R>
R round_compensated(R sum, R error) {
    return std::abs(error) > R(0) ? sum + error : sum;
}
template <class R>
std::complex<R> round_compensated(std::complex<R> sum, std::complex<R> error) {
    return {round_compensated(sum.real(), error.real()), round_compensated(sum.imag(), error.imag())};
}
template <class T, class A>
xsimd::batch<T, A> round_compensated(const xsimd::batch<T, A>& sum, const xsimd::batch<T, A>& error) {
    return xsimd::select(xsimd::abs(error) > xsimd::batch<T, A>(T(0)), sum + error, sum);
}

template <class T>
T zero_like(const T&) { return T(0); }
template <class T, class A>
xsimd::batch<T, A> zero_like(const xsimd::batch<T, A>&) { return xsimd::batch<T, A>(T(0)); }

// Summation with Neumaier's compensation: every addition's rounding error, found exactly by Knuth's TwoSum (no
// assumption on the operands' magnitudes, as in-register scan steps add in any order), is summed aside.
struct CompensatedSummation {
    template <class T, class A>
    using vector = xsimd::batch<T, A>;
    template <class T>
    using state = Compensated<T>;
    template <class V>
    static Compensated<V> apply(const Compensated<V>& a, const Compensated<V>& b) {
        const V sum = a.sum + b.sum;
        const V b_rounded = sum - a.sum;
        const V dropped = (a.sum - (sum - b_rounded)) + (b.sum - b_rounded);
        return {sum, (a.error + b.error) + dropped};
    }
    template <class V>
    static Compensated<V> lift(const V& x) { return {x, zero_like(x)}; }
    template <class V>
    static V lower(const Compensated<V>& state) { return round_compensated(state.sum, state.error); }
    template <class T>
    static Compensated<T> neutral() { return {summation_neutral<T>(), summation_neutral<T>()}; }
    template <class T>
    static T identity() { return T(0); }
};

// Summation in double precision for float32 and complex64 elements: vectors hold float64 lanes, filled by widening
// loads and rounded once by narrowing stores.
struct WidenedSummation {
    template <class T, class A>
    using vector = xsimd::batch<double, A>;
    // Elements' states are their double-precision twins; vectors are double already.
    template <class T>
    using state = typename std::conditional<std::is_same<T, float>::value || std::is_same<T, std::complex<float>>::value,
                                            CompensatedState<T>, T>::type;
    template <class V>
    static V apply(const V& a, const V& b) { return a + b; }
    static double lift(float x) { return x; }
    static std::complex<double> lift(std::complex<float> x) { return x; }
    template <class A>
    static xsimd::batch<double, A> lift(const xsimd::batch<double, A>& x) { return x; }
    static float lower(double x) { return float(x); }
    static std::complex<float> lower(std::complex<double> x) { return std::complex<float>(x); }
    template <class A>
    static xsimd::batch<double, A> lower(const xsimd::batch<double, A>& x) { return x; }
    template <class T>
    static state<T> neutral() { return summation_neutral<state<T>>(); }
    template <class T>
    static T identity() { return T(0); }
};

// The compensated sum of elements of type T.
template <class T>
using CompensatedOp = typename std::conditional<std::is_same<CompensatedState<T>, Compensated<T>>::value,
                                                CompensatedSummation, WidenedSummation>::type;

// Vector loads and stores of elements: converting ones where the vector is wider than the element.
template <class B, class T>
B load_vector(const T* p) {
    if constexpr (std::is_same<typename B::value_type, T>::value) {
        return B::load_unaligned(p);
    } else {
        return load_widened<typename B::arch_type>(p);
    }
}
template <class B, class T>
void store_vector(T* p, const B& x) {
    if constexpr (std::is_same<typename B::value_type, T>::value) {
        x.store_unaligned(p);
    } else {
        store_narrowed(p, x);
    }
}
// x rounded to the element type T and back, as an element stored and reloaded would be.
template <class T, class B>
B rounded_to_element(const B& x) {
    if constexpr (std::is_same<typename B::value_type, T>::value) {
        return x;
    } else {
        T element[B::size];
        store_vector(element, x);
        return load_vector<B>(element);
    }
}

// Lane moves and selections on vector states: a compensated state moves its sum and error alike.
template <class A, bool Reverse, std::size_t K, class T>
xsimd::batch<T, A> shifted(const xsimd::batch<T, A>& x, const xsimd::batch<T, A>& fill) {
    return Reverse ? lane_moves<A>::template down<K>(x, fill) : lane_moves<A>::template up<K>(x, fill);
}
template <class A, bool Reverse, std::size_t K, class B>
Compensated<B> shifted(const Compensated<B>& x, const Compensated<B>& fill) {
    return {shifted<A, Reverse, K>(x.sum, fill.sum), shifted<A, Reverse, K>(x.error, fill.error)};
}

// The lane holding the total (last in scan order) broadcast to all lanes.
template <class A, bool Reverse, class T>
xsimd::batch<T, A> broadcast_total(const xsimd::batch<T, A>& x) {
    return Reverse ? lane_moves<A>::broadcast_first(x) : lane_moves<A>::broadcast_last(x);
}
template <class A, bool Reverse, class B>
Compensated<B> broadcast_total(const Compensated<B>& x) {
    return {broadcast_total<A, Reverse>(x.sum), broadcast_total<A, Reverse>(x.error)};
}

template <class T, class A>
xsimd::batch<T, A> choose(const xsimd::batch_bool<T, A>& mask, const xsimd::batch<T, A>& a,
                          const xsimd::batch<T, A>& b) {
    return xsimd::select(mask, a, b);
}
template <class M, class B>
Compensated<B> choose(const M& mask, const Compensated<B>& a, const Compensated<B>& b) {
    return {choose(mask, a.sum, b.sum), choose(mask, a.error, b.error)};
}

// A scalar state in every lane, and lane 0 of a vector state.
template <class B>
B splat(const typename B::value_type& x) { return B(x); }
template <class B>
Compensated<B> splat(const Compensated<typename B::value_type>& x) { return {B(x.sum), B(x.error)}; }

template <class T, class A>
T first_lane(const xsimd::batch<T, A>& x) {
    alignas(A::alignment()) T lanes[xsimd::batch<T, A>::size];
    x.store_aligned(lanes);
    return lanes[0];
}
template <class B>
Compensated<typename B::value_type> first_lane(const Compensated<B>& x) {
    return {first_lane(x.sum), first_lane(x.error)};
}

// A carry buffer's states, as TypedKernels::advance lays them out: w states, or for Compensated ones w sums then w
// errors. V is the state type or its vector.
template <class V, class State>
void load_state(V& state, const State* carry, std::ptrdiff_t, std::ptrdiff_t j) {
    if constexpr (std::is_same<V, State>::value) {
        state = carry[j];
    } else {
        state = V::load_unaligned(carry + j);
    }
}
template <class V, class C>
void load_state(Compensated<V>& state, const Compensated<C>* carry, std::ptrdiff_t w, std::ptrdiff_t j) {
    const C* sums = reinterpret_cast<const C*>(carry);
    load_state(state.sum, sums, w, j);
    load_state(state.error, sums + w, w, j);
}
template <class V, class State>
void store_state(const V& state, State* carry, std::ptrdiff_t, std::ptrdiff_t j) {
    if constexpr (std::is_same<V, State>::value) {
        carry[j] = state;
    } else {
        state.store_unaligned(carry + j);
    }
}
template <class V, class C>
void store_state(const Compensated<V>& state, Compensated<C>* carry, std::ptrdiff_t w, std::ptrdiff_t j) {
    C* sums = reinterpret_cast<C*>(carry);
    store_state(state.sum, sums, w, j);
    store_state(state.error, sums + w, w, j);
}

// Complex types run scalar.
template <class A, class T>
constexpr bool is_vectorized() { return std::is_arithmetic<T>::value; }

template <class A, class Op, bool Reverse, std::size_t K, std::size_t Lanes, class V>
V vector_prefix(const V& x, const V& fill) {
    // log2(lanes) steps of "add the lanes K places behind": an inclusive scan inside the register.
    if constexpr (K < Lanes) {
        return vector_prefix<A, Op, Reverse, 2 * K, Lanes>(Op::apply(x, shifted<A, Reverse, K>(x, fill)), fill);
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

// Scans n contiguous elements onward from `carry`, the running state within the chunk, and returns the new one.
// The modes are template parameters so that the loop carries no branch and no reload of the caller's state.
template <class A, class T, class Op, bool Reverse, bool Exclusive, bool HasBase,
          class State = typename Op::template state<T>>
State scan_span(const T* in, T* out, std::ptrdiff_t n, State base, State carry) {
    std::ptrdiff_t done = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = typename Op::template vector<T, A>;
        using VectorState = typename Op::template state<B>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        const VectorState fill = splat<B>(Op::template neutral<T>());
        const VectorState base_lanes = splat<B>(base);
        VectorState running = splat<B>(carry);
        for (; done + lanes <= n; done += lanes) {
            const std::ptrdiff_t at = Reverse ? n - done - lanes : done;
            prefetch_ahead<Reverse>(in + at);
            const VectorState prefix =
                vector_prefix<A, Op, Reverse, 1, B::size>(Op::lift(load_vector<B>(in + at)), fill);
            // The carry chain is one op per vector: the broadcast total is computed off it.
            const VectorState total = broadcast_total<A, Reverse>(prefix);
            const VectorState before = Exclusive ? shifted<A, Reverse, 1>(prefix, fill) : prefix;
            B result = Op::lower(Op::apply(running, before));
            if constexpr (HasBase) {
                // As the element stored by a chunk scanned before its base was known, then rebased.
                result = Op::lower(Op::apply(base_lanes, Op::lift(rounded_to_element<T>(result))));
            }
            store_vector(out + at, result);
            running = Op::apply(running, total);
        }
        if (done > 0) {
            carry = first_lane(running);
        }
    }
    for (; done < n; ++done) {
        const std::ptrdiff_t at = Reverse ? n - 1 - done : done;
        const State next = Op::apply(carry, Op::lift(in[at]));
        T result = Op::lower(Exclusive ? carry : next);
        if constexpr (HasBase) {
            result = Op::lower(Op::apply(base, Op::lift(result)));
        }
        out[at] = result;
        carry = next;
    }
    return carry;
}

template <class A, class T, class Op, bool Reverse, class State = typename Op::template state<T>>
void scan_line(const T* in, T* out, std::ptrdiff_t n, ScanState<State>& st, bool exclusive) {
    if (n == 0) {
        return;
    }
    const State base = st.base;
    const State carry = st.local;
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

template <class A, class T, class Op, class State = typename Op::template state<T>>
void rebase(const T* in, T* out, std::ptrdiff_t n, State base) {
    std::ptrdiff_t i = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = typename Op::template vector<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        const auto base_lanes = splat<B>(base);
        for (; i + lanes <= n; i += lanes) {
            store_vector(out + i, Op::lower(Op::apply(base_lanes, Op::lift(load_vector<B>(in + i)))));
        }
    }
    for (; i < n; ++i) {
        out[i] = Op::lower(Op::apply(base, Op::lift(in[i])));
    }
}

// vector_prefix within rows of n lanes: moves that would cross a row boundary bring the neutral element instead.
template <class A, class Op, bool Reverse, std::size_t K, class B, class V>
V row_prefix(const V& x, const V& fill, const B& row_position, std::size_t n) {
    if constexpr (K < B::size) {
        if (K >= n) {
            return x;
        }
        const auto within_row = row_position >= B(typename B::value_type(K));
        const V moved = choose(within_row, shifted<A, Reverse, K>(x, fill), fill);
        return row_prefix<A, Op, Reverse, 2 * K>(Op::apply(x, moved), fill, row_position, n);
    } else {
        return x;
    }
}

// Rows of n elements stored back to back, n a power of two dividing the lane count: each vector holds whole rows,
// scanned in log2(n) steps whose lane moves are masked at row boundaries; no carry passes between vectors.
// Returns how many rows it scanned (whole vectors only).
template <class A, class T, class Op, bool Reverse, bool Exclusive>
std::ptrdiff_t scan_packed_rows(const T* in, T* out, std::ptrdiff_t n, std::ptrdiff_t rows) {
    using B = typename Op::template vector<T, A>;
    using VectorState = typename Op::template state<B>;
    using Lane = typename B::value_type;
    constexpr std::size_t lanes = B::size;
    // Each lane's distance from the start of its row (from the end, in reverse).
    alignas(A::alignment()) Lane position[lanes];
    for (std::size_t lane = 0; lane < lanes; ++lane) {
        const std::size_t in_row = lane % std::size_t(n);
        position[lane] = Lane(Reverse ? std::size_t(n) - 1 - in_row : in_row);
    }
    const B row_position = B::load_aligned(position);
    const VectorState fill = splat<B>(Op::template neutral<T>());
    const B identity(Lane(Op::template identity<T>()));
    const std::ptrdiff_t vectors = rows * n / std::ptrdiff_t(lanes);
    for (std::ptrdiff_t v = 0; v < vectors; ++v) {
        const std::ptrdiff_t at = v * std::ptrdiff_t(lanes);
        const VectorState prefix =
            row_prefix<A, Op, Reverse, 1>(Op::lift(load_vector<B>(in + at)), fill, row_position, std::size_t(n));
        B result = Op::lower(prefix);
        if constexpr (Exclusive) {
            result =
                xsimd::select(row_position >= B(Lane(1)), Op::lower(shifted<A, Reverse, 1>(prefix, fill)), identity);
        }
        store_vector(out + at, result);
    }
    return vectors * std::ptrdiff_t(lanes) / n;
}

template <class A, class T, class Op, bool Reverse>
void scan_rows(const char* in, char* out, std::ptrdiff_t n, std::ptrdiff_t rows, std::ptrdiff_t in_stride,
               std::ptrdiff_t out_stride, bool exclusive) {
    std::ptrdiff_t r = 0;
    if constexpr (is_vectorized<A, T>()) {
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(Op::template vector<T, A>::size);
        const std::ptrdiff_t row_bytes = n * std::ptrdiff_t(sizeof(T));
        if (n > 1 && n <= lanes && lanes % n == 0 && in_stride == row_bytes && out_stride == row_bytes) {
            const auto* first_in = reinterpret_cast<const T*>(in);
            auto* first_out = reinterpret_cast<T*>(out);
            r = exclusive ? scan_packed_rows<A, T, Op, Reverse, true>(first_in, first_out, n, rows)
                          : scan_packed_rows<A, T, Op, Reverse, false>(first_in, first_out, n, rows);
        }
    }
    const auto neutral = Op::template neutral<T>();
    for (; r < rows; ++r) {
        ScanState<typename Op::template state<T>> st{neutral, neutral, false, true};
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

template <class A, class T, class Op, bool Exclusive, class State = typename Op::template state<T>>
void advance_rows(const T* in, State* carry, T* out, std::ptrdiff_t w) {
    std::ptrdiff_t j = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = typename Op::template vector<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        for (; j + lanes <= w; j += lanes) {
            const B x = load_vector<B>(in + j);  // before out is written: out may equal in
            typename Op::template state<B> before;
            load_state(before, carry, w, j);
            const auto after = Op::apply(before, Op::lift(x));
            store_state(after, carry, w, j);
            store_vector(out + j, Op::lower(Exclusive ? before : after));
        }
    }
    for (; j < w; ++j) {
        const T x = in[j];
        typename Op::template state<T> before;
        load_state(before, carry, w, j);
        const auto after = Op::apply(before, Op::lift(x));
        store_state(after, carry, w, j);
        out[j] = Op::lower(Exclusive ? before : after);
    }
}

template <class T, class Op, class State = typename Op::template state<T>>
State apply_op(State a, State b) { return Op::apply(a, b); }

template <class A, class T, class Op>
void fill_typed(TypedKernels<T, typename Op::template state<T>>& k) {
    k.scan[0] = &scan_line<A, T, Op, false>;
    k.scan[1] = &scan_line<A, T, Op, true>;
    k.rebase = &rebase<A, T, Op>;
    k.rows[0] = &scan_rows<A, T, Op, false>;
    k.rows[1] = &scan_rows<A, T, Op, true>;
    if constexpr (std::is_same<typename Op::template state<T>, T>::value) {
        k.combine = &combine_rows<A, T, Op>;
    } else {
        k.combine = nullptr;
    }
    k.advance[0] = &advance_rows<A, T, Op, false>;
    k.advance[1] = &advance_rows<A, T, Op, true>;
    k.apply = &apply_op<T, Op>;
    k.neutral = Op::template neutral<T>();
    k.identity = Op::template identity<T>();
}

template <class A, class Op, class... Ts>
void fill_set(TypedKernelSet<Plain, Ts...>& set) {
    (fill_typed<A, Ts, Op>(static_cast<TypedKernels<Ts, Ts>&>(set)), ...);
}

template <class A, class... Ts>
void fill_compensated_set(TypedKernelSet<CompensatedState, Ts...>& set) {
    (fill_typed<A, Ts, CompensatedOp<Ts>>(static_cast<TypedKernels<Ts, CompensatedState<Ts>>&>(set)), ...);
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
#elif defined(__F16C__) || (defined(_MSC_VER) && defined(__AVX2__))  // MSVC: /arch:AVX2 has F16C, no macro
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
#elif defined(__F16C__) || (defined(_MSC_VER) && defined(__AVX2__))  // MSVC: /arch:AVX2 has F16C, no macro
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
    fill_compensated_set<A>(table.compensated_summation);
    table.half_to_float = &half_to_float<A>;
    table.float_to_half = &float_to_half<A>;
    return table;
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
