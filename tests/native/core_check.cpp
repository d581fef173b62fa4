// A Python-free check of the core, for targets CI can only emulate (arm64 under qemu-user) and for the sanitizers:
// on every ISA tier that is compiled in and that this CPU runs, one after another in this process (select_isa),
// every path (long and short lines, a line split among threads, outer axis, both directions, exclusive) against a
// sequential reference, integers exactly; compensated float sums within their bound of 2u * sum|x| (the values are
// positive) against a long double reference; uint8 widened to int32 and float64; and, once, the path that
// choose_path picks for a few layouts. Exits 1 on any mismatch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "simdscan/dispatch.hpp"
#include "simdscan/plan.hpp"
#include "simdscan/scan.hpp"

using simdscan::AxisDirection;
using simdscan::CumulativeOperator;
using simdscan::DataType;
using simdscan::detail::Path;

// a + b or a * b, integers wrapping around as the scan's do (in their unsigned type: signed overflow is undefined, and
// narrow types would be promoted to int).
template <class T>
T combined(T a, T b, bool product) {
    if constexpr (std::is_integral<T>::value) {
        using Wide = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
        const Wide x = Wide(std::make_unsigned_t<T>(a)), y = Wide(std::make_unsigned_t<T>(b));
        return T(std::make_unsigned_t<T>(product ? x * y : x + y));
    } else {
        return T(product ? a * b : a + b);
    }
}

template <class T>
long mismatches(DataType type, CumulativeOperator op, std::ptrdiff_t rows, std::ptrdiff_t cols, std::size_t axis,
                bool reverse, bool exclusive, bool compensated = false) {
    const bool product = op == CumulativeOperator::product;
    std::mt19937 random(7);
    std::vector<T> in(std::size_t(rows * cols)), out(in.size());
    for (T& value : in) {
        if constexpr (std::is_floating_point<T>::value) {
            const double draw = double(random() % (product ? 100 : 7));  // below 100: exact as a double
            value = product ? T(1.0 + draw * 1e-7) : T((compensated ? 0.1 : 1.0) * draw);
        } else {
            value = T(product ? 1 + random() % 2 : random() % 7);
        }
    }
    const std::vector<std::ptrdiff_t> sizes{rows, cols};
    const std::vector<std::ptrdiff_t> strides{std::ptrdiff_t(cols * sizeof(T)), std::ptrdiff_t(sizeof(T))};
    simdscan::CumulativeOperatorDesc desc;
    desc.op = op;
    desc.input = {in.data(), type, sizes, strides, false};
    desc.output = {out.data(), type, sizes, strides, false};
    desc.axis = axis;
    desc.direction = reverse ? AxisDirection::decreasing : AxisDirection::increasing;
    desc.exclusive = exclusive;
    desc.compensated = compensated;
    simdscan::execute(desc);

    long bad = 0;
    const std::ptrdiff_t lines = axis == 1 ? rows : cols;
    const std::ptrdiff_t length = axis == 1 ? cols : rows;
    for (std::ptrdiff_t line = 0; line < lines; ++line) {
        long double exact = product ? 1 : 0;
        T wrapped = T(exact);
        for (std::ptrdiff_t k = 0; k < length; ++k) {
            const std::ptrdiff_t at = reverse ? length - 1 - k : k;
            const std::size_t index = std::size_t(axis == 1 ? line * cols + at : at * cols + line);
            const long double exact_before = exact;
            const T wrapped_before = wrapped;
            exact = product ? exact * (long double)in[index] : exact + (long double)in[index];
            wrapped = combined(wrapped, in[index], product);
            if constexpr (std::is_floating_point<T>::value) {
                const long double want = exclusive ? exact_before : exact;
                const long double error = std::fabs((long double)out[index] - want);
                bad += compensated ? error > std::numeric_limits<T>::epsilon() * want
                                   : error > 1e-4L * std::fabs(want) + 1e-4L;
            } else {
                bad += out[index] != (exclusive ? wrapped_before : wrapped);
            }
        }
    }
    return bad;
}

