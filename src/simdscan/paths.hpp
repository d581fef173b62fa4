// The path runners: a plan's lines handed to the kernels directly, row by row along an outer axis, or via staging;
// each operand's span alike, the indices' where the job writes them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "dispatch.hpp"
#include "kernels.hpp"
#include "parallel.hpp"
#include "plan.hpp"
#include "segments.hpp"
#include "staging.hpp"

namespace simdscan {
namespace detail {

// A plan with the kernels of its element type and op: stored as S, computed as C, running states of type State.
template <class S, class C, class State>
struct Job {
    const Plan& plan;
    const TypedKernels<C, State>& kernels;
    bool exclusive;
    const KernelTable& table;  // the float16 conversions

    bool streams() const { return streams_past_caches(plan); }
};

// Stores n positions as int64 indices `stride` bytes apart: each p as last - p where last >= 0 (counted from the
// axis' end), -1 as it is.
inline void store_indices(const std::int64_t* positions, char* target, std::ptrdiff_t stride, std::ptrdiff_t n,
                          std::int64_t last) {
    if (last < 0 && stride == std::ptrdiff_t(sizeof(std::int64_t))) {
        std::memcpy(target, positions, std::size_t(n) * sizeof(std::int64_t));
        return;
    }
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        const std::int64_t p = positions[i];
        const std::int64_t index = p < 0 || last < 0 ? p : last - p;
        std::memcpy(target + i * stride, &index, sizeof(index));
    }
}

// Scans each segment of a batch as a line of its own (the ops without TypedKernels::scan_segments).
template <class Engine, class State>
void scan_each_segment(Engine& engine, const Operands& line, const SegmentBatch& batch, const State& neutral) {
    std::ptrdiff_t begin = batch.begin;
    for (std::ptrdiff_t k = 0; k < batch.count; begin += batch.lengths[k++]) {
        ScanState<State> st{neutral, neutral, false, true};
        engine.scan(line, begin, batch.lengths[k], st);
    }
}

// Direct path engine: the kernels run on the arrays, in scan order given by the sign of the step.
template <class S, class C, class State>
struct DirectEngine {
    using Local = typename TypedKernels<C, State>::Local;
    const Job<S, C, State>& job;

    bool reverse() const { return job.plan.step[Role::in] < 0; }
    // Operand `role`'s element at the start in memory of scan positions [begin, begin + length) of `line`.
    template <class T>
    T* at(const Operands& line, std::size_t role, std::ptrdiff_t begin, std::ptrdiff_t length) const {
        const std::ptrdiff_t first = reverse() ? begin + length - 1 : begin;
        return reinterpret_cast<T*>(line[role] + first * job.plan.step[role]);
    }
    void scan(const Operands& line, std::ptrdiff_t begin, std::ptrdiff_t length, ScanState<State>& st) {
        st.streams = job.streams();
        job.kernels.scan[reverse()](at<const C>(line, Role::in, begin, length),
                                    at<C>(line, Role::out, begin, length), length, st, job.exclusive,
                                    job.kernels.identity, job.kernels.order_key);
    }
    static constexpr std::ptrdiff_t batch_elements = std::numeric_limits<std::ptrdiff_t>::max();
    void scan_segments(const Operands& line, const SegmentBatch& batch) {
        if (job.kernels.scan_segments[0] == nullptr) {
            return scan_each_segment(*this, line, batch, job.kernels.neutral);
        }
        job.kernels.scan_segments[reverse()](at<const C>(line, Role::in, batch.begin, batch.total),
                                             at<C>(line, Role::out, batch.begin, batch.total), batch.lengths,
                                             batch.count, batch.begin, job.exclusive, job.kernels.order_key);
    }
    void scan_local(const Operands& line, Local* local, std::ptrdiff_t begin, std::ptrdiff_t length,
                    ScanState<State>& st) {
        job.kernels.scan_local[reverse()](at<const C>(line, Role::in, begin, length), local, length, st,
                                          job.exclusive, job.kernels.identity, job.kernels.order_key);
    }
    State total(const Operands& line, std::ptrdiff_t begin, std::ptrdiff_t length) const {
        return job.kernels.total[reverse()](at<const C>(line, Role::in, begin, length), length);
    }
    void store_based(const Local* local, const Operands& line, std::ptrdiff_t begin, std::ptrdiff_t length,
                     State base) {
        job.kernels.rebase(local, at<C>(line, Role::out, begin, length), length, base, job.streams(),
                           job.kernels.order_key);
    }
};

// Buffered path engine: blocks of a line, in scan order, go through Staging and are scanned in its buffer.
template <class S, class C, class State>
class LineBuffers {
public:
    using Local = typename TypedKernels<C, State>::Local;
    explicit LineBuffers(const Job<S, C, State>& job)
        : job_(job), staging_(job.plan, job.table), scan_half_(packed_half_scan(job.plan, job.kernels)) {}

