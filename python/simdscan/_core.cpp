// Python bindings: convert the arguments to the core's tensor views, validate them, and release the GIL while
// scanning. Argument handling lives here rather than in Python so that a call on a small array costs about as much
// as numpy.cumsum's.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "_arrays.hpp"
#include "_result_cache.hpp"
#include "simdscan/dispatch.hpp"
#include "simdscan/scan.hpp"

namespace py = pybind11;

namespace {

// Python objects the bindings need on every call, looked up once at import. Leaked on purpose: destroying them
// at interpreter shutdown would touch Python after it is gone.
struct PythonObjects {
    py::object ndarray;
    py::object asarray;
    py::object axis_error;
    py::object direction_type;
    py::object decreasing;
    py::dtype bool_result;
    py::dtype intp;  // the indices' dtype
    // The names the scans take, interned: the Python callers' literals are these very objects, found by address.
    py::object increasing = interned("increasing");
    py::object decreasing_name = interned("decreasing");
    // The public scans' argument names, in FastScan's slot order.
    py::object argument_names[7] = {interned("a"),         interned("axis"), interned("direction"),
                                    interned("exclusive"), interned("dtype"), interned("out"),
                                    interned("compensated")};
    std::pair<py::object, simdscan::CumulativeOperator> operators[6] = {
        {interned("add"), simdscan::CumulativeOperator::summation},
        {interned("multiply"), simdscan::CumulativeOperator::product},
        {interned("maximum"), simdscan::CumulativeOperator::maximum},
        {interned("minimum"), simdscan::CumulativeOperator::minimum},
        {interned("logaddexp"), simdscan::CumulativeOperator::log_sum_exp},
        {interned("ffill"), simdscan::CumulativeOperator::forward_fill}};

    static py::object interned(const char* text) {
        return py::reinterpret_steal<py::object>(PyUnicode_InternFromString(text));
    }
};
PythonObjects* objects = nullptr;

// Below this many elements a scan takes less time than releasing and re-taking the GIL.
constexpr py::ssize_t gil_release_elements = 1 << 14;

[[noreturn]] void raise(const py::object& type, const py::object& value) {
    PyErr_SetObject(type.ptr(), value.ptr());
    throw py::error_already_set();
}

// Whether a str is `name` (interned): by address, and by its characters only where it is not interned itself (two
// interned strings are equal only if they are one object; the full comparisons were much of a small call's time).
bool names(PyObject* text, const py::object& name) {
    return text == name.ptr() || (!PyUnicode_CHECK_INTERNED(text) && PyUnicode_Compare(text, name.ptr()) == 0);
}

bool parse_direction(const py::handle& direction) {
    // An exact type test: an Enum with members has no subclasses, and isinstance's __instancecheck__ lookup made a
    // bound method on every call (much of a small scan's time: benchmarks/README.md).
    if (Py_TYPE(direction.ptr()) == reinterpret_cast<PyTypeObject*>(objects->direction_type.ptr())) {
        return direction.is(objects->decreasing);
    }
    if (!PyUnicode_Check(direction.ptr())) {
        throw py::type_error("direction must be a simdscan.Direction or one of 'increasing', 'decreasing'; " +
                             std::string(PyTuple_Check(direction.ptr())
                                             ? "a tuple of them needs a tuple axis, with one entry per axis"
                                             : "got " + std::string(Py_TYPE(direction.ptr())->tp_name)));
    }
    if (names(direction.ptr(), objects->increasing)) return false;
    if (names(direction.ptr(), objects->decreasing_name)) return true;
    throw py::value_error("direction must be 'increasing' or 'decreasing', got " +
                          py::repr(direction).cast<std::string>());
}

// Normalises axis into [0, ndim), raising numpy's AxisError when it is out of range (huge integers included).
std::size_t parse_axis(const py::handle& axis, py::ssize_t ndim) {
    const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(axis.ptr()));
    if (!index) {
        throw py::error_already_set();
    }
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (value == -1 && PyErr_Occurred()) {
        throw py::error_already_set();
    }
    if (overflow != 0 || value < -ndim || value >= ndim) {
        raise(objects->axis_error, objects->axis_error(index, ndim));
    }
    return std::size_t(value < 0 ? value + ndim : value);
}

// Python truthiness, as `if x:` sees it (numpy.bool_ included).
bool truth(py::handle x) {
    const int value = PyObject_IsTrue(x.ptr());
    if (value < 0) {
        throw py::error_already_set();
    }
    return value != 0;
}

// exclusive=: one flag (a tuple, truthy, would pass as True).
bool parse_exclusive(py::handle exclusive) {
    if (PyTuple_Check(exclusive.ptr())) {
        throw py::type_error("exclusive must be one flag; a tuple of them needs a tuple axis, with one entry per axis");
    }
    return truth(exclusive);
}

using simdscan::CumulativeOperator;

