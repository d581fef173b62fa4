// The scan kernels, templated on the xsimd architecture A and the op: a line in chunks, rebasing and whole rows.
// Compiled once per tier (tier_kernels.hpp), with that tier's flags.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "compensated_blocks.hpp"
#include "kernels.hpp"
#include "ops.hpp"
#include "vector_state.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// Complex types run scalar.
template <class A, class T>
constexpr bool is_vectorized() { return std::is_arithmetic<T>::value; }

// Where scan_steps reads the elements it scans and puts its outputs: arrays (or, for two_axes_kernels.hpp, a step
// along another axis before or after).
template <class T, bool Prefetches = true>
struct ArrayElements {
    // Whether scan_steps asks for the elements ahead of those it loads: not where a pass has just read them and
    // asked for those ahead itself (scan_span's NaN check: asking twice slowed a running maximum out of cache;
    // benchmarks/README.md).
    static constexpr bool prefetches = Prefetches;
    const T* in;

    template <class B>
    B vector(std::ptrdiff_t at) const { return load_vector<B>(in + at); }
    T one(std::ptrdiff_t at) const { return in[at]; }
    const T* address(std::ptrdiff_t at) const { return in + at; }
};
template <class T, bool Streams = false>
struct ArrayOutputs {
    using value_type = T;  // what one() takes
    T* out;  // Streams: the vectors past the caches, out + at aligned for them (aligning_head)

    template <class B>
    void vector(std::ptrdiff_t at, const B& values) const {
        if constexpr (Streams) {
            stream_vector(out + at, values);
        } else {
            store_vector(out + at, values);
        }
    }
    void one(std::ptrdiff_t at, T value) const { out[at] = value; }
};
// Asks for the output at `at` ahead of its store (compensated_blocks.hpp; other outputs take nothing).
template <class T>
void prefetch_for_write(const ArrayOutputs<T, false>& outputs, std::ptrdiff_t at) {
    prefetch<true>(outputs.out + at);
}

template <class A, class T, class Op, bool Reverse, class State, class Elements, class Outputs>
State scan_steps(const Elements& elements, Outputs outputs, std::ptrdiff_t n, State base, State carry,
                 SpanModes modes, T order_key = T());

// The doubles of complex128 arrays, as compensated_blocks.hpp scans them; float64 ones as they are.
template <bool Prefetches>
ArrayElements<double, Prefetches> parts_of(const ArrayElements<std::complex<double>, Prefetches>& elements) {
    return {reinterpret_cast<const double*>(elements.in)};
}
inline ArrayOutputs<double> parts_of(const ArrayOutputs<std::complex<double>>& outputs) {
    return {reinterpret_cast<double*>(outputs.out)};
}
template <class Arrays>
const Arrays& parts_of(const Arrays& arrays) {
    return arrays;
}

// scan_steps' outputs for a float line past the caches. The vectors the scan computes sit where its arithmetic
// groups them: aligning them for streaming stores would change the grouping, and so the bits, by out's address. So
// each aligned place in out takes the end of one computed vector and the start of the next (Lanes::dword_window),
// streamed; the ends that no place covers, in the first and the last computed vectors, are stored as usual (and only
// they: a cached store to a line being streamed costs the line a round trip).
template <class A, class T, bool Reverse>
class RealignedOutputs {
public:
    using B = xsimd::batch<T, A>;
    using value_type = T;  // what one() takes
    explicit RealignedOutputs(T* out) : out_(out) {}

