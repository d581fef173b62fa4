// Threads: the pool, how many threads a job gets, and how long lines are cut into chunks that threads share.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "function_ref.hpp"
#include "kernels.hpp"
#include "scan.hpp"

namespace simdscan {
namespace detail {

using TaskRef = FunctionRef<void(std::size_t)>;

// Runs task(i) for every i in [0, count) on up to `threads` threads of a persistent pool (no OpenMP runtime to
// ship; safe after fork(): a child starts a new pool), the caller's included, and returns when all are done. The
// first exception a task throws is rethrown here. When the pool is busy with another caller's job, the tasks run on
// the calling thread instead of waiting.
void parallel_for(std::size_t count, std::size_t threads, TaskRef task);

// Orders the stores the kernels streamed past the caches (non-temporal: weakly ordered on x86, and left unordered
// by every kernel) before the calling thread's later stores, so that whoever reads the outputs after them sees them.
// Each pool thread calls it when its tasks are done, and execute before it returns: a fence per line, or per row
// along an outer axis, slowed scans of many short lines or rows (benchmarks/README.md).
void order_streamed_stores();

// The cores this process may run on.
std::size_t available_cores();

// The threads for a job reading `bytes` of input: 1 below a threshold, else get_num_threads().
std::size_t threads_for(std::ptrdiff_t bytes);

// Splits [0, total) into about `parts` contiguous ranges and runs body(begin, end) for each, in parallel.
void parallel_ranges(std::ptrdiff_t total, std::size_t threads,
                     FunctionRef<void(std::ptrdiff_t begin, std::ptrdiff_t end)> body);

// The chunk structure of a long line, in scan order: chunk k is [k * size, min(n, (k + 1) * size)) from `first`.
struct Chunks {
    std::ptrdiff_t first;  // the scan position where the chunks begin
    std::ptrdiff_t n;
    std::ptrdiff_t size;
    std::ptrdiff_t count() const { return (n + size - 1) / size; }
    std::ptrdiff_t begin(std::ptrdiff_t k) const { return first + k * size; }
    std::ptrdiff_t length(std::ptrdiff_t k) const { return std::min(n, (k + 1) * size) - k * size; }
};

// Scans n elements of a line, scan positions [first, first + n), chunk by chunk on the calling thread, as a line of
// their own. An engine scans scan positions of a line (its operands at `line`): scan(line, begin, length, st) in one
// go, or scan_local(line, local, ...) into a buffer and then store_based(local, line, begin, length, base) with the
// earlier chunks' total in front (paths.hpp); total(line, begin, length) is their op (kernels.total's).
template <class C, class State, class Engine>
void scan_line_chunked(const TypedKernels<C, State>& kernels, std::ptrdiff_t n, Engine& engine, const Operands& line,
                       std::ptrdiff_t first = 0) {
    const Chunks chunks{first, n, chunk_elements<C>()};
    if (kernels.total[0] != nullptr) {
        // Each chunk from its base, the op of the earlier chunks' totals, as scan_line_parallel does.
        // In place, a chunk's total is taken before its outputs overwrite the input it reads.
        const bool in_place = line[Role::in] == line[Role::out];
        State base = kernels.neutral;
        for (std::ptrdiff_t k = 0; k < chunks.count(); ++k) {
            const bool last = k + 1 == chunks.count();
            ScanState<State> st{kernels.neutral, base, false, k == 0};
            State total = kernels.neutral;
            if (in_place && !last) {
                total = engine.total(line, chunks.begin(k), chunks.length(k));
            }
            st.wants_total = !last && !in_place;
            engine.scan(line, chunks.begin(k), chunks.length(k), st);
            if (!last) {
                if (!in_place) {
                    total = st.has_total ? st.total : engine.total(line, chunks.begin(k), chunks.length(k));
                }
                base = k == 0 ? total : kernels.apply(base, total);
            }
        }
        return;
    }
    ScanState<State> st{kernels.neutral, kernels.neutral, false, true};
    for (std::ptrdiff_t k = 0; k < chunks.count(); ++k) {
        const State base_before = st.base;
        st.local = kernels.neutral;
        engine.scan(line, chunks.begin(k), chunks.length(k), st);
        st.base = st.has_base ? kernels.apply(base_before, st.local) : st.local;
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

// An allocator of memory that starts on a cache line (64 bytes): from the default 16, most 512-bit loads and
// stores of a row of carries kept across an image's rows each touched two lines (benchmarks/README.md).
template <class T>
struct LineAllocator {
    using value_type = T;
    static constexpr std::align_val_t line{64};

    LineAllocator() = default;
    template <class U>
    LineAllocator(const LineAllocator<U>&) {}  // NOLINT: converting, as allocators rebind
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), line)); }
    void deallocate(T* p, std::size_t) { ::operator delete(p, line); }
    template <class U>
    bool operator==(const LineAllocator<U>&) const { return true; }
    template <class U>
    bool operator!=(const LineAllocator<U>&) const { return false; }
};
template <class T>
using LineVector = std::vector<T, LineAllocator<T>>;

