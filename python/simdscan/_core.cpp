// Python bindings: convert NumPy arrays to the core's tensor views, validate, and release the GIL while scanning.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "simdscan/scan.hpp"

namespace py = pybind11;

namespace {

simdscan::DataType data_type_of(const py::dtype& dtype) {
    const char kind = dtype.kind();
    const auto size = dtype.itemsize();
    using simdscan::DataType;
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
    throw py::type_error("simdscan does not support dtype " + py::str(dtype).cast<std::string>());
}

simdscan::TensorView view_of(const py::array& array, void* data) {
    simdscan::TensorView view;
    view.data = data;
    view.data_type = data_type_of(array.dtype());
    view.sizes.assign(array.shape(), array.shape() + array.ndim());
    view.byte_strides.assign(array.strides(), array.strides() + array.ndim());
    view.byte_swapped = !array.dtype().attr("isnative").cast<bool>();
    return view;
}

// Scans `a` into `out` (same shape and dtype; out may be a itself). The caller resolves partial overlap.
void scan(const std::string& op, const py::array& a, py::array& out, std::size_t axis, bool reverse, bool exclusive) {
    simdscan::CumulativeOperatorDesc desc;
    if (op == "sum") {
        desc.op = simdscan::CumulativeOperator::summation;
    } else if (op == "prod") {
        desc.op = simdscan::CumulativeOperator::product;
    } else {
        throw py::value_error("op must be 'sum' or 'prod'");
    }
    if (!out.writeable()) {
        throw py::value_error("output array is read-only");
    }
    desc.input = view_of(a, const_cast<void*>(a.data()));
    desc.output = view_of(out, out.mutable_data());
    if (desc.input.data_type != desc.output.data_type) {
        throw py::type_error("input and output dtypes differ");
    }
    desc.axis = axis;
    desc.direction = reverse ? simdscan::AxisDirection::decreasing : simdscan::AxisDirection::increasing;
    desc.exclusive = exclusive;
    py::gil_scoped_release release;
    simdscan::execute(desc);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "simdscan's native core (private: use the simdscan package)";
    m.def("scan", &scan, py::arg("op"), py::arg("a"), py::arg("out"), py::arg("axis"), py::arg("reverse"),
          py::arg("exclusive"));
    m.def("isa", &simdscan::active_isa, "The active ISA tier.");
    m.def("supported_isas", &simdscan::supported_isas, "ISA tiers this CPU supports, lowest first.");
    m.def("select_isa", &simdscan::select_isa, py::arg("name"), "Forces an ISA tier among supported_isas().");
    m.def("set_num_threads", &simdscan::set_num_threads, py::arg("n"));
    m.def("get_num_threads", &simdscan::get_num_threads);
    m.attr("xsimd_version") = SIMDSCAN_XSIMD_VERSION;
    m.attr("__version__") = SIMDSCAN_VERSION;
}
