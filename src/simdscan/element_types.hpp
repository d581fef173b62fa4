// The C++ types each DataType is stored and computed as: the one table that sizes, alignment and type dispatch read.
#pragma once

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "scan.hpp"

namespace simdscan {
namespace detail {

// Elements stored as S are scanned as C: float16 is converted to float; signed integers scan as their unsigned
// twins (the same bits, and wrap-around is defined), and an extremum orders them as Ordered by their keys
// (operators.hpp's order_key). Value is the number an element stands for, as NumPy converts it to another type
// (bool: 0 or 1).
template <class S, class C, class O = C, class V = O>
struct ElementTypes {
    using Stored = S;
    using Compute = C;
    using Ordered = O;
    using Value = V;
};

// Returns visit(ElementTypes<S, C>{}) for the types of t.
template <class Visit>
decltype(auto) visit_element_types(DataType t, Visit&& visit) {
    switch (t) {
        case DataType::float16: return visit(ElementTypes<std::uint16_t, float>{});
        case DataType::float32: return visit(ElementTypes<float, float>{});
        case DataType::float64: return visit(ElementTypes<double, double>{});
        case DataType::complex64: return visit(ElementTypes<std::complex<float>, std::complex<float>>{});
        case DataType::complex128: return visit(ElementTypes<std::complex<double>, std::complex<double>>{});
        case DataType::int8: return visit(ElementTypes<std::uint8_t, std::uint8_t, std::int8_t>{});
        case DataType::uint8: return visit(ElementTypes<std::uint8_t, std::uint8_t>{});
        case DataType::boolean: return visit(ElementTypes<std::uint8_t, std::uint8_t, std::uint8_t, bool>{});
        case DataType::int16: return visit(ElementTypes<std::uint16_t, std::uint16_t, std::int16_t>{});
        case DataType::uint16: return visit(ElementTypes<std::uint16_t, std::uint16_t>{});
        case DataType::int32: return visit(ElementTypes<std::uint32_t, std::uint32_t, std::int32_t>{});
        case DataType::uint32: return visit(ElementTypes<std::uint32_t, std::uint32_t>{});
        case DataType::int64: return visit(ElementTypes<std::uint64_t, std::uint64_t, std::int64_t>{});
        case DataType::uint64: return visit(ElementTypes<std::uint64_t, std::uint64_t>{});
    }
#if defined(__cpp_exceptions)
    throw std::invalid_argument("unknown data type");
#else
    std::abort();  // (the kernels' units, built without exceptions, visit no data type)
#endif
}

// Whether elements of t are complex numbers (two parts, each byte-swapped apart; no order).
constexpr bool is_complex(DataType t) {
    return t == DataType::complex64 || t == DataType::complex128;
}

// Whether every element of From converts exactly to To, a wider type (an input read as its result's type: scan.hpp):
// integers to wider integers that hold their sign, integers to floating types whose mantissa holds all their digits,
// float32 to float64. float16 (stored as its bits) and complex types are left to the caller's own cast.
template <class From, class To>
constexpr bool widens_exactly() {
    using F = typename From::Value;
    using T = typename To::Value;
    constexpr bool stored_as_values = std::is_same<typename From::Stored, typename From::Compute>::value &&
                                      std::is_same<typename To::Stored, typename To::Compute>::value;
    if constexpr (!stored_as_values || std::is_same<T, bool>::value) {
        return false;
    } else if constexpr (std::is_integral<F>::value && std::is_integral<T>::value) {
        return sizeof(T) > sizeof(F) && (std::is_signed<T>::value || !std::is_signed<F>::value);
    } else if constexpr (std::is_integral<F>::value && std::is_floating_point<T>::value) {
        return std::numeric_limits<F>::digits <= std::numeric_limits<T>::digits;
    } else if constexpr (std::is_floating_point<F>::value && std::is_floating_point<T>::value) {
        return sizeof(T) > sizeof(F);
    } else {
        return false;
    }
}

}  // namespace detail
}  // namespace simdscan
