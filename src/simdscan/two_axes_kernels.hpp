// The row kernels of a summed-area table in one pass (two_axes_path.hpp): the step along the column and the scan of
// the row, in either order, in one loop over the row.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "scan_kernels.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// The step along the column, were it a pass of its own (the outer path's), on a row's values: the column's
// running value before op value, which carries.after then holds (unless the output row does); the value before it
// for an exclusive column; the identity (+0.0, not the neutral -0.0) on an exclusive column's first row.
template <class T, class Op>
struct ColumnStep {
    ColumnCarries<T> carries;
    bool column_exclusive;
    bool identity_row;

    template <class V>  // T, or a vector of T
    V apply(std::ptrdiff_t at, const V& value) const {
        constexpr bool one = std::is_same<V, T>::value;
        V before;
        if constexpr (one) {
            before = carries.before[at];
        } else {
            before = load_vector<V>(carries.before + at);
        }
        const V after = Op::apply(before, value);
        if (carries.after != nullptr) {
            if constexpr (one) {
                carries.after[at] = after;
            } else {
                store_vector(carries.after + at, after);
            }
        }
        return identity_row ? V(Op::template identity<T>()) : column_exclusive ? before : after;
    }
};

// A row of an input of a narrower type (scan.hpp's widens_exactly), converted a block at a time, in the order the
// row's scan meets it, into a block that stays in L1 (a whole converted row beside the carry row would not).
template <class T, bool Reverse>
struct WidenedElements {
    static constexpr bool prefetches = false;  // at_least asks for the input ahead, a block at a time
    static constexpr std::ptrdiff_t block = 256;
    const char* in;
    std::ptrdiff_t in_size;  // bytes of an input element
    std::ptrdiff_t n;
    WidenFn widen;
    T* converted;                // `block` elements: those of [begin, begin + block)
    std::ptrdiff_t* begin;       // -block before the first conversion (the elements are const to scan_steps)

    const T* at_least(std::ptrdiff_t at, std::ptrdiff_t count) const {
        if (at < *begin || at + count > *begin + block) {
            *begin = Reverse ? std::max<std::ptrdiff_t>(at + count - block, 0) : at;
            const char* from = in + *begin * in_size;
            for (std::ptrdiff_t line = 0; line < block * in_size; line += 64) {
                prefetch_ahead<Reverse>(from + line);  // as ArrayElements' readers ask
            }
            widen(from, in_size, reinterpret_cast<char*>(converted), std::ptrdiff_t(sizeof(T)),
                  std::min(block, n - *begin));
        }
        return converted + (at - *begin);
    }
    template <class B>
    B vector(std::ptrdiff_t at) const { return load_vector<B>(at_least(at, std::ptrdiff_t(B::size))); }
    T one(std::ptrdiff_t at) const { return *at_least(at, 1); }
    const T* address(std::ptrdiff_t at) const { return at_least(at, 1); }
};

// The column first: the row's elements are the step's values on the input row (Source: its elements).
template <class T, class Op, class Source>
struct ColumnStepElements {
    static constexpr bool prefetches = Source::prefetches;
    Source in;
    ColumnStep<T, Op> step;

    template <class B>
    B vector(std::ptrdiff_t at) const { return step.apply(at, in.template vector<B>(at)); }
    T one(std::ptrdiff_t at) const { return step.apply(at, in.one(at)); }
    const T* address(std::ptrdiff_t at) const { return in.address(at); }
};

// A row of uint8 values, scanned in int32 lanes (S: int32 or its unsigned twin), where a sum of them is exact
// (two_axes_byte_row): twice the lanes of a float64 row's scan, and no conversion through memory. Prefetches: as
// ArrayElements'.
template <bool Prefetches = true>
struct ByteRow {
    static constexpr bool prefetches = Prefetches;
    const std::uint8_t* in;
};

