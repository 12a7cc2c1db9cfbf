// C++ for the CPU device only.
extern "C" int clamp_i64(long long* result, long long x, long long lo, long long hi) {
  *result = x < lo ? lo : x > hi ? hi : x;
  return 0;
}
