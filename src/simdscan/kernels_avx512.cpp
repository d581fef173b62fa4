// The avx512 tier (compiled with -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl).
#define SIMDSCAN_TIER tier_avx512
#include "kernels_impl.hpp"

namespace simdscan {
namespace detail {

KernelTable avx512_kernel_table() { return tier_avx512::make_table<xsimd::avx512bw>(); }

}  // namespace detail
}  // namespace simdscan