// The op by its ufunc's name.
CumulativeOperator parse_operator(PyObject* name) {
    if (!PyUnicode_Check(name)) {
        throw py::type_error("a scan operator is named by a str");
    }
    for (const auto& [text, op] : objects->operators) {
        if (names(name, text)) {
            return op;
        }
    }
    throw py::value_error("unknown scan operator " + py::repr(name).cast<std::string>());
}

// The dtype a scan returns when dtype= is not given: the input's own, except where the operator cannot take it.
py::dtype default_result_dtype(CumulativeOperator op, const py::dtype& input) {
    const char kind = input.kind();
    const simdscan::OperatorTraits& traits = simdscan::operator_traits(op);
    if (traits.computes_in_floating && (kind == 'b' || kind == 'i' || kind == 'u')) {
        return py::dtype("float64");  // as numpy.logaddexp computes integers
    }
    if (kind == 'b' && traits.counts) {
        return objects->bool_result;  // sums and products of booleans count them, as numpy.cumsum does
    }
    return native(input);
}

// Rejects, as TypeError naming the dtype, the result dtypes an operator has no meaning for (the core's rules).
void check_operator_takes(CumulativeOperator op, const py::dtype& result, simdscan::DataType result_type) {
    const std::string why = simdscan::refusal(op, result_type);
    if (!why.empty()) {
        throw py::type_error(why + ", not " + dtype_name(result));
    }
}

// Checks an out= argument against the result's shape (array's) and dtype.
// name: a C string, built into a message only on error (a std::string of "the indices' out" is a malloc per call).
void check_out(py::handle out, const char* name, const py::array& array, const py::dtype& dtype) {
    if (!py::isinstance<py::array>(out)) {
        throw py::type_error(std::string(name) + " must be a numpy.ndarray, got " + Py_TYPE(out.ptr())->tp_name);
    }
    const auto result = py::reinterpret_borrow<py::array>(out);
    const bool same_shape =
        result.ndim() == array.ndim() && std::equal(array.shape(), array.shape() + array.ndim(), result.shape());
    if (!same_shape) {
        throw py::value_error(std::string(name) + " has shape " + py::str(out.attr("shape")).cast<std::string>() +
                              ", the result has shape " + py::str(array.attr("shape")).cast<std::string>());
    }
    if (!native(result.dtype()).equal(dtype)) {
        throw py::type_error(std::string(name) + " has dtype " + dtype_name(result.dtype()) + ", the result has dtype " +
                             dtype_name(dtype));
    }
    if (!result.writeable()) {
        throw py::value_error(std::string(name) + " is read-only");
    }
}

