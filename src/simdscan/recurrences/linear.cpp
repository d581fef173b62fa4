// The linear recurrence's family (y[i] = a[i] * y[i-1] + b[i]): its element walks, compiled once with the core
// (kernels.hpp: the tiers' vector kernels call them for tails, segment starts and products out of range), and its
// walks of a line's chunks and of a tile's rows on the state paths (state_paths.hpp).
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "state_paths.hpp"

namespace simdscan {
namespace detail {

template <class T>
void recur_elements(const RecurrenceSpan<T>& span, std::ptrdiff_t from, std::ptrdiff_t n, RecurrenceChains<T>& at,
                    RecurrenceModes modes, bool reverse) {
    for (std::ptrdiff_t k = from; k < from + n; ++k) {
        const std::ptrdiff_t i = reverse ? span.n - 1 - k : k;
        const T a = span.a != nullptr ? span.a[i] : span.a_value;
        if (span.starts != nullptr && i < span.readable && span.starts[i] != 0) {
            at = RecurrenceChains<T>{span.initial, span.initial, T(1), true, false};
        }
        const T b = span.b[i];  // read before out[i] is written: out may be b
        if (modes.writes) {
            const T next = a * at.y + b;
            span.out[i] = modes.exclusive ? at.y : next;
            at.y = next;
        }
        at.z = a * at.z + b;
        at.product = at.product * a;
        at.zero_a = at.zero_a || a == T(0);
    }
}
template void recur_elements(const RecurrenceSpan<float>&, std::ptrdiff_t, std::ptrdiff_t, RecurrenceChains<float>&,
                             RecurrenceModes, bool);
template void recur_elements(const RecurrenceSpan<double>&, std::ptrdiff_t, std::ptrdiff_t, RecurrenceChains<double>&,
                             RecurrenceModes, bool);
template void recur_elements(const RecurrenceSpan<std::complex<float>>&, std::ptrdiff_t, std::ptrdiff_t,
                             RecurrenceChains<std::complex<float>>&, RecurrenceModes, bool);
template void recur_elements(const RecurrenceSpan<std::complex<double>>&, std::ptrdiff_t, std::ptrdiff_t,
                             RecurrenceChains<std::complex<double>>&, RecurrenceModes, bool);

template <class T>
void recur_columns(const RecurrenceRows<T>& rows, std::ptrdiff_t from, std::ptrdiff_t to, std::ptrdiff_t r0,
                   std::ptrdiff_t r1, bool exclusive) {
    for (std::ptrdiff_t j = from; j < to; ++j) {
        T y = rows.states[j];
        for (std::ptrdiff_t r = r0; r < r1; ++r) {
            if (r > 0 && rows.starts != nullptr && row_of(rows.starts, rows.starts_step, r - 1)[
                                                       rows.starts_every_column ? 0 : j] != 0) {
                y = rows.initial[j];
            }
            const T* a = rows.a == nullptr ? nullptr : row_of(rows.a, rows.a_step, r);
            const T next =
                (a == nullptr ? rows.a_value : a[rows.a_every_column ? 0 : j]) * y + row_of(rows.b, rows.b_step, r)[j];
            row_of(rows.out, rows.out_step, r)[j] = exclusive ? y : next;
            y = next;
        }
        rows.states[j] = y;
    }
}
template void recur_columns(const RecurrenceRows<float>&, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                            std::ptrdiff_t, bool);
template void recur_columns(const RecurrenceRows<double>&, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                            std::ptrdiff_t, bool);
template void recur_columns(const RecurrenceRows<std::complex<float>>&, std::ptrdiff_t, std::ptrdiff_t,
                            std::ptrdiff_t, std::ptrdiff_t, bool);
template void recur_columns(const RecurrenceRows<std::complex<double>>&, std::ptrdiff_t, std::ptrdiff_t,
                            std::ptrdiff_t, std::ptrdiff_t, bool);

}  // namespace detail

namespace recurrences {
namespace {

// Whether a chunk hands on its walked state: its product of a's overflowed (|a| > 1), inf * a state 0 would be NaN.
template <class T>
bool hands_on_walked(const detail::RecurrencePair<T>& p) {
    if constexpr (std::is_floating_point<T>::value) {
        return !p.restarts && !std::isfinite(p.a);
    } else {
        return !p.restarts && !(std::isfinite(p.a.real()) && std::isfinite(p.a.imag()));
    }
}

// Any NaN as one quiet NaN: which NaN operand survives is the compiler's operand order, not the same in both walks.
template <class T>
T one_nan(T x) {
    if constexpr (std::is_floating_point<T>::value) {
        return std::isnan(x) ? std::numeric_limits<T>::quiet_NaN() : x;
    } else {
        return T(one_nan(x.real()), one_nan(x.imag()));
    }
}

// The state after a chunk of pair p, from the state before it (p from a call that wrote, where hands_on_walked(p)).
template <class T>
T state_after(const detail::RecurrencePair<T>& p, T state) {
    if (hands_on_walked(p)) {
        return p.walked;
    }
    if (p.restarts) {
        return one_nan(p.b);
    }
    if constexpr (std::is_floating_point<T>::value) {
        if (p.a == T(0) && !p.zero_a && std::isinf(state)) {
            // A product that underflowed to 0: element by element, an infinite state stays infinite.
            return one_nan((std::signbit(p.a) ? -state : state) + p.b);
        }
    }
    return one_nan(p.a * state + p.b);
}

// A linear recurrence's walk of one line (walk_line's Walk): its state the recurrence's, a chunk's summary its pair.
template <class T>
class LinearLine {
public:
    using State = T;
    using Summary = detail::RecurrencePair<T>;

