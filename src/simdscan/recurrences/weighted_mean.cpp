// The exponentially weighted mean's family (pandas' ewm(...).mean(), adjust True and False): its element walks,
// compiled once with the core (kernels.hpp: the tiers' vector kernels call them where weights run low, at gaps and
// for tails), and its walks of a line's chunks and of a tile's rows on the state paths (state_paths.hpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "state_paths.hpp"

namespace simdscan {
namespace detail {

template <class T>
void weighted_mean_elements(const T* x, T* out, std::ptrdiff_t from, std::ptrdiff_t count, T decay, bool ignore_na,
                            WeightedMeanState<T>& at) {
    for (std::ptrdiff_t i = from; i < from + count; ++i) {
        const bool seen = x[i] - x[i] == T(0);  // a number: NaN and +-inf are missing, as pandas takes them
        const T age = seen || !ignore_na ? decay : T(1);
        const T aged = age * at.weights + (seen ? T(1) : T(0));
        at.few = at.few || aged < at.few_weights;  // (from the last mean, which a missing value leaves as it is)
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
            // A missing value's output is the mean before it, as pandas': not the aged sums' quotient, an ulp away.
            at.mean = seen ? at.totals / at.weights : at.mean;
            out[i] = at.mean;
        }
    }
}
template void weighted_mean_elements(const float*, float*, std::ptrdiff_t, std::ptrdiff_t, float, bool,
                                     WeightedMeanState<float>&);
template void weighted_mean_elements(const double*, double*, std::ptrdiff_t, std::ptrdiff_t, double, bool,
                                     WeightedMeanState<double>&);

template <class T>
void recursive_mean_elements(const T* x, T* out, std::ptrdiff_t from, std::ptrdiff_t count, T decay, T alpha,
                             bool ignore_na, RecursiveMeanState<T>& at) {
    for (std::ptrdiff_t i = from; i < from + count; ++i) {
        const T value = x[i];  // read before out[i] is written: out may be x
        const bool seen = value - value == T(0);  // a number: NaN and +-inf are missing, as pandas takes them
        if (!at.seen) {
            if (seen) {
                at = RecursiveMeanState<T>{value, T(1), true};
            }
        } else {
            if (seen || !ignore_na) {
                at.kept = at.kept * decay;
            }
            if (seen) {
                const T total = at.kept + alpha;
                at.mean = at.kept / total * at.mean + alpha / total * value;
                at.kept = T(1);
            }
        }
        out[i] = at.mean;
    }
}
template void recursive_mean_elements(const float*, float*, std::ptrdiff_t, std::ptrdiff_t, float, float, bool,
                                      RecursiveMeanState<float>&);
template void recursive_mean_elements(const double*, double*, std::ptrdiff_t, std::ptrdiff_t, double, double, bool,
                                      RecursiveMeanState<double>&);

template <class T>
void weighted_mean_chunk_elements(const T* x, std::ptrdiff_t from, std::ptrdiff_t count, T decay, bool ignore_na,
                                  WeightedMeanChunk<T>& chunk) {
    for (std::ptrdiff_t i = from; i < from + count; ++i) {
        const bool seen = x[i] - x[i] == T(0);
        const T age = seen || !ignore_na ? decay : T(1);
        chunk.ages = chunk.ages * age;
        chunk.totals = age * chunk.totals + (seen ? x[i] : T(0));
        chunk.weights = age * chunk.weights + (seen ? T(1) : T(0));
        chunk.first = seen && i < chunk.first ? i : chunk.first;
    }
}
template void weighted_mean_chunk_elements(const float*, std::ptrdiff_t, std::ptrdiff_t, float, bool,
                                           WeightedMeanChunk<float>&);
template void weighted_mean_chunk_elements(const double*, std::ptrdiff_t, std::ptrdiff_t, double, bool,
                                           WeightedMeanChunk<double>&);

template <class T>
void recursive_mean_chunk_elements(const T* x, std::ptrdiff_t from, std::ptrdiff_t count, T decay, T alpha,
                                   bool ignore_na, RecursiveMeanChunk<T>& chunk) {
    for (std::ptrdiff_t i = from; i < from + count; ++i) {
        const T value = x[i];
        const bool seen = value - value == T(0);
        if (i < chunk.first) {  // (first: the chunk's length until its first value)
            if (seen) {
                chunk.first = i, chunk.first_value = value;
            } else if (!ignore_na) {
                chunk.lead = chunk.lead * decay;
            }
            continue;
        }
        if (seen || !ignore_na) {
            chunk.kept = chunk.kept * decay;
        }
        if (seen) {
            // The step of recursive_mean_elements, on the pair: mean = kept / total * mean + alpha / total * value.
            const T total = chunk.kept + alpha;
            const T keeps = chunk.kept / total;
            chunk.a = keeps * chunk.a;
            chunk.b = keeps * chunk.b + alpha / total * value;
            chunk.kept = T(1);
        }
    }
}
template void recursive_mean_chunk_elements(const float*, std::ptrdiff_t, std::ptrdiff_t, float, float, bool,
                                            RecursiveMeanChunk<float>&);
template void recursive_mean_chunk_elements(const double*, std::ptrdiff_t, std::ptrdiff_t, double, double, bool,
                                            RecursiveMeanChunk<double>&);

template <class T>
void mean_columns(const WeightedMeanRows<T>& rows, const MeanSteps<T>& steps, std::ptrdiff_t from, std::ptrdiff_t to,
                  std::ptrdiff_t r0, std::ptrdiff_t r1) {
    for (std::ptrdiff_t r = r0; r < r1; ++r) {
        const T* x = row_of(rows.x, rows.x_step, r);
        T* out = row_of(rows.out, rows.out_step, r);
        for (std::ptrdiff_t j = from; j < to; ++j) {
            if (steps.adjust) {
                WeightedMeanState<T> at;
                at.totals = rows.totals[j], at.weights = rows.weights[j], at.few = rows.few[j] != 0;
                at.mean = rows.means[j];
                weighted_mean_elements(x + j, out + j, 0, 1, steps.decay, steps.ignore_na, at);
                rows.totals[j] = at.totals, rows.weights[j] = at.weights, rows.few[j] = at.few ? 1 : 0;
                rows.means[j] = at.mean;
            } else {
                RecursiveMeanState<T> at{rows.means[j], rows.weights[j], rows.few[j] == 0};
                recursive_mean_elements(x + j, out + j, 0, 1, steps.decay, steps.alpha, steps.ignore_na, at);
                rows.means[j] = at.mean, rows.weights[j] = at.kept, rows.few[j] = at.seen ? 0 : 1;
            }
        }
    }
}
template void mean_columns(const WeightedMeanRows<float>&, const MeanSteps<float>&, std::ptrdiff_t, std::ptrdiff_t,
                           std::ptrdiff_t, std::ptrdiff_t);
template void mean_columns(const WeightedMeanRows<double>&, const MeanSteps<double>&, std::ptrdiff_t, std::ptrdiff_t,
                           std::ptrdiff_t, std::ptrdiff_t);

}  // namespace detail