    void vector(std::ptrdiff_t at, const B& values) {
        if (!has_previous_) {
            // The places from each computed vector's shift on are aligned (a computed vector sits a multiple of the
            // lane count away from the first).
            const auto element = reinterpret_cast<std::uintptr_t>(out_ + at) / sizeof(T);
            shift_ = (lanes - std::ptrdiff_t(element % std::uintptr_t(lanes))) % lanes;
            place_ = Lanes<A>::dword_window_at(std::size_t(shift_) * sizeof(T) / 4);
            store_uncovered(at, values);
        } else if (Reverse) {
            Lanes<A>::store_streaming(out_ + at + shift_, Lanes<A>::dword_window(values, previous_, place_));
        } else {
            Lanes<A>::store_streaming(out_ + at - lanes + shift_, Lanes<A>::dword_window(previous_, values, place_));
        }
        previous_ = values;
        previous_at_ = at;
        has_previous_ = true;
    }
    void one(std::ptrdiff_t at, T value) const { out_[at] = value; }
    void finish_vectors() const {
        if (has_previous_) {
            store_uncovered(previous_at_, previous_);
        }
    }

private:
    static constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);

    // The lanes of the first computed vector (before the shift in increasing order, from it in decreasing) or of the
    // last (the others) that no streamed place covers. A lone vector is both: its two calls store it all.
    void store_uncovered(std::ptrdiff_t at, const B& values) const {
        alignas(A::alignment()) T kept[B::size];
        values.store_aligned(kept);
        const bool below_shift = has_previous_ == Reverse;
        const std::ptrdiff_t from = below_shift ? 0 : shift_;
        const std::ptrdiff_t to = below_shift ? shift_ : lanes;
        std::copy(kept + from, kept + to, out_ + at + from);
    }

    T* out_;
    bool has_previous_ = false;
    B previous_ = B(T(0));  // set before use (has_previous_), which GCC 12 for mingw-w64 cannot see once inlined
    std::ptrdiff_t previous_at_ = 0;
    std::ptrdiff_t shift_ = 0;
    typename Lanes<A>::DwordWindow place_{};
};

// Outputs with a vector kept back store it once the vectors are done (RealignedOutputs); others have none (the
// int argument picks the first overload where both apply).
template <class Outputs>
auto finish_vectors(Outputs& outputs, int) -> decltype(outputs.finish_vectors()) { outputs.finish_vectors(); }
template <class Outputs>
void finish_vectors(Outputs&, long) {}

// Whether scan[] streams a line's outputs where ScanState::streams: vectorised elements stored as they are computed,
// but log-sum-exp (at several times a copy's time) and compensated float64 blocks, which store out of scan order:
// streamed through a block's buffer, slower than stored as computed; each place realigned as soon as its two vectors
// were computed, hardly faster; nor float32 sums in double lanes, which RealignedOutputs (whole registers of the
// output type) does not take, and whose line takes as long in cache as out of it (benchmarks/README.md).
// Integer ops are exact, so their vectors are aligned for the streaming stores after a head (aligning_head); floats
// go through RealignedOutputs.
template <class A, class T, class Op>
constexpr bool streams_lines() {
    using B = typename Op::template vector<T, A>;
    if constexpr (is_vectorized<A, T>() && !Op::scans_chunks_from_totals && !scans_compensated_blocks<A, T, Op>() &&
                  std::is_same<typename B::value_type, T>::value) {
        return streams_vectors<B, T>();
    } else {
        return false;
    }
}

// The outputs of a span at out: streamed float vectors realigned in registers (RealignedOutputs), else the array's.
template <class A, class T, bool Reverse, bool Streams, class O>
auto span_outputs(O* out) {
    if constexpr (Streams && std::is_floating_point<T>::value) {
        return RealignedOutputs<A, T, Reverse>{out};
    } else {
        return ArrayOutputs<O, Streams>{out};
    }
}

// A span's outputs from `offset` on, for one of several scan_steps calls over consecutive parts of it: the vector
// RealignedOutputs keeps back passes from one call to the next, so that only the span's two ends are stored
// unstreamed (each part's ends, stored so, cost a streamed line a round trip each).
template <class Outputs>
struct OutputsFrom {
    using value_type = typename Outputs::value_type;
    Outputs& outputs;
    std::ptrdiff_t offset;

    template <class B>
    void vector(std::ptrdiff_t at, const B& values) { outputs.vector(offset + at, values); }
    void one(std::ptrdiff_t at, value_type value) { outputs.one(offset + at, value); }
};
template <class A, class T, bool Reverse>
OutputsFrom<RealignedOutputs<A, T, Reverse>> outputs_from(RealignedOutputs<A, T, Reverse>& outputs,
                                                          std::ptrdiff_t offset) {
    return {outputs, offset};
}
// (An array's outputs by value: through a reference, the pointer was reloaded for every store.)
template <class T, bool Streams>
ArrayOutputs<T, Streams> outputs_from(const ArrayOutputs<T, Streams>& outputs, std::ptrdiff_t offset) {
    return {outputs.out + offset};
}