// The scan of a along axis: the result array, or (values, indices) for an indexed extremum (want_indices, or
// indices_out given).
// The Python arguments are borrowed handles: their callers hold them for the call.
py::object cumulative(CumulativeOperator op, py::handle a, py::handle axis, py::handle direction, py::handle exclusive,
                      bool compensated, bool skip_nan, py::handle dtype, py::handle out, bool want_indices = false,
                      py::handle indices_out = Py_None, py::handle reset = Py_None, py::handle labels = Py_None) {
    // A pair of axes (from scan_axes or is_checked_pair, already checked) comes with a direction and a flag for each.
    const bool two_axes = PyTuple_Check(axis.ptr());
    const auto entry = [&](py::handle value, std::size_t i) -> py::object {
        return two_axes && PyTuple_Check(value.ptr()) ? py::object(value[py::int_(i)])
                                                      : py::reinterpret_borrow<py::object>(value);
    };
    const bool reverse = parse_direction(entry(direction, 0));
    const bool exclusive_flag = parse_exclusive(entry(exclusive, 0));
    // Subclasses (np.matrix, masked arrays) go through numpy.asarray, as numpy.cumsum's inputs do.
    py::array array = py::type::handle_of(a).is(objects->ndarray) ? py::reinterpret_borrow<py::array>(a)
                                                        : py::array(objects->asarray(a));
    // rejects unsupported input dtypes by name, even when dtype= is given
    const py::dtype input_dtype = array.dtype();
    const simdscan::DataType input_type = data_type_of(input_dtype);
    py::dtype result_dtype = !dtype.is_none() ? py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype))
                                              : default_result_dtype(op, input_dtype);
    const simdscan::DataType result_type = data_type_of(result_dtype);
    check_operator_takes(op, result_dtype, result_type);
    if (compensated && !simdscan::operator_traits(op).compensates) {
        throw py::type_error("only sums take compensated=True");
    }

    std::size_t scan_axis = 0;
    if (axis.is_none()) {
        if (array.ndim() != 1) {  // a 1-D array is its own flattening: no new view (costly in a small call)
            array = array.reshape(std::vector<py::ssize_t>{array.size()});
        }
    } else {
        if (array.ndim() == 0) {
            array = array.reshape(std::vector<py::ssize_t>{1});
        }
        scan_axis = parse_axis(two_axes ? entry(axis, 0) : axis, array.ndim());
    }
    std::optional<simdscan::AxisScan> then;
    if (two_axes) {
        then = simdscan::AxisScan{parse_axis(entry(axis, 1), array.ndim()),
                                  parse_direction(entry(direction, 1)) ? simdscan::AxisDirection::decreasing
                                                                        : simdscan::AxisDirection::increasing,
                                  parse_exclusive(entry(exclusive, 1))};
    }

    const bool have_out = !out.is_none();
    if (have_out) {
        check_out(out, "out", array, result_dtype);
    }
    const bool indexed = !indices_out.is_none() || want_indices;
    if (!indices_out.is_none()) {
        check_out(indices_out, "the indices' out", array, objects->intp);
        const auto indices = py::reinterpret_borrow<py::array>(indices_out);
        if (may_overlap(indices, array) || (have_out && may_overlap(indices, py::reinterpret_borrow<py::array>(out)))) {
            throw py::value_error("the indices' out overlaps the input or the values' out");
        }
    }
    // A segmented scan's flags and a grouped scan's labels (_segments.py made them bool and native int64 arrays of
    // a's shape): as a is flattened or widened from 0-d above, and apart from the output, which is written before they
    // are all read.
    const auto element_operand = [&](py::handle given, const char* name, const py::dtype& type) -> py::object {
        if (given.is_none()) {
            return py::object();  // not a py::array: its default constructor allocates one
        }
        auto operand = py::reinterpret_borrow<py::array>(given);
        if (!py::isinstance<py::array>(given) || !operand.dtype().equal(type) || operand.size() != array.size()) {
            throw py::value_error(std::string(name) + " must be a " + dtype_name(type) +
                                  " array of the input's shape");
        }
        if (two_axes) {
            throw py::value_error(std::string(name) + "= takes a single axis");
        }
        operand = operand.reshape(std::vector<py::ssize_t>(array.shape(), array.shape() + array.ndim()));
        if (have_out && may_overlap(operand, py::reinterpret_borrow<py::array>(out))) {
            operand = operand.attr("copy")();
        }
        return std::move(operand);
    };
    const py::object reset_flags = element_operand(reset, "reset", py::dtype::of<bool>());
    const py::object label_values = element_operand(labels, "labels", py::dtype::of<std::int64_t>());
    if (reset_flags && label_values) {
        throw py::value_error("a scan takes reset= or labels=, not both");
    }
    const bool overlaps_out = have_out && may_overlap(array, py::reinterpret_borrow<py::array>(out));
    // An input whose every value the result's dtype holds is read as it is: the core converts it on the way, where
    // astype would copy it first. Not into an out that overlaps it (written before the input is read) or is
    // byte-swapped.
    const bool widens = simdscan::widens_exactly(input_type, result_type) && is_native(input_dtype) &&
                        !overlaps_out && !(have_out && !is_native(py::reinterpret_borrow<py::array>(out).dtype()));
    if (!native(input_dtype).equal(result_dtype) && !widens) {
        array = array.attr("astype")(result_dtype);
    } else if (overlaps_out && !same_view(array, py::reinterpret_borrow<py::array>(out))) {
        // Partial overlap: scan a private copy so that no write can clobber an input not yet read.
        array = array.attr("copy")();
    }
    // Handles, not py::arrays: pybind11's default-constructed array allocates one, on every call.
    auto result_handle = py::reinterpret_borrow<py::object>(out);
    auto indices = py::reinterpret_borrow<py::object>(indices_out);
    {
        const auto elements = std::size_t(array.size());
        const CachedResults cached(std::max(have_out ? 0 : elements * std::size_t(result_dtype.itemsize()),
                                            indexed && indices_out.is_none() ? elements * sizeof(py::ssize_t) : 0));
        if (!have_out) {
            result_handle = new_like(array, result_dtype);
        }
        if (indexed && indices_out.is_none()) {
            indices = new_like(array, objects->intp);
        }
    }
    auto result = py::reinterpret_borrow<py::array>(result_handle);

    // One per thread, every field set anew: its views' vectors keep their capacity (four allocations a call).
    thread_local simdscan::CumulativeOperatorDesc desc;
    desc.op = op;
    describe(desc.input, array, const_cast<void*>(array.data()));
    describe(desc.output, result, result.mutable_data());
    desc.indices.data = nullptr;
    for (const auto& [view, operand] : {std::pair<simdscan::TensorView*, const py::object*>{&desc.reset, &reset_flags},
                                        {&desc.labels, &label_values}}) {
        view->data = nullptr;
        if (*operand) {
            const auto values = py::reinterpret_borrow<py::array>(*operand);
            describe(*view, values, const_cast<void*>(values.data()));
        }
    }
    desc.axis = scan_axis;
    desc.direction = reverse ? simdscan::AxisDirection::decreasing : simdscan::AxisDirection::increasing;
    desc.exclusive = exclusive_flag;
    desc.compensated = compensated;
    desc.skip_nan = skip_nan;
    desc.then = then;
    if (indexed) {
        auto indices_array = py::reinterpret_borrow<py::array>(indices);
        describe(desc.indices, indices_array, indices_array.mutable_data());
    }
    if (array.size() >= gil_release_elements) {
        py::gil_scoped_release release;
        // Arrays made here are new: all the threads map their pages first.
        if (!have_out) {
            simdscan::fault_in(desc.output.data, std::size_t(result.nbytes()));
        }
        if (indexed && indices_out.is_none()) {
            simdscan::fault_in(desc.indices.data, std::size_t(py::reinterpret_borrow<py::array>(indices).nbytes()));
        }
        simdscan::execute(desc);
    } else {
        simdscan::execute(desc);
    }
    if (indexed) {
        return py::make_tuple(result, indices);
    }
    return std::move(result);
}

