// Threads: the pool, how many threads a job gets, and how long lines are cut into chunks that threads share.
#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__) || defined(_M_IX86)
#include <xmmintrin.h>
#define SIMDSCAN_STREAMS_WEAKLY_ORDERED 1
#endif
#if defined(__linux__)
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace simdscan {
namespace detail {
namespace {

std::atomic<std::size_t> num_threads{0};  // 0: not set yet, use every available core

// Below this many bytes of input a job runs on the calling thread: waking the pool costs more than it saves.
constexpr std::ptrdiff_t parallel_threshold_bytes = 1 << 20;

class Pool {
public:
    // Returns false (running nothing) when another caller's job holds the pool.
    bool try_run(std::size_t count, std::size_t threads, TaskRef task) {
        std::unique_lock<std::mutex> job(job_mutex_, std::try_to_lock);
        if (!job.owns_lock()) {
            return false;
        }
        const std::size_t helpers = threads - 1;
        while (workers_.size() < helpers) {
            const std::size_t index = workers_.size();
            workers_.emplace_back([this, index] { work(index); });
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            task_ = &task;
            count_ = count;
            next_.store(0);
            helpers_ = helpers;
            pending_ = helpers;
            error_ = nullptr;
            ++generation_;
        }
        wake_.notify_all();
        run_tasks();
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return pending_ == 0; });
        task_ = nullptr;
        if (error_) {
            std::rethrow_exception(error_);
        }
        return true;
    }

private:
    void run_tasks() {
        for (std::size_t i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) {
            try {
                (*task_)(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex_);
                if (!error_) {
                    error_ = std::current_exception();
                }
                next_.store(count_);  // skip the remaining tasks
            }
        }
        order_streamed_stores();  // before pending_ tells the caller they are done
    }

    void work(std::size_t index) {
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return generation_ != seen; });
                seen = generation_;
                if (index >= helpers_) {
                    continue;  // not needed for this job
                }
            }
            run_tasks();
            std::lock_guard<std::mutex> lock(mutex_);
            if (--pending_ == 0) {
                done_.notify_one();
            }
        }
    }

    std::mutex job_mutex_;  // one job at a time
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    std::vector<std::thread> workers_;
    std::uint64_t generation_ = 0;
    const TaskRef* task_ = nullptr;
    std::size_t count_ = 0;
    std::atomic<std::size_t> next_{0};
    std::size_t helpers_ = 0;
    std::size_t pending_ = 0;
    std::exception_ptr error_;
};

// Never destroyed: workers block forever on a condition variable and die with the process.
std::atomic<Pool*> pool{nullptr};
std::mutex pool_creation;

Pool& get_pool() {
    Pool* p = pool.load();
    if (p == nullptr) {
        std::lock_guard<std::mutex> lock(pool_creation);
        p = pool.load();
        if (p == nullptr) {
            p = new Pool();
            pool.store(p);
        }
    }
    return *p;
}

#if defined(__unix__) || defined(__APPLE__)
// A forked child has none of the parent's workers and may inherit locked mutexes: it abandons the old pool.
void forget_pool_in_child() {
    pool.store(nullptr);
    new (&pool_creation) std::mutex();
}
[[maybe_unused]] const int atfork_registered = pthread_atfork(nullptr, nullptr, &forget_pool_in_child);
#endif

}  // namespace

void order_streamed_stores() {
#if defined(SIMDSCAN_STREAMS_WEAKLY_ORDERED)
    _mm_sfence();
#endif
}

void parallel_for(std::size_t count, std::size_t threads, TaskRef task) {
    if (threads > count) {
        threads = count;
    }
    if (threads > 1 && get_pool().try_run(count, threads, task)) {
        return;
    }
    for (std::size_t i = 0; i < count; ++i) {
        task(i);
    }
}

void parallel_ranges(std::ptrdiff_t total, std::size_t threads,
                     FunctionRef<void(std::ptrdiff_t begin, std::ptrdiff_t end)> body) {
    const std::ptrdiff_t parts = std::min<std::ptrdiff_t>(total, std::ptrdiff_t(threads) * 4);
    if (threads <= 1 || parts <= 1) {
        body(std::ptrdiff_t(0), total);
        return;
    }
    parallel_for(std::size_t(parts), threads, [&](std::size_t part) {
        body(total * std::ptrdiff_t(part) / parts, total * std::ptrdiff_t(part + 1) / parts);
    });
}

std::size_t available_cores() {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int count = CPU_COUNT(&set);
        if (count > 0) {
            return std::size_t(count);
        }
    }
#endif
    const unsigned count = std::thread::hardware_concurrency();
    return count > 0 ? count : 1;
}

std::size_t threads_for(std::ptrdiff_t bytes) {
    return bytes < parallel_threshold_bytes ? 1 : get_num_threads();
}

}  // namespace detail

void set_num_threads(std::size_t n) {
    if (n == 0) {
        throw std::invalid_argument("the number of threads must be at least 1");
    }
    detail::num_threads.store(n);
}

std::size_t get_num_threads() {
    const std::size_t n = detail::num_threads.load();
    return n != 0 ? n : detail::available_cores();
}

void fault_in(void* data, std::size_t bytes) {
#if defined(__linux__)
    constexpr int populate_write = 23;  // MADV_POPULATE_WRITE (Linux 5.14), absent from older headers
    constexpr std::uintptr_t unit = std::uintptr_t(2) << 20;  // a transparent huge page: one thread maps each
    if (bytes < fault_in_threshold_bytes) {
        return;
    }
    const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(data) / page * page;
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes + page - 1) / page * page;
    const std::uintptr_t first = begin / unit * unit;
    detail::parallel_ranges(std::ptrdiff_t((end - first + unit - 1) / unit), get_num_threads(),
                            [&](std::ptrdiff_t from, std::ptrdiff_t to) {
        const std::uintptr_t lo = std::max(begin, first + std::uintptr_t(from) * unit);
        const std::uintptr_t hi = std::min(end, first + std::uintptr_t(to) * unit);
        // An error (EINVAL before Linux 5.14) leaves the pages to the scan's first writes, as without the call.
        madvise(reinterpret_cast<void*>(lo), hi - lo, populate_write);
    });
#else
    (void)data;
    (void)bytes;
#endif
}

}  // namespace simdscan