template <class A, class T, class Op, bool Reverse, bool Streams = false, bool Prefetches = true, class State,
          class O>
State scan_steps(const T* in, O* out, std::ptrdiff_t n, State base, State carry, SpanModes modes,
                 T order_key = T()) {
    return scan_steps<A, T, Op, Reverse>(ArrayElements<T, Prefetches>{in}, span_outputs<A, T, Reverse, Streams>(out),
                                         n, base, carry, modes, order_key);
}

// Whether any of n elements (a multiple of the lane count) is NaN. Out of cache the check meets the elements first,
// so it asks for those ahead in scan order, once per two cache lines: with the hardware prefetch alone it waited on
// memory on some CPUs, and asking once per line, not per two, was slower on others (benchmarks/README.md).
template <class A, class T, bool Reverse>
bool has_nan(const T* p, std::ptrdiff_t n) {
    using B = xsimd::batch<T, A>;
    constexpr std::ptrdiff_t prefetch_stride = std::ptrdiff_t(std::max(std::size_t(128) / sizeof(T), B::size));
    auto found = xsimd::isnan(B::load_unaligned(p));
    for (std::ptrdiff_t i = std::ptrdiff_t(B::size); i < n; i += std::ptrdiff_t(B::size)) {
        if (i % prefetch_stride == 0) {
            prefetch_ahead<Reverse>(p + i);
        }
        found = found | xsimd::isnan(B::load_unaligned(p + i));
    }
    return xsimd::any(found);
}

// Scans n contiguous elements onward from `carry`, the running state within the chunk, and returns the new one.
// `modes` (exclusive, has a base) are chosen per span at run time (kernels.hpp's SpanModes); Streams: ArrayOutputs'.
template <class A, class T, class Op, bool Reverse, bool Streams = false, class State = typename Op::template state<T>,
          class O>
State scan_span(const T* in, O* out, std::ptrdiff_t n, State base, State carry, SpanModes modes, T order_key) {
    std::ptrdiff_t done = 0;
    if constexpr (is_vectorized<A, T>() && std::is_floating_point<T>::value && Op::has_nan_free_variant) {
        // The blocks in scan order up to the first with a NaN (none if the running value or the base is NaN) take
        // NaNFreeExtremum, the same bits for less work; the rest, the full op. Blocks of whole vectors (the last
        // may be shorter, as a short segment's only one), so every vector sits where one scan_steps over the span
        // would put it. Two blocks are checked, then scanned while in L1: checking a whole span first was slower
        // out of cache (benchmarks/README.md), and a call per block (of constant length) trips GCC 12's
        // -Waggressive-loop-optimizations on aarch64, a false report.
        using Fast = typename Op::NaNFree;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(xsimd::batch<T, A>::size);
        constexpr std::ptrdiff_t block = 32 * lanes;
        constexpr std::ptrdiff_t window = 2 * block;
        bool clean = !std::isnan(carry) && !(modes.has_base && std::isnan(base));
        auto outputs = span_outputs<A, T, Reverse, Streams>(out);
        while (clean && done + lanes <= n) {
            std::ptrdiff_t run = 0;
            while (run < window && done + run + lanes <= n) {
                const std::ptrdiff_t part = std::min(block, (n - done - run) / lanes * lanes);
                if (has_nan<A, T, Reverse>(in + (Reverse ? n - done - run - part : done + run), part)) {
                    clean = false;
                    break;
                }
                run += part;
            }
            const std::ptrdiff_t at = Reverse ? n - done - run : done;
            carry = scan_steps<A, T, Fast, Reverse>(ArrayElements<T, false>{in + at}, outputs_from(outputs, at), run,
                                                    base, carry, modes, order_key);
            done += run;
        }
        const std::ptrdiff_t rest_at = Reverse ? 0 : done;
        carry = scan_steps<A, T, Op, Reverse>(ArrayElements<T>{in + rest_at}, outputs_from(outputs, rest_at),
                                              n - done, base, carry, modes, order_key);
        finish_vectors(outputs, 0);
        return carry;
    } else if constexpr (is_vectorized<A, T>() && Op::has_settled_variant) {
        // Blocks of whole vectors (every vector where one scan_steps over the span would put it) take the full op
        // until the running value is a number, the rest Op::Settled: the same bits for less work.
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(xsimd::batch<T, A>::size);
        constexpr std::ptrdiff_t block = 32 * lanes;
        auto outputs = span_outputs<A, T, Reverse, Streams>(out);
        while (is_nan(carry) && done + lanes <= n) {
            const std::ptrdiff_t run = std::min(block, (n - done) / lanes * lanes);
            const std::ptrdiff_t at = Reverse ? n - done - run : done;
            carry = scan_steps<A, T, Op, Reverse>(ArrayElements<T>{in + at}, outputs_from(outputs, at), run, base,
                                                  carry, modes, order_key);
            done += run;
        }
        const std::ptrdiff_t rest_at = Reverse ? 0 : done;
        const auto rest = outputs_from(outputs, rest_at);
        carry = is_nan(carry) ? scan_steps<A, T, Op, Reverse>(ArrayElements<T>{in + rest_at}, rest, n - done, base,
                                                                carry, modes, order_key)
                              : scan_steps<A, T, typename Op::Settled, Reverse>(ArrayElements<T>{in + rest_at}, rest,
                                                                               n - done, base, carry, modes, order_key);
        finish_vectors(outputs, 0);
        return carry;
    } else {
        return scan_steps<A, T, Op, Reverse, Streams>(in, out, n, base, carry, modes, order_key);
    }
}