namespace recurrences {
namespace {

// Line (l, c)'s state in CumulativeOperatorDesc::Weighting's record (`initial`: four values of T, in the order of the
// rows' state arrays: totals, weights or kept, mean, few or no value yet), or null where the job carries none.
template <class T>
T* state_record(const RecurrenceJob& desc, std::ptrdiff_t l, std::ptrdiff_t c) {
    return desc.initial == nullptr
               ? nullptr
               : const_cast<T*>(element_at(static_cast<const T*>(desc.initial), desc.initial_strides, l, c, 0));
}
template <class T>
void record_state(T* record, const detail::WeightedMeanState<T>& state) {
    record[0] = state.totals, record[1] = state.weights, record[2] = state.mean, record[3] = T(state.few ? 1 : 0);
}
template <class T>
void record_state(T* record, const detail::RecursiveMeanState<T>& state) {
    record[0] = T(0), record[1] = state.kept, record[2] = state.mean, record[3] = T(state.seen ? 0 : 1);
}
template <class T>
void state_of(const T* record, detail::WeightedMeanState<T>& state) {
    state.totals = record[0], state.weights = record[1], state.mean = record[2], state.few = record[3] != T(0);
}
template <class T>
void state_of(const T* record, detail::RecursiveMeanState<T>& state) {
    state.kept = record[1], state.mean = record[2], state.seen = record[3] == T(0);
}

// A weighted mean's walk of one line (walk_line's Walk): chunk k walked from the state before it, which is the chunks'
// before it composed (after), so that no bit depends on the thread count; staged where the line is not contiguous.
template <class T, bool Adjust>
class MeanLine {
public:
    using State = std::conditional_t<Adjust, detail::WeightedMeanState<T>, detail::RecursiveMeanState<T>>;
    using Chunk = std::conditional_t<Adjust, detail::WeightedMeanChunk<T>, detail::RecursiveMeanChunk<T>>;
    using Summary = Chunk;

