// The recurrences' runner: linear_recurrence and weighted_mean (scan.hpp's operators), from their plans. A line is
// cut into chunks at fixed places, each chunk's outputs computed from the state before it, and that state from the
// chunks before by their compositions (a recurrence's pairs, by the chunk's own walk where its product of a's
// overflowed; a weighted mean's sums from 0): on one thread the chunks in turn, each with its composition; on several
// the compositions first, in parallel, then the outputs. The same arithmetic either way, so no bit depends on the
// thread count.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dispatch.hpp"
#include "kernels.hpp"
#include "parallel.hpp"
#include "plan.hpp"
#include "recurrence_staging.hpp"
#include "scan.hpp"

namespace simdscan {
namespace detail {

template <class T>
void recur_elements(const RecurrenceSpan<T>& span, std::ptrdiff_t from, std::ptrdiff_t n, RecurrenceChains<T>& at,
                    RecurrenceModes modes, bool reverse) {
    for (std::ptrdiff_t k = from; k < from + n; ++k) {
        const std::ptrdiff_t i = reverse ? span.n - 1 - k : k;
        const T a = span.a != nullptr ? span.a[i] : span.a_value;
        if (span.starts != nullptr && i < span.readable && span.starts[i] != 0) {
            at = RecurrenceChains<T>{span.initial, span.initial, T(1), true, false};
        }
        const T b = span.b[i];  // read before out[i] is written: out may be b
        if (modes.writes) {
            const T next = a * at.y + b;
            span.out[i] = modes.exclusive ? at.y : next;
            at.y = next;
        }
        at.z = a * at.z + b;
        at.product = at.product * a;
        at.zero_a = at.zero_a || a == T(0);
    }
}
template void recur_elements(const RecurrenceSpan<float>&, std::ptrdiff_t, std::ptrdiff_t, RecurrenceChains<float>&,
                             RecurrenceModes, bool);
template void recur_elements(const RecurrenceSpan<double>&, std::ptrdiff_t, std::ptrdiff_t, RecurrenceChains<double>&,
                             RecurrenceModes, bool);
template void recur_elements(const RecurrenceSpan<std::complex<float>>&, std::ptrdiff_t, std::ptrdiff_t,
                             RecurrenceChains<std::complex<float>>&, RecurrenceModes, bool);
template void recur_elements(const RecurrenceSpan<std::complex<double>>&, std::ptrdiff_t, std::ptrdiff_t,
                             RecurrenceChains<std::complex<double>>&, RecurrenceModes, bool);

template <class T>
void recur_columns(const RecurrenceRows<T>& rows, std::ptrdiff_t from, std::ptrdiff_t to, std::ptrdiff_t r0,
                   std::ptrdiff_t r1, bool exclusive) {
    for (std::ptrdiff_t j = from; j < to; ++j) {
        T y = rows.states[j];
        for (std::ptrdiff_t r = r0; r < r1; ++r) {
            if (r > 0 && rows.starts != nullptr && row_of(rows.starts, rows.starts_step, r - 1)[
                                                       rows.starts_every_column ? 0 : j] != 0) {
                y = rows.initial[j];
            }
            const T* a = rows.a == nullptr ? nullptr : row_of(rows.a, rows.a_step, r);
            const T next =
                (a == nullptr ? rows.a_value : a[rows.a_every_column ? 0 : j]) * y + row_of(rows.b, rows.b_step, r)[j];
            row_of(rows.out, rows.out_step, r)[j] = exclusive ? y : next;
            y = next;
        }
        rows.states[j] = y;
    }
}
template void recur_columns(const RecurrenceRows<float>&, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                            std::ptrdiff_t, bool);
template void recur_columns(const RecurrenceRows<double>&, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                            std::ptrdiff_t, bool);
template void recur_columns(const RecurrenceRows<std::complex<float>>&, std::ptrdiff_t, std::ptrdiff_t,
                            std::ptrdiff_t, std::ptrdiff_t, bool);
template void recur_columns(const RecurrenceRows<std::complex<double>>&, std::ptrdiff_t, std::ptrdiff_t,
                            std::ptrdiff_t, std::ptrdiff_t, bool);

template <class T>
void weighted_mean_elements(const T* x, T* out, std::ptrdiff_t from, std::ptrdiff_t count, T decay, bool ignore_na,
                            WeightedMeanState<T>& at) {
    for (std::ptrdiff_t i = from; i < from + count; ++i) {
        const bool seen = x[i] - x[i] == T(0);  // a number: NaN and +-inf are missing, as pandas takes them
        const T age = seen || !ignore_na ? decay : T(1);
        const T aged = age * at.weights + (seen ? T(1) : T(0));
        at.few = at.few || aged < at.few_weights;  // (from the last mean, which a missing value leaves as it is)
        at.weights = aged;
        if (at.few) {
            const T gain = seen ? T(1) / at.weights : T(0);
            // (A gain of 1: no weight left before this value, the mean NaN before the first.)
            at.mean = gain == T(1) ? x[i] : (T(1) - gain) * at.mean + gain * (seen ? x[i] : T(0));
            out[i] = at.mean;
            if (at.weights >= at.few_weights) {
                at.few = false;
                at.totals = at.mean * at.weights;
            }
        } else {
            at.totals = age * at.totals + (seen ? x[i] : T(0));
            // A missing value's output is the mean before it, as pandas': not the aged sums' quotient, an ulp away.
            at.mean = seen ? at.totals / at.weights : at.mean;
            out[i] = at.mean;
        }
    }
}
template void weighted_mean_elements(const float*, float*, std::ptrdiff_t, std::ptrdiff_t, float, bool,
                                     WeightedMeanState<float>&);
template void weighted_mean_elements(const double*, double*, std::ptrdiff_t, std::ptrdiff_t, double, bool,
                                     WeightedMeanState<double>&);

template <class T>
void recursive_mean_elements(const T* x, T* out, std::ptrdiff_t from, std::ptrdiff_t count, T decay, T alpha,
                             bool ignore_na, RecursiveMeanState<T>& at) {
    for (std::ptrdiff_t i = from; i < from + count; ++i) {
        const T value = x[i];  // read before out[i] is written: out may be x
        const bool seen = value - value == T(0);  // a number: NaN and +-inf are missing, as pandas takes them
        if (!at.seen) {
            if (seen) {
                at = RecursiveMeanState<T>{value, T(1), true};
            }
        } else {
            if (seen || !ignore_na) {
                at.kept = at.kept * decay;
            }
            if (seen) {
                const T total = at.kept + alpha;
                at.mean = at.kept / total * at.mean + alpha / total * value;
                at.kept = T(1);
            }
        }
        out[i] = at.mean;
    }
}
template void recursive_mean_elements(const float*, float*, std::ptrdiff_t, std::ptrdiff_t, float, float, bool,
                                      RecursiveMeanState<float>&);
template void recursive_mean_elements(const double*, double*, std::ptrdiff_t, std::ptrdiff_t, double, double, bool,
                                      RecursiveMeanState<double>&);

template <class T>
void weighted_mean_chunk_elements(const T* x, std::ptrdiff_t from, std::ptrdiff_t count, T decay, bool ignore_na,
                                  WeightedMeanChunk<T>& chunk) {
    for (std::ptrdiff_t i = from; i < from + count; ++i) {
        const bool seen = x[i] - x[i] == T(0);
        const T age = seen || !ignore_na ? decay : T(1);
        chunk.ages = chunk.ages * age;
        chunk.totals = age * chunk.totals + (seen ? x[i] : T(0));
        chunk.weights = age * chunk.weights + (seen ? T(1) : T(0));
        chunk.first = seen && i < chunk.first ? i : chunk.first;
    }
}
template void weighted_mean_chunk_elements(const float*, std::ptrdiff_t, std::ptrdiff_t, float, bool,
                                           WeightedMeanChunk<float>&);
template void weighted_mean_chunk_elements(const double*, std::ptrdiff_t, std::ptrdiff_t, double, bool,
                                           WeightedMeanChunk<double>&);

template <class T>
void recursive_mean_chunk_elements(const T* x, std::ptrdiff_t from, std::ptrdiff_t count, T decay, T alpha,
                                   bool ignore_na, RecursiveMeanChunk<T>& chunk) {
    for (std::ptrdiff_t i = from; i < from + count; ++i) {
        const T value = x[i];
        const bool seen = value - value == T(0);
        if (i < chunk.first) {  // (first: the chunk's length until its first value)
            if (seen) {
                chunk.first = i, chunk.first_value = value;
            } else if (!ignore_na) {
                chunk.lead = chunk.lead * decay;
            }
            continue;
        }
        if (seen || !ignore_na) {
            chunk.kept = chunk.kept * decay;
        }
        if (seen) {
            // The step of recursive_mean_elements, on the pair: mean = kept / total * mean + alpha / total * value.
            const T total = chunk.kept + alpha;
            const T keeps = chunk.kept / total;
            chunk.a = keeps * chunk.a;
            chunk.b = keeps * chunk.b + alpha / total * value;
            chunk.kept = T(1);
        }
    }
}
template void recursive_mean_chunk_elements(const float*, std::ptrdiff_t, std::ptrdiff_t, float, float, bool,
                                            RecursiveMeanChunk<float>&);
template void recursive_mean_chunk_elements(const double*, std::ptrdiff_t, std::ptrdiff_t, double, double, bool,
                                            RecursiveMeanChunk<double>&);

template <class T>
void mean_columns(const WeightedMeanRows<T>& rows, const MeanSteps<T>& steps, std::ptrdiff_t from, std::ptrdiff_t to,
                  std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (std::ptrdiff_t r = r0; r < r1; ++r) {
        const T* x = row_of(rows.x, rows.x_step, r);
        T* out = row_of(rows.out, rows.out_step, r);
        for (std::ptrdiff_t j = from; j < to; ++j) {
            if (steps.adjust) {
                WeightedMeanState<T> at;
                at.totals = rows.totals[j], at.weights = rows.weights[j], at.few = rows.few[j] != 0;
                at.mean = rows.means[j];
                weighted_mean_elements(x + j, out + j, 0, 1, steps.decay, steps.ignore_na, at);
                rows.totals[j] = at.totals, rows.weights[j] = at.weights, rows.few[j] = at.few ? 1 : 0;
                rows.means[j] = at.mean;
            } else {
                RecursiveMeanState<T> at{rows.means[j], rows.weights[j], rows.few[j] == 0};
                recursive_mean_elements(x + j, out + j, 0, 1, steps.decay, steps.alpha, steps.ignore_na, at);
                rows.means[j] = at.mean, rows.weights[j] = at.kept, rows.few[j] = at.seen ? 0 : 1;
            }
        }
    }
}
template void mean_columns(const WeightedMeanRows<float>&, const MeanSteps<float>&, std::ptrdiff_t, std::ptrdiff_t,
                           std::ptrdiff_t, std::ptrdiff_t);
template void mean_columns(const WeightedMeanRows<double>&, const MeanSteps<double>&, std::ptrdiff_t, std::ptrdiff_t,
                           std::ptrdiff_t, std::ptrdiff_t);

}  // namespace detail

namespace {

using detail::ConversionScratch;
using detail::holds_own;
using detail::Stored;

// A plan's lines in the runner's form: operands as views of shape (lines, n, columns), the lines side by side along
// `columns`: line (l, c)'s element i of an operand at l * line + i * step + c * column bytes, in index order.
struct RecurrenceStrides {
    std::ptrdiff_t line = 0;
    std::ptrdiff_t step = 0;
    std::ptrdiff_t column = 0;
};
// Lines run on the arrays where each is contiguous (every step one element, the reset's one byte) and of the type
// computed in, T; with columns > 1 and each row of columns contiguous (every column stride one element, a's,
// initial's and reset's also 0: the same for every column), walked a row after another; any other layout line by
// line, each chunk of a line gathered (and converted) into contiguous buffers of T and its outputs scattered back
// (the bits of contiguous lines).
struct RecurrenceJob {
    std::ptrdiff_t lines = 0;
    std::ptrdiff_t n = 0;
    std::ptrdiff_t columns = 1;
    const void* a = nullptr;        // or null: *a_value for every element
    RecurrenceStrides a_strides;
    const void* a_value = nullptr;  // one element, where a is null
    Stored a_stored;                // how a's elements (a_value's) are stored
    const void* b = nullptr;        // a weighted mean's values
    RecurrenceStrides b_strides;
    Stored b_stored;
    const void* initial = nullptr;  // one state per line (its step 0)
    RecurrenceStrides initial_strides;
    // Bytes, or null: where nonzero, a segment begins in index order (CumulativeOperatorDesc::reset's flags), and
    // its first element in the walk starts again from the line's initial state.
    const void* reset = nullptr;
    RecurrenceStrides reset_strides;
    void* out = nullptr;  // may be b (the same strides)
    RecurrenceStrides out_strides;
    Stored out_stored;
    AxisDirection direction = AxisDirection::increasing;
    bool exclusive = false;  // each output the state before its element (the line's initial state first)
    CumulativeOperatorDesc::Weighting weighting;
    std::ptrdiff_t fill_limit = 0;  // > 0: a forward fill of b with this limit
    std::size_t threads = 0;        // 0: as many as its bytes ask for (detail::threads_for)
};

// The threads a job runs on: its own count where set, else as many as `bytes` of traffic ask for.
std::size_t threads_of(const RecurrenceJob& desc, std::ptrdiff_t bytes) {
    return desc.threads != 0 ? desc.threads : detail::threads_for(bytes);
}

// Elements per chunk: 256 KiB of float64 (detail::chunk_elements), whatever the type, so that a line's chunks are
// the same for every element type.
constexpr std::ptrdiff_t chunk = std::ptrdiff_t(1) << 15;

// Whether each line of a job (one line a row) walks on one thread, its chunks in turn: unless there are more threads
// than lines, more than two, and more than a chunk to a line. (The chunks' two passes read the operands twice: on
// two threads that cost more than the second thread saved: benchmarks/README.md.)
bool lines_one_thread_each(const RecurrenceJob& desc, std::size_t threads) {
    return std::ptrdiff_t(threads) <= desc.lines * desc.columns || desc.n <= chunk || threads <= 2;
}

// Operand `p` (a byte pointer) moved by `strides` to line (l, c)'s element i.
template <class P>
P* element_at(P* p, const RecurrenceStrides& strides, std::ptrdiff_t l, std::ptrdiff_t c, std::ptrdiff_t i) {
    using Byte = std::conditional_t<std::is_const<P>::value, const char, char>;
    return reinterpret_cast<P*>(reinterpret_cast<Byte*>(p) + l * strides.line + i * strides.step + c * strides.column);
}

// A strided operand's reset flags gathered into contiguous ones (Line's staged chunks).
void gather_flags(const std::uint8_t* from, std::ptrdiff_t step, std::uint8_t* to, std::ptrdiff_t n) {
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        to[i] = from[i * step];
    }
}

// Whether `count` elements of an operand, `step` bytes apart, go through a buffer of T: strided, or stored otherwise.
template <class T>
bool staged(std::ptrdiff_t step, const Stored& stored, std::ptrdiff_t count) {
    return !holds_own<T>(stored) || (step != std::ptrdiff_t(sizeof(T)) && count > 1);
}

// One element of an operand at `at`, as T; and one value of T written there.
template <class T>
T read_one(const void* at, const Stored& stored) {
    alignas(std::max_align_t) unsigned char room[ConversionScratch::bytes_per_element];
    T value;
    detail::read_converted(at, std::ptrdiff_t(element_size(stored.type)), 1, stored, &value,
                           ConversionScratch::in(room, 1));
    return value;
}
template <class T>
void write_one(const T& value, void* at, const Stored& stored) {
    alignas(std::max_align_t) unsigned char room[ConversionScratch::bytes_per_element];
    detail::write_converted(&value, at, std::ptrdiff_t(element_size(stored.type)), 1, stored,
                            ConversionScratch::in(room, 1));
}

// A thread's staging buffers, for any element type T: a chunk of b (then of the outputs), of a and of the reset flags,
// and room to convert a chunk.
template <class T>
struct ChunkBuffers {
    T* values;
    T* coefficients;
    std::uint8_t* flags;
    ConversionScratch scratch;

