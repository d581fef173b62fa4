// Lanes<A>, every architecture's fallback: lane moves, uint8 and float32 widening and float16 conversion through memory
// (correct, slower). An ISA's header lanes_<isa>.hpp specialises Lanes<A> with its own instructions, most simply by
// deriving from RegisterLanes (below) and giving the moves on its integer register.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "../float16.hpp"

// Everything compiled with a tier's flags lives in that tier's namespace: an inline function emitted by two tiers'
// files under one name would let the linker keep the AVX-512 copy for every tier.
namespace simdscan::detail::SIMDSCAN_TIER {

// u with the bytes of each Unit reversed, by shifts and masks: the same code reverses one unit or a batch of them.
template <class Unit, class V>
V reversed_bytes_by_shifts(V u) {
    const auto swap_halves = [](V v, int bits, Unit low_mask) {
        const V low(low_mask);
        return V((V(v >> bits) & low) | V(V(v & low) << bits));
    };
    if constexpr (sizeof(Unit) == 8) {
        u = swap_halves(u, 32, Unit(0x00000000FFFFFFFFull));
        u = swap_halves(u, 16, Unit(0x0000FFFF0000FFFFull));
        return swap_halves(u, 8, Unit(0x00FF00FF00FF00FFull));
    } else if constexpr (sizeof(Unit) == 4) {
        u = swap_halves(u, 16, Unit(0x0000FFFFu));
        return swap_halves(u, 8, Unit(0x00FF00FFu));
    } else {
        static_assert(sizeof(Unit) == 2, "units of 2, 4 or 8 bytes");
        return swap_halves(u, 8, Unit(0x00FFu));
    }
}

template <class A>
struct GenericLanes {
    template <class T>
    using batch = xsimd::batch<T, A>;

    // x's lanes moved K places up (towards the last lane) or down, fill's lanes entering the places left (every
    // caller's fill holds one value in all lanes, the op's neutral element).
    template <std::size_t K, class T>
    static batch<T> up(batch<T> x, batch<T> fill) { return window(fill, x, batch<T>::size - K); }
    template <std::size_t K, class T>
    static batch<T> down(batch<T> x, batch<T> fill) { return window(x, fill, K); }
    // The lanes from `first` on of low's lanes followed by high's.
    template <class T>
    static batch<T> window(batch<T> low, batch<T> high, std::size_t first) {
        alignas(A::alignment()) T buf[2 * batch<T>::size];
        low.store_aligned(buf);
        high.store_aligned(buf + batch<T>::size);
        return batch<T>::load_unaligned(buf + first);
    }
    template <class T>
    static batch<T> broadcast_last(batch<T> x) {
        constexpr std::size_t n = batch<T>::size;
        alignas(A::alignment()) T buf[n];
        x.store_aligned(buf);
        return batch<T>(buf[n - 1]);
    }
    template <class T>
    static batch<T> broadcast_first(batch<T> x) {
        alignas(A::alignment()) T buf[batch<T>::size];
        x.store_aligned(buf);
        return batch<T>(buf[0]);
    }

    // a + b and a - b where additions crowd the add pipes (a sum's carry from one vector to the next, TwoSum): ISAs
    // with FMA run them on the multiply pipes (FusedLanes), leaving the add pipes, which Zen 4 shares with lane moves,
    // to the rest (faster in cache there: benchmarks/README.md).
    template <class T>
    static batch<T> add_beside(const batch<T>& a, const batch<T>& b) { return a + b; }
    template <class T>
    static batch<T> subtract_beside(const batch<T>& a, const batch<T>& b) { return a - b; }

    // x * y + z, fused where the ISA has the instruction (one rounding, not two): -ffp-contract=off keeps the
    // compiler from fusing on its own, and xsimd 8.1's fma on AVX-512 multiplies and adds.
    template <class T>
    static batch<T> multiply_add(const batch<T>& x, const batch<T>& y, const batch<T>& z) {
        return x * y + z;
    }

