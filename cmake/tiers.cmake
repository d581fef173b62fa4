# The op families, each compiled in a translation unit of its own per tier (src/simdscan/families/<family>.hpp fills
# its part of the kernel table), so that the tiers build in parallel and a change to one family recompiles that family.
set(SIMDSCAN_KERNEL_FAMILIES sums products compensated extrema log_sum_exp conversions recurrences)

# The ISA tiers, lowest first: the one list that the build (each tier's translation units and their flags), dispatch
# (the generated tier table) and the tests (simdscan._core.compiled_isas()) read. A new tier takes one
# simdscan_tier() call here and its lane header src/simdscan/lanes/<LANES> (cmake/tier_build.cmake reads the fields):
#   first argument  its name (SIMDSCAN_ISA, supported_isas()) and its namespace tier_<name>
#   ARCH            the xsimd architecture its kernels are instantiated for
#   LANES           its lane header, a specialisation of Lanes<ARCH> (lanes/lanes_generic.hpp: most simply deriving
#                   from RegisterLanes and giving the lane moves on its integer register)
#   PROCESSOR       where it is compiled: a regex on CMAKE_SYSTEM_PROCESSOR
#   FLAGS           GCC and Clang flags;  MSVC_FLAGS  MSVC's (cl and clang-cl);  GCC_FLAGS  GCC's only
#   CPU_TEST        a C++ expression over dispatch.cpp's CPUID checks, true where the CPU and the OS run the tier

# The baseline tier (src/simdscan/lanes.hpp picks its lane header): the compiler's default target, no flags, always
# run; named as x86-64's lowest ISA there, elsewhere as xsimd names the target (neon64 on arm64).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  simdscan_baseline_tier(NAME "\"sse2\"")
else()
  simdscan_baseline_tier(NAME "xsimd::default_arch::name()")
endif()

simdscan_tier(avx2 ARCH xsimd::avx2 LANES lanes_avx2.hpp PROCESSOR "x86_64|AMD64|amd64"
  FLAGS -mavx2 -mfma -mf16c
  MSVC_FLAGS /arch:AVX2  # AVX2, FMA and F16C
  CPU_TEST "has_avx2()")

simdscan_tier(avx512 ARCH xsimd::avx512bw LANES lanes_avx512.hpp PROCESSOR "x86_64|AMD64|amd64"
  FLAGS -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl -mavx2 -mfma -mf16c
  MSVC_FLAGS /arch:AVX512  # AVX-512 F, CD, BW, DQ, VL
  # GCC 12 reports its own _mm512_undefined_* placeholders inside avx512fintrin.h as uninitialized.
  GCC_FLAGS -Wno-maybe-uninitialized -Wno-uninitialized
  CPU_TEST "has_avx512()")
