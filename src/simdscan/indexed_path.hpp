// The indexed path: a running maximum or minimum with the position that supplied each value, line by line, or
// along an outer axis row by row.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "kernels.hpp"
#include "parallel.hpp"
#include "paths.hpp"
#include "plan.hpp"
#include "staging.hpp"

namespace simdscan {
namespace detail {

// Whether places `step` bytes apart from p form an aligned array of E.
template <class E>
bool is_array_of(const char* p, std::ptrdiff_t step) {
    return step == std::ptrdiff_t(sizeof(E)) && reinterpret_cast<std::uintptr_t>(p) % alignof(E) == 0;
}

// Scans one line of an indexed job: blocks gathered in scan order, their running values and the suppliers' positions
// computed by the tier's kernel (an element supplies the running value where it equals it, or where the first NaN
// arrives), and both stored.
template <class S, class C>
class IndexedLines {
public:
    IndexedLines(const Plan& plan, const TypedKernels<C, C>& kernels, bool exclusive, bool decreasing,
                 const KernelTable& table)
        : plan_(plan), kernels_(kernels), exclusive_(exclusive), decreasing_(decreasing), staging_(plan, table),
          values_(std::size_t(block)), positions_(std::size_t(block)) {}

    void scan(const char* in, char* out, char* indices) {
        C running = kernels_.neutral;
        std::int64_t supplier = -1;
        bool reached_nan = false;
        C carried_value = kernels_.identity;  // exclusive: the output that enters at the start of the next block
        std::int64_t carried_position = -1;
        // Inclusive increasing scans into plain arrays write both straight to them (not in place: x is read after
        // its values are written); the others go through the buffers (not staging's: a converted x lies there).
        const bool direct_values = !exclusive_ && in != out && std::is_same<S, C>::value && !plan_.out_swapped &&
                                   is_array_of<C>(out, plan_.out_step);
        const bool direct_positions =
            !exclusive_ && !decreasing_ && is_array_of<std::int64_t>(indices, plan_.indices_step);
        // A line read in place and written straight to both goes to the kernel whole, which scans each call's
        // unaligned head and tail element by element: once a line, not once a block (benchmarks/README.md).
        const bool whole = direct_values && direct_positions && staging_.loads_in_place(in, plan_.in_step);
        const std::ptrdiff_t step = whole ? plan_.n : block;
        const bool streams = whole && streams_past_caches(plan_);
        for (std::ptrdiff_t begin = 0; begin < plan_.n; begin += step) {
            const std::ptrdiff_t count = std::min(step, plan_.n - begin);
            const C* x = staging_.load(in + begin * plan_.in_step, plan_.in_step, count);
            char* value_target = out + begin * plan_.out_step;
            char* target = indices + begin * plan_.indices_step;
            C* values = direct_values ? reinterpret_cast<C*>(value_target) : values_.get();
            std::int64_t* positions = direct_positions ? reinterpret_cast<std::int64_t*>(target) : positions_.get();
            // Inclusive values and their suppliers' positions (an exclusive scan shifts both below).
            running =
                kernels_.scan_indexed(x, values, positions, count, running, begin, supplier, reached_nan, streams);
            if (exclusive_) {
                const C last_value = values[count - 1];
                const std::int64_t last_position = positions[count - 1];
                std::memmove(values + 1, values, std::size_t(count - 1) * sizeof(C));
                std::memmove(positions + 1, positions, std::size_t(count - 1) * sizeof(std::int64_t));
                values[0] = carried_value;
                positions[0] = carried_position;
                carried_value = last_value;
                carried_position = last_position;
            }
            if (!direct_values) {
                staging_.store(values, value_target, plan_.out_step, count, false);
            }
            if (direct_positions) {
                continue;
            }
            if (!decreasing_ && plan_.indices_step == std::ptrdiff_t(sizeof(std::int64_t))) {
                std::memcpy(target, positions, std::size_t(count) * sizeof(std::int64_t));
                continue;
            }
            for (std::ptrdiff_t i = 0; i < count; ++i) {
                const std::int64_t p = positions[i];
                // Scan positions count from the end of the axis when decreasing; -1 stays.
                const std::int64_t index = p < 0 || !decreasing_ ? p : std::int64_t(plan_.n) - 1 - p;
                std::memcpy(target + i * plan_.indices_step, &index, sizeof(index));
            }
        }
    }

private:
    static constexpr std::ptrdiff_t block = Staging<S, C>::block;

    const Plan& plan_;
    const TypedKernels<C, C>& kernels_;
    bool exclusive_;
    bool decreasing_;
    Staging<S, C> staging_;
    LazyBuffer<C> values_;
    LazyBuffer<std::int64_t> positions_;
};

// Scans the tiles of an indexed job along an outer axis (choose_path's outer paths) row by row, as the outer path
// scans: each column's running value and supplier kept aside (advance_indexed) while the tile's rows go by in scan
// order, a staging block of each row at a time. A line at a time, each line a column, was far slower
// (benchmarks/README.md).
template <class S, class C>
class IndexedRows {
public:
    IndexedRows(const Plan& plan, const TypedKernels<C, C>& kernels, bool exclusive, bool decreasing,
                const KernelTable& table, std::ptrdiff_t width)
        : plan_(plan), kernels_(kernels), exclusive_(exclusive), decreasing_(decreasing), staging_(plan, table),
          running_(std::size_t(width)), suppliers_(std::size_t(width)), values_(std::size_t(block)),
          positions_(std::size_t(block)) {}

