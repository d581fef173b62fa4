// The paths of the families whose elements carry a state along a line (a linear recurrence, a weighted mean, a fill
// with a limit): a job's lines as the runner (jobs.cpp) hands them over, each line cut into chunks at fixed places and
// walked by the state carried between them (walk_lines: a family's chunk walk, of its State and a chunk's Summary),
// or its rows walked a band at a time over tiles of columns whose states stay in arrays (walk_rows: a family's
// Columns). Operands stored otherwise than as the type computed in are converted a chunk, or a band of rows, at a
// time (staging.hpp). A family is its walks and their kernels: no runner of its own.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dispatch.hpp"
#include "../kernels.hpp"
#include "../parallel.hpp"
#include "staging.hpp"
#include "../scan.hpp"

namespace simdscan {
namespace recurrences {

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
inline std::size_t threads_of(const RecurrenceJob& desc, std::ptrdiff_t bytes) {
    return desc.threads != 0 ? desc.threads : detail::threads_for(bytes);
}

// Elements per chunk: 256 KiB of float64 (detail::chunk_elements), whatever the type, so that a line's chunks are
// the same for every element type.
constexpr std::ptrdiff_t chunk = std::ptrdiff_t(1) << 15;

// Whether each line of a job (one line a row) walks on one thread, its chunks in turn: unless there are more threads
// than lines, more than two, and more than a chunk to a line. (The chunks' two passes read the operands twice: on
// two threads that cost more than the second thread saved: benchmarks/README.md.)
inline bool lines_one_thread_each(const RecurrenceJob& desc, std::size_t threads) {
    return std::ptrdiff_t(threads) <= desc.lines * desc.columns || desc.n <= chunk || threads <= 2;
}

// Operand `p` (a byte pointer) moved by `strides` to line (l, c)'s element i.
template <class P>
P* element_at(P* p, const RecurrenceStrides& strides, std::ptrdiff_t l, std::ptrdiff_t c, std::ptrdiff_t i) {
    using Byte = std::conditional_t<std::is_const<P>::value, const char, char>;
    return reinterpret_cast<P*>(reinterpret_cast<Byte*>(p) + l * strides.line + i * strides.step + c * strides.column);
}

// A strided operand's reset flags gathered into contiguous ones (a line's staged chunks).
inline void gather_flags(const std::uint8_t* from, std::ptrdiff_t step, std::uint8_t* to, std::ptrdiff_t n) {
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

// Whether a job's outputs (`elements` of T at out, the job reading in_bytes) go past the caches: large, not over an
// operand (whose lines the caches hold), and aligned to their element (as streaming stores need).
template <class T>
bool streams_outputs(const void* out, std::initializer_list<const void*> operands, std::ptrdiff_t elements,
                     std::ptrdiff_t in_bytes) {
    return std::find(operands.begin(), operands.end(), out) == operands.end() &&
           reinterpret_cast<std::uintptr_t>(out) % sizeof(T) == 0 &&
           detail::streams_past_caches(in_bytes, elements * std::ptrdiff_t(sizeof(T)));
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

// A line's chunks walked at fixed places, the state before each carried from the chunks before it. Walk, a family's
// walk of one line, gives:
//   State, Summary; chunks(); initial(): the state before the line's first element;
//   run(k, at): chunk k's Summary (its own composition, from no state before it); where `at` is given, its outputs
//     too, walked from *at (*at then the state the walk reached);
//   after(k, summary, before): the state after chunk k, from the state before it;
//   walks(summary): whether after() needs the Summary of a call that wrote (the chain then writes that chunk);
//   finish(k, summary): once every output of the line is written; end(state): the state after the line's last.
// On one thread the chunks in turn; on several the summaries first, in parallel, then the states in order, then the
// outputs in parallel: the same arithmetic either way, so no bit depends on the thread count.
template <class Walk>
void walk_line(const Walk& line, std::size_t threads) {
    using State = typename Walk::State;
    using Summary = typename Walk::Summary;
    const std::ptrdiff_t count = line.chunks();
    if (threads <= 1 || count <= 1) {
        State at = line.initial();
        for (std::ptrdiff_t k = 0; k < count; ++k) {
            State walked = at;
            const Summary own = line.run(k, &walked);
            line.finish(k, own);
            at = line.after(k, own, at);
        }
        line.end(at);
        return;
    }
    std::vector<Summary> own(static_cast<std::size_t>(count));
    detail::parallel_ranges(count - 1, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        for (std::ptrdiff_t k = begin; k < end; ++k) {
            own[std::size_t(k)] = line.run(k, nullptr);
        }
    });
    std::vector<State> states(static_cast<std::size_t>(count));
    std::vector<char> written(static_cast<std::size_t>(count));
    states[0] = line.initial();
    for (std::ptrdiff_t k = 1; k < count; ++k) {
        const State& before = states[std::size_t(k - 1)];
        if (line.walks(own[std::size_t(k - 1)])) {
            // Its outputs now, as one thread writes them, for the state after it.
            State walked = before;
            own[std::size_t(k - 1)] = line.run(k - 1, &walked);
            written[std::size_t(k - 1)] = 1;
        }
        states[std::size_t(k)] = line.after(k - 1, own[std::size_t(k - 1)], before);
    }
    detail::parallel_ranges(count, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        for (std::ptrdiff_t k = begin; k < end; ++k) {
            if (written[std::size_t(k)] == 0) {
                State walked = states[std::size_t(k)];
                own[std::size_t(k)] = line.run(k, &walked);
            }
        }
    });
    for (std::ptrdiff_t k = 0; k < count; ++k) {
        line.finish(k, own[std::size_t(k)]);
    }
    line.end(line.after(count - 1, own[std::size_t(count - 1)], states[std::size_t(count - 1)]));
}

// A job's lines (one a row), line_of(l) the walk of line l: each on one thread, or few long lines each on all of them.
template <class LineOf>
void walk_lines(const RecurrenceJob& desc, std::size_t threads, const LineOf& line_of) {
    const std::ptrdiff_t lines = desc.lines * desc.columns;
    if (lines_one_thread_each(desc, threads)) {
        detail::parallel_ranges(lines, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t l = begin; l < end; ++l) {
                walk_line(line_of(l), 1);
            }
        });
    } else {
        for (std::ptrdiff_t l = 0; l < lines; ++l) {
            walk_line(line_of(l), threads);
        }
    }
}

