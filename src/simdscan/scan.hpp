// simdscan core: DirectML's cumulative summation and product over strided tensors, and the rest of the scan family
// (running maximum and minimum, log-sum-exp, NaN-skipping variants). Python-free.
//
// A job is described the way DirectML describes it: two tensor views (pointer, sizes, byte strides, data type) and
// an operator description (operator, axis, direction, exclusive). The output may alias the input exactly (same
// pointer and strides); any other overlap must be resolved by the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simdscan {

enum class DataType : std::uint8_t {
    float16, float32, float64, complex64, complex128,
    int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    boolean,  // one byte, 0 or 1: maximum and minimum only (logical or / and)
};

// Mirrors DML_AXIS_DIRECTION.
enum class AxisDirection : std::uint8_t { increasing, decreasing };

// DirectML's two operators, then simdscan's: maximum and minimum (NaN propagating, as numpy.maximum), and
// log_sum_exp (log of the running sum of exp, floating types only), forward_fill (each NaN takes the last number
// before it in scan order; floating and complex types only); linear_recurrence (y[i] = a[i] * y[i-1] + b[i], the input
// b and the coefficients a: CumulativeOperatorDesc::coefficient) and weighted_mean (pandas' exponentially weighted
// mean: CumulativeOperatorDesc::weighting), in floating and (the recurrence) complex types.
enum class CumulativeOperator : std::uint8_t {
    summation, product, maximum, minimum, log_sum_exp, forward_fill, linear_recurrence, weighted_mean
};

struct TensorView {
    void* data = nullptr;
    DataType data_type = DataType::float32;
    std::vector<std::ptrdiff_t> sizes;
    std::vector<std::ptrdiff_t> byte_strides;  // any sign, zero allowed for inputs
    bool byte_swapped = false;                 // stored in the opposite byte order to the machine's
};

// Beyond DirectML: a further axis to scan, with its own direction and flag (CumulativeOperatorDesc::then).
struct AxisScan {
    std::size_t axis = 0;
    AxisDirection direction = AxisDirection::increasing;
    bool exclusive = false;
};

// Mirrors DML_CUMULATIVE_SUMMATION_OPERATOR_DESC / DML_CUMULATIVE_PRODUCT_OPERATOR_DESC.
struct CumulativeOperatorDesc {
    CumulativeOperator op = CumulativeOperator::summation;
    TensorView input;
    // Same sizes as input; same data type, or one the input widens to exactly (widens_exactly: then both in native
    // order, and not overlapping).
    TensorView output;
    // Beyond DirectML, maximum and minimum only: where data is set, the position along the axis of the element that
    // supplied each output (native int64, output's sizes): the latest among equal ones, the first NaN from a NaN
    // on, -1 where an exclusive scan's identity stands. It must not overlap input or output.
    TensorView indices;
    // Beyond DirectML: where data is set, a segmented scan (sizes: the input's; boolean, any strides, zero allowed):
    // a true element begins a new segment in index order, and each segment is scanned as a line of its own, in the
    // walk's direction (its first walked element takes the exclusive identity). Not with `then`.
    TensorView reset;
    // Beyond DirectML: where data is set, a grouped scan (sizes: the input's; native int64, any strides, zero
    // allowed): each output is the scan, in the walk's direction, of the elements of its line that carry its label,
    // up to it (exclusive: before it, a group's first walked element taking the identity), as a line of its own would
    // give them one at a time; memory grows with the distinct labels of a line only. Not with `reset` or `then`.
    TensorView labels;
    // Beyond DirectML, linear_recurrence only, and required there: the coefficients a (y[i] = a[i] * y[i-1] + b[i],
    // walked in the direction: y[i] = a[i] * y[i+1] + b[i] decreasing) and each line's state before its first element
    // in the walk, which a segment (reset) also starts again from. The input's sizes, any strides, 0 where a value
    // repeats: a scalar a is one element at stride 0 along every axis, and `initial` is at stride 0 along the axis.
    // The coefficients of any type the input may be of (OperatorTraits::on_recurrence_runner), in either byte order;
    // `initial` of the type the result is computed in (the output's; float32 for float16), native. Neither may
    // overlap the output.
    TensorView coefficient;
    TensorView initial;
    std::size_t axis = 0;
    AxisDirection direction = AxisDirection::increasing;
    bool exclusive = false;  // HasExclusiveSum / HasExclusiveProduct
    // Beyond DirectML: summation of floating and complex types with Neumaier's compensation, every output within
    // 2u * sum |x_j| (+ O(n u^2)) of the exact prefix; integer sums are exact already. Invalid for other operators.
    bool compensated = false;
    // Beyond DirectML: NaN elements are skipped (numpy.nancumsum, nancumprod, fmax, fmin). Summation, product,
    // maximum and minimum only; integers have no NaN to skip.
    bool skip_nan = false;
    // Beyond DirectML: an axis scanned after `axis`, on the first scan's result (for two sums, a summed-area table):
    // the same as a second execute on the output in place, run in one pass over memory where the layout allows
    // (two_axes_path.hpp). It differs from `axis`, and no indices are written with it.
    std::optional<AxisScan> then;
    // Beyond DirectML, weighted_mean only: pandas' ewm(alpha=...).mean() with adjust (each output the mean of the
    // values so far weighted by (1 - alpha) to the power of their ages) or without (pandas' recursion: the mean moved
    // towards each value by alpha against the weight (1 - alpha) to the power of the steps since the last value); NaN
    // counts as no value, which ages the others unless ignore_na. alpha and 1 - alpha are rounded to the data type.
    // Where `initial` is given (OperatorTraits::carries_states), it holds each line's state before its first element,
    // four values of the type computed in, and gets the state after its last (a chunked array's lines carried from
    // chunk to chunk): the weighted sums of the values and of their weights, the mean, and 1 while the weights are few
    // (adjust); or 0, the weight kept, the mean, and 1 before the first value (without).
    struct Weighting {
        double alpha = 1;
        bool adjust = true;
        bool ignore_na = false;
    } weighting;
    // Beyond DirectML, forward_fill only: where > 0, at most this many NaN in a row are filled after a number (pandas'
    // limit; the others keep their bits), on the recurrences' runner (the input of the output's type, in either byte
    // order; no labels yet).
    std::ptrdiff_t fill_limit = 0;
};