// `array` as an operand of `sizes` (NumPy's broadcasting: its axes the last ones, stride 0 along an axis it lacks or
// has one element of), into `view`; where `axis` is given, `array` broadcasts to `sizes` without that axis, and is at
// stride 0 along it (a recurrence's initial state, one a line).
void describe_broadcast(simdscan::TensorView& view, const py::array& array, const std::vector<py::ssize_t>& sizes,
                        std::optional<std::size_t> axis = std::nullopt) {
    describe(view, array, const_cast<void*>(array.data()));
    const std::size_t rank = sizes.size() - (axis ? 1 : 0);
    if (std::size_t(array.ndim()) > rank) {
        throw py::value_error("an operand has more axes than the data");
    }
    view.sizes = sizes;
    view.byte_strides.assign(sizes.size(), 0);
    const std::size_t lead = rank - std::size_t(array.ndim());
    for (std::size_t d = 0; d < std::size_t(array.ndim()); ++d) {
        const std::size_t to = lead + d + (axis && lead + d >= *axis ? 1 : 0);
        const py::ssize_t extent = array.shape(py::ssize_t(d));
        if (extent != sizes[to] && extent != 1) {
            throw py::value_error("an operand does not broadcast to the data's shape");
        }
        view.byte_strides[to] = extent == 1 ? 0 : array.strides(py::ssize_t(d));
    }
}

// `operand`, or a copy of it where it overlaps `out` other than as the same view (which reads each element before
// writing its output; `reread`: never, as a state read again at every segment start).
py::array apart_from(const py::array& operand, const py::object& out, bool reread = false) {
    if (out.is_none()) {
        return operand;
    }
    const auto target = py::reinterpret_borrow<py::array>(out);
    if (!may_overlap(operand, target) || (!reread && same_view(operand, target))) {
        return operand;
    }
    return operand.attr("copy")();
}

// The result array (out, or a new one of `dtype` in b's memory order) and the core's run of `desc` (its input b)
// into it, the GIL released for a large one.
py::object run_into(simdscan::CumulativeOperatorDesc& desc, const py::array& b, const py::object& out,
                    const py::dtype& dtype) {
    const bool have_out = !out.is_none();
    py::object result_handle = out;
    if (!have_out) {
        const CachedResults cached(std::size_t(b.size() * dtype.itemsize()));
        result_handle = new_like(b, dtype);
    }
    auto result = py::reinterpret_borrow<py::array>(result_handle);
    describe(desc.output, result, result.mutable_data());
    if (b.size() >= gil_release_elements) {
        py::gil_scoped_release release;
        if (!have_out) {
            simdscan::fault_in(desc.output.data, std::size_t(result.nbytes()));
        }
        simdscan::execute(desc);
    } else {
        simdscan::execute(desc);
    }
    return result_handle;
}

// A job for the recurrences' runner: every field set anew, one per thread (its views' vectors keep their capacity).
simdscan::CumulativeOperatorDesc& recurrence_desc(simdscan::CumulativeOperator op, const py::array& b,
                                                  std::size_t axis) {
    thread_local simdscan::CumulativeOperatorDesc desc;
    desc.op = op;
    describe(desc.input, b, const_cast<void*>(b.data()));
    for (simdscan::TensorView* view : {&desc.indices, &desc.reset, &desc.labels, &desc.coefficient, &desc.initial}) {
        view->data = nullptr;
    }
    desc.axis = axis;
    desc.direction = simdscan::AxisDirection::increasing;
    desc.exclusive = desc.compensated = desc.skip_nan = false;
    desc.then.reset();
    desc.weighting = {};
    desc.fill_limit = 0;
    return desc;
}

// The result's dtype: `dtype` where given, else `values`' in native order.
py::dtype result_dtype(const py::array& values, const py::object& dtype) {
    return dtype.is_none() ? native(values.dtype()) : py::reinterpret_borrow<py::dtype>(dtype);
}