    // rows[j]'s lane k moved to rows[k]'s lane j: the square of float64 lanes turned about its diagonal.
    static void transpose(batch<double> (&rows)[batch<double>::size]) {
        constexpr std::size_t n = batch<double>::size;
        alignas(A::alignment()) double square[n * n];
        for (std::size_t j = 0; j < n; ++j) {
            rows[j].store_aligned(square + j * n);
        }
        for (std::size_t k = 0; k < n; ++k) {
            alignas(A::alignment()) double column[n];
            for (std::size_t j = 0; j < n; ++j) {
                column[j] = square[j * n + k];
            }
            rows[k] = batch<double>::load_aligned(column);
        }
    }

    // float32 elements widened into a float64 register (as many as it has lanes), and narrowed back (rounding to
    // nearest): xsimd 8.1 has no converting load for these.
    static batch<double> load_widened(const float* p) {
        alignas(A::alignment()) double wide[batch<double>::size];
        for (std::size_t i = 0; i < batch<double>::size; ++i) {
            wide[i] = p[i];
        }
        return batch<double>::load_aligned(wide);
    }
    static void store_narrowed(float* p, const batch<double>& x) {
        alignas(A::alignment()) double wide[batch<double>::size];
        x.store_aligned(wide);
        for (std::size_t i = 0; i < batch<double>::size; ++i) {
            p[i] = float(wide[i]);
        }
    }

    // A register of int32 lanes from as many uint8 values, and an int32 register's lanes as float64 ones (its first
    // half, then its second): a summed-area table of uint8 values scans its rows in int32 lanes
    // (two_axes_kernels.hpp's byte_sums), twice the lanes of float64 ones.
    static batch<std::int32_t> load_bytes(const std::uint8_t* p) {
        alignas(A::alignment()) std::int32_t lanes[batch<std::int32_t>::size];
        for (std::size_t i = 0; i < batch<std::int32_t>::size; ++i) {
            lanes[i] = p[i];
        }
        return batch<std::int32_t>::load_aligned(lanes);
    }
    static void to_doubles(const batch<std::int32_t>& x, batch<double>& first, batch<double>& second) {
        static_assert(batch<std::int32_t>::size == 2 * batch<double>::size, "an int32 register holds two of doubles");
        alignas(A::alignment()) std::int32_t lanes[batch<std::int32_t>::size];
        x.store_aligned(lanes);
        alignas(A::alignment()) double values[batch<std::int32_t>::size];
        for (std::size_t i = 0; i < batch<std::int32_t>::size; ++i) {
            values[i] = lanes[i];
        }
        first = batch<double>::load_aligned(values);
        second = batch<double>::load_aligned(values + batch<double>::size);
    }

    // Where table_bits<F>() is not 0, look_up(table, index) gives table[index's low table_bits bits] in every lane,
    // from a table of 2^table_bits F held in registers, by one permute: exp_log.hpp's polynomials are shorter after
    // one. Elsewhere a lookup would cost more than it saves.
    template <class F>
    static constexpr int table_bits() { return 0; }
    // x with the bytes of each Unit (2, 4 or 8 bytes) reversed: by shifts and masks where the ISA has no byte shuffle
    // (SSE2, the x86-64 baseline).
    template <class Unit>
    static batch<Unit> reversed_bytes(const batch<Unit>& x) { return reversed_bytes_by_shifts<Unit>(x); }
    // Where converts_integers<F>(), to_float converts signed integers as wide as F in one instruction: int32 on every
    // ISA, int64 where an ISA's header adds it (xsimd 8 converts int64 lane by lane even with AVX-512DQ). Elsewhere
    // exp_log.hpp reads small integers through a float's mantissa bits.
    template <class F>
    static constexpr bool converts_integers() { return sizeof(F) == 4; }
    static batch<float> to_float(const batch<std::int32_t>& x) { return xsimd::to_float(x); }

