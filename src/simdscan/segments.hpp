// A segmented scan's segments (CumulativeOperatorDesc::reset): where each begins along a line, in scan order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "function_ref.hpp"
#include "plan.hpp"

namespace simdscan {
namespace detail {

// The reset flags of one line as its scan walks it: scan position q begins a segment where the element that the
// flags mark as beginning one in index order is q's own (an increasing walk) or the one walked just before it (a
// decreasing walk, which meets each segment's last element first).
class SegmentStarts {
public:
    SegmentStarts(const Plan& plan, const char* flags)
        : flags_(flags), step_(plan.step[Role::reset]), shift_(plan.decreasing ? 1 : 0), n_(plan.n) {}

    // The first scan position in (from, n) that begins a segment, or n.
    std::ptrdiff_t next(std::ptrdiff_t from) const {
        std::ptrdiff_t q = from + 1;
        if (step_ == 0) {
            return flag(q) ? q : n_;
        }
        if (step_ == 1 || step_ == -1) {
            // Eight flags a load, the first set one found in the word, and past the first 32 flags 32 a test while
            // they are clear: a byte at a time cost as much as the scan, a word at a time a tenth of it.
            const auto word_at = [&](std::ptrdiff_t p) {
                std::uint64_t word;
                std::memcpy(&word, step_ == 1 ? at(p) : at(p + 7), sizeof(word));
                return word;
            };
            for (const std::ptrdiff_t near = q + 32; q + 8 <= n_; q += 8) {
                if (const std::uint64_t word = word_at(q)) {
                    return q + first_set_byte(word, step_ == 1);
                }
                for (; q >= near && q + 40 <= n_; q += 32) {
                    if ((word_at(q + 8) | word_at(q + 16) | word_at(q + 24) | word_at(q + 32)) != 0) {
                        break;
                    }
                }
            }
        }
        for (; q < n_ && !flag(q); ++q) {
        }
        return q;
    }

private:
    // Which of a nonzero word's eight bytes (as loaded from memory) comes first at the lowest address (`lowest`) or
    // at the highest.
    static std::ptrdiff_t first_set_byte(std::uint64_t word, bool lowest) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        return lowest ? __builtin_ctzll(word) / 8 : __builtin_clzll(word) / 8;
#else
        unsigned char bytes[sizeof(word)];
        std::memcpy(bytes, &word, sizeof(word));
        std::ptrdiff_t k = 0;
        while (bytes[lowest ? k : 7 - k] == 0) {
            ++k;
        }
        return k;
#endif
    }

    // The flag that decides scan position q (q - shift_ >= 0 for q >= 1).
    const char* at(std::ptrdiff_t q) const { return flags_ + (q - shift_) * step_; }
    bool flag(std::ptrdiff_t q) const { return q < n_ && *at(q) != 0; }

    const char* flags_;
    std::ptrdiff_t step_;
    std::ptrdiff_t shift_;
    std::ptrdiff_t n_;
};

// Segments shorter than this (4 KiB of elements, at most a staging block's 1024) are scanned a batch at a time
// (TypedKernels::scan_segments), their outputs kept in the caches: a call each cost more than their scans, and the
// ends of a streamed span are a round trip each. The same in every layout: it decides how a float segment rounds.
template <class C>
constexpr std::ptrdiff_t short_segment() {
    return std::ptrdiff_t(std::min<std::size_t>(4096 / sizeof(C), 1024));
}

// Consecutive short segments of a line, to be scanned in one call: where the first begins, and their lengths.
struct SegmentBatch {
    static constexpr std::ptrdiff_t capacity = 256;
    std::ptrdiff_t begin = 0;
    std::ptrdiff_t total = 0;  // their elements
    std::ptrdiff_t count = 0;
    std::ptrdiff_t lengths[capacity];
};

// Calls scan_batch(batch) for the short segments (shorter than `short_length`) that begin at scan positions
// [from, to) of a line, consecutive ones together up to `batch_elements`, and scan_other(begin, length) for the
// others, in scan order; a segment begins at `from`.
inline void for_each_segment(const SegmentStarts& starts, std::ptrdiff_t short_length, std::ptrdiff_t batch_elements,
                             std::ptrdiff_t from, std::ptrdiff_t to,
                             FunctionRef<void(const SegmentBatch& batch)> scan_batch,
                             FunctionRef<void(std::ptrdiff_t begin, std::ptrdiff_t length)> scan_other) {
    SegmentBatch batch;
    const auto flush = [&] {
        if (batch.count > 0) {
            scan_batch(batch);
            batch.total = batch.count = 0;
        }
    };
    for (std::ptrdiff_t begin = from; begin < to;) {
        const std::ptrdiff_t end = starts.next(begin);
        const std::ptrdiff_t length = end - begin;
        if (length < short_length) {
            if (batch.count == SegmentBatch::capacity || batch.total + length > batch_elements) {
                flush();
            }
            if (batch.count == 0) {
                batch.begin = begin;
            }
            batch.lengths[batch.count++] = length;
            batch.total += length;
        } else {
            flush();
            scan_other(begin, length);
        }
        begin = end;
    }
    flush();
}

}  // namespace detail
}  // namespace simdscan