// The op between the running vector and the next vector's prefix: a float sum's on the pipes Lanes::add_beside picks.
template <class A, class Op, class V>
V apply_between_vectors(const V& running, const V& x) {
    if constexpr (Op::adds_beside) {
        if constexpr (std::is_floating_point<typename V::value_type>::value) {
            return Lanes<A>::add_beside(running, x);
        }
    }
    return Op::apply(running, x);
}

// scan_span one op step at a time: vector_prefix within each vector, the op between vectors.
template <class A, class T, class Op, bool Reverse, class State, class Elements, class Outputs>
State scan_steps(const Elements& elements, Outputs outputs, std::ptrdiff_t n, State base, State carry,
                 SpanModes modes, T order_key) {
    std::ptrdiff_t done = 0;
    if constexpr (scans_compensated_blocks<A, T, Op>()) {
        auto part_outputs = parts_of(outputs);
        done = scan_compensated_blocks<A, Op, Reverse>(parts_of(elements), part_outputs, n, base, carry, modes);
    }
    if constexpr (is_vectorized<A, T>()) {
        using B = typename Op::template vector<T, A>;
        using VectorState = typename Op::template state<B>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        const VectorState fill = splat<B>(Op::template neutral<T>());
        const VectorState base_lanes = splat<B>(base);
        const B key(order_key);
        VectorState running = splat<B>(carry);
        for (; done + lanes <= n; done += lanes) {
            const std::ptrdiff_t at = Reverse ? n - done - lanes : done;
            if constexpr (Elements::prefetches) {
                prefetch_ahead<Reverse>(elements.address(at));
            }
            const B x = Op::admit(keyed<Op>(elements.template vector<B>(at), key));
            B result;
            bool ahead = false;
            if constexpr (Op::selects_an_operand) {
                // Every output is the running value: most vectors of a running extremum of unordered data.
                ahead = Op::stays_ahead(running, x);
                result = running;
            }
            if (!ahead) {
                const VectorState prefix = vector_prefix<A, Op, Reverse, 1, B::size>(Op::lift(x), fill);
                // The carry chain is one op per vector: the broadcast total is computed off it.
                const VectorState total = broadcast_total<A, Reverse>(prefix);
                const VectorState before = modes.exclusive ? shifted<A, Reverse, 1>(prefix, fill) : prefix;
                result = Op::lower(apply_between_vectors<A, Op>(running, before));
                running = apply_between_vectors<A, Op>(running, total);
            }
            if (modes.has_base) {
                // As the local output kept by a chunk scanned before its base was known, then rebased.
                result = Op::lower(Op::apply(base_lanes, Op::lift(rounded_to_element<LocalOf<T, State>>(result))));
            }
            outputs.vector(at, keyed<Op>(result, key));
        }
        if (done > 0) {
            carry = first_lane(running);
        }
        finish_vectors(outputs, 0);
    }
    using Output = typename Outputs::value_type;
    // An output as the arrays hold it: keyed back where Op orders by key (its outputs are then elements).
    const auto unkeyed = [&](Output value) {
        if constexpr (Op::orders_by_key) {
            return keyed<Op>(value, order_key);
        } else {
            return value;
        }
    };
    for (; done < n; ++done) {
        const std::ptrdiff_t at = Reverse ? n - 1 - done : done;
        const State next = Op::apply(carry, Op::lift(Op::admit(keyed<Op>(elements.one(at), order_key))));
        const State before = modes.exclusive ? carry : next;
        if (modes.has_base) {
            const auto local = output_of<Op, LocalOf<T, State>>(before);
            outputs.one(at, unkeyed(Output(Op::lower(Op::apply(base, state_of<Op, State>(local))))));
        } else {
            outputs.one(at, unkeyed(output_of<Op, Output>(before)));
        }
        carry = next;
    }
    return carry;
}