    // Scans scan positions [begin, begin + length) of the line at `line` with state st.
    void scan(const Operands& line, std::ptrdiff_t begin, std::ptrdiff_t length, ScanState<State>& st) {
        const char* in = line[Role::in];
        char* out = line[Role::out];
        if constexpr (std::is_same<State, C>::value) {
            if (job_.plan.has(Role::indices)) {
                return scan_indexed(line, begin, length, st);
            }
        }
        if (scan_half_ != nullptr && (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) %
                                             alignof(S) == 0) {
            const std::ptrdiff_t at = job_.plan.step[Role::in] < 0 ? begin + length - 1 : begin;
            scan_half_(reinterpret_cast<const std::uint16_t*>(in + at * job_.plan.step[Role::in]),
                       reinterpret_cast<std::uint16_t*>(out + at * job_.plan.step[Role::out]), length, st,
                       job_.exclusive);
            return;
        }
        st.wants_total = false;  // the kernel sees one staging block at a time, not the range
        // A packed native output is written by the kernel itself (past the caches where the job streams), not
        // scanned into the buffer and copied out.
        char* at = out + begin * job_.plan.step[Role::out];
        const bool into_out = staging_.stores_in_place(at, job_.plan.step[Role::out]);
        st.streams = into_out && job_.streams();
        staging_.keep_apart_from(at, job_.plan.step[Role::out]);
        for (std::ptrdiff_t done = 0; done < length; done += block) {
            const std::ptrdiff_t count = std::min(block, length - done);
            C* values = into_out ? reinterpret_cast<C*>(at) + done : staging_.values();
            job_.kernels.scan[0](load(in, begin + done, count), values, count, st, job_.exclusive,
                                 job_.kernels.identity, job_.kernels.order_key);
            if (!into_out) {
                store(out, begin + done, count);
            }
        }
    }

    // A batch of short segments, at most a staging block, gathered in scan order and scanned there as the direct
    // path scans them (with the indices, or without the kernel: each segment as a line of its own).
    static constexpr std::ptrdiff_t batch_elements = Staging<S, C>::block;
    void scan_segments(const Operands& line, const SegmentBatch& batch) {
        if (job_.plan.has(Role::indices) || job_.kernels.scan_segments[0] == nullptr) {
            return scan_each_segment(*this, line, batch, job_.kernels.neutral);
        }
        staging_.keep_apart_from(line[Role::out] + batch.begin * job_.plan.step[Role::out], job_.plan.step[Role::out]);
        job_.kernels.scan_segments[0](load(line[Role::in], batch.begin, batch.total), staging_.values(), batch.lengths,
                                      batch.count, batch.begin, job_.exclusive, job_.kernels.order_key);
        store(line[Role::out], batch.begin, batch.total);
    }

    // The two halves of scan() for a chunk scanned before its base is known: the chunk on its own into `local`
    // (scan order), then base op local stored to the output.
    void scan_local(const Operands& line, Local* local, std::ptrdiff_t begin, std::ptrdiff_t length,
                    ScanState<State>& st) {
        for (std::ptrdiff_t done = 0; done < length; done += block) {
            const std::ptrdiff_t count = std::min(block, length - done);
            job_.kernels.scan_local[0](load(line[Role::in], begin + done, count), local + done, count, st,
                                       job_.exclusive, job_.kernels.identity, job_.kernels.order_key);
        }
    }

    // The op of scan positions [begin, begin + length) (at most a chunk), gathered in scan order and taken in one
    // call: kernels.total's bits depend on where its range starts and ends, and the direct path's take whole chunks.
    State total(const Operands& line, std::ptrdiff_t begin, std::ptrdiff_t length) {
        C* gathered = chunk_.get();
        for (std::ptrdiff_t done = 0; done < length; done += block) {
            const std::ptrdiff_t count = std::min(block, length - done);
            std::memcpy(gathered + done, load(line[Role::in], begin + done, count), std::size_t(count) * sizeof(C));
        }
        return job_.kernels.total[0](gathered, length);
    }

    void store_based(const Local* local, const Operands& line, std::ptrdiff_t begin, std::ptrdiff_t length,
                     State base) {
        for (std::ptrdiff_t done = 0; done < length; done += block) {
            const std::ptrdiff_t count = std::min(block, length - done);
            job_.kernels.rebase(local + done, staging_.values(), count, base, false, job_.kernels.order_key);
            store(line[Role::out], begin + done, count);
        }
    }

private:
    static constexpr std::ptrdiff_t block = Staging<S, C>::block;