    static ChunkBuffers of_this_thread() {
        constexpr std::size_t widest = sizeof(std::complex<double>);
        constexpr std::size_t converting = ConversionScratch::bytes_per_element;
        thread_local std::vector<std::complex<double>> storage((2 * widest + converting + 1) * chunk / widest + 1);
        auto* bytes = reinterpret_cast<unsigned char*>(storage.data());
        return {reinterpret_cast<T*>(bytes), reinterpret_cast<T*>(bytes + chunk * sizeof(T)),
                bytes + (2 * widest + converting) * chunk, ConversionScratch::in(bytes + 2 * widest * chunk, chunk)};
    }
};

// A rows task's band of rows [first, first + rows) where an operand is stored otherwise than as T (the rows path's
// staging): walked row r of an operand at `at` + r * step, its `width` elements `column` bytes apart, read into
// (or written from) a buffer of T, `width` elements a row, so that the kernels run on the buffer, their states carried
// from band to band.
template <class T>
struct RowBand {
    std::ptrdiff_t first;
    std::ptrdiff_t rows;
    ConversionScratch scratch;

    // The band's rows of an operand as T, and the bytes from one to the next: where they lie for T's own elements,
    // else in `buffer` (converted there where `read`).
    template <class P>
    std::pair<P*, std::ptrdiff_t> of(P* at, std::ptrdiff_t step, std::ptrdiff_t column, std::ptrdiff_t width,
                                     const Stored& stored, T* buffer, bool read) const {
        const char* row = reinterpret_cast<const char*>(at) + first * step;
        if (holds_own<T>(stored)) {
            return {reinterpret_cast<P*>(const_cast<char*>(row)), step};
        }
        for (std::ptrdiff_t k = 0; read && k < rows; ++k) {
            detail::read_converted(row + k * step, column, width, stored, buffer + k * width, scratch);
        }
        return {buffer, width * std::ptrdiff_t(sizeof(T))};
    }
    // The buffer's rows written to the operand where it is stored otherwise than as T.
    void write(const T* buffer, T* at, std::ptrdiff_t step, std::ptrdiff_t column, std::ptrdiff_t width,
               const Stored& stored) const {
        if (holds_own<T>(stored)) {
            return;
        }
        char* row = reinterpret_cast<char*>(at) + first * step;
        for (std::ptrdiff_t k = 0; k < rows; ++k) {
            detail::write_converted(buffer + k * width, row + k * step, column, width, stored, scratch);
        }
    }
};

// Rows of `width` elements of T a band holds: a chunk's.
template <class T>
std::ptrdiff_t band_rows(std::ptrdiff_t width) {
    return std::max<std::ptrdiff_t>(1, chunk / width);
}

template <class T>
class Line {
public:
    // Line k of the desc's lines x columns: its chunks run on the arrays where an operand's elements are contiguous,
    // and staged where they are not (gathered into a contiguous buffer, the same kernel run there, the outputs
    // scattered back: the same bits).
    Line(const RecurrenceJob& desc, std::ptrdiff_t k, bool streams)
        : desc_(desc), l_(k / desc.columns), c_(k % desc.columns),
          kernel_(detail::active_kernels().recurrence.get<T>().span[reverse()]), streams_(streams) {}