// A row's source, asking for the input ahead only where the table streams (Prefetches): the requests slowed a table
// that stays in the caches, and a streamed one was slower without them (benchmarks/README.md).
template <bool Prefetches, class T, bool Asked>
ArrayElements<T, Prefetches> asking_ahead(const ArrayElements<T, Asked>& row) {
    return {row.in};
}
template <bool Prefetches, bool Asked>
ByteRow<Prefetches> asking_ahead(const ByteRow<Asked>& row) {
    return {row.in};
}
template <bool Prefetches, class Source>  // WidenedElements ask a block at a time, whatever the table
const Source& asking_ahead(const Source& row) {
    return row;
}

// The running sums of the uint8 values at p in scan order, two registers' worth (first: the first half's), by the
// ISA's byte_sums where it has one, else by scanning load_bytes' registers.
template <class A, bool Reverse, class S>
void byte_sums(const std::uint8_t* p, xsimd::batch<S, A>& first, xsimd::batch<S, A>& second) {
    using B = xsimd::batch<S, A>;
    if constexpr (Lanes<A>::sums_bytes) {
        xsimd::batch<std::int32_t, A> low;
        xsimd::batch<std::int32_t, A> high;
        Lanes<A>::template byte_sums<Reverse>(p, low, high);
        first = bits_as<S>(low);
        second = bits_as<S>(high);
    } else {
        const B zero(S(0));
        first = vector_prefix<A, Summation, Reverse, 1, B::size>(bits_as<S>(Lanes<A>::load_bytes(p)), zero);
        second = vector_prefix<A, Summation, Reverse, 1, B::size>(bits_as<S>(Lanes<A>::load_bytes(p + B::size)), zero);
        if constexpr (Reverse) {
            first += Lanes<A>::broadcast_first(second);
        } else {
            second += Lanes<A>::broadcast_last(first);
        }
    }
}

// The row first: its scan's outputs (of S: T, or the int32 of a ByteRow, each vector two of float64) go
// through the step on their way to the output row (Outputs: its stores, which take them in scan order).
template <class A, class T, class Op, bool Reverse, class Outputs, class S = T>
struct ColumnStepOutputs {
    using value_type = S;  // what one() takes
    Outputs out;
    ColumnStep<T, Op> step;

    template <class B>
    void vector(std::ptrdiff_t at, const B& values) {
        if constexpr (std::is_same<S, T>::value) {
            out.vector(at, step.apply(at, values));
        } else {
            static_assert(std::is_same<S, std::int32_t>::value && std::is_same<T, double>::value, "int32 to float64");
            constexpr std::ptrdiff_t half = std::ptrdiff_t(xsimd::batch<double, A>::size);
            xsimd::batch<double, A> first;
            xsimd::batch<double, A> second;
            Lanes<A>::to_doubles(values, first, second);
            if constexpr (Reverse) {
                out.vector(at + half, step.apply(at + half, second));
                out.vector(at, step.apply(at, first));
            } else {
                out.vector(at, step.apply(at, first));
                out.vector(at + half, step.apply(at + half, second));
            }
        }
    }
    void one(std::ptrdiff_t at, S value) { out.one(at, step.apply(at, T(value))); }
    void finish_vectors() { SIMDSCAN_TIER::finish_vectors(out, 0); }
};

// The row's own scan into outputs (which take its values in scan order): scan_steps' arithmetic.
template <class A, class S, bool Reverse, bool Exclusive, class Op, class Source, class Outputs>
void scan_row(const Source& in, Outputs outputs, std::ptrdiff_t n) {
    const S neutral = Op::template neutral<S>();
    scan_steps<A, S, Op, Reverse>(in, outputs, n, neutral, neutral, SpanModes{Exclusive, false});
}