    // scan() with the indices: blocks gathered in scan order, their running values and the suppliers' positions
    // computed by the tier's kernel (an element supplies the running value where it equals it, or where the first
    // NaN arrives), and both stored; the positions as indices along the axis.
    void scan_indexed(const Operands& line, std::ptrdiff_t begin, std::ptrdiff_t length, ScanState<C>& st) {
        const Plan& plan = job_.plan;
        // Scans into plain arrays write both straight to them (not in place: x is read after its values are
        // written); the others go through the buffers (not staging's: a converted x lies there).
        const bool direct_values = line[Role::in] != line[Role::out] && std::is_same<S, C>::value &&
                                   !plan.out_swapped && is_array_of<C>(line[Role::out], plan.step[Role::out]);
        const bool direct_positions =
            !plan.decreasing && is_array_of<std::int64_t>(line[Role::indices], plan.step[Role::indices]);
        // A line read in place and written straight to both goes to the kernel whole, which scans each call's
        // unaligned head and tail element by element: once a line, not once a block (benchmarks/README.md).
        const bool whole = direct_values && direct_positions &&
                           staging_.loads_in_place(line[Role::in], plan.step[Role::in]);
        const std::ptrdiff_t step = whole ? length : block;
        const bool streams = whole && job_.streams();
        for (std::ptrdiff_t done = 0; done < length; done += step) {
            const std::ptrdiff_t count = std::min(step, length - done);
            const std::ptrdiff_t first = begin + done;
            const C* x = load(line[Role::in], first, count);
            const Operands at = operands_at(line, {}, first, plan.step);
            C* values = direct_values ? reinterpret_cast<C*>(at[Role::out]) : values_.get();
            std::int64_t* positions =
                direct_positions ? reinterpret_cast<std::int64_t*>(at[Role::indices]) : positions_.get();
            st.local = job_.kernels.scan_indexed(x, values, positions, count, st.local, first, st.supplier,
                                                 st.reached_nan, job_.exclusive, streams, job_.kernels.order_key);
            if (job_.exclusive && st.at_line_start) {
                // The empty range's value is the identity (true for a running minimum of bool), not the neutral.
                values[0] = job_.kernels.identity;
            }
            st.at_line_start = false;
            if (!direct_values) {
                staging_.store(values, at[Role::out], plan.step[Role::out], count, false);
            }
            if (!direct_positions) {
                // Counted from the axis' end when decreasing.
                store_indices(positions, at[Role::indices], plan.step[Role::indices], count,
                              plan.decreasing ? std::int64_t(plan.n) - 1 : -1);
            }
        }
    }

    // A float16 line stored packed, in native byte order and the same direction in both arrays, needs no staging:
    // the kernel converts its vectors in registers, sparing the staged copies (benchmarks/README.md).
    static typename TypedKernels<C, State>::scan_half_fn packed_half_scan(const Plan& plan,
                                                                         const TypedKernels<C, State>& kernels) {
        const std::ptrdiff_t step = plan.step[Role::in];
        const bool packed = std::is_same<S, std::uint16_t>::value && std::is_same<C, float>::value &&
                            !plan.in_swapped && !plan.out_swapped && step == plan.step[Role::out] &&
                            (step == std::ptrdiff_t(sizeof(S)) || step == -std::ptrdiff_t(sizeof(S)));
        return packed ? kernels.scan_half[step < 0] : nullptr;
    }

    const C* load(const char* in, std::ptrdiff_t begin, std::ptrdiff_t count) {
        return staging_.load(in + begin * job_.plan.step[Role::in], job_.plan.step[Role::in], count);
    }
    void store(char* out, std::ptrdiff_t begin, std::ptrdiff_t count) {
        staging_.store(staging_.values(), out + begin * job_.plan.step[Role::out], job_.plan.step[Role::out], count,
                       job_.streams());
    }