    // Line k of the desc's lines x columns: its chunks run on the arrays where an operand's elements are contiguous,
    // and staged where they are not (gathered into a contiguous buffer, the same kernel run there, the outputs
    // scattered back: the same bits).
    LinearLine(const RecurrenceJob& desc, std::ptrdiff_t k, bool streams)
        : desc_(desc), l_(k / desc.columns), c_(k % desc.columns),
          kernel_(detail::active_kernels().recurrence.get<T>().span[reverse()]), streams_(streams) {}

    std::ptrdiff_t chunks() const { return (desc_.n + chunk - 1) / chunk; }

    Summary run(std::ptrdiff_t k, const State* at) const {
        return at == nullptr ? chunk_pair(k, T(), false) : chunk_pair(k, *at, true);
    }
    State after(std::ptrdiff_t, const Summary& pair, const State& before) const { return state_after(pair, before); }
    bool walks(const Summary& pair) const { return hands_on_walked(pair); }
    void finish(std::ptrdiff_t, const Summary&) const {}
    void end(const State&) const {}  // (nothing carried out of the line)

    T initial() const { return *element_at(static_cast<const T*>(desc_.initial), desc_.initial_strides, l_, c_, 0); }

private:
    // Chunk k in walk order: computes its outputs from `state` where `writes`, and returns its pair.
    detail::RecurrencePair<T> chunk_pair(std::ptrdiff_t k, T state, bool writes) const {
        const std::ptrdiff_t n = desc_.n;
        const std::ptrdiff_t first = reverse() ? std::max<std::ptrdiff_t>(0, n - (k + 1) * chunk) : k * chunk;
        const std::ptrdiff_t count = std::min(chunk, n - k * chunk);
        const auto* a = static_cast<const T*>(desc_.a);
        const auto* reset = static_cast<const std::uint8_t*>(desc_.reset);
        // Decreasing, element i begins a segment where i + 1 does in index order (the walk meets each segment's last
        // element first); the line's last element reads no flag.
        const std::ptrdiff_t shift = reverse() ? 1 : 0;
        const std::ptrdiff_t readable = std::min(count, n - shift - first);
        detail::RecurrenceSpan<T> span{
            a == nullptr ? nullptr : element_at(a, desc_.a_strides, l_, c_, first),
            a == nullptr ? *static_cast<const T*>(desc_.a_value) : T(),
            element_at(static_cast<const T*>(desc_.b), desc_.b_strides, l_, c_, first),
            element_at(static_cast<T*>(desc_.out), desc_.out_strides, l_, c_, first),
            count,
            reset == nullptr || readable <= 0 ? nullptr : element_at(reset, desc_.reset_strides, l_, c_, first + shift),
            readable,
            initial()};
        const bool staged_b = staged<T>(desc_.b_strides.step, desc_.b_stored, count);
        const bool staged_a = span.a != nullptr && staged<T>(desc_.a_strides.step, desc_.a_stored, count);
        const bool staged_flags = span.starts != nullptr && desc_.reset_strides.step != 1 && readable > 1;
        const bool staged_out = staged<T>(desc_.out_strides.step, desc_.out_stored, count);
        const auto buffers = staged_b || staged_a || staged_flags || staged_out ? ChunkBuffers<T>::of_this_thread()
                                                                                : ChunkBuffers<T>{};
        if (staged_b) {
            detail::read_converted(span.b, desc_.b_strides.step, count, desc_.b_stored, buffers.values,
                                   buffers.scratch);
            span.b = buffers.values;
        }
        if (staged_a) {
            detail::read_converted(span.a, desc_.a_strides.step, count, desc_.a_stored, buffers.coefficients,
                                   buffers.scratch);
            span.a = buffers.coefficients;
        }
        if (staged_flags) {
            gather_flags(span.starts, desc_.reset_strides.step, buffers.flags, readable);
            span.starts = buffers.flags;
        }
        T* out = span.out;
        if (staged_out) {
            span.out = buffers.values;  // (over the staged b, as in place)
        }
        const auto pair =
            kernel_(span, state, detail::RecurrenceModes{writes, desc_.exclusive, streams_ && !staged_out});
        if (writes && staged_out) {
            detail::write_converted(buffers.values, out, desc_.out_strides.step, count, desc_.out_stored,
                                    buffers.scratch, streams_);
        }
        return pair;
    }

