// Staging: moves elements between the arrays and a compute-type buffer (gathers, byte swaps, float16 casts).
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels.hpp"
#include "plan.hpp"

namespace simdscan {
namespace detail {

inline void byteswap_units(void* data, std::ptrdiff_t count, std::size_t unit) {
    auto* bytes = static_cast<unsigned char*>(data);
    for (std::ptrdiff_t i = 0; i < count; ++i, bytes += unit) {
        std::reverse(bytes, bytes + unit);
    }
}

// Swap units: complex numbers swap each component.
template <class S>
std::size_t swap_unit() {
    if constexpr (std::is_same<S, std::complex<float>>::value || std::is_same<S, std::complex<double>>::value) {
        return sizeof(S) / 2;
    } else {
        return sizeof(S);
    }
}

// Moves up to `block` elements stored as S between the arrays and a buffer of C: gathers from any byte step,
// byte-swaps, converts float16, and scatters back. Packed native runs are read in place.
template <class S, class C>
class Staging {
public:
    static constexpr std::ptrdiff_t block = std::min<std::ptrdiff_t>(1024, chunk_elements<C>());

    Staging(const Plan& plan, const KernelTable& table) : plan_(plan), table_(table), raw_(block), values_(block) {}

    C* values() { return values_.data(); }

    // Returns `count` elements from src, `step` bytes apart, in compute type; may point into the input itself.
    const C* load(const char* src, std::ptrdiff_t step, std::ptrdiff_t count) {
        const S* raw = reinterpret_cast<const S*>(src);
        if (!packed(src, step) || plan_.in_swapped) {
            if (packed(src, step)) {
                std::memcpy(raw_.data(), src, std::size_t(count) * sizeof(S));
            } else {
                for (std::ptrdiff_t i = 0; i < count; ++i) {
                    std::memcpy(&raw_[std::size_t(i)], src + i * step, sizeof(S));
                }
            }
            if (plan_.in_swapped) {
                byteswap_raw(count);
            }
            raw = raw_.data();
        }
        if constexpr (std::is_same<S, C>::value) {
            return raw;
        } else {
            table_.half_to_float(raw, values_.data(), count);
            return values_.data();
        }
    }

    // Stores `count` compute-type values to dst, `step` bytes apart.
    void store(const C* values, char* dst, std::ptrdiff_t step, std::ptrdiff_t count) {
        const bool direct = packed(dst, step) && !plan_.out_swapped;
        S* raw = direct ? reinterpret_cast<S*>(dst) : raw_.data();
        if constexpr (std::is_same<S, C>::value) {
            std::memcpy(raw, values, std::size_t(count) * sizeof(S));
        } else {
            table_.float_to_half(values, raw, count);
        }
        if (direct) {
            return;
        }
        if (plan_.out_swapped) {
            byteswap_raw(count);
        }
        if (packed(dst, step)) {
            std::memcpy(dst, raw_.data(), std::size_t(count) * sizeof(S));
        } else {
            for (std::ptrdiff_t i = 0; i < count; ++i) {
                std::memcpy(dst + i * step, &raw_[std::size_t(i)], sizeof(S));
            }
        }
    }

private:
    void byteswap_raw(std::ptrdiff_t count) {
        byteswap_units(raw_.data(), count * std::ptrdiff_t(sizeof(S) / swap_unit<S>()), swap_unit<S>());
    }

    // Whether elements `step` bytes apart from p can be read or written as one aligned array.
    static bool packed(const char* p, std::ptrdiff_t step) {
        return step == std::ptrdiff_t(sizeof(S)) && reinterpret_cast<std::uintptr_t>(p) % alignof(S) == 0;
    }

    const Plan& plan_;
    const KernelTable& table_;
    std::vector<S> raw_;     // stored-type elements: gathered, byte-swapped or converted
    std::vector<C> values_;  // compute-type values
};

}  // namespace detail
}  // namespace simdscan
