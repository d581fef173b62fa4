// The avx2 tier (compiled with -mavx2 -mfma -mf16c).
#define SIMDSCAN_TIER tier_avx2
#include "kernels_impl.hpp"

namespace simdscan {
namespace detail {

KernelTable avx2_kernel_table() { return tier_avx2::make_table<xsimd::avx2>(); }

}  // namespace detail
}  // namespace simdscan
