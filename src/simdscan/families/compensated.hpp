// The compensated sums' family of a tier: Neumaier's sums (float64, complex128) and double-precision ones (float32,
// complex64), plain and NaN-skipping.
#pragma once

#include "../tier_kernels.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

void fill_compensated(KernelTable& table) {
    fill_set<SIMDSCAN_TIER_ARCH, CompensatedOps>(table.compensated_summation);
    fill_set<SIMDSCAN_TIER_ARCH, NaNSkippingCompensatedOps>(table.nan_skipping_compensated_summation);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
