// The kernel table: one per ISA tier, built in that tier's translation unit.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "groups.hpp"
#include "plan.hpp"

namespace simdscan {
namespace detail {

constexpr std::size_t data_type_count = 14;  // scan.hpp's DataType values, 0 to 13

// x with its bits xor key's: an element as its order key sees it, and back (TypedKernels::order_key).
template <class T>
T xor_bits(T x, T key) {
    if constexpr (std::is_integral<T>::value) {
        return T(x ^ key);
    } else {
        static_assert(sizeof(T) == sizeof(std::uint32_t) || sizeof(T) == sizeof(std::uint64_t), "a float or double");
        using Bits = typename std::conditional<sizeof(T) == sizeof(std::uint32_t), std::uint32_t, std::uint64_t>::type;
        Bits x_bits, key_bits;
        std::memcpy(&x_bits, &x, sizeof(T));
        std::memcpy(&key_bits, &key, sizeof(T));
        x_bits ^= key_bits;
        std::memcpy(&x, &x_bits, sizeof(T));
        return x;
    }
}

// How a row's elements are stored: as the kernel's own type (widen null), or as a narrower one of in_size bytes.
struct RowWidening {
    WidenFn widen;
    std::ptrdiff_t in_size;
};

// A summed-area row's running values along the column: read from `before` (the carry row, or the output row before
// it where that holds them) and, unless `after` is null (the output row then holds them), written into `after`.
template <class T>
struct ColumnCarries {
    const T* before;
    T* after;
};

// A running sum with the rounding error its additions dropped (Neumaier's compensation): sum + error is the exact
// running sum up to O(n u^2). T is an element type or an xsimd batch of them.
template <class T>
struct Compensated {
    T sum;
    T error;
};

// A log-sum-exp element by element (ops.hpp's LogSumExpSteps): shift + log(sum + error); V a double or a batch.
template <class V>
struct ShiftedSum {
    V shift;
    V sum;
    V error;
};

// The state a scan carries for elements of type T: the value itself, or a more accurate running sum.
template <class T>
using Plain = T;

// A compensated sum's state. float32 and complex64 accumulate in double precision: its rounding error, at most
// m * 2^-53 * sum|x| after m terms, is already within the O(m u^2) term of the float32 bound (u = 2^-24), and a
// double add costs a fraction of an error-free transformation. float64 and complex128 carry Neumaier's error term.
template <class T>
struct compensated_state {
    using type = Compensated<T>;
};
template <>
struct compensated_state<float> {
    using type = double;
};
template <>
struct compensated_state<std::complex<float>> {
    using type = std::complex<double>;
};
template <class T>
using CompensatedState = typename compensated_state<T>::type;

// Resumable state of one line's scan. A line longer than a chunk is scanned chunk by chunk: every output of chunk k
// is base op (local prefix within the chunk), base being the op of all earlier chunks' totals. The arithmetic then
// depends only on the chunk size, never on how many threads computed the bases.
template <class State>
struct ScanState {
    State base;          // op of the earlier chunks' totals; unused while !has_base
    State local;         // running total within the current chunk, from the op's neutral element
    bool has_base;       // false in the first chunk
    bool at_line_start;  // the next element scanned is the line's first: exclusive writes the identity there
    // Log-sum-exp, chunk by chunk on one thread (scan_line_chunked): where asked, the scan hands back the range's
    // total on the way, the bits of TypedKernels::total (has_total: it could), sparing a second pass over the chunk.
    bool wants_total = false;
    bool has_total = false;
    State total{};
    // The outputs go past the caches (stream_vector): too many to stay there, and not written over the input.
    bool streams = false;
    // Where the job writes indices (scan_indexed): the scan position that supplied the running value (-1: none
    // yet), and whether a NaN has (from the first NaN on, the supplier stays).
    std::int64_t supplier = -1;
    bool reached_nan = false;
};

// How a span is scanned, chosen per call at run time (not a template parameter: each would double every scan loop
// of every type and op). exclusive: each output is the state before its element; has_base: each output is put behind
// the base (ScanState::base) as a chunk's local output kept and rebased would be.
struct SpanModes {
    bool exclusive;
    bool has_base;
};

// What a chunk scanned before its base is known keeps of its outputs (scan_local, rebase): the elements, or a widened
// sum's double-precision states, which rounded to the element would make each output of a long line rounded twice.
template <class T, class State>
using LocalOf = typename std::conditional<std::is_same<State, Compensated<T>>::value, T, State>::type;

// Kernels for elements of type T whose running values are of type State (T, a wider T, or Compensated<T>).
template <class T, class State>
struct TypedKernels {
    using Local = LocalOf<T, State>;
    // Scans n contiguous elements (in increasing order, or decreasing for the reverse variant, from the end of the
    // range). out may equal in. Updates st. identity: what an exclusive scan writes at the line's start (`identity`).
    using scan_fn = void (*)(const T* in, T* out, std::ptrdiff_t n, ScanState<State>& st, bool exclusive,
                             T identity, T order_key);
    // scan, for `count` consecutive short segments of a line (their lengths in scan order), the first at scan
    // position `position` of the line, each from the op's neutral state (exclusive: each segment's first output the
    // identity); in and out point at the first element in memory of them all (a reverse scan walks them from the
    // end). Outputs stay in the caches. Null where the op's vectors hold other than its elements (scan instead).
    using segments_fn = void (*)(const T* in, T* out, const std::ptrdiff_t* lengths, std::ptrdiff_t count,
                                 std::ptrdiff_t position, bool exclusive, T order_key);
    // scan, for a chunk scanned on its own, into a buffer of its local outputs.
    using scan_local_fn = void (*)(const T* in, Local* local, std::ptrdiff_t n, ScanState<State>& st, bool exclusive,
                                   T identity, T order_key);
    // out = base op local, elementwise: puts an earlier chunks' total in front of a chunk scanned on its own. Null
    // where `total` is set: those chunks are scanned from their base instead. `streams`: as ScanState's.
    using rebase_fn = void (*)(const Local* local, T* out, std::ptrdiff_t n, State base, bool streams, T order_key);
    // Scans `rows` whole lines of n contiguous elements (n within one chunk); rows are byte strides apart.
    using rows_fn = void (*)(const char* in, char* out, std::ptrdiff_t n, std::ptrdiff_t rows, std::ptrdiff_t in_stride,
                             std::ptrdiff_t out_stride, bool exclusive, T identity, bool streams, T order_key);
    // One step of a scan along an outer axis, elementwise over w contiguous elements: out = a op b. Only where the
    // state is the value itself (element by element too) and the op takes elements as they are (null otherwise): the
    // previous output row is then the running row.
    using combine_fn = void (*)(const T* a, const T* b, T* out, std::ptrdiff_t w, T order_key);