    const Job<S, C, State>& job_;
    Staging<S, C> staging_;
    typename TypedKernels<C, State>::scan_half_fn scan_half_;
    LazyBuffer<C> chunk_{std::size_t(chunk_elements<C>())};  // total's gathered chunk, where the op takes totals
    // An indexed block's values and positions, where they are not written straight to the arrays.
    LazyBuffer<C> values_{std::size_t(block)};
    LazyBuffer<std::int64_t> positions_{std::size_t(block)};
};

template <class S, class C, class State>
std::size_t threads_for(const Job<S, C, State>& job) {
    return threads_for(job.plan.lines * job.plan.n * std::ptrdiff_t(sizeof(S)));
}

// Where segments begin and how long they are.
using SegmentList = std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>>;

// Scans with `engine` the segments of `line` that begin at scan positions [from, to): the short ones a batch at a
// time, the others by scan_segment(engine, line, begin, length), but those longer than long_segment, which are put
// in long_ones.
template <class C, class Engine, class ScanSegment>
void scan_segments_from(Engine& engine, const SegmentStarts& starts, const Operands& line, std::ptrdiff_t from,
                        std::ptrdiff_t to, std::ptrdiff_t long_segment, SegmentList& long_ones,
                        const ScanSegment& scan_segment) {
    for_each_segment(
        starts, short_segment<C>(), Engine::batch_elements, from, to,
        [&](const SegmentBatch& batch) { engine.scan_segments(line, batch); },
        [&](std::ptrdiff_t begin, std::ptrdiff_t length) {
            if (length > long_segment) {
                long_ones.emplace_back(begin, length);
            } else {
                scan_segment(engine, line, begin, length);
            }
        });
}

// A segmented line's segments (segments.hpp) on `threads` threads: each thread scans (scan_segments_from) the
// segments that begin in its share of the line's positions; those longer than long_segment wait, to be scanned by
// all the threads together, chunk by chunk (scan_long(begin, length)).
template <class C, class MakeEngine, class ScanSegment, class ScanLong>
void scan_segments_parallel(const Plan& plan, const Operands& line, std::size_t threads, std::ptrdiff_t long_segment,
                            MakeEngine&& make_engine, const ScanSegment& scan_segment, ScanLong&& scan_long) {
    const SegmentStarts starts(plan, line[Role::reset]);
    const std::ptrdiff_t share = (plan.n + std::ptrdiff_t(threads) - 1) / std::ptrdiff_t(threads);
    std::vector<SegmentList> long_ones(threads);
    parallel_for(threads, threads, [&](std::size_t t) {
        const std::ptrdiff_t from = std::ptrdiff_t(t) * share;
        const std::ptrdiff_t to = std::min(plan.n, from + share);
        auto engine = make_engine();
        scan_segments_from<C>(engine, starts, line, from == 0 ? 0 : starts.next(from - 1), to, long_segment,
                              long_ones[t], scan_segment);
    });
    for (const auto& segments : long_ones) {
        for (const auto& [begin, length] : segments) {
            scan_long(begin, length);
        }
    }
}

// Runs a per-line engine over every line: lines in parallel when there are enough, else each line's chunks. The
// segments of a segmented job's lines (Role::reset) are each scanned as a line of their own.
// `streamed`: the engine's scans stream their outputs (ScanState::streams).
template <class S, class C, class State, class MakeEngine>
void run_lines(const Job<S, C, State>& job, bool streamed, MakeEngine&& make_engine) {
    const Plan& plan = job.plan;
    const Dim inner = innermost(plan.others);
    const std::size_t threads = threads_for(job);
    // Positions carry from element to element, and no total stands for a chunk's: an indexed segment goes to the
    // engine whole, on one thread.
    const bool indexed = plan.has(Role::indices);
    const bool segmented = plan.has(Role::reset);
    // scan_line_parallel passes twice over most chunks: against one streamed pass, two threads lost
    // (benchmarks/README.md).
    const bool chained = std::ptrdiff_t(threads) > plan.lines && (threads > 2 || !streamed);
    const auto scan_segment = [&](auto& engine, const Operands& line, std::ptrdiff_t begin, std::ptrdiff_t length) {
        if (indexed) {
            ScanState<State> st{job.kernels.neutral, job.kernels.neutral, false, true};
            engine.scan(line, begin, length, st);
        } else {
            scan_line_chunked(job.kernels, length, engine, line, begin);
        }
    };
    if (plan.n > chunk_elements<C>() && std::ptrdiff_t(threads) > plan.lines && (segmented || (chained && !indexed))) {
        for_each_run(plan.others, 0, plan.lines, [&](const LineOffsets& first, std::ptrdiff_t count) {
            for (std::ptrdiff_t r = 0; r < count; ++r) {
                const Operands line = operands_at(plan.data, first, r, inner.stride);
                const auto scan_long = [&](std::ptrdiff_t begin, std::ptrdiff_t length) {
                    if (chained) {
                        scan_line_parallel(job.kernels, length, make_engine, line, threads, begin);
                    } else {
                        auto engine = make_engine();
                        scan_line_chunked(job.kernels, length, engine, line, begin);
                    }
                };
                if (!segmented) {
                    scan_long(0, plan.n);
                    continue;
                }
                scan_segments_parallel<C>(plan, line, threads, indexed ? plan.n : 4 * chunk_elements<C>(), make_engine,
                                          scan_segment, scan_long);
            }
        });
        return;
    }
    parallel_ranges(plan.lines, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        auto engine = make_engine();
        SegmentList none;  // (none is long: a line's segments are all on this thread)
        for_each_run(plan.others, begin, end, [&](const LineOffsets& first, std::ptrdiff_t count) {
            for (std::ptrdiff_t r = 0; r < count; ++r) {
                const Operands line = operands_at(plan.data, first, r, inner.stride);
                if (segmented) {
                    scan_segments_from<C>(engine, SegmentStarts(plan, line[Role::reset]), line, 0, plan.n, plan.n,
                                          none, scan_segment);
                } else {
                    scan_segment(engine, line, 0, plan.n);
                }
            }
        });
    });
}

template <class S, class C, class State>
void run_direct(const Job<S, C, State>& job) {
    const Plan& plan = job.plan;
    // (A segmented line's segments vary in length: scanned each as a line, not as rows.)
    if (plan.n > chunk_elements<C>() || plan.has(Role::reset)) {
        note_runner("direct_lines");
        run_lines(job, job.kernels.streams_lines && job.streams(), [&] { return DirectEngine<S, C, State>{job}; });
        return;
    }
    note_runner("direct_rows");
    // Short lines: whole runs of rows per kernel call.
    const bool reverse = plan.step[Role::in] < 0;
    const Dim inner = innermost(plan.others);
    parallel_ranges(plan.lines, threads_for(job), [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        for_each_run(plan.others, begin, end, [&](const LineOffsets& run, std::ptrdiff_t count) {
            const Operands first = operands_at(plan.data, run, reverse ? plan.n - 1 : 0, plan.step);
            job.kernels.rows[reverse](first[Role::in], first[Role::out], plan.n, count, inner.stride[Role::in],
                                      inner.stride[Role::out], job.exclusive, job.kernels.identity, job.streams(),
                                      job.kernels.order_key);
        });
    });
}

