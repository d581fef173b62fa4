// A line of float16 elements scanned in float32 registers (float64 for a compensated sum), each vector converted as it
// is loaded and as it is stored: the bits of staging's convert, scan and convert back, without two passes through its
// buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "float16.hpp"
#include "kernels.hpp"
#include "scan_kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

template <class A>
struct HalfElements {
    static constexpr bool prefetches = true;  // as ArrayElements
    const std::uint16_t* in;

    // float32 lanes, or a widened sum's float64 ones.
    template <class B>
    B vector(std::ptrdiff_t at) const {
        if constexpr (std::is_same<typename B::value_type, float>::value) {
            return Lanes<A>::load_halves(in + at);
        } else {
            return Lanes<A>::load_halves_widened(in + at);
        }
    }
    float one(std::ptrdiff_t at) const { return half_bits_to_float(in[at]); }
    const std::uint16_t* address(std::ptrdiff_t at) const { return in + at; }
};
template <class A>
struct HalfOutputs {
    using value_type = float;  // what one() takes
    std::uint16_t* out;

    template <class B>
    void vector(std::ptrdiff_t at, const B& values) const {
        if constexpr (std::is_same<typename B::value_type, float>::value) {
            Lanes<A>::store_halves(out + at, values);
        } else {
            Lanes<A>::store_halves_narrowed(out + at, values);
        }
    }
    void one(std::ptrdiff_t at, float value) const { out[at] = float_to_half_bits(value); }
};


// scan_line of float16 elements (their bits), for ops whose float32 scan is scan_steps alone.
template <class A, class Op, bool Reverse, class State>
void scan_half_line(const std::uint16_t* in, std::uint16_t* out, std::ptrdiff_t n, ScanState<State>& st,
                    bool exclusive) {
    if (n == 0) {
        return;
    }
    st.local = scan_steps<A, float, Op, Reverse>(HalfElements<A>{in}, HalfOutputs<A>{out}, n, st.base, st.local,
                                                 SpanModes{exclusive, st.has_base});
    if (exclusive && st.at_line_start) {
        out[Reverse ? n - 1 : 0] = float_to_half_bits(Op::template identity<float>());
    }
    st.at_line_start = false;
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
