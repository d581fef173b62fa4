// The fill with a limit's family (pandas' ffill(limit=)): its state along a line (the last number walked and the
// elements walked since it), and its walks of a line's chunks and of a tile's rows on the state paths
// (state_paths.hpp). Every output is a selection, so the bits are the element loop's in any walk.
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "state_paths.hpp"

namespace simdscan {
namespace recurrences {
namespace {

// A forward fill's state along a line: the last number walked (where `has`), and the elements walked since it.
template <class T>
struct FillState {
    T value{};
    std::ptrdiff_t gap = 0;
    bool has = false;
};

// An element's bits, as an unsigned integer of its size (a complex one's parts apart).
template <class T>
using BitsOf = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
template <class T>
BitsOf<T> bits_of(const T& x) {
    BitsOf<T> bits;
    std::memcpy(&bits, &x, sizeof(T));
    return bits;
}

// Whether an element is a number (no NaN; a complex one: neither part), as the scan paths' fill takes it: by its
// bits, the magnitude at most infinity's (a float compare would be a branch, mispredicted on NaN data); float16
// elements are their bits.
template <class T>
#if defined(__GNUC__)
[[gnu::always_inline]]
#endif
inline bool is_number(const T& x) {
    if constexpr (std::is_same<T, std::uint16_t>::value) {
        return (x & 0x7fff) <= 0x7c00;
    } else if constexpr (std::is_floating_point<T>::value) {
        constexpr BitsOf<T> sign = BitsOf<T>(1) << (8 * sizeof(T) - 1);
        return (bits_of(x) & BitsOf<T>(~sign)) <= bits_of(std::numeric_limits<T>::infinity());
    } else {
        return is_number(x.real()) && is_number(x.imag());
    }
}

// `yes` where `pick`, else `no`, by their bits (a branch on NaN data is mispredicted as often as it is taken).
template <class T>
#if defined(__GNUC__)
[[gnu::always_inline]]
#endif
inline T choose(bool pick, const T& yes, const T& no) {
    if constexpr (std::is_arithmetic<T>::value) {
        const BitsOf<T> mask = BitsOf<T>(BitsOf<T>(0) - BitsOf<T>(pick));
        const BitsOf<T> bits = BitsOf<T>((bits_of(yes) & mask) | (bits_of(no) & BitsOf<T>(~mask)));
        T chosen;
        std::memcpy(&chosen, &bits, sizeof(T));
        return chosen;
    } else {
        return T(choose(pick, yes.real(), no.real()), choose(pick, yes.imag(), no.imag()));
    }
}

// One step of a fill with a limit: the element into the state, and what stands at its place (itself, or the last
// number where it is NaN and at most `limit` elements follow that number). Inlined into the loops and free of
// branches: this file is compiled for size (CMakeLists.txt), which would leave a call and a branch per element.
template <class T>
#if defined(__GNUC__)
[[gnu::always_inline]]
#endif
inline T fill_step(const T& x, FillState<T>& at, std::ptrdiff_t limit) {
    const bool number = is_number(x);
    at.gap = (at.gap + 1) & (std::ptrdiff_t(number) - 1);  // 0 at a number
    at.value = choose(number, x, at.value);
    at.has = at.has | number;
    return choose(number | !at.has | (at.gap > limit), x, at.value);
}

// Whether the tiers' fill kernels take a limit (their counts exact in float32 lanes), for elements of type T.
template <class T>
bool fills_by_vectors(std::ptrdiff_t limit) {
    return std::is_floating_point<T>::value && limit < (std::ptrdiff_t(1) << 22);
}

// n contiguous elements of a fill's line (from their end where reverse) from state `at`, each output into out; a
// segment begins at element i where starts[i] != 0, i < readable. Returns whether the state after them is their own
// (a number or a segment start among them), not the one before them moved on. Between segment starts: the tier's
// vectors (real types; streamed where `streams`), then one element at a time.
template <class T>
bool fill_elements(const T* in, T* out, std::ptrdiff_t n, const std::uint8_t* starts, std::ptrdiff_t readable,
                   bool reverse, std::ptrdiff_t limit, bool streams, FillState<T>& at) {
    const std::ptrdiff_t step = reverse ? -1 : 1;
    const std::ptrdiff_t first = reverse ? n - 1 : 0;
    bool own = false;
    FillState<T> state = at;  // (a local: through the reference, every step would store it)
    for (std::ptrdiff_t k = 0; k < n;) {
        std::ptrdiff_t end = starts == nullptr ? n : k + 1;  // the run [k, end): no segment start after its first
        while (end < n && !(first + end * step < readable && starts[first + end * step] != 0)) {
            ++end;
        }
        if (starts != nullptr && first + k * step < readable && starts[first + k * step] != 0) {
            state = FillState<T>{};
            own = true;
        }
        std::ptrdiff_t walked = 0;
        if constexpr (std::is_floating_point<T>::value) {
            if (fills_by_vectors<T>(limit)) {
                const T beyond = T(limit + 1);
                detail::FillLanes<T> lanes{state.value, state.has ? std::min(T(state.gap), beyond) : beyond, T(limit),
                                           false};
                const std::ptrdiff_t low = reverse ? n - end : k;  // the run's lowest index
                walked = detail::active_kernels().recurrence.get<T>().limited_fill[reverse](in + low, out + low,
                                                                                             end - k, streams, lanes);
                if (lanes.seen) {
                    state = FillState<T>{lanes.value, std::ptrdiff_t(lanes.gap), true};
                    own = true;
                } else {
                    state.gap += walked;
                }
            }
        }
        for (std::ptrdiff_t j = k + walked; j < end; ++j) {
            const std::ptrdiff_t i = first + j * step;
            const std::ptrdiff_t before = state.gap;
            out[i] = fill_step(in[i], state, limit);  // (in read before out is written: out may be in)
            own = own || state.gap <= before;  // a number
        }
        k = end;
    }
    at = state;
    return own;
}

// Chunk k (in walk order) of line l of a fill's job, from state `at`, its outputs written where `writes`: staged as
// LinearLine's chunks are where an operand is strided (streamed where `streams` and out is not staged). Returns
// fill_elements' answer.
template <class T>
bool fill_chunk(const RecurrenceJob& desc, std::ptrdiff_t l, std::ptrdiff_t k, bool writes, bool streams,
                FillState<T>& at) {
    const bool reverse = desc.direction == AxisDirection::decreasing;
    const std::ptrdiff_t n = desc.n;
    const std::ptrdiff_t first = reverse ? std::max<std::ptrdiff_t>(0, n - (k + 1) * chunk) : k * chunk;
    const std::ptrdiff_t count = std::min(chunk, n - k * chunk);
    const std::ptrdiff_t shift = reverse ? 1 : 0;  // (as LinearLine's: the walk meets a segment's last element first)
    const std::ptrdiff_t readable = std::min(count, n - shift - first);
    const std::ptrdiff_t li = l / desc.columns, c = l % desc.columns;
    const T* in = element_at(static_cast<const T*>(desc.b), desc.b_strides, li, c, first);
    T* out = element_at(static_cast<T*>(desc.out), desc.out_strides, li, c, first);
    const auto* reset = static_cast<const std::uint8_t*>(desc.reset);
    const std::uint8_t* starts =
        reset == nullptr || readable <= 0 ? nullptr : element_at(reset, desc.reset_strides, li, c, first + shift);
    const bool staged_in = staged<T>(desc.b_strides.step, desc.b_stored, count);
    const bool staged_out = writes && staged<T>(desc.out_strides.step, desc.out_stored, count);
    const bool staged_flags = starts != nullptr && desc.reset_strides.step != 1 && readable > 1;
    const auto buffers =
        staged_in || staged_out || staged_flags ? ChunkBuffers<T>::of_this_thread() : ChunkBuffers<T>{};
    if (staged_in) {
        detail::read_converted(in, desc.b_strides.step, count, desc.b_stored, buffers.values, buffers.scratch);
        in = buffers.values;
    }
    if (staged_flags) {
        gather_flags(starts, desc.reset_strides.step, buffers.flags, readable);
        starts = buffers.flags;
    }
    // (Outputs not wanted go to the thread's buffer: one loop for both passes.)
    const auto scratch = writes || staged_in ? buffers : ChunkBuffers<T>::of_this_thread();
    T* target = !writes ? scratch.values : staged_out ? buffers.values : out;
    const bool own = fill_elements(in, target, count, starts, readable, reverse, desc.fill_limit,
                                   streams && target == out, at);
    if (staged_out) {
        detail::write_converted(buffers.values, out, desc.out_strides.step, count, desc.out_stored, buffers.scratch,
                                streams);
    }
    return own;
}

// A fill's walk of one line (walk_line's Walk): a chunk's summary is the state its walk leaves and whether that is
// its own (a number or a segment start in it), not the state before it moved on.
template <class T>
class FillLine {
public:
    using State = FillState<T>;
    struct Summary {
        State end;
        bool own = false;
    };

