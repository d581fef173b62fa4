// Layout analysis and scheduling: turns a strided N-d job into calls of the active tier's kernels.
//
// Three paths, chosen per job:
//  direct   - the scan axis is element-contiguous in input and output: kernels run on the arrays themselves;
//  outer    - the scan axis is strided but another axis is contiguous: whole rows combine elementwise, row by row,
//             in NumPy's order;
//  buffered - anything else (strided, byte-swapped, float16, misaligned): blocks of a line are gathered into a
//             buffer in scan order, scanned there, and scattered back.
#include <algorithm>
#include <atomic>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "dispatch.hpp"
#include "kernels.hpp"
#include "scan.hpp"
#include "thread_pool.hpp"

namespace simdscan {
namespace {

using detail::ScanState;
using detail::TypedKernels;

std::atomic<std::size_t> num_threads{0};  // 0: not set yet, use every available core

// Below this many bytes of input a job runs on the calling thread: waking the pool costs more than it saves.
constexpr std::ptrdiff_t parallel_threshold_bytes = 1 << 20;

struct Dim {
    std::ptrdiff_t size;
    std::ptrdiff_t in_stride;
    std::ptrdiff_t out_stride;
};

// The job in scan order: pointers to each line's first element in scan order, the byte step between successive
// elements of a line, and the other axes (sizes > 1, merged where possible, outermost first).
struct Plan {
    const char* in;
    char* out;
    std::ptrdiff_t n;
    std::ptrdiff_t in_step;
    std::ptrdiff_t out_step;
    std::vector<Dim> others;
    std::ptrdiff_t lines;
};

Plan make_plan(const CumulativeOperatorDesc& desc) {
    const TensorView& in = desc.input;
    const TensorView& out = desc.output;
    Plan plan{static_cast<const char*>(in.data), static_cast<char*>(out.data), in.sizes[desc.axis],
              in.byte_strides[desc.axis], out.byte_strides[desc.axis], {}, 1};
    if (desc.direction == AxisDirection::decreasing) {
        plan.in += (plan.n - 1) * plan.in_step;
        plan.out += (plan.n - 1) * plan.out_step;
        plan.in_step = -plan.in_step;
        plan.out_step = -plan.out_step;
    }
    for (std::size_t d = 0; d < in.sizes.size(); ++d) {
        if (d == desc.axis || in.sizes[d] == 1) {
            continue;
        }
        Dim dim{in.sizes[d], in.byte_strides[d], out.byte_strides[d]};
        // Lines are independent, so any other axis may be walked backwards: make the output's strides positive.
        if (dim.out_stride < 0) {
            plan.in += (dim.size - 1) * dim.in_stride;
            plan.out += (dim.size - 1) * dim.out_stride;
            dim.in_stride = -dim.in_stride;
            dim.out_stride = -dim.out_stride;
        }
        plan.others.push_back(dim);
        plan.lines *= dim.size;
    }
    std::stable_sort(plan.others.begin(), plan.others.end(), [](const Dim& a, const Dim& b) {
        return a.out_stride != b.out_stride ? a.out_stride > b.out_stride : a.in_stride > b.in_stride;
    });
    std::vector<Dim> merged;
    for (const Dim& dim : plan.others) {
        if (!merged.empty()) {
            Dim& outer = merged.back();
            if (outer.in_stride == dim.in_stride * dim.size && outer.out_stride == dim.out_stride * dim.size) {
                outer = Dim{outer.size * dim.size, dim.in_stride, dim.out_stride};
                continue;
            }
        }
        merged.push_back(dim);
    }
    plan.others = std::move(merged);
    return plan;
}

// Calls visit(in_offset, out_offset, count) for the lines [begin, end) in row-major order over `dims`, grouped in
// runs of consecutive lines along the innermost axis.
template <class Visit>
void for_each_run(const std::vector<Dim>& dims, std::ptrdiff_t begin, std::ptrdiff_t end, Visit&& visit) {
    if (dims.empty()) {
        if (begin < end) {
            visit(std::ptrdiff_t(0), std::ptrdiff_t(0), std::ptrdiff_t(1));
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
        std::ptrdiff_t in_offset = 0;
        std::ptrdiff_t out_offset = 0;
        for (std::size_t d = 0; d < dims.size(); ++d) {
            in_offset += index[d] * dims[d].in_stride;
            out_offset += index[d] * dims[d].out_stride;
        }
        const std::ptrdiff_t count = std::min(dims[last].size - index[last], end - line);
        visit(in_offset, out_offset, count);
        line += count;
        index[last] += count;
        for (std::size_t d = last; d > 0 && index[d] == dims[d].size; --d) {
            index[d] = 0;
            ++index[d - 1];
        }
    }
}

std::size_t threads_for(std::ptrdiff_t bytes) {
    return bytes < parallel_threshold_bytes ? 1 : get_num_threads();
}

// Splits [0, total) into about `parts` contiguous ranges and runs them in parallel.
template <class Body>
void parallel_ranges(std::ptrdiff_t total, std::size_t threads, Body&& body) {
    const std::ptrdiff_t parts = std::min<std::ptrdiff_t>(total, std::ptrdiff_t(threads) * 4);
    if (threads <= 1 || parts <= 1) {
        body(std::ptrdiff_t(0), total);
        return;
    }
    detail::parallel_for(std::size_t(parts), threads, [&](std::size_t part) {
        body(total * std::ptrdiff_t(part) / parts, total * std::ptrdiff_t(part + 1) / parts);
    });
}

template <class S, class C, class State>
struct Job {
    const Plan& plan;
    const TypedKernels<C, State>& kernels;
    bool exclusive;
    bool in_swapped;
    bool out_swapped;
    const detail::KernelTable& table;
};

void byteswap_units(void* data, std::ptrdiff_t count, std::size_t unit) {
    auto* bytes = static_cast<unsigned char*>(data);
    for (std::ptrdiff_t i = 0; i < count; ++i, bytes += unit) {
        std::reverse(bytes, bytes + unit);
    }
}

// Swap units: complex numbers swap each component.
template <class S>
std::size_t swap_unit() {
    if constexpr (std::is_same<S, std::complex<float>>::value || std::is_same<S, std::complex<double>>::value) {
        return sizeof(S) / 2;
    } else {
        return sizeof(S);
    }
}

// The chunk structure of a long line, in scan order: chunk k is [k * size, min(n, (k + 1) * size)).
struct Chunks {
    std::ptrdiff_t n;
    std::ptrdiff_t size;
    std::ptrdiff_t count() const { return (n + size - 1) / size; }
    std::ptrdiff_t begin(std::ptrdiff_t k) const { return k * size; }
    std::ptrdiff_t length(std::ptrdiff_t k) const { return std::min(n, (k + 1) * size) - k * size; }
};

// Moves up to `block` elements between the arrays and a compute-type buffer: gathers from any byte step,
// byte-swaps, converts float16, and scatters back. Packed native runs are read in place.
template <class S, class C, class State>
class Staging {
public:
    static constexpr std::ptrdiff_t block = std::min<std::ptrdiff_t>(1024, detail::chunk_elements<C>());

    explicit Staging(const Job<S, C, State>& job) : job_(job), raw_(block), values_(block) {}

    C* values() { return values_.data(); }

    // Returns `count` elements from src, `step` bytes apart, in compute type; may point into the input itself.
    const C* load(const char* src, std::ptrdiff_t step, std::ptrdiff_t count) {
        const S* raw = reinterpret_cast<const S*>(src);
        if (!packed(src, step) || job_.in_swapped) {
            if (packed(src, step)) {
                std::memcpy(raw_.data(), src, std::size_t(count) * sizeof(S));
            } else {
                for (std::ptrdiff_t i = 0; i < count; ++i) {
                    std::memcpy(&raw_[std::size_t(i)], src + i * step, sizeof(S));
                }
            }
            if (job_.in_swapped) {
                byteswap_units(raw_.data(), count * std::ptrdiff_t(sizeof(S) / swap_unit<S>()), swap_unit<S>());
            }
            raw = raw_.data();
        }
        if constexpr (std::is_same<S, C>::value) {
            return raw;
        } else {
            job_.table.half_to_float(raw, values_.data(), count);
            return values_.data();
        }
    }

    // Stores `count` compute-type values to dst, `step` bytes apart.
    void store(const C* values, char* dst, std::ptrdiff_t step, std::ptrdiff_t count) {
        const bool direct = packed(dst, step) && !job_.out_swapped;
        S* raw = direct ? reinterpret_cast<S*>(dst) : raw_.data();
        if constexpr (std::is_same<S, C>::value) {
            std::memcpy(raw, values, std::size_t(count) * sizeof(S));
        } else {
            job_.table.float_to_half(values, raw, count);
        }
        if (direct) {
            return;
        }
        if (job_.out_swapped) {
            byteswap_units(raw_.data(), count * std::ptrdiff_t(sizeof(S) / swap_unit<S>()), swap_unit<S>());
        }
        if (packed(dst, step)) {
            std::memcpy(dst, raw_.data(), std::size_t(count) * sizeof(S));
        } else {
            for (std::ptrdiff_t i = 0; i < count; ++i) {
                std::memcpy(dst + i * step, &raw_[std::size_t(i)], sizeof(S));
            }
        }
    }

private:
    // Whether elements `step` bytes apart from p can be read or written as one aligned array.
    static bool packed(const char* p, std::ptrdiff_t step) {
        return step == std::ptrdiff_t(sizeof(S)) && reinterpret_cast<std::uintptr_t>(p) % alignof(S) == 0;
    }

    const Job<S, C, State>& job_;
    std::vector<S> raw_;     // stored-type elements: gathered, byte-swapped or converted
    std::vector<C> values_;  // compute-type values
};

// Buffered path engine: blocks of a line, in scan order, go through Staging and are scanned in its buffer.
template <class S, class C, class State>
class LineBuffers {
public:
    explicit LineBuffers(const Job<S, C, State>& job) : job_(job), staging_(job) {}

    // Scans scan positions [begin, begin + length) of the line at in/out with state st.
    void scan(const char* in, char* out, std::ptrdiff_t begin, std::ptrdiff_t length, ScanState<State>& st) {
        for (std::ptrdiff_t done = 0; done < length; done += block) {
            const std::ptrdiff_t count = std::min(block, length - done);
            job_.kernels.scan[0](load(in, begin + done, count), staging_.values(), count, st, job_.exclusive);
            store(out, begin + done, count);
        }
    }

    // The two halves of scan() for a chunk scanned before its base is known: the chunk on its own into `local`
    // (scan order), then base op local stored to the output.
    void scan_local(const char* in, C* local, std::ptrdiff_t begin, std::ptrdiff_t length, ScanState<State>& st) {
        for (std::ptrdiff_t done = 0; done < length; done += block) {
            const std::ptrdiff_t count = std::min(block, length - done);
            job_.kernels.scan[0](load(in, begin + done, count), local + done, count, st, job_.exclusive);
        }
    }

    void store_based(const C* local, char* out, std::ptrdiff_t begin, std::ptrdiff_t length, const State* base) {
        for (std::ptrdiff_t done = 0; done < length; done += block) {
            const std::ptrdiff_t count = std::min(block, length - done);
            if (base != nullptr) {
                job_.kernels.rebase(local + done, staging_.values(), count, *base);
            } else {
                std::memcpy(staging_.values(), local + done, std::size_t(count) * sizeof(C));
            }
            store(out, begin + done, count);
        }
    }

private:
    static constexpr std::ptrdiff_t block = Staging<S, C, State>::block;

    const C* load(const char* in, std::ptrdiff_t begin, std::ptrdiff_t count) {
        return staging_.load(in + begin * job_.plan.in_step, job_.plan.in_step, count);
    }
    void store(char* out, std::ptrdiff_t begin, std::ptrdiff_t count) {
        staging_.store(staging_.values(), out + begin * job_.plan.out_step, job_.plan.out_step, count);
    }

    const Job<S, C, State>& job_;
    Staging<S, C, State> staging_;
};

// The per-line engines share the chunk logic: scan a line sequentially, or split one line's chunks over threads.
template <class S, class C, class State, class Engine>
void scan_line_chunked(const Job<S, C, State>& job, Engine& engine, const char* in, char* out) {
    const Chunks chunks{job.plan.n, detail::chunk_elements<C>()};
    ScanState<State> st{job.kernels.neutral, job.kernels.neutral, false, true};
    for (std::ptrdiff_t k = 0; k < chunks.count(); ++k) {
        const State base_before = st.base;
        st.local = job.kernels.neutral;
        engine.scan(in, out, chunks.begin(k), chunks.length(k), st);
        st.base = st.has_base ? job.kernels.apply(base_before, st.local) : st.local;
        st.has_base = true;
    }
}

// A buffer of n elements owned by the calling thread and kept for its life. A fresh 256 KiB allocation per call
// would be a new mapping each time: page faults, and a TLB shootdown on every other thread when it is unmapped.
template <class C>
C* thread_scratch(std::ptrdiff_t n) {
    thread_local std::vector<std::max_align_t> scratch;
    const std::size_t words = (std::size_t(n) * sizeof(C) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
    if (scratch.size() < words) {
        scratch.resize(words);
    }
    return reinterpret_cast<C*>(scratch.data());
}

// One line's chunks scanned by several threads in a single pass over memory (a chained scan): each thread scans
// a chunk on its own into a cache-resident buffer, waits for the op of all earlier chunks (published by the
// previous chunk's thread), publishes its own, then stores base op buffer. Chunks are taken in order, so the
// oldest unpublished chunk always belongs to a running thread and the chain never deadlocks.
template <class S, class C, class State, class MakeEngine>
void scan_line_parallel(const Job<S, C, State>& job, MakeEngine&& make_engine, const char* in, char* out,
                        std::size_t threads) {
    const Chunks chunks{job.plan.n, detail::chunk_elements<C>()};
    const std::ptrdiff_t count = chunks.count();
    std::vector<State> published(static_cast<std::size_t>(count));  // published[k]: the op of chunks 0..k
    std::unique_ptr<std::atomic<bool>[]> ready(new std::atomic<bool>[std::size_t(count)]);
    for (std::ptrdiff_t k = 0; k < count; ++k) {
        ready[std::size_t(k)].store(false, std::memory_order_relaxed);
    }
    std::atomic<std::ptrdiff_t> next{0};
    detail::parallel_for(threads, threads, [&](std::size_t) {
        auto engine = make_engine();
        C* local = thread_scratch<C>(chunks.size);
        for (std::ptrdiff_t k = next.fetch_add(1); k < count; k = next.fetch_add(1)) {
            ScanState<State> st{job.kernels.neutral, job.kernels.neutral, false, k == 0};
            engine.scan_local(in, local, chunks.begin(k), chunks.length(k), st);
            const State* base = nullptr;
            if (k == 0) {
                published[0] = st.local;
            } else {
                while (!ready[std::size_t(k - 1)].load(std::memory_order_acquire)) {
                    std::this_thread::yield();
                }
                base = &published[std::size_t(k - 1)];
                published[std::size_t(k)] = job.kernels.apply(*base, st.local);
            }
            ready[std::size_t(k)].store(true, std::memory_order_release);
            engine.store_based(local, out, chunks.begin(k), chunks.length(k), base);
        }
    });
}

// Direct path engine: the kernels run on the arrays, in scan order given by the sign of the step.
template <class S, class C, class State>
struct DirectEngine {
    const Job<S, C, State>& job;

    // The memory order of scan positions [begin, begin + length) starts at scan position `first`.
    std::ptrdiff_t first(std::ptrdiff_t begin, std::ptrdiff_t length) const {
        return job.plan.in_step < 0 ? begin + length - 1 : begin;
    }
    void scan(const char* in, char* out, std::ptrdiff_t begin, std::ptrdiff_t length, ScanState<State>& st) {
        const std::ptrdiff_t at = first(begin, length);
        job.kernels.scan[job.plan.in_step < 0](reinterpret_cast<const C*>(in + at * job.plan.in_step),
                                               reinterpret_cast<C*>(out + at * job.plan.out_step), length, st,
                                               job.exclusive);
    }
    void scan_local(const char* in, C* local, std::ptrdiff_t begin, std::ptrdiff_t length, ScanState<State>& st) {
        const std::ptrdiff_t at = first(begin, length);
        job.kernels.scan[job.plan.in_step < 0](reinterpret_cast<const C*>(in + at * job.plan.in_step), local,
                                               length, st, job.exclusive);
    }
    void store_based(const C* local, char* out, std::ptrdiff_t begin, std::ptrdiff_t length, const State* base) {
        C* to = reinterpret_cast<C*>(out + first(begin, length) * job.plan.out_step);
        if (base != nullptr) {
            job.kernels.rebase(local, to, length, *base);
        } else {
            std::memcpy(to, local, std::size_t(length) * sizeof(C));
        }
    }
};

// Runs a per-line engine over every line: lines in parallel when there are enough, else each line's chunks.
template <class S, class C, class State, class MakeEngine>
void run_lines(const Job<S, C, State>& job, MakeEngine&& make_engine) {
    const Plan& plan = job.plan;
    const std::size_t threads = threads_for(plan.lines * plan.n * std::ptrdiff_t(sizeof(S)));
    const bool split_lines = plan.n > detail::chunk_elements<C>() && std::ptrdiff_t(threads) > plan.lines;
    if (split_lines) {
        for_each_run(plan.others, 0, plan.lines, [&](std::ptrdiff_t in_offset, std::ptrdiff_t out_offset,
                                                     std::ptrdiff_t count) {
            const Dim inner = plan.others.empty() ? Dim{1, 0, 0} : plan.others.back();
            for (std::ptrdiff_t r = 0; r < count; ++r) {
                scan_line_parallel(job, make_engine, plan.in + in_offset + r * inner.in_stride,
                                   plan.out + out_offset + r * inner.out_stride, threads);
            }
        });
        return;
    }
    parallel_ranges(plan.lines, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        auto engine = make_engine();
        for_each_run(plan.others, begin, end, [&](std::ptrdiff_t in_offset, std::ptrdiff_t out_offset,
                                                  std::ptrdiff_t count) {
            const Dim inner = plan.others.empty() ? Dim{1, 0, 0} : plan.others.back();
            for (std::ptrdiff_t r = 0; r < count; ++r) {
                scan_line_chunked(job, engine, plan.in + in_offset + r * inner.in_stride,
                                  plan.out + out_offset + r * inner.out_stride);
            }
        });
    });
}

template <class S, class C, class State>
void run_direct(const Job<S, C, State>& job) {
    const Plan& plan = job.plan;
    if (plan.n > detail::chunk_elements<C>()) {
        run_lines(job, [&] { return DirectEngine<S, C, State>{job}; });
        return;
    }
    // Short lines: whole runs of rows per kernel call.
    const bool reverse = plan.in_step < 0;
    const std::ptrdiff_t first = reverse ? plan.n - 1 : 0;
    const Dim inner = plan.others.empty() ? Dim{1, 0, 0} : plan.others.back();
    parallel_ranges(plan.lines, threads_for(plan.lines * plan.n * std::ptrdiff_t(sizeof(S))),
                    [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
                        for_each_run(plan.others, begin, end, [&](std::ptrdiff_t in_offset, std::ptrdiff_t out_offset,
                                                                  std::ptrdiff_t count) {
                            job.kernels.rows[reverse](plan.in + in_offset + first * plan.in_step,
                                                      plan.out + out_offset + first * plan.out_step, plan.n, count,
                                                      inner.in_stride, inner.out_stride, job.exclusive);
                        });
                    });
}

// Scans rows [0, n) of one tile, `width` contiguous elements wide, in NumPy's order: out[r] = out[r-1] op in[r].
// Only where the state is the value and the previous output row is still intact (not in place and exclusive).
template <class S, class C, class State>
void scan_outer_tile(const Job<S, C, State>& job, const C* in, C* out, std::ptrdiff_t width) {
    const Plan& plan = job.plan;
    const auto row_in = [&](std::ptrdiff_t r) {
        return reinterpret_cast<const C*>(reinterpret_cast<const char*>(in) + r * plan.in_step);
    };
    const auto row_out = [&](std::ptrdiff_t r) { return reinterpret_cast<C*>(reinterpret_cast<char*>(out) + r * plan.out_step); };
    const std::size_t bytes = std::size_t(width) * sizeof(C);
    if (!job.exclusive) {
        if (out != in) {
            std::memcpy(out, in, bytes);
        }
        for (std::ptrdiff_t r = 1; r < plan.n; ++r) {
            job.kernels.combine(row_out(r - 1), row_in(r), row_out(r), width);
        }
    } else {
        // Row 1 copies row 0 rather than adding it to the identity: identity + -0.0 would lose the sign.
        std::fill(out, out + width, job.kernels.identity);
        std::memcpy(row_out(1), in, bytes);
        for (std::ptrdiff_t r = 2; r < plan.n; ++r) {
            job.kernels.combine(row_out(r - 1), row_in(r - 1), row_out(r), width);
        }
    }
}

// Sets every state of a carry buffer (laid out as TypedKernels::advance reads it) to `state`.
template <class State>
void fill_states(State* carry, std::ptrdiff_t w, const State& state) {
    std::fill_n(carry, w, state);
}
template <class C>
void fill_states(detail::Compensated<C>* carry, std::ptrdiff_t w, const detail::Compensated<C>& state) {
    C* sums = reinterpret_cast<C*>(carry);  // w sums then w errors: the buffer viewed as 2w values of C
    std::fill_n(sums, w, state.sum);
    std::fill_n(sums + w, w, state.error);
}

// Scans rows [0, n) of one tile with the running states kept in `carry`: row r is read from load(r) in compute
// type, advanced into target(r) (which may be the row read) and handed to store(r, values).
template <class S, class C, class State, class Load, class Target, class Store>
void scan_outer_tile_carried(const Job<S, C, State>& job, std::vector<State>& carry, std::ptrdiff_t width, Load&& load,
                             Target&& target, Store&& store) {
    fill_states(carry.data(), width, job.kernels.neutral);
    for (std::ptrdiff_t r = 0; r < job.plan.n; ++r) {
        const C* row = load(r);
        C* values = target(r);
        job.kernels.advance[job.exclusive](row, carry.data(), values, width);
        if (job.exclusive && r == 0) {
            // The empty range's value is the identity (+0.0 for sums), not the internal neutral -0.0.
            std::fill(values, values + width, job.kernels.identity);
        }
        store(r, values);
    }
}

template <class S, class C, class State>
void run_outer(const Job<S, C, State>& job, bool buffered) {
    const Plan& plan = job.plan;
    const Dim inner = plan.others.back();
    const std::vector<Dim> rest(plan.others.begin(), plan.others.end() - 1);
    const std::ptrdiff_t rest_lines = plan.lines / inner.size;
    const std::size_t threads = threads_for(plan.lines * plan.n * std::ptrdiff_t(sizeof(S)));
    // Wide tiles: the previous output row of a tile stays in L1/L2 while the tile's rows stream through. With
    // fewer slabs than threads, rows are split into one slab per thread, each at least a few cache lines wide.
    const std::ptrdiff_t widest = buffered ? Staging<S, C, State>::block : 32 * 1024 / std::ptrdiff_t(sizeof(C));
    const std::ptrdiff_t narrowest = 256 / std::ptrdiff_t(sizeof(C));
    const std::ptrdiff_t slabs_per_row = (std::ptrdiff_t(threads) + rest_lines - 1) / rest_lines;
    const std::ptrdiff_t tile = std::min({inner.size, widest,
                                          std::max(narrowest, (inner.size + slabs_per_row - 1) / slabs_per_row)});
    const std::ptrdiff_t tiles = (inner.size + tile - 1) / tile;
    // The output rows are the running rows unless they hold rounded states, are buffered, or are overwritten
    // in place before an exclusive scan has read them.
    const bool carried = !std::is_same<C, State>::value || buffered || (plan.in == plan.out && job.exclusive);
    parallel_ranges(rest_lines * tiles, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        std::vector<State> carry(carried ? static_cast<std::size_t>(tile) : 0);
        std::unique_ptr<Staging<S, C, State>> staging(buffered ? new Staging<S, C, State>(job) : nullptr);
        for (std::ptrdiff_t item = begin; item < end; ++item) {
            const std::ptrdiff_t t = item % tiles;
            const std::ptrdiff_t width = std::min(tile, inner.size - t * tile);
            for_each_run(rest, item / tiles, item / tiles + 1,
                         [&](std::ptrdiff_t in_offset, std::ptrdiff_t out_offset, std::ptrdiff_t) {
                             const char* in = plan.in + in_offset + t * tile * inner.in_stride;
                             char* out = plan.out + out_offset + t * tile * inner.out_stride;
                             const auto row_in = [&](std::ptrdiff_t r) { return in + r * plan.in_step; };
                             const auto row_out = [&](std::ptrdiff_t r) { return out + r * plan.out_step; };
                             if (buffered) {
                                 scan_outer_tile_carried(
                                     job, carry, width,
                                     [&](std::ptrdiff_t r) { return staging->load(row_in(r), inner.in_stride, width); },
                                     [&](std::ptrdiff_t) { return staging->values(); },
                                     [&](std::ptrdiff_t r, const C* values) {
                                         staging->store(values, row_out(r), inner.out_stride, width);
                                     });
                             } else if (carried) {
                                 scan_outer_tile_carried(
                                     job, carry, width,
                                     [&](std::ptrdiff_t r) { return reinterpret_cast<const C*>(row_in(r)); },
                                     [&](std::ptrdiff_t r) { return reinterpret_cast<C*>(row_out(r)); },
                                     [](std::ptrdiff_t, const C*) {});
                             } else {
                                 scan_outer_tile(job, reinterpret_cast<const C*>(in), reinterpret_cast<C*>(out),
                                                 width);
                             }
                         });
        }
    });
}

bool aligned_to(const void* p, std::size_t alignment) {
    return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

template <class S, class C, class State>
void run_typed(const CumulativeOperatorDesc& desc, const Plan& plan, const TypedKernels<C, State>& kernels) {
    const Job<S, C, State> job{plan, kernels, desc.exclusive, desc.input.byte_swapped, desc.output.byte_swapped,
                               detail::active_kernels()};

    // Whether kernels may read and write the arrays themselves: stored as computed, native order, aligned.
    bool kernels_on_arrays = std::is_same<S, C>::value && !job.in_swapped && !job.out_swapped &&
                          aligned_to(plan.in, alignof(S)) && aligned_to(plan.out, alignof(S)) &&
                          plan.in_step % std::ptrdiff_t(alignof(S)) == 0 &&
                          plan.out_step % std::ptrdiff_t(alignof(S)) == 0;
    for (const Dim& dim : plan.others) {
        kernels_on_arrays = kernels_on_arrays && dim.in_stride % std::ptrdiff_t(alignof(S)) == 0 &&
                         dim.out_stride % std::ptrdiff_t(alignof(S)) == 0;
    }
    const std::ptrdiff_t size = sizeof(S);
    const auto magnitude = [](std::ptrdiff_t stride) { return stride < 0 ? -stride : stride; };
    if (kernels_on_arrays && plan.in_step == plan.out_step && (plan.in_step == size || plan.in_step == -size)) {
        run_direct(job);
    } else if (plan.n > 1 && !plan.others.empty() && plan.others.back().size >= 8 &&
               magnitude(plan.others.back().out_stride) < magnitude(plan.out_step) &&
               magnitude(plan.others.back().in_stride) < magnitude(plan.in_step)) {
        // Another axis lies closer together than the scan axis: walk whole rows of it, never one column at a time.
        const Dim& inner = plan.others.back();
        run_outer(job, !(kernels_on_arrays && inner.in_stride == size && inner.out_stride == size));
    } else {
        run_lines(job, [&] { return LineBuffers<S, C, State>(job); });
    }
}

// The op as the kernels compute it, states being values. Integer sums are exact: compensation changes nothing.
template <class S, class C>
void run_plain(const CumulativeOperatorDesc& desc, const Plan& plan) {
    const detail::KernelTable& table = detail::active_kernels();
    const auto& set = desc.op == CumulativeOperator::summation ? table.summation : table.product;
    run_typed<S>(desc, plan, set.template get<C>());
}

template <class S, class C>
void run_floating(const CumulativeOperatorDesc& desc, const Plan& plan) {
    if (desc.compensated) {
        run_typed<S>(desc, plan, detail::active_kernels().compensated_summation.template get<C>());
    } else {
        run_plain<S, C>(desc, plan);
    }
}

// The output must not overlap itself: with axes sorted by stride, each must step past the extent of the previous.
bool has_internal_overlap(const TensorView& view) {
    std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>> dims;  // (|stride|, size)
    for (std::size_t d = 0; d < view.sizes.size(); ++d) {
        if (view.sizes[d] == 0) {
            return false;
        }
        if (view.sizes[d] > 1) {
            dims.emplace_back(view.byte_strides[d] < 0 ? -view.byte_strides[d] : view.byte_strides[d], view.sizes[d]);
        }
    }
    std::sort(dims.begin(), dims.end());
    std::ptrdiff_t extent = std::ptrdiff_t(element_size(view.data_type));
    for (const auto& dim : dims) {
        if (dim.first < extent) {
            return true;
        }
        extent = dim.first * (dim.second - 1) + extent;
    }
    return false;
}

void validate(const CumulativeOperatorDesc& desc) {
    const TensorView& in = desc.input;
    const TensorView& out = desc.output;
    if (in.sizes.size() != in.byte_strides.size() || out.sizes.size() != out.byte_strides.size()) {
        throw std::invalid_argument("tensor view: sizes and strides differ in length");
    }
    if (in.sizes != out.sizes) {
        throw std::invalid_argument("output sizes differ from input sizes");
    }
    if (in.data_type != out.data_type) {
        throw std::invalid_argument("output data type differs from input data type");
    }
    if (desc.compensated && desc.op != CumulativeOperator::summation) {
        throw std::invalid_argument("compensation applies to summation only");
    }
    if (desc.axis >= in.sizes.size()) {
        throw std::invalid_argument("axis out of range");
    }
    for (std::ptrdiff_t size : in.sizes) {
        if (size < 0) {
            throw std::invalid_argument("negative size");
        }
    }
    if (has_internal_overlap(out)) {
        throw std::invalid_argument("output elements overlap each other");
    }
}

}  // namespace

std::size_t element_size(DataType t) {
    switch (t) {
        case DataType::int8:
        case DataType::uint8: return 1;
        case DataType::float16:
        case DataType::int16:
        case DataType::uint16: return 2;
        case DataType::float32:
        case DataType::int32:
        case DataType::uint32: return 4;
        case DataType::float64:
        case DataType::complex64:
        case DataType::int64:
        case DataType::uint64: return 8;
        case DataType::complex128: return 16;
    }
    throw std::invalid_argument("unknown data type");
}

void execute(const CumulativeOperatorDesc& desc) {
    validate(desc);
    for (std::ptrdiff_t size : desc.input.sizes) {
        if (size == 0) {
            return;
        }
    }
    const Plan plan = make_plan(desc);
    switch (desc.input.data_type) {
        case DataType::float16: return run_floating<std::uint16_t, float>(desc, plan);
        case DataType::float32: return run_floating<float, float>(desc, plan);
        case DataType::float64: return run_floating<double, double>(desc, plan);
        case DataType::complex64: return run_floating<std::complex<float>, std::complex<float>>(desc, plan);
        case DataType::complex128: return run_floating<std::complex<double>, std::complex<double>>(desc, plan);
        case DataType::int8:
        case DataType::uint8: return run_plain<std::uint8_t, std::uint8_t>(desc, plan);
        case DataType::int16:
        case DataType::uint16: return run_plain<std::uint16_t, std::uint16_t>(desc, plan);
        case DataType::int32:
        case DataType::uint32: return run_plain<std::uint32_t, std::uint32_t>(desc, plan);
        case DataType::int64:
        case DataType::uint64: return run_plain<std::uint64_t, std::uint64_t>(desc, plan);
    }
}

void set_num_threads(std::size_t n) {
    if (n == 0) {
        throw std::invalid_argument("the number of threads must be at least 1");
    }
    num_threads.store(n);
}

std::size_t get_num_threads() {
    const std::size_t n = num_threads.load();
    return n != 0 ? n : detail::available_cores();
}

}  // namespace simdscan