// Scans rows [0, n) of one tile, `width` contiguous elements wide, in NumPy's order: out[r] = out[r-1] op in[r].
// Only where kernels.combine is (the state is the value) and the previous output row is still intact (not in place
// and exclusive).
template <class S, class C, class State>
void scan_outer_tile(const Job<S, C, State>& job, const C* in, C* out, std::ptrdiff_t width) {
    const Plan& plan = job.plan;
    const auto row_in = [&](std::ptrdiff_t r) {
        return reinterpret_cast<const C*>(reinterpret_cast<const char*>(in) + r * plan.step[Role::in]);
    };
    const auto row_out = [&](std::ptrdiff_t r) {
        return reinterpret_cast<C*>(reinterpret_cast<char*>(out) + r * plan.step[Role::out]);
    };
    const std::size_t bytes = std::size_t(width) * sizeof(C);
    const auto combine = job.kernels.combine[plan.step[Role::in] < 0 && walk_falling_rows_down()];
    if (!job.exclusive) {
        if (out != in) {
            std::memcpy(out, in, bytes);
        }
        for (std::ptrdiff_t r = 1; r < plan.n; ++r) {
            combine(row_out(r - 1), row_in(r), row_out(r), width, job.kernels.order_key);
        }
    } else {
        // Row 1 copies row 0 rather than adding it to the identity: identity + -0.0 would lose the sign.
        std::fill(out, out + width, job.kernels.identity);
        std::memcpy(row_out(1), in, bytes);
        for (std::ptrdiff_t r = 2; r < plan.n; ++r) {
            combine(row_out(r - 1), row_in(r - 1), row_out(r), width, job.kernels.order_key);
        }
    }
}

// Sets every state of a carry buffer (laid out as StepwiseKernels::advance reads it) to `state`.
template <class State>
void fill_states(State* carry, std::ptrdiff_t w, const State& state) {
    std::fill_n(carry, w, state);
}
template <class C>
void fill_states(Compensated<C>* carry, std::ptrdiff_t w, const Compensated<C>& state) {
    C* sums = reinterpret_cast<C*>(carry);  // w sums then w errors: the buffer viewed as 2w values of C
    std::fill_n(sums, w, state.sum);
    std::fill_n(sums + w, w, state.error);
}
template <class C>
void fill_states(ShiftedSum<C>* carry, std::ptrdiff_t w, const ShiftedSum<C>& state) {
    C* shifts = reinterpret_cast<C*>(carry);  // w shifts, w sums, w errors
    std::fill_n(shifts, w, state.shift);
    std::fill_n(shifts + w, w, state.sum);
    std::fill_n(shifts + 2 * w, w, state.error);
}

// Scans rows [0, n) of one tile with the running states kept in `carry`, from `neutral`, each row in segments of at
// most `segment` elements: segment [c, c + count) of row r is read from load(r, c, count) in compute type, advanced by
// advance(r, c, row, states, values, count) from the states at carry + c into values = target(r, c) (which may be the
// segment read), and handed to store(r, c, values, count). A segment's states sit at carry + c in every row, so a
// Compensated or ShiftedSum segment keeps its layout of parts.
template <class S, class C, class State, class Carried, class Load, class Target, class Advance, class Store>
void scan_outer_tile_carried(const Job<S, C, State>& job, std::vector<Carried>& carry, const Carried& neutral,
                             std::ptrdiff_t width, std::ptrdiff_t segment, Load&& load, Target&& target,
                             Advance&& advance, Store&& store) {
    for (std::ptrdiff_t c = 0; c < width; c += segment) {
        fill_states(carry.data() + c, std::min(segment, width - c), neutral);
    }
    for (std::ptrdiff_t r = 0; r < job.plan.n; ++r) {
        for (std::ptrdiff_t c = 0; c < width; c += segment) {
            const std::ptrdiff_t count = std::min(segment, width - c);
            const C* row = load(r, c, count);
            C* values = target(r, c);
            advance(r, c, row, carry.data() + c, values, count);
            if (job.exclusive && r == 0) {
                // The empty range's value is the identity (+0.0 for sums, true for a running minimum of bool), not
                // the internal neutral.
                std::fill(values, values + count, job.kernels.identity);
            }
            store(r, c, values, count);
        }
    }
}

// How the outer path scans a tile's rows.
enum class TileRows {
    combined,  // scan_outer_tile: the output rows are the running rows
    carried,   // the running states kept aside, rows of the arrays read and written in place
    staged,    // the running states kept aside, rows gathered into and scattered from a buffer (outer_buffered)
    indexed,   // staged, with each column's supplier kept aside and its positions written as indices
};

template <class S, class C, class State>
TileRows tile_rows(const Job<S, C, State>& job, bool buffered) {
    if (job.plan.has(Role::indices)) {
        return TileRows::indexed;
    }
    // The output rows are the running rows unless they hold rounded states (or elements the op replaces), are
    // overwritten in place before an exclusive scan has read them, or go past the caches, where reading them back
    // would wait on memory.
    const bool carried = job.kernels.combine[0] == nullptr ||
                         (job.plan.data[Role::in] == job.plan.data[Role::out] && job.exclusive) || job.streams();
    return buffered ? TileRows::staged : carried ? TileRows::carried : TileRows::combined;
}

// The outer path's tasks: the contiguous axis `inner` cut into tiles, and a task scans every row of one tile of one
// line of the other axes `rest`.
struct OuterTiling {
    Dim inner;
    std::vector<Dim> rest;
    std::ptrdiff_t width;     // elements per tile; the last of a line may be narrower
    std::ptrdiff_t per_line;  // tiles per line of `rest`
    std::ptrdiff_t tasks;

    std::ptrdiff_t width_of(std::ptrdiff_t tile) const { return std::min(width, inner.size - tile * width); }
};