    std::ptrdiff_t chunks() const { return (desc_.n + chunk - 1) / chunk; }

    // Chunk k in walk order: computes its outputs from `state` where `writes`, and returns its pair.
    detail::RecurrencePair<T> run(std::ptrdiff_t k, T state, bool writes) const {
        const std::ptrdiff_t n = desc_.n;
        const std::ptrdiff_t first = reverse() ? std::max<std::ptrdiff_t>(0, n - (k + 1) * chunk) : k * chunk;
        const std::ptrdiff_t count = std::min(chunk, n - k * chunk);
        const auto* a = static_cast<const T*>(desc_.a);
        const auto* reset = static_cast<const std::uint8_t*>(desc_.reset);
        // Decreasing, element i begins a segment where i + 1 does in index order (the walk meets each segment's last
        // element first); the line's last element reads no flag.
        const std::ptrdiff_t shift = reverse() ? 1 : 0;
        const std::ptrdiff_t readable = std::min(count, n - shift - first);
        detail::RecurrenceSpan<T> span{
            a == nullptr ? nullptr : element_at(a, desc_.a_strides, l_, c_, first),
            a == nullptr ? *static_cast<const T*>(desc_.a_value) : T(),
            element_at(static_cast<const T*>(desc_.b), desc_.b_strides, l_, c_, first),
            element_at(static_cast<T*>(desc_.out), desc_.out_strides, l_, c_, first),
            count,
            reset == nullptr || readable <= 0 ? nullptr : element_at(reset, desc_.reset_strides, l_, c_, first + shift),
            readable,
            initial()};
        const bool staged_b = staged<T>(desc_.b_strides.step, desc_.b_stored, count);
        const bool staged_a = span.a != nullptr && staged<T>(desc_.a_strides.step, desc_.a_stored, count);
        const bool staged_flags = span.starts != nullptr && desc_.reset_strides.step != 1 && readable > 1;
        const bool staged_out = staged<T>(desc_.out_strides.step, desc_.out_stored, count);
        const auto buffers = staged_b || staged_a || staged_flags || staged_out ? ChunkBuffers<T>::of_this_thread()
                                                                                : ChunkBuffers<T>{};
        if (staged_b) {
            detail::read_converted(span.b, desc_.b_strides.step, count, desc_.b_stored, buffers.values,
                                   buffers.scratch);
            span.b = buffers.values;
        }
        if (staged_a) {
            detail::read_converted(span.a, desc_.a_strides.step, count, desc_.a_stored, buffers.coefficients,
                                   buffers.scratch);
            span.a = buffers.coefficients;
        }
        if (staged_flags) {
            gather_flags(span.starts, desc_.reset_strides.step, buffers.flags, readable);
            span.starts = buffers.flags;
        }
        T* out = span.out;
        if (staged_out) {
            span.out = buffers.values;  // (over the staged b, as in place)
        }
        const auto pair =
            kernel_(span, state, detail::RecurrenceModes{writes, desc_.exclusive, streams_ && !staged_out});
        if (writes && staged_out) {
            detail::write_converted(buffers.values, out, desc_.out_strides.step, count, desc_.out_stored,
                                    buffers.scratch, streams_);
        }
        return pair;
    }

    T initial() const { return *element_at(static_cast<const T*>(desc_.initial), desc_.initial_strides, l_, c_, 0); }

private:
    bool reverse() const { return desc_.direction == AxisDirection::decreasing; }

    const RecurrenceJob& desc_;
    std::ptrdiff_t l_;
    std::ptrdiff_t c_;
    typename detail::RecurrenceKernels<T>::span_fn kernel_;
    bool streams_;
};

// Whether a job's outputs (`elements` of T at out, the job reading in_bytes) go past the caches: large, not over an
// operand (whose lines the caches hold), and aligned to their element (as streaming stores need).
template <class T>
bool streams_outputs(const void* out, std::initializer_list<const void*> operands, std::ptrdiff_t elements,
                     std::ptrdiff_t in_bytes) {
    return std::find(operands.begin(), operands.end(), out) == operands.end() &&
           reinterpret_cast<std::uintptr_t>(out) % sizeof(T) == 0 &&
           detail::streams_past_caches(in_bytes, elements * std::ptrdiff_t(sizeof(T)));
}

// Whether a chunk hands on its walked state: its product of a's overflowed (|a| > 1), inf * a state 0 would be NaN.
template <class T>
bool walks(const detail::RecurrencePair<T>& p) {
    if constexpr (std::is_floating_point<T>::value) {
        return !p.restarts && !std::isfinite(p.a);
    } else {
        return !p.restarts && !(std::isfinite(p.a.real()) && std::isfinite(p.a.imag()));
    }
}

// Any NaN as one quiet NaN: which NaN operand survives is the compiler's operand order, not the same in both walks.
template <class T>
T one_nan(T x) {
    if constexpr (std::is_floating_point<T>::value) {
        return std::isnan(x) ? std::numeric_limits<T>::quiet_NaN() : x;
    } else {
        return T(one_nan(x.real()), one_nan(x.imag()));
    }
}

// The state after a chunk of pair p, from the state before it (p from a call that wrote, where walks(p)).
template <class T>
T after(const detail::RecurrencePair<T>& p, T state) {
    if (walks(p)) {
        return p.walked;
    }
    if (p.restarts) {
        return one_nan(p.b);
    }
    if constexpr (std::is_floating_point<T>::value) {
        if (p.a == T(0) && !p.zero_a && std::isinf(state)) {
            // A product that underflowed to 0: element by element, an infinite state stays infinite.
            return one_nan((std::signbit(p.a) ? -state : state) + p.b);
        }
    }
    return one_nan(p.a * state + p.b);
}

// Few long lines: all the threads on each line's chunks, their pairs, then their outputs.
template <class T>
void recur_chunks_in_parallel(const RecurrenceJob& desc, std::size_t threads, bool streams) {
    for (std::ptrdiff_t l = 0; l < desc.lines * desc.columns; ++l) {
        const Line<T> line(desc, l, streams);
        const std::ptrdiff_t count = line.chunks();
        std::vector<detail::RecurrencePair<T>> pairs(std::size_t(count - 1));
        detail::parallel_ranges(count - 1, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t k = begin; k < end; ++k) {
                pairs[std::size_t(k)] = line.run(k, T(), false);
            }
        });
        std::vector<T> states(static_cast<std::size_t>(count));
        std::vector<char> written(static_cast<std::size_t>(count));
        states[0] = line.initial();
        for (std::ptrdiff_t k = 1; k < count; ++k) {
            const T before = states[std::size_t(k - 1)];
            if (walks(pairs[std::size_t(k - 1)])) {
                // Its outputs now, as one thread writes them, for the state after it.
                states[std::size_t(k)] = after(line.run(k - 1, before, true), before);
                written[std::size_t(k - 1)] = 1;
            } else {
                states[std::size_t(k)] = after(pairs[std::size_t(k - 1)], before);
            }
        }
        detail::parallel_ranges(count, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t k = begin; k < end; ++k) {
                if (written[std::size_t(k)] == 0) {
                    line.run(k, states[std::size_t(k)], true);
                }
            }
        });
    }
}

// Tiles of a row of columns: wide (16 KiB of each state: whole rows read as one stream beat narrower tiles whose states
// all stayed in L1), but at least one per thread where the lines are fewer, each a few cache lines wide (whole ones:
// every tile but the last whole vectors in every tier). They begin from the first column where out's rows meet a
// cache line (the first tile takes the columns before it too): where out's rows do not, every tile began with
// columns one by one before the vectors its streaming stores align (a weighted mean's, a scalar division each).
template <class T>
class Tiles {
public:
    Tiles(const RecurrenceJob& desc, std::size_t threads) : columns_(desc.columns) {
        const std::ptrdiff_t widest = 16 * 1024 / std::ptrdiff_t(sizeof(T));
        const std::ptrdiff_t narrowest = 256 / std::ptrdiff_t(sizeof(T));
        const std::ptrdiff_t per_line = (std::ptrdiff_t(threads) + desc.lines - 1) / desc.lines;
        const std::ptrdiff_t line = 64 / std::ptrdiff_t(sizeof(T));
        const std::ptrdiff_t share = ((columns_ + per_line - 1) / per_line + line - 1) / line * line;
        width_ = std::min({columns_, widest, std::max(narrowest, share)});
        const auto address = reinterpret_cast<std::uintptr_t>(desc.out);
        const bool aligned_alike = desc.out_strides.step % 64 == 0 && desc.out_strides.line % 64 == 0;
        if (aligned_alike && address % sizeof(T) == 0) {
            shift_ = std::min(columns_, std::ptrdiff_t((64 - address % 64) % 64 / sizeof(T)));
        }
        count_ = std::max<std::ptrdiff_t>(1, (columns_ - shift_ + width_ - 1) / width_);
    }
    std::ptrdiff_t count() const { return count_; }
    std::ptrdiff_t widest() const { return width_ + shift_; }
    // Task k of a job's lines times tiles: its line, its tile's first column and width.
    struct Tile {
        std::ptrdiff_t line, first, width;
    };
    Tile of(std::ptrdiff_t task) const {
        const std::ptrdiff_t t = task % count_;
        const std::ptrdiff_t first = t == 0 ? 0 : shift_ + t * width_;
        return {task / count_, first, (t + 1 == count_ ? columns_ : shift_ + (t + 1) * width_) - first};
    }

private:
    std::ptrdiff_t columns_;
    std::ptrdiff_t width_ = 0;
    std::ptrdiff_t shift_ = 0;
    std::ptrdiff_t count_ = 1;
};

