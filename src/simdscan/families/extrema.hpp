// The extrema's family of a tier: running maxima and minima, NaN-propagating (with the suppliers' positions) and
// NaN-skipping.
#pragma once

#include "../tier_kernels.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

void fill_extrema(KernelTable& table) {
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<Maximum>>(table.maximum);
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<Minimum>>(table.minimum);
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<NaNSkippingExtremum<true>>>(table.nan_skipping_maximum);
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<NaNSkippingExtremum<false>>>(table.nan_skipping_minimum);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
