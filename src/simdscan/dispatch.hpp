#pragma once

#include "kernels.hpp"

namespace simdscan {
namespace detail {

// The table of the active ISA tier.
const KernelTable& active_kernels();

}  // namespace detail
}  // namespace simdscan