// The rows path: each line's rows walked in order over a tile of columns, every column its own recurrence (no
// transposing copy); tiles and lines split among the threads, each column's arithmetic the same in any of them.
template <class T>
void recur_rows(const RecurrenceJob& desc, std::size_t threads, bool streams) {
    const auto kernel = detail::active_kernels().recurrence.get<T>().rows;
    const Tiles<T> tiles(desc, threads);
    const bool reverse = desc.direction == AxisDirection::decreasing;
    const std::ptrdiff_t first = reverse ? desc.n - 1 : 0, sign = reverse ? -1 : 1;
    detail::parallel_ranges(desc.lines * tiles.count(), threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        std::vector<T> states(static_cast<std::size_t>(tiles.widest())), initial(states.size());
        for (std::ptrdiff_t task = begin; task < end; ++task) {
            const auto [l, c, w] = tiles.of(task);
            for (std::ptrdiff_t j = 0; j < w; ++j) {
                initial[std::size_t(j)] = *element_at(static_cast<const T*>(desc.initial), desc.initial_strides, l,
                                                      c + j, 0);
            }
            std::copy(initial.begin(), initial.begin() + w, states.begin());
            const auto* a = static_cast<const T*>(desc.a);
            const auto* reset = static_cast<const std::uint8_t*>(desc.reset);
            // Walked row r >= 1 begins a segment where its own flag is set (increasing), or its successor's in index
            // order (decreasing: the walk meets a segment's last element first).
            const std::ptrdiff_t flag_row = reverse ? desc.n - 1 : 1;
            const detail::RecurrenceRows<T> rows{
                a == nullptr ? nullptr : element_at(a, desc.a_strides, l, c, first),
                sign * desc.a_strides.step,
                a != nullptr && desc.a_strides.column == 0,
                a == nullptr ? *static_cast<const T*>(desc.a_value) : T(),
                element_at(static_cast<const T*>(desc.b), desc.b_strides, l, c, first),
                sign * desc.b_strides.step,
                element_at(static_cast<T*>(desc.out), desc.out_strides, l, c, first),
                sign * desc.out_strides.step,
                reset == nullptr || desc.n < 2 ? nullptr : element_at(reset, desc.reset_strides, l, c, flag_row),
                sign * desc.reset_strides.step,
                desc.reset_strides.column == 0,
                initial.data(),
                states.data(),
                desc.n,
                w};
            if (holds_own<T>(desc.b_stored) && holds_own<T>(desc.out_stored) &&
                (a == nullptr || holds_own<T>(desc.a_stored))) {
                kernel(rows, desc.exclusive, streams);
                continue;
            }
            const auto buffers = ChunkBuffers<T>::of_this_thread();
            for (std::ptrdiff_t r0 = 0; r0 < desc.n; r0 += band_rows<T>(w)) {
                const RowBand<T> band{r0, std::min(band_rows<T>(w), desc.n - r0), buffers.scratch};
                detail::RecurrenceRows<T> part = rows;
                part.rows = band.rows;
                std::tie(part.b, part.b_step) =
                    band.of(rows.b, rows.b_step, desc.b_strides.column, w, desc.b_stored, buffers.values, true);
                if (a != nullptr) {
                    std::tie(part.a, part.a_step) =
                        band.of(rows.a, rows.a_step, desc.a_strides.column, rows.a_every_column ? 1 : w,
                                desc.a_stored, buffers.coefficients, true);
                }
                std::tie(part.out, part.out_step) =
                    band.of(rows.out, rows.out_step, desc.out_strides.column, w, desc.out_stored, buffers.values,
                            false);  // (over the staged b, as in place)
                if (rows.starts != nullptr && r0 > 0) {
                    // The band's first row reads no flag: a segment beginning there begins from its initial state.
                    const std::uint8_t* flags = rows.starts + (r0 - 1) * rows.starts_step;
                    for (std::ptrdiff_t j = 0; j < w; ++j) {
                        if (flags[rows.starts_every_column ? 0 : j] != 0) {
                            states[std::size_t(j)] = initial[std::size_t(j)];
                        }
                    }
                    part.starts = rows.starts + r0 * rows.starts_step;
                }
                kernel(part, desc.exclusive, false);
                band.write(part.out, rows.out, rows.out_step, desc.out_strides.column, w, desc.out_stored);
            }
        }
    });
}

template <class T>
void recur_lines(const RecurrenceJob& desc) {
    const std::ptrdiff_t lines = desc.lines * desc.columns;
    const std::ptrdiff_t elements = lines * desc.n;
    const std::ptrdiff_t in_bytes = elements * std::ptrdiff_t(sizeof(T)) * (desc.a == nullptr ? 1 : 2);
    const std::size_t threads = threads_of(desc, in_bytes + elements * std::ptrdiff_t(sizeof(T)));
    const bool streams = streams_outputs<T>(desc.out, {desc.a, desc.b}, elements, in_bytes);
    if (desc.columns == 1) {
        if (lines_one_thread_each(desc, threads)) {
            detail::parallel_ranges(lines, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                for (std::ptrdiff_t l = begin; l < end; ++l) {
                    const Line<T> line(desc, l, streams);
                    T state = line.initial();
                    for (std::ptrdiff_t k = 0; k < line.chunks(); ++k) {
                        state = after(line.run(k, state, true), state);
                    }
                }
            });
        } else {
            recur_chunks_in_parallel<T>(desc, threads, streams);
        }
    } else {
        recur_rows<T>(desc, threads, streams);
    }
    detail::order_streamed_stores();  // what this thread streamed (the pool's threads order their own)
}

// A weighted mean's line in chunks at fixed places (Line's counterpart): chunk k walked from the state before it,
// which is the chunks' before it composed (MeanLine::after), so that no bit depends on the thread count; staged where
// the line is not contiguous.
template <class T, bool Adjust>
class MeanLine {
public:
    using State = std::conditional_t<Adjust, detail::WeightedMeanState<T>, detail::RecursiveMeanState<T>>;
    using Chunk = std::conditional_t<Adjust, detail::WeightedMeanChunk<T>, detail::RecursiveMeanChunk<T>>;

    MeanLine(const RecurrenceJob& desc, std::ptrdiff_t k, bool streams)
        : desc_(desc), l_(k / desc.columns), c_(k % desc.columns), decay_(T(1.0 - desc.weighting.alpha)),
          alpha_(T(desc.weighting.alpha)), kernels_(detail::active_kernels().recurrence.get<T>()), streams_(streams) {}

    std::ptrdiff_t chunks() const { return (desc_.n + chunk - 1) / chunk; }

    // Chunk k's own composition; where `at` is given, its outputs too, walked from *at (then the state after it).
    Chunk run(std::ptrdiff_t k, State* at) const {
        const std::ptrdiff_t first = k * chunk, count = std::min(chunk, desc_.n - first);
        const T* x = element_at(static_cast<const T*>(desc_.b), desc_.b_strides, l_, c_, first);
        T* out = element_at(static_cast<T*>(desc_.out), desc_.out_strides, l_, c_, first);
        const bool staged_x = staged<T>(desc_.b_strides.step, desc_.b_stored, count);
        const bool staged_out = at != nullptr && staged<T>(desc_.out_strides.step, desc_.out_stored, count);
        const auto buffers = staged_x || staged_out ? ChunkBuffers<T>::of_this_thread() : ChunkBuffers<T>{};
        if (staged_x) {
            detail::read_converted(x, desc_.b_strides.step, count, desc_.b_stored, buffers.values, buffers.scratch);
            x = buffers.values;
        }
        T* to = at == nullptr ? nullptr : staged_out ? buffers.values : out;  // (over the staged x, as in place)
        State unused;
        State& state = at == nullptr ? unused : *at;
        const bool ignore_na = desc_.weighting.ignore_na, streams = streams_ && !staged_out;
        Chunk own;
        if constexpr (Adjust) {
            own = kernels_.weighted_mean(x, to, count, decay_, ignore_na, streams, state);
        } else {
            own = kernels_.recursive_mean(x, to, count, decay_, alpha_, ignore_na, streams, state);
        }
        if (staged_out) {
            detail::write_converted(buffers.values, out, desc_.out_strides.step, count, desc_.out_stored,
                                    buffers.scratch, streams_);
        }
        return own;
    }

    // The state after chunk k (of composition `own`), from the state before it.
    State after(std::ptrdiff_t k, const Chunk& own, const State& at) const {
        const bool any = own.first < std::min(chunk, desc_.n - k * chunk);
        State next = at;
        if constexpr (Adjust) {
            // (Where the weights are few, the sums are the mean's: as weighted_mean_elements leaves that mode.)
            const T totals = !at.few ? at.totals : at.weights == T(0) ? T(0) : at.mean * at.weights;
            next.totals = own.ages * totals + own.totals;
            next.weights = own.ages * at.weights + own.weights;
            next.few = !(next.weights >= State::few_weights);
            next.mean = any ? next.totals / next.weights : at.mean;
        } else if (!any) {
            next.kept = at.kept * own.lead;
        } else {
            T mean = own.first_value;
            if (at.seen) {  // the first value's step, as recursive_mean_elements takes it
                const T kept = at.kept * own.lead * decay_, total = kept + alpha_;
                mean = kept / total * at.mean + alpha_ / total * own.first_value;
            }
            next = State{own.a * mean + own.b, own.kept, true};
        }
        return next;
    }

    // Chunk k's missing values before its first (`first` of them): the output before the chunk, as a walk in one
    // piece carries it (the state's mean is the chunks' composition, rounded apart).
    void repeat_last_output(std::ptrdiff_t k, std::ptrdiff_t first) const {
        if (k == 0) {
            return;
        }
        const T last = read_one<T>(element_at(desc_.out, desc_.out_strides, l_, c_, k * chunk - 1), desc_.out_stored);
        for (std::ptrdiff_t i = k * chunk; i < k * chunk + first; ++i) {
            write_one(last, element_at(desc_.out, desc_.out_strides, l_, c_, i), desc_.out_stored);
        }
    }

private:
    const RecurrenceJob& desc_;
    std::ptrdiff_t l_;
    std::ptrdiff_t c_;
    T decay_;
    T alpha_;
    const detail::RecurrenceKernels<T>& kernels_;
    bool streams_;
};

