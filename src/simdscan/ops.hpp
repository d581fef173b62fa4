// The ops a scan computes (sums, compensated sums, products, extrema, log-sum-exp, and their NaN-skipping variants):
// arithmetic on scalar or vector states.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "exp_log.hpp"
#include "kernels.hpp"
#include "lanes/lanes_generic.hpp"

#ifndef SIMDSCAN_TIER
#error "define SIMDSCAN_TIER (the tier's namespace) before including ops.hpp"
#endif

// Inlines every call in a function's body, xsimd's math functions included: one left out of line would be an
// AVX function outside the tier's namespace (tests/test_baseline_purity.py), whatever the build's inlining limits.
#if defined(__GNUC__)
#define SIMDSCAN_FLATTEN [[gnu::flatten]]
#else
#define SIMDSCAN_FLATTEN
#endif

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// An op is the arithmetic of one scan: apply on states (scalars or batches), neutral and identity, the conversions
// between elements and states (lift) and back (lower), and admit, which every input element passes first; and what
// it can do, which the generic kernels and the tier's table read (OpTraits, false unless an op says otherwise).
struct OpTraits {
    // apply returns one of its operands: its outputs do not depend on how elements are grouped into vectors, and a
    // running value that beats a whole vector is every output there (Extremum::stays_ahead).
    static constexpr bool selects_an_operand = false;
    // NaN-propagating extrema: TypedKernels::scan_indexed and advance_indexed, the suppliers' positions.
    static constexpr bool writes_indices = false;
    // Blocks found free of NaN are scanned with Op::NaNFree, the same bits for less work.
    static constexpr bool has_nan_free_variant = false;
    // Once the running value is a number (not NaN), Op::Settled gives the same bits for less work.
    static constexpr bool has_settled_variant = false;
    // Short segments of a segmented scan are scanned many to a call, in segmented vector steps (scan_segments): the
    // scans most often run on short segments (returns, running extrema, fills); the others scan each on its own.
    static constexpr bool scans_segments_together = false;
    // apply is a plain addition, which float vectors may run on the multiply pipes (Lanes::add_beside).
    static constexpr bool adds_beside = false;
    // Summed-area tables in one pass (TypedKernels::two_axes_row and its variants).
    static constexpr bool builds_tables = false;
    // float16 lines converted in registers around the float32 scan (TypedKernels::scan_half).
    static constexpr bool scans_float16_in_registers = false;
    // Each chunk of a long line is scanned from its base, the op of the earlier chunks' totals (Op::total), never
    // rebased (a base costs an exp and a log per element); Op::scan_span scans a span from its state.
    static constexpr bool scans_chunks_from_totals = false;
    // The kernels key each element read and each value written with the job's order key (keyed).
    static constexpr bool orders_by_key = false;
    // Op::Stepwise applies elements one at a time into states kept aside (groups, outer-axis columns): a finer state.
    static constexpr bool has_stepwise_variant = false;
};

// Ops that take every input element as it is.
struct AdmitsEvery : OpTraits {
    static constexpr bool admits_every = true;
    template <class V>
    static V admit(const V& x) { return x; }
};

// Ops whose state is the element itself, in vectors of elements.
struct ExactState : AdmitsEvery {
    template <class T, class A>
    using vector = xsimd::batch<T, A>;  // the register the vector loops work in
    template <class T>
    using state = T;
    template <class V>
    static V lift(const V& x) { return x; }
    template <class V>
    static V lower(const V& state) { return state; }
};

