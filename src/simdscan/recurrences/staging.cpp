// The recurrences' runner's conversions (recurrences/staging.hpp): compiled at the core's full optimization (the runner
// itself is compiled for size), so that the casts' loops run in vectors.
#include "staging.hpp"

#include <cstring>
#include <type_traits>

#include "../dispatch.hpp"
#include "../element_types.hpp"
#include "../kernels.hpp"

namespace simdscan {
namespace detail {
namespace {

// Elements of `Size` bytes, `step` bytes apart, to or from contiguous ones (either way: Gather from the strided side).
template <std::size_t Size, bool Gather>
void move_elements(const unsigned char* from, unsigned char* to, std::ptrdiff_t step, std::ptrdiff_t count) {
    for (std::ptrdiff_t i = 0; i < count; ++i) {
        if constexpr (Gather) {
            std::memcpy(to + i * std::ptrdiff_t(Size), from + i * step, Size);
        } else {
            std::memcpy(to + i * step, from + i * std::ptrdiff_t(Size), Size);
        }
    }
}
template <bool Gather>
void move_elements(const void* from, void* to, std::ptrdiff_t step, std::size_t size, std::ptrdiff_t count) {
    const auto* source = static_cast<const unsigned char*>(from);
    auto* target = static_cast<unsigned char*>(to);
    switch (size) {
        case 1: return move_elements<1, Gather>(source, target, step, count);
        case 2: return move_elements<2, Gather>(source, target, step, count);
        case 4: return move_elements<4, Gather>(source, target, step, count);
        case 8: return move_elements<8, Gather>(source, target, step, count);
        default: return move_elements<16, Gather>(source, target, step, count);
    }
}

// Reverses the bytes of `count` contiguous elements of `type` (a complex number's parts apart) from `from` into `to`
// (past the caches where `streams`).
void swap_bytes(DataType type, const void* from, void* to, std::ptrdiff_t count, bool streams = false) {
    const std::size_t size = element_size(type);
    const std::size_t unit = is_complex(type) ? size / 2 : size;
    if (unit > 1) {
        active_kernels().copy_byteswapped[byteswap_slot(unit)](from, to, count * std::ptrdiff_t(size / unit), streams);
    } else if (from != to) {
        std::memcpy(to, from, std::size_t(count) * size);
    }
}

// The real type of T's parts (T itself where real).
template <class T>
struct PartOf {
    using type = T;
};
template <class R>
struct PartOf<std::complex<R>> {
    using type = R;
};

// A value as T, rounded to nearest (a real one into a complex T's real part).
template <class T, class V>
T cast_to(const V& value) {
    if constexpr (std::is_arithmetic<V>::value) {
        return T(static_cast<typename PartOf<T>::type>(value));
    } else {
        return static_cast<T>(value);
    }
}

// `count` contiguous native elements of `type` at `from` as T (NumPy's astype: integers and bool by value).
template <class T>
void cast_elements(DataType type, const unsigned char* from, std::ptrdiff_t count, T* to, float* widened) {
    if (type == DataType::float16) {
        float* values = std::is_same<T, float>::value ? reinterpret_cast<float*>(to) : widened;
        active_kernels().half_to_float(reinterpret_cast<const std::uint16_t*>(from), values, count);
        if constexpr (!std::is_same<T, float>::value && std::is_constructible<T, float>::value) {
            for (std::ptrdiff_t i = 0; i < count; ++i) {
                to[i] = cast_to<T>(values[i]);
            }
        }
        return;
    }
    visit_element_types(type, [&](auto types) {
        using Types = decltype(types);
        using Value = typename Types::Value;
        if constexpr (sizeof(Value) == sizeof(typename Types::Stored) && std::is_constructible<T, Value>::value) {
            for (std::ptrdiff_t i = 0; i < count; ++i) {
                Value value;
                std::memcpy(&value, from + i * std::ptrdiff_t(sizeof(Value)), sizeof(Value));
                to[i] = cast_to<T>(value);
            }
        }
    });
}

}  // namespace

template <class T>
void read_converted(const void* from, std::ptrdiff_t step, std::ptrdiff_t count, const Stored& stored, T* to,
                    const ConversionScratch& scratch) {
    const std::size_t size = element_size(stored.type);
    const bool own_type = stored.type == data_type_of<T>();
    // (T's own elements are staged in `to` itself; others as stored first, then cast into it.)
    void* staged = own_type ? static_cast<void*>(to) : scratch.stored;
    const void* elements = from;
    if (step != std::ptrdiff_t(size)) {
        move_elements<true>(from, staged, step, size, count);
        elements = staged;
    }
    if (stored.swapped) {
        swap_bytes(stored.type, elements, staged, count);
        elements = staged;
    }
    if (!own_type) {
        cast_elements(stored.type, static_cast<const unsigned char*>(elements), count, to, scratch.widened);
    } else if (elements != staged) {
        std::memcpy(staged, elements, std::size_t(count) * size);
    }
}

template <class T>
void write_converted(const T* from, void* to, std::ptrdiff_t step, std::ptrdiff_t count, const Stored& stored,
                     const ConversionScratch& scratch, bool streams) {
    const std::size_t size = element_size(stored.type);
    const bool packed = step == std::ptrdiff_t(size);
    const void* elements = from;
    if (stored.type != data_type_of<T>()) {  // float16 from float (validate)
        if constexpr (std::is_same<T, float>::value) {
            void* halves = packed && !stored.swapped ? to : scratch.stored;
            active_kernels().float_to_half(from, static_cast<std::uint16_t*>(halves), count);
            elements = halves;
        }
    }
    if (stored.swapped) {
        void* swapped = packed ? to : scratch.stored;
        swap_bytes(stored.type, elements, swapped, count, streams && packed);
        elements = swapped;
    }
    if (elements == to) {
        return;
    }
    if (packed) {
        std::memcpy(to, elements, std::size_t(count) * size);
    } else {
        move_elements<false>(elements, to, step, size, count);
    }
}

#define SIMDSCAN_RECURRENCE_STAGING(T)                                                                                 \
    template void read_converted(const void*, std::ptrdiff_t, std::ptrdiff_t, const Stored&, T*,                      \
                                 const ConversionScratch&);                                                           \
    template void write_converted(const T*, void*, std::ptrdiff_t, std::ptrdiff_t, const Stored&,                    \
                                  const ConversionScratch&, bool);
SIMDSCAN_RECURRENCE_STAGING(std::uint16_t)
SIMDSCAN_RECURRENCE_STAGING(float)
SIMDSCAN_RECURRENCE_STAGING(double)
SIMDSCAN_RECURRENCE_STAGING(std::complex<float>)
SIMDSCAN_RECURRENCE_STAGING(std::complex<double>)
#undef SIMDSCAN_RECURRENCE_STAGING

}  // namespace detail
}  // namespace simdscan