// uint8 widened to int32 or float64 (widens_exactly): a summed-area table in one pass (rows in int32 lanes, the
// column's step in the table's type), both orders of the axes, and a single axis (the input converted into the
// output, then scanned in place), against sequential sums; and the descriptions validate rejects: a narrowing, and a
// widening from a byte-swapped input.
template <class T>
long table_mismatches(const std::vector<std::uint8_t>& in, std::ptrdiff_t rows, std::ptrdiff_t cols, DataType type,
                      simdscan::CumulativeOperatorDesc& desc) {
    std::vector<T> out(in.size());
    const std::ptrdiff_t size = sizeof(T);
    desc.output = {out.data(), type, {rows, cols}, {cols * size, size}, false};
    long bad = 0;
    for (std::size_t first : {0, 1}) {
        for (bool two_axes : {true, false}) {
            desc.axis = first;
            desc.then.reset();
            if (two_axes) {
                desc.then = simdscan::AxisScan{1 - first, AxisDirection::increasing, false};
            }
            simdscan::execute(desc);
            for (std::ptrdiff_t r = 0; r < rows; ++r) {
                for (std::ptrdiff_t c = 0; c < cols; ++c) {
                    std::int32_t want = 0;  // the sum over the rectangle (or column, or row) ending at (r, c)
                    for (std::ptrdiff_t i = (two_axes || first == 0) ? 0 : r; i <= r; ++i) {
                        for (std::ptrdiff_t j = (two_axes || first == 1) ? 0 : c; j <= c; ++j) {
                            want += in[std::size_t(i * cols + j)];
                        }
                    }
                    bad += out[std::size_t(r * cols + c)] != T(want);
                }
            }
        }
    }
    return bad;
}

long widening_mismatches() {
    const std::ptrdiff_t rows = 9, cols = 300;  // rows past a conversion block (256) with a ragged tail
    std::vector<std::uint8_t> in(std::size_t(rows * cols));
    std::mt19937 random(11);
    for (std::uint8_t& value : in) {
        value = std::uint8_t(random() % 256);
    }
    simdscan::CumulativeOperatorDesc desc;
    desc.input = {in.data(), DataType::uint8, {rows, cols}, {cols, 1}, false};
    long bad = table_mismatches<double>(in, rows, cols, DataType::float64, desc);
    bad += table_mismatches<std::int32_t>(in, rows, cols, DataType::int32, desc);
    std::vector<std::int32_t> out(in.size());
    desc.output = {out.data(), DataType::int32, {rows, cols}, {std::ptrdiff_t(cols * 4), 4}, false};
    for (const bool swapped : {false, true}) {
        simdscan::CumulativeOperatorDesc invalid = desc;
        invalid.output.data_type = swapped ? DataType::int32 : DataType::int8;
        invalid.input.byte_swapped = swapped;
        try {
            simdscan::execute(invalid);
            std::printf("uint8 scanned into %s\n", swapped ? "int32 from a byte-swapped input" : "int8");
            ++bad;
        } catch (const std::invalid_argument&) {
        }
    }
    return bad;
}

// The path a job over `type` elements of the buffer `data` takes (byte_swapped: both views).
Path path_of(DataType type, void* data, std::vector<std::ptrdiff_t> sizes, std::vector<std::ptrdiff_t> strides,
             std::size_t axis, bool byte_swapped = false) {
    simdscan::CumulativeOperatorDesc desc;
    desc.input = {data, type, sizes, strides, byte_swapped};
    desc.output = desc.input;
    desc.axis = axis;
    return simdscan::detail::choose_path(simdscan::detail::make_plan(desc));
}

