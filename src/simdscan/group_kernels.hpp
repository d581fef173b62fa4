// The grouped kernel (StepwiseKernels::scan_groups): each element advances the running state of its group, one element
// at a time in the walk's order, as a line of the group's elements alone would be scanned element by element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "groups.hpp"
#include "indexed_kernels.hpp"
#include "ops.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// Walks a grouped span's labels: the code of each (GroupLookup), from the array where the line has met the label, else
// from the table, after which the array is read again. The walk's fields in locals: read from the struct, they were
// loaded again for every element.
class GroupCodes {
public:
    explicit GroupCodes(const GroupLabels& labels)
        : at_(labels.first), step_(labels.step), lookup_(labels.lookup), small_(lookup_.small),
          small_size_(lookup_.small_size) {}

    // The next label's code.
    GroupCode next() {
        std::int64_t label;
        std::memcpy(&label, at_, sizeof(label));
        at_ += step_;
        if (std::uint64_t(label) < small_size_ && small_[label] != 0) {
            return small_[label] - 1;
        }
        // (Not through a member function: `this` would escape, and the fields be stored and loaded each element.)
        const GroupCode code = lookup_.code_of(lookup_, label);
        small_ = lookup_.small;
        small_size_ = lookup_.small_size;
        return code;
    }

private:
    const char* at_;
    std::ptrdiff_t step_;
    GroupLookup& lookup_;
    const GroupCode* small_;
    std::uint64_t small_size_;
};

// scan_groups with the suppliers' positions (walk.positions), for the ops that write indices: each group's running
// value and supplier kept in the walk's arrays.
template <class T, class Op>
void scan_groups_indexed(const T* in, T* out, std::ptrdiff_t n, const GroupWalk<T>& walk, bool exclusive, T identity,
                         T order_key) {
    GroupCodes codes(walk.labels);
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        const T x = keyed<Op>(in[i], order_key);
        const GroupCode code = codes.next();
        const GroupCode group = code & ~first_in_line;
        T& running = walk.states[group];
        GroupSupplier& supplier = walk.suppliers[group];
        if (code != group) {
            running = Op::template neutral<T>();
            supplier = GroupSupplier{-1, false};
        }
        const T before = code != group ? identity : keyed<Op>(running, order_key);
        const std::int64_t supplied = supplier.position;
        running = Op::apply(running, x);
        find_supplier(x, running, walk.first + i, supplier.position, supplier.reached_nan);
        out[i] = exclusive ? before : keyed<Op>(running, order_key);
        walk.positions[i] = exclusive ? supplied : supplier.position;
    }
}

// StepwiseKernels::scan_groups. The last element's group keeps its state in a register: a run of one group (sorted or
// few labels) then waits on the op alone, not on a store and a load of its state each element.
template <class T, class Op>
void scan_groups(const T* in, T* out, std::ptrdiff_t n, const GroupWalk<typename Op::template state<T>>& walk,
                 bool exclusive, T identity, T order_key) {
    using State = typename Op::template state<T>;
    if constexpr (Op::writes_indices) {
        if (walk.positions != nullptr) {
            return scan_groups_indexed<T, Op>(in, out, n, walk, exclusive, identity, order_key);
        }
    }
    GroupCodes codes(walk.labels);
    State* const states = walk.states;
    // Group 0's slot stands for the state before the first element: written back unread, or overwritten by the
    // group's first element (its code has first_in_line, so it never equals `current`).
    GroupCode current = 0;
    State running = states[0];
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        const T x = keyed<Op>(in[i], order_key);  // read before out[i], which may be the same element, is written
        const GroupCode code = codes.next();
        const GroupCode group = code & ~first_in_line;
        if (code != current) {
            states[current] = running;
            current = group;
            running = code != group ? Op::template neutral<T>() : states[group];
        }
        // The empty range's value is the identity (+0.0 for sums, true for a running minimum of bool), not the
        // neutral the state starts from.
        const T before = exclusive && code == group ? keyed<Op>(output_of<Op, T>(running), order_key) : identity;
        running = Op::apply(running, Op::lift(Op::admit(x)));
        out[i] = exclusive ? before : keyed<Op>(output_of<Op, T>(running), order_key);
    }
    states[current] = running;
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
