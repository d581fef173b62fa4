// linear_recurrence (scan.hpp): each line handed to the active tier's RecurrenceKernels, lines in parallel.
#include <complex>
#include <stdexcept>

#include "dispatch.hpp"
#include "parallel.hpp"
#include "scan.hpp"

namespace simdscan {
namespace {

template <class T>
void recur_lines(const LinearRecurrenceDesc& desc) {
    const auto line = detail::active_kernels().recurrence.get<T>().line[desc.direction == AxisDirection::decreasing];
    const auto* a = static_cast<const T*>(desc.a);
    const T a_value = a == nullptr ? *static_cast<const T*>(desc.a_value) : T();
    const auto* b = static_cast<const T*>(desc.b);
    const auto* initial = static_cast<const T*>(desc.initial);
    auto* out = static_cast<T*>(desc.out);
    const std::ptrdiff_t n = desc.n;
    const std::ptrdiff_t bytes = desc.lines * n * std::ptrdiff_t(sizeof(T)) * (a == nullptr ? 2 : 3);
    detail::parallel_ranges(desc.lines, detail::threads_for(bytes), [&](std::ptrdiff_t begin, std::ptrdiff_t end) {
        for (std::ptrdiff_t l = begin; l < end; ++l) {
            line(a == nullptr ? nullptr : a + l * n, a_value, b + l * n, out + l * n, n, initial[l], desc.exclusive);
        }
    });
}

}  // namespace

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
