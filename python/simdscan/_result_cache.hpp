// New large results in memory that is mapped already: the pages of a freed large result are kept and handed to the
// next result of the same size. The kernel zeroes every page it maps anew (34 of the 52 ms of a new 400 MB float32
// cumsum on Zen 4), which no placement or prefetch avoids; only reuse does. The results stay ordinary arrays that own
// their memory: NumPy frees them through a NEP 49 memory handler that is NumPy's default one except for the sizes
// kept here. Included once, by _core.cpp.
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "simdscan/scan.hpp"

namespace py = pybind11;

namespace {

// NEP 49's handler as numpy/ndarraytypes.h lays it out (version 1: the layout is part of NumPy's ABI).
struct DataMemAllocator {
    void* ctx;
    void* (*malloc)(void* ctx, std::size_t size);
    void* (*calloc)(void* ctx, std::size_t nelem, std::size_t elsize);
    void* (*realloc)(void* ctx, void* ptr, std::size_t new_size);
    void (*free)(void* ctx, void* ptr, std::size_t size);
};
struct DataMemHandler {
    char name[127];
    std::uint8_t version;
    DataMemAllocator allocator;
};

// Results this large are kept; smaller ones come from glibc's heap, whose pages are mapped already.
constexpr std::size_t kept_result_min_bytes = simdscan::fault_in_threshold_bytes;

#if defined(__linux__)
// The default limit: 1 GiB, or an eighth of the memory where that is less.
std::size_t default_result_cache_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    const std::size_t eighth = pages > 0 && page > 0 ? std::size_t(pages) / 8 * std::size_t(page) : 0;
    return std::min(std::size_t(1) << 30, eighth);
}

// Lets the kernel take a kept block's pages back under memory pressure (MADV_FREE, Linux 4.5); until it does, they
// stay mapped and a write to them costs no fault. False where the kernel refuses: the block is then freed.
bool release_lazily(void* data, std::size_t bytes) {
    const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
    return end <= begin || madvise(reinterpret_cast<void*>(begin), end - begin, MADV_FREE) == 0;
}
#else
// Elsewhere kept pages could not be given back under pressure: nothing is kept unless asked for.
std::size_t default_result_cache_bytes() { return 0; }
bool release_lazily(void*, std::size_t) { return true; }
#endif

// The freed blocks kept for reuse, oldest first, at most limit() bytes in all. Locked: arrays are freed on
// whichever thread drops them, and free-threaded Python has no GIL to order them.
class ResultCache {
public:
    explicit ResultCache(const DataMemAllocator& system) : system_(system) {}

    std::size_t limit() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return limit_;
    }
    std::size_t kept_bytes() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return kept_bytes_;
    }
    void set_limit(std::size_t limit) {
        std::vector<Block> evicted;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            limit_ = limit;
            evict_to(limit_, evicted);
        }
        release(evicted);
    }

    // A kept block of exactly `bytes` (the size NumPy will free it with), or null.
    void* take(std::size_t bytes) {
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto found = std::find_if(kept_.rbegin(), kept_.rend(), [&](const Block& b) { return b.bytes == bytes; });
        if (found == kept_.rend()) {
            return nullptr;
        }
        void* data = found->data;
        kept_bytes_ -= bytes;
        kept_.erase(std::next(found).base());
        return data;
    }

    // Keeps a freed block, if it fits under the limit, evicting the oldest; gives back to NumPy what is not kept.
    void free(void* data, std::size_t bytes) {
        std::vector<Block> released{{data, bytes}};
        if (bytes >= kept_result_min_bytes && bytes <= limit() && release_lazily(data, bytes)) {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (bytes <= limit_) {
                released.clear();
                evict_to(limit_ - bytes, released);
                kept_.push_back({data, bytes});
                kept_bytes_ += bytes;
            }
        }
        release(released);
    }

private:
    struct Block {
        void* data;
        std::size_t bytes;
    };

    void evict_to(std::size_t bytes, std::vector<Block>& evicted) {
        std::size_t oldest = 0;
        while (kept_bytes_ > bytes) {
            kept_bytes_ -= kept_[oldest].bytes;
            evicted.push_back(kept_[oldest++]);
        }
        kept_.erase(kept_.begin(), kept_.begin() + std::ptrdiff_t(oldest));
    }
    void release(const std::vector<Block>& blocks) {
        for (const Block& b : blocks) {
            system_.free(system_.ctx, b.data, b.bytes);
        }
    }

    const DataMemAllocator system_;  // NumPy's default allocator: where every block comes from and goes back to
    std::mutex mutex_;
    std::vector<Block> kept_;
    std::size_t kept_bytes_ = 0;
    std::size_t limit_ = default_result_cache_bytes();
};