// The lines of a weighted mean's job, chunk after chunk; few long lines on several threads: all of them on each line's
// chunks, their compositions, then their outputs (as recur_chunks_in_parallel).
template <class T, bool Adjust>
void weighted_mean_lines(const RecurrenceJob& desc, std::size_t threads, bool streams) {
    using Walk = MeanLine<T, Adjust>;
    using State = typename Walk::State;
    const std::ptrdiff_t lines = desc.lines * desc.columns;
    if (lines_one_thread_each(desc, threads)) {
        detail::parallel_ranges(lines, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t l = begin; l < end; ++l) {
                const Walk line(desc, l, streams);
                State at;
                for (std::ptrdiff_t k = 0; k < line.chunks(); ++k) {
                    State walked = at;
                    const auto own = line.run(k, &walked);
                    line.repeat_last_output(k, own.first);
                    at = line.after(k, own, at);
                }
            }
        });
        return;
    }
    for (std::ptrdiff_t l = 0; l < lines; ++l) {
        const Walk line(desc, l, streams);
        const std::ptrdiff_t count = line.chunks();
        std::vector<typename Walk::Chunk> own(static_cast<std::size_t>(count));
        detail::parallel_ranges(count - 1, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t k = begin; k < end; ++k) {
                own[std::size_t(k)] = line.run(k, nullptr);
            }
        });
        std::vector<State> states(static_cast<std::size_t>(count));
        for (std::ptrdiff_t k = 1; k < count; ++k) {
            states[std::size_t(k)] = line.after(k - 1, own[std::size_t(k - 1)], states[std::size_t(k - 1)]);
        }
        detail::parallel_ranges(count, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t k = begin; k < end; ++k) {
                own[std::size_t(k)] = line.run(k, &states[std::size_t(k)]);
            }
        });
        for (std::ptrdiff_t k = 1; k < count; ++k) {
            line.repeat_last_output(k, own[std::size_t(k)].first);
        }
    }
}

// The rows path of a weighted mean (as recur_rows'): each tile's columns walked a row after another.
template <class T>
void weighted_mean_rows(const RecurrenceJob& desc, std::size_t threads, bool streams) {
    const auto& kernels = detail::active_kernels().recurrence.get<T>();
    const T decay = T(1.0 - desc.weighting.alpha), alpha = T(desc.weighting.alpha);
    const bool adjust = desc.weighting.adjust, ignore_na = desc.weighting.ignore_na;
    const Tiles<T> tiles(desc, threads);
    detail::parallel_ranges(desc.lines * tiles.count(), threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        const std::size_t w_max = static_cast<std::size_t>(tiles.widest());
        std::vector<T> totals(w_max), weights(w_max), means(w_max);
        std::vector<std::uint8_t> few(w_max);
        for (std::ptrdiff_t task = begin; task < end; ++task) {
            const auto [l, c, w] = tiles.of(task);
            const detail::WeightedMeanState<T> sums;
            const detail::RecursiveMeanState<T> recursion;
            std::fill(totals.begin(), totals.end(), sums.totals);
            std::fill(weights.begin(), weights.end(), adjust ? sums.weights : recursion.kept);
            std::fill(means.begin(), means.end(), adjust ? sums.mean : recursion.mean);
            std::fill(few.begin(), few.end(), std::uint8_t(1));  // few weights; no value yet
            const detail::WeightedMeanRows<T> rows{
                element_at(static_cast<const T*>(desc.b), desc.b_strides, l, c, 0), desc.b_strides.step,
                element_at(static_cast<T*>(desc.out), desc.out_strides, l, c, 0), desc.out_strides.step,
                totals.data(), weights.data(), means.data(), few.data(), desc.n, w};
            const auto walk = [&](const detail::WeightedMeanRows<T>& part, bool streamed) {
                if (adjust) {
                    kernels.weighted_mean_rows(part, decay, ignore_na, streamed);
                } else {
                    kernels.recursive_mean_rows(part, decay, alpha, ignore_na, streamed);
                }
            };
            if (holds_own<T>(desc.b_stored) && holds_own<T>(desc.out_stored)) {
                walk(rows, streams);
                continue;
            }
            const auto buffers = ChunkBuffers<T>::of_this_thread();
            for (std::ptrdiff_t r0 = 0; r0 < desc.n; r0 += band_rows<T>(w)) {
                const RowBand<T> band{r0, std::min(band_rows<T>(w), desc.n - r0), buffers.scratch};
                detail::WeightedMeanRows<T> part = rows;
                part.rows = band.rows;
                std::tie(part.x, part.x_step) =
                    band.of(rows.x, rows.x_step, desc.b_strides.column, w, desc.b_stored, buffers.values, true);
                std::tie(part.out, part.out_step) =
                    band.of(rows.out, rows.out_step, desc.out_strides.column, w, desc.out_stored, buffers.values,
                            false);
                walk(part, false);
                band.write(part.out, rows.out, rows.out_step, desc.out_strides.column, w, desc.out_stored);
            }
        }
    });
}

template <class T>
void weighted_means(const RecurrenceJob& desc) {
    const std::ptrdiff_t elements = desc.lines * desc.n * desc.columns;
    const std::size_t threads = threads_of(desc, elements * std::ptrdiff_t(2 * sizeof(T)));
    const bool streams = streams_outputs<T>(desc.out, {desc.b}, elements, elements * std::ptrdiff_t(sizeof(T)));
    if (desc.columns > 1) {
        weighted_mean_rows<T>(desc, threads, streams);
    } else if (desc.weighting.adjust) {
        weighted_mean_lines<T, true>(desc, threads, streams);
    } else {
        weighted_mean_lines<T, false>(desc, threads, streams);
    }
    detail::order_streamed_stores();  // what this thread streamed (the pool's threads order their own)
}

// How a view's axes after `axis` lie (those of more than one element): their elements, and whether they are one
// run `unit` bytes apart in C order, or all at stride 0.
struct AfterAxis {
    std::ptrdiff_t count = 1;
    bool contiguous = true;
    bool repeated = true;
};
AfterAxis after_axis(const TensorView& view, std::size_t axis, std::ptrdiff_t unit) {
    AfterAxis after;
    std::ptrdiff_t step = unit;
    for (std::size_t d = view.sizes.size(); d-- > axis + 1;) {
        if (view.sizes[d] > 1) {
            after.count *= view.sizes[d];
            after.contiguous = after.contiguous && view.byte_strides[d] == step;
            after.repeated = after.repeated && view.byte_strides[d] == 0;
            step *= view.sizes[d];
        }
    }
    return after;
}

// The README's rule (determinism): a job's lines are walked a row of columns at a time, each column element by
// element, where its input has more than one element after the axis, those axes one run in C order (in_memory_order
// puts the axes that lie closer together than the scan axis there); else each line has the bits of a contiguous line.
bool walks_rows(const CumulativeOperatorDesc& desc) {
    const AfterAxis after = after_axis(desc.input, desc.axis, std::ptrdiff_t(element_size(desc.input.data_type)));
    return desc.input.sizes[desc.axis] > 1 && after.count > 1 && after.contiguous;
}

// The same description with every view's axes in one new order: the input's axes that lie further apart in memory
// than the scan axis (as they were), the scan axis, then those closer together, the widest first (a Fortran-ordered
// array or a transposed view along its last axis then lies as a C-ordered one along its first).
CumulativeOperatorDesc in_memory_order(const CumulativeOperatorDesc& desc) {
    const std::vector<std::ptrdiff_t>& strides = desc.input.byte_strides;
    const auto apart = [&](std::size_t d) { return std::abs(strides[d]); };
    std::vector<std::size_t> order, closer;
    for (std::size_t d = 0; d < strides.size(); ++d) {
        if (d != desc.axis) {
            (apart(d) < apart(desc.axis) ? closer : order).push_back(d);
        }
    }
    for (std::size_t i = 1; i < closer.size(); ++i) {  // (a stable insertion sort of a few axes)
        for (std::size_t j = i; j > 0 && apart(closer[j - 1]) < apart(closer[j]); --j) {
            std::swap(closer[j - 1], closer[j]);
        }
    }
    CumulativeOperatorDesc sorted = desc;
    sorted.axis = order.size();
    order.push_back(desc.axis);
    order.insert(order.end(), closer.begin(), closer.end());
    for (TensorView CumulativeOperatorDesc::*view : {&CumulativeOperatorDesc::input, &CumulativeOperatorDesc::output,
                                                    &CumulativeOperatorDesc::coefficient,
                                                    &CumulativeOperatorDesc::initial, &CumulativeOperatorDesc::reset}) {
        const TensorView& given = desc.*view;
        if (given.sizes.size() != order.size()) {
            continue;  // (a role not given)
        }
        for (std::size_t d = 0; d < order.size(); ++d) {
            (sorted.*view).sizes[d] = given.sizes[order[d]];
            (sorted.*view).byte_strides[d] = given.byte_strides[order[d]];
        }
    }
    return sorted;
}

