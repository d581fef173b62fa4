// A persistent pool of worker threads (no OpenMP runtime to ship). Safe after fork(): a child starts a new pool.
#pragma once

#include <cstddef>
#include <functional>

namespace simdscan {
namespace detail {

// Runs task(i) for every i in [0, count) on up to `threads` threads, the caller's included, and returns when all
// are done. The first exception a task throws is rethrown here. When the pool is busy with another caller's job,
// the tasks run on the calling thread instead of waiting.
void parallel_for(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& task);

// The cores this process may run on.
std::size_t available_cores();

}  // namespace detail
}  // namespace simdscan
