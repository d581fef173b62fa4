// The C++ types each DataType is stored and computed as: the one table that sizes, alignment and type dispatch read.
#pragma once

#include <complex>
#include <cstdint>
#include <stdexcept>

#include "scan.hpp"

namespace simdscan {
namespace detail {

// Elements stored as S are scanned as C: float16 is converted to float; signed integers scan as their unsigned
// twins (the same bits, and wrap-around is defined), except where an op compares them: Ordered is the type it
// compares in.
template <class S, class C, class O = C>
struct ElementTypes {
    using Stored = S;
    using Compute = C;
    using Ordered = O;
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
        case DataType::uint8:
        case DataType::boolean: return visit(ElementTypes<std::uint8_t, std::uint8_t>{});
        case DataType::int16: return visit(ElementTypes<std::uint16_t, std::uint16_t, std::int16_t>{});
        case DataType::uint16: return visit(ElementTypes<std::uint16_t, std::uint16_t>{});
        case DataType::int32: return visit(ElementTypes<std::uint32_t, std::uint32_t, std::int32_t>{});
        case DataType::uint32: return visit(ElementTypes<std::uint32_t, std::uint32_t>{});
        case DataType::int64: return visit(ElementTypes<std::uint64_t, std::uint64_t, std::int64_t>{});
        case DataType::uint64: return visit(ElementTypes<std::uint64_t, std::uint64_t>{});
    }
    throw std::invalid_argument("unknown data type");
}

}  // namespace detail
}  // namespace simdscan