// NaN tests and selections on scalars and batches alike; integers are never NaN.
template <class T>
bool is_nan(const T& x) {
    if constexpr (std::is_floating_point<T>::value) {
        return std::isnan(x);
    } else if constexpr (std::is_integral<T>::value) {
        return false;
    } else {
        return std::isnan(x.real()) || std::isnan(x.imag());  // as numpy.isnan on complex
    }
}
template <class T, class A>
xsimd::batch_bool<T, A> is_nan(const xsimd::batch<T, A>& x) {
    if constexpr (std::is_floating_point<T>::value) {
        return xsimd::isnan(x);  // not x != x: AVX's "not equal" compare is the ordered one, false for NaN
    } else {
        return xsimd::batch_bool<T, A>(false);
    }
}
// Either condition, or both, for scalar conditions and vector masks alike.
inline bool either(bool a, bool b) { return a || b; }
template <class T, class A>
xsimd::batch_bool<T, A> either(const xsimd::batch_bool<T, A>& a, const xsimd::batch_bool<T, A>& b) { return a | b; }
inline bool both(bool a, bool b) { return a && b; }
template <class T, class A>
xsimd::batch_bool<T, A> both(const xsimd::batch_bool<T, A>& a, const xsimd::batch_bool<T, A>& b) { return a & b; }
// Whether a scalar condition holds, or any lane of a vector mask.
inline bool any_of(bool a) { return a; }
template <class T, class A>
bool any_of(const xsimd::batch_bool<T, A>& a) { return xsimd::any(a); }
template <class T>
T pick(bool take_a, const T& a, const T& b) { return take_a ? a : b; }
template <class T, class A>
xsimd::batch<T, A> pick(const xsimd::batch_bool<T, A>& take_a, const xsimd::batch<T, A>& a,
                        const xsimd::batch<T, A>& b) {
    return xsimd::select(take_a, a, b);
}

// x as Op's kernels see it: with the order key's bits (TypedKernels::order_key) where Op orders by key, else as it is.
// The same call turns a key back into its element.
template <class Op, class V, class Key>
V keyed(const V& x, const Key& key) {
    if constexpr (!Op::orders_by_key) {
        return x;
    } else if constexpr (std::is_arithmetic<V>::value) {
        return xor_bits(x, key);
    } else {
        return x ^ key;  // a batch
    }
}

template <class T>
constexpr T summation_neutral() {
    // -0.0, not +0.0: -0.0 + x == x for every x, so a prefix of -0.0 stays -0.0.
    if constexpr (std::is_floating_point<T>::value) {
        return T(-0.0);
    } else if constexpr (std::is_integral<T>::value) {
        return T(0);
    } else {
        using R = typename T::value_type;
        return T(R(-0.0), R(-0.0));
    }
}

struct Summation : ExactState {
    static constexpr bool adds_beside = true;
    static constexpr bool scans_segments_together = true;
    static constexpr bool builds_tables = true;
    static constexpr bool scans_float16_in_registers = true;
    template <class V>
    static V apply(const V& a, const V& b) { return a + b; }
    template <class T>
    static T neutral() { return summation_neutral<T>(); }
    template <class T>
    static T identity() { return T(0); }
};

struct Product : ExactState {
    static constexpr bool scans_float16_in_registers = true;
    template <class V>
    static V apply(const V& a, const V& b) {
        if constexpr (std::is_integral<V>::value && sizeof(V) < sizeof(unsigned)) {
            // Narrow integers would be promoted to int, whose overflow is undefined (65535 * 65535): unsigned instead.
            return V(unsigned(a) * unsigned(b));
        } else {
            return a * b;
        }
    }
    // As int16 lanes, which have the same low bits: xsimd 14's SSE2 code multiplies uint16 lanes one by one as ints,
    // whose overflow is undefined.
    template <class A>
    static xsimd::batch<std::uint16_t, A> apply(const xsimd::batch<std::uint16_t, A>& a,
                                                const xsimd::batch<std::uint16_t, A>& b) {
        return bits_as<std::uint16_t>(bits_as<std::int16_t>(a) * bits_as<std::int16_t>(b));
    }
    // The textbook formula, as NumPy computes it (std::complex's operator* adds C99 Annex G recovery).
    template <class R>
    static std::complex<R> apply(const std::complex<R>& a, const std::complex<R>& b) {
        return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
    }
    template <class T>
    static T neutral() { return T(1); }
    template <class T>
    static T identity() { return T(1); }
};

