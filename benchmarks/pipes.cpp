// What bounds simdscan's in-register scans on an AVX-512 CPU: the throughput of the 512-bit instructions they are made
// of, alone and mixed, and the scans' inner loops on data in L1, in core clock cycles. Not part of the package or of
// CI; issue 14's closing notes cite its figures. Build and run on an x86-64 CPU with AVX-512 (F, VL, DQ, BW) and F16C:
//
//     g++ -O2 -std=c++17 -mavx512f -mavx512vl -mavx512dq -mavx512bw -mf16c -mfma benchmarks/pipes.cpp -o pipes
//     ./pipes
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>

namespace {

using Clock = std::chrono::steady_clock;

// Best seconds per call of f over rounds of `calls` calls.
template <class F>
double best_seconds(F f, int calls, int rounds = 30) {
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
        const auto start = Clock::now();
        for (int c = 0; c < calls; ++c) {
            f();
        }
        best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count() / calls);
    }
    return best;
}

// Seconds per core cycle: a chain of dependent 64-bit multiplications, 3 cycles each on AMD Zen and Intel cores
// since Skylake (a chain of additions, one a cycle, is slowed by the loop around it on some of them).
double seconds_per_cycle() {
    constexpr long rounds = 20000000;
    return best_seconds(
               [] {
                   long x = 3;
                   for (long i = 0; i < rounds; ++i) {
                       asm volatile("imul %0, %0\n imul %0, %0\n imul %0, %0\n imul %0, %0\n"
                                    "imul %0, %0\n imul %0, %0\n imul %0, %0\n imul %0, %0"
                                    : "+r"(x));
                   }
               },
               1, 5) /
           (rounds * 8 * 3);
}

// Eight independent instructions per iteration (each writes its own register from two that never change), so that
// only their throughput counts; SIMDSCAN_THROUGHPUT divides a loop's time by the instructions of an iteration.
constexpr long iterations = 20000000;
#define SIMDSCAN_EIGHT(op) \
    op "%%zmm16, %%zmm17, %%zmm0\n" op "%%zmm16, %%zmm17, %%zmm1\n" op "%%zmm16, %%zmm17, %%zmm2\n" \
    op "%%zmm16, %%zmm17, %%zmm3\n" op "%%zmm16, %%zmm17, %%zmm4\n" op "%%zmm16, %%zmm17, %%zmm5\n" \
    op "%%zmm16, %%zmm17, %%zmm6\n" op "%%zmm16, %%zmm17, %%zmm7\n"
// Mixes: four of one kind into zmm0-3 (CONVERT_FOUR: from ymm16 or zmm16), four of another into zmm8-11.
#define SIMDSCAN_FOUR(op) \
    op "%%zmm16, %%zmm17, %%zmm8\n" op "%%zmm16, %%zmm17, %%zmm9\n" op "%%zmm16, %%zmm17, %%zmm10\n" \
    op "%%zmm16, %%zmm17, %%zmm11\n"
#define SIMDSCAN_FIRST_FOUR(op) \
    op "%%zmm16, %%zmm17, %%zmm0\n" op "%%zmm16, %%zmm17, %%zmm1\n" op "%%zmm16, %%zmm17, %%zmm2\n" \
    op "%%zmm16, %%zmm17, %%zmm3\n"
#define SIMDSCAN_CONVERT_FOUR(op, from, to) \
    op " %%" from "16, %%" to "0\n" op " %%" from "16, %%" to "1\n" op " %%" from "16, %%" to "2\n" \
    op " %%" from "16, %%" to "3\n"
#define SIMDSCAN_CONVERT_EIGHT(op, from, to) \
    op " %%" from "16, %%" to "0\n" op " %%" from "16, %%" to "1\n" op " %%" from "16, %%" to "2\n" \
    op " %%" from "16, %%" to "3\n" op " %%" from "16, %%" to "4\n" op " %%" from "16, %%" to "5\n" \
    op " %%" from "16, %%" to "6\n" op " %%" from "16, %%" to "7\n"