    // The op on two states, as the kernels compute it; combines chunk totals.
    using apply_fn = State (*)(State a, State b);
    // Extrema only (null otherwise): n contiguous elements scanned in increasing order from the running value
    // `carry` into values (the new running value returned), with the scan positions, from `first` on, of the
    // elements that supplied them: where the element equals its running value, or where the first NaN arrives;
    // both after each element, or before it where exclusive. `supplier` (-1: none yet) and `reached_nan` carry from
    // one call to the next along a line. `streams`: past the caches, the positions where the ISA streams, the
    // values where they are aligned with them. values may not be x.
    using indexed_fn = T (*)(const T* x, T* values, std::int64_t* positions, std::ptrdiff_t n, T carry,
                             std::int64_t first, std::int64_t& supplier, bool& reached_nan, bool exclusive,
                             bool streams, T order_key);
    // Extrema only (null otherwise): a row of w contiguous elements, at `index` along an outer scan axis, advancing
    // each column's running value and its supplier's index (-1: none yet) and writing both, after the row or before
    // it (exclusive), into values (which may be in) and positions; `streams`: past the caches, as advance's.
    using advance_indexed_fn = void (*)(const T* in, T* running, std::int64_t* suppliers, T* values,
                                        std::int64_t* positions, std::ptrdiff_t w, std::int64_t index, bool exclusive,
                                        bool streams, T order_key);
    // Log-sum-exp only (null otherwise), whose base costs an exp and a log per element to put in front of an
    // output: the op of n contiguous elements, a chunk's total, so that each chunk can be scanned from its base
    // once the earlier totals are known (parallel.hpp), one exp per element dearer than the scan alone.
    // [reverse]: summed in the order a scan in that direction meets the elements.
    using total_fn = State (*)(const T* in, std::ptrdiff_t n);