    FillLine(const RecurrenceJob& desc, std::ptrdiff_t l, bool streams) : desc_(desc), l_(l), streams_(streams) {}

    std::ptrdiff_t chunks() const { return (desc_.n + chunk - 1) / chunk; }
    State initial() const { return State(); }
    Summary run(std::ptrdiff_t k, State* at) const {
        State walked = at == nullptr ? State() : *at;  // (no state before: the outputs go to the thread's buffer)
        const bool own = fill_chunk<T>(desc_, l_, k, at != nullptr, streams_, walked);
        if (at != nullptr) {
            *at = walked;
        }
        return {walked, own};
    }
    State after(std::ptrdiff_t k, const Summary& own, const State& before) const {
        if (own.own) {
            return own.end;
        }
        State moved = before;
        moved.gap += std::min(chunk, desc_.n - k * chunk);
        return moved;
    }
    bool walks(const Summary&) const { return false; }
    void finish(std::ptrdiff_t, const Summary&) const {}
    void end(const State&) const {}  // (nothing carried out of the line)

private:
    const RecurrenceJob& desc_;
    std::ptrdiff_t l_;
    bool streams_;
};

// A fill's states of a tile's columns (walk_rows' Columns): each column's last number and gap, as the vector
// kernels' lanes (limits they take: values and gaps in the element type) or as FillStates (the element loop).
template <class T>
class FillColumns {
public:
    FillColumns(const RecurrenceJob& desc, std::ptrdiff_t widest)
        : desc_(desc), by_vectors_(std::is_floating_point<T>::value && fills_by_vectors<T>(desc.fill_limit)),
          states_(static_cast<std::size_t>(widest)), values_(states_.size()), gaps_(states_.size()) {
        if constexpr (std::is_floating_point<T>::value) {
            limit_ = T(desc.fill_limit);
        }
    }