// sum + error rounded once. An error of zero keeps the sum's sign of zero (-0.0 + +0.0 would be +0.0); a NaN error
// comes only from an infinite or NaN sum, which is the result.
template <class R>
R round_compensated(R sum, R error) {
    return std::abs(error) > R(0) ? sum + error : sum;
}
template <class R>
std::complex<R> round_compensated(std::complex<R> sum, std::complex<R> error) {
    return {round_compensated(sum.real(), error.real()), round_compensated(sum.imag(), error.imag())};
}
template <class T, class A>
xsimd::batch<T, A> round_compensated(const xsimd::batch<T, A>& sum, const xsimd::batch<T, A>& error) {
    return xsimd::select(xsimd::abs(error) > xsimd::batch<T, A>(T(0)), sum + error, sum);
}

template <class T>
T zero_like(const T&) { return T(0); }
template <class T, class A>
xsimd::batch<T, A> zero_like(const xsimd::batch<T, A>&) { return xsimd::batch<T, A>(T(0)); }

// Summation with Neumaier's compensation: every addition's rounding error, found exactly by Knuth's TwoSum (no
// assumption on the operands' magnitudes, as in-register scan steps add in any order), is summed aside.
struct CompensatedSummation : AdmitsEvery {
    template <class T, class A>
    using vector = xsimd::batch<T, A>;
    template <class T>
    using state = Compensated<T>;
    template <class V>
    static Compensated<V> apply(const Compensated<V>& a, const Compensated<V>& b) {
        const V sum = a.sum + b.sum;
        const V b_rounded = sum - a.sum;
        const V dropped = (a.sum - (sum - b_rounded)) + (b.sum - b_rounded);
        return {sum, (a.error + b.error) + dropped};
    }
    // The same operations, every other one on the multiply pipes (Lanes::add_beside, subtract_beside: the same
    // bits), as TwoSum is nothing but additions.
    template <class T, class A>
    static Compensated<xsimd::batch<T, A>> apply(const Compensated<xsimd::batch<T, A>>& a,
                                                 const Compensated<xsimd::batch<T, A>>& b) {
        using L = Lanes<A>;
        const auto sum = a.sum + b.sum;
        const auto b_rounded = L::subtract_beside(sum, a.sum);
        const auto dropped = L::add_beside(L::subtract_beside(a.sum, sum - b_rounded), b.sum - b_rounded);
        return {sum, L::add_beside(a.error + b.error, dropped)};
    }
    template <class V>
    static Compensated<V> lift(const V& x) { return {x, zero_like(x)}; }
    template <class V>
    static V lower(const Compensated<V>& state) { return round_compensated(state.sum, state.error); }
    template <class T>
    static Compensated<T> neutral() { return {summation_neutral<T>(), summation_neutral<T>()}; }
    template <class T>
    static T identity() { return T(0); }
};

// Summation in double precision for float32 and complex64 elements: vectors hold float64 lanes, filled by widening
// loads and rounded once by narrowing stores.
struct WidenedSummation : AdmitsEvery {
    static constexpr bool adds_beside = true;
    static constexpr bool scans_float16_in_registers = true;
    template <class T, class A>
    using vector = xsimd::batch<double, A>;
    // Elements' states are their double-precision twins; vectors are double already.
    template <class T>
    using state = typename std::conditional<std::is_same<T, float>::value || std::is_same<T, std::complex<float>>::value,
                                            CompensatedState<T>, T>::type;
    template <class V>
    static V apply(const V& a, const V& b) { return a + b; }
    static double lift(float x) { return x; }
    static std::complex<double> lift(std::complex<float> x) { return x; }
    template <class A>
    static xsimd::batch<double, A> lift(const xsimd::batch<double, A>& x) { return x; }
    static float lower(double x) { return float(x); }
    static std::complex<float> lower(std::complex<double> x) { return std::complex<float>(x); }
    template <class A>
    static xsimd::batch<double, A> lower(const xsimd::batch<double, A>& x) { return x; }
    template <class T>
    static state<T> neutral() { return summation_neutral<state<T>>(); }
    template <class T>
    static T identity() { return T(0); }
};

template <bool Larger>
struct NaNFreeExtremum;

