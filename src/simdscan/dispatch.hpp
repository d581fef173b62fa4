// Which kernel table is active, and which ISA tiers this build holds.
#pragma once

#include <string>
#include <vector>

#include "kernels.hpp"

namespace simdscan {
namespace detail {

// The table of the active ISA tier.
const KernelTable& active_kernels();

// Whether rows that run down through memory are walked from their end (scan.hpp: falling_row_walk).
bool walk_falling_rows_down();

}  // namespace detail

// Every ISA tier compiled into this build, lowest first, whether or not this CPU runs it.
std::vector<std::string> compiled_isas();

}  // namespace simdscan