// scan_span from st; where st.streams, past the caches (streams_lines).
template <class A, class T, class Op, bool Reverse, class State, class O>
State scan_span_of(const T* in, O* out, std::ptrdiff_t n, ScanState<State>& st, bool exclusive, T order_key) {
    if constexpr (Op::scans_chunks_from_totals) {
        return Op::template scan_span<A, T, Reverse>(in, out, n, st, exclusive);
    } else {
        const SpanModes modes{exclusive, st.has_base};
        const auto span = [&](std::ptrdiff_t at, std::ptrdiff_t count, State carry, auto streams) {
            constexpr bool Streams = decltype(streams)::value;
            return scan_span<A, T, Op, Reverse, Streams>(in + at, out + at, count, st.base, carry, modes, order_key);
        };
        // (The direct path's arrays are aligned to their element; a streaming store elsewhere would fault.)
        const bool element_aligned = reinterpret_cast<std::uintptr_t>(out) % alignof(T) == 0;
        // (A chunk's local outputs go to a buffer of its own, never streamed.)
        constexpr bool may_stream = streams_lines<A, T, Op>() && std::is_same<O, T>::value;
        const bool streams = may_stream && st.streams && element_aligned;
        std::ptrdiff_t head = 0;
        if constexpr (is_vectorized<A, T>() && (std::is_integral<T>::value || Op::selects_an_operand)) {
            // Exact ops start their vectors where out is aligned, which streaming stores need and which splits no
            // store across cache lines (benchmarks/README.md).
            // Float sums keep their vectors where the line starts: their grouping is their rounding. Streamed float
            // lines are realigned in registers (RealignedOutputs): a head there slowed cummax (benchmarks/README.md).
            if (element_aligned && (std::is_integral<T>::value || !streams)) {
                head = aligning_head<typename Op::template vector<T, A>, Reverse>(out, n);
            }
        }
        const State carry = head > 0 ? span(Reverse ? n - head : 0, head, st.local, std::false_type{}) : st.local;
        if constexpr (may_stream) {
            if (streams) {
                return span(Reverse ? 0 : head, n - head, carry, std::true_type{});
            }
        }
        return span(Reverse ? 0 : head, n - head, carry, std::false_type{});
    }
}

// A whole float line that rows packed in vectors could hold (2 elements to a vector, a divisor of the lane count):
// one vector padded with the neutral element, as scan_packed_rows scans such rows, so that its bits do not depend on
// which of the two runs it (exact ops give the same bits either way). Returns whether it did.
template <class A, class T, class Op, bool Reverse, class O, class State>
bool scan_as_packed_row(const T* in, O* out, std::ptrdiff_t n, ScanState<State>& st, bool exclusive, T order_key) {
    if constexpr (is_vectorized<A, T>() && std::is_floating_point<T>::value && !Op::selects_an_operand) {
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(Op::template vector<T, A>::size);
        if (!st.at_line_start || n < 2 || n > lanes || lanes % n != 0) {
            return false;
        }
        const std::ptrdiff_t first = Reverse ? lanes - n : 0;  // the line's lanes, where the scan starts
        alignas(A::alignment()) T padded[lanes];
        alignas(A::alignment()) O outputs[lanes];
        std::fill_n(padded, lanes, keyed<Op>(output_of<Op, T>(Op::template neutral<T>()), order_key));
        std::copy_n(in, n, padded + first);
        st.local = scan_steps<A, T, Op, Reverse>(ArrayElements<T, false>{padded}, ArrayOutputs<O>{outputs}, lanes,
                                                 st.base, st.local, SpanModes{exclusive, st.has_base}, order_key);
        std::copy_n(outputs + first, n, out);
        return true;
    } else {
        return false;
    }
}

