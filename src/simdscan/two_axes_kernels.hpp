// The row kernel of a summed-area table in one pass (two_axes_path.hpp): the step along the column and the scan of
// the row it gives, in one loop over the row.
#pragma once

#include <cstddef>

#include "scan_kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// A row's elements as the step along the column leaves them, were it a pass of its own (the outer path's): the
// column's running value carry op in, which the carry row then holds; the value before it for an exclusive column;
// the identity (+0.0, not the neutral -0.0) on an exclusive column's first row.
template <class T, class Op>
struct ColumnStepElements {
    const T* in;
    T* carry;
    bool column_exclusive;
    bool identity_row;

    template <class B>
    B vector(std::ptrdiff_t at) const {
        const B before = load_vector<B>(carry + at);
        const B after = Op::apply(before, load_vector<B>(in + at));
        store_vector(carry + at, after);
        return identity_row ? B(Op::template identity<T>()) : column_exclusive ? before : after;
    }
    T one(std::ptrdiff_t at) const {
        const T before = carry[at];
        const T after = Op::apply(before, in[at]);
        carry[at] = after;
        return identity_row ? Op::template identity<T>() : column_exclusive ? before : after;
    }
    const T* address(std::ptrdiff_t at) const { return in + at; }
};

// One row of n contiguous elements: the column step from `carry` (n running values, updated), then the row's scan
// into out, with the direct path's arithmetic (scan_line over one row).
template <class A, class T, class Op, bool Reverse>
void scan_row_after_column(const T* in, T* carry, T* out, std::ptrdiff_t n, bool row_exclusive,
                           bool column_exclusive, bool identity_row) {
    const ColumnStepElements<T, Op> elements{in, carry, column_exclusive, identity_row};
    const T neutral = Op::template neutral<T>();
    if (row_exclusive) {
        scan_steps<A, T, Op, Reverse, true, false>(elements, out, n, neutral, neutral);
        // The empty range's value is the identity (+0.0 for sums), not the internal neutral -0.0.
        out[Reverse ? n - 1 : 0] = Op::template identity<T>();
    } else {
        scan_steps<A, T, Op, Reverse, false, false>(elements, out, n, neutral, neutral);
    }
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
