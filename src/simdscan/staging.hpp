// Staging: moves elements between the arrays and a compute-type buffer (gathers, byte swaps, float16 casts).
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "kernels.hpp"
#include "plan.hpp"

namespace simdscan {
namespace detail {

// Whether places `step` bytes apart from p form an aligned array of E: read or written as one array.
template <class E>
bool is_array_of(const char* p, std::ptrdiff_t step) {
    return step == std::ptrdiff_t(sizeof(E)) && reinterpret_cast<std::uintptr_t>(p) % alignof(E) == 0;
}

// The unsigned integer as wide as the unit whose bytes a byte swap reverses: complex numbers swap each component.
template <class S>
using SwapUnit = typename std::conditional<
    sizeof(S) == 2, std::uint16_t,
    typename std::conditional<sizeof(S) == 4 || std::is_same<S, std::complex<float>>::value, std::uint32_t,
                              std::uint64_t>::type>::type;

// A buffer of n trivial elements, left uninitialised (a std::vector's zeroing of the staging buffers was much of a
// small call's time: benchmarks/README.md) and allocated when first asked for: an indexed call whose arrays the
// kernels read and write in place never asks, where it had three mallocs and frees of a few KiB.
template <class T>
class LazyBuffer {
public:
    explicit LazyBuffer(std::size_t n) : n_(n) {}
    T* get() {
        if (!data_) {
            data_.reset(new T[n_]);
        }
        return data_.get();
    }

private:
    std::size_t n_;
    std::unique_ptr<T[]> data_;
};

// Moves up to `block` elements stored as S between the arrays and a buffer of C: gathers from any byte step,
// byte-swaps, converts float16 or an input of a narrower type (Plan::widen), and scatters back. Packed native runs
// are read and written in place.
template <class S, class C>
class Staging {
public:
    static constexpr std::ptrdiff_t block = std::min<std::ptrdiff_t>(1024, chunk_elements<C>());

    Staging(const Plan& plan, const KernelTable& table)
        : plan_(plan), table_(table),
          storage_(words(page + raw_bytes + half_page + std::size_t(block) * sizeof(C))) {}

    C* values() { return reinterpret_cast<C*>(raw_start() + raw_bytes + half_page); }

    // Whether load returns the elements at src, `step` bytes apart, where they lie: then for any count.
    bool loads_in_place(const char* src, std::ptrdiff_t step) const {
        return std::is_same<S, C>::value && is_array_of<S>(src, step) && !plan_.in_swapped && plan_.widen == nullptr;
    }
    // Whether compute-type values written at dst, `step` bytes apart, are the output as it is stored.
    bool stores_in_place(const char* dst, std::ptrdiff_t step) const {
        return std::is_same<S, C>::value && is_array_of<S>(dst, step) && !plan_.out_swapped;
    }
    // Moves the buffers so that the one read last before dst, `step` bytes apart, is written lies half a page (mod
    // 4096) from it: the one load fills where the kernel writes dst itself (stores_in_place, native type), else the
    // values that store copies to dst. Blocks of 4 KiB multiples kept their aliasing, and its stalls, all along a
    // line (benchmarks/README.md).
    void keep_apart_from(const char* dst, std::ptrdiff_t step) {
        const bool kernel_reads_raw = plan_.widen == nullptr && stores_in_place(dst, step);
        const std::size_t filled = kernel_reads_raw ? 0 : raw_bytes + half_page;
        const auto start = reinterpret_cast<std::uintptr_t>(storage_.get()) + filled;
        shift_ = (reinterpret_cast<std::uintptr_t>(dst) + half_page - start) % page / 64 * 64;
    }

    // Returns `count` elements from src, `step` bytes apart, in compute type; may point into the input itself.
    const C* load(const char* src, std::ptrdiff_t step, std::ptrdiff_t count) {
        if (plan_.widen != nullptr) {  // any step and alignment, native order (validate)
            plan_.widen(src, step, reinterpret_cast<char*>(values()), std::ptrdiff_t(sizeof(C)), count);
            return values();
        }
        const S* raw = reinterpret_cast<const S*>(src);
        if (!is_array_of<S>(src, step) || plan_.in_swapped) {
            S* gathered = raw_elements();
            if (is_array_of<S>(src, step)) {
                swap_into(src, gathered, count, false);  // packed runs come here only to be swapped
            } else {
                gather(src, step, count, gathered);
                if (plan_.in_swapped) {
                    swap_into(gathered, gathered, count, false);
                }
            }
            raw = gathered;
        }
        if constexpr (std::is_same<S, C>::value) {
            return raw;
        } else {
            table_.half_to_float(raw, values(), count);
            return values();
        }
    }

