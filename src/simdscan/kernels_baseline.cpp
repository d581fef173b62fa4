// The baseline tier: the compiler's default target (sse2 on x86-64, neon on arm64).
#define SIMDSCAN_TIER tier_baseline
#include "kernels_impl.hpp"

namespace simdscan {
namespace detail {

KernelTable baseline_kernel_table() { return tier_baseline::make_table<xsimd::default_arch>(); }

}  // namespace detail
}  // namespace simdscan
