// The recurrences' runner: the jobs of a plan of linear_recurrence, weighted_mean or a fill with a limit (scan.hpp's
// operators), each a run of lines whose operands lie evenly, handed to the family's walks on the state paths
// (state_paths.hpp): the README's rule chooses a tile's rows or each line's chunks; lines closer together than their
// elements are gathered a block at a time; an operand the rows path cannot read where it lies is read through a copy.
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../plan.hpp"
#include "state_paths.hpp"

namespace simdscan {
namespace recurrences {
namespace {

// How a view's axes after `axis` lie (those of more than one element): their elements, and whether they are one
// run `unit` bytes apart in C order, or all at stride 0.
struct AfterAxis {
    std::ptrdiff_t count = 1;
    bool contiguous = true;
    bool repeated = true;
};
AfterAxis after_axis(const TensorView& view, std::size_t axis, std::ptrdiff_t unit) {
    AfterAxis after;
    std::ptrdiff_t step = unit;
    for (std::size_t d = view.sizes.size(); d-- > axis + 1;) {
        if (view.sizes[d] > 1) {
            after.count *= view.sizes[d];
            after.contiguous = after.contiguous && view.byte_strides[d] == step;
            after.repeated = after.repeated && view.byte_strides[d] == 0;
            step *= view.sizes[d];
        }
    }
    return after;
}

// The README's rule (determinism): a job's lines are walked a row of columns at a time, each column element by
// element, where its input has more than one element after the axis, those axes one run in C order (in_memory_order
// puts the axes that lie closer together than the scan axis there); else each line has the bits of a contiguous line.
bool walks_rows(const CumulativeOperatorDesc& desc) {
    const AfterAxis after = after_axis(desc.input, desc.axis, std::ptrdiff_t(element_size(desc.input.data_type)));
    return desc.input.sizes[desc.axis] > 1 && after.count > 1 && after.contiguous;
}

// The same description with every view's axes in one new order: the input's axes that lie further apart in memory
// than the scan axis (as they were), the scan axis, then those closer together, the widest first (a Fortran-ordered
// array or a transposed view along its last axis then lies as a C-ordered one along its first).
CumulativeOperatorDesc in_memory_order(const CumulativeOperatorDesc& desc) {
    const std::vector<std::ptrdiff_t>& strides = desc.input.byte_strides;
    const auto apart = [&](std::size_t d) { return std::abs(strides[d]); };
    std::vector<std::size_t> order, closer;
    for (std::size_t d = 0; d < strides.size(); ++d) {
        if (d != desc.axis) {
            (apart(d) < apart(desc.axis) ? closer : order).push_back(d);
        }
    }
    for (std::size_t i = 1; i < closer.size(); ++i) {  // (a stable insertion sort of a few axes)
        for (std::size_t j = i; j > 0 && apart(closer[j - 1]) < apart(closer[j]); --j) {
            std::swap(closer[j - 1], closer[j]);
        }
    }
    CumulativeOperatorDesc sorted = desc;
    sorted.axis = order.size();
    order.push_back(desc.axis);
    order.insert(order.end(), closer.begin(), closer.end());
    for (TensorView CumulativeOperatorDesc::*view : {&CumulativeOperatorDesc::input, &CumulativeOperatorDesc::output,
                                                    &CumulativeOperatorDesc::coefficient,
                                                    &CumulativeOperatorDesc::initial, &CumulativeOperatorDesc::reset}) {
        const TensorView& given = desc.*view;
        if (given.sizes.size() != order.size()) {
            continue;  // (a role not given)
        }
        for (std::size_t d = 0; d < order.size(); ++d) {
            (sorted.*view).sizes[d] = given.sizes[order[d]];
            (sorted.*view).byte_strides[d] = given.byte_strides[order[d]];
        }
    }
    return sorted;
}

// Whether a plan's innermost other axis runs as columns on the rows path: one element apart in every operand that
// the rows kernels read a vector at a time (a byte in the reset; a and the reset may repeat along it; the initial
// states are read one by one).
bool runs_as_columns(const detail::Plan& plan, const CumulativeOperatorDesc& desc) {
    using detail::Role;
    if (plan.others.empty()) {
        return false;
    }
    const detail::Dim& inner = plan.others.back();
    using Operand = std::pair<std::size_t, const TensorView*>;
    const Operand operands[] = {{Role::in, &desc.input}, {Role::out, &desc.output},
                                {Role::coefficient, &desc.coefficient}, {Role::reset, &desc.reset}};
    for (const auto& [role, view] : operands) {
        const std::ptrdiff_t unit = std::ptrdiff_t(element_size(view->data_type));  // (the reset's: a byte)
        const bool may_repeat = role != Role::in && role != Role::out;
        if (plan.has(role) && inner.stride[role] != unit && !(may_repeat && inner.stride[role] == 0)) {
            return false;
        }
    }
    return true;
}

// A plan's operands along the scan axis in index order (make_plan starts a decreasing scan at its last element).
detail::Operands index_order(const detail::Plan& plan, detail::OperandBytes& step) {
    step = plan.step;
    detail::Operands data = plan.data;
    if (plan.decreasing) {
        for (std::size_t role = 0; role < detail::Role::count; ++role) {
            step[role] = -step[role];
            data[role] = data[role] == nullptr ? nullptr : data[role] - (plan.n - 1) * step[role];
        }
    }
    return data;
}

// A job on its family's paths.
template <class T>
void run_job(const RecurrenceJob& job, bool weighted) {
    if (job.fill_limit > 0) {
        run_limited_fill<T>(job);
        return;
    }
    if constexpr (std::is_floating_point<T>::value) {
        if (weighted) {
            run_weighted_mean<T>(job);
            return;
        }
    }
    if constexpr (!std::is_same<T, std::uint16_t>::value) {
        run_linear_recurrence<T>(job);
    }
}

// Lines of a job (one line per row) gathered `count` at a time: the kernels' contiguous lines, not
// one element a cache line where the lines lie closer together than their elements (a Fortran-ordered array along its
// last axis, a transposed view): each block's lines gathered side by side, run on one thread, scattered back.
constexpr std::ptrdiff_t interleaved_block_elements = chunk;

// How many lines a job's blocks hold (0: the job runs as it is): where b's or out's lines are strided (staged)
// and lie closer together than their elements, and at least two lines fit a block; T's own elements only (others
// are converted a chunk of a line at a time).
template <class T>
std::ptrdiff_t interleaved_block(const RecurrenceJob& job) {
    const std::ptrdiff_t size = sizeof(T);
    const auto interleaved = [&](const RecurrenceStrides& strides) {
        return strides.step != size && std::abs(strides.line) < std::abs(strides.step);
    };
    const bool own = holds_own<T>(job.b_stored) && holds_own<T>(job.out_stored) &&
                     (job.a == nullptr || holds_own<T>(job.a_stored));
    if (!own || job.columns != 1 || job.lines < 2 || job.n < 2 ||
        !(interleaved(job.b_strides) || interleaved(job.out_strides))) {
        return 0;
    }
    const std::ptrdiff_t lines = std::min(job.lines, interleaved_block_elements / job.n);
    return lines >= 2 ? lines : 0;
}

// Between element i of line l of a strided operand and element l * n + i of `count` contiguous lines of n, either
// way: in tiles of a few elements of each line, so that both sides go a cache line at a time (one element a cache
// line, else), few enough that a tile's cache lines, a power of two apart, share an L1 set without evicting each other.
constexpr std::ptrdiff_t transpose_tile = 8;
template <bool Gather, class S, class E = std::remove_const_t<S>>
void move_lines(S* strided, const RecurrenceStrides& strides, std::ptrdiff_t count, std::ptrdiff_t n, E* lines) {
    using Byte = std::conditional_t<std::is_const<S>::value, const char, char>;
    for (std::ptrdiff_t i0 = 0; i0 < n; i0 += transpose_tile) {
        const std::ptrdiff_t width = std::min(transpose_tile, n - i0);
        Byte* line = reinterpret_cast<Byte*>(strided) + i0 * strides.step;
        for (std::ptrdiff_t l = 0; l < count; ++l, line += strides.line) {
            E* contiguous = lines + l * n + i0;
            for (std::ptrdiff_t i = 0; i < width; ++i) {
                S* element = reinterpret_cast<S*>(line + i * strides.step);
                if constexpr (Gather) {
                    contiguous[i] = *element;
                } else {
                    *element = contiguous[i];
                }
            }
        }
    }
}

template <class T>
void run_interleaved(const RecurrenceJob& job, bool weighted, std::ptrdiff_t block) {
    const std::ptrdiff_t n = job.n, blocks = (job.lines + block - 1) / block;
    const std::ptrdiff_t size = sizeof(T);
    const std::size_t threads = detail::threads_for(2 * job.lines * n * size);
    detail::parallel_ranges(blocks, threads, [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        const std::size_t elements = static_cast<std::size_t>(block * n);
        std::vector<T> values(elements), coefficients(job.a == nullptr ? 0 : elements);
        std::vector<std::uint8_t> flags(job.reset == nullptr ? 0 : elements);
        const RecurrenceStrides contiguous{n * size, size, 0}, contiguous_flags{n, 1, 0};
        for (std::ptrdiff_t k = begin; k < end; ++k) {
            const std::ptrdiff_t first = k * block, count = std::min(block, job.lines - first);
            RecurrenceJob part = job;
            part.lines = count;
            part.threads = 1;
            const auto* b = element_at(static_cast<const T*>(job.b), job.b_strides, first, 0, 0);
            move_lines<true>(b, job.b_strides, count, n, values.data());
            part.b = part.out = values.data();  // (the outputs over the values, as in place)
            part.b_strides = part.out_strides = contiguous;
            if (job.a != nullptr) {
                move_lines<true>(element_at(static_cast<const T*>(job.a), job.a_strides, first, 0, 0), job.a_strides,
                                 count, n, coefficients.data());
                part.a = coefficients.data();
                part.a_strides = contiguous;
            }
            if (job.reset != nullptr) {
                const auto* starts = static_cast<const std::uint8_t*>(job.reset);
                move_lines<true>(element_at(starts, job.reset_strides, first, 0, 0), job.reset_strides, count, n,
                                 flags.data());
                part.reset = flags.data();
                part.reset_strides = contiguous_flags;
            }
            if (job.initial != nullptr) {
                part.initial = element_at(static_cast<const T*>(job.initial), job.initial_strides, first, 0, 0);
            }
            run_job<T>(part, weighted);
            move_lines<false>(element_at(static_cast<T*>(job.out), job.out_strides, first, 0, 0), job.out_strides,
                              count, n, values.data());
        }
    });
}

// A description's jobs, of its operator and data type (checked by validate): each type's runners compiled once.
template <class T>
void run_each(const std::vector<RecurrenceJob>& jobs, bool weighted) {
    for (RecurrenceJob job : jobs) {
        T a_value;  // a scalar a stored otherwise than as T, converted once
        if (job.a_value != nullptr && !holds_own<T>(job.a_stored)) {
            a_value = read_one<T>(job.a_value, job.a_stored);
            job.a_value = &a_value;
        }
        // (Real types only: the complex recurrences and float16 fills keep each line's own staging.)
        const std::ptrdiff_t block = std::is_floating_point<T>::value ? interleaved_block<T>(job) : 0;
        if constexpr (std::is_floating_point<T>::value) {
            if (block > 0) {
                run_interleaved<T>(job, weighted, block);
                continue;
            }
        }
        run_job<T>(job, weighted);
    }
}

// A plan's jobs, each a run of lines whose operands lie evenly: on the rows path (its innermost other axis the
// columns, runs_as_columns), or line by line.
void run_jobs(const detail::Plan& plan, const CumulativeOperatorDesc& desc, bool rows) {
    using detail::Role;
    detail::OperandBytes step;
    const detail::Operands data = index_order(plan, step);
    std::vector<detail::Dim> lines = plan.others;
    const detail::Dim columns = rows ? lines.back() : detail::Dim{1, {}};
    if (rows) {
        lines.pop_back();
    }
    std::ptrdiff_t count = 1;
    for (const detail::Dim& dim : lines) {
        count *= dim.size;
    }
    const detail::Dim line = detail::innermost(lines);
    // A scalar a (one element at stride 0 everywhere) is read once: the kernels' fast paths take it by value.
    const bool scalar_a = plan.has(Role::coefficient) && step[Role::coefficient] == 0 &&
                          columns.stride[Role::coefficient] == 0 &&
                          std::all_of(lines.begin(), lines.end(), [](const detail::Dim& dim) {
                              return dim.stride[Role::coefficient] == 0;
                          });
    std::vector<RecurrenceJob> jobs;
    detail::for_each_run(lines, 0, count, [&](const detail::LineOffsets& first, std::ptrdiff_t runs) {
        const auto view = [&](std::size_t role) -> std::pair<char*, RecurrenceStrides> {
            if (!plan.has(role)) {
                return {nullptr, {}};
            }
            return {data[role] + first[role], {line.stride[role], step[role], columns.stride[role]}};
        };
        RecurrenceJob job;
        job.lines = runs;
        job.n = plan.n;
        job.columns = columns.size;
        std::tie(job.b, job.b_strides) = view(Role::in);
        std::tie(job.out, job.out_strides) = view(Role::out);
        std::tie(job.initial, job.initial_strides) = view(Role::initial);
        std::tie(job.reset, job.reset_strides) = view(Role::reset);
        std::tie(job.a, job.a_strides) = view(Role::coefficient);
        job.a_stored = {desc.coefficient.data_type, desc.coefficient.byte_swapped};
        job.b_stored = {desc.input.data_type, desc.input.byte_swapped};
        job.out_stored = {desc.output.data_type, desc.output.byte_swapped};
        if (scalar_a) {
            job.a_value = job.a;
            job.a = nullptr;
        }
        job.direction = desc.direction;
        job.exclusive = desc.exclusive;
        job.weighting = desc.weighting;
        job.fill_limit = desc.fill_limit;
        jobs.push_back(job);
    });
    const bool weighted = desc.op == CumulativeOperator::weighted_mean;
    switch (desc.output.data_type) {
        case DataType::float16:  // (computed in float32; a fill's bits selected as they are)
            return desc.fill_limit > 0 ? run_each<std::uint16_t>(jobs, weighted) : run_each<float>(jobs, weighted);
        case DataType::float32: return run_each<float>(jobs, weighted);
        case DataType::float64: return run_each<double>(jobs, weighted);
        case DataType::complex64: return run_each<std::complex<float>>(jobs, weighted);
        case DataType::complex128: return run_each<std::complex<double>>(jobs, weighted);
        default: return;
    }
}

// Copies the elements of a view of `sizes` (`bytes` each) at `from` to `to`, each with its byte strides.
void copy_elements(const char* from, const std::ptrdiff_t* from_strides, char* to, const std::ptrdiff_t* to_strides,
                   const std::ptrdiff_t* sizes, std::size_t rank, std::size_t bytes) {
    for (std::ptrdiff_t i = 0; i < sizes[0]; ++i) {
        if (rank == 1) {
            std::memcpy(to + i * to_strides[0], from + i * from_strides[0], bytes);
        } else {
            copy_elements(from + i * from_strides[0], from_strides + 1, to + i * to_strides[0], to_strides + 1,
                          sizes + 1, rank - 1, bytes);
        }
    }
}

// A view's elements in a C-ordered buffer of its own (a job's operand that the rows path cannot read where it lies).
class StagedView {
public:
    StagedView(TensorView& view, bool read) : view_(&view), given_(view) {
        const std::size_t bytes = element_size(view.data_type);
        std::ptrdiff_t elements = 1;
        for (std::size_t d = view.sizes.size(); d-- > 0;) {
            view.byte_strides[d] = elements * std::ptrdiff_t(bytes);
            elements *= view.sizes[d];
        }
        storage_.resize(std::size_t(elements) * bytes);
        view.data = storage_.data();
        if (read) {
            copy_to(given_, view);
        }
    }
    // Copies the buffer back to the view it stands for (an output).
    void write_back() const { copy_to(*view_, given_); }

private:
    static void copy_to(const TensorView& from, const TensorView& to) {
        if (!from.sizes.empty()) {
            copy_elements(static_cast<const char*>(from.data), from.byte_strides.data(), static_cast<char*>(to.data),
                          to.byte_strides.data(), from.sizes.data(), from.sizes.size(),
                          element_size(from.data_type));
        }
    }