#define SIMDSCAN_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11"
#define SIMDSCAN_THROUGHPUT(name, per_iteration, code)                                                     \
    std::printf("  %-44s %5.2f\n", name,                                                                     \
                best_seconds([] { for (long i = 0; i < iterations; ++i) asm volatile(code ::: SIMDSCAN_CLOBBERS); }, \
                             1, 3) /                                                                         \
                    iterations / cycle / (per_iteration))

// The scans' loops, as simdscan's kernels run them (scan_kernels.hpp's scan_steps, Lanes<avx512bw>): the lanes K
// places behind added in log2(lanes) steps, the total broadcast, the running value added on the FMA pipes.
template <int Lanes, int K>
__m512i moved_up(__m512i x, __m512i fill) {
    return Lanes == 16 ? _mm512_alignr_epi32(x, fill, 16 - K) : _mm512_alignr_epi64(x, fill, 8 - K);
}

__attribute__((noinline)) void float32_scan(const float* in, float* out, long n) {
    const __m512i fill = _mm512_castps_si512(_mm512_set1_ps(-0.0f));
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 running = _mm512_setzero_ps();
    for (long i = 0; i + 16 <= n; i += 16) {
        __m512 x = _mm512_loadu_ps(in + i);
        x = _mm512_add_ps(x, _mm512_castsi512_ps(moved_up<16, 1>(_mm512_castps_si512(x), fill)));
        x = _mm512_add_ps(x, _mm512_castsi512_ps(moved_up<16, 2>(_mm512_castps_si512(x), fill)));
        x = _mm512_add_ps(x, _mm512_castsi512_ps(moved_up<16, 4>(_mm512_castps_si512(x), fill)));
        x = _mm512_add_ps(x, _mm512_castsi512_ps(moved_up<16, 8>(_mm512_castps_si512(x), fill)));
        const __m512 total = _mm512_permutexvar_ps(_mm512_set1_epi32(15), x);
        _mm512_storeu_ps(out + i, _mm512_fmadd_ps(running, one, x));
        running = _mm512_fmadd_ps(running, one, total);
    }
}

__attribute__((noinline)) void float16_scan(const std::uint16_t* in, std::uint16_t* out, long n) {
    const __m512i fill = _mm512_castps_si512(_mm512_set1_ps(-0.0f));
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 running = _mm512_setzero_ps();
    for (long i = 0; i + 16 <= n; i += 16) {
        __m512 x = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
        x = _mm512_add_ps(x, _mm512_castsi512_ps(moved_up<16, 1>(_mm512_castps_si512(x), fill)));
        x = _mm512_add_ps(x, _mm512_castsi512_ps(moved_up<16, 2>(_mm512_castps_si512(x), fill)));
        x = _mm512_add_ps(x, _mm512_castsi512_ps(moved_up<16, 4>(_mm512_castps_si512(x), fill)));
        x = _mm512_add_ps(x, _mm512_castsi512_ps(moved_up<16, 8>(_mm512_castps_si512(x), fill)));
        const __m512 total = _mm512_permutexvar_ps(_mm512_set1_epi32(15), x);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_cvtps_ph(_mm512_fmadd_ps(running, one, x), 0));
        running = _mm512_fmadd_ps(running, one, total);
    }
}