// A tile's rows in walk order (the rows path): walked row r of b, a and out at b + r * b_step (and so on), its w
// columns contiguous (a's one for every column where a_every_column; null where the job has none); walked row r >= 1
// begins a segment in column j where starts[(r - 1) * starts_step + j * starts_column] != 0 (none where null).
template <class T>
struct RowsView {
    const T* a;
    std::ptrdiff_t a_step;
    bool a_every_column;
    const T* b;
    std::ptrdiff_t b_step;
    T* out;
    std::ptrdiff_t out_step;
    const std::uint8_t* starts;
    std::ptrdiff_t starts_step;
    std::ptrdiff_t starts_column;
    std::ptrdiff_t rows;
    std::ptrdiff_t w;
};

// The rows path: each line's rows walked in order over a tile of columns, every column its own walk (no transposing
// copy); tiles and lines split among the threads, each column's arithmetic the same in any of them. Columns, a
// family's states of a tile's columns, gives:
//   Columns(desc, widest): a thread's state arrays, for tiles of up to `widest` columns;
//   start(l, c, w): the states before the first row of line l's tile of w columns from column c;
//   restart(flags, column_step): a segment begins at the next row walked in column j where flags[j * column_step];
//   walk(view, streams): the view's rows from the states, which it leaves after them;
//   end(): the states after the tile's last row.
// Operands stored otherwise than as T go through the thread's buffers a band of rows at a time (RowBand), the states
// carried from band to band: the kernels see the same values, so the bits are the same.
template <class T, class Columns>
void walk_rows(const RecurrenceJob& desc, std::size_t threads, bool streams) {
    const Tiles<T> tiles(desc, threads);
    const bool reverse = desc.direction == AxisDirection::decreasing;
    const std::ptrdiff_t first = reverse ? desc.n - 1 : 0, sign = reverse ? -1 : 1;
    const auto* a = static_cast<const T*>(desc.a);
    const auto* reset = static_cast<const std::uint8_t*>(desc.reset);
    const bool converts = !holds_own<T>(desc.b_stored) || !holds_own<T>(desc.out_stored) ||
                          (a != nullptr && !holds_own<T>(desc.a_stored));
    detail::parallel_ranges(desc.lines * tiles.count(), threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        Columns columns(desc, tiles.widest());
        for (std::ptrdiff_t task = begin; task < end; ++task) {
            const auto [l, c, w] = tiles.of(task);
            columns.start(l, c, w);
            // (Walked row r >= 1 begins a segment where its own flag is set, or its successor's in index order where
            // decreasing: the walk meets a segment's last element first.)
            const RowsView<T> view{
                a == nullptr ? nullptr : element_at(a, desc.a_strides, l, c, first),
                sign * desc.a_strides.step,
                a != nullptr && desc.a_strides.column == 0,
                element_at(static_cast<const T*>(desc.b), desc.b_strides, l, c, first),
                sign * desc.b_strides.step,
                element_at(static_cast<T*>(desc.out), desc.out_strides, l, c, first),
                sign * desc.out_strides.step,
                reset == nullptr || desc.n < 2 ? nullptr
                                               : element_at(reset, desc.reset_strides, l, c, reverse ? desc.n - 1 : 1),
                sign * desc.reset_strides.step,
                desc.reset_strides.column,
                desc.n,
                w};
            if (!converts) {
                columns.walk(view, streams);
                columns.end();
                continue;
            }
            const auto buffers = ChunkBuffers<T>::of_this_thread();
            for (std::ptrdiff_t r0 = 0; r0 < desc.n; r0 += band_rows<T>(w)) {
                const RowBand<T> band{r0, std::min(band_rows<T>(w), desc.n - r0), buffers.scratch};
                RowsView<T> part = view;
                part.rows = band.rows;
                std::tie(part.b, part.b_step) =
                    band.of(view.b, view.b_step, desc.b_strides.column, w, desc.b_stored, buffers.values, true);
                if (a != nullptr) {
                    std::tie(part.a, part.a_step) =
                        band.of(view.a, view.a_step, desc.a_strides.column, view.a_every_column ? 1 : w,
                                desc.a_stored, buffers.coefficients, true);
                }
                std::tie(part.out, part.out_step) =
                    band.of(view.out, view.out_step, desc.out_strides.column, w, desc.out_stored, buffers.values,
                            false);  // (over the staged b, as in place)
                if (view.starts != nullptr && r0 > 0) {
                    // The band's first row reads no flag: a segment beginning there begins from the states.
                    columns.restart(view.starts + (r0 - 1) * view.starts_step, view.starts_column);
                    part.starts = view.starts + r0 * view.starts_step;
                }
                columns.walk(part, false);
                band.write(part.out, view.out, view.out_step, desc.out_strides.column, w, desc.out_stored);
            }
            columns.end();
        }
    });
}

