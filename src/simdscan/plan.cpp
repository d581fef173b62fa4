// Layout analysis: checks a job's description, puts it in scan order, and chooses the path that runs it.
#include "plan.hpp"

#include <stdexcept>
#include <type_traits>
#include <utility>

#include "element_types.hpp"
#include "kernels.hpp"

namespace simdscan {
namespace detail {
namespace {

// The output must not overlap itself: with axes sorted by stride, each must step past the extent of the previous.
bool has_internal_overlap(const TensorView& view) {
    // (|stride|, size) of the axes longer than 1: on the stack for up to 8 axes (a vector was an allocation a call).
    using StrideSize = std::pair<std::ptrdiff_t, std::ptrdiff_t>;
    constexpr std::size_t stack_axes = 8;
    StrideSize on_stack[stack_axes];
    std::vector<StrideSize> on_heap(view.sizes.size() > stack_axes ? view.sizes.size() : 0);
    StrideSize* const dims = on_heap.empty() ? on_stack : on_heap.data();
    std::size_t count = 0;
    for (std::size_t d = 0; d < view.sizes.size(); ++d) {
        if (view.sizes[d] == 0) {
            return false;
        }
        if (view.sizes[d] > 1) {
            dims[count++] = {magnitude(view.byte_strides[d]), view.sizes[d]};
        }
    }
    std::sort(dims, dims + count);
    std::ptrdiff_t extent = std::ptrdiff_t(element_size(view.data_type));
    for (std::size_t i = 0; i < count; ++i) {
        if (dims[i].first < extent) {
            return true;
        }
        extent = dims[i].first * (dims[i].second - 1) + extent;
    }
    return false;
}

bool aligned_to(const void* p, std::ptrdiff_t alignment) {
    return reinterpret_cast<std::uintptr_t>(p) % std::uintptr_t(alignment) == 0;
}

// Whether kernels may read and write the arrays themselves: stored as computed, native order, aligned.
bool kernels_on_arrays(const Plan& plan) {
    const std::ptrdiff_t alignment = plan.element_alignment;
    bool on_arrays = !plan.converted && plan.widen == nullptr && !plan.in_swapped && !plan.out_swapped;
    for (const std::size_t role : {Role::in, Role::out}) {
        on_arrays = on_arrays && aligned_to(plan.data[role], alignment) && plan.step[role] % alignment == 0;
        for (const Dim& dim : plan.others) {
            on_arrays = on_arrays && dim.stride[role] % alignment == 0;
        }
    }
    return on_arrays;
}

// How elements of a data type are stored: bytes, alignment, elements per chunk, and whether the kernels compute
// in another type (float16).
struct Storage {
    std::ptrdiff_t size;
    std::ptrdiff_t alignment;
    std::ptrdiff_t chunk;
    bool converted;
    bool integer;  // sums wrap the same in any grouping
};
Storage storage_of(DataType t) {
    return visit_element_types(t, [](auto types) {
        using Types = decltype(types);
        using Stored = typename Types::Stored;
        using Compute = typename Types::Compute;
        return Storage{std::ptrdiff_t(sizeof(Stored)), std::ptrdiff_t(alignof(Stored)), chunk_elements<Compute>(),
                       !std::is_same<Stored, Compute>::value,
                       std::is_integral<Compute>::value && !std::is_same<Compute, bool>::value};
    });
}

// Which operators, with which options, take which data types (the output's: an input that widens is read as it).
void check_operator_takes(const CumulativeOperatorDesc& desc) {
    const OperatorTraits& traits = operator_traits(desc.op);
    if (desc.compensated && !traits.compensates) {
        throw std::invalid_argument(std::string("no compensated ") + traits.name);
    }
    if (desc.skip_nan && !traits.skips_nan) {
        throw std::invalid_argument(std::string("no ") + traits.name + " skips NaN");
    }
    const std::string why = refusal(desc.op, desc.output.data_type);
    if (!why.empty()) {
        throw std::invalid_argument(why);
    }
}

// Starts the plan's operands at the last element of an axis of `size` with these strides, and negates the strides.
void walk_backwards(Plan& plan, std::ptrdiff_t size, OperandBytes& strides) {
    plan.data = operands_at(plan.data, {}, size - 1, strides);
    for (std::ptrdiff_t& stride : strides) {
        stride = -stride;
    }
}

// An operand's byte strides along every axis, or 0s for a role the job lacks.
std::ptrdiff_t stride_of(const TensorView& view, std::size_t axis) {
    return view.data != nullptr ? view.byte_strides[axis] : 0;
}

// The operands in Role's order.
std::array<const TensorView*, Role::count> operand_views(const CumulativeOperatorDesc& desc) {
    return {&desc.input, &desc.output, &desc.indices, &desc.reset, &desc.labels, &desc.coefficient, &desc.initial};
}

// Whether the recurrences' runner reads elements of type `from` as `to`'s (recurrences/staging.hpp): by NumPy's
// 'same_kind' casts (complex only to complex); a fill's outputs are its input's elements, of the output's type.
bool runner_reads(DataType from, DataType to, bool fills) {
    return fills ? from == to : is_complex(to) || !is_complex(from);
}

// The type a result of type t is computed in on the recurrences' runner (an initial state's): float16's in float32.
DataType computed_as(DataType t) {
    return t == DataType::float16 ? DataType::float32 : t;
}

// What an operand of a role past the output must be: which operators take it (OperatorTraits), with which options,
// whether they need it, its data type in native order (a recurrence's coefficients and initial state: as the
// runner reads them), and whether the job writes it.
struct RoleRule {
    const char* name;
    bool OperatorTraits::*taken;
    bool OperatorTraits::*alternative;  // another trait that takes it too, or null
    bool with_second_axis;
    bool without_skipping_nan;
    bool required;  // where `taken` takes it
    DataType data_type;  // (not read for a recurrence's coefficients and initial state)
    bool written;
};
constexpr RoleRule role_rules[Role::count] = {
    {"input", nullptr, nullptr, true, false, true, DataType::float32, false},  // (checked apart)
    {"output", nullptr, nullptr, true, false, true, DataType::float32, true},  // (checked apart)
    {"indices", &OperatorTraits::writes_indices, nullptr, false, true, false, DataType::int64, true},
    {"reset", &OperatorTraits::takes_segments, nullptr, false, false, false, DataType::boolean, false},
    {"labels", &OperatorTraits::takes_groups, nullptr, false, false, false, DataType::int64, false},
    {"coefficient", &OperatorTraits::recurs, nullptr, false, false, true, DataType::float32, false},
    {"initial", &OperatorTraits::recurs, &OperatorTraits::carries_states, false, false, true, DataType::float32, false},
};

}  // namespace

void validate(const CumulativeOperatorDesc& desc) {
    const TensorView& in = desc.input;
    const TensorView& out = desc.output;
    if (in.sizes.size() != in.byte_strides.size() || out.sizes.size() != out.byte_strides.size()) {
        throw std::invalid_argument("tensor view: sizes and strides differ in length");
    }
    if (in.sizes != out.sizes) {
        throw std::invalid_argument("output sizes differ from input sizes");
    }
    if (on_recurrence_runner(desc)) {
        if (!runner_reads(in.data_type, out.data_type, desc.fill_limit > 0)) {
            throw std::invalid_argument("the recurrences' runner reads its input as the output's type by 'same_kind' "
                                        "casts (a fill: the output's type itself)");
        }
    } else if (in.data_type != out.data_type &&
               (in.byte_swapped || out.byte_swapped || !simdscan::widens_exactly(in.data_type, out.data_type))) {
        throw std::invalid_argument("output data type differs from input data type, and is not one the input widens "
                                    "to exactly (both in native order)");
    }
    check_operator_takes(desc);
    if (desc.axis >= in.sizes.size()) {
        throw std::invalid_argument("axis out of range");
    }
    if (desc.then && (desc.then->axis >= in.sizes.size() || desc.then->axis == desc.axis)) {
        throw std::invalid_argument("the axis scanned then is out of range or the scan axis itself");
    }
    for (std::ptrdiff_t size : in.sizes) {
        if (size < 0) {
            throw std::invalid_argument("negative size");
        }
    }
    if (has_internal_overlap(out)) {
        throw std::invalid_argument("output elements overlap each other");
    }
    const OperatorTraits& traits = operator_traits(desc.op);
    if (desc.exclusive && !traits.takes_segments) {
        throw std::invalid_argument(std::string("no exclusive ") + traits.name);
    }
    if (desc.then && !traits.takes_groups) {
        throw std::invalid_argument(std::string("no ") + traits.name + " along two axes");
    }
    if (desc.fill_limit < 0 || (desc.fill_limit > 0 && (!traits.fills || desc.labels.data != nullptr || desc.then))) {
        throw std::invalid_argument("a fill limit is positive, of a forward fill without labels or a second axis");
    }
    const auto views = operand_views(desc);
    for (std::size_t role = Role::indices; role < Role::count; ++role) {
        const TensorView& view = *views[role];
        const RoleRule& rule = role_rules[role];
        const bool by_trait = traits.*rule.taken;
        const bool taken = (by_trait || (rule.alternative != nullptr && traits.*rule.alternative)) &&
                           !(desc.then && !rule.with_second_axis) && !(rule.without_skipping_nan && desc.skip_nan);
        if (view.data == nullptr) {
            if (rule.required && by_trait && taken) {
                throw std::invalid_argument(std::string("a ") + traits.name + " needs its " + rule.name);
            }
            continue;
        }
        if (!taken) {
            throw std::invalid_argument(std::string("no ") + traits.name + " with these options takes " + rule.name);
        }
        if (view.sizes != in.sizes || view.byte_strides.size() != view.sizes.size()) {
            throw std::invalid_argument(std::string(rule.name) + " sizes differ from input sizes");
        }
        const bool right_type = role == Role::coefficient ? runner_reads(view.data_type, out.data_type, false)
                                : role == Role::initial    ? view.data_type == computed_as(out.data_type)
                                                           : view.data_type == rule.data_type;
        if (!right_type || (view.byte_swapped && role != Role::coefficient)) {
            throw std::invalid_argument(std::string(rule.name) + " are of the wrong data type or byte order");
        }
        if (rule.written && has_internal_overlap(view)) {
            throw std::invalid_argument(std::string(rule.name) + " overlap each other");
        }
    }
    if (desc.reset.data != nullptr && desc.labels.data != nullptr) {
        throw std::invalid_argument("a scan takes reset or labels, not both");
    }
    if (desc.initial.data != nullptr && in.sizes[desc.axis] > 1 && desc.initial.byte_strides[desc.axis] != 0) {
        throw std::invalid_argument("initial is a state a line: stride 0 along the axis");
    }
    for (std::size_t d = 0; desc.initial.data != nullptr && traits.carries_states && d < in.sizes.size(); ++d) {
        if (d != desc.axis && in.sizes[d] > 1 && desc.initial.byte_strides[d] == 0) {
            throw std::invalid_argument("the lines' states are written back: one of its own a line");
        }
    }
}

Plan make_plan(const CumulativeOperatorDesc& desc) {
    const TensorView& in = desc.input;
    const TensorView& out = desc.output;
    const auto views = operand_views(desc);
    const auto strides_along = [&](std::size_t axis) {
        OperandBytes strides;
        for (std::size_t role = 0; role < Role::count; ++role) {
            strides[role] = stride_of(*views[role], axis);
        }
        return strides;
    };
    Operands data;
    for (std::size_t role = 0; role < Role::count; ++role) {
        data[role] = static_cast<char*>(const_cast<void*>(views[role]->data));
    }
    Plan plan{data,
              in.sizes[desc.axis], strides_along(desc.axis), {}, 1, 0, 0, 0, false, in.byte_swapped,
              out.byte_swapped, desc.direction == AxisDirection::decreasing};
    const Storage storage = storage_of(out.data_type);  // the input's, or its own where the input widens to it
    plan.element_size = storage.size;
    plan.in_element_size = std::ptrdiff_t(element_size(in.data_type));
    plan.element_alignment = storage.alignment;
    plan.converted = storage.converted;
    if (plan.decreasing) {
        walk_backwards(plan, plan.n, plan.step);
    }
    for (std::size_t d = 0; d < in.sizes.size(); ++d) {
        if (d == desc.axis || in.sizes[d] == 1) {
            continue;
        }
        Dim dim{in.sizes[d], strides_along(d)};
        // Lines are independent, so any other axis may be walked backwards: make the output's strides positive.
        if (dim.stride[Role::out] < 0) {
            walk_backwards(plan, dim.size, dim.stride);
        }
        plan.others.push_back(dim);
        plan.lines *= dim.size;
    }
    std::stable_sort(plan.others.begin(), plan.others.end(), [](const Dim& a, const Dim& b) {
        return a.stride[Role::out] != b.stride[Role::out] ? a.stride[Role::out] > b.stride[Role::out]
                                                          : a.stride[Role::in] > b.stride[Role::in];
    });
    std::vector<Dim> merged;
    for (const Dim& dim : plan.others) {
        if (!merged.empty()) {
            Dim& outer = merged.back();
            bool contiguous = true;  // for every operand, the outer axis steps over the whole inner one
            for (std::size_t role = 0; role < Role::count; ++role) {
                contiguous = contiguous && outer.stride[role] == dim.stride[role] * dim.size;
            }
            if (contiguous) {
                outer = Dim{outer.size * dim.size, dim.stride};
                continue;
            }
        }
        merged.push_back(dim);
    }
    plan.others = std::move(merged);
    return plan;
}

Path choose_path(const Plan& plan) {
    const bool on_arrays = kernels_on_arrays(plan);
    const std::ptrdiff_t size = plan.element_size;
    const std::ptrdiff_t in_step = plan.step[Role::in];
    const std::ptrdiff_t out_step = plan.step[Role::out];
    // The indexed kernel takes blocks in scan order: the line path hands them over, in place where the arrays allow.
    if (on_arrays && in_step == out_step && magnitude(in_step) == size && !plan.has(Role::indices)) {
        return Path::direct;
    }
    // Another axis lies closer together than the scan axis: walk whole rows of it, never one column at a time.
    // (Not a segmented scan: its segments are lines, each scanned on its own.)
    if (plan.n > 1 && !plan.has(Role::reset) && !plan.others.empty() && plan.others.back().size >= 8 &&
        magnitude(plan.others.back().stride[Role::out]) < magnitude(out_step) &&
        magnitude(plan.others.back().stride[Role::in]) < magnitude(in_step)) {
        const Dim& inner = plan.others.back();
        return on_arrays && inner.stride[Role::in] == size && inner.stride[Role::out] == size ? Path::outer
                                                                                               : Path::outer_buffered;
    }
    return Path::lines_buffered;
}

std::optional<TwoAxesPlan> make_two_axes_plan(const CumulativeOperatorDesc& desc) {
    const TensorView& in = desc.input;
    const TensorView& out = desc.output;
    const Storage in_storage = storage_of(in.data_type);  // the output's, or a type that widens to it
    const Storage storage = storage_of(out.data_type);
    // The separate scans' paths, whose arithmetic the kernels repeat to the bit: the row axis contiguous in both
    // arrays, its rows wider than any vector of packed rows (scan_rows) and within a chunk, on the direct path; the
    // column axis on the outer path, a step apart in what its scan reads (the input when it comes first, or the
    // output the input was widened into). Exact sums are the same in any grouping, so their rows may be narrower
    // (one pass rather than two: benchmarks/README.md): integers', and a float64 sum of uint8 values
    // while every partial sum is below 2^53 (at most 255 per element; a row's sum in int32 lanes stays below 2^31,
    // a row being at most a chunk: 32768 float64 elements).
    std::ptrdiff_t elements = 1;
    for (const std::ptrdiff_t size : in.sizes) {
        elements *= size;
    }
    const bool exact_doubles = in.data_type == DataType::uint8 && out.data_type == DataType::float64 &&
                               elements <= (std::ptrdiff_t(1) << 53) / 255;
    const bool exact = storage.integer || exact_doubles;
    const auto is_row_axis = [&](std::size_t d) {
        return (in.sizes[d] > 64 || exact) && in.sizes[d] <= storage.chunk && in.byte_strides[d] == in_storage.size &&
               out.byte_strides[d] == storage.size;
    };
    const AxisScan first{desc.axis, desc.direction, desc.exclusive};
    const bool rows_first = !is_row_axis(desc.then->axis) && is_row_axis(first.axis);
    const AxisScan& row = rows_first ? first : *desc.then;
    const AxisScan& column = rows_first ? *desc.then : first;
    const bool columns_as_outer_path = rows_first || (magnitude(in.byte_strides[column.axis]) > in_storage.size &&
                                                      magnitude(out.byte_strides[column.axis]) > storage.size);
    const bool plain_sum = operator_traits(desc.op).builds_tables && !desc.compensated && !desc.skip_nan;
    if (!plain_sum || in_storage.converted || storage.converted || in.byte_swapped || out.byte_swapped ||
        !is_row_axis(row.axis) || !columns_as_outer_path || !aligned_to(in.data, in_storage.alignment) ||
        !aligned_to(out.data, storage.alignment)) {
        return std::nullopt;
    }
    for (std::size_t d = 0; d < in.sizes.size(); ++d) {
        if (in.byte_strides[d] % in_storage.alignment != 0 || out.byte_strides[d] % storage.alignment != 0) {
            return std::nullopt;
        }
    }
    TwoAxesPlan plan{static_cast<const char*>(in.data), static_cast<char*>(out.data), in.sizes[row.axis],
                     in.sizes[column.axis], in.byte_strides[column.axis], out.byte_strides[column.axis], rows_first,
                     row.direction == AxisDirection::decreasing, row.exclusive, column.exclusive, {}, 1,
                     in_storage.size, false};
    if (column.direction == AxisDirection::decreasing) {
        plan.in += (plan.height - 1) * plan.in_row_step;
        plan.out += (plan.height - 1) * plan.out_row_step;
        plan.in_row_step = -plan.in_row_step;
        plan.out_row_step = -plan.out_row_step;
    }
    for (std::size_t d = 0; d < in.sizes.size(); ++d) {
        if (d != row.axis && d != column.axis && in.sizes[d] > 1) {
            plan.images.push_back(Dim{in.sizes[d], {in.byte_strides[d], out.byte_strides[d], 0}});
            plan.image_count *= in.sizes[d];
        }
    }
    plan.byte_rows = in.data_type == DataType::uint8 &&
                     (out.data_type == DataType::int32 || out.data_type == DataType::uint32 || exact_doubles);
    return plan;
}

namespace {
thread_local const char* last_runner = "none";
}  // namespace

void note_runner(const char* name) { last_runner = name; }

void for_each_run(const std::vector<Dim>& dims, std::ptrdiff_t begin, std::ptrdiff_t end,
                  FunctionRef<void(const LineOffsets& first, std::ptrdiff_t count)> visit) {
    if (dims.empty()) {
        if (begin < end) {
            visit(LineOffsets{}, std::ptrdiff_t(1));
        }
        return;
    }
    const std::size_t last = dims.size() - 1;
    std::vector<std::ptrdiff_t> index(dims.size());
    std::ptrdiff_t rest = begin;
    for (std::size_t d = dims.size(); d-- > 0;) {
        index[d] = rest % dims[d].size;
        rest /= dims[d].size;
    }
    std::ptrdiff_t line = begin;
    while (line < end) {
        LineOffsets first{};
        for (std::size_t d = 0; d < dims.size(); ++d) {
            for (std::size_t role = 0; role < Role::count; ++role) {
                first[role] += index[d] * dims[d].stride[role];
            }
        }
        const std::ptrdiff_t count = std::min(dims[last].size - index[last], end - line);
        visit(first, count);
        line += count;
        index[last] += count;
        for (std::size_t d = last; d > 0 && index[d] == dims[d].size; --d) {
            index[d] = 0;
            ++index[d - 1];
        }
    }
}

}  // namespace detail

bool widens_exactly(DataType from, DataType to) {
    return detail::visit_element_types(from, [&](auto from_types) {
        return detail::visit_element_types(to, [&](auto to_types) {
            return detail::widens_exactly<decltype(from_types), decltype(to_types)>();
        });
    });
}

std::string last_path() { return detail::last_runner; }

std::size_t element_size(DataType t) {
    return detail::visit_element_types(t, [](auto types) { return sizeof(typename decltype(types)::Stored); });
}

}  // namespace simdscan