// Compensated float32: each value widened to double, the scan in 8 double lanes, each output narrowed once.
__attribute__((noinline)) void float32_in_doubles_scan(const float* in, float* out, long n) {
    const __m512i fill = _mm512_castpd_si512(_mm512_set1_pd(-0.0));
    const __m512d one = _mm512_set1_pd(1.0);
    __m512d running = _mm512_setzero_pd();
    for (long i = 0; i + 8 <= n; i += 8) {
        __m512d x = _mm512_cvtps_pd(_mm256_loadu_ps(in + i));
        x = _mm512_add_pd(x, _mm512_castsi512_pd(moved_up<8, 1>(_mm512_castpd_si512(x), fill)));
        x = _mm512_add_pd(x, _mm512_castsi512_pd(moved_up<8, 2>(_mm512_castpd_si512(x), fill)));
        x = _mm512_add_pd(x, _mm512_castsi512_pd(moved_up<8, 4>(_mm512_castpd_si512(x), fill)));
        const __m512d total = _mm512_permutexvar_pd(_mm512_set1_epi64(7), x);
        _mm256_storeu_ps(out + i, _mm512_cvtpd_ps(_mm512_fmadd_pd(running, one, x)));
        running = _mm512_fmadd_pd(running, one, total);
    }
}

// The same sums down the lanes instead (compensated_blocks.hpp's layout for float64): 512 values a block, each of 8
// double lanes taking 64 consecutive ones (a first pass keeps each lane's running sums in L1, a second adds the sums
// of the lanes before); 8x8 squares turned about their diagonal in 256-bit registers on the way in and out.
void transpose8(__m256 (&r)[8]) {
    // Written out: as loops over arrays, GCC kept the squares in memory (1.9 cycles a value against 1.3).
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}
__attribute__((noinline)) void float32_in_doubles_down_lanes(const float* in, float* out, long n) {
    constexpr int lane_share = 64, block = 8 * lane_share;
    alignas(64) double local[block];
    const __m512i fill = _mm512_castpd_si512(_mm512_set1_pd(-0.0));
    __m512d carry = _mm512_setzero_pd();
    for (long b = 0; b + block <= n; b += block) {
        __m512d sum = _mm512_setzero_pd();
        for (int g = 0; g < lane_share; g += 8) {
            __m256 rows[8];
            for (int j = 0; j < 8; ++j) {
                rows[j] = _mm256_loadu_ps(in + b + j * lane_share + g);
            }
            transpose8(rows);
            for (int i = 0; i < 8; ++i) {
                sum = _mm512_add_pd(sum, _mm512_cvtps_pd(rows[i]));
                _mm512_store_pd(local + (g + i) * 8, sum);
            }
        }
        __m512d through = sum;
        through = _mm512_add_pd(through, _mm512_castsi512_pd(moved_up<8, 1>(_mm512_castpd_si512(through), fill)));
        through = _mm512_add_pd(through, _mm512_castsi512_pd(moved_up<8, 2>(_mm512_castpd_si512(through), fill)));
        through = _mm512_add_pd(through, _mm512_castsi512_pd(moved_up<8, 4>(_mm512_castpd_si512(through), fill)));
        const __m512d base = _mm512_add_pd(carry, _mm512_castsi512_pd(moved_up<8, 1>(_mm512_castpd_si512(through), fill)));
        carry = _mm512_add_pd(carry, _mm512_permutexvar_pd(_mm512_set1_epi64(7), through));
        for (int g = 0; g < lane_share; g += 8) {
            __m256 rows[8];
            for (int i = 0; i < 8; ++i) {
                rows[i] = _mm512_cvtpd_ps(_mm512_add_pd(base, _mm512_load_pd(local + (g + i) * 8)));
            }
            transpose8(rows);
            for (int j = 0; j < 8; ++j) {
                _mm256_storeu_ps(out + b + j * lane_share + g, rows[j]);
            }
        }
    }
}

}  // namespace

int main() {
    const double cycle = seconds_per_cycle();
    std::printf("clock: %.2f GHz (dependent multiplications, 3 cycles each)\n\n", 1e-9 / cycle);

    std::printf("512-bit instructions, cycles per instruction (8 independent a loop; mixes: per instruction of the mix)\n");
    SIMDSCAN_THROUGHPUT("valignd (lane move)", 8, SIMDSCAN_EIGHT("valignd $1, "));
    SIMDSCAN_THROUGHPUT("vpermd (broadcast of a lane)", 8, SIMDSCAN_EIGHT("vpermd "));
    SIMDSCAN_THROUGHPUT("vshufps (within 128-bit lanes)", 8, SIMDSCAN_EIGHT("vshufps $0x44, "));
    SIMDSCAN_THROUGHPUT("vaddps", 8, SIMDSCAN_EIGHT("vaddps "));
    SIMDSCAN_THROUGHPUT("vfmadd231ps", 8, SIMDSCAN_EIGHT("vfmadd231ps "));
    SIMDSCAN_THROUGHPUT("vpaddd", 8, SIMDSCAN_EIGHT("vpaddd "));
    SIMDSCAN_THROUGHPUT("vcvtps2pd (8 float32 -> 8 double)", 8, SIMDSCAN_CONVERT_EIGHT("vcvtps2pd", "ymm", "zmm"));
    SIMDSCAN_THROUGHPUT("vcvtpd2ps (8 double -> 8 float32)", 8, SIMDSCAN_CONVERT_EIGHT("vcvtpd2ps", "zmm", "ymm"));
    SIMDSCAN_THROUGHPUT("vcvtph2ps (16 float16 -> 16 float32)", 8, SIMDSCAN_CONVERT_EIGHT("vcvtph2ps", "ymm", "zmm"));
    SIMDSCAN_THROUGHPUT("4 valignd + 4 vaddps", 8, SIMDSCAN_FIRST_FOUR("valignd $1, ") SIMDSCAN_FOUR("vaddps "));
    SIMDSCAN_THROUGHPUT("4 valignd + 4 vfmadd231ps", 8,
                        SIMDSCAN_FIRST_FOUR("valignd $1, ") SIMDSCAN_FOUR("vfmadd231ps "));
    SIMDSCAN_THROUGHPUT("4 vaddps + 4 vfmadd231ps", 8, SIMDSCAN_FIRST_FOUR("vaddps ") SIMDSCAN_FOUR("vfmadd231ps "));
    SIMDSCAN_THROUGHPUT("4 vcvtps2pd + 4 valignd", 8,
                        SIMDSCAN_CONVERT_FOUR("vcvtps2pd", "ymm", "zmm") SIMDSCAN_FOUR("valignd $1, "));
    SIMDSCAN_THROUGHPUT("4 vcvtpd2ps + 4 vaddps", 8,
                        SIMDSCAN_CONVERT_FOUR("vcvtpd2ps", "zmm", "ymm") SIMDSCAN_FOUR("vaddps "));
    SIMDSCAN_THROUGHPUT("4 vcvtpd2ps + 4 vfmadd231ps", 8,
                        SIMDSCAN_CONVERT_FOUR("vcvtpd2ps", "zmm", "ymm") SIMDSCAN_FOUR("vfmadd231ps "));

    constexpr long n = 4096;
    alignas(64) static float floats[n], float_outputs[n + 16];
    alignas(64) static std::uint16_t halves[n], half_outputs[n + 32];
    std::fill(floats, floats + n, 1.0f);
    std::fill(halves, halves + n, std::uint16_t(0x3c00));  // 1.0
    const auto per_value = [&](auto scan) { return best_seconds(scan, 2000) / n / cycle; };
    std::printf("\nscans of %ld values in L1, cycles per value (16 values: x16)\n", n);
    std::printf("  %-44s %5.3f\n", "float32 (16 lanes)", per_value([&] { float32_scan(floats, float_outputs + 8, n); }));
    std::printf("  %-44s %5.3f\n", "float16 in float32 lanes",
                per_value([&] { float16_scan(halves, half_outputs + 16, n); }));
    std::printf("  %-44s %5.3f\n", "float32 in double lanes (compensated)",
                per_value([&] { float32_in_doubles_scan(floats, float_outputs + 8, n); }));
    std::printf("  %-44s %5.3f\n", "float32 in doubles, down the lanes",
                per_value([&] { float32_in_doubles_down_lanes(floats, float_outputs + 8, n); }));
}