// A uint8 row's: byte_sums two registers at a time (an exclusive output is the inclusive one less its own value).
// Inlined: outputs passed by value through the stack cost a failed store forwarding per row (benchmarks/README.md).
template <class A, class S, bool Reverse, bool Exclusive, class Op, class Outputs, bool Prefetches>
SIMDSCAN_ALWAYS_INLINE void scan_row(const ByteRow<Prefetches>& row, Outputs outputs, std::ptrdiff_t n) {
    static_assert(std::is_same<Op, Summation>::value && std::is_integral<S>::value, "exact sums of bytes");
    using B = xsimd::batch<S, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    B running(S(0));
    std::ptrdiff_t done = 0;
    for (; done + 2 * lanes <= n; done += 2 * lanes) {
        const std::ptrdiff_t at = Reverse ? n - done - 2 * lanes : done;
        if constexpr (Prefetches) {
            prefetch_ahead<Reverse>(row.in + at);
        }
        B first;
        B second;
        byte_sums<A, Reverse>(row.in + at, first, second);
        // The carry chain is one add per pair: the broadcast total is computed off it.
        const B total = broadcast_total<A, Reverse>(Reverse ? first : second);
        if constexpr (Exclusive) {
            first -= bits_as<S>(Lanes<A>::load_bytes(row.in + at));
            second -= bits_as<S>(Lanes<A>::load_bytes(row.in + at + lanes));
        }
        first += running;
        second += running;
        running += total;
        if constexpr (Reverse) {
            outputs.vector(at + lanes, second);
            outputs.vector(at, first);
        } else {
            outputs.vector(at, first);
            outputs.vector(at + lanes, second);
        }
    }
    finish_vectors(outputs, 0);
    S carry = first_lane(running);
    for (; done < n; ++done) {
        const std::ptrdiff_t at = Reverse ? n - 1 - done : done;
        const S next = S(carry + row.in[at]);
        outputs.one(at, Exclusive ? carry : next);
        carry = next;
    }
}

// Whether a table's rows of T can go past the caches: where the line scans stream theirs, and with elements of 4 or
// 8 bytes, which RealignedOutputs moves in registers (a row's vectors sit where its start puts them, not aligned).
template <class A, class T, class Op>
constexpr bool streams_two_axes_rows() {
    return streams_lines<A, T, Op>() && (sizeof(T) == 4 || sizeof(T) == 8);
}

// One row of n contiguous elements (Source: the row's elements) and its step along the column (from and into
// `carries`, n running values), the row's scan with the direct path's arithmetic (scan_line over one row), into out
// (Streams: past the caches, streams_two_axes_rows). The row's scan runs in S, T or (rows first) a type whose sums
// convert to T exactly.
template <class A, class T, class Op, bool RowsFirst, bool Reverse, bool Streams, class Source, class S = T>
void scan_two_axes_row_of(const Source& in, ColumnCarries<T> carries, T* out, std::ptrdiff_t n, bool row_exclusive,
                          bool column_exclusive, bool identity_row) {
    static_assert(RowsFirst || std::is_same<S, T>::value, "a column's step in the row's own type");
    using Outputs = std::conditional_t<Streams, RealignedOutputs<A, T, Reverse>, ArrayOutputs<T>>;
    const ColumnStep<T, Op> step{carries, column_exclusive, identity_row};
    const T neutral = Op::template neutral<T>();
    const T identity = Op::template identity<T>();
    const std::ptrdiff_t first = Reverse ? n - 1 : 0;
    const auto& source = asking_ahead<Streams>(in);
    if constexpr (RowsFirst) {
        const ColumnStepOutputs<A, T, Op, Reverse, Outputs, S> outputs{Outputs{out}, step};
        if (row_exclusive) {
            scan_row<A, S, Reverse, true, Op>(source, outputs, n);
            // The row's first value went through the step as the neutral (x op neutral is x), not as the identity
            // that the row's own scan stores there (+0.0 for sums): the step again with it.
            const T after = Op::apply(carries.before[first], identity);
            if (carries.after != nullptr) {
                carries.after[first] = after;
            }
            if (!column_exclusive && !identity_row) {
                out[first] = after;
            }
        } else {
            scan_row<A, S, Reverse, false, Op>(source, outputs, n);
        }
    } else {
        const ColumnStepElements<T, Op, std::decay_t<decltype(source)>> elements{source, step};
        scan_steps<A, T, Op, Reverse>(elements, Outputs{out}, n, neutral, neutral, SpanModes{row_exclusive, false});
        if (row_exclusive) {
            // The empty range's value is the identity (+0.0 for sums), not the internal neutral -0.0.
            out[first] = identity;
        }
    }
    if constexpr (Streams) {
        // Drained per row, for speed (order_streamed_stores orders them): without it a streamed uint8 to int32 table
        // was slower than one not streamed (benchmarks/README.md).
        Lanes<A>::finish_streaming();
    }
}

