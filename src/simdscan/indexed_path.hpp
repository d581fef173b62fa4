// The indexed path: a running maximum or minimum with the position that supplied each value, line by line.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "kernels.hpp"
#include "parallel.hpp"
#include "plan.hpp"
#include "staging.hpp"

namespace simdscan {
namespace detail {

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
        // unaligned head and tail element by element: 1M float32 took 232-234 us in blocks of 1024, 216-227 whole.
        const std::ptrdiff_t step =
            direct_values && direct_positions && staging_.loads_in_place(in, plan_.in_step) ? plan_.n : block;
        for (std::ptrdiff_t begin = 0; begin < plan_.n; begin += step) {
            const std::ptrdiff_t count = std::min(step, plan_.n - begin);
            const C* x = staging_.load(in + begin * plan_.in_step, plan_.in_step, count);
            char* value_target = out + begin * plan_.out_step;
            char* target = indices + begin * plan_.indices_step;
            C* values = direct_values ? reinterpret_cast<C*>(value_target) : values_.get();
            std::int64_t* positions = direct_positions ? reinterpret_cast<std::int64_t*>(target) : positions_.get();
            // Inclusive values and their suppliers' positions (an exclusive scan shifts both below).
            running = kernels_.scan_indexed(x, values, positions, count, running, begin, supplier, reached_nan);
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

    // Whether places `step` bytes apart from p form an aligned array of E.
    template <class E>
    static bool is_array_of(const char* p, std::ptrdiff_t step) {
        return step == std::ptrdiff_t(sizeof(E)) && reinterpret_cast<std::uintptr_t>(p) % alignof(E) == 0;
    }

    const Plan& plan_;
    const TypedKernels<C, C>& kernels_;
    bool exclusive_;
    bool decreasing_;
    Staging<S, C> staging_;
    LazyBuffer<C> values_;
    LazyBuffer<std::int64_t> positions_;
};

// Runs an indexed job: lines in parallel, each line by one thread.
template <class S, class C>
void run_indexed(const Plan& plan, const TypedKernels<C, C>& kernels, bool exclusive, bool decreasing,
                 const KernelTable& table) {
    const std::ptrdiff_t bytes = plan.lines * plan.n * std::ptrdiff_t(sizeof(S) + sizeof(std::int64_t));
    parallel_ranges(plan.lines, threads_for(bytes), [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
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
