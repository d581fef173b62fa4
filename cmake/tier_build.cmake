# Builds the tiers that cmake/tiers.cmake lists: for each tier, one translation unit per op family
# (src/simdscan/kernels_family.cpp.in, SIMDSCAN_KERNEL_FAMILIES) and the tier's entry point that has every family fill
# its part of the kernel table (src/simdscan/kernels_tier.cpp.in), all compiled with the tier's flags in its object
# library simdscan_tier_<tier> (listed in the global property SIMDSCAN_TIER_TARGETS, which the module and core_check
# link); then generated/tier_table.hpp, from which dispatch.cpp takes its tier table.

set(SIMDSCAN_GENERATED_DIR "${CMAKE_CURRENT_BINARY_DIR}/generated")

# Declares a tier's entry point and adds its row {name, CPU test, kernel table} to the tier table.
function(_simdscan_tier_row name_expression cpu_test entry)
  set_property(GLOBAL APPEND_STRING PROPERTY SIMDSCAN_TIER_DECLARATIONS "KernelTable ${entry}();\n")
  set_property(GLOBAL APPEND_STRING PROPERTY SIMDSCAN_TIER_ROWS
               "    {${name_expression}, [] { return ${cpu_test}; }, &${entry}}, \\\n")
endfunction()

# The translation units of tier `tier` (namespace tier_<tier>, entry point <tier>_kernel_table): xsimd architecture
# `arch`, lane header `lanes` (a path under src/), compiled with `flags`.
function(_simdscan_tier_sources tier arch lanes flags)
  set(family_declarations "")
  set(family_calls "")
  set(sources "")
  # Only the lowest tier compiles the kernels of the types no tier vectorizes (complex): the others take its own.
  if(tier STREQUAL "baseline")
    set(lowest 1)
  else()
    set(lowest 0)
  endif()
  foreach(family IN LISTS SIMDSCAN_KERNEL_FAMILIES)
    if(NOT EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/src/simdscan/families/${family}.hpp")
      message(FATAL_ERROR "simdscan: kernel family ${family}: no src/simdscan/families/${family}.hpp")
    endif()
    set(source "${SIMDSCAN_GENERATED_DIR}/kernels_${tier}_${family}.cpp")
    configure_file(src/simdscan/kernels_family.cpp.in "${source}" @ONLY)
    list(APPEND sources "${source}")
    string(APPEND family_declarations "void fill_${family}(KernelTable& table);\n")
    string(APPEND family_calls "    tier_${tier}::fill_${family}(table);\n")
  endforeach()
  set(source "${SIMDSCAN_GENERATED_DIR}/kernels_${tier}.cpp")
  configure_file(src/simdscan/kernels_tier.cpp.in "${source}" @ONLY)
  list(APPEND sources "${source}")
  # Each tier its object library: its flags and definitions, and the headers every family includes (xsimd, the lane
  # header, the kernels) precompiled once for its families: parsed, they took most of a second of each unit.
  set(target simdscan_tier_${tier})
  add_library(${target} OBJECT ${sources})
  target_link_libraries(${target} PRIVATE xsimd)
  target_include_directories(${target} PRIVATE src "${SIMDSCAN_GENERATED_DIR}")
  target_compile_options(${target} PRIVATE ${SIMDSCAN_WARNINGS} ${SIMDSCAN_FP_FLAGS} ${flags})
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT SIMDSCAN_SANITIZE AND NOT WIN32)
    # The kernels neither throw nor call what does: no unwind tables for them (142 KB of the module's .eh_frame), as
    # no exception passes through their frames; kept for the sanitizers' reports, and on Windows x64, whose every
    # non-leaf frame is unwound by its tables.
    target_compile_options(${target} PRIVATE -fno-exceptions -fno-asynchronous-unwind-tables)
  endif()
  target_compile_definitions(${target} PRIVATE SIMDSCAN_TIER=tier_${tier} SIMDSCAN_TIER_ARCH=${arch}
                                               SIMDSCAN_TIER_LOWEST=${lowest})
  target_precompile_headers(${target} PRIVATE <xsimd/xsimd.hpp>
                                            "${CMAKE_CURRENT_SOURCE_DIR}/src/simdscan/${lanes}"
                                            "${CMAKE_CURRENT_SOURCE_DIR}/src/simdscan/tier_kernels.hpp")
  set_property(GLOBAL APPEND PROPERTY SIMDSCAN_TIER_TARGETS ${target})
endfunction()

# The baseline tier: the compiler's default target (src/simdscan/lanes.hpp picks its lane header), no flags, always
# run; NAME is a C++ expression of its name.
function(simdscan_baseline_tier)
  cmake_parse_arguments(PARSE_ARGV 0 base "" "NAME" "")
  _simdscan_tier_sources(baseline xsimd::default_arch lanes.hpp "")
  _simdscan_tier_row("${base_NAME}" true baseline_kernel_table)
endfunction()

function(simdscan_tier tier)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "ARCH;LANES;PROCESSOR;CPU_TEST" "FLAGS;MSVC_FLAGS;GCC_FLAGS")
  if(NOT EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/src/simdscan/lanes/${arg_LANES}")
    message(FATAL_ERROR "simdscan: tier ${tier}: no lane header src/simdscan/lanes/${arg_LANES}")
  endif()
  if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "${arg_PROCESSOR}")
    return()
  endif()
  if(NOT SIMDSCAN_TIERS STREQUAL "all" AND NOT tier IN_LIST SIMDSCAN_TIERS)
    message(STATUS "simdscan: tier ${tier} left out (SIMDSCAN_TIERS=${SIMDSCAN_TIERS})")
    return()
  endif()
  if(MSVC)
    set(flags ${arg_MSVC_FLAGS})
  else()
    set(flags ${arg_FLAGS})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      list(APPEND flags ${arg_GCC_FLAGS})
    endif()
  endif()
  _simdscan_tier_sources(${tier} "${arg_ARCH}" "lanes/${arg_LANES}" "${flags}")
  _simdscan_tier_row("\"${tier}\"" "${arg_CPU_TEST}" ${tier}_kernel_table)
endfunction()

# After the list: the tier table.
function(simdscan_write_tier_table)
  get_property(declarations GLOBAL PROPERTY SIMDSCAN_TIER_DECLARATIONS)
  get_property(rows GLOBAL PROPERTY SIMDSCAN_TIER_ROWS)
  file(CONFIGURE OUTPUT "${SIMDSCAN_GENERATED_DIR}/tier_table.hpp" @ONLY CONTENT
"// Generated by cmake/tier_build.cmake from cmake/tiers.cmake: the ISA tiers of this build, lowest first.
#pragma once

#include \"simdscan/kernels.hpp\"

namespace simdscan {
namespace detail {

@declarations@
}  // namespace detail
}  // namespace simdscan

// The rows of dispatch.cpp's tier table: {name, CPU test, kernel table}.
#define SIMDSCAN_TIER_ROWS \\
@rows@
")
  target_include_directories(simdscan_core PRIVATE "${SIMDSCAN_GENERATED_DIR}")
endfunction()
