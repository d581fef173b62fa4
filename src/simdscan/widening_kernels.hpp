// Exact widenings (scan.hpp's widens_exactly): an input read as its result's wider type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "element_types.hpp"
#include "kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

static_assert(std::size_t(DataType::boolean) + 1 == data_type_count, "KernelTable::widen spans every DataType");

// n elements of value type F, `in_step` bytes apart, converted to T (a type that holds every F exactly) and stored
// `out_step` bytes apart.
template <class F, class T>
void widen_elements(const char* in, std::ptrdiff_t in_step, char* out, std::ptrdiff_t out_step, std::ptrdiff_t n) {
    using Read = typename std::conditional<std::is_same<F, bool>::value, std::uint8_t, F>::type;
    // A bool's byte may hold any nonzero value (a view of other bytes): NumPy converts each of those to 1.
    const auto value = [](Read x) { return std::is_same<F, bool>::value ? T(x != 0) : T(x); };
    const bool packed = in_step == std::ptrdiff_t(sizeof(Read)) && out_step == std::ptrdiff_t(sizeof(T)) &&
                        reinterpret_cast<std::uintptr_t>(in) % alignof(Read) == 0 &&
                        reinterpret_cast<std::uintptr_t>(out) % alignof(T) == 0;
    if (packed) {
        const Read* from = reinterpret_cast<const Read*>(in);
        T* to = reinterpret_cast<T*>(out);
        // The one loop the compiler vectorises (-fopenmp-simd, CMakeLists.txt): a conversion has no rounding to
        // keep the same across tiers.
#pragma omp simd
        for (std::ptrdiff_t i = 0; i < n; ++i) {
            to[i] = value(from[i]);
        }
        return;
    }
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        Read x;
        std::memcpy(&x, in + i * in_step, sizeof x);
        const T y = value(x);
        std::memcpy(out + i * out_step, &y, sizeof y);
    }
}

// KernelTable::widen: a converter for every pair of data types that widens exactly, null for the others.
inline void fill_widenings(KernelTable& table) {
    for (std::size_t from = 0; from < data_type_count; ++from) {
        for (std::size_t to = 0; to < data_type_count; ++to) {
            visit_element_types(DataType(from), [&](auto from_types) {
                visit_element_types(DataType(to), [&](auto to_types) {
                    using From = decltype(from_types);
                    using To = decltype(to_types);
                    if constexpr (widens_exactly<From, To>()) {
                        table.widen[from][to] = &widen_elements<typename From::Value, typename To::Value>;
                    } else {
                        table.widen[from][to] = nullptr;
                    }
                });
            });
        }
    }
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
