// Byte-swapped arrays' elements reversed in a tier's registers, as staging copies them in or out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <xsimd/xsimd.hpp>

namespace simdscan::detail::SIMDSCAN_TIER {

// u with the bytes of each Unit reversed, by shifts and masks: the same code reverses one unit or a batch of them
// (SSE2, the x86-64 baseline, has no byte shuffle).
template <class Unit, class V>
V reversed_bytes(V u) {
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

// Copies `count` units from `from` to `to` (which may be `from`), each with its bytes reversed: whole registers,
// then the rest one by one.
template <class A, class Unit>
void copy_byteswapped(const void* from, void* to, std::ptrdiff_t count) {
    using batch = xsimd::batch<Unit, A>;
    constexpr std::ptrdiff_t width = batch::size;
    const auto* source = static_cast<const Unit*>(from);
    auto* target = static_cast<Unit*>(to);
    std::ptrdiff_t i = 0;
    for (; i + width <= count; i += width) {
        reversed_bytes<Unit>(batch::load_unaligned(source + i)).store_unaligned(target + i);
    }
    for (; i < count; ++i) {
        target[i] = reversed_bytes<Unit>(source[i]);
    }
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
