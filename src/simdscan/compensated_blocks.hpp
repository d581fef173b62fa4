// Compensated float64 (and complex128) sums a block at a time, the scan running down the lanes instead of across
// them: each of a vector's lanes takes one of the block's sub-chunks, so a step is one TwoSum on whole vectors, where
// the in-register scan pays log2(lanes) + 2 TwoSums per vector and moves sums and errors across lanes for each
// (benchmarks/README.md). The sub-chunks' starts come from a first pass that sums each; squares of lanes x lanes
// elements are turned about their diagonal (Lanes::transpose) on the way in and out.
#pragma once

#include <complex>
#include <cstddef>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "kernels.hpp"
#include "ops.hpp"
#include "vector_state.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// The doubles of one block on every tier (256 complex128 elements): the grouping of its additions, and so its bits,
// depends on where blocks start, which staging's blocks (1024 elements) and the chunks keep by being multiples of it.
constexpr std::ptrdiff_t compensated_block_doubles = 512;

// Compensated float64 sums, NaN-skipping ones too (their elements admitted as they are loaded), and compensated
// complex128 sums: a complex line is the two sums of its parts, interleaved (a NaN-skipping one would skip both
// parts of a complex NaN, which the parts apart cannot see).
template <class A, class T, class Op>
constexpr bool scans_compensated_blocks() {
    if constexpr (std::is_same<T, std::complex<double>>::value) {
        return std::is_same<Op, CompensatedSummation>::value;
    } else {
        return std::is_base_of<CompensatedSummation, Op>::value && std::is_same<T, double>::value;
    }
}

// running + x, x a vector of elements (no error of its own): TwoSum, its additions spread as CompensatedSummation's,
// without apply's addition of x's zero error (which signed zeros keep the compiler from dropping), work for nothing
// (benchmarks/README.md).
template <class A, class B>
SIMDSCAN_ALWAYS_INLINE Compensated<B> add_elements(const Compensated<B>& running, const B& x) {
    using L = Lanes<A>;
    const B sum = running.sum + x;
    const B x_rounded = L::subtract_beside(sum, running.sum);
    const B dropped = L::add_beside(L::subtract_beside(running.sum, sum - x_rounded), x - x_rounded);
    return {sum, running.error + dropped};
}