    TensorView* view_;
    TensorView given_;
    std::vector<unsigned char> storage_;
};

}  // namespace
}  // namespace recurrences

namespace detail {

void run_recurrence(const Plan& plan, const CumulativeOperatorDesc& desc) {
    using namespace recurrences;
    const bool rows = walks_rows(desc);
    if (!rows && desc.input.sizes.size() > 1) {
        const CumulativeOperatorDesc sorted = in_memory_order(desc);
        if (walks_rows(sorted)) {
            return run_recurrence(make_plan(sorted), sorted);
        }
    }
    if (!rows || runs_as_columns(plan, desc)) {
        return run_jobs(plan, desc, rows);
    }
    // The rule walks rows, but out, a or the reset do not lie as b does after the axis: those read or written through
    // C-ordered copies (rare layouts: out's rows strided, say).
    CumulativeOperatorDesc staged = desc;
    std::optional<StagedView> copies[3];  // of out, a and the reset
    TensorView* const views[3] = {&staged.output, &staged.coefficient, &staged.reset};
    for (std::size_t k = 0; k < 3; ++k) {
        if (views[k]->data != nullptr) {
            const AfterAxis after = after_axis(*views[k], desc.axis, std::ptrdiff_t(element_size(views[k]->data_type)));
            if (!after.contiguous && !(k > 0 && after.repeated)) {
                copies[k].emplace(*views[k], k > 0);
            }
        }
    }
    const Plan plan_of_copies = make_plan(staged);
    run_jobs(plan_of_copies, staged, runs_as_columns(plan_of_copies, staged));
    if (copies[0]) {
        copies[0]->write_back();
    }
}

}  // namespace detail
}  // namespace simdscan