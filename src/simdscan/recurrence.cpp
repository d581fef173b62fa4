// linear_recurrence and exponentially_weighted_mean (scan.hpp). A linear recurrence's line is cut into chunks at
// fixed places, each chunk's outputs computed from the state before it, and that state from the chunks before by
// their composed pairs (by the chunk's own walk where its product of a's overflowed): on one thread the chunks in
// turn, each with its pair; on several the pairs first, in parallel, then the outputs. The same arithmetic either
// way, so no bit depends on the thread count.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "dispatch.hpp"
#include "kernels.hpp"
#include "parallel.hpp"
#include "plan.hpp"
#include "scan.hpp"

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
void weighted_mean_elements(const T* x, T* out, std::ptrdiff_t from, std::ptrdiff_t count, T decay, bool ignore_na,
                            WeightedMeanState<T>& at) {
    for (std::ptrdiff_t i = from; i < from + count; ++i) {
        const bool seen = x[i] - x[i] == T(0);  // a number: NaN and +-inf are missing, as pandas takes them
        const T age = seen || !ignore_na ? decay : T(1);
        const T aged = age * at.weights + (seen ? T(1) : T(0));
        if (!at.few && aged < at.few_weights) {
            at.few = true;
            at.mean = at.totals / at.weights;
        }
        at.weights = aged;
        if (at.few) {
            const T gain = seen ? T(1) / at.weights : T(0);
            // (A gain of 1: no weight left before this value, the mean NaN before the first.)
            at.mean = gain == T(1) ? x[i] : (T(1) - gain) * at.mean + gain * (seen ? x[i] : T(0));
            out[i] = at.mean;
            if (at.weights >= at.few_weights) {
                at.few = false;
                at.totals = at.mean * at.weights;
            }
        } else {
            at.totals = age * at.totals + (seen ? x[i] : T(0));
            out[i] = at.totals / at.weights;
        }
    }
}
template void weighted_mean_elements(const float*, float*, std::ptrdiff_t, std::ptrdiff_t, float, bool,
                                     WeightedMeanState<float>&);
template void weighted_mean_elements(const double*, double*, std::ptrdiff_t, std::ptrdiff_t, double, bool,
                                     WeightedMeanState<double>&);

}  // namespace detail

namespace {

// Elements per chunk: 256 KiB of float64 (detail::chunk_elements), whatever the type, so that a line's chunks are
// the same for every element type.
constexpr std::ptrdiff_t chunk = std::ptrdiff_t(1) << 15;

template <class T>
class Line {
public:
    Line(const LinearRecurrenceDesc& desc, std::ptrdiff_t l, bool streams)
        : desc_(desc), l_(l), kernel_(detail::active_kernels().recurrence.get<T>().span[reverse()]),
          streams_(streams) {}

    std::ptrdiff_t chunks() const { return (desc_.n + chunk - 1) / chunk; }

    // Chunk k in walk order: computes its outputs from `state` where `writes`, and returns its pair.
    detail::RecurrencePair<T> run(std::ptrdiff_t k, T state, bool writes) const {
        const std::ptrdiff_t n = desc_.n;
        const std::ptrdiff_t first = reverse() ? std::max<std::ptrdiff_t>(0, n - (k + 1) * chunk) : k * chunk;
        const std::ptrdiff_t count = std::min(chunk, n - k * chunk);
        const std::ptrdiff_t at = l_ * n + first;
        const auto* a = static_cast<const T*>(desc_.a);
        const auto* reset = static_cast<const std::uint8_t*>(desc_.reset);
        // Decreasing, element i begins a segment where i + 1 does in index order (the walk meets each segment's last
        // element first); the line's last element reads no flag.
        const std::ptrdiff_t shift = reverse() ? 1 : 0;
        const detail::RecurrenceSpan<T> span{a == nullptr ? nullptr : a + at,
                                             a == nullptr ? *static_cast<const T*>(desc_.a_value) : T(),
                                             static_cast<const T*>(desc_.b) + at,
                                             static_cast<T*>(desc_.out) + at,
                                             count,
                                             reset == nullptr ? nullptr : reset + at + shift,
                                             std::min(count, n - shift - first),
                                             initial()};
        return kernel_(span, state, detail::RecurrenceModes{writes, desc_.exclusive, streams_});
    }

    T initial() const { return static_cast<const T*>(desc_.initial)[l_]; }

private:
    bool reverse() const { return desc_.direction == AxisDirection::decreasing; }

