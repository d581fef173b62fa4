// Chooses the kernel table once: the best tier this CPU and OS support, unless select_isa forces a lower one.
#include <atomic>
#include <stdexcept>

#include <xsimd/xsimd.hpp>

// The x86-64 tiers' CPU tests (cmake/tiers.cmake) read CPUID.
#if defined(__x86_64__) || defined(_M_X64)
#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#endif

#include "dispatch.hpp"
#include "scan.hpp"
#include "tier_table.hpp"

namespace simdscan {
namespace detail {
namespace {

struct Tier {
    const char* name;
    bool (*supported)();
    KernelTable (*make)();
};

#if defined(__x86_64__) || defined(_M_X64)
// CPUID and XCR0 by hand: __builtin_cpu_supports lacks "f16c" in Clang 14 and does not exist in MSVC.
struct CpuidRegisters {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};
CpuidRegisters cpuid(unsigned leaf, unsigned subleaf) {
    CpuidRegisters r;
#if defined(_MSC_VER)
    int regs[4];
    __cpuidex(regs, static_cast<int>(leaf), static_cast<int>(subleaf));
    r = {static_cast<unsigned>(regs[0]), static_cast<unsigned>(regs[1]), static_cast<unsigned>(regs[2]),
         static_cast<unsigned>(regs[3])};
#else
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
#endif
    return r;
}
// The register state the OS saves on a context switch; reading it needs CPUID.1:ECX.OSXSAVE first.
unsigned long long os_saved_state() {
#if defined(_MSC_VER)
    return _xgetbv(0);
#else
    unsigned low = 0, high = 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));  // inline: _xgetbv needs -mxsave in GCC
    return (static_cast<unsigned long long>(high) << 32) | low;
#endif
}
bool bits(unsigned reg, unsigned mask) { return (reg & mask) == mask; }
// (Either test is unused in a build without its tier: CI's sanitizer build compiles only the tiers its CPU runs.)
[[maybe_unused]] bool has_avx2() {
    const auto leaf1 = cpuid(1, 0);
    constexpr unsigned fma = 1u << 12, osxsave = 1u << 27, avx = 1u << 28, f16c = 1u << 29;
    if (cpuid(0, 0).eax < 7 || !bits(leaf1.ecx, fma | osxsave | avx | f16c)) return false;
    constexpr unsigned xmm_ymm_state = 0x6;
    return bits(static_cast<unsigned>(os_saved_state()), xmm_ymm_state) && bits(cpuid(7, 0).ebx, 1u << 5);
}
[[maybe_unused]] bool has_avx512() {
    constexpr unsigned f = 1u << 16, dq = 1u << 17, cd = 1u << 28, bw = 1u << 30, vl = 1u << 31;
    constexpr unsigned opmask_zmm_state = 0xE6;  // with xmm/ymm: k0-k7, the upper halves of zmm0-15, zmm16-31
    return has_avx2() && bits(static_cast<unsigned>(os_saved_state()), opmask_zmm_state) &&
           bits(cpuid(7, 0).ebx, f | dq | cd | bw | vl);
}
#endif

// cmake/tiers.cmake's tiers, lowest first.
const Tier tiers[] = {SIMDSCAN_TIER_ROWS};

struct Tables {
    KernelTable table[sizeof(tiers) / sizeof(tiers[0])];
    std::size_t best = 0;
    Tables() {
        for (std::size_t i = 0; i < sizeof(tiers) / sizeof(tiers[0]); ++i) {
            if (tiers[i].supported()) {
                table[i] = tiers[i].make();
                if (i > 0) {
                    take_lowest_tier_kernels(table[i], table[0]);
                }
                best = i;
            }
        }
    }
};

const Tables& tables() {
    static const Tables instance;
    return instance;
}

std::atomic<std::size_t>& active_index() {
    static std::atomic<std::size_t> index{tables().best};
    return index;
}

// AMD's CPUs, whose prefetchers follow a falling stream (scan.hpp: falling_row_walk).
bool amd_cpu() {
#if defined(__x86_64__) || defined(_M_X64)
    const CpuidRegisters vendor = cpuid(0, 0);  // "AuthenticAMD" in ebx, edx, ecx
    return vendor.ebx == 0x68747541u && vendor.edx == 0x69746e65u && vendor.ecx == 0x444d4163u;
#else
    return false;
#endif
}

std::atomic<bool>& falling_rows_down() {
    static std::atomic<bool> down{amd_cpu()};
    return down;
}

// scan.hpp's streaming_threshold for this CPU: 3/4 of the level-3 cache that CPUID's cache topology leaf describes
// (the one a core's CCX shares) on AMD, 16 MiB on other x86 CPUs, else 8 MiB.
std::size_t measured_streaming_threshold() {
    constexpr std::size_t elsewhere = std::size_t(8) << 20;
#if defined(__x86_64__) || defined(_M_X64)
    if (!amd_cpu()) {
        return std::size_t(16) << 20;
    }
    if (cpuid(0x80000000u, 0).eax < 0x8000001Du) {
        return elsewhere;
    }
    for (unsigned subleaf = 0;; ++subleaf) {
        const CpuidRegisters cache = cpuid(0x8000001Du, subleaf);
        if ((cache.eax & 0x1Fu) == 0) {  // no more caches
            return elsewhere;
        }
        if (((cache.eax >> 5) & 0x7u) == 3) {
            const std::size_t ways = ((cache.ebx >> 22) & 0x3FFu) + 1, partitions = ((cache.ebx >> 12) & 0x3FFu) + 1;
            const std::size_t line = (cache.ebx & 0xFFFu) + 1, sets = std::size_t(cache.ecx) + 1;
            return ways * partitions * line * sets / 4 * 3;
        }
    }
#else
    return elsewhere;
#endif
}

std::atomic<std::size_t>& streaming_threshold_bytes() {
    static std::atomic<std::size_t> bytes{measured_streaming_threshold()};
    return bytes;
}

}  // namespace

const KernelTable& active_kernels() { return tables().table[active_index().load(std::memory_order_relaxed)]; }

bool walk_falling_rows_down() { return falling_rows_down().load(std::memory_order_relaxed); }

}  // namespace detail

std::size_t streaming_threshold() { return detail::streaming_threshold_bytes().load(std::memory_order_relaxed); }

void select_streaming_threshold(std::size_t bytes) { detail::streaming_threshold_bytes().store(bytes); }

std::vector<std::string> supported_isas() {
    std::vector<std::string> names;
    for (std::size_t i = 0; i <= detail::tables().best; ++i) {
        names.emplace_back(detail::tiers[i].name);
    }
    return names;
}

std::vector<std::string> compiled_isas() {
    std::vector<std::string> names;
    for (const auto& tier : detail::tiers) {
        names.emplace_back(tier.name);
    }
    return names;
}

std::string active_isa() { return detail::tiers[detail::active_index().load()].name; }

void select_isa(const std::string& name) {
    const auto names = supported_isas();
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) {
            detail::active_index().store(i);
            return;
        }
    }
    std::string message = "unknown or unsupported ISA '" + name + "'; this CPU supports:";
    for (const auto& n : names) {
        message += " " + n;
    }
    throw std::invalid_argument(message);
}

std::string falling_row_walk() { return detail::walk_falling_rows_down() ? "down" : "up"; }

void select_falling_row_walk(const std::string& name) {
    if (name != "down" && name != "up") {
        throw std::invalid_argument("unknown row walk '" + name + "'; the walks are: down up");
    }
    detail::falling_rows_down().store(name == "down");
}

}  // namespace simdscan
