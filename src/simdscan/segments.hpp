// A segmented scan's segments (CumulativeOperatorDesc::reset): where each begins along a line, in scan order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

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
            // Eight flags a load while they are all clear: a line's flags are mostly clear, and a byte at a time
            // cost as much as the scan itself.
            for (; q + 8 <= n_; q += 8) {
                std::uint64_t word;
                std::memcpy(&word, step_ == 1 ? at(q) : at(q + 7), sizeof(word));
                if (word != 0) {
                    break;
                }
            }
        }
        for (; q < n_ && !flag(q); ++q) {
        }
        return q;
    }

private:
    // The flag that decides scan position q (q - shift_ >= 0 for q >= 1).
    const char* at(std::ptrdiff_t q) const { return flags_ + (q - shift_) * step_; }
    bool flag(std::ptrdiff_t q) const { return q < n_ && *at(q) != 0; }

    const char* flags_;
    std::ptrdiff_t step_;
    std::ptrdiff_t shift_;
    std::ptrdiff_t n_;
};

// Calls visit(begin, length) for each segment of the line whose reset flags start at `flags`, in scan order.
template <class Visit>
void for_each_segment(const Plan& plan, const char* flags, Visit&& visit) {
    const SegmentStarts starts(plan, flags);
    for (std::ptrdiff_t begin = 0; begin < plan.n;) {
        const std::ptrdiff_t end = starts.next(begin);
        visit(begin, end - begin);
        begin = end;
    }
}

}  // namespace detail
}  // namespace simdscan
