// The cost of storing a grid-stride counter to its per-thread array in every iteration of
// the CPU gang rounds (codegen/emit_gang.cpp): 8 blocks of 256 threads over 2^24 float64
// on 2 OS threads, the sum per thread in a stack array or in heap scratch, with and
// without the counter store (and the scratch shifted by 1 KB, which rules out 4K aliasing).
// Seen here (min of 15, 2 shared cores): 7.0-7.5 / 9.5-10.1 / 6.8-7.1 / 9.8-10.2 ms,
// contiguous halves 8.1 ms: the store alone made the rounds 40% slower.
// Build: clang++ -O3 -march=native -std=c++17 -fwrapv -pthread bench/cpu/gang_counter_store.cpp
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
typedef long long i64;
const i64 N = 1 << 24, B = 256, G = 8, S = B * G;
double sink[G];
// V=0: acc on stack, no pi. V=1: simt-like scratch with pi store. V=2: scratch, no pi store.
// V=3: scratch + pi store, scratch offset shifted by 1 KB + 64.
template <int V>
__attribute__((noinline)) void block(const double* x, i64 b) {
  unsigned char* scratch = (unsigned char*)calloc(1, 4 * 8 * B + 4096);
  unsigned char* base = scratch + (V == 3 ? 1024 + 64 : 0);
  i64* pi = (i64*)base;
  double* pacc = (double*)(base + 8 * B + 64);
  double stack_acc[B] = {0};
  double* acc = V == 0 ? stack_acc : pacc;
  i64 first = b * B;
  for (;;) {
    if (first >= N) break;
    i64 count = N - first >= B ? B : N - first;
    for (i64 t = 0; t < count; ++t) {
      if (V == 1 || V == 3) {
        pi[t] = first + t;
        acc[t] = acc[t] + x[pi[t]];
        pi[t] = pi[t] + S;
      } else {
        acc[t] = acc[t] + x[first + t];
      }
    }
    first += S;
  }
  double s = 0;
  for (i64 t = 0; t < B; ++t) s += acc[t];
  sink[b] = s;
  free(scratch);
}
template <class F>
double once(F f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3;
}
int main() {
  double* x = (double*)aligned_alloc(64, N * 8);
  for (i64 i = 0; i < N; ++i) x[i] = i % 7;
  auto run2 = [&](auto fn) {
    std::thread a([&] {
      for (i64 b = 0; b < G; b += 2) fn(b);
    });
    std::thread c([&] {
      for (i64 b = 1; b < G; b += 2) fn(b);
    });
    a.join();
    c.join();
  };
  auto contig = [&] {
    std::thread a([&] {
      double s = 0;
      for (i64 i = 0; i < N / 2; ++i) s += x[i];
      sink[0] = s;
    });
    std::thread c([&] {
      double s = 0;
      for (i64 i = N / 2; i < N; ++i) s += x[i];
      sink[1] = s;
    });
    a.join();
    c.join();
  };
  double best[5] = {1e9, 1e9, 1e9, 1e9, 1e9};
  for (int r = 0; r < 15; ++r) {
    best[0] = std::min(best[0], once([&] { run2([&](i64 b) { block<0>(x, b); }); }));
    best[1] = std::min(best[1], once([&] { run2([&](i64 b) { block<1>(x, b); }); }));
    best[2] = std::min(best[2], once([&] { run2([&](i64 b) { block<2>(x, b); }); }));
    best[3] = std::min(best[3], once([&] { run2([&](i64 b) { block<3>(x, b); }); }));
    best[4] = std::min(best[4], once(contig));
  }
  printf(
      "stack acc %.2f | scratch+pi %.2f | scratch no pi %.2f | scratch+pi shifted %.2f | contig "
      "%.2f ms\n",
      best[0], best[1], best[2], best[3], best[4]);
}