// A family's job: its rows (Columns) where it has columns, else its lines (line_of(l, streams): the walk of line l),
// on as many threads as its traffic asks for (each of the operands it reads, those of `read` given, and out, in
// elements of T), its outputs past the caches where streams_outputs says.
template <class T, class Columns, class LineOf>
void walk_job(const RecurrenceJob& desc, std::initializer_list<const void*> read, const LineOf& line_of) {
    const std::ptrdiff_t elements = desc.lines * desc.columns * desc.n;
    const std::ptrdiff_t bytes = elements * std::ptrdiff_t(sizeof(T));
    const std::ptrdiff_t in_bytes = bytes * std::count_if(read.begin(), read.end(), [](const void* p) {
        return p != nullptr;
    });
    const std::size_t threads = threads_of(desc, in_bytes + bytes);
    const bool streams = streams_outputs<T>(desc.out, read, elements, in_bytes);
    if (desc.columns > 1) {
        walk_rows<T, Columns>(desc, threads, streams);
    } else {
        walk_lines(desc, threads, [&](std::ptrdiff_t l) { return line_of(l, streams); });
    }
    detail::order_streamed_stores();  // what this thread streamed (the pool's threads order their own)
}

// The families' jobs (a file each): every line of a job, of T computed in.
template <class T>
void run_linear_recurrence(const RecurrenceJob& job);
template <class T>
void run_weighted_mean(const RecurrenceJob& job);
template <class T>
void run_limited_fill(const RecurrenceJob& job);

}  // namespace recurrences
}  // namespace simdscan
