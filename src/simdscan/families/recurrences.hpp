// The linear recurrence's family of a tier (recurrence_kernels.hpp).
#pragma once

#include "../recurrence_kernels.hpp"

namespace simdscan::detail::SIMDSCAN_TIER {

void fill_recurrences(KernelTable& table) { fill_recurrences<SIMDSCAN_TIER_ARCH>(table.recurrence); }

}  // namespace simdscan::detail::SIMDSCAN_TIER