    // Stores `count` compute-type values to dst, `step` bytes apart; past the caches where `streams` and they go there
    // straight from the values (packed and byte-swapped: a native packed output is the kernel's own target).
    void store(const C* values, char* dst, std::ptrdiff_t step, std::ptrdiff_t count, bool streams) {
        if constexpr (std::is_same<S, C>::value) {
            // Straight from the values: no copy through the raw elements first.
            if (!is_array_of<S>(dst, step) && !plan_.out_swapped) {
                scatter(values, dst, step, count);
                return;
            }
            if (is_array_of<S>(dst, step) && plan_.out_swapped) {
                swap_into(values, dst, count, streams);
                return;
            }
        }
        const bool direct = is_array_of<S>(dst, step) && !plan_.out_swapped;
        S* raw = direct ? reinterpret_cast<S*>(dst) : raw_elements();
        if constexpr (std::is_same<S, C>::value) {
            std::memcpy(raw, values, std::size_t(count) * sizeof(S));
        } else {
            table_.float_to_half(values, raw, count);
        }
        if (direct) {
            return;
        }
        if (plan_.out_swapped) {
            swap_into(raw_elements(), raw_elements(), count, false);
        }
        if (is_array_of<S>(dst, step)) {
            std::memcpy(dst, raw_elements(), std::size_t(count) * sizeof(S));
        } else {
            scatter(raw_elements(), dst, step, count);
        }
    }

private:
    // Element by element through local pointers: a store through char* may alias any member, which the compiler
    // would otherwise reload in every iteration.
    // Four elements an iteration: with one, the loop's speed hung on where it lay in the code, and changes elsewhere
    // moved it (benchmarks/README.md).
    static void gather(const char* src, std::ptrdiff_t step, std::ptrdiff_t count, S* to) {
        std::ptrdiff_t i = 0;
        for (; i + 4 <= count; i += 4) {
            std::memcpy(to + i, src + i * step, sizeof(S));
            std::memcpy(to + i + 1, src + (i + 1) * step, sizeof(S));
            std::memcpy(to + i + 2, src + (i + 2) * step, sizeof(S));
            std::memcpy(to + i + 3, src + (i + 3) * step, sizeof(S));
        }
        for (; i < count; ++i) {
            std::memcpy(to + i, src + i * step, sizeof(S));
        }
    }
    static void scatter(const S* from, char* dst, std::ptrdiff_t step, std::ptrdiff_t count) {
        for (std::ptrdiff_t i = 0; i < count; ++i) {
            std::memcpy(dst + i * step, from + i, sizeof(S));
        }
    }

    // Copies `count` elements with their bytes reversed (past the caches where `streams`).
    void swap_into(const void* from, void* to, std::ptrdiff_t count, bool streams) const {
        if constexpr (sizeof(S) > 1) {  // one-byte elements have no byte order
            table_.copy_byteswapped[byteswap_slot(sizeof(SwapUnit<S>))](
                from, to, count * std::ptrdiff_t(sizeof(S) / sizeof(SwapUnit<S>)), streams);
        }
    }

    // Stored-type elements (gathered, byte-swapped or converted) from shift_ into storage_, compute-type values
    // half a page after them (mod 4096): kernels read one buffer while writing the other, and a load that aliases a
    // recent store's address modulo 4096 stalls (as two 4 KiB vectors 16 bytes apart did: benchmarks/README.md).
    static constexpr std::size_t page = 4096;
    static constexpr std::size_t half_page = 2048;
    static constexpr std::size_t raw_bytes = (std::size_t(block) * sizeof(S) + page - 1) / page * page;
    static std::size_t words(std::size_t bytes) {
        return (bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
    }
    char* raw_start() { return reinterpret_cast<char*>(storage_.get()) + shift_; }
    S* raw_elements() { return reinterpret_cast<S*>(raw_start()); }

    const Plan& plan_;
    const KernelTable& table_;
    LazyBuffer<std::max_align_t> storage_;  // a page more than the buffers: room to move them (keep_apart_from)
    std::size_t shift_ = 0;
};

}  // namespace detail
}  // namespace simdscan