// Wide tiles (32 KiB): the previous output row of a tile stays in L1/L2 while the tile's rows stream through. With
// fewer slabs than threads, rows are split into one slab per thread, each at least a few cache lines wide.
template <class C>
OuterTiling outer_tiling(const Plan& plan, std::size_t threads) {
    const std::ptrdiff_t widest = 32 * 1024 / std::ptrdiff_t(sizeof(C));
    const Dim inner = plan.others.back();
    const std::ptrdiff_t rest_lines = plan.lines / inner.size;
    const std::ptrdiff_t narrowest = 256 / std::ptrdiff_t(sizeof(C));
    const std::ptrdiff_t slabs_per_row = (std::ptrdiff_t(threads) + rest_lines - 1) / rest_lines;
    const std::ptrdiff_t width =
        std::min({inner.size, widest, std::max(narrowest, (inner.size + slabs_per_row - 1) / slabs_per_row)});
    const std::ptrdiff_t per_line = (inner.size + width - 1) / width;
    return {inner, std::vector<Dim>(plan.others.begin(), plan.others.end() - 1), width, per_line,
            rest_lines * per_line};
}

// Calls scan(scanner, first, width) for every tile of `tiling`: `first` the byte offsets of the tile's first element
// in its first row, `width` its elements. Tasks run in parallel, each thread with its own scanner (make_scanner()).
template <class MakeScanner, class Scan>
void for_each_tile(const OuterTiling& tiling, std::size_t threads, MakeScanner&& make_scanner, Scan&& scan) {
    const Dim& inner = tiling.inner;
    parallel_ranges(tiling.tasks, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        auto scanner = make_scanner();
        for (std::ptrdiff_t task = begin; task < end; ++task) {
            const std::ptrdiff_t tile = task % tiling.per_line;
            const std::ptrdiff_t line = task / tiling.per_line;
            const std::ptrdiff_t element = tile * tiling.width;
            for_each_run(tiling.rest, line, line + 1, [&](const LineOffsets& run, std::ptrdiff_t) {
                LineOffsets first = run;
                for (std::size_t role = 0; role < Role::count; ++role) {
                    first[role] += element * inner.stride[role];
                }
                scan(scanner, first, tiling.width_of(tile));
            });
        }
    });
}

// What one thread keeps across the tiles it scans: running states and, on the buffered path, a staging buffer.
template <class S, class C, class State, class Stepwise>
class TileScanner {
public:
    TileScanner(const Job<S, C, State>& job, const StepwiseKernels<C, State, Stepwise>& kernels, TileRows rows,
                std::ptrdiff_t width)
        : job_(job), kernels_(kernels), rows_(rows),
          carry_(rows == TileRows::combined ? 0 : static_cast<std::size_t>(width)),
          suppliers_(rows == TileRows::indexed ? static_cast<std::size_t>(width) : 0),
          staging_(rows == TileRows::staged || rows == TileRows::indexed ? new Staging<S, C>(job.plan, job.table)
                                                                           : nullptr) {}

    // Scans every row of the tile `width` elements wide at `tile`; its elements are `inner` strides apart.
    void scan(const Operands& tile, std::ptrdiff_t width, const Dim& inner) {
        const char* in = tile[Role::in];
        char* out = tile[Role::out];
        switch (rows_) {
            case TileRows::combined:
                return scan_outer_tile(job_, reinterpret_cast<const C*>(in), reinterpret_cast<C*>(out), width);
            case TileRows::carried: return scan_in_place(in, out, width);
            case TileRows::staged: return scan_staged(in, out, width, inner);
            case TileRows::indexed:
                if constexpr (std::is_same<Stepwise, C>::value) {
                    return scan_indexed(tile, width, inner);
                }
        }
    }

private:
    static constexpr std::ptrdiff_t block = Staging<S, C>::block;

    void scan_in_place(const char* in, char* out, std::ptrdiff_t width) {
        const Plan& plan = job_.plan;
        const auto advance = kernels_.advance[plan.step[Role::in] < 0 && walk_falling_rows_down()];
        const bool streams = job_.streams();
        scan_outer_tile_carried(
            job_, carry_, kernels_.stepwise_neutral, width, width,
            [&](std::ptrdiff_t r, std::ptrdiff_t, std::ptrdiff_t) {
                return reinterpret_cast<const C*>(in + r * plan.step[Role::in]);
            },
            [&](std::ptrdiff_t r, std::ptrdiff_t) { return reinterpret_cast<C*>(out + r * plan.step[Role::out]); },
            [&](std::ptrdiff_t, std::ptrdiff_t, const C* row, Stepwise* states, C* values, std::ptrdiff_t count) {
                advance(row, states, values, count, job_.exclusive, streams, job_.kernels.order_key);
            },
            [](std::ptrdiff_t, std::ptrdiff_t, const C*, std::ptrdiff_t) {});
    }