// scan_compensated_blocks on n doubles, the interleaved parts of elements of Parts doubles: lane l of a vector, and
// row j of a square, hold part l % Parts (j % Parts), as every vector starts a multiple of the lanes into the line.
template <class A, class Op, int Parts, bool Reverse, class Elements, class Outputs>
std::ptrdiff_t scan_blocks_of_parts(const Elements& elements, Outputs& outputs, std::ptrdiff_t n,
                                    const Compensated<double> (&base)[Parts], Compensated<double> (&carry)[Parts],
                                    SpanModes modes) {
    using B = xsimd::batch<double, A>;
    using V = Compensated<B>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    constexpr std::ptrdiff_t block = compensated_block_doubles;
    constexpr std::ptrdiff_t rows = block / lanes;  // elements of a sub-chunk, a lane's share
    static_assert(rows % lanes == 0 && lanes % Parts == 0, "sub-chunks are whole squares of whole elements");
    const V fill = splat<B>(Op::template neutral<double>());
    alignas(A::alignment()) double base_sums[lanes];
    alignas(A::alignment()) double base_errors[lanes];
    for (std::ptrdiff_t l = 0; l < lanes; ++l) {
        base_sums[l] = base[l % Parts].sum;
        base_errors[l] = base[l % Parts].error;
    }
    const V base_lanes{B::load_aligned(base_sums), B::load_aligned(base_errors)};
    std::ptrdiff_t done = 0;
    for (; done + block <= n; done += block) {
        const std::ptrdiff_t first = Reverse ? n - done - block : done;
        // Each sub-chunk's sum, kept in lanes apart, reading in scan order (the first read from memory). Only the
        // first block asks ahead here: the second pass of each block asks for the next one whole (below).
        const bool asks_ahead = Elements::prefetches && done == 0;
        B sums[lanes];
        B errors[lanes];
        for (std::ptrdiff_t s = 0; s < lanes; ++s) {
            const std::ptrdiff_t k = Reverse ? lanes - 1 - s : s;
            V sum{};
            for (std::ptrdiff_t i = 0; i < rows; i += lanes) {
                const std::ptrdiff_t at = first + k * rows + (Reverse ? rows - lanes - i : i);
                if (asks_ahead) {
                    prefetch_ahead<Reverse>(elements.address(at));
                }
                const B x = Op::admit(elements.template vector<B>(at));
                sum = i == 0 ? V{x, B(0.0)} : add_elements<A>(sum, x);
            }
            sums[k] = sum.sum;
            errors[k] = sum.error;
        }
        // Lane k of each part's sub-chunk totals, then the state before each sub-chunk and after the block.
        Lanes<A>::transpose(sums);
        Lanes<A>::transpose(errors);
        V totals[Parts];
        auto finite = xsimd::batch_bool<double, A>(true);
        for (int p = 0; p < Parts; ++p) {
            totals[p] = V{sums[p], errors[p]};
            for (std::ptrdiff_t l = p + Parts; l < lanes; l += Parts) {
                totals[p] = Op::apply(totals[p], V{sums[l], errors[l]});
            }
            finite = finite && xsimd::isfinite(totals[p].sum);
        }
        if (!xsimd::all(finite)) {
            // An infinity or NaN, or a first-pass sum (of a lane's elements, in no prefix) that overflowed: the rest
            // of the line goes across the lanes, as it did before the blocks (±big alternating stays exact).
            break;
        }
        V running[Parts];
        for (int p = 0; p < Parts; ++p) {
            const V through = vector_prefix<A, Op, Reverse, 1, B::size>(totals[p], fill);
            const V before = splat<B>(carry[p]);
            running[p] = Op::apply(before, shifted<A, Reverse, 1>(through, fill));
            carry[p] = first_lane(Op::apply(before, broadcast_total<A, Reverse>(through)));
        }
        // The scan down the lanes, a square at a time, its outputs turned back as they are stored.
        for (std::ptrdiff_t i = 0; i < rows; i += lanes) {
            const std::ptrdiff_t column = Reverse ? rows - lanes - i : i;
            if (Elements::prefetches && done + 2 * block <= n) {
                // The next block's elements and outputs, a square's share of their cache lines at each square: this
                // pass reads only L1, and without them the memory idles while it runs (benchmarks/README.md).
                constexpr std::ptrdiff_t share = block / (rows / lanes);
                const std::ptrdiff_t next = (Reverse ? first - block : first + block) + i / lanes * share;
                for (std::ptrdiff_t line = 0; line < share; line += 64 / std::ptrdiff_t(sizeof(double))) {
                    prefetch(elements.address(next + line));
                    prefetch_for_write(outputs, next + line);
                }
            }
            B square[lanes];
            for (std::ptrdiff_t k = 0; k < lanes; ++k) {
                square[k] = Op::admit(elements.template vector<B>(first + k * rows + column));
            }
            Lanes<A>::transpose(square);
            for (std::ptrdiff_t s = 0; s < lanes; ++s) {
                const std::ptrdiff_t j = Reverse ? lanes - 1 - s : s;
                V& part = running[j % Parts];
                const B x = square[j];
                if (modes.exclusive) {
                    square[j] = Op::lower(part);
                }
                part = add_elements<A>(part, x);
                if (!modes.exclusive) {
                    square[j] = Op::lower(part);
                }
            }
            Lanes<A>::transpose(square);
            for (std::ptrdiff_t k = 0; k < lanes; ++k) {
                if (modes.has_base) {
                    square[k] = Op::lower(Op::apply(base_lanes, Op::lift(square[k])));
                }
                outputs.vector(first + k * rows + column, square[k]);
            }
        }
    }
    return done;
}

// scan_steps' whole blocks of n float64 or complex128 elements in scan order, from `carry` (updated); Elements and
// Outputs give the elements' doubles (scan_kernels.hpp's parts_of), and take the outputs a vector at a time as they
// are computed (ArrayOutputs: streamed ones would need them in order, see streams_lines). Returns how many elements
// the blocks took.
template <class A, class Op, bool Reverse, class T, class Elements, class Outputs>
std::ptrdiff_t scan_compensated_blocks(const Elements& elements, Outputs& outputs, std::ptrdiff_t n,
                                       const Compensated<T>& base, Compensated<T>& carry, SpanModes modes) {
    if constexpr (std::is_same<T, double>::value) {
        const Compensated<double> bases[1] = {base};
        Compensated<double> carries[1] = {carry};
        const std::ptrdiff_t done =
            scan_blocks_of_parts<A, Op, 1, Reverse>(elements, outputs, n, bases, carries, modes);
        carry = carries[0];
        return done;
    } else {
        const Compensated<double> bases[2] = {{base.sum.real(), base.error.real()},
                                              {base.sum.imag(), base.error.imag()}};
        Compensated<double> carries[2] = {{carry.sum.real(), carry.error.real()},
                                          {carry.sum.imag(), carry.error.imag()}};
        const std::ptrdiff_t done =
            scan_blocks_of_parts<A, Op, 2, Reverse>(elements, outputs, 2 * n, bases, carries, modes);
        carry = {{carries[0].sum, carries[1].sum}, {carries[0].error, carries[1].error}};
        return done / 2;
    }
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
