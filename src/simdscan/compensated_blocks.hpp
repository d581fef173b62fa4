// Compensated float64 sums a block at a time, the scan running down the lanes instead of across them: each of a
// vector's lanes takes one of the block's sub-chunks, so a step is one TwoSum on whole vectors, where the
// in-register scan pays log2(lanes) + 2 TwoSums per vector and moves sums and errors across lanes for each (it took
// 3.8x the plain scan's time on Zen 4, the blocks 2.2x). The sub-chunks' starts come from a first pass that sums
// each; squares of lanes x lanes elements are turned about their diagonal (Lanes::transpose) on the way in and out.
#pragma once

#include <cstddef>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "kernels.hpp"
#include "ops.hpp"
#include "vector_state.hpp"

namespace simdscan {
namespace detail {
namespace SIMDSCAN_TIER {

// The elements of one block on every tier: the grouping of its additions, and so its bits, depends on where blocks
// start, which staging's blocks (1024) and the chunks keep by being multiples of it.
constexpr std::ptrdiff_t compensated_block_elements = 512;

// Compensated float64 sums, NaN-skipping ones too (their elements admitted as they are loaded).
template <class A, class T, class Op>
constexpr bool scans_compensated_blocks() {
    return std::is_base_of<CompensatedSummation, Op>::value && std::is_same<T, double>::value;
}

// running + x, x a vector of elements (no error of its own): TwoSum, its additions spread as CompensatedSummation's.
template <class A, class B>
SIMDSCAN_ALWAYS_INLINE Compensated<B> add_elements(const Compensated<B>& running, const B& x) {
    using L = Lanes<A>;
    const B sum = running.sum + x;
    const B x_rounded = L::subtract_beside(sum, running.sum);
    const B dropped = L::add_beside(L::subtract_beside(running.sum, sum - x_rounded), x - x_rounded);
    return {sum, running.error + dropped};
}

// scan_steps' whole blocks of n float64 elements in scan order, from `carry` (updated), their outputs given to
// `outputs` (ArrayOutputs: streamed ones would need them in order, see streams_lines) a vector at a time as they
// are computed. Returns how many elements the blocks took.
template <class A, class Op, bool Reverse, bool Exclusive, bool HasBase, class Elements, class Outputs>
std::ptrdiff_t scan_compensated_blocks(const Elements& elements, Outputs& outputs, std::ptrdiff_t n,
                                       const Compensated<double>& base, Compensated<double>& carry) {
    using B = xsimd::batch<double, A>;
    using V = Compensated<B>;
    constexpr std::ptrdiff_t lanes = std::ptrdiff_t(B::size);
    constexpr std::ptrdiff_t block = compensated_block_elements;
    constexpr std::ptrdiff_t rows = block / lanes;  // elements of a sub-chunk, a lane's share
    static_assert(rows % lanes == 0, "sub-chunks are whole squares");
    const V fill = splat<B>(Op::template neutral<double>());
    const V base_lanes = splat<B>(base);
    std::ptrdiff_t done = 0;
    for (; done + block <= n; done += block) {
        const std::ptrdiff_t first = Reverse ? n - done - block : done;
        // Each sub-chunk's sum, kept in lanes apart, reading in scan order (the first read from memory).
        B sums[lanes];
        B errors[lanes];
        for (std::ptrdiff_t s = 0; s < lanes; ++s) {
            const std::ptrdiff_t k = Reverse ? lanes - 1 - s : s;
            V sum{};
            for (std::ptrdiff_t i = 0; i < rows; i += lanes) {
                const std::ptrdiff_t at = first + k * rows + (Reverse ? rows - lanes - i : i);
                if constexpr (Elements::prefetches) {
                    prefetch_ahead<Reverse>(elements.address(at));
                }
                const B x = Op::admit(elements.template vector<B>(at));
                sum = i == 0 ? V{x, B(0.0)} : add_elements<A>(sum, x);
            }
            sums[k] = sum.sum;
            errors[k] = sum.error;
        }
        // Lane k of the sub-chunks' totals, then the state before each sub-chunk and after the block.
        Lanes<A>::transpose(sums);
        Lanes<A>::transpose(errors);
        V totals{sums[0], errors[0]};
        for (std::ptrdiff_t l = 1; l < lanes; ++l) {
            totals = Op::apply(totals, V{sums[l], errors[l]});
        }
        const V through = vector_prefix<A, Op, Reverse, 1, B::size>(totals, fill);
        const V before = splat<B>(carry);
        V running = Op::apply(before, shifted<A, Reverse, 1>(through, fill));
        carry = first_lane(Op::apply(before, broadcast_total<A, Reverse>(through)));
        // The scan down the lanes, a square at a time, its outputs turned back as they are stored.
        for (std::ptrdiff_t i = 0; i < rows; i += lanes) {
            const std::ptrdiff_t column = Reverse ? rows - lanes - i : i;
            B square[lanes];
            for (std::ptrdiff_t k = 0; k < lanes; ++k) {
                square[k] = Op::admit(elements.template vector<B>(first + k * rows + column));
            }
            Lanes<A>::transpose(square);
            for (std::ptrdiff_t s = 0; s < lanes; ++s) {
                const std::ptrdiff_t j = Reverse ? lanes - 1 - s : s;
                const B x = square[j];
                if constexpr (Exclusive) {
                    square[j] = Op::lower(running);
                }
                running = add_elements<A>(running, x);
                if constexpr (!Exclusive) {
                    square[j] = Op::lower(running);
                }
            }
            Lanes<A>::transpose(square);
            for (std::ptrdiff_t k = 0; k < lanes; ++k) {
                if constexpr (HasBase) {
                    square[k] = Op::lower(Op::apply(base_lanes, Op::lift(square[k])));
                }
                outputs.vector(first + k * rows + column, square[k]);
            }
        }
    }
    return done;
}

}  // namespace SIMDSCAN_TIER
}  // namespace detail
}  // namespace simdscan
