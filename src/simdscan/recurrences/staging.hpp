// The recurrences' runner's operands where they are not contiguous elements of the type it computes in: gathered,
// byte-swapped and converted (NumPy's casts; float16 by the tier's conversions) into a contiguous buffer of that type,
// and outputs back, a chunk or a band of rows at a time, so that no operand is ever converted whole.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../scan.hpp"

namespace simdscan {
namespace detail {

// How an operand's elements are stored: their data type and byte order.
struct Stored {
    DataType type = DataType::float32;
    bool swapped = false;
};

// The data type whose elements the runner computes in as T (float16's bits, for a fill that selects them).
template <class T>
constexpr DataType data_type_of() {
    if constexpr (std::is_same<T, std::uint16_t>::value) {
        return DataType::float16;
    } else if constexpr (std::is_same<T, float>::value) {
        return DataType::float32;
    } else if constexpr (std::is_same<T, double>::value) {
        return DataType::float64;
    } else if constexpr (std::is_same<T, std::complex<float>>::value) {
        return DataType::complex64;
    } else {
        return DataType::complex128;
    }
}

// Whether an operand stored as `stored` holds T's own elements in native order (read and written where they lie).
template <class T>
bool holds_own(const Stored& stored) {
    return stored.type == data_type_of<T>() && !stored.swapped;
}

// A thread's room for a conversion of up to `elements`: the stored elements (16 bytes each at most) and float16's
// values on their way to a wider type.
struct ConversionScratch {
    unsigned char* stored;
    float* widened;

    static constexpr std::size_t bytes_per_element = 16 + sizeof(float);
    // Of `elements`, from `room` (bytes_per_element each, aligned as std::max_align_t).
    static ConversionScratch in(void* room, std::ptrdiff_t elements) {
        auto* bytes = static_cast<unsigned char*>(room);
        return {bytes, reinterpret_cast<float*>(bytes + 16 * elements)};
    }
};

// `count` elements stored as `stored` at `from`, `step` bytes apart, into T at `to` (contiguous).
template <class T>
void read_converted(const void* from, std::ptrdiff_t step, std::ptrdiff_t count, const Stored& stored, T* to,
                    const ConversionScratch& scratch);

// `count` contiguous values of T at `from` into `to`, `step` bytes apart, stored as `stored` (T's own type or, from
// float, float16), rounded as NumPy's astype rounds; byte-swapped packed outputs past the caches where `streams`.
template <class T>
void write_converted(const T* from, void* to, std::ptrdiff_t step, std::ptrdiff_t count, const Stored& stored,
                     const ConversionScratch& scratch, bool streams = false);

}  // namespace detail
}  // namespace simdscan