    void start(std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t w) {
        width_ = w;
        std::fill(states_.begin(), states_.end(), FillState<T>{});
        std::fill(values_.begin(), values_.end(), T());
        std::fill(gaps_.begin(), gaps_.end(), T(limit_ + T(1)));
    }
    void restart(const std::uint8_t* flags, std::ptrdiff_t column_step) {
        for (std::ptrdiff_t j = 0; j < width_; ++j) {
            if (flags[j * column_step] != 0) {
                states_[std::size_t(j)] = FillState<T>{};
                gaps_[std::size_t(j)] = T(limit_ + T(1));  // (nothing to fill from: its value is never read)
            }
        }
    }
    void walk(const RowsView<T>& view, bool streams) {
        if constexpr (std::is_floating_point<T>::value) {
            if (by_vectors_) {
                const detail::FillRows<T> rows{view.b,
                                               view.b_step,
                                               view.out,
                                               view.out_step,
                                               view.starts,
                                               view.starts_step,
                                               view.starts_column,
                                               values_.data(),
                                               gaps_.data(),
                                               limit_,
                                               view.rows,
                                               view.w};
                detail::active_kernels().recurrence.get<T>().limited_fill_rows(rows, streams);
                return;
            }
        }
        for (std::ptrdiff_t r = 0; r < view.rows; ++r) {
            const T* in = reinterpret_cast<const T*>(reinterpret_cast<const char*>(view.b) + r * view.b_step);
            T* out = reinterpret_cast<T*>(reinterpret_cast<char*>(view.out) + r * view.out_step);
            const std::uint8_t* flags =
                view.starts == nullptr || r == 0 ? nullptr : view.starts + (r - 1) * view.starts_step;
            for (std::ptrdiff_t j = 0; j < view.w; ++j) {
                FillState<T>& at = states_[std::size_t(j)];
                if (flags != nullptr && flags[j * view.starts_column] != 0) {
                    at = FillState<T>{};
                }
                out[j] = fill_step(in[j], at, desc_.fill_limit);
            }
        }
    }
    void end() const {}  // (nothing carried out of the tile)

private:
    const RecurrenceJob& desc_;
    bool by_vectors_;
    T limit_{};  // (the vector kernels' limit, in the element type)
    std::vector<FillState<T>> states_;
    std::vector<T> values_;
    std::vector<T> gaps_;
    std::ptrdiff_t width_ = 0;
};

}  // namespace

template <class T>
void run_limited_fill(const RecurrenceJob& desc) {
    walk_job<T, FillColumns<T>>(desc, {desc.b},
                                [&](std::ptrdiff_t l, bool streams) { return FillLine<T>(desc, l, streams); });
}
template void run_limited_fill<std::uint16_t>(const RecurrenceJob&);
template void run_limited_fill<float>(const RecurrenceJob&);
template void run_limited_fill<double>(const RecurrenceJob&);
template void run_limited_fill<std::complex<float>>(const RecurrenceJob&);
template void run_limited_fill<std::complex<double>>(const RecurrenceJob&);

}  // namespace recurrences
}  // namespace simdscan
