// A summed-area table in one pass over memory: each row of an image is read once and written once, the column's
// running values kept in a row of carries that stays in cache.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
#include "parallel.hpp"
#include "plan.hpp"

namespace simdscan {
namespace detail {

// Images in parallel; an image's rows depend on each other, so one image runs on one thread. Row by row the
// kernel repeats the two separate scans' arithmetic: the outer path's step along the column and the direct path's
// scan of the row, in the order the axes are scanned. An input of a narrower type (widen: its converter, else null)
// is converted as the kernel reads it; uint8 into a table whose sums are exact, in int32 lanes, the row first
// (TwoAxesPlan::byte_rows).
template <class C, class State>
void run_two_axes(const TwoAxesPlan& plan, const TypedKernels<C, State>& kernels, WidenFn widen) {
    note_runner("two_axes");
    const auto scan_row = kernels.two_axes_row[plan.rows_first][plan.row_reverse];
    const auto scan_widened_row = kernels.two_axes_widened_row[plan.rows_first][plan.row_reverse];
    const auto scan_byte_row = plan.byte_rows ? kernels.two_axes_byte_row[plan.row_reverse] : nullptr;
    const Dim inner = innermost(plan.images);
    const std::ptrdiff_t elements = plan.image_count * plan.height * plan.width;
    const std::ptrdiff_t out_bytes = elements * std::ptrdiff_t(sizeof(C));
    const std::size_t threads = threads_for(out_bytes);
    const RowWidening widening{widen, plan.in_element_size};
    // Streamed rows made large tables faster (into cv2's (H + 1, W + 1) layout too since the carries sit on cache
    // lines; benchmarks/README.md).
    const bool streams = plan.out != plan.in && streams_past_caches(elements * plan.in_element_size, out_bytes);
    // Rows first (uint8 rows always) into a cached table, the column inclusive: each output row holds the column's
    // running values, which the next row's step reads there, and no carry row is written (benchmarks/README.md). A
    // streamed row is not in the caches to be read.
    const bool outputs_hold_carries = (plan.rows_first || plan.byte_rows) && !plan.column_exclusive && !streams;
    parallel_ranges(plan.image_count, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        LineVector<C> carry(static_cast<std::size_t>(plan.width));
        for_each_run(plan.images, begin, end, [&](const LineOffsets& first, std::ptrdiff_t count) {
            for (std::ptrdiff_t i = 0; i < count; ++i) {
                const char* in = plan.in + first[Role::in] + i * inner.stride[Role::in];
                char* out = plan.out + first[Role::out] + i * inner.stride[Role::out];
                std::fill(carry.begin(), carry.end(), kernels.neutral);
                ColumnCarries<C> carries{carry.data(), outputs_hold_carries ? nullptr : carry.data()};
                for (std::ptrdiff_t r = 0; r < plan.height; ++r) {
                    const char* row = in + r * plan.in_row_step;
                    C* out_row = reinterpret_cast<C*>(out + r * plan.out_row_step);
                    const bool identity_row = plan.column_exclusive && r == 0;
                    if (scan_byte_row != nullptr) {
                        scan_byte_row(reinterpret_cast<const std::uint8_t*>(row), carries, out_row, plan.width,
                                      plan.row_exclusive, plan.column_exclusive, identity_row, streams);
                    } else if (widen != nullptr) {
                        scan_widened_row(row, widening, carries, out_row, plan.width, plan.row_exclusive,
                                         plan.column_exclusive, identity_row, streams);
                    } else {
                        scan_row(reinterpret_cast<const C*>(row), carries, out_row, plan.width, plan.row_exclusive,
                                 plan.column_exclusive, identity_row, streams);
                    }
                    if (outputs_hold_carries) {
                        carries.before = out_row;
                    }
                }
            }
        });
    });
}

}  // namespace detail
}  // namespace simdscan
