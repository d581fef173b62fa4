// The baseline tier: the compiler's default target (sse2 on x86-64, neon on arm64), with no extra flags.
#define SIMDSCAN_TIER tier_baseline
#define SIMDSCAN_TIER_ARCH xsimd::default_arch
#define SIMDSCAN_TIER_TABLE baseline_kernel_table
#include "lanes.hpp"
#include "tier_kernels.hpp"
