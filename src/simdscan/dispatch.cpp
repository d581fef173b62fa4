// Chooses the kernel table once: the best tier this CPU and OS support, unless select_isa forces a lower one.
#include <atomic>
#include <stdexcept>

#include <xsimd/xsimd.hpp>

#include "dispatch.hpp"
#include "scan.hpp"

namespace simdscan {
namespace detail {
namespace {

struct Tier {
    const char* name;
    bool (*supported)();
    KernelTable (*make)();
};

#if defined(SIMDSCAN_HAVE_X86_TIERS)
// __builtin_cpu_supports also checks that the OS saves the wider registers (XCR0).
bool has_avx2() {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}
bool has_avx512() {
    return has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}
bool always() { return true; }
const Tier tiers[] = {
    {"sse2", &always, &baseline_kernel_table},
    {"avx2", &has_avx2, &avx2_kernel_table},
    {"avx512", &has_avx512, &avx512_kernel_table},
};
#else
bool always() { return true; }
// One tier: the compiler's default target, named as xsimd names it (neon64 on arm64).
const Tier tiers[] = {{xsimd::default_arch::name(), &always, &baseline_kernel_table}};
#endif

struct Tables {
    KernelTable table[sizeof(tiers) / sizeof(tiers[0])];
    std::size_t best = 0;
    Tables() {
        for (std::size_t i = 0; i < sizeof(tiers) / sizeof(tiers[0]); ++i) {
            if (tiers[i].supported()) {
                table[i] = tiers[i].make();
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

}  // namespace

const KernelTable& active_kernels() { return tables().table[active_index().load(std::memory_order_relaxed)]; }

}  // namespace detail

std::vector<std::string> supported_isas() {
    std::vector<std::string> names;
    for (std::size_t i = 0; i <= detail::tables().best; ++i) {
        names.emplace_back(detail::tiers[i].name);
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

}  // namespace simdscan