    MeanLine(const RecurrenceJob& desc, std::ptrdiff_t k, bool streams)
        : desc_(desc), l_(k / desc.columns), c_(k % desc.columns), decay_(T(1.0 - desc.weighting.alpha)),
          alpha_(T(desc.weighting.alpha)), kernels_(detail::active_kernels().recurrence.get<T>()), streams_(streams) {}

    std::ptrdiff_t chunks() const { return (desc_.n + chunk - 1) / chunk; }
    State initial() const {
        State state;
        if (const T* record = state_record<T>(desc_, l_, c_)) {
            state_of(record, state);
        }
        return state;
    }
    void end(const State& state) const {
        if (T* record = state_record<T>(desc_, l_, c_)) {
            State last = state;
            if (last.mean != last.mean && desc_.n > 0) {
                // A composed mean of no weight left (0 / 0) is the walk's: the line's last output (finish's rule).
                const void* output = element_at(desc_.out, desc_.out_strides, l_, c_, desc_.n - 1);
                last.mean = read_one<T>(output, desc_.out_stored);
            }
            record_state(record, last);
        }
    }
    bool walks(const Chunk&) const { return false; }

    // Chunk k's own composition; where `at` is given, its outputs too, walked from *at (then the state after it).
    Chunk run(std::ptrdiff_t k, State* at) const {
        const std::ptrdiff_t first = k * chunk, count = std::min(chunk, desc_.n - first);
        const T* x = element_at(static_cast<const T*>(desc_.b), desc_.b_strides, l_, c_, first);
        T* out = element_at(static_cast<T*>(desc_.out), desc_.out_strides, l_, c_, first);
        const bool staged_x = staged<T>(desc_.b_strides.step, desc_.b_stored, count);
        const bool staged_out = at != nullptr && staged<T>(desc_.out_strides.step, desc_.out_stored, count);
        const auto buffers = staged_x || staged_out ? ChunkBuffers<T>::of_this_thread() : ChunkBuffers<T>{};
        if (staged_x) {
            detail::read_converted(x, desc_.b_strides.step, count, desc_.b_stored, buffers.values, buffers.scratch);
            x = buffers.values;
        }
        T* to = at == nullptr ? nullptr : staged_out ? buffers.values : out;  // (over the staged x, as in place)
        State unused;
        State& state = at == nullptr ? unused : *at;
        const bool ignore_na = desc_.weighting.ignore_na, streams = streams_ && !staged_out;
        Chunk own;
        if constexpr (Adjust) {
            own = kernels_.weighted_mean(x, to, count, decay_, ignore_na, streams, state);
        } else {
            own = kernels_.recursive_mean(x, to, count, decay_, alpha_, ignore_na, streams, state);
        }
        if (staged_out) {
            detail::write_converted(buffers.values, out, desc_.out_strides.step, count, desc_.out_stored,
                                    buffers.scratch, streams_);
        }
        return own;
    }

    // The state after chunk k (of composition `own`), from the state before it.
    State after(std::ptrdiff_t k, const Chunk& own, const State& at) const {
        const bool any = own.first < std::min(chunk, desc_.n - k * chunk);
        State next = at;
        if constexpr (Adjust) {
            // (Where the weights are few, the sums are the mean's: as weighted_mean_elements leaves that mode.)
            const T totals = !at.few ? at.totals : at.weights == T(0) ? T(0) : at.mean * at.weights;
            next.totals = own.ages * totals + own.totals;
            next.weights = own.ages * at.weights + own.weights;
            next.few = !(next.weights >= State::few_weights);
            next.mean = any ? next.totals / next.weights : at.mean;
        } else if (!any) {
            next.kept = at.kept * own.lead;
        } else {
            T mean = own.first_value;
            if (at.seen) {  // the first value's step, as recursive_mean_elements takes it
                const T kept = at.kept * own.lead * decay_, total = kept + alpha_;
                mean = kept / total * at.mean + alpha_ / total * own.first_value;
            }
            next = State{own.a * mean + own.b, own.kept, true};
        }
        return next;
    }