// A running maximum (Larger = true) or minimum, NaN propagating as numpy.maximum's: a NaN operand is the result.
// The tables hold the maximum only, of keys (orders_by_key): a minimum is the maximum of keys in reverse order.
template <bool Larger>
struct Extremum : ExactState {
    static constexpr bool selects_an_operand = true;
    static constexpr bool writes_indices = true;
    static constexpr bool has_nan_free_variant = true;
    static constexpr bool orders_by_key = true;
    static constexpr bool scans_segments_together = true;
    using NaNFree = NaNFreeExtremum<Larger>;
    // a is the running value, b the next element: a tie takes b (numpy.maximum.accumulate's float32 and float64 bits
    // for +0.0 against -0.0, and the element whose position a scan with indices reports); a NaN operand is the result.
    template <class V>
    static V apply(const V& a, const V& b) { return pick(either(beats(a, b), is_nan(a)), a, b); }
    // Vectors of integers: the ISA's max / min instructions, whose tied operands have the same bits. Not for floats:
    // x86's return the second operand on a tie of +0.0 and -0.0, and xsimd 8 and 14 pass them in opposite orders.
    template <class T, class A, class = std::enable_if_t<std::is_integral<T>::value>>
    static xsimd::batch<T, A> apply(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b) {
        return Larger ? xsimd::max(a, b) : xsimd::min(a, b);
    }
    template <class V>
    static auto beats(const V& a, const V& b) { return Larger ? a > b : a < b; }
    // Whether the running value beats every lane of x (no tie, no NaN): every output is then the running value, the
    // bits apply gives.
    template <class V>
    static bool stays_ahead(const V& running, const V& x) { return xsimd::all(beats(running, x)); }
    // The value no element beats, the result of an empty range: -inf / the type's lowest for a maximum.
    template <class T>
    static T neutral() {
        using limits = std::numeric_limits<T>;
        if constexpr (limits::has_infinity) {
            return Larger ? -limits::infinity() : limits::infinity();
        } else {
            return Larger ? limits::lowest() : limits::max();
        }
    }
    template <class T>
    static T identity() { return neutral<T>(); }
};
using Maximum = Extremum<true>;

// Extremum of floats where no operand is NaN (the kernels check a block first): the bits Extremum::apply gives
// there, with no NaN test.
template <bool Larger>
struct NaNFreeExtremum : Extremum<Larger> {
    static constexpr bool has_nan_free_variant = false;
    using Extremum<Larger>::apply;
    template <class T, class A, class = std::enable_if_t<std::is_floating_point<T>::value>>
    static xsimd::batch<T, A> apply(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b) {
        return pick(Extremum<Larger>::beats(a, b), a, b);
    }
};

// A running maximum or minimum that skips NaN, as numpy.fmax's: NaN is its neutral element, so the result is NaN only
// until the first number. An empty range still gives -inf (+inf for a minimum).
template <bool Larger>
struct NaNSkippingExtremum : Extremum<Larger> {
    static constexpr bool writes_indices = false;
    static constexpr bool has_nan_free_variant = false;
    static constexpr bool scans_segments_together = false;
    // Unkeyed: a minimum's key of the NaN it starts from, its neutral, would be -NaN.
    static constexpr bool orders_by_key = false;
    template <class V>
    static V apply(const V& a, const V& b) { return pick(either(Extremum<Larger>::beats(a, b), is_nan(b)), a, b); }
    template <class T>
    static T neutral() { return std::numeric_limits<T>::quiet_NaN(); }
};