    // Stores past the caches (non-temporal), for outputs too large to stay in them: stream_vector uses the ISA's
    // store_streaming (x at p, aligned to x's bytes) where `streams`, and the plain stores elsewhere;
    // finish_streaming drains them (a job's are ordered once at its end: parallel.hpp's order_streamed_stores).
    static constexpr bool streams = false;
    static void finish_streaming() {}
    // An ISA with sums_bytes gives byte_sums<Reverse>(p, first, second): the running sums in scan order (Reverse:
    // from the last) of the 2 x int32-lanes uint8 values at p, first's lanes those of the first half. Elsewhere
    // two_axes_kernels.hpp's byte_sums scans load_bytes' registers.
    static constexpr bool sums_bytes = false;
    // An ISA with streams_narrowed also streams float64 lanes narrowed to float32 (store_narrowed_streaming, p
    // aligned to the float32 values' bytes).
    static constexpr bool streams_narrowed = false;
    // An ISA that streams also gives the lanes of [low | high] from dword `first` on, `first` known at run time
    // (elements of 4 or 8 bytes): dword_window(low, high, dword_window_at(first)), DwordWindow its type.

    // A float32 register's worth of float16 values (their bits) converted as they are loaded, and back as stored.
    static batch<float> load_halves(const std::uint16_t* p) {
        alignas(A::alignment()) float values[batch<float>::size];
        half_to_float(p, values, std::ptrdiff_t(batch<float>::size));
        return batch<float>::load_aligned(values);
    }
    static void store_halves(std::uint16_t* p, const batch<float>& x) {
        alignas(A::alignment()) float values[batch<float>::size];
        x.store_aligned(values);
        float_to_half(values, p, std::ptrdiff_t(batch<float>::size));
    }
    // The same for a float64 register's worth (a widened sum's), narrowed through float32 as a staged line's
    // narrowing store and conversion round it.
    static batch<double> load_halves_widened(const std::uint16_t* p) {
        float values[batch<double>::size];
        half_to_float(p, values, std::ptrdiff_t(batch<double>::size));
        return load_widened(values);
    }
    static void store_halves_narrowed(std::uint16_t* p, const batch<double>& x) {
        float values[batch<double>::size];
        store_narrowed(values, x);
        float_to_half(values, p, std::ptrdiff_t(batch<double>::size));
    }

    // n float16 values (their bits) to float32 and back, one at a time.
    static void half_to_float(const std::uint16_t* in, float* out, std::ptrdiff_t n) {
        for (std::ptrdiff_t i = 0; i < n; ++i) {
            out[i] = half_bits_to_float(in[i]);
        }
    }
    static void float_to_half(const float* in, std::uint16_t* out, std::ptrdiff_t n) {
        for (std::ptrdiff_t i = 0; i < n; ++i) {
            out[i] = float_to_half_bits(in[i]);
        }
    }
};

// An ISA's header specialises this.
template <class A>
struct Lanes : GenericLanes<A> {};

// The byte shuffle's control that reverses each unit of UnitBytes in a register of Bytes.
template <std::size_t UnitBytes, std::size_t Bytes>
constexpr std::array<std::uint8_t, Bytes> byte_reversal() {
    std::array<std::uint8_t, Bytes> order{};
    for (std::size_t i = 0; i < Bytes; ++i) {
        order[i] = std::uint8_t(i / UnitBytes * UnitBytes + UnitBytes - 1 - i % UnitBytes);
    }
    return order;
}

// x's bits as a batch of U. xsimd's kernel-level cast: the public bitwise_cast is spelt differently in xsimd 8 and 14.
template <class U, class T, class A>
xsimd::batch<U, A> bits_as(const xsimd::batch<T, A>& x) {
    return xsimd::kernel::bitwise_cast<A>(x, xsimd::batch<U, A>{}, A{});
}

// Applies an operation on the byte register (a batch<uint8_t>'s) to batches of any element type, bit for bit.
template <class T, class A, class F, class... More>
xsimd::batch<T, A> on_bits(F&& f, const xsimd::batch<T, A>& x, const More&... more) {
    using bytes = xsimd::batch<std::uint8_t, A>;
    return bits_as<T>(bytes(f(bits_as<std::uint8_t>(x).data, bits_as<std::uint8_t>(more).data...)));
}

// Lanes<A> for an ISA that moves lanes within one integer register. Moves (the ISA's Lanes<A>, which derives from
// this) gives the moves on that register, templates on the element or move size in bytes:
//   move_up<Bytes>(a, fill), move_down<Bytes>(a, fill)  a's bytes moved up (down) by Bytes, fill's entering;
//   splat_last<Size>(a), splat_first<Size>(a)           a's last (first) element of Size bytes in every lane.
// Here they become GenericLanes' moves on batches of every element type.
template <class A, class Moves>
struct RegisterLanes : GenericLanes<A> {
    template <class T>
    using batch = xsimd::batch<T, A>;

