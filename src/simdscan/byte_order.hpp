// Byte-swapped arrays' elements reversed in a tier's registers, as staging copies them in or out.
#pragma once

#include <cstddef>
#include <cstdint>

#include <xsimd/xsimd.hpp>

#include "lanes/lanes_generic.hpp"
#include "vector_state.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

// Copies `count` units from `from` to `to` (which may be `from`), each with its bytes reversed: whole registers
// (Lanes::reversed_bytes), past the caches where `streams` (from the first register aligned at `to`, as
// stream_vector needs), and the rest one by one.
template <class A, class Unit>
void copy_byteswapped(const void* from, void* to, std::ptrdiff_t count, bool streams) {
    using batch = xsimd::batch<Unit, A>;
    constexpr std::ptrdiff_t width = batch::size;
    const auto* source = static_cast<const Unit*>(from);
    auto* target = static_cast<Unit*>(to);
    const auto one = [&](std::ptrdiff_t i) { target[i] = reversed_bytes_by_shifts<Unit>(source[i]); };
    std::ptrdiff_t i = 0;
    for (const std::ptrdiff_t head = streams ? aligning_head<batch, false>(target, count) : 0; i < head; ++i) {
        one(i);
    }
    for (; i + width <= count; i += width) {
        store_or_stream(target + i, Lanes<A>::template reversed_bytes<Unit>(batch::load_unaligned(source + i)),
                        streams);
    }
    for (; i < count; ++i) {
        one(i);
    }
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