    // Summation only (null otherwise): one row of n contiguous elements of a summed-area table in one pass, the
    // row's scan and its step along the column (from and into `carries`, n running values), into out (past the
    // caches where `streams`, for 4- and 8-byte types where the ISA streams; the row's bits are the same).
    using two_axes_row_fn = void (*)(const T* in, ColumnCarries<T> carries, T* out, std::ptrdiff_t n,
                                     bool row_exclusive, bool column_exclusive, bool identity_row, bool streams);
    // two_axes_row for a row of a narrower type that `widening` converts; null where no type widens to T.
    using two_axes_widened_row_fn = void (*)(const char* in, const RowWidening& widening, ColumnCarries<T> carries,
                                             T* out, std::ptrdiff_t n, bool row_exclusive, bool column_exclusive,
                                             bool identity_row, bool streams);
    // int32's unsigned twin and float64 sums only (null otherwise): two_axes_row for a row of uint8 values, where
    // the table's sums are exact (TwoAxesPlan::byte_rows).
    using two_axes_byte_row_fn = void (*)(const std::uint8_t* in, ColumnCarries<T> carries, T* out, std::ptrdiff_t n,
                                          bool row_exclusive, bool column_exclusive, bool identity_row, bool streams);
    // float32 sums (compensated too) and products only (null otherwise): scan, for n contiguous float16 elements
    // (their bits) converted to float32 (a compensated sum: float64) and back in registers.
    using scan_half_fn = void (*)(const std::uint16_t* in, std::uint16_t* out, std::ptrdiff_t n, ScanState<State>& st,
                                  bool exclusive);

    scan_fn scan[2];  // [reverse]
    segments_fn scan_segments[2];  // [reverse]
    scan_local_fn scan_local[2];  // [reverse]
    rebase_fn rebase;
    rows_fn rows[2];  // [reverse]
    combine_fn combine[2];     // [descending: walks the row from its end]
    apply_fn apply;
    indexed_fn scan_indexed;
    advance_indexed_fn advance_indexed;
    total_fn total[2];  // [reverse]
    two_axes_row_fn two_axes_row[2][2];  // [rows first][reverse]; integers' exact sums: rows first in both
    two_axes_widened_row_fn two_axes_widened_row[2][2];  // [rows first][reverse]
    two_axes_byte_row_fn two_axes_byte_row[2];           // [reverse]
    scan_half_fn scan_half[2];           // [reverse]
    bool streams_lines;  // scan[] streams where ScanState::streams (else it stores as usual)
    State neutral;  // x op neutral == x bit for bit (-0.0 for float sums)
    T identity;     // the value of an empty range (+0.0 for float sums)
    // Ops that order their elements (OpTraits::orders_by_key) see each element read, and write each value, with its
    // bits xor this key (xor_bits): one running maximum of keys is then every extremum (operators.hpp). Zero else.
    T order_key;
};

// TypedKernels and the element-by-element kernels, whose states are Stepwise: apart, so that line runners are shared.
template <class T, class State, class Stepwise>
struct StepwiseKernels : TypedKernels<T, State> {
    // One step of a scan along an outer axis with w running states kept aside in `carry` (a Compensated one stores
    // w sums, then w errors; a ShiftedSum one w shifts, w sums, w errors): carry = carry op in, and out = the value
    // before (exclusive) or after. out may equal in. `streams`: as ScanState's.
    using advance_fn = void (*)(const T* in, Stepwise* carry, T* out, std::ptrdiff_t w, bool exclusive, bool streams,
                                T order_key);
    // Grouped scans (CumulativeOperatorDesc::labels): n contiguous elements in scan order, each advancing its group's
    // state (`walk`: the groups coded by the line's GroupLookup, a group's first element in the line starting from the
    // op's neutral); into out the value after the element, or before it where exclusive (`identity` at a group's
    // first). out may equal in. Where walk.positions is set (ops that write indices): each output's supplier's scan
    // position. One element at a time, the same code in every tier: compiled in the lowest only
    // (take_lowest_tier_kernels).
    using groups_fn = void (*)(const T* in, T* out, std::ptrdiff_t n, const GroupWalk<Stepwise>& walk, bool exclusive,
                               T identity, T order_key);

