// Byte-swapped arrays' elements reversed in a tier's registers, as staging copies them in or out.
#pragma once

#include <cstddef>
#include <cstdint>

#include <xsimd/xsimd.hpp>

#include "lanes/lanes_generic.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

// Copies `count` units from `from` to `to` (which may be `from`), each with its bytes reversed: whole registers
// (Lanes::reversed_bytes), then the rest one by one.
template <class A, class Unit>
void copy_byteswapped(const void* from, void* to, std::ptrdiff_t count) {
    using batch = xsimd::batch<Unit, A>;
    constexpr std::ptrdiff_t width = batch::size;
    const auto* source = static_cast<const Unit*>(from);
    auto* target = static_cast<Unit*>(to);
    std::ptrdiff_t i = 0;
    for (; i + width <= count; i += width) {
        Lanes<A>::template reversed_bytes<Unit>(batch::load_unaligned(source + i)).store_unaligned(target + i);
    }
    for (; i < count; ++i) {
        target[i] = reversed_bytes_by_shifts<Unit>(source[i]);
    }
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