// simdscan.linear_recurrence's core call (_recurrence.py): b (at least 1-D) and a (any shape that broadcasts to
// b's, 0-d for a scalar) of any dtype that casts to the result's by 'same_kind' rules, either byte order; initial
// (broadcast to b's shape without the axis) of the dtype the result is computed in (float32 for float16); reset None
// or bool of b's shape; out None or of b's shape and the result's dtype (`dtype`, None: b's), floating or complex.
// An operand that overlaps out is read from a copy, b too unless it is out's very view.
py::object linear_recurrence(const py::array& b, const py::array& a, const py::array& initial, const py::object& reset,
                             const py::object& out, std::size_t axis, bool reverse, bool exclusive,
                             const py::object& dtype) {
    const std::vector<py::ssize_t> sizes(b.shape(), b.shape() + b.ndim());
    const py::array values = apart_from(b, out);
    auto& desc = recurrence_desc(simdscan::CumulativeOperator::linear_recurrence, values, axis);
    const py::array coefficients = apart_from(a, out);
    describe_broadcast(desc.coefficient, coefficients, sizes);
    const py::array states = apart_from(initial, out, true);
    describe_broadcast(desc.initial, states, sizes, axis);
    py::array flags;
    if (!reset.is_none()) {
        flags = apart_from(py::reinterpret_borrow<py::array>(reset), out);
        describe_broadcast(desc.reset, flags, sizes);
    }
    desc.direction = reverse ? simdscan::AxisDirection::decreasing : simdscan::AxisDirection::increasing;
    desc.exclusive = exclusive;
    return run_into(desc, values, out, result_dtype(values, dtype));
}

// simdscan.ewm_mean's core call (_recurrence.py): x real (at least 1-D), out None or of its shape and the result's
// dtype (`dtype`, None: x's), floating; pandas' mean along axis. `states` (simdscan.dask's chunks): None, or each
// line's state (x's shape without the axis, then 4; the dtype computed in, writable), read before the line's first
// element and given the state after its last (scan.hpp's Weighting).
py::object weighted_mean(const py::array& x, const py::object& out, std::size_t axis, double alpha, bool adjust,
                         bool ignore_na, const py::object& dtype, const py::object& states) {
    const std::vector<py::ssize_t> sizes(x.shape(), x.shape() + x.ndim());
    const py::array values = apart_from(x, out);
    auto& desc = recurrence_desc(simdscan::CumulativeOperator::weighted_mean, values, axis);
    desc.weighting = {alpha, adjust, ignore_na};
    py::array records;
    if (!states.is_none()) {
        const auto given = py::reinterpret_borrow<py::array>(states);
        const py::ssize_t last = given.ndim() - 1;
        if (!given.writeable() || given.ndim() != x.ndim() || given.shape(last) != 4 ||
            given.strides(last) != given.itemsize()) {
            throw py::value_error("states: writable, of x's shape without the axis, then 4 values side by side");
        }
        records = given[py::make_tuple(py::ellipsis(), 0)];
        describe_broadcast(desc.initial, records, sizes, axis);
    }
    return run_into(desc, values, out, result_dtype(values, dtype));
}

// simdscan.ffill's core call where a limit is given without labels (_fill.py): x floating or complex in either byte
// order (at least 1-D), out None or of its shape and dtype (either byte order), reset None or bool of its shape.
py::object limited_fill(const py::array& x, const py::object& out, std::size_t axis, bool reverse, py::ssize_t limit,
                        const py::object& reset) {
    const std::vector<py::ssize_t> sizes(x.shape(), x.shape() + x.ndim());
    const py::array values = apart_from(x, out);
    auto& desc = recurrence_desc(simdscan::CumulativeOperator::forward_fill, values, axis);
    py::array flags;
    if (!reset.is_none()) {
        flags = apart_from(py::reinterpret_borrow<py::array>(reset), out);
        describe_broadcast(desc.reset, flags, sizes);
    }
    desc.direction = reverse ? simdscan::AxisDirection::decreasing : simdscan::AxisDirection::increasing;
    desc.fill_limit = limit;
    return run_into(desc, values, out, native(values.dtype()));
}

void initialise(const py::object& direction_type) {
    const py::module_ numpy = py::module_::import("numpy");
    py::object axis_error;
    try {
        axis_error = py::module_::import("numpy.exceptions").attr("AxisError");
    } catch (const py::error_already_set&) {
        axis_error = numpy.attr("AxisError");  // NumPy < 1.25
    }
    const py::object bool_result =
        numpy.attr("cumsum")(numpy.attr("zeros")(1, py::arg("dtype") = "bool")).attr("dtype");
    objects = new PythonObjects{numpy.attr("ndarray"), numpy.attr("asarray"), axis_error, direction_type,
                                direction_type.attr("DECREASING"), py::dtype(bool_result), py::dtype("intp")};
    initialise_result_memory();
}

// A C entry point's result: make()'s object as a new reference, or null with the Python error set from what it threw
// (pybind11's own mapping to Python errors).
template <class Make>
PyObject* to_python(Make&& make) {
    try {
        return make().release().ptr();
    } catch (...) {
        py::detail::translate_exception(std::current_exception());
        return nullptr;
    }
}

// METH_FASTCALL functions are stored as PyCFunction; the detour through void (*)() tells the compiler so.
template <class Function>
PyCFunction as_method(Function* function) {
    return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(function));
}

