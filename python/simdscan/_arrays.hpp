// The bindings' array helpers: dtypes to the core's data types, arrays to its tensor views, overlap tests and new
// arrays in an input's memory order. Included once, by _core.cpp.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "simdscan/scan.hpp"

namespace py = pybind11;

namespace {

std::string dtype_name(const py::dtype& dtype) { return py::str(dtype).cast<std::string>(); }

simdscan::DataType data_type_of(const py::dtype& dtype) {
    const char kind = dtype.kind();
    const auto size = dtype.itemsize();
    using simdscan::DataType;
    // Structured and subarray dtypes are of kind 'V', so kind and size identify the supported ones.
    if (kind == 'f' && size == 2) return DataType::float16;
    if (kind == 'f' && size == 4) return DataType::float32;
    if (kind == 'f' && size == 8) return DataType::float64;
    if (kind == 'c' && size == 8) return DataType::complex64;
    if (kind == 'c' && size == 16) return DataType::complex128;
    if (kind == 'i' && size == 1) return DataType::int8;
    if (kind == 'i' && size == 2) return DataType::int16;
    if (kind == 'i' && size == 4) return DataType::int32;
    if (kind == 'i' && size == 8) return DataType::int64;
    if (kind == 'u' && size == 1) return DataType::uint8;
    if (kind == 'u' && size == 2) return DataType::uint16;
    if (kind == 'u' && size == 4) return DataType::uint32;
    if (kind == 'u' && size == 8) return DataType::uint64;
    if (kind == 'b' && size == 1) return DataType::boolean;
    throw py::type_error("simdscan does not support dtype " + dtype_name(dtype));
}

bool is_native(const py::dtype& dtype) {
    const char order = dtype.byteorder();
    const std::uint16_t probe = 1;
    const bool little = *reinterpret_cast<const unsigned char*>(&probe) == 1;
    return order == '=' || order == '|' || order == (little ? '<' : '>');
}

py::dtype native(const py::dtype& dtype) {
    return is_native(dtype) ? dtype : py::dtype(dtype.attr("newbyteorder")("="));
}

// array as the core's view of it, data its first element, into `view` (whose vectors keep their capacity).
void describe(simdscan::TensorView& view, const py::array& array, void* data) {
    view.data = data;
    const py::dtype dtype = array.dtype();
    view.data_type = data_type_of(dtype);
    view.sizes.assign(array.shape(), array.shape() + array.ndim());
    view.byte_strides.assign(array.strides(), array.strides() + array.ndim());
    view.byte_swapped = !is_native(dtype);
}

// The lowest and one-past-highest byte an array touches.
std::pair<std::uintptr_t, std::uintptr_t> byte_bounds(const py::array& array) {
    auto low = reinterpret_cast<std::uintptr_t>(array.data());
    auto high = low + std::uintptr_t(array.itemsize());
    for (py::ssize_t d = 0; d < array.ndim(); ++d) {
        const py::ssize_t reach = (array.shape(d) - 1) * array.strides(d);
        if (array.shape(d) == 0) {
            return {low, low};
        }
        if (reach < 0) {
            low -= std::uintptr_t(-reach);
        } else {
            high += std::uintptr_t(reach);
        }
    }
    return {low, high};
}

bool same_view(const py::array& a, const py::array& b) {
    if (a.data() != b.data() || a.ndim() != b.ndim()) {
        return false;
    }
    for (py::ssize_t d = 0; d < a.ndim(); ++d) {
        if (a.shape(d) != b.shape(d) || (a.shape(d) > 1 && a.strides(d) != b.strides(d))) {
            return false;
        }
    }
    return true;
}

bool may_overlap(const py::array& a, const py::array& b) {
    const auto bounds_a = byte_bounds(a);
    const auto bounds_b = byte_bounds(b);
    return bounds_a.first < bounds_b.second && bounds_b.first < bounds_a.second;
}

// A new array of `shape` (as many axes as the input's) in the input's memory order (NumPy's order='K'), so that
// input and result are walked together; C order when the input has broadcast (zero-stride) axes.
py::array new_like(const py::array& array, const py::dtype& dtype, const std::vector<py::ssize_t>& shape) {
    const py::ssize_t ndim = array.ndim();
    std::vector<py::ssize_t> order(static_cast<std::size_t>(ndim));
    for (py::ssize_t d = 0; d < ndim; ++d) {
        order[std::size_t(d)] = d;
        if (array.strides(d) == 0) {
            return py::array(dtype, shape);
        }
    }
    const auto magnitude = [&](py::ssize_t d) { return array.strides(d) < 0 ? -array.strides(d) : array.strides(d); };
    std::stable_sort(order.begin(), order.end(), [&](py::ssize_t a, py::ssize_t b) { return magnitude(a) > magnitude(b); });
    std::vector<py::ssize_t> strides(static_cast<std::size_t>(ndim));
    py::ssize_t stride = dtype.itemsize();
    for (auto d = order.rbegin(); d != order.rend(); ++d) {
        strides[std::size_t(*d)] = stride;
        stride *= shape[std::size_t(*d)];
    }
    return py::array(dtype, shape, strides);
}

py::array new_like(const py::array& array, const py::dtype& dtype) {
    return new_like(array, dtype, std::vector<py::ssize_t>(array.shape(), array.shape() + array.ndim()));
}

}  // namespace