    // Scans every row of the tile `width` elements wide whose first row in scan order is at in, out and indices;
    // its elements are `inner`'s strides apart.
    void scan(const char* in, char* out, char* indices, std::ptrdiff_t width, const Dim& inner) {
        const auto advance = kernels_.advance_indexed;
        std::fill_n(running_.get(), width, kernels_.neutral);
        std::fill_n(suppliers_.get(), width, std::int64_t(-1));
        const bool direct_positions = is_array_of<std::int64_t>(indices, inner.indices_stride) &&
                                      plan_.indices_step % std::ptrdiff_t(sizeof(std::int64_t)) == 0;
        const bool streams = direct_positions && streams_past_caches(plan_);
        for (std::ptrdiff_t r = 0; r < plan_.n; ++r) {
            // The scan's r-th row is at n - 1 - r along the axis when decreasing.
            const std::int64_t index = decreasing_ ? plan_.n - 1 - r : r;
            for (std::ptrdiff_t c = 0; c < width; c += block) {
                const std::ptrdiff_t count = std::min(block, width - c);
                char* value_target = out + r * plan_.out_step + c * inner.out_stride;
                char* position_target = indices + r * plan_.indices_step + c * inner.indices_stride;
                staging_.keep_apart_from(value_target, inner.out_stride);
                const C* x = staging_.load(in + r * plan_.in_step + c * inner.in_stride, inner.in_stride, count);
                // Not staging's buffer, where a converted row may lie.
                const bool direct_values = staging_.stores_in_place(value_target, inner.out_stride);
                C* values = direct_values ? reinterpret_cast<C*>(value_target) : values_.get();
                std::int64_t* positions =
                    direct_positions ? reinterpret_cast<std::int64_t*>(position_target) : positions_.get();
                // Streamed where both rows are the outputs themselves.
                advance(x, running_.get() + c, suppliers_.get() + c, values, positions, count, index, exclusive_,
                        streams && direct_values);
                if (exclusive_ && r == 0) {
                    // The empty range's value is the identity (true for a running minimum of bool, not 255).
                    std::fill(values, values + count, kernels_.identity);
                }
                if (!direct_values) {
                    staging_.store(values, value_target, inner.out_stride, count, false);
                }
                if (!direct_positions) {
                    for (std::ptrdiff_t i = 0; i < count; ++i) {
                        std::memcpy(position_target + i * inner.indices_stride, positions + i, sizeof(std::int64_t));
                    }
                }
            }
        }
    }

private:
    static constexpr std::ptrdiff_t block = Staging<S, C>::block;

    const Plan& plan_;
    const TypedKernels<C, C>& kernels_;
    bool exclusive_;
    bool decreasing_;
    Staging<S, C> staging_;
    LazyBuffer<C> running_;
    LazyBuffer<std::int64_t> suppliers_;
    LazyBuffer<C> values_;
    LazyBuffer<std::int64_t> positions_;
};

// Runs an indexed job: along an outer axis the outer path's tiles in parallel (IndexedRows), else lines in parallel,
// each line by one thread.
template <class S, class C>
void run_indexed(const Plan& plan, const TypedKernels<C, C>& kernels, bool exclusive, bool decreasing,
                 const KernelTable& table) {
    const std::ptrdiff_t bytes = plan.lines * plan.n * std::ptrdiff_t(sizeof(S) + sizeof(std::int64_t));
    const std::size_t threads = threads_for(bytes);
    const Path path = choose_path(plan);
    if (path == Path::outer || path == Path::outer_buffered) {
        note_runner("indexed_rows");
        const OuterTiling tiling = outer_tiling<C>(plan, threads);
        const auto make_rows = [&] {
            return IndexedRows<S, C>(plan, kernels, exclusive, decreasing, table, tiling.width);
        };
        for_each_tile(
            tiling, threads, make_rows,
            [&](IndexedRows<S, C>& rows, const LineOffsets& first, std::ptrdiff_t width) {
                rows.scan(plan.in + first.in, plan.out + first.out, plan.indices + first.indices, width, tiling.inner);
            });
        return;
    }
    note_runner("indexed_lines");
    parallel_ranges(plan.lines, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        IndexedLines<S, C> lines(plan, kernels, exclusive, decreasing, table);
        const Dim inner = innermost(plan);
        for_each_run(plan.others, begin, end, [&](const LineOffsets& first, std::ptrdiff_t count) {
            for (std::ptrdiff_t r = 0; r < count; ++r) {
                lines.scan(plan.in + first.in + r * inner.in_stride, plan.out + first.out + r * inner.out_stride,
                           plan.indices + first.indices + r * inner.indices_stride);
            }
        });
    });
}

}  // namespace detail
}  // namespace simdscan