// O: T, or for TypedKernels::scan_local, its Local.
template <class A, class T, class Op, bool Reverse, class O = T, class State = typename Op::template state<T>>
void scan_line(const T* in, O* out, std::ptrdiff_t n, ScanState<State>& st, bool exclusive, T identity,
               T order_key) {
    if (n == 0) {
        return;
    }
    if (!scan_as_packed_row<A, T, Op, Reverse>(in, out, n, st, exclusive, order_key)) {
        st.local = scan_span_of<A, T, Op, Reverse>(in, out, n, st, exclusive, order_key);
    }
    if (exclusive && st.at_line_start) {
        // The empty range's value is the identity (+0.0 for sums, true for a minimum of bool), not the neutral.
        out[Reverse ? n - 1 : 0] = identity;
    }
    st.at_line_start = false;
}

// Whether short segments are scanned together in vectors (scan_segments): where the op asks, on vectors of the
// elements themselves, float32 and float64 (the others scan each on its own: every kernel counts in the module's
// size budget, and a kernel of many narrow lanes is a long one).
template <class A, class T, class Op>
constexpr bool scans_segments_in_vectors() {
    if constexpr (is_vectorized<A, T>() && Op::scans_segments_together && std::is_floating_point<T>::value) {
        return std::is_same<typename Op::template vector<T, A>, xsimd::batch<T, A>>::value &&
               std::is_same<typename Op::template state<T>, T>::value;
    } else {
        return false;
    }
}

// A segmented inclusive scan inside a vector: log2(lanes) steps of vector_prefix's, each lane taking the lanes K
// places behind unless a segment begins between. `begins` (1 where a segment begins, 0 elsewhere, as values of B)
// ends as 1 wherever one begins at or before the lane.
template <class A, class Op, bool Reverse, std::size_t K, class B>
SIMDSCAN_ALWAYS_INLINE B segmented_prefix(const B& x, B& begins, const B& fill) {
    if constexpr (K < B::size) {
        const B zero(typename B::value_type(0));
        const B taken = xsimd::select(begins != zero, x, Op::apply(shifted<A, Reverse, K>(x, fill), x));
        begins = xsimd::max(begins, shifted<A, Reverse, K>(begins, zero));
        return segmented_prefix<A, Op, Reverse, 2 * K>(taken, begins, fill);
    } else {
        return x;
    }
}

