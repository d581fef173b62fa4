// The sums' family of a tier: plain and NaN-skipping summation (summed-area tables' rows among them).
#pragma once

#include "../tier_kernels.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

void fill_sums(KernelTable& table) {
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<Summation>>(table.summation);
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<NaNSkippingSummation<Summation>>>(table.nan_skipping_summation);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