long wrong_paths() {
    std::vector<double> data(64 * 64);  // aligned for every element type
    const std::ptrdiff_t f = sizeof(float);
    const struct {
        Path path;
        DataType type;
        std::vector<std::ptrdiff_t> sizes, strides;
        std::size_t axis;
        bool byte_swapped;
    } cases[] = {
        {Path::direct, DataType::float32, {64, 64}, {64 * f, f}, 1, false},           // contiguous scan axis
        {Path::direct, DataType::float32, {64, 64}, {64 * f, -f}, 1, false},          // ... walked backwards
        {Path::outer, DataType::float32, {64, 64}, {64 * f, f}, 0, false},            // contiguous other axis
        {Path::outer_buffered, DataType::float32, {64, 64}, {64 * f, f}, 0, true},    // ... byte-swapped
        {Path::outer_buffered, DataType::float16, {64, 64}, {64 * 2, 2}, 0, false},   // ... converted
        {Path::outer_buffered, DataType::float32, {64, 32}, {64 * f, 2 * f}, 0, false},  // ... strided
        {Path::lines_buffered, DataType::float32, {64, 4}, {4 * f, f}, 0, false},     // too few columns for rows
        {Path::lines_buffered, DataType::float32, {64, 32}, {64 * f, 2 * f}, 1, false},  // strided scan axis
        {Path::lines_buffered, DataType::float32, {64, 64}, {64 * f, f}, 1, true},    // byte-swapped scan axis
        {Path::lines_buffered, DataType::float16, {64, 64}, {64 * 2, 2}, 1, false},   // float16 scan axis
    };
    long bad = 0;
    for (const auto& c : cases) {
        const Path path = path_of(c.type, data.data(), c.sizes, c.strides, c.axis, c.byte_swapped);
        if (path != c.path) {
            std::printf("axis %zu of a %zd x %zd layout takes path %d, not %d\n", c.axis, c.sizes[0], c.sizes[1],
                        int(path), int(c.path));
            ++bad;
        }
    }
    return bad;
}

// Every path, type and mode on the active tier.
long mismatches_on_active_tier() {
    long bad = 0;
    // {1, 400001}: a line past the thread pool's 1 MiB, its chunks scanned in turn and then rebased (main's 3 threads).
    const std::pair<std::ptrdiff_t, std::ptrdiff_t> shapes[] = {
        {1, 1000}, {37, 129}, {1000, 8}, {3, 70001}, {1, 400001}};
    for (auto op : {CumulativeOperator::summation, CumulativeOperator::product}) {
        for (std::size_t axis : {0, 1}) {
            for (bool reverse : {false, true}) {
                for (bool exclusive : {false, true}) {
                    for (auto shape : shapes) {
                        const auto [rows, cols] = shape;
                        if (axis == 0 && rows == 1 && cols > 1000) {
                            continue;  // lines of one element: {1, 1000} has them, and qemu is slow to walk 400001
                        }
                        bad += mismatches<float>(DataType::float32, op, rows, cols, axis, reverse, exclusive);
                        bad += mismatches<double>(DataType::float64, op, rows, cols, axis, reverse, exclusive);
                        bad += mismatches<std::int32_t>(DataType::int32, op, rows, cols, axis, reverse, exclusive);
                        bad += mismatches<std::int64_t>(DataType::int64, op, rows, cols, axis, reverse, exclusive);
                        bad += mismatches<std::uint8_t>(DataType::uint8, op, rows, cols, axis, reverse, exclusive);
                        bad += mismatches<std::uint16_t>(DataType::uint16, op, rows, cols, axis, reverse, exclusive);
                        if (op == CumulativeOperator::summation) {
                            bad += mismatches<float>(DataType::float32, op, rows, cols, axis, reverse, exclusive, true);
                            // Past 10^5 terms the long double reference's own rounding exceeds float64's bound.
                            if ((axis == 1 ? cols : rows) < 100000) {
                                bad += mismatches<double>(DataType::float64, op, rows, cols, axis, reverse, exclusive,
                                                          true);
                            }
                        }
                    }
                }
            }
        }
    }
    return bad;
}

int main() {
    long bad = wrong_paths();
    simdscan::set_num_threads(3);  // more than {1, 400001}'s one line: its chunks are split among them
    const auto tiers = simdscan::supported_isas();  // compiled in and run by this CPU, lowest first
    std::string checked, skipped;
    for (const auto& tier : tiers) {
        simdscan::select_isa(tier);
        const long tier_bad = mismatches_on_active_tier() + widening_mismatches();
        std::printf("core check on %s: %ld mismatches\n", simdscan::active_isa().c_str(), tier_bad);
        bad += tier_bad;
        checked += " " + tier;
    }
    for (const auto& tier : simdscan::compiled_isas()) {
        if (std::find(tiers.begin(), tiers.end(), tier) == tiers.end()) {
            skipped += " " + tier;
        }
    }
    std::printf("core check: %ld mismatches on%s%s%s\n", bad, checked.c_str(),
                skipped.empty() ? "" : "; compiled, not run by this CPU:", skipped.c_str());
    return bad == 0 && !tiers.empty() ? 0 : 1;
}