// Whether a plan's innermost other axis runs as columns on the rows path: one element apart in every operand that
// the rows kernels read a vector at a time (a byte in the reset; a and the reset may repeat along it; the initial
// states are read one by one).
bool runs_as_columns(const detail::Plan& plan, const CumulativeOperatorDesc& desc) {
    using detail::Role;
    if (plan.others.empty()) {
        return false;
    }
    const detail::Dim& inner = plan.others.back();
    using Operand = std::pair<std::size_t, const TensorView*>;
    for (const auto& [role, view] : {Operand{Role::in, &desc.input}, Operand{Role::out, &desc.output},
                                     Operand{Role::coefficient, &desc.coefficient}, Operand{Role::reset, &desc.reset}}) {
        const std::ptrdiff_t unit = std::ptrdiff_t(element_size(view->data_type));  // (the reset's: a byte)
        const bool may_repeat = role != Role::in && role != Role::out;
        if (plan.has(role) && inner.stride[role] != unit && !(may_repeat && inner.stride[role] == 0)) {
            return false;
        }
    }
    return true;
}

// A plan's operands along the scan axis in index order (make_plan starts a decreasing scan at its last element).
detail::Operands index_order(const detail::Plan& plan, detail::OperandBytes& step) {
    step = plan.step;
    detail::Operands data = plan.data;
    if (plan.decreasing) {
        for (std::size_t role = 0; role < detail::Role::count; ++role) {
            step[role] = -step[role];
            data[role] = data[role] == nullptr ? nullptr : data[role] - (plan.n - 1) * step[role];
        }
    }
    return data;
}

// A forward fill's state along a line: the last number walked (where `has`), and the elements walked since it.
template <class T>
struct FillState {
    T value{};
    std::ptrdiff_t gap = 0;
    bool has = false;
};

// An element's bits, as an unsigned integer of its size (a complex one's parts apart).
template <class T>
using BitsOf = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
template <class T>
BitsOf<T> bits_of(const T& x) {
    BitsOf<T> bits;
    std::memcpy(&bits, &x, sizeof(T));
    return bits;
}

// Whether an element is a number (no NaN; a complex one: neither part), as the scan paths' fill takes it: by its
// bits, the magnitude at most infinity's (a float compare would be a branch, mispredicted on NaN data); float16
// elements are their bits.
template <class T>
#if defined(__GNUC__)
[[gnu::always_inline]]
#endif
inline bool is_number(const T& x) {
    if constexpr (std::is_same<T, std::uint16_t>::value) {
        return (x & 0x7fff) <= 0x7c00;
    } else if constexpr (std::is_floating_point<T>::value) {
        constexpr BitsOf<T> sign = BitsOf<T>(1) << (8 * sizeof(T) - 1);
        return (bits_of(x) & BitsOf<T>(~sign)) <= bits_of(std::numeric_limits<T>::infinity());
    } else {
        return is_number(x.real()) && is_number(x.imag());
    }
}

// `yes` where `pick`, else `no`, by their bits (a branch on NaN data is mispredicted as often as it is taken).
template <class T>
#if defined(__GNUC__)
[[gnu::always_inline]]
#endif
inline T choose(bool pick, const T& yes, const T& no) {
    if constexpr (std::is_arithmetic<T>::value) {
        const BitsOf<T> mask = BitsOf<T>(BitsOf<T>(0) - BitsOf<T>(pick));
        const BitsOf<T> bits = BitsOf<T>((bits_of(yes) & mask) | (bits_of(no) & BitsOf<T>(~mask)));
        T chosen;
        std::memcpy(&chosen, &bits, sizeof(T));
        return chosen;
    } else {
        return T(choose(pick, yes.real(), no.real()), choose(pick, yes.imag(), no.imag()));
    }
}

// One step of a fill with a limit: the element into the state, and what stands at its place (itself, or the last
// number where it is NaN and at most `limit` elements follow that number). Inlined into the loops and free of
// branches: this file is compiled for size (CMakeLists.txt), which would leave a call and a branch per element.
template <class T>
#if defined(__GNUC__)
[[gnu::always_inline]]
#endif
inline T fill_step(const T& x, FillState<T>& at, std::ptrdiff_t limit) {
    const bool number = is_number(x);
    at.gap = (at.gap + 1) & (std::ptrdiff_t(number) - 1);  // 0 at a number
    at.value = choose(number, x, at.value);
    at.has = at.has | number;
    return choose(number | !at.has | (at.gap > limit), x, at.value);
}

// Whether the tiers' fill kernels take a limit (their counts exact in float32 lanes), for elements of type T.
template <class T>
bool fills_by_vectors(std::ptrdiff_t limit) {
    return std::is_floating_point<T>::value && limit < (std::ptrdiff_t(1) << 22);
}

// n contiguous elements of a fill's line (from their end where reverse) from state `at`, each output into out; a
// segment begins at element i where starts[i] != 0, i < readable. Returns whether the state after them is their own
// (a number or a segment start among them), not the one before them moved on. Between segment starts: the tier's
// vectors (real types; streamed where `streams`), then one element at a time.
template <class T>
bool fill_elements(const T* in, T* out, std::ptrdiff_t n, const std::uint8_t* starts, std::ptrdiff_t readable,
                   bool reverse, std::ptrdiff_t limit, bool streams, FillState<T>& at) {
    const std::ptrdiff_t step = reverse ? -1 : 1;
    const std::ptrdiff_t first = reverse ? n - 1 : 0;
    bool own = false;
    FillState<T> state = at;  // (a local: through the reference, every step would store it)
    for (std::ptrdiff_t k = 0; k < n;) {
        std::ptrdiff_t end = starts == nullptr ? n : k + 1;  // the run [k, end): no segment start after its first
        while (end < n && !(first + end * step < readable && starts[first + end * step] != 0)) {
            ++end;
        }
        if (starts != nullptr && first + k * step < readable && starts[first + k * step] != 0) {
            state = FillState<T>{};
            own = true;
        }
        std::ptrdiff_t walked = 0;
        if constexpr (std::is_floating_point<T>::value) {
            if (fills_by_vectors<T>(limit)) {
                const T beyond = T(limit + 1);
                detail::FillLanes<T> lanes{state.value, state.has ? std::min(T(state.gap), beyond) : beyond, T(limit),
                                           false};
                const std::ptrdiff_t low = reverse ? n - end : k;  // the run's lowest index
                walked = detail::active_kernels().recurrence.get<T>().limited_fill[reverse](in + low, out + low,
                                                                                             end - k, streams, lanes);
                if (lanes.seen) {
                    state = FillState<T>{lanes.value, std::ptrdiff_t(lanes.gap), true};
                    own = true;
                } else {
                    state.gap += walked;
                }
            }
        }
        for (std::ptrdiff_t j = k + walked; j < end; ++j) {
            const std::ptrdiff_t i = first + j * step;
            const std::ptrdiff_t before = state.gap;
            out[i] = fill_step(in[i], state, limit);  // (in read before out is written: out may be in)
            own = own || state.gap <= before;  // a number
        }
        k = end;
    }
    at = state;
    return own;
}

// Chunk k (in walk order) of line l of a fill's job, from state `at`, its outputs written where `writes`: staged as
// Line's chunks are where an operand is strided (streamed where `streams` and out is not staged). Returns
// fill_elements' answer.
template <class T>
bool fill_chunk(const RecurrenceJob& desc, std::ptrdiff_t l, std::ptrdiff_t k, bool writes, bool streams,
                FillState<T>& at) {
    const bool reverse = desc.direction == AxisDirection::decreasing;
    const std::ptrdiff_t n = desc.n;
    const std::ptrdiff_t first = reverse ? std::max<std::ptrdiff_t>(0, n - (k + 1) * chunk) : k * chunk;
    const std::ptrdiff_t count = std::min(chunk, n - k * chunk);
    const std::ptrdiff_t shift = reverse ? 1 : 0;  // (as Line's: the walk meets a segment's last element first)
    const std::ptrdiff_t readable = std::min(count, n - shift - first);
    const std::ptrdiff_t li = l / desc.columns, c = l % desc.columns;
    const T* in = element_at(static_cast<const T*>(desc.b), desc.b_strides, li, c, first);
    T* out = element_at(static_cast<T*>(desc.out), desc.out_strides, li, c, first);
    const auto* reset = static_cast<const std::uint8_t*>(desc.reset);
    const std::uint8_t* starts =
        reset == nullptr || readable <= 0 ? nullptr : element_at(reset, desc.reset_strides, li, c, first + shift);
    const bool staged_in = staged<T>(desc.b_strides.step, desc.b_stored, count);
    const bool staged_out = writes && staged<T>(desc.out_strides.step, desc.out_stored, count);
    const bool staged_flags = starts != nullptr && desc.reset_strides.step != 1 && readable > 1;
    const auto buffers =
        staged_in || staged_out || staged_flags ? ChunkBuffers<T>::of_this_thread() : ChunkBuffers<T>{};
    if (staged_in) {
        detail::read_converted(in, desc.b_strides.step, count, desc.b_stored, buffers.values, buffers.scratch);
        in = buffers.values;
    }
    if (staged_flags) {
        gather_flags(starts, desc.reset_strides.step, buffers.flags, readable);
        starts = buffers.flags;
    }
    // (Outputs not wanted go to the thread's buffer: one loop for both passes.)
    const auto scratch = writes || staged_in ? buffers : ChunkBuffers<T>::of_this_thread();
    T* target = !writes ? scratch.values : staged_out ? buffers.values : out;
    const bool own = fill_elements(in, target, count, starts, readable, reverse, desc.fill_limit,
                                   streams && target == out, at);
    if (staged_out) {
        detail::write_converted(buffers.values, out, desc.out_strides.step, count, desc.out_stored, buffers.scratch,
                                streams);
    }
    return own;
}

