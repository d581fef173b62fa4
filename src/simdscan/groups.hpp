// A grouped scan's groups (CumulativeOperatorDesc::labels): each line's distinct labels numbered as the walk meets
// them, so that the kernels keep one running state per group in an array (StepwiseKernels::scan_groups).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace simdscan {
namespace detail {

// An element's group as the grouped kernels read it: the group's number in its line, with first_in_line set at the
// group's first element in the walk (its state then starts from the op's neutral).
using GroupCode = std::uint64_t;
constexpr GroupCode first_in_line = GroupCode(1) << 63;

// A group's supplier in a grouped extremum with indices: the scan position that supplied its running value (-1: none
// yet), and whether a NaN has (from then on the supplier stays), as ScanState's for a line.
struct GroupSupplier {
    std::int64_t position;
    bool reached_nan;
};

// What the grouped kernels read of a line's groups: the codes of labels below small_size that the line has met, in an
// array (group + 1, 0 for a label not met yet), and a call that codes any other label (numbering it where new: its
// code then has first_in_line), which may move `small` and raise small_size.
struct GroupLookup {
    const GroupCode* small = nullptr;
    std::uint64_t small_size = 0;
    GroupCode (*code_of)(GroupLookup& lookup, std::int64_t label) = nullptr;
};

// A grouped span's labels: the first in scan order (native int64, any alignment), the bytes from one to the next in
// scan order, and the line's groups.
struct GroupLabels {
    const char* first;
    std::ptrdiff_t step;
    GroupLookup& lookup;
};

// A grouped span as the grouped kernel walks it (StepwiseKernels::scan_groups): its labels, and each group's running
// state.
template <class State>
struct GroupWalk {
    GroupLabels labels;
    State* states;             // by group number, with room for every group the span may add
    GroupSupplier* suppliers;  // the same, where the job writes indices
    std::int64_t* positions;   // the span's suppliers' scan positions, where the job writes indices (else null)
    std::int64_t first;        // the span's first scan position
};

// Numbers the labels of one line in the order the walk meets them. Labels below small_limit are looked up in an
// array (pandas' codes and most keys: no hash, no probe), the others in an open-addressing hash table; both hold
// only what the line's labels need, so memory follows the distinct labels, never the largest one.
class GroupTable : public GroupLookup {
public:
    GroupTable() { code_of = &code_of_table; }
    GroupTable(const GroupTable&) = delete;
    GroupTable& operator=(const GroupTable&) = delete;

    // The groups met since the last clear.
    std::size_t size() const { return labels_.size(); }

    // Forgets the line's groups: the next line's are numbered from 0 again.
    void clear() {
        for (const std::int64_t label : labels_) {
            if (is_small(label)) {
                small_[std::size_t(label)] = 0;
            }
        }
        if (hashed_ != 0) {
            // Every slot in use is this line's: all emptied at once (one by one would cut other labels' probe
            // chains), in a table no larger than this line needed, for lines with fewer labels after it.
            empty_slots(std::min(slots_.size(), slots_for(hashed_)));
        }
        labels_.clear();
        hashed_ = 0;
    }

private:
    static constexpr std::int64_t small_limit = std::int64_t(1) << 16;

    // One entry of the hash table: a label and its group number + 1 (0: empty).
    struct Slot {
        std::int64_t label = 0;
        GroupCode group = 0;
    };

    static GroupCode code_of_table(GroupLookup& lookup, std::int64_t label) {
        GroupTable& table = static_cast<GroupTable&>(lookup);
        return is_small(label) ? table.small_code(label) : table.hashed_code(label);
    }

    static bool is_small(std::int64_t label) { return std::uint64_t(label) < std::uint64_t(small_limit); }

    GroupCode add(std::int64_t label) {
        labels_.push_back(label);
        return GroupCode(labels_.size() - 1);
    }

    GroupCode small_code(std::int64_t label) {
        if (std::size_t(label) >= small_.size()) {
            // Grown to the labels met (a power of two, at least 1024 entries), up to small_limit.
            small_.resize(std::max<std::size_t>(1024, std::size_t(1) << bit_width(std::uint64_t(label))));
            small = small_.data();
            small_size = small_.size();
        }
        GroupCode& entry = small_[std::size_t(label)];
        if (entry != 0) {
            return entry - 1;
        }
        const GroupCode group = add(label);
        entry = group + 1;
        return group | first_in_line;
    }

    GroupCode hashed_code(std::int64_t label) {
        if (2 * (hashed_ + 1) > slots_.size()) {
            std::vector<Slot> old = std::move(slots_);
            empty_slots(slots_for(hashed_ + 1));
            for (const Slot& slot : old) {
                if (slot.group != 0) {
                    slots_[find(slot.label)] = slot;
                }
            }
        }
        Slot& slot = slots_[find(label)];
        if (slot.group != 0) {
            return slot.group - 1;
        }
        const GroupCode group = add(label);
        slot = Slot{label, group + 1};
        ++hashed_;
        return group | first_in_line;
    }

    // The slot that holds `label`, or the empty one where it would go (linear probing; the table is at most half
    // full).
    std::size_t find(std::int64_t label) const {
        const std::size_t mask = slots_.size() - 1;
        // Fibonacci hashing: the product's high bits depend on every bit of the label.
        std::size_t at = std::size_t((std::uint64_t(label) * 0x9E3779B97F4A7C15u) >> shift_) & mask;
        while (slots_[at].group != 0 && slots_[at].label != label) {
            at = (at + 1) & mask;
        }
        return at;
    }

    // Slots for n labels: at most half full, a power of two, at least 64.
    static std::size_t slots_for(std::size_t n) {
        return std::max<std::size_t>(64, std::size_t(1) << bit_width(2 * n - 1));
    }

    void empty_slots(std::size_t size) {
        slots_.assign(size, Slot{});
        shift_ = 64 - unsigned(bit_width(size - 1));
    }

    static int bit_width(std::uint64_t x) {
        int bits = 0;
        for (; x != 0; x >>= 1) {
            ++bits;
        }
        return bits;
    }

    std::vector<GroupCode> small_;  // group + 1 of each small label met (0: none)
    std::vector<Slot> slots_;       // the other labels' groups, a power of two of slots
    unsigned shift_ = 64;
    std::size_t hashed_ = 0;           // labels in slots_
    std::vector<std::int64_t> labels_;  // each group's label, by group number
};

}  // namespace detail
}  // namespace simdscan