    bool reverse() const { return desc_.direction == AxisDirection::decreasing; }

    const RecurrenceJob& desc_;
    std::ptrdiff_t l_;
    std::ptrdiff_t c_;
    typename detail::RecurrenceKernels<T>::span_fn kernel_;
    bool streams_;
};

// A linear recurrence's states of a tile's columns (walk_rows' Columns): each column's state, and the initial state
// a segment begins from.
template <class T>
class LinearColumns {
public:
    LinearColumns(const RecurrenceJob& desc, std::ptrdiff_t widest)
        : desc_(desc), states_(static_cast<std::size_t>(widest)), initial_(states_.size()) {}

    void start(std::ptrdiff_t l, std::ptrdiff_t c, std::ptrdiff_t w) {
        width_ = w;
        for (std::ptrdiff_t j = 0; j < w; ++j) {
            initial_[std::size_t(j)] =
                *element_at(static_cast<const T*>(desc_.initial), desc_.initial_strides, l, c + j, 0);
        }
        std::copy(initial_.begin(), initial_.begin() + w, states_.begin());
    }
    void restart(const std::uint8_t* flags, std::ptrdiff_t column_step) {
        for (std::ptrdiff_t j = 0; j < width_; ++j) {
            if (flags[j * column_step] != 0) {
                states_[std::size_t(j)] = initial_[std::size_t(j)];
            }
        }
    }
    void walk(const RowsView<T>& view, bool streams) {
        const detail::RecurrenceRows<T> rows{view.a,
                                             view.a_step,
                                             view.a_every_column,
                                             view.a == nullptr ? *static_cast<const T*>(desc_.a_value) : T(),
                                             view.b,
                                             view.b_step,
                                             view.out,
                                             view.out_step,
                                             view.starts,
                                             view.starts_step,
                                             view.starts_column == 0,
                                             initial_.data(),
                                             states_.data(),
                                             view.rows,
                                             view.w};
        detail::active_kernels().recurrence.get<T>().rows(rows, desc_.exclusive, streams);
    }
    void end() const {}  // (nothing carried out of the tile)

private:
    const RecurrenceJob& desc_;
    std::vector<T> states_;
    std::vector<T> initial_;
    std::ptrdiff_t width_ = 0;
};

}  // namespace

template <class T>
void run_linear_recurrence(const RecurrenceJob& desc) {
    walk_job<T, LinearColumns<T>>(desc, {desc.a, desc.b},
                                  [&](std::ptrdiff_t l, bool streams) { return LinearLine<T>(desc, l, streams); });
}
template void run_linear_recurrence<float>(const RecurrenceJob&);
template void run_linear_recurrence<double>(const RecurrenceJob&);
template void run_linear_recurrence<std::complex<float>>(const RecurrenceJob&);
template void run_linear_recurrence<std::complex<double>>(const RecurrenceJob&);

}  // namespace recurrences
}  // namespace simdscan