// One line's chunks scanned by several threads in a single pass over memory (a chained scan): each thread scans
// a chunk on its own into a cache-resident buffer, waits for the op of all earlier chunks (published by the
// previous chunk's thread), publishes its own, then stores base op buffer. Chunks are taken in order, so the
// oldest unpublished chunk always belongs to a running thread and the chain never deadlocks. With kernels.total,
// a thread takes its chunk's total instead, and once it has published scans the chunk from its base. The line's
// scan positions [first, first + n), as scan_line_chunked's.
template <class C, class State, class MakeEngine>
void scan_line_parallel(const TypedKernels<C, State>& kernels, std::ptrdiff_t n, MakeEngine&& make_engine,
                        const Operands& line, std::size_t threads, std::ptrdiff_t first = 0) {
    const Chunks chunks{first, n, chunk_elements<C>()};
    const std::ptrdiff_t count = chunks.count();
    std::vector<State> published(static_cast<std::size_t>(count));  // published[k]: the op of chunks 0..k
    std::unique_ptr<std::atomic<bool>[]> ready(new std::atomic<bool>[std::size_t(count)]);
    for (std::ptrdiff_t k = 0; k < count; ++k) {
        ready[std::size_t(k)].store(false, std::memory_order_relaxed);
    }
    std::atomic<std::ptrdiff_t> next{0};
    parallel_for(threads, threads, [&](std::size_t) {
        auto engine = make_engine();
        auto* local = thread_scratch<typename TypedKernels<C, State>::Local>(chunks.size);
        for (std::ptrdiff_t k = next.fetch_add(1); k < count; k = next.fetch_add(1)) {
            const bool by_total = kernels.total[0] != nullptr;
            if (!by_total && (k == 0 || ready[std::size_t(k - 1)].load(std::memory_order_acquire))) {
                // The base is known already: one pass from it, as scan_line_chunked's (two passes on two threads
                // were slower than one, the memory already busy with one: benchmarks/README.md).
                const State base = k == 0 ? kernels.neutral : published[std::size_t(k - 1)];
                ScanState<State> st{base, kernels.neutral, k != 0, k == 0};
                engine.scan(line, chunks.begin(k), chunks.length(k), st);
                published[std::size_t(k)] = k == 0 ? st.local : kernels.apply(base, st.local);
                ready[std::size_t(k)].store(true, std::memory_order_release);
                continue;
            }
            ScanState<State> st{kernels.neutral, kernels.neutral, false, k == 0};
            if (by_total) {
                st.local = engine.total(line, chunks.begin(k), chunks.length(k));
            } else {
                engine.scan_local(line, local, chunks.begin(k), chunks.length(k), st);
            }
            const State own = st.local;  // the chunk's total
            State base = kernels.neutral;  // the op of the earlier chunks' totals
            if (k == 0) {
                published[0] = own;
            } else {
                while (!ready[std::size_t(k - 1)].load(std::memory_order_acquire)) {
                    std::this_thread::yield();
                }
                base = published[std::size_t(k - 1)];
                published[std::size_t(k)] = kernels.apply(base, own);
            }
            ready[std::size_t(k)].store(true, std::memory_order_release);
            if (by_total) {
                st.local = base;
                engine.scan(line, chunks.begin(k), chunks.length(k), st);
            } else {
                engine.store_based(local, line, chunks.begin(k), chunks.length(k), base);
            }
        }
    });
}

}  // namespace detail
}  // namespace simdscan