// LastNumber from a running value that is a number: the element unless it is NaN.
struct LastNumberAfterNumber : ExactState {
    static constexpr bool selects_an_operand = true;
    static constexpr bool scans_segments_together = true;
    template <class V>
    static V apply(const V& a, const V& b) { return pick(is_nan(b), a, b); }
    // A vector of NaN leaves every output the running value.
    template <class V>
    static bool stays_ahead(const V&, const V& x) { return xsimd::all(is_nan(x)); }
    template <class T>
    static T neutral() {
        if constexpr (std::is_floating_point<T>::value) {
            return std::numeric_limits<T>::quiet_NaN();
        } else {
            using R = typename T::value_type;
            return T(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
        }
    }
    template <class T>
    static T identity() { return neutral<T>(); }
};

// Forward fill: the last element in scan order that is not NaN (a complex one with neither part NaN), as pandas'
// ffill; each NaN before the first number stays as it is. It selects, so values keep their bits.
struct LastNumber : LastNumberAfterNumber {
    static constexpr bool has_settled_variant = true;
    using Settled = LastNumberAfterNumber;  // its NaN test of the running value was on the carry chain
    template <class V>
    static V apply(const V& a, const V& b) { return pick(both(is_nan(b), !is_nan(a)), a, b); }
    template <class V>
    static bool stays_ahead(const V& running, const V& x) {
        return xsimd::all(is_nan(x)) && !xsimd::any(is_nan(running));
    }
};

// An op that takes NaN elements as `Replacement` (0 for a sum, 1 for a product), as numpy.nancumsum does. Only input
// elements are replaced: a NaN a running value reaches (inf - inf) stays.
template <class Op, int Replacement>
struct NaNSkipping : Op {
    static constexpr bool admits_every = false;
    static constexpr bool builds_tables = false;
    static constexpr bool scans_segments_together = false;
    static constexpr bool scans_float16_in_registers = false;
    template <class V>
    static V admit(const V& x) { return pick(is_nan(x), V(Replacement), x); }
};
template <class Op>
using NaNSkippingSummation = NaNSkipping<Op, 0>;
using NaNSkippingProduct = NaNSkipping<Product, 1>;

struct LogSumExpSteps;

// log(exp(a) + exp(b)) without overflow or underflow: the larger operand plus log1p(exp(-|a - b|)). Every
// element's running value is a double: float32 sums of many terms would lose digits in the running value.
struct LogAddExp : AdmitsEvery {
    static constexpr bool scans_chunks_from_totals = true;
    // apply rounds the running log and log1p(z) as log(1 + z): once per element, those errors random-walk.
    static constexpr bool has_stepwise_variant = true;
    using Stepwise = LogSumExpSteps;
    // Defined with log-sum-exp's kernels (log_sum_exp_kernels.hpp).
    template <class A, class T, bool Reverse>
    static double scan_span(const T* in, T* out, std::ptrdiff_t n, ScanState<double>& st, bool exclusive);
    template <class A, class T, bool Reverse>
    static double total(const T* in, std::ptrdiff_t n);
    template <class T, class A>
    using vector = xsimd::batch<double, A>;
    template <class T>
    using state = typename std::conditional<std::is_arithmetic<T>::value, double, T>::type;  // vectors are double
    static double apply(double a, double b) { return log_add_exp(a, b); }
    template <class A>
    SIMDSCAN_FLATTEN static xsimd::batch<double, A> apply(const xsimd::batch<double, A>& a,
                                                          const xsimd::batch<double, A>& b) {
        return log_add_exp(a, b);
    }
    static double lift(double x) { return x; }
    template <class A>
    static xsimd::batch<double, A> lift(const xsimd::batch<double, A>& x) { return x; }
    template <class A>
    static xsimd::batch<double, A> lower(const xsimd::batch<double, A>& x) { return x; }
    static double lower(double x) { return x; }  // the kernels round it to the element type
    template <class T>
    static double neutral() { return -std::numeric_limits<double>::infinity(); }
    template <class T>
    static T identity() { return -std::numeric_limits<T>::infinity(); }

private:
    template <class V>
    static V log_add_exp(const V& a, const V& b) {
        // Equal operands (both infinite included, where a - b is NaN) add log(2) to either. So does a NaN operand,
        // the larger one, which the sum then returns as it is: were both terms NaN, the sum would return whichever
        // the compiler put first, and scalar and vector code put them differently.
        const V gap = abs_of(a - b);
        const V distance = pick(gap > V(0.0), gap, V(0.0));
        return Maximum::apply(a, b) + log1p_of(exp_of(-distance));
    }
    static double abs_of(double x) { return std::abs(x); }
    // exp of -distance <= 0, and log1p of z in [0, 1] as log(1 + z), off by at most an ulp of 1 in absolute terms
    // (the tolerance is 1e-13 of max(|result|, 1)); scalars as vectors (exp_log.hpp).
    static double exp_of(double x) { return exp_in_range(x); }
    static double log1p_of(double x) { return log_normal(1.0 + x); }
    template <class A>
    static xsimd::batch<double, A> abs_of(const xsimd::batch<double, A>& x) { return xsimd::abs(x); }
    template <class A>
    static xsimd::batch<double, A> exp_of(const xsimd::batch<double, A>& x) { return exp_in_range(x); }
    template <class A>
    static xsimd::batch<double, A> log1p_of(const xsimd::batch<double, A>& x) {
        return log_normal(xsimd::batch<double, A>(1.0) + x);
    }
};

// LogAddExp element by element: shift + log(sum + error), the terms exp(x - shift) added by TwoSum, the log unrounded.
struct LogSumExpSteps : AdmitsEvery {
    // The shift moves only to an element this far above it: at each new maximum, a rising line's sum would be rescaled.
    static constexpr double shift_lead = 2.0;
    template <class T, class A>
    using vector = xsimd::batch<double, A>;
    template <class T>
    using state = ShiftedSum<typename std::conditional<std::is_arithmetic<T>::value, double, T>::type>;
    template <class V>
    SIMDSCAN_FLATTEN static ShiftedSum<V> apply(const ShiftedSum<V>& a, const V& x) {
        const V gap = x - a.shift;
        const auto moves = gap > V(shift_lead);  // from -inf (nothing yet) to anything above it; never for NaN
        ShiftedSum<V> at = a;
        if (any_of(moves)) {
            const V scale = exp_in_range(a.shift - x);  // at least exp(lowest): NaN stays NaN
            at = {pick(moves, x, a.shift), pick(moves, a.sum * scale, a.sum), pick(moves, a.error * scale, a.error)};
        }
        // x's term is 1 where x is the shift (as both infinities are, where gap is NaN); NaN gives NaN.
        const V term = exp_in_range(pick(x == at.shift, V(0.0), gap));
        const V sum = at.sum + term;  // TwoSum, not Fast2Sum: the term may exceed the sum by up to exp(shift_lead)
        const V term_rounded = sum - at.sum;
        const V dropped = (at.sum - (sum - term_rounded)) + (term - term_rounded);
        return {at.shift, sum, at.error + dropped};
    }
    static double lift(double x) { return x; }
    template <class A>
    static xsimd::batch<double, A> lift(const xsimd::batch<double, A>& x) { return x; }
    // An empty sum is -inf, a NaN one NaN; an infinite shift gives itself.
    template <class V>
    SIMDSCAN_FLATTEN static V lower(const ShiftedSum<V>& state) {
        return log_normal_plus(state.sum + state.error, state.shift);
    }
    template <class T>
    static ShiftedSum<double> neutral() { return {-std::numeric_limits<double>::infinity(), 0.0, 0.0}; }
    template <class T>
    static T identity() { return -std::numeric_limits<T>::infinity(); }
};

// The op the kernels apply one element at a time into states kept aside (OpTraits::has_stepwise_variant).
template <class Op, bool = Op::has_stepwise_variant>
struct stepwise_op {
    using type = Op;
};
template <class Op>
struct stepwise_op<Op, true> {
    using type = typename Op::Stepwise;
};
template <class Op>
using StepwiseOp = typename stepwise_op<Op>::type;

// The compensated sum of elements of type T.
template <class T>
using CompensatedOp = typename std::conditional<std::is_same<CompensatedState<T>, Compensated<T>>::value,
                                                CompensatedSummation, WidenedSummation>::type;

// A scalar state as a stored value of type X: the state itself where X is the state's type (a widened sum's local
// output, TypedKernels::Local), else lowered and converted to X.
template <class Op, class X, class State>
X output_of(const State& state) {
    if constexpr (std::is_same<X, State>::value) {
        return state;
    } else {
        return X(Op::lower(state));
    }
}
// A local output (TypedKernels::Local) as a state again.
template <class Op, class State, class Local>
State state_of(const Local& local) {
    if constexpr (std::is_same<Local, State>::value) {
        return local;
    } else {
        return Op::lift(local);
    }
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