// The row of scan_two_axes_row_of, into out past the caches where `streams` and the row's type can.
template <class A, class T, class Op, bool RowsFirst, bool Reverse, class Source, class S = T>
void scan_two_axes_row_to(const Source& in, ColumnCarries<T> carries, T* out, std::ptrdiff_t n, bool row_exclusive,
                          bool column_exclusive, bool identity_row, bool streams) {
    if constexpr (streams_two_axes_rows<A, T, Op>()) {
        if (streams) {
            return scan_two_axes_row_of<A, T, Op, RowsFirst, Reverse, true, Source, S>(
                in, carries, out, n, row_exclusive, column_exclusive, identity_row);
        }
    }
    scan_two_axes_row_of<A, T, Op, RowsFirst, Reverse, false, Source, S>(in, carries, out, n, row_exclusive,
                                                                          column_exclusive, identity_row);
}

// TypedKernels::two_axes_row: the row's elements from `in` itself.
template <class A, class T, class Op, bool RowsFirst, bool Reverse>
void scan_two_axes_row(const T* in, ColumnCarries<T> carries, T* out, std::ptrdiff_t n, bool row_exclusive,
                       bool column_exclusive, bool identity_row, bool streams) {
    scan_two_axes_row_to<A, T, Op, RowsFirst, Reverse>(ArrayElements<T>{in}, carries, out, n, row_exclusive,
                                                       column_exclusive, identity_row, streams);
}

// TypedKernels::two_axes_widened_row: the row's elements converted from a narrower type as they are read. A function
// of its own: a second source in scan_two_axes_row slowed its float32 and float64 tables (benchmarks/README.md).
template <class A, class T, class Op, bool RowsFirst, bool Reverse>
void scan_two_axes_widened_row(const char* in, const RowWidening& widening, ColumnCarries<T> carries, T* out,
                               std::ptrdiff_t n, bool row_exclusive, bool column_exclusive, bool identity_row,
                               bool streams) {
    alignas(64) T converted[WidenedElements<T, Reverse>::block];
    std::ptrdiff_t begin = -WidenedElements<T, Reverse>::block;
    const WidenedElements<T, Reverse> elements{in, widening.in_size, n, widening.widen, converted, &begin};
    scan_two_axes_row_to<A, T, Op, RowsFirst, Reverse>(elements, carries, out, n, row_exclusive, column_exclusive,
                                                       identity_row, streams);
}

// TypedKernels::two_axes_byte_row: a row of uint8 values into a table of int32 (T: its unsigned twin) or float64,
// whose sums are exact (TwoAxesPlan::byte_rows), so that the scans along the row and the column give the same table in
// either order: the row first, in int32 lanes, then the column's step in T.
template <class A, class T, bool Reverse>
void scan_two_axes_byte_row(const std::uint8_t* in, ColumnCarries<T> carries, T* out, std::ptrdiff_t n,
                            bool row_exclusive, bool column_exclusive, bool identity_row, bool streams) {
    using S = std::conditional_t<std::is_integral<T>::value, T, std::int32_t>;
    scan_two_axes_row_to<A, T, Summation, true, Reverse, ByteRow<>, S>(ByteRow<>{in}, carries, out, n, row_exclusive,
                                                                        column_exclusive, identity_row, streams);
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
