// A model of the CPU's gang rounds of a grid-stride sum (docs/performance.md, "Gangs"):
// 8 blocks of 256 threads over 2^24 float64 on 2 OS threads, as simt runs them (plain
// rounds, the per-thread arrays simt keeps), with a software prefetch 1, 2 or 4 rounds
// ahead, a task's 4 blocks as one row, and contiguous halves (Numba's loop).
// Build: clang++ -O3 -march=native -std=c++17 -fwrapv -pthread bench/cpu/grid_stride_rounds.cpp
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
typedef long long i64;
const i64 N = 1 << 24, B = 256, G = 8, S = B * G;
double acc_all[G * B];
template <int PF>
void block(const double* x, i64 b) {
  double acc[B] = {0};
  i64 first = b * B;
  for (;;) {
    if (first >= N) break;
    i64 count = N - first >= B ? B : N - first;
    if (PF) for (i64 j = 0; j < B; j += 8) __builtin_prefetch(x + first + PF * S + j);
    for (i64 t = 0; t < count; ++t) acc[t] += x[first + t];
    first += S;
  }
  for (i64 t = 0; t < B; ++t) acc_all[b * B + t] = acc[t];
}
__attribute__((noinline)) void simtlike(const double* xd, i64 b, i64 n, i64 gd) {
  struct { const double* data; i64 shape[1]; } v_x = {xd, {n}};
  unsigned char* scratch = (unsigned char*)calloc(1, 2 * 8 * B + 64);
  i64* pi = (i64*)scratch; double* pacc = (double*)(scratch + 8 * B);
  for (i64 t = 0; t < B; ++t) { pi[t] = b * B + t; pacc[t] = 0; }
  i64 first = pi[0];
  for (;;) {
    const i64 stop = v_x.shape[0];
    if (!(first < stop)) break;
    unsigned long long left = (unsigned long long)stop - (unsigned long long)first;
    const i64 count = left >= (unsigned long long)B ? B : (i64)left;
    for (i64 t = 0; t < count; ++t) {
      pi[t] = first + t;
      pacc[t] = pacc[t] + v_x.data[pi[t]];
      pi[t] = (i64)((unsigned long long)pi[t] + (unsigned long long)(B * gd));
    }
    first = pi[0];
  }
  acc_all[b * B] = pacc[0];
  free(scratch);
}
void span(const double* x, i64 b0, i64 nb) {  // nb blocks in lockstep
  std::vector<double> acc(B * nb, 0.0);
  i64 first = b0 * B;
  for (;;) {
    if (first >= N) break;
    i64 count = N - first >= B * nb ? B * nb : N - first;
    for (i64 t = 0; t < count; ++t) acc[t] += x[first + t];
    first += S;
  }
}
template <class F> double timeit(F f) {
  double best = 1e9;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best * 1e3;
}
int main() {
  double* x = (double*)aligned_alloc(64, N * 8);
  for (i64 i = 0; i < N; ++i) x[i] = i % 7;
  auto run2 = [&](auto fn) {
    std::thread a([&] { for (i64 b = 0; b < G / 2; ++b) fn(b); });
    std::thread c([&] { for (i64 b = G / 2; b < G; ++b) fn(b); });
    a.join(); c.join();
  };
  printf("plain      %.2f ms\n", timeit([&] { run2([&](i64 b) { block<0>(x, b); }); }));
  printf("simtlike   %.2f ms\n", timeit([&] { run2([&](i64 b) { simtlike(x, b, N, G); }); }));
  printf("pf 1 round %.2f ms\n", timeit([&] { run2([&](i64 b) { block<1>(x, b); }); }));
  printf("pf 2 round %.2f ms\n", timeit([&] { run2([&](i64 b) { block<2>(x, b); }); }));
  printf("pf 4 round %.2f ms\n", timeit([&] { run2([&](i64 b) { block<4>(x, b); }); }));
  printf("span 4     %.2f ms\n", timeit([&] {
    std::thread a([&] { span(x, 0, 4); }); std::thread c([&] { span(x, 4, 4); }); a.join(); c.join(); }));
  printf("contig     %.2f ms\n", timeit([&] {
    std::thread a([&] { double s = 0; for (i64 i = 0; i < N / 2; ++i) s += x[i]; acc_all[0] = s; });
    std::thread c([&] { double s = 0; for (i64 i = N / 2; i < N; ++i) s += x[i]; acc_all[1] = s; });
    a.join(); c.join(); }));
}