    void scan_staged(const char* in, char* out, std::ptrdiff_t width, const Dim& inner) {
        const Plan& plan = job_.plan;
        // A packed native output row is the kernel's target itself (past the caches where the job streams), not the
        // staging buffer copied out.
        const auto out_at = [&](std::ptrdiff_t r, std::ptrdiff_t c) {
            return out + r * plan.step[Role::out] + c * inner.stride[Role::out];
        };
        const bool into_out = staging_->stores_in_place(out, inner.stride[Role::out]) &&
                              plan.step[Role::out] % std::ptrdiff_t(alignof(C)) == 0;
        // Not where the rows are gathered from wider strides than they are stored at: streaming made those scans
        // slower (benchmarks/README.md).
        const bool streams = job_.streams() && magnitude(inner.stride[Role::in]) <= inner.stride[Role::out];
        // Segments of a staging block, the row's whole width still read and written in memory order: the staged
        // copies stay in L1, and a tile a staging block wide walked the arrays in 4 KiB pieces, far more slowly
        // (benchmarks/README.md).
        scan_outer_tile_carried(
            job_, carry_, kernels_.stepwise_neutral, width, block,
            [&](std::ptrdiff_t r, std::ptrdiff_t c, std::ptrdiff_t count) {
                staging_->keep_apart_from(out_at(r, c), inner.stride[Role::out]);
                return staging_->load(in + r * plan.step[Role::in] + c * inner.stride[Role::in],
                                      inner.stride[Role::in], count);
            },
            [&](std::ptrdiff_t r, std::ptrdiff_t c) {
                return into_out ? reinterpret_cast<C*>(out_at(r, c)) : staging_->values();
            },
            [&](std::ptrdiff_t, std::ptrdiff_t, const C* row, Stepwise* states, C* values, std::ptrdiff_t count) {
                kernels_.advance[0](row, states, values, count, job_.exclusive, into_out && streams,
                                    job_.kernels.order_key);
            },
            [&](std::ptrdiff_t r, std::ptrdiff_t c, const C* values, std::ptrdiff_t count) {
                if (!into_out) {
                    staging_->store(values, out_at(r, c), inner.stride[Role::out], count, streams);
                }
            });
    }

    // The staged rows with the indices: each column's running value and its supplier's index (-1: none yet) kept
    // aside while the tile's rows go by in scan order, as the outer path's staged rows. A line at a time, each line
    // a column, was far slower (benchmarks/README.md).
    void scan_indexed(const Operands& tile, std::ptrdiff_t width, const Dim& inner) {
        const Plan& plan = job_.plan;
        const auto at = [&](std::size_t role, std::ptrdiff_t r, std::ptrdiff_t c) {
            return tile[role] + r * plan.step[role] + c * inner.stride[role];
        };
        std::fill_n(suppliers_.begin(), width, std::int64_t(-1));
        const bool direct_positions = is_array_of<std::int64_t>(tile[Role::indices], inner.stride[Role::indices]) &&
                                      plan.step[Role::indices] % std::ptrdiff_t(sizeof(std::int64_t)) == 0;
        const bool streams = direct_positions && job_.streams();
        std::int64_t* positions = nullptr;
        scan_outer_tile_carried(
            job_, carry_, kernels_.stepwise_neutral, width, block,
            [&](std::ptrdiff_t r, std::ptrdiff_t c, std::ptrdiff_t count) {
                staging_->keep_apart_from(at(Role::out, r, c), inner.stride[Role::out]);
                return staging_->load(at(Role::in, r, c), inner.stride[Role::in], count);
            },
            [&](std::ptrdiff_t r, std::ptrdiff_t c) {
                char* target = at(Role::out, r, c);
                return staging_->stores_in_place(target, inner.stride[Role::out]) ? reinterpret_cast<C*>(target)
                                                                                  : staging_->values();
            },
            [&](std::ptrdiff_t r, std::ptrdiff_t c, const C* row, C* states, C* values, std::ptrdiff_t count) {
                positions = direct_positions ? reinterpret_cast<std::int64_t*>(at(Role::indices, r, c))
                                             : positions_.get();
                // The scan's r-th row is at n - 1 - r along the axis when decreasing.
                const std::int64_t index = plan.decreasing ? plan.n - 1 - r : r;
                // Streamed where both rows are the outputs themselves.
                const bool values_in_place = values == reinterpret_cast<C*>(at(Role::out, r, c));
                job_.kernels.advance_indexed(row, states, suppliers_.data() + c, values, positions, count, index,
                                             job_.exclusive, streams && values_in_place, job_.kernels.order_key);
            },
            [&](std::ptrdiff_t r, std::ptrdiff_t c, const C* values, std::ptrdiff_t count) {
                char* target = at(Role::out, r, c);
                if (values != reinterpret_cast<C*>(target)) {
                    staging_->store(values, target, inner.stride[Role::out], count, false);
                }
                if (!direct_positions) {
                    store_indices(positions, at(Role::indices, r, c), inner.stride[Role::indices], count, -1);
                }
            });
    }

    const Job<S, C, State>& job_;
    const StepwiseKernels<C, State, Stepwise>& kernels_;  // advance and its carries' neutral
    TileRows rows_;
    std::vector<Stepwise> carry_;
    std::vector<std::int64_t> suppliers_;
    std::unique_ptr<Staging<S, C>> staging_;
    LazyBuffer<std::int64_t> positions_{std::size_t(block)};  // a segment's positions, where not the indices' own
};