// Beyond DirectML: whether an input of data type `from` may be scanned into an output of type `to` (DirectML's
// operators keep the type): every element of `from` is exactly a value of `to`, a wider type (integers to wider
// integers that hold their sign or to floating types that hold all their digits, bool to any of those, float32 to
// float64). The input is converted as it is read (numpy's astype), and the operator works in the output's type.
bool widens_exactly(DataType from, DataType to);

// Beyond DirectML: what an operator takes, the one home of these rules (execute's validation and the Python
// bindings read them).
struct OperatorTraits {
    const char* name;            // in messages: "sum", "product", "maximum", "minimum", "log-sum-exp", "forward fill"
    bool needs_order;            // complex numbers are refused
    bool needs_nan;              // types without NaN (integers, booleans) are refused
    bool counts;                 // booleans are refused: a result of them needs an integer type
    bool computes_in_floating;   // real floating results only: integer and boolean inputs compute in float64
    bool compensates;            // CumulativeOperatorDesc::compensated is taken
    bool skips_nan;              // CumulativeOperatorDesc::skip_nan is taken
    bool writes_indices;         // CumulativeOperatorDesc::indices is taken
    bool builds_tables;          // with `then`, a plain scan of it builds a summed-area table in one pass
    // Run by the recurrences' runner (recurrences/): floating and complex results (float16 computed in float32),
    // from inputs and coefficients of any type that casts to the result's by NumPy's 'same_kind' rules (complex only
    // to complex), in either byte order, converted a chunk at a time (recurrences/staging.hpp).
    bool on_recurrence_runner;
    bool recurs;                 // CumulativeOperatorDesc::coefficient and initial are required (else refused)
    bool carries_states;         // CumulativeOperatorDesc::initial is taken: each line's state, in and out
    bool takes_segments;         // exclusive and reset are taken
    bool takes_groups;           // labels and `then` are taken (the recurrences' runner has neither yet)
    bool fills;                  // CumulativeOperatorDesc::fill_limit is taken
};
const OperatorTraits& operator_traits(CumulativeOperator op);

// Why `op` refuses results of data type t (the output's): a sentence, or empty where it takes them.
std::string refusal(CumulativeOperator op, DataType t);

// Runs the operator. Throws std::invalid_argument for an inconsistent description (an operator on a data type it does
// not take included: complex extrema, integer log-sum-exp, boolean sums) before writing anything, and
// std::bad_alloc when a working buffer cannot be allocated.
void execute(const CumulativeOperatorDesc& desc);

std::size_t element_size(DataType t);

// Which runner the calling thread's last execute took (for tests that aim at one): "direct_lines", "direct_rows",
// "outer_combined", "outer_carried", "outer_staged", "lines_buffered", "indexed_lines", "indexed_rows",
// "grouped_lines", "two_axes" (the last of two scans where a second axis does not run in one pass), "none" before any.
std::string last_path();

// ISA tiers, lowest first. The active tier is chosen once, on first use or by select_isa.
std::vector<std::string> supported_isas();
std::string active_isa();
// Forces a tier among supported_isas(); throws std::invalid_argument naming the supported ones otherwise.
void select_isa(const std::string& name);

// How a scan along an outer axis walks a row when its rows run down through memory (a decreasing scan): "down", from
// the row's end, so that memory is read in one falling stream, or "up", from its start. Chosen once from the CPU's
// vendor by measurement (down on AMD, up elsewhere: benchmarks/README.md); select_falling_row_walk forces either. The
// results are the same bits.
std::string falling_row_walk();
// Throws std::invalid_argument for a name other than "down" and "up".
void select_falling_row_walk(const std::string& name);

// Scans that read and write this many bytes together, their output not over their input, store it past the caches
// (non-temporal stores, where the kernels write the arrays themselves). Chosen once from the CPU by measurement
// (one thread, repeated calls, streamed against cached; benchmarks/README.md): on AMD CPUs 3/4 of the level-3 cache
// a core's CCX shares (24 MiB of Zen 4's 32), 16 MiB on other x86 CPUs, and 8 MiB elsewhere.
// select_streaming_threshold forces another.
std::size_t streaming_threshold();
void select_streaming_threshold(std::size_t bytes);

// Worker threads used by execute (1 = the calling thread only).
void set_num_threads(std::size_t n);
std::size_t get_num_threads();

// For a caller that has just allocated an output of `bytes` at `data` (no page of it written yet): maps its pages,
// writable, on all of execute's threads, an equal share each, without changing a byte (Linux's MADV_POPULATE_WRITE;
// elsewhere, or below fault_in_threshold_bytes, nothing). The kernel zeroes each new page as it maps it: most of a
// new large result's time, where a streamed line on two threads scans on one; mapping the pages in one call beat
// the scan's own page faults (benchmarks/README.md).
void fault_in(void* data, std::size_t bytes);
// Smaller outputs are left alone: glibc's malloc serves them from memory it has mapped before (its mmap threshold
// grows to 32 MiB), whose pages are there already: on such an output the call only added its own time, on a larger
// one it saved some (benchmarks/README.md).
constexpr std::size_t fault_in_threshold_bytes = std::size_t(32) << 20;

}  // namespace simdscan