// A fill's rows (the rows path: each tile's columns walked a row after another, their states in arrays).
template <class T>
void fill_rows(const RecurrenceJob& desc, std::size_t threads, bool streams) {
    const Tiles<T> tiles(desc, threads);
    const bool reverse = desc.direction == AxisDirection::decreasing;
    const bool by_vectors = std::is_floating_point<T>::value && fills_by_vectors<T>(desc.fill_limit);
    T limit{};  // (the vector kernels' limit, in the element type)
    if constexpr (std::is_floating_point<T>::value) {
        limit = T(desc.fill_limit);
    }
    detail::parallel_ranges(desc.lines * tiles.count(), threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        std::vector<FillState<T>> states(static_cast<std::size_t>(tiles.widest()));
        std::vector<T> values, gaps;
        // Rows of a tile from the states: walked row r >= 1 of `part` begins a segment where its flag is set;
        // `restart`: row 0 too.
        const auto walk = [&](const detail::FillRows<T>& part, const std::uint8_t* restart, bool streamed) {
            for (std::ptrdiff_t j = 0; restart != nullptr && j < part.w; ++j) {
                if (restart[j * part.starts_column] != 0) {
                    states[std::size_t(j)] = FillState<T>{};
                    if constexpr (std::is_floating_point<T>::value) {
                        gaps[std::size_t(j)] = limit + T(1);  // (nothing to fill from: its value is never read)
                    }
                }
            }
            if constexpr (std::is_floating_point<T>::value) {
                if (by_vectors) {
                    detail::active_kernels().recurrence.get<T>().limited_fill_rows(part, streamed);
                    return;
                }
            }
            for (std::ptrdiff_t r = 0; r < part.rows; ++r) {
                const T* in = reinterpret_cast<const T*>(reinterpret_cast<const char*>(part.x) + r * part.x_step);
                T* out = reinterpret_cast<T*>(reinterpret_cast<char*>(part.out) + r * part.out_step);
                const std::uint8_t* flags =
                    part.starts == nullptr || r == 0 ? nullptr : part.starts + (r - 1) * part.starts_step;
                for (std::ptrdiff_t j = 0; j < part.w; ++j) {
                    FillState<T>& at = states[std::size_t(j)];
                    if (flags != nullptr && flags[j * part.starts_column] != 0) {
                        at = FillState<T>{};
                    }
                    out[j] = fill_step(in[j], at, desc.fill_limit);
                }
            }
        };
        for (std::ptrdiff_t task = begin; task < end; ++task) {
            const auto [l, c, w] = tiles.of(task);
            values.assign(std::size_t(w), T());
            gaps.assign(std::size_t(w), T(limit + T(1)));
            std::fill(states.begin(), states.end(), FillState<T>{});
            const std::ptrdiff_t first = reverse ? desc.n - 1 : 0, sign = reverse ? -1 : 1;
            const auto* reset = static_cast<const std::uint8_t*>(desc.reset);
            const detail::FillRows<T> rows{
                element_at(static_cast<const T*>(desc.b), desc.b_strides, l, c, first),
                sign * desc.b_strides.step,
                element_at(static_cast<T*>(desc.out), desc.out_strides, l, c, first),
                sign * desc.out_strides.step,
                // (walked row r >= 1 begins a segment at its own flag, or at its successor's: decreasing)
                reset == nullptr || desc.n < 2 ? nullptr
                                               : element_at(reset, desc.reset_strides, l, c, reverse ? desc.n - 1 : 1),
                sign * desc.reset_strides.step,
                desc.reset_strides.column,
                values.data(),
                gaps.data(),
                limit,
                desc.n,
                w};
            if (holds_own<T>(desc.b_stored) && holds_own<T>(desc.out_stored)) {
                walk(rows, nullptr, streams);
                continue;
            }
            const auto buffers = ChunkBuffers<T>::of_this_thread();
            for (std::ptrdiff_t r0 = 0; r0 < desc.n; r0 += band_rows<T>(w)) {
                const RowBand<T> band{r0, std::min(band_rows<T>(w), desc.n - r0), buffers.scratch};
                detail::FillRows<T> part = rows;
                part.rows = band.rows;
                std::tie(part.x, part.x_step) =
                    band.of(rows.x, rows.x_step, desc.b_strides.column, w, desc.b_stored, buffers.values, true);
                std::tie(part.out, part.out_step) =
                    band.of(rows.out, rows.out_step, desc.out_strides.column, w, desc.out_stored, buffers.values,
                            false);
                const bool flagged = rows.starts != nullptr && r0 > 0;
                part.starts = flagged ? rows.starts + r0 * rows.starts_step : rows.starts;
                walk(part, flagged ? rows.starts + (r0 - 1) * rows.starts_step : nullptr, false);
                band.write(part.out, rows.out, rows.out_step, desc.out_strides.column, w, desc.out_stored);
            }
        }
    });
}

// A fill's job: its rows, or each line on one thread; few long lines on all the threads: each chunk's own state (or
// none) first, in parallel, then their outputs, each from the state the chunks before it leave.
template <class T>
void fill_lines(const RecurrenceJob& desc) {
    const std::ptrdiff_t lines = desc.lines * desc.columns;
    const std::size_t threads = threads_of(desc, 2 * lines * desc.n * std::ptrdiff_t(sizeof(T)));
    const std::ptrdiff_t elements = lines * desc.n;
    const bool streams = streams_outputs<T>(desc.out, {desc.b}, elements, elements * std::ptrdiff_t(sizeof(T)));
    const std::ptrdiff_t chunks = (desc.n + chunk - 1) / chunk;
    if (desc.columns > 1) {
        fill_rows<T>(desc, threads, streams);
    } else if (lines_one_thread_each(desc, threads)) {
        detail::parallel_ranges(lines, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t l = begin; l < end; ++l) {
                FillState<T> at;
                for (std::ptrdiff_t k = 0; k < chunks; ++k) {
                    fill_chunk<T>(desc, l, k, true, streams, at);
                }
            }
        });
    } else {
        for (std::ptrdiff_t l = 0; l < lines; ++l) {
            std::vector<FillState<T>> states(static_cast<std::size_t>(chunks));
            std::vector<char> own(static_cast<std::size_t>(chunks));
            detail::parallel_ranges(chunks - 1, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                for (std::ptrdiff_t k = begin; k < end; ++k) {
                    own[std::size_t(k)] = fill_chunk<T>(desc, l, k, false, false, states[std::size_t(k + 1)]) ? 1 : 0;
                }
            });
            // The state before chunk k + 1: chunk k's own, or the one before chunk k moved on by its elements.
            for (std::ptrdiff_t k = 0; k + 1 < chunks; ++k) {
                if (own[std::size_t(k)] == 0) {
                    FillState<T> moved = states[std::size_t(k)];
                    moved.gap += std::min(chunk, desc.n - k * chunk);
                    states[std::size_t(k + 1)] = moved;
                }
            }
            detail::parallel_ranges(chunks, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                for (std::ptrdiff_t k = begin; k < end; ++k) {
                    FillState<T> at = states[std::size_t(k)];
                    fill_chunk<T>(desc, l, k, true, streams, at);
                }
            });
        }
    }
    detail::order_streamed_stores();  // what this thread streamed (the pool's threads order their own)
}

// A job on its runner.
template <class T>
void run_job(const RecurrenceJob& job, bool weighted) {
    if (job.fill_limit > 0) {
        fill_lines<T>(job);
        return;
    }
    if constexpr (std::is_floating_point<T>::value) {
        if (weighted) {
            weighted_means<T>(job);
            return;
        }
    }
    if constexpr (!std::is_same<T, std::uint16_t>::value) {
        recur_lines<T>(job);
    }
}

// Lines of a job (one line per row) gathered `count` at a time: the kernels' contiguous lines, not
// one element a cache line where the lines lie closer together than their elements (a Fortran-ordered array along its
// last axis, a transposed view): each block's lines gathered side by side, run on one thread, scattered back.
constexpr std::ptrdiff_t interleaved_block_elements = chunk;

// How many lines a job's blocks hold (0: the job runs as it is): where b's or out's lines are strided (staged)
// and lie closer together than their elements, and at least two lines fit a block; T's own elements only (others
// are converted a chunk of a line at a time).
template <class T>
std::ptrdiff_t interleaved_block(const RecurrenceJob& job) {
    const std::ptrdiff_t size = sizeof(T);
    const auto interleaved = [&](const RecurrenceStrides& strides) {
        return strides.step != size && std::abs(strides.line) < std::abs(strides.step);
    };
    const bool own = holds_own<T>(job.b_stored) && holds_own<T>(job.out_stored) &&
                     (job.a == nullptr || holds_own<T>(job.a_stored));
    if (!own || job.columns != 1 || job.lines < 2 || job.n < 2 ||
        !(interleaved(job.b_strides) || interleaved(job.out_strides))) {
        return 0;
    }
    const std::ptrdiff_t lines = std::min(job.lines, interleaved_block_elements / job.n);
    return lines >= 2 ? lines : 0;
}

// Between element i of line l of a strided operand and element l * n + i of `count` contiguous lines of n, either
// way: in tiles of a few elements of each line, so that both sides go a cache line at a time (one element a cache
// line, else), few enough that a tile's cache lines, a power of two apart, share an L1 set without evicting each other.
constexpr std::ptrdiff_t transpose_tile = 8;
template <bool Gather, class S, class E = std::remove_const_t<S>>
void move_lines(S* strided, const RecurrenceStrides& strides, std::ptrdiff_t count, std::ptrdiff_t n, E* lines) {
    using Byte = std::conditional_t<std::is_const<S>::value, const char, char>;
    for (std::ptrdiff_t i0 = 0; i0 < n; i0 += transpose_tile) {
        const std::ptrdiff_t width = std::min(transpose_tile, n - i0);
        Byte* line = reinterpret_cast<Byte*>(strided) + i0 * strides.step;
        for (std::ptrdiff_t l = 0; l < count; ++l, line += strides.line) {
            E* contiguous = lines + l * n + i0;
            for (std::ptrdiff_t i = 0; i < width; ++i) {
                S* element = reinterpret_cast<S*>(line + i * strides.step);
                if constexpr (Gather) {
                    contiguous[i] = *element;
                } else {
                    *element = contiguous[i];
                }
            }
        }
    }
}