// The two scan entry points take positional arguments through METH_FASTCALL: pybind11's dispatcher (an argument
// vector, a tuple and a caster per argument) cost a small scan a good share of its time (benchmarks/README.md).
template <Py_ssize_t Arity, py::object (*Body)(PyObject* const* args)>
PyObject* positional(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    return to_python([&] {
        if (nargs != Arity) {
            throw py::type_error("takes " + std::to_string(Arity) + " positional arguments, got " +
                                 std::to_string(nargs));
        }
        return Body(args);
    });
}

// scan(op, a, axis, direction, exclusive, dtype, out, compensated, skip_nan, reset, labels)
py::object scan(PyObject* const* args) {
    return cumulative(parse_operator(args[0]), args[1], args[2], args[3], args[4], truth(args[7]), truth(args[8]),
                      args[5], args[6], false, Py_None, args[9], args[10]);
}

// scan_indexed(op, a, axis, direction, exclusive, out, reset, labels): out is None or a pair (values, indices).
py::object scan_indexed(PyObject* const* args) {
    py::handle out = args[5];
    py::handle indices_out = Py_None;
    if (!out.is_none()) {
        if (!PyTuple_Check(out.ptr()) || PyTuple_GET_SIZE(out.ptr()) != 2) {
            throw py::type_error("with return_indices=True, out must be None or a tuple (values, indices)");
        }
        indices_out = PyTuple_GET_ITEM(out.ptr(), 1);
        out = PyTuple_GET_ITEM(out.ptr(), 0);
    }
    return cumulative(parse_operator(args[0]), args[1], args[2], args[3], args[4], false, false, Py_None, out, true,
                      indices_out, args[6], args[7]);
}

// A public scan's own call (fast_scan): its Python function's body, made without the Python frame (much of a small
// cumsum's time: benchmarks/README.md) for the calls that body hands straight to cumulative, a checked pair of axes
// included (is_checked_pair). Any other call (another tuple axis, a keyword the fast path does not take, an argument
// given twice or missing) is the Python function's, errors included.
struct FastScan {
    // The arguments by slot: a and axis (by position or keyword), then the keywords the function may take.
    enum Slot { a, axis, direction, exclusive, dtype, out, compensated, slots };
    py::object function;
    CumulativeOperator op;
    bool skip_nan;
    unsigned takes;    // the slots the function takes, a bit each
    std::string name;  // name and doc (its text signature and docstring): PyMethodDef keeps their pointers
    std::string doc;
    // Each slot's value when not given: the function's default where it takes the slot, else what its body passes.
    py::object defaults[slots] = {py::object(), py::none(), objects->increasing, py::bool_(false),
                                  py::none(),   py::none(), py::bool_(false)};
    PyMethodDef definition{};
};

// The slot a keyword names, FastScan::slots for none.
int slot_of(PyObject* keyword) {
    int slot = 0;
    while (slot < FastScan::slots && !names(keyword, objects->argument_names[slot])) {
        ++slot;
    }
    return slot;
}

// Whether a tuple axis is a pair that the Python function's scan_axes would hand the core as it is, in one call: two
// ints naming two axes of an ndarray, with a direction (str or Direction) and a flag (no tuple), or a pair of each.
// Any other tuple goes to the function, whose checks raise its errors (a small summed-area table is far slower
// through it: benchmarks/README.md).
bool is_checked_pair(PyObject* const* values) {
    PyObject* axis = values[FastScan::axis];
    PyObject* a = values[FastScan::a];
    if (PyTuple_GET_SIZE(axis) != 2 || Py_TYPE(a) != reinterpret_cast<PyTypeObject*>(objects->ndarray.ptr())) {
        return false;
    }
    const long long ndim = py::reinterpret_borrow<py::array>(a).ndim();
    long long axes[2];
    for (Py_ssize_t i = 0; i < 2; ++i) {
        PyObject* entry = PyTuple_GET_ITEM(axis, i);
        if (!PyLong_CheckExact(entry)) {
            return false;
        }
        int overflow = 0;
        const long long value = PyLong_AsLongLongAndOverflow(entry, &overflow);
        if (overflow != 0 || value < -ndim || value >= ndim) {
            return false;
        }
        axes[i] = value < 0 ? value + ndim : value;
    }
    const auto per_axis = [](PyObject* value, auto&& takes) {
        if (!PyTuple_Check(value)) {
            return takes(value);
        }
        return PyTuple_GET_SIZE(value) == 2 && takes(PyTuple_GET_ITEM(value, 0)) && takes(PyTuple_GET_ITEM(value, 1));
    };
    const auto is_direction = [](PyObject* d) {
        return PyUnicode_Check(d) || Py_TYPE(d) == reinterpret_cast<PyTypeObject*>(objects->direction_type.ptr());
    };
    const auto is_flag = [](PyObject* e) { return !PyTuple_Check(e) && !PyList_Check(e); };
    return axes[0] != axes[1] && per_axis(values[FastScan::direction], is_direction) &&
           per_axis(values[FastScan::exclusive], is_flag);
}

