// A tier's conversions, shared by every op: float16 to and from float32, exact widenings, byte-order reversal.
#pragma once

#include "../tier_kernels.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

void fill_conversions(KernelTable& table) {
    using A = SIMDSCAN_TIER_ARCH;
    table.half_to_float = &Lanes<A>::half_to_float;
    table.float_to_half = &Lanes<A>::float_to_half;
    table.copy_byteswapped[0] = &copy_byteswapped<A, std::uint16_t>;
    table.copy_byteswapped[1] = &copy_byteswapped<A, std::uint32_t>;
    table.copy_byteswapped[2] = &copy_byteswapped<A, std::uint64_t>;
    fill_widenings(table);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