// TypedKernels::scan_segments, from scan position `position` of the line, where scans_segments_in_vectors: the
// segments scanned together, in vectors that start at multiples of the lane count from the line's start (so that
// no float's rounding depends on where a batch or a thread's share begins). A vector reaching outside the batch
// has the neutral element in the lanes outside (a segment begins where the batch does, and one after it), so the
// lanes inside get the bits a whole vector gives them.
template <class A, class T, class Op, bool Reverse>
void scan_segments(const T* in, T* out, const std::ptrdiff_t* lengths, std::ptrdiff_t count, std::ptrdiff_t position,
                   bool exclusive, T order_key) {
    using B = xsimd::batch<T, A>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    std::ptrdiff_t total = 0;
    for (std::ptrdiff_t k = 0; k < count; ++k) {
        total += lengths[k];
    }
    const B fill(Op::template neutral<T>());
    const B identity(Op::template identity<T>());
    const B key(order_key);
    const B zero(T(0));
    const B one(T(1));
    alignas(A::alignment()) T places[B::size];  // each lane's place in its vector in scan order
    for (std::ptrdiff_t lane = 0; lane < lanes; ++lane) {
        places[lane] = T(Reverse ? lanes - 1 - lane : lane);
    }
    const B place = B::load_aligned(places);
    std::ptrdiff_t next_begin = 0;  // the scan offset (from the batch's first element) of the next segment
    std::ptrdiff_t segment = 0;
    T carry = Op::template neutral<T>();
    // Vector v holds scan offsets [v, v + lanes); the first may start before the batch, the last end after it.
    for (std::ptrdiff_t v = -((position % lanes + lanes) % lanes); v < total; v += lanes) {
        const bool whole = v >= 0 && v + lanes <= total;
        const std::ptrdiff_t first = Reverse ? total - v - lanes : v;  // in memory
        alignas(A::alignment()) T staged[B::size];
        B x;
        if (whole) {
            x = Op::admit(keyed<Op>(load_vector<B>(in + first), key));
        } else {
            for (std::ptrdiff_t lane = 0; lane < lanes; ++lane) {
                const std::ptrdiff_t at = first + lane;
                staged[lane] = at >= 0 && at < total ? in[at] : T(0);
            }
            const auto inside = (place >= B(T(std::max<std::ptrdiff_t>(0, -v)))) &
                                (place < B(T(std::min(lanes, total - v))));
            x = xsimd::select(inside, Op::admit(keyed<Op>(B::load_aligned(staged), key)), fill);
        }
        const B running(carry);
        B begins = zero;
        for (; segment < count && next_begin < v + lanes; next_begin += lengths[segment++]) {
            begins = xsimd::select(place == B(T(next_begin - v)), one, begins);
        }
        B covered = begins;
        const B prefix = segmented_prefix<A, Op, Reverse, 1>(x, covered, fill);
        // Lanes before the vector's first segment start continue the running value.
        const B result = xsimd::select(covered != zero, prefix, Op::apply(running, prefix));
        const B before = xsimd::select(begins != zero, identity, shifted<A, Reverse, 1>(result, running));
        carry = first_lane(broadcast_total<A, Reverse>(result));
        const B outputs = keyed<Op>(exclusive ? before : result, key);
        if (whole) {
            store_vector(out + first, outputs);
        } else {
            outputs.store_aligned(staged);
            for (std::ptrdiff_t lane = 0; lane < lanes; ++lane) {
                const std::ptrdiff_t at = first + lane;
                if (at >= 0 && at < total) {
                    out[at] = staged[lane];
                }
            }
        }
    }
}

template <class A, class T, class Op, class State = typename Op::template state<T>>
void rebase(const LocalOf<T, State>* in, T* out, std::ptrdiff_t n, State base, bool streams, T order_key) {
    const auto element = [&](std::ptrdiff_t i) {
        out[i] = keyed<Op>(T(Op::lower(Op::apply(base, state_of<Op, State>(keyed<Op>(in[i], order_key))))), order_key);
    };
    std::ptrdiff_t i = 0;
    if constexpr (is_vectorized<A, T>()) {
        using B = typename Op::template vector<T, A>;
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
        streams = streams && streams_vectors<B, T>();
        for (const std::ptrdiff_t head = streams ? aligning_head<B, false>(out, n) : 0; i < head; ++i) {
            element(i);
        }
        const auto base_lanes = splat<B>(base);
        const B key(order_key);
        for (; i + lanes <= n; i += lanes) {
            const B local = keyed<Op>(load_vector<B>(in + i), key);
            store_or_stream(out + i, keyed<Op>(Op::lower(Op::apply(base_lanes, Op::lift(local))), key), streams);
        }
    }
    for (; i < n; ++i) {
        element(i);
    }
}

// vector_prefix within rows of n lanes: moves that would cross a row boundary bring the neutral element instead.
// (Inlined: left out of line once scan_packed_rows took both modes, it slowed short rows; benchmarks/README.md.)
template <class A, class Op, bool Reverse, std::size_t K, class B, class V>
SIMDSCAN_ALWAYS_INLINE V row_prefix(const V& x, const V& fill, const B& row_position, std::size_t n) {
    if constexpr (K < B::size) {
        if (K >= n) {
            return x;
        }
        const auto within_row = row_position >= B(typename B::value_type(K));
        const V moved = choose(within_row, shifted<A, Reverse, K>(x, fill), fill);
        return row_prefix<A, Op, Reverse, 2 * K>(Op::apply(moved, x), fill, row_position, n);
    } else {
        return x;
    }
}