PyObject* fast_scan_call(const FastScan& scan, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    PyObject* values[FastScan::slots];
    for (int slot = 0; slot < FastScan::slots; ++slot) {
        values[slot] = scan.defaults[slot].ptr();
    }
    bool general = nargs > 2;
    unsigned given = 0;
    for (Py_ssize_t i = 0; i < nargs && !general; ++i) {
        values[i] = args[i];
        given |= 1u << i;
    }
    const Py_ssize_t keyword_count = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < keyword_count && !general; ++k) {
        const int slot = slot_of(PyTuple_GET_ITEM(kwnames, k));
        const unsigned bit = 1u << slot;
        general = slot == FastScan::slots || (scan.takes & bit) == 0 || (given & bit) != 0;
        if (!general) {
            values[slot] = args[nargs + k];
            given |= bit;
        }
    }
    // An input that is not exactly an ndarray (a subclass, a masked or a Dask array, a list) is the function's: read
    // through numpy.asarray here, it would lose what it is.
    if (general || values[FastScan::a] == nullptr ||
        Py_TYPE(values[FastScan::a]) != reinterpret_cast<PyTypeObject*>(objects->ndarray.ptr()) ||
        (PyTuple_Check(values[FastScan::axis]) && !is_checked_pair(values))) {
        return PyObject_Vectorcall(scan.function.ptr(), args, std::size_t(nargs), kwnames);
    }
    return to_python([&] {
        return cumulative(scan.op, values[FastScan::a], values[FastScan::axis], values[FastScan::direction],
                          values[FastScan::exclusive], truth(values[FastScan::compensated]), scan.skip_nan,
                          values[FastScan::dtype], values[FastScan::out]);
    });
}

// One C function per public scan, each with its FastScan: a builtin whose self is null is a "built-in function" to
// repr, help and inspect, where one bound to a capsule would be a method of it.
constexpr std::size_t fast_scan_capacity = 16;
const FastScan* fast_scans[fast_scan_capacity] = {};
std::size_t fast_scan_count = 0;

template <std::size_t Index>
PyObject* fast_scan_entry(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    return fast_scan_call(*fast_scans[Index], args, nargs, kwnames);
}
template <std::size_t... Index>
std::array<PyCFunction, sizeof...(Index)> fast_scan_entries(std::index_sequence<Index...>) {
    return {as_method(&fast_scan_entry<Index>)...};
}