template <class S, class C, class State, class Stepwise>
void run_outer(const Job<S, C, State>& job, const StepwiseKernels<C, State, Stepwise>& kernels, bool buffered) {
    const Plan& plan = job.plan;
    const std::size_t threads = threads_for(job);
    const OuterTiling tiling = outer_tiling<C>(plan, threads);
    const TileRows rows = tile_rows(job, buffered);
    static constexpr const char* names[] = {"outer_combined", "outer_carried", "outer_staged", "indexed_rows"};
    note_runner(names[int(rows)]);
    for_each_tile(
        tiling, threads, [&] { return TileScanner<S, C, State, Stepwise>(job, kernels, rows, tiling.width); },
        [&](TileScanner<S, C, State, Stepwise>& scanner, const LineOffsets& first, std::ptrdiff_t width) {
            scanner.scan(operands_at(plan.data, first), width, tiling.inner);
        });
}

// A grouped job's lines (Role::labels), one at a time on a thread: a staging block at a time in scan order, its labels
// numbered by the line's GroupTable and each element scanned into its group's state (StepwiseKernels::scan_groups).
template <class S, class C, class State, class Stepwise>
class GroupedLines {
public:
    GroupedLines(const Job<S, C, State>& job, const StepwiseKernels<C, State, Stepwise>& kernels)
        : job_(job), kernels_(kernels), staging_(job.plan, job.table) {}

    void scan(const Operands& line) {
        const Plan& plan = job_.plan;
        const bool indexed = plan.has(Role::indices);
        groups_.clear();
        for (std::ptrdiff_t begin = 0; begin < plan.n; begin += block) {
            const std::ptrdiff_t count = std::min(block, plan.n - begin);
            const Operands at = operands_at(line, {}, begin, plan.step);
            // Room for a group more per element.
            if (states_.size() < groups_.size() + std::size_t(count)) {
                states_.resize(2 * states_.size() + std::size_t(count));
                suppliers_.resize(indexed ? states_.size() : 0);
            }
            char* target = at[Role::out];
            const bool into_out = staging_.stores_in_place(target, plan.step[Role::out]);
            staging_.keep_apart_from(target, plan.step[Role::out]);
            const C* x = staging_.load(at[Role::in], plan.step[Role::in], count);
            C* values = into_out ? reinterpret_cast<C*>(target) : staging_.values();
            std::int64_t* positions = indexed ? positions_.get() : nullptr;
            kernels_.scan_groups(x, values, count,
                                 GroupWalk<Stepwise>{{at[Role::labels], plan.step[Role::labels], groups_},
                                                     states_.data(), suppliers_.data(), positions, begin},
                                 job_.exclusive, job_.kernels.identity, job_.kernels.order_key);
            if (!into_out) {
                staging_.store(values, target, plan.step[Role::out], count, false);
            }
            if (indexed) {
                // Counted from the axis' end when decreasing.
                store_indices(positions, at[Role::indices], plan.step[Role::indices], count,
                              plan.decreasing ? std::int64_t(plan.n) - 1 : -1);
            }
        }
    }

private:
    static constexpr std::ptrdiff_t block = Staging<S, C>::block;

    const Job<S, C, State>& job_;
    const StepwiseKernels<C, State, Stepwise>& kernels_;  // scan_groups
    Staging<S, C> staging_;
    GroupTable groups_;
    std::vector<Stepwise> states_;          // by group number
    std::vector<GroupSupplier> suppliers_;  // by group number, where the job writes indices
    LazyBuffer<std::int64_t> positions_{std::size_t(block)};
};

// A grouped job: its lines in parallel, each on one thread (its groups' states carry through the whole line), so
// that no result depends on the thread count.
template <class S, class C, class State, class Stepwise>
void run_grouped(const Job<S, C, State>& job, const StepwiseKernels<C, State, Stepwise>& kernels) {
    note_runner("grouped_lines");
    const Plan& plan = job.plan;
    const Dim inner = innermost(plan.others);
    parallel_ranges(plan.lines, threads_for(job), [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        GroupedLines<S, C, State, Stepwise> lines(job, kernels);
        for_each_run(plan.others, begin, end, [&](const LineOffsets& first, std::ptrdiff_t count) {
            for (std::ptrdiff_t r = 0; r < count; ++r) {
                lines.scan(operands_at(plan.data, first, r, inner.stride));
            }
        });
    });
}

// (Not in run_path: its engine's lambda there would make a run_lines of each Stepwise.)
template <class S, class C, class State>
void run_buffered_lines(const Job<S, C, State>& job) {
    note_runner(job.plan.has(Role::indices) ? "indexed_lines" : "lines_buffered");
    run_lines(job, false, [&] { return LineBuffers<S, C, State>(job); });
}

// Runs a job on the path choose_path picks for its plan, or a grouped one on its own.
template <class S, class C, class State, class Stepwise>
void run_path(const Job<S, C, State>& job, const StepwiseKernels<C, State, Stepwise>& kernels) {
    if (job.plan.has(Role::labels)) {
        return run_grouped(job, kernels);
    }
    switch (choose_path(job.plan)) {
        case Path::direct: return run_direct(job);
        case Path::outer: return run_outer(job, kernels, false);
        case Path::outer_buffered: return run_outer(job, kernels, true);
        case Path::lines_buffered: return run_buffered_lines(job);
    }
}

}  // namespace detail
}  // namespace simdscan