// Rows of n elements stored back to back, n a power of two dividing the lane count: each vector holds whole rows,
// scanned in log2(n) steps whose lane moves are masked at row boundaries; no carry passes between vectors.
// Returns how many rows it scanned (whole vectors only).
template <class A, class T, class Op, bool Reverse>
std::ptrdiff_t scan_packed_rows(const T* in, T* out, std::ptrdiff_t n, std::ptrdiff_t rows, bool exclusive,
                                T identity_element, T order_key) {
    using B = typename Op::template vector<T, A>;
    using VectorState = typename Op::template state<B>;
    using Lane = typename B::value_type;
    constexpr std::size_t lanes = B::size;
    // Each lane's distance from the start of its row (from the end, in reverse).
    alignas(A::alignment()) Lane position[lanes];
    for (std::size_t lane = 0; lane < lanes; ++lane) {
        const std::size_t in_row = lane % std::size_t(n);
        position[lane] = Lane(Reverse ? std::size_t(n) - 1 - in_row : in_row);
    }
    const B row_position = B::load_aligned(position);
    const VectorState fill = splat<B>(Op::template neutral<T>());
    const B identity(Lane(keyed<Op>(identity_element, order_key)));  // keyed again with the outputs
    const B key(order_key);
    const std::ptrdiff_t vectors = rows * n / std::ptrdiff_t(lanes);
    // The loop compiled for each mode, not tested in it: a test per vector slowed short rows (benchmarks/README.md).
    const auto scan_vectors = [&](auto exclusive_rows) {
        for (std::ptrdiff_t v = 0; v < vectors; ++v) {
            const std::ptrdiff_t at = v * std::ptrdiff_t(lanes);
            const VectorState elements = Op::lift(Op::admit(keyed<Op>(load_vector<B>(in + at), key)));
            const VectorState prefix = row_prefix<A, Op, Reverse, 1>(elements, fill, row_position, std::size_t(n));
            if constexpr (decltype(exclusive_rows)::value) {
                const B before = Op::lower(shifted<A, Reverse, 1>(prefix, fill));
                const B values = xsimd::select(row_position >= B(Lane(1)), before, identity);
                store_vector(out + at, keyed<Op>(values, key));
            } else {
                store_vector(out + at, keyed<Op>(Op::lower(prefix), key));
            }
        }
    };
    if (exclusive) {
        scan_vectors(std::true_type{});
    } else {
        scan_vectors(std::false_type{});
    }
    return vectors * std::ptrdiff_t(lanes) / n;
}

template <class A, class T, class Op, bool Reverse>
void scan_rows(const char* in, char* out, std::ptrdiff_t n, std::ptrdiff_t rows, std::ptrdiff_t in_stride,
               std::ptrdiff_t out_stride, bool exclusive, T identity, bool streams, T order_key) {
    std::ptrdiff_t r = 0;
    if constexpr (is_vectorized<A, T>()) {
        constexpr std::ptrdiff_t lanes = std::ptrdiff_t(Op::template vector<T, A>::size);
        const std::ptrdiff_t row_bytes = n * std::ptrdiff_t(sizeof(T));
        if (n > 1 && n <= lanes && lanes % n == 0 && in_stride == row_bytes && out_stride == row_bytes) {
            const auto* first_in = reinterpret_cast<const T*>(in);
            auto* first_out = reinterpret_cast<T*>(out);
            r = scan_packed_rows<A, T, Op, Reverse>(first_in, first_out, n, rows, exclusive, identity, order_key);
        }
    }
    const auto neutral = Op::template neutral<T>();
    for (; r < rows; ++r) {
        ScanState<typename Op::template state<T>> st{neutral, neutral, false, true};
        st.streams = streams;
        scan_line<A, T, Op, Reverse>(reinterpret_cast<const T*>(in + r * in_stride),
                                     reinterpret_cast<T*>(out + r * out_stride), n, st, exclusive, identity,
                                     order_key);
    }
}

template <class T, class Op, class State = typename Op::template state<T>>
State apply_op(State a, State b) { return Op::apply(a, b); }

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
