// Layout analysis: checks a job's description, puts it in scan order, and chooses the path that runs it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "function_ref.hpp"
#include "scan.hpp"

namespace simdscan {
namespace detail {

// The roles of a job's operands: views of one shape, walked together, each with its own byte strides. Planning
// merges a dimension only where every operand allows it, and the runners hand the kernels each operand's span.
struct Role {
    enum : std::size_t {
        in,
        out,
        indices,  // the positions that supplied an extremum's values, where the job writes them
        reset,    // one byte per element, nonzero where a segment begins in index order (segments.hpp)
        labels,   // an int64 per element, its group (groups.hpp)
        coefficient,  // a linear recurrence's a, stride 0 where it repeats
        initial,      // a linear recurrence's state before each line, stride 0 along the axis
        count,
    };
};

// A byte offset or stride for each operand (0 for a role the job lacks).
using OperandBytes = std::array<std::ptrdiff_t, Role::count>;
// A pointer into each operand (null for a role the job lacks); the input's is only read.
using Operands = std::array<char*, Role::count>;

struct Dim {
    std::ptrdiff_t size;
    OperandBytes stride;
};

// Converts n elements `in_step` bytes apart to a type that holds each exactly, stored `out_step` bytes apart; any
// alignment.
using WidenFn = void (*)(const char* in, std::ptrdiff_t in_step, char* out, std::ptrdiff_t out_step, std::ptrdiff_t n);

// The job in scan order: pointers to each line's first element in scan order, the byte step between successive
// elements of a line, the other axes (sizes > 1, merged where possible, outermost first), and how elements are
// stored.
struct Plan {
    Operands data;
    std::ptrdiff_t n;
    OperandBytes step;
    std::vector<Dim> others;
    std::ptrdiff_t lines;
    std::ptrdiff_t element_size;       // bytes of one stored element
    std::ptrdiff_t in_element_size;    // bytes of an input element: fewer where the input widens
    std::ptrdiff_t element_alignment;  // the stored type's alignment
    bool converted;                    // stored in another type than the kernels compute in (float16)
    bool in_swapped;                   // the input is stored in the opposite byte order to the machine's
    bool out_swapped;
    bool decreasing;                   // scan position p is index n - 1 - p along the axis
    WidenFn widen = nullptr;           // an input of a narrower type (widens_exactly): its converter to the output's

    bool has(std::size_t role) const { return data[role] != nullptr; }
};

// Throws std::invalid_argument for an inconsistent description.
void validate(const CumulativeOperatorDesc& desc);

// The plan of a valid description with no empty axis.
Plan make_plan(const CumulativeOperatorDesc& desc);

// How a plan runs (paths.hpp).
enum class Path : std::uint8_t {
    direct,          // the scan axis is element-contiguous in input and output: kernels run on the arrays
    outer,           // another axis is contiguous: whole rows of the arrays combine elementwise, in NumPy's order
    outer_buffered,  // as outer, each tile's rows gathered into a buffer (strided, byte-swapped, float16, misaligned)
    lines_buffered,  // anything else: blocks of a line gathered into a buffer in scan order, scanned, scattered back
};

Path choose_path(const Plan& plan);

// Whether the recurrences' runner (recurrences/jobs.cpp) runs a job: its operator's (OperatorTraits::on_recurrence_runner),
// and a forward fill with a limit, whose state (the elements since the last number) the scan paths' fills lack.
inline bool on_recurrence_runner(const CumulativeOperatorDesc& desc) {
    return operator_traits(desc.op).on_recurrence_runner || desc.fill_limit > 0;
}

// Runs a plan on the recurrences' runner (on_recurrence_runner).
void run_recurrence(const Plan& plan, const CumulativeOperatorDesc& desc);

// Notes which runner the calling thread's job takes, by a name that scan.hpp's last_path() reports to the tests.
void note_runner(const char* name);

// Whether a job that reads in_bytes and writes out_bytes, not over its input, stores past the caches
// (ScanState::streams, a summed-area table's rows; scan.hpp's streaming_threshold).
inline bool streams_past_caches(std::ptrdiff_t in_bytes, std::ptrdiff_t out_bytes) {
    return in_bytes + out_bytes >= std::ptrdiff_t(streaming_threshold());
}

// Whether a plan's outputs (its values, and its indices where it writes them) go past the caches where written
// straight to the arrays: every operand's bytes count.
inline bool streams_past_caches(const Plan& plan) {
    const std::ptrdiff_t elements = plan.lines * plan.n;
    const std::ptrdiff_t index_size = plan.has(Role::indices) ? std::ptrdiff_t(sizeof(std::int64_t)) : 0;
    return plan.data[Role::out] != plan.data[Role::in] &&
           streams_past_caches(elements * plan.in_element_size, elements * (plan.element_size + index_size));
}

// A summed-area table in one pass (two_axes_path.hpp): images of rows, each row contiguous in both arrays, walked
// in the scan order of the column axis, each row scanned along the row axis before (rows_first) or after its step
// along the column axis.
struct TwoAxesPlan {
    const char* in;  // the first image's first row in scan order
    char* out;
    std::ptrdiff_t width;         // elements per row, within one chunk
    std::ptrdiff_t height;        // rows per image
    std::ptrdiff_t in_row_step;   // bytes from a row to the next in scan order
    std::ptrdiff_t out_row_step;
    bool rows_first;
    bool row_reverse;
    bool row_exclusive;
    bool column_exclusive;
    std::vector<Dim> images;  // the other axes of size > 1
    std::ptrdiff_t image_count;
    std::ptrdiff_t in_element_size;  // bytes of an input element: fewer than the output's where the input widens
    // uint8 into int32, uint32 or float64, whose every sum is exact (integers within float64's 53 bits): the table
    // is then the same in either order of the axes, and its rows are scanned in int32 lanes.
    bool byte_rows;
};

// The one-pass plan of a valid description with a `then` axis and no empty axis, where it applies: a plain sum,
// stored as computed in native order (the input may widen to the output's type), aligned, one of the two axes
// contiguous in both arrays and at most a chunk long.
std::optional<TwoAxesPlan> make_two_axes_plan(const CumulativeOperatorDesc& desc);

// A stride's size, whichever way it walks.
inline std::ptrdiff_t magnitude(std::ptrdiff_t stride) {
    return stride < 0 ? -stride : stride;
}

// The innermost other axis: the consecutive lines of a run of for_each_run lie its strides apart.
inline Dim innermost(const std::vector<Dim>& others) {
    return others.empty() ? Dim{1, {}} : others.back();
}

// Where a line starts: its byte offset in each operand.
using LineOffsets = OperandBytes;

// Each operand of `data` moved by `offsets` and `r` steps of `strides`.
inline Operands operands_at(const Operands& data, const OperandBytes& offsets, std::ptrdiff_t r = 0,
                            const OperandBytes& strides = {}) {
    Operands at;
    for (std::size_t role = 0; role < Role::count; ++role) {
        at[role] = data[role] == nullptr ? nullptr : data[role] + offsets[role] + r * strides[role];
    }
    return at;
}

// Calls visit(first, count) for the lines [begin, end) in row-major order over `dims`, grouped in runs of `count`
// consecutive lines along the innermost axis, the run's first line at `first`.
void for_each_run(const std::vector<Dim>& dims, std::ptrdiff_t begin, std::ptrdiff_t end,
                  FunctionRef<void(const LineOffsets& first, std::ptrdiff_t count)> visit);

}  // namespace detail
}  // namespace simdscan