    advance_fn advance[2];  // [descending]
    groups_fn scan_groups;
    Stepwise stepwise_neutral;  // neutral as a Stepwise state: what advance's carries start from
};

// A type as a value (a visitor's argument).
template <class T>
struct TypeTag {
    using type = T;
};

// The element types that every tier scans one element at a time (the same code in each).
template <class T>
struct scalar_only : std::integral_constant<bool, !std::is_arithmetic<T>::value> {};

template <template <class> class StateOf, template <class> class StepwiseOf, class... Ts>
struct KernelSet : StepwiseKernels<Ts, StateOf<Ts>, StepwiseOf<Ts>>... {
    template <class T>
    const StepwiseKernels<T, StateOf<T>, StepwiseOf<T>>& get() const { return *this; }
    template <class T>
    StepwiseKernels<T, StateOf<T>, StepwiseOf<T>>& get() { return *this; }
    // visit(TypeTag<T>{}) for each element type T of the set.
    template <class Visit>
    static void for_each_type(Visit&& visit) { (visit(TypeTag<Ts>{}), ...); }
};
// The sets whose states are the same element by element.
template <template <class> class StateOf, class... Ts>
using TypedKernelSet = KernelSet<StateOf, StateOf, Ts...>;

// Signed integers scan as their unsigned twins: the same bits, and wrap-around is defined.
using OpKernels = TypedKernelSet<Plain, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, float, double,
                                 std::complex<float>, std::complex<double>>;
// Integer sums are exact: only floating types have a compensated variant.
using CompensatedKernels =
    TypedKernelSet<CompensatedState, float, double, std::complex<float>, std::complex<double>>;

// NaN can only be skipped where there is one.
using FloatingKernels = TypedKernelSet<Plain, float, double, std::complex<float>, std::complex<double>>;
// Extrema need an order, which complex numbers lack; signed integers are ordered by their keys (order_key).
using OrderedKernels = TypedKernelSet<Plain, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, float, double>;
using RealKernels = TypedKernelSet<Plain, float, double>;
// Log-sum-exp's running value is a double whatever the element (ops.hpp's LogAddExp, log_sum_exp_kernels.hpp).
template <class T>
using DoubleState = double;
template <class T>
using ShiftedSumState = ShiftedSum<double>;  // element by element (LogSumExpSteps)
using LogSumExpKernels = KernelSet<DoubleState, ShiftedSumState, float, double>;

// A span of a linear recurrence's line (recurrences/linear.cpp): n contiguous elements, walked in memory order or
// from their end, each state a * (the state before it) + b, or `initial` * a + b where the element begins a segment
// in the walk.
template <class T>
struct RecurrenceSpan {
    const T* a;       // n of them beside b's, or null: a_value for every element
    T a_value;
    const T* b;
    T* out;           // may be b
    std::ptrdiff_t n;
    // Where a segment begins: element i of the walk's span where starts[i] != 0, for i < readable (none where null).
    const std::uint8_t* starts;
    std::ptrdiff_t readable;
    T initial;        // the state before a segment's first element
};

// The composition of a span's pairs: its last state is a * (the state before the span) + b, or b where a segment
// begins in the span. a is 0 where an a is (else a product too small for its type: an infinite state before the span
// stays infinite, as element by element).
template <class T>
struct RecurrencePair {
    T a;
    T b;
    bool restarts;
    bool zero_a;
    T walked;  // the last state walked from the state before the span, where the call writes
};

// What a call of RecurrenceKernels::span writes, and how (run-time choices: compiled in, each would double the
// kernels).
struct RecurrenceModes {
    bool writes;
    bool exclusive;
    bool streams;  // the outputs' vectors past the caches, where the ISA streams (out aligned to its element)
};

// The two chains a recurrence span's walk keeps: the outputs' states from the state before the span (`y`), and the
// span's own composition from 0 (`z`, with the product of its a's), for its pair.
template <class T>
struct RecurrenceChains {
    T y;
    T z;
    T product;       // of the a's walked since the last segment start
    bool restarted;  // a segment began
    bool zero_a;     // an a walked since the last segment start is 0
};

// n elements of a recurrence span one at a time, from walk position `from` on (from the span's end where reverse):
// the kernels' tails and vectors with a segment's start. Scalar code, the same in every tier: compiled once, with
// the core (recurrences/linear.cpp), for float, double and their complex types.
template <class T>
void recur_elements(const RecurrenceSpan<T>& span, std::ptrdiff_t from, std::ptrdiff_t n, RecurrenceChains<T>& at,
                    RecurrenceModes modes, bool reverse);

// Row r of a rows kernel's operand (r * step bytes from its first walked row).
template <class P>
P* row_of(P* p, std::ptrdiff_t step, std::ptrdiff_t r) {
    using Byte = std::conditional_t<std::is_const<P>::value, const char, char>;
    return reinterpret_cast<P*>(reinterpret_cast<Byte*>(p) + r * step);
}

// The rows of an outer-axis linear recurrence (the state paths' rows, recurrences/state_paths.hpp): `rows` rows of
// w columns side by side, each column a recurrence of its own, walked from the first given row by the signed byte
// steps; within a row the columns of b, out, states and initial are contiguous, and a's (or one a for every column;
// none where a is null: a_value everywhere).
template <class T>
struct RecurrenceRows {
    const T* a;
    std::ptrdiff_t a_step;
    bool a_every_column;  // a row's one a for every column
    T a_value;
    const T* b;
    std::ptrdiff_t b_step;
    T* out;  // may be b
    std::ptrdiff_t out_step;
    // Where a column's segment begins again from initial: walked row r >= 1 reads its w flags (or one, the row's for
    // every column, where starts_every_column) at starts + (r - 1) * starts_step; none where null. (Row 0 starts
    // from the given states.)
    const std::uint8_t* starts;
    std::ptrdiff_t starts_step;
    bool starts_every_column;
    const T* initial;  // w states a segment begins from
    T* states;         // w states: before the first row on entry, after the last on return
    std::ptrdiff_t rows;
    std::ptrdiff_t w;
};

// The running state of an exponentially weighted mean (RecurrenceKernels::weighted_mean): the weighted sums of the
// values and of their weights, or, while the weights' sum is below few_weights (before the line's first value, or
// after a long run of NaN that aged both sums towards the subnormal range, where their quotient loses its digits),
// the mean itself (NaN before the first value).
template <class T>
struct WeightedMeanState {
    static constexpr T few_weights = std::is_same<T, float>::value ? T(0x1p-16) : T(0x1p-32);
    T totals = T(0);
    T weights = T(0);
    bool few = true;
    T mean = std::numeric_limits<T>::quiet_NaN();
};

// What a chunk of a weighted mean's line does to any state before it, from its own elements alone (the same bits
// whether its walk writes or not, from whatever state): the product of its ages and the two sums from 0 (composed a
// vector at a time), and its first value's place (count where none).
template <class T>
struct WeightedMeanChunk {
    T ages = T(1);
    T totals = T(0);
    T weights = T(0);
    std::ptrdiff_t first;
};

// Columns [from, to) of RecurrenceRows' rows [r0, r1), each on its own, element by element: the rows kernels' columns
// left beside their vectors (the same arithmetic: a multiply, then an add). Compiled once with the core
// (recurrences/linear.cpp), for float, double and their complex types.
template <class T>
void recur_columns(const RecurrenceRows<T>& rows, std::ptrdiff_t from, std::ptrdiff_t to, std::ptrdiff_t r0,
                   std::ptrdiff_t r1, bool exclusive);

// The running state of pandas' adjust=False mean (RecurrenceKernels::recursive_mean): the mean so far (NaN before the
// line's first value), and the weight it keeps against the next value, (1 - alpha) to the power of the steps since
// the last value (the values' steps only, where ignore_na).
template <class T>
struct RecursiveMeanState {
    T mean = std::numeric_limits<T>::quiet_NaN();
    T kept = T(1);
    bool seen = false;
};

// What a chunk of an adjust=False mean's line does to any state before it (WeightedMeanChunk's counterpart): its first
// value's place (count where none) and the value, the weight kept before it (`lead`: decay for each missing value
// not ignored), the steps after it composed, mean = a * mean + b, and the weight kept after its last value.
template <class T>
struct RecursiveMeanChunk {
    std::ptrdiff_t first;
    T first_value = T(0);
    T lead = T(1);
    T a = T(1);
    T b = T(0);
    T kept = T(1);
};

// The rows of exponentially weighted means along an outer axis (RecurrenceKernels::weighted_mean_rows and
// recursive_mean_rows): `rows` rows of w columns side by side, each column a mean of its own, walked from the first
// given row by the signed byte steps; x's and out's columns contiguous. Each column's state kept in the w-element
// arrays: a WeightedMeanState (few: 0 or 1), or a RecursiveMeanState (its mean in means, kept in weights, few: 1
// before its first value; totals unused).
template <class T>
struct WeightedMeanRows {
    const T* x;
    std::ptrdiff_t x_step;
    T* out;  // may be x
    std::ptrdiff_t out_step;
    T* totals;
    T* weights;
    T* means;
    std::uint8_t* few;
    std::ptrdiff_t rows;
    std::ptrdiff_t w;
};

// An exponentially weighted mean's parameters: pandas' sums (adjust: weighted_mean) or its recursion
// (recursive_mean, with alpha).
template <class T>
struct MeanSteps {
    T decay;
    T alpha;
    bool adjust;
    bool ignore_na;
};

// Columns [from, to) of WeightedMeanRows' rows [r0, r1), each on its own, element by element from its state arrays
// (weighted_mean_elements or recursive_mean_elements): the mean rows kernels' columns beside their vectors, and
// their vectors from a row where a column's weights are few. Compiled once with the core
// (recurrences/weighted_mean.cpp).
template <class T>
void mean_columns(const WeightedMeanRows<T>& rows, const MeanSteps<T>& steps, std::ptrdiff_t from, std::ptrdiff_t to,
                  std::ptrdiff_t r0, std::ptrdiff_t r1);

// weighted_mean element by element from `from` (count of them): as pandas updates its mean where the weights are
// few (the mean moved towards each value by its share of the weights), else the two sums. Compiled with the core
// (recurrences/weighted_mean.cpp), for float and double.
template <class T>
void weighted_mean_elements(const T* x, T* out, std::ptrdiff_t from, std::ptrdiff_t count, T decay, bool ignore_na,
                            WeightedMeanState<T>& at);

// recursive_mean element by element from `from` (count of them), as pandas' adjust=False loop: at each value the
// mean moves to (kept * mean + alpha * x) / (kept + alpha), as two quotients' products. Compiled with the core
// (recurrences/weighted_mean.cpp), for float and double.
template <class T>
void recursive_mean_elements(const T* x, T* out, std::ptrdiff_t from, std::ptrdiff_t count, T decay, T alpha,
                             bool ignore_na, RecursiveMeanState<T>& at);

// A chunk's own composition (WeightedMeanChunk, RecursiveMeanChunk) carried element by element over x[from, from +
// count): the kernels' steps where a vector is not composed. Compiled with the core (recurrences/weighted_mean.cpp).
template <class T>
void weighted_mean_chunk_elements(const T* x, std::ptrdiff_t from, std::ptrdiff_t count, T decay, bool ignore_na,
                                  WeightedMeanChunk<T>& chunk);
template <class T>
void recursive_mean_chunk_elements(const T* x, std::ptrdiff_t from, std::ptrdiff_t count, T decay, T alpha,
                                   bool ignore_na, RecursiveMeanChunk<T>& chunk);

// A forward fill's state as its kernels keep it (RecurrenceKernels::limited_fill): the last number walked, and the
// elements walked since it, counted in T and held at limit + 1 (before the first number too): an element further
// than `limit` from its number keeps its own bits. limit < 2^22 and a call's n < 2^22, so that the counts stay exact in
// float32 lanes.
template <class T>
struct FillLanes {
    T value;
    T gap;
    T limit;
    bool seen;  // on return: a number among the elements walked
};

// The rows of a forward fill with a limit along an outer axis (RecurrenceKernels::limited_fill_rows): `rows` rows of
// w columns side by side, each column a fill of its own, walked from the first given row by the signed byte steps;
// x's and out's columns contiguous, each column's state in values and gaps (as FillLanes'). Walked row r >= 1 begins
// column j's segment again (its gap limit + 1) where starts[(r - 1) * starts_step + j * starts_column] != 0; none
// where starts is null.
template <class T>
struct FillRows {
    const T* x;
    std::ptrdiff_t x_step;
    T* out;  // may be x
    std::ptrdiff_t out_step;
    const std::uint8_t* starts;
    std::ptrdiff_t starts_step;
    std::ptrdiff_t starts_column;
    T* values;
    T* gaps;
    T limit;
    std::ptrdiff_t rows;
    std::ptrdiff_t w;
};

// A first-order linear recurrence's kernels for elements of type T.
template <class T>
struct RecurrenceKernels {
    // Walks a span in memory order, or from its end [reverse], and returns its composed pair (its b the last state
    // from 0, computed a vector at a time beside the outputs with the same steps, so that neither depends on whether
    // the call writes). Where modes.writes, from `state`: into out the state after each element, or before it where
    // modes.exclusive, and the last state into the pair's `walked`.
    using span_fn = RecurrencePair<T> (*)(const RecurrenceSpan<T>& span, T state, RecurrenceModes modes);
    // pandas' exponentially weighted mean (adjust=True) of a chunk of n contiguous elements, in memory order, from
    // and into `at`: each output the mean of the values so far, each weighted by decay to the power of its age; NaN
    // is no value (NaN until the first), and ages the others unless ignore_na. out may be x; null: no outputs, `at`
    // untouched. Returns the chunk's own composition. Real types only. `streams`: as RecurrenceModes'.
    using weighted_mean_fn = WeightedMeanChunk<T> (*)(const T* x, T* out, std::ptrdiff_t n, T decay, bool ignore_na,
                                                      bool streams, WeightedMeanState<T>& at);
    // The same along WeightedMeanRows' columns, a row after another: each column's bits those of weighted_mean_elements
    // walking it (the two sums a multiply and an add each, never fused).
    using weighted_mean_rows_fn = void (*)(const WeightedMeanRows<T>& rows, T decay, bool ignore_na, bool streams);
    // pandas' adjust=False mean (recursive_mean_elements), the same way: a line in memory order, and the rows.
    using recursive_mean_fn = RecursiveMeanChunk<T> (*)(const T* x, T* out, std::ptrdiff_t n, T decay, T alpha,
                                                        bool ignore_na, bool streams, RecursiveMeanState<T>& at);
    using recursive_mean_rows_fn = void (*)(const WeightedMeanRows<T>& rows, T decay, T alpha, bool ignore_na,
                                            bool streams);
    // The recurrences of RecurrenceRows' columns, a row after another: states = a * states + b, a multiply and an
    // add (never fused, in every tier: a column's bits are its own element-by-element walk's, whatever the width,
    // tier and thread count); out the states after each row, or before it where exclusive.
    using rows_fn = void (*)(const RecurrenceRows<T>& rows, bool exclusive, bool streams);
    // A forward fill with a limit (pandas' ffill(limit=)) of n contiguous elements, walked in memory order or from
    // their end [reverse], from and into `at`: whole vectors of them only; returns how many it walked (the rest is
    // the caller's, element by element with the same selections). Real types only.
    using limited_fill_fn = std::ptrdiff_t (*)(const T* x, T* out, std::ptrdiff_t n, bool streams, FillLanes<T>& at);
    // The same along FillRows' columns, a row after another, every column (streamed where `streams`).
    using limited_fill_rows_fn = void (*)(const FillRows<T>& rows, bool streams);
    span_fn span[2];  // [reverse]
    rows_fn rows;
    limited_fill_fn limited_fill[2];  // [reverse]
    limited_fill_rows_fn limited_fill_rows;
    weighted_mean_fn weighted_mean;
    weighted_mean_rows_fn weighted_mean_rows;
    recursive_mean_fn recursive_mean;
    recursive_mean_rows_fn recursive_mean_rows;
};

template <class... Ts>
struct RecurrenceKernelSet : RecurrenceKernels<Ts>... {
    template <class T>
    const RecurrenceKernels<T>& get() const { return *this; }
    template <class T>
    RecurrenceKernels<T>& get() { return *this; }
    template <class Visit>
    static void for_each_type(Visit&& visit) { (visit(TypeTag<Ts>{}), ...); }
};
using RecurrenceSet = RecurrenceKernelSet<float, double, std::complex<float>, std::complex<double>>;

struct KernelTable {
    OpKernels summation;
    OpKernels product;
    CompensatedKernels compensated_summation;
    FloatingKernels nan_skipping_summation;
    FloatingKernels nan_skipping_product;
    CompensatedKernels nan_skipping_compensated_summation;
    OrderedKernels extremum;  // a running maximum of keys (order_key)
    RealKernels nan_skipping_maximum;
    RealKernels nan_skipping_minimum;
    LogSumExpKernels log_sum_exp;
    FloatingKernels forward_fill;
    RecurrenceSet recurrence;
    void (*half_to_float)(const std::uint16_t* in, float* out, std::ptrdiff_t n);
    void (*float_to_half)(const float* in, std::uint16_t* out, std::ptrdiff_t n);
    // [from][to] (DataType values), where widens_exactly(from, to) (else null).
    WidenFn widen[data_type_count][data_type_count];
    // Copies n units of 2, 4 or 8 bytes ([byteswap_slot(unit size)]) with each unit's bytes reversed; to may be from.
    // `streams`: past the caches, where the ISA streams.
    void (*copy_byteswapped[3])(const void* from, void* to, std::ptrdiff_t n, bool streams);
};

// Every typed kernel set of a table beside the same set of another: visit(to's set, from's set).
template <class Visit>
void visit_kernel_sets(KernelTable& to, const KernelTable& from, Visit&& visit) {
    visit(to.summation, from.summation);
    visit(to.product, from.product);
    visit(to.compensated_summation, from.compensated_summation);
    visit(to.nan_skipping_summation, from.nan_skipping_summation);
    visit(to.nan_skipping_product, from.nan_skipping_product);
    visit(to.nan_skipping_compensated_summation, from.nan_skipping_compensated_summation);
    visit(to.extremum, from.extremum);
    visit(to.nan_skipping_maximum, from.nan_skipping_maximum);
    visit(to.nan_skipping_minimum, from.nan_skipping_minimum);
    visit(to.log_sum_exp, from.log_sum_exp);
    visit(to.forward_fill, from.forward_fill);
}

// A tier's table takes the lowest tier's kernels for what no tier vectorizes (compiled there only): the kernels of
// the scalar_only types, and every type's grouped scan.
inline void take_lowest_tier_kernels(KernelTable& tier, const KernelTable& lowest) {
    visit_kernel_sets(tier, lowest, [](auto& to, const auto& from) {
        using Set = std::decay_t<decltype(to)>;
        Set::for_each_type([&](auto type) {
            using T = typename decltype(type)::type;
            if constexpr (scalar_only<T>::value) {
                to.template get<T>() = from.template get<T>();
            } else {
                to.template get<T>().scan_groups = from.template get<T>().scan_groups;
            }
        });
    });
    RecurrenceSet::for_each_type([&](auto type) {
        using T = typename decltype(type)::type;
        if constexpr (scalar_only<T>::value) {
            tier.recurrence.get<T>() = lowest.recurrence.get<T>();
        }
    });
}

constexpr std::size_t byteswap_slot(std::size_t unit_bytes) { return unit_bytes == 2 ? 0 : unit_bytes == 4 ? 1 : 2; }

// Elements per chunk of a long line: 256 KiB of them. Threads split a long line at these boundaries.
template <class T>
constexpr std::ptrdiff_t chunk_elements() { return std::ptrdiff_t(256 * 1024 / sizeof(T)); }

}  // namespace detail
}  // namespace simdscan