// NumPy's handler functions, looked up once at import; the cache exists only when NumPy's default handler was the
// current one then (a handler the user installed stays in charge of everything).
struct ResultMemory {
    PyObject* (*set_handler)(PyObject*);  // PyDataMem_SetHandler: NumPy's C API table, entry 304 (NumPy 1.22)
    PyObject* (*get_handler)();           // PyDataMem_GetHandler, entry 305
    const DataMemHandler* system;         // NumPy's default handler
    PyObject* cache_handler;              // the capsule of the handler below
    ResultCache cache;
};
ResultMemory* result_memory = nullptr;  // leaked on purpose: arrays are freed through it up to interpreter shutdown

const DataMemAllocator& system_allocator() { return result_memory->system->allocator; }

void* cached_malloc(void*, std::size_t size) {
    if (size >= kept_result_min_bytes) {
        if (void* data = result_memory->cache.take(size)) {
            return data;
        }
    }
    return system_allocator().malloc(system_allocator().ctx, size);
}
void* cached_calloc(void*, std::size_t nelem, std::size_t elsize) {
    return system_allocator().calloc(system_allocator().ctx, nelem, elsize);
}
void* cached_realloc(void*, void* ptr, std::size_t new_size) {
    return system_allocator().realloc(system_allocator().ctx, ptr, new_size);
}
void cached_free(void*, void* ptr, std::size_t size) {
    if (ptr != nullptr) {
        result_memory->cache.free(ptr, size);
    }
}

DataMemHandler cache_handler = {"simdscan_result_cache", 1,
                                {nullptr, cached_malloc, cached_calloc, cached_realloc, cached_free}};

void initialise_result_memory() {
    py::object core;
    try {
        core = py::module_::import("numpy._core._multiarray_umath");
    } catch (const py::error_already_set&) {
        core = py::module_::import("numpy.core._multiarray_umath");  // NumPy 1.x
    }
    auto** api = static_cast<void**>(py::capsule(core.attr("_ARRAY_API")).get_pointer());
    const auto get_handler = reinterpret_cast<PyObject* (*)()>(api[305]);
    // Kept for the process's life, as the default handler it names is.
    PyObject* current = get_handler();
    if (current == nullptr) {
        throw py::error_already_set();
    }
    const auto* system = static_cast<const DataMemHandler*>(PyCapsule_GetPointer(current, "mem_handler"));
    if (system == nullptr) {
        throw py::error_already_set();
    }
    if (std::string(system->name) != "default_allocator") {
        return;
    }
    PyObject* capsule = PyCapsule_New(&cache_handler, "mem_handler", nullptr);
    if (capsule == nullptr) {
        throw py::error_already_set();
    }
    result_memory = new ResultMemory{reinterpret_cast<PyObject* (*)(PyObject*)>(api[304]), get_handler, system,
                                     capsule, ResultCache(system->allocator)};
}

// While it lives, arrays of at least kept_result_min_bytes made on this thread take their memory through the cache.
class CachedResults {
public:
    explicit CachedResults(std::size_t bytes) {
        if (result_memory == nullptr || bytes < kept_result_min_bytes || result_memory->cache.limit() == 0) {
            return;
        }
        PyObject* current = result_memory->get_handler();
        if (current == nullptr) {
            throw py::error_already_set();
        }
        const bool system = PyCapsule_GetPointer(current, "mem_handler") == result_memory->system;
        Py_DECREF(current);
        if (!system) {  // a handler installed since import, for this context, stays in charge
            return;
        }
        previous_ = result_memory->set_handler(result_memory->cache_handler);
        if (previous_ == nullptr) {
            throw py::error_already_set();
        }
    }
    CachedResults(const CachedResults&) = delete;
    CachedResults& operator=(const CachedResults&) = delete;
    ~CachedResults() {
        if (previous_ != nullptr) {
            Py_XDECREF(result_memory->set_handler(previous_));
            Py_DECREF(previous_);
        }
    }

private:
    PyObject* previous_ = nullptr;
};

}  // namespace