    template <std::size_t K, class T>
    static batch<T> up(batch<T> x, batch<T> fill) {
        return on_bits([](auto a, auto f) { return Moves::template move_up<int(K * sizeof(T))>(a, f); },
                              x, fill);
    }
    template <std::size_t K, class T>
    static batch<T> down(batch<T> x, batch<T> fill) {
        return on_bits([](auto a, auto f) { return Moves::template move_down<int(K * sizeof(T))>(a, f); },
                              x, fill);
    }
    template <class T>
    static batch<T> broadcast_last(batch<T> x) {
        return on_bits([](auto a) { return Moves::template splat_last<sizeof(T)>(a); }, x);
    }
    template <class T>
    static batch<T> broadcast_first(batch<T> x) {
        return on_bits([](auto a) { return Moves::template splat_first<sizeof(T)>(a); }, x);
    }
};

// RegisterLanes for an ISA that converts a float32 register's worth of float16 values at once (x86's F16C and
// AVX-512F): Moves gives load_halves and store_halves in its instructions.
template <class A, class Moves>
struct HalfBlockLanes : RegisterLanes<A, Moves> {
    // Whole registers, the rest one by one.
    static void half_to_float(const std::uint16_t* in, float* out, std::ptrdiff_t n) {
        constexpr std::ptrdiff_t width = xsimd::batch<float, A>::size;
        std::ptrdiff_t i = 0;
        for (; i + width <= n; i += width) {
            Moves::load_halves(in + i).store_unaligned(out + i);
        }
        GenericLanes<A>::half_to_float(in + i, out + i, n - i);
    }
    static void float_to_half(const float* in, std::uint16_t* out, std::ptrdiff_t n) {
        constexpr std::ptrdiff_t width = xsimd::batch<float, A>::size;
        std::ptrdiff_t i = 0;
        for (; i + width <= n; i += width) {
            Moves::store_halves(out + i, xsimd::batch<float, A>::load_unaligned(in + i));
        }
        GenericLanes<A>::float_to_half(in + i, out + i, n - i);
    }
};

// HalfBlockLanes for an ISA with fused multiply-add (x86's FMA3, AVX-512F): Moves gives multiply_add for float and
// double batches, and add_beside and subtract_beside take the multiply pipes, as one rounding of a * 1 + b and of
// b * -1 + a is that of a + b and a - b.
template <class A, class Moves>
struct FusedLanes : HalfBlockLanes<A, Moves> {
    template <class T>
    using batch = xsimd::batch<T, A>;

    template <class T>
    static batch<T> add_beside(const batch<T>& a, const batch<T>& b) {
        if constexpr (std::is_floating_point<T>::value) {
            return Moves::multiply_add(a, batch<T>(T(1)), b);
        } else {
            return a + b;
        }
    }
    template <class T>
    static batch<T> subtract_beside(const batch<T>& a, const batch<T>& b) {
        if constexpr (std::is_floating_point<T>::value) {
            return Moves::multiply_add(b, batch<T>(T(-1)), a);
        } else {
            return a - b;
        }
    }
};

}  // namespace simdscan::detail::SIMDSCAN_TIER
