// The extrema's family of a tier: running maxima of keys, which are every NaN-propagating extremum (with the
// suppliers' positions; TypedKernels::order_key), and NaN-skipping maxima and minima.
#pragma once

#include "../tier_kernels.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

void fill_extrema(KernelTable& table) {
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<Maximum>>(table.extremum);
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<NaNSkippingExtremum<true>>>(table.nan_skipping_maximum);
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<NaNSkippingExtremum<false>>>(table.nan_skipping_minimum);
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<LastNumber>>(table.forward_fill);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
