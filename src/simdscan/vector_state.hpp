// Vector states: loads and stores of elements into vectors (widening where wider), and the lane moves, selections
// and carry-buffer accesses of states, a compensated one moving its sum and error alike.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "kernels.hpp"
#include "lanes/lanes_generic.hpp"

#if defined(__GNUC__)
#define SIMDSCAN_ALWAYS_INLINE [[gnu::always_inline]] inline
#elif defined(_MSC_VER)
#define SIMDSCAN_ALWAYS_INLINE __forceinline
#else
#define SIMDSCAN_ALWAYS_INLINE inline
#endif

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// Asks for the cache line holding `at`, to be read or (ForWriting) written (a hint: any address may be given).
template <bool ForWriting = false>
inline void prefetch(const void* at) {
#if defined(__GNUC__)
    __builtin_prefetch(at, ForWriting ? 1 : 0);
#else
    (void)at;
#endif
}

// The carry chain keeps few loads in flight out of cache; asking for data 2 KiB ahead keeps the memory busy.
template <bool Reverse, class T>
inline void prefetch_ahead(const T* at) {
    prefetch(reinterpret_cast<const char*>(at) + (Reverse ? -2048 : 2048));
}

// Vector loads and stores of elements: converting ones where the vector is wider than the element.
template <class B, class T>
B load_vector(const T* p) {
    if constexpr (std::is_same<typename B::value_type, T>::value) {
        return B::load_unaligned(p);
    } else {
        return Lanes<typename B::arch_type>::load_widened(p);
    }
}
template <class B, class T>
void store_vector(T* p, const B& x) {
    if constexpr (std::is_same<typename B::value_type, T>::value) {
        x.store_unaligned(p);
    } else {
        Lanes<typename B::arch_type>::store_narrowed(p, x);
    }
}
// Whether vectors B of elements T go past the caches where asked (stream_vector): where the ISA streams, vectors
// narrowed as stored (float32 sums in double lanes) where it streams those too.
template <class B, class T>
constexpr bool streams_vectors() {
    using L = Lanes<typename B::arch_type>;
    return std::is_same<typename B::value_type, T>::value ? L::streams : L::streams_narrowed;
}
// store_vector past the caches (Lanes' store_streaming or store_narrowed_streaming), at p aligned to the elements'
// bytes (aligning_head), where streams_vectors.
template <class B, class T>
void stream_vector(T* p, const B& x) {
    if constexpr (!streams_vectors<B, T>()) {
        store_vector(p, x);
    } else if constexpr (std::is_same<typename B::value_type, T>::value) {
        Lanes<typename B::arch_type>::store_streaming(p, x);
    } else {
        Lanes<typename B::arch_type>::store_narrowed_streaming(p, x);
    }
}
// store_vector, or stream_vector where `streams`.
template <class B, class T>
void store_or_stream(T* p, const B& x, bool streams) {
    if (streams) {
        stream_vector(p, x);
    } else {
        store_vector(p, x);
    }
}
// How many of n elements at out, in scan order (from the end where Reverse), come before the first vector of B aligned
// to its bytes (as stream_vector needs, and as stores that split no cache line are): all n where out is not aligned
// to its element.
template <class B, bool Reverse, class T>
std::ptrdiff_t aligning_head(const T* out, std::ptrdiff_t n) {
    constexpr std::uintptr_t bytes = B::size * sizeof(T);
    const auto address = reinterpret_cast<std::uintptr_t>(Reverse ? out + n : out);
    if (address % sizeof(T) != 0) {
        return n;
    }
    const std::uintptr_t before = Reverse ? address % bytes : (bytes - address % bytes) % bytes;
    return std::min(n, std::ptrdiff_t(before / sizeof(T)));
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

// Lane moves and selections on vector states: a compensated state moves its sum and error alike. (Inlined: GCC left
// the compensated one out of line once the scan loops took their modes at run time.)
template <class A, bool Reverse, std::size_t K, class T>
SIMDSCAN_ALWAYS_INLINE xsimd::batch<T, A> shifted(const xsimd::batch<T, A>& x, const xsimd::batch<T, A>& fill) {
    return Reverse ? Lanes<A>::template down<K>(x, fill) : Lanes<A>::template up<K>(x, fill);
}
template <class A, bool Reverse, std::size_t K, class B>
SIMDSCAN_ALWAYS_INLINE Compensated<B> shifted(const Compensated<B>& x, const Compensated<B>& fill) {
    return {shifted<A, Reverse, K>(x.sum, fill.sum), shifted<A, Reverse, K>(x.error, fill.error)};
}

// Inlined into its caller, a compensated state's sum and error kept in registers: GCC left the compensated
// float64 prefix out of line in the chunked (rebasing) scan, its states passed through memory (benchmarks/README.md).
template <class A, class Op, bool Reverse, std::size_t K, std::size_t LaneCount, class V>
SIMDSCAN_ALWAYS_INLINE V vector_prefix(const V& x, const V& fill) {
    // log2(lanes) steps of "add the lanes K places behind": an inclusive scan inside the register. The earlier lanes
    // are the first operand, as the running value is everywhere (an extremum's tie takes the later element).
    if constexpr (K < LaneCount) {
        return vector_prefix<A, Op, Reverse, 2 * K, LaneCount>(Op::apply(shifted<A, Reverse, K>(x, fill), x), fill);
    } else {
        return x;
    }
}

// The lane holding the total (last in scan order) broadcast to all lanes.
template <class A, bool Reverse, class T>
xsimd::batch<T, A> broadcast_total(const xsimd::batch<T, A>& x) {
    return Reverse ? Lanes<A>::broadcast_first(x) : Lanes<A>::broadcast_last(x);
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

// A scalar state in every lane, and lane 0 (or the last) of a vector state.
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
template <class T, class A>
T last_lane(const xsimd::batch<T, A>& x) {
    alignas(A::alignment()) T lanes[xsimd::batch<T, A>::size];
    x.store_aligned(lanes);
    return lanes[xsimd::batch<T, A>::size - 1];
}

// A carry buffer's states, as StepwiseKernels::advance lays them out: w states, or for Compensated ones w sums then w
// errors, for ShiftedSum ones w shifts, w sums, w errors. V is the state type or its vector.
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
template <class V, class C>
void load_state(ShiftedSum<V>& state, const ShiftedSum<C>* carry, std::ptrdiff_t w, std::ptrdiff_t j) {
    const C* shifts = reinterpret_cast<const C*>(carry);
    load_state(state.shift, shifts, w, j);
    load_state(state.sum, shifts + w, w, j);
    load_state(state.error, shifts + 2 * w, w, j);
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
template <class V, class C>
void store_state(const ShiftedSum<V>& state, ShiftedSum<C>* carry, std::ptrdiff_t w, std::ptrdiff_t j) {
    C* shifts = reinterpret_cast<C*>(carry);
    store_state(state.shift, shifts, w, j);
    store_state(state.sum, shifts + w, w, j);
    store_state(state.error, shifts + 2 * w, w, j);
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