template <class T>
void run_interleaved(const RecurrenceJob& job, bool weighted, std::ptrdiff_t block) {
    const std::ptrdiff_t n = job.n, blocks = (job.lines + block - 1) / block;
    const std::ptrdiff_t size = sizeof(T);
    const std::size_t threads = detail::threads_for(2 * job.lines * n * size);
    detail::parallel_ranges(blocks, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        const std::size_t elements = static_cast<std::size_t>(block * n);
        std::vector<T> values(elements), coefficients(job.a == nullptr ? 0 : elements);
        std::vector<std::uint8_t> flags(job.reset == nullptr ? 0 : elements);
        const RecurrenceStrides contiguous{n * size, size, 0}, contiguous_flags{n, 1, 0};
        for (std::ptrdiff_t k = begin; k < end; ++k) {
            const std::ptrdiff_t first = k * block, count = std::min(block, job.lines - first);
            RecurrenceJob part = job;
            part.lines = count;
            part.threads = 1;
            const auto* b = element_at(static_cast<const T*>(job.b), job.b_strides, first, 0, 0);
            move_lines<true>(b, job.b_strides, count, n, values.data());
            part.b = part.out = values.data();  // (the outputs over the values, as in place)
            part.b_strides = part.out_strides = contiguous;
            if (job.a != nullptr) {
                move_lines<true>(element_at(static_cast<const T*>(job.a), job.a_strides, first, 0, 0), job.a_strides,
                                 count, n, coefficients.data());
                part.a = coefficients.data();
                part.a_strides = contiguous;
            }
            if (job.reset != nullptr) {
                const auto* starts = static_cast<const std::uint8_t*>(job.reset);
                move_lines<true>(element_at(starts, job.reset_strides, first, 0, 0), job.reset_strides, count, n,
                                 flags.data());
                part.reset = flags.data();
                part.reset_strides = contiguous_flags;
            }
            if (job.initial != nullptr) {
                part.initial = element_at(static_cast<const T*>(job.initial), job.initial_strides, first, 0, 0);
            }
            run_job<T>(part, weighted);
            move_lines<false>(element_at(static_cast<T*>(job.out), job.out_strides, first, 0, 0), job.out_strides,
                              count, n, values.data());
        }
    });
}

// A description's jobs, of its operator and data type (checked by validate): each type's runners compiled once.
template <class T>
void run_each(const std::vector<RecurrenceJob>& jobs, bool weighted) {
    for (RecurrenceJob job : jobs) {
        T a_value;  // a scalar a stored otherwise than as T, converted once
        if (job.a_value != nullptr && !holds_own<T>(job.a_stored)) {
            a_value = read_one<T>(job.a_value, job.a_stored);
            job.a_value = &a_value;
        }
        // (Real types only: the complex recurrences and float16 fills keep each line's own staging.)
        const std::ptrdiff_t block = std::is_floating_point<T>::value ? interleaved_block<T>(job) : 0;
        if constexpr (std::is_floating_point<T>::value) {
            if (block > 0) {
                run_interleaved<T>(job, weighted, block);
                continue;
            }
        }
        run_job<T>(job, weighted);
    }
}

// A plan's jobs, each a run of lines whose operands lie evenly: on the rows path (its innermost other axis the
// columns, runs_as_columns), or line by line.
void run_jobs(const detail::Plan& plan, const CumulativeOperatorDesc& desc, bool rows) {
    using detail::Role;
    detail::OperandBytes step;
    const detail::Operands data = index_order(plan, step);
    std::vector<detail::Dim> lines = plan.others;
    const detail::Dim columns = rows ? lines.back() : detail::Dim{1, {}};
    if (rows) {
        lines.pop_back();
    }
    std::ptrdiff_t count = 1;
    for (const detail::Dim& dim : lines) {
        count *= dim.size;
    }
    const detail::Dim line = detail::innermost(lines);
    // A scalar a (one element at stride 0 everywhere) is read once: the kernels' fast paths take it by value.
    const bool scalar_a = plan.has(Role::coefficient) && step[Role::coefficient] == 0 &&
                          columns.stride[Role::coefficient] == 0 &&
                          std::all_of(lines.begin(), lines.end(), [](const detail::Dim& dim) {
                              return dim.stride[Role::coefficient] == 0;
                          });
    std::vector<RecurrenceJob> jobs;
    detail::for_each_run(lines, 0, count, [&](const detail::LineOffsets& first, std::ptrdiff_t runs) {
        const auto view = [&](std::size_t role) -> std::pair<char*, RecurrenceStrides> {
            if (!plan.has(role)) {
                return {nullptr, {}};
            }
            return {data[role] + first[role], {line.stride[role], step[role], columns.stride[role]}};
        };
        RecurrenceJob job;
        job.lines = runs;
        job.n = plan.n;
        job.columns = columns.size;
        std::tie(job.b, job.b_strides) = view(Role::in);
        std::tie(job.out, job.out_strides) = view(Role::out);
        std::tie(job.initial, job.initial_strides) = view(Role::initial);
        std::tie(job.reset, job.reset_strides) = view(Role::reset);
        std::tie(job.a, job.a_strides) = view(Role::coefficient);
        job.a_stored = {desc.coefficient.data_type, desc.coefficient.byte_swapped};
        job.b_stored = {desc.input.data_type, desc.input.byte_swapped};
        job.out_stored = {desc.output.data_type, desc.output.byte_swapped};
        if (scalar_a) {
            job.a_value = job.a;
            job.a = nullptr;
        }
        job.direction = desc.direction;
        job.exclusive = desc.exclusive;
        job.weighting = desc.weighting;
        job.fill_limit = desc.fill_limit;
        jobs.push_back(job);
    });
    const bool weighted = desc.op == CumulativeOperator::weighted_mean;
    switch (desc.output.data_type) {
        case DataType::float16:  // (computed in float32; a fill's bits selected as they are)
            return desc.fill_limit > 0 ? run_each<std::uint16_t>(jobs, weighted) : run_each<float>(jobs, weighted);
        case DataType::float32: return run_each<float>(jobs, weighted);
        case DataType::float64: return run_each<double>(jobs, weighted);
        case DataType::complex64: return run_each<std::complex<float>>(jobs, weighted);
        case DataType::complex128: return run_each<std::complex<double>>(jobs, weighted);
        default: return;
    }
}

// Copies the elements of a view of `sizes` (`bytes` each) at `from` to `to`, each with its byte strides.
void copy_elements(const char* from, const std::ptrdiff_t* from_strides, char* to, const std::ptrdiff_t* to_strides,
                   const std::ptrdiff_t* sizes, std::size_t rank, std::size_t bytes) {
    for (std::ptrdiff_t i = 0; i < sizes[0]; ++i) {
        if (rank == 1) {
            std::memcpy(to + i * to_strides[0], from + i * from_strides[0], bytes);
        } else {
            copy_elements(from + i * from_strides[0], from_strides + 1, to + i * to_strides[0], to_strides + 1,
                          sizes + 1, rank - 1, bytes);
        }
    }
}

// A view's elements in a C-ordered buffer of its own (a job's operand that the rows path cannot read where it lies).
class StagedView {
public:
    StagedView(TensorView& view, bool read) : view_(&view), given_(view) {
        const std::size_t bytes = element_size(view.data_type);
        std::ptrdiff_t elements = 1;
        for (std::size_t d = view.sizes.size(); d-- > 0;) {
            view.byte_strides[d] = elements * std::ptrdiff_t(bytes);
            elements *= view.sizes[d];
        }
        storage_.resize(std::size_t(elements) * bytes);
        view.data = storage_.data();
        if (read) {
            copy_to(given_, view);
        }
    }
    // Copies the buffer back to the view it stands for (an output).
    void write_back() const { copy_to(*view_, given_); }

private:
    static void copy_to(const TensorView& from, const TensorView& to) {
        if (!from.sizes.empty()) {
            copy_elements(static_cast<const char*>(from.data), from.byte_strides.data(), static_cast<char*>(to.data),
                          to.byte_strides.data(), from.sizes.data(), from.sizes.size(),
                          element_size(from.data_type));
        }
    }

    TensorView* view_;
    TensorView given_;
    std::vector<unsigned char> storage_;
};

}  // namespace

namespace detail {

void run_recurrence(const Plan& plan, const CumulativeOperatorDesc& desc) {
    const bool rows = walks_rows(desc);
    if (!rows && desc.input.sizes.size() > 1) {
        const CumulativeOperatorDesc sorted = in_memory_order(desc);
        if (walks_rows(sorted)) {
            return run_recurrence(make_plan(sorted), sorted);
        }
    }
    if (!rows || runs_as_columns(plan, desc)) {
        return run_jobs(plan, desc, rows);
    }
    // The rule walks rows, but out, a or the reset do not lie as b does after the axis: those read or written through
    // C-ordered copies (rare layouts: out's rows strided, say).
    CumulativeOperatorDesc staged = desc;
    std::optional<StagedView> copies[3];  // of out, a and the reset
    TensorView* const views[3] = {&staged.output, &staged.coefficient, &staged.reset};
    for (std::size_t k = 0; k < 3; ++k) {
        if (views[k]->data != nullptr) {
            const AfterAxis after = after_axis(*views[k], desc.axis, std::ptrdiff_t(element_size(views[k]->data_type)));
            if (!after.contiguous && !(k > 0 && after.repeated)) {
                copies[k].emplace(*views[k], k > 0);
            }
        }
    }
    const Plan plan_of_copies = make_plan(staged);
    run_jobs(plan_of_copies, staged, runs_as_columns(plan_of_copies, staged));
    if (copies[0]) {
        copies[0]->write_back();
    }
}

}  // namespace detail
}  // namespace simdscan