    // Chunk k's missing values before its first (own.first of them): the output before the chunk, as a walk in one
    // piece carries it (the state's mean is the chunks' composition, rounded apart).
    void finish(std::ptrdiff_t k, const Chunk& own) const {
        if (k == 0) {
            return;
        }
        const T last = read_one<T>(element_at(desc_.out, desc_.out_strides, l_, c_, k * chunk - 1), desc_.out_stored);
        for (std::ptrdiff_t i = k * chunk; i < k * chunk + own.first; ++i) {
            write_one(last, element_at(desc_.out, desc_.out_strides, l_, c_, i), desc_.out_stored);
        }
    }

private:
    const RecurrenceJob& desc_;
    std::ptrdiff_t l_;
    std::ptrdiff_t c_;
    T decay_;
    T alpha_;
    const detail::RecurrenceKernels<T>& kernels_;
    bool streams_;
};

// A weighted mean's states of a tile's columns (walk_rows' Columns): the sums (adjust) or the recursion's mean and
// weight, and whether each column's weights are few (no value yet).
template <class T>
class MeanColumns {
public:
    MeanColumns(const RecurrenceJob& desc, std::ptrdiff_t widest)
        : desc_(desc), totals_(static_cast<std::size_t>(widest)), weights_(totals_.size()), means_(totals_.size()),
          few_(totals_.size()) {}

    void start(std::ptrdiff_t l, std::ptrdiff_t c, std::ptrdiff_t w) {
        l_ = l, c_ = c, w_ = w;
        const detail::WeightedMeanState<T> sums;
        const detail::RecursiveMeanState<T> recursion;
        const bool adjust = desc_.weighting.adjust;
        std::fill(totals_.begin(), totals_.end(), sums.totals);
        std::fill(weights_.begin(), weights_.end(), adjust ? sums.weights : recursion.kept);
        std::fill(means_.begin(), means_.end(), adjust ? sums.mean : recursion.mean);
        std::fill(few_.begin(), few_.end(), std::uint8_t(1));  // few weights; no value yet
        for (std::ptrdiff_t j = 0; desc_.initial != nullptr && j < w; ++j) {
            const T* record = state_record<T>(desc_, l, c + j);
            totals_[std::size_t(j)] = record[0], weights_[std::size_t(j)] = record[1];
            means_[std::size_t(j)] = record[2], few_[std::size_t(j)] = record[3] != T(0) ? 1 : 0;
        }
    }
    void end() const {
        for (std::ptrdiff_t j = 0; desc_.initial != nullptr && j < w_; ++j) {
            T* record = state_record<T>(desc_, l_, c_ + j);
            record[0] = totals_[std::size_t(j)], record[1] = weights_[std::size_t(j)];
            record[2] = means_[std::size_t(j)], record[3] = T(few_[std::size_t(j)]);
        }
    }
    void restart(const std::uint8_t*, std::ptrdiff_t) {}  // (a weighted mean takes no segments)
    void walk(const RowsView<T>& view, bool streams) {
        const auto& kernels = detail::active_kernels().recurrence.get<T>();
        const T decay = T(1.0 - desc_.weighting.alpha), alpha = T(desc_.weighting.alpha);
        const detail::WeightedMeanRows<T> rows{
            view.b, view.b_step, view.out, view.out_step, totals_.data(), weights_.data(), means_.data(), few_.data(),
            view.rows, view.w};
        if (desc_.weighting.adjust) {
            kernels.weighted_mean_rows(rows, decay, desc_.weighting.ignore_na, streams);
        } else {
            kernels.recursive_mean_rows(rows, decay, alpha, desc_.weighting.ignore_na, streams);
        }
    }

private:
    const RecurrenceJob& desc_;
    std::vector<T> totals_;
    std::vector<T> weights_;
    std::vector<T> means_;
    std::vector<std::uint8_t> few_;
    std::ptrdiff_t l_ = 0, c_ = 0, w_ = 0;  // the tile started last
};

}  // namespace

template <class T>
void run_weighted_mean(const RecurrenceJob& desc) {
    if (desc.weighting.adjust) {
        walk_job<T, MeanColumns<T>>(desc, {desc.b}, [&](std::ptrdiff_t l, bool streams) {
            return MeanLine<T, true>(desc, l, streams);
        });
    } else {
        walk_job<T, MeanColumns<T>>(desc, {desc.b}, [&](std::ptrdiff_t l, bool streams) {
            return MeanLine<T, false>(desc, l, streams);
        });
    }
}
template void run_weighted_mean<float>(const RecurrenceJob&);
template void run_weighted_mean<double>(const RecurrenceJob&);

}  // namespace recurrences
}  // namespace simdscan
