// The products' family of a tier: plain and NaN-skipping products.
#pragma once

#include "../tier_kernels.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

void fill_products(KernelTable& table) {
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<Product>>(table.product);
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<NaNSkippingProduct>>(table.nan_skipping_product);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