    const LinearRecurrenceDesc& desc_;
    std::ptrdiff_t l_;
    typename detail::RecurrenceKernels<T>::span_fn kernel_;
    bool streams_;
};

// Whether a job's outputs (`elements` of T at out, the job reading in_bytes) go past the caches: large, not over an
// operand (whose lines the caches hold), and aligned to their element (as streaming stores need).
template <class T>
bool streams_outputs(const void* out, std::initializer_list<const void*> operands, std::ptrdiff_t elements,
                     std::ptrdiff_t in_bytes) {
    return std::find(operands.begin(), operands.end(), out) == operands.end() &&
           reinterpret_cast<std::uintptr_t>(out) % sizeof(T) == 0 &&
           detail::streams_past_caches(in_bytes, elements * std::ptrdiff_t(sizeof(T)));
}

// Whether a chunk hands on its walked state: its product of a's overflowed (|a| > 1), inf * a state 0 would be NaN.
template <class T>
bool walks(const detail::RecurrencePair<T>& p) {
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

// The state after a chunk of pair p, from the state before it (p from a call that wrote, where walks(p)).
template <class T>
T after(const detail::RecurrencePair<T>& p, T state) {
    if (walks(p)) {
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

// Few long lines: all the threads on each line's chunks, their pairs, then their outputs.
template <class T>
void recur_chunks_in_parallel(const LinearRecurrenceDesc& desc, std::size_t threads, bool streams) {
    for (std::ptrdiff_t l = 0; l < desc.lines; ++l) {
        const Line<T> line(desc, l, streams);
        const std::ptrdiff_t count = line.chunks();
        std::vector<detail::RecurrencePair<T>> pairs(std::size_t(count - 1));
        detail::parallel_ranges(count - 1, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t k = begin; k < end; ++k) {
                pairs[std::size_t(k)] = line.run(k, T(), false);
            }
        });
        std::vector<T> states(static_cast<std::size_t>(count));
        std::vector<char> written(static_cast<std::size_t>(count));
        states[0] = line.initial();
        for (std::ptrdiff_t k = 1; k < count; ++k) {
            const T before = states[std::size_t(k - 1)];
            if (walks(pairs[std::size_t(k - 1)])) {
                // Its outputs now, as one thread writes them, for the state after it.
                states[std::size_t(k)] = after(line.run(k - 1, before, true), before);
                written[std::size_t(k - 1)] = 1;
            } else {
                states[std::size_t(k)] = after(pairs[std::size_t(k - 1)], before);
            }
        }
        detail::parallel_ranges(count, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t k = begin; k < end; ++k) {
                if (written[std::size_t(k)] == 0) {
                    line.run(k, states[std::size_t(k)], true);
                }
            }
        });
    }
}

template <class T>
void recur_lines(const LinearRecurrenceDesc& desc) {
    const std::ptrdiff_t elements = desc.lines * desc.n;
    const std::ptrdiff_t in_bytes = elements * std::ptrdiff_t(sizeof(T)) * (desc.a == nullptr ? 1 : 2);
    const std::size_t threads = detail::threads_for(in_bytes + elements * std::ptrdiff_t(sizeof(T)));
    const bool streams = streams_outputs<T>(desc.out, {desc.a, desc.b}, elements, in_bytes);
    // The chunks' two passes read the operands twice: on two threads that cost more than the second thread saved
    // (benchmarks/README.md).
    if (std::ptrdiff_t(threads) <= desc.lines || desc.n <= chunk || threads <= 2) {
        // Each line on one thread, its chunks in turn.
        detail::parallel_ranges(desc.lines, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
            for (std::ptrdiff_t l = begin; l < end; ++l) {
                const Line<T> line(desc, l, streams);
                T state = line.initial();
                for (std::ptrdiff_t k = 0; k < line.chunks(); ++k) {
                    state = after(line.run(k, state, true), state);
                }
            }
        });
    } else {
        recur_chunks_in_parallel<T>(desc, threads, streams);
    }
    detail::order_streamed_stores();  // what this thread streamed (the pool's threads order their own)
}

template <class T>
void weighted_means(const WeightedMeanDesc& desc) {
    const auto mean = detail::active_kernels().recurrence.get<T>().weighted_mean;
    const auto* x = static_cast<const T*>(desc.x);
    auto* out = static_cast<T*>(desc.out);
    const std::ptrdiff_t n = desc.n;
    const std::ptrdiff_t elements = desc.lines * n;
    const std::size_t threads = detail::threads_for(elements * std::ptrdiff_t(2 * sizeof(T)));
    const bool streams = streams_outputs<T>(out, {x}, elements, elements * std::ptrdiff_t(sizeof(T)));
    detail::parallel_ranges(desc.lines, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        for (std::ptrdiff_t l = begin; l < end; ++l) {
            mean(x + l * n, out + l * n, n, T(desc.decay), desc.ignore_na, streams);
        }
    });
    detail::order_streamed_stores();  // what this thread streamed (the pool's threads order their own)
}

}  // namespace

void exponentially_weighted_mean(const WeightedMeanDesc& desc) {
    switch (desc.data_type) {
        case DataType::float32: return weighted_means<float>(desc);
        case DataType::float64: return weighted_means<double>(desc);
        default: throw std::invalid_argument("an exponentially weighted mean takes float32 or float64");
    }
}

void linear_recurrence(const LinearRecurrenceDesc& desc) {
    switch (desc.data_type) {
        case DataType::float32: return recur_lines<float>(desc);
        case DataType::float64: return recur_lines<double>(desc);
        case DataType::complex64: return recur_lines<std::complex<float>>(desc);
        case DataType::complex128: return recur_lines<std::complex<double>>(desc);
        default: throw std::invalid_argument("a linear recurrence takes float32, float64, complex64 or complex128");
    }
}

}  // namespace simdscan
