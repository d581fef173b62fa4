// The log-sum-exp family of a tier: running logs of sums of exponentials, in double precision.
#pragma once

#include "../tier_kernels.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

void fill_log_sum_exp(KernelTable& table) {
    fill_set<SIMDSCAN_TIER_ARCH, Fixed<LogAddExp>>(table.log_sum_exp);
}

}  // namespace simdscan::detail::SIMDSCAN_TIER