// fast_scan(function, op, defaults, skip_nan, doc): a builtin that calls as `function` does (see FastScan); defaults
// maps axis and the keywords it takes to their defaults, doc is its text signature and docstring. Made once per
// public scan at import, and kept for the process's life.
py::object fast_scan(const py::object& function, const py::str& op, const py::dict& defaults, bool skip_nan,
                     const std::string& doc) {
    static const auto entries = fast_scan_entries(std::make_index_sequence<fast_scan_capacity>());
    if (fast_scan_count == fast_scan_capacity) {
        throw std::length_error("more public scans than fast_scan_capacity");
    }
    auto* scan = new FastScan{function, parse_operator(op.ptr()), skip_nan, 1u << FastScan::a,
                              function.attr("__name__").cast<std::string>(), doc};
    for (const auto& [keyword, value] : defaults) {
        const int slot = PyUnicode_Check(keyword.ptr()) ? slot_of(keyword.ptr()) : int(FastScan::slots);
        if (slot == FastScan::a || slot == FastScan::slots) {
            throw py::value_error("fast_scan takes no argument " + py::repr(keyword).cast<std::string>());
        }
        scan->takes |= 1u << slot;
        scan->defaults[slot] = py::reinterpret_borrow<py::object>(value);
    }
    scan->definition = {scan->name.c_str(), entries[fast_scan_count], METH_FASTCALL | METH_KEYWORDS,
                        scan->doc.c_str()};
    fast_scans[fast_scan_count++] = scan;
    const py::object module = function.attr("__module__");
    PyObject* made = PyCFunction_NewEx(&scan->definition, nullptr, module.ptr());
    if (made == nullptr) {
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(made);
}

template <Py_ssize_t Arity, py::object (*Body)(PyObject* const* args)>
PyCFunction fastcall_entry() {
    return as_method(&positional<Arity, Body>);
}

PyMethodDef scan_functions[] = {
    {"scan", fastcall_entry<11, scan>(), METH_FASTCALL,
     "scan(op, a, axis, direction, exclusive, dtype, out, compensated, skip_nan, reset, labels): the scan of a along "
     "axis with op in add, multiply, maximum, minimum, logaddexp, ffill; axis may be a pair, with a pair of "
     "directions and of flags, for the scan along the first and then the second; reset None or a bool array of a's "
     "shape, true where a segment begins; labels None or an int64 array of a's shape, each element's group."},
    {"scan_indexed", fastcall_entry<8, scan_indexed>(), METH_FASTCALL,
     "scan_indexed(op, a, axis, direction, exclusive, out, reset, labels): (values, indices) of a running maximum or "
     "minimum along axis; out is None or a pair (values, indices)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "simdscan's native core (private: use the simdscan package)";
    m.def("_initialise", &initialise, py::arg("direction_type"), "Called once by simdscan/_runtime.py.");
    PyModule_AddFunctions(m.ptr(), scan_functions);
    m.def("fast_scan", &fast_scan, py::arg("function"), py::arg("op"), py::arg("defaults"), py::arg("skip_nan"),
          py::arg("doc"), "A builtin that calls as function does, the calls its body hands to scan made in C++.");
    m.def("linear_recurrence", &linear_recurrence, py::arg("b"), py::arg("a"), py::arg("initial"), py::arg("reset"),
          py::arg("out"), py::arg("axis"), py::arg("reverse"), py::arg("exclusive"), py::arg("dtype") = py::none(),
          "linear_recurrence(b, a, initial, reset, out, axis, reverse, exclusive, dtype=None): the recurrence "
          "y = a * y + b along axis (from the end where reverse), a broadcast to b's shape, initial to its lines, in "
          "dtype (None: b's); returns out, or a new array; for simdscan.linear_recurrence.");
    m.def("weighted_mean", &weighted_mean, py::arg("x"), py::arg("out"), py::arg("axis"), py::arg("alpha"),
          py::arg("adjust"), py::arg("ignore_na"), py::arg("dtype") = py::none(), py::arg("states") = py::none(),
          "weighted_mean(x, out, axis, alpha, adjust, ignore_na, dtype=None, states=None): pandas' exponentially "
          "weighted mean along axis, in dtype (None: x's), each line from and into its state in states where given; "
          "returns out, or a new array; for simdscan.ewm_mean and simdscan.dask.ewm_mean.");
    m.def("limited_fill", &limited_fill, py::arg("x"), py::arg("out"), py::arg("axis"), py::arg("reverse"),
          py::arg("limit"), py::arg("reset"),
          "limited_fill(x, out, axis, reverse, limit, reset): ffill along axis filling at most limit NaN in a row "
          "(reset: None or bool segment starts); returns out, or a new array; for simdscan.ffill.");
    m.def("isa", &simdscan::active_isa, "The active ISA tier.");
    m.def("_last_path", &simdscan::last_path, "Which runner this thread's last scan took (for the tests).");
    m.def("supported_isas", &simdscan::supported_isas, "ISA tiers this CPU supports, lowest first.");
    m.def("compiled_isas", &simdscan::compiled_isas, "ISA tiers compiled into this build, lowest first.");
    m.def("select_isa", &simdscan::select_isa, py::arg("name"), "Forces an ISA tier among supported_isas().");
    m.def("falling_row_walk", &simdscan::falling_row_walk,
          "How a decreasing scan along an outer axis walks a row: 'down' (from its end) or 'up'.");
    m.def("select_falling_row_walk", &simdscan::select_falling_row_walk, py::arg("name"),
          "Forces the falling row walk: 'down' or 'up'.");
    m.def("streaming_threshold", &simdscan::streaming_threshold,
          "Bytes read and written together from which a scan's output goes past the caches.");
    m.def("select_streaming_threshold", &simdscan::select_streaming_threshold, py::arg("nbytes"),
          "Forces the streaming threshold, in bytes.");
    m.def("set_num_threads", &simdscan::set_num_threads, py::arg("n"));
    m.def("get_num_threads", &simdscan::get_num_threads);
    m.def(
        "new_result",
        [](const py::array& prototype, const py::dtype& dtype, const std::vector<py::ssize_t>& shape) {
            py::array result = [&] {
                const CachedResults cached(std::size_t(dtype.itemsize()) *
                                           std::size_t(std::accumulate(shape.begin(), shape.end(), py::ssize_t(1),
                                                                       std::multiplies<>())));
                return new_like(prototype, dtype, shape);
            }();
            void* data = result.mutable_data();
            const auto bytes = std::size_t(result.nbytes());
            py::gil_scoped_release release;
            simdscan::fault_in(data, bytes);  // all the threads map its pages, as for the scans' own results
            return result;
        },
        py::arg("prototype"), py::arg("dtype"), py::arg("shape"),
        "A new array of shape (as many axes as prototype's) in prototype's memory order, for a result made in "
        "Python: large ones reuse the memory of freed results, as the scans' own do.");
    m.def(
        "set_result_cache_size",
        [](std::size_t bytes) {
            if (result_memory != nullptr) {
                result_memory->cache.set_limit(bytes);
            }
        },
        py::arg("nbytes"));
    m.def("get_result_cache_size",
          [] { return result_memory != nullptr ? result_memory->cache.limit() : std::size_t(0); });
    m.def("result_cache_kept_bytes",
          [] { return result_memory != nullptr ? result_memory->cache.kept_bytes() : std::size_t(0); },
          "Bytes of freed results kept now.");
    m.attr("xsimd_version") = SIMDSCAN_XSIMD_VERSION;
    m.attr("xsimd_source") = SIMDSCAN_XSIMD_SOURCE;  // installed, pythran or directory (CMakeLists.txt)
    m.attr("__version__") = SIMDSCAN_VERSION;
}
