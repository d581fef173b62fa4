// The row kernels of a summed-area table in one pass (two_axes_path.hpp): the step along the column and the scan of
// the row, in either order, in one loop over the row.
#pragma once

#include <cstddef>
#include <type_traits>

#include "scan_kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// The step along the column, were it a pass of its own (the outer path's), on a row's values: the column's
// running value carry op value, which the carry row then holds; the value before it for an exclusive column; the
// identity (+0.0, not the neutral -0.0) on an exclusive column's first row.
template <class T, class Op>
struct ColumnStep {
    T* carry;
    bool column_exclusive;
    bool identity_row;

    template <class V>  // T, or a vector of T
    V apply(std::ptrdiff_t at, const V& value) const {
        constexpr bool one = std::is_same<V, T>::value;
        V before;
        if constexpr (one) {
            before = carry[at];
        } else {
            before = load_vector<V>(carry + at);
        }
        const V after = Op::apply(before, value);
        if constexpr (one) {
            carry[at] = after;
        } else {
            store_vector(carry + at, after);
        }
        return identity_row ? V(Op::template identity<T>()) : column_exclusive ? before : after;
    }
};

// The column first: the row's elements are the step's values on the input row.
template <class T, class Op>
struct ColumnStepElements {
    static constexpr bool prefetches = true;  // as ArrayElements
    const T* in;
    ColumnStep<T, Op> step;

    template <class B>
    B vector(std::ptrdiff_t at) const { return step.apply(at, load_vector<B>(in + at)); }
    T one(std::ptrdiff_t at) const { return step.apply(at, in[at]); }
    const T* address(std::ptrdiff_t at) const { return in + at; }
};

// The row first: its scan's outputs go through the step on their way to the output row.
template <class T, class Op>
struct ColumnStepOutputs {
    using value_type = T;  // what one() takes
    T* out;
    ColumnStep<T, Op> step;

    template <class B>
    void vector(std::ptrdiff_t at, const B& values) const { store_vector(out + at, step.apply(at, values)); }
    void one(std::ptrdiff_t at, T value) const { out[at] = step.apply(at, value); }
};

// One row of n contiguous elements and its step along the column (from and into `carry`, n running values), the
// row's scan with the direct path's arithmetic (scan_line over one row), into out.
template <class A, class T, class Op, bool RowsFirst, bool Reverse>
void scan_two_axes_row(const T* in, T* carry, T* out, std::ptrdiff_t n, bool row_exclusive, bool column_exclusive,
                       bool identity_row) {
    const ColumnStep<T, Op> step{carry, column_exclusive, identity_row};
    const T neutral = Op::template neutral<T>();
    const T identity = Op::template identity<T>();
    const std::ptrdiff_t first = Reverse ? n - 1 : 0;
    if constexpr (RowsFirst) {
        const ColumnStepOutputs<T, Op> outputs{out, step};
        if (row_exclusive) {
            scan_steps<A, T, Op, Reverse, true, false>(ArrayElements<T>{in}, outputs, n, neutral, neutral);
            // The row's first value went through the step as the neutral (x op neutral is x), not as the identity
            // that the row's own scan stores there (+0.0 for sums): the step again with it.
            carry[first] = Op::apply(carry[first], identity);
            if (!column_exclusive && !identity_row) {
                out[first] = carry[first];
            }
        } else {
            scan_steps<A, T, Op, Reverse, false, false>(ArrayElements<T>{in}, outputs, n, neutral, neutral);
        }
    } else {
        const ColumnStepElements<T, Op> elements{in, step};
        if (row_exclusive) {
            scan_steps<A, T, Op, Reverse, true, false>(elements, ArrayOutputs<T>{out}, n, neutral, neutral);
            // The empty range's value is the identity (+0.0 for sums), not the internal neutral -0.0.
            out[first] = identity;
        } else {
            scan_steps<A, T, Op, Reverse, false, false>(elements, ArrayOutputs<T>{out}, n, neutral, neutral);
        }
    }
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
