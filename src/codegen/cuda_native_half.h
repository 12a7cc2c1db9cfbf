// CUDA's float16 in the hardware's own instructions (Dialect::native_half of the CUDA row):
// inline PTX, since generated code includes no headers (cuda_fp16.h is not NVRTC's built-in).
// float16 values stay floats in registers; each helper converts its operands with cvt, does
// the f16 instruction and converts back, and ptxas drops the conversions between
// neighbouring float16 operations (a chain of +, * and - is about a quarter shorter in SASS
// than float's operations with a rounding after each). The conversions exist on every
// architecture; the f16 arithmetic from sm_53 on, older ones take float's operation, rounded
// once to float16 (the same value: 24 >= 2 * 11 + 2 bits make that double rounding
// innocuous).
#pragma once

#include <array>
#include <string_view>

#include "codegen/dialect.h"

namespace simt::codegen {

inline constexpr std::array<std::string_view, kHalfOpCount> kCudaNativeHalf = {
    // ToFloat. A NaN keeps its payload, as NumPy's conversion does (what the hardware does
    // with one is not documented).
    R"($Qfloat $N(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  if ((h & 0x7fffu) > 0x7c00u)
    f = __uint_as_float(((unsigned int)(h & 0x8000u) << 16) | 0x7f800000u |
                        ((unsigned int)(h & 0x3ffu) << 13));
  return f;
}
)",
    // FromFloat: a NaN keeps its payload's top 10 bits (payload 1 where those are zero), as
    // the portable helper.
    R"($Qunsigned short $N(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  if (f != f) {
    unsigned int x = __float_as_uint(f);
    unsigned int payload = (x & 0x7fffffu) >> 13;
    h = (unsigned short)(((x >> 16) & 0x8000u) | 0x7c00u | (payload != 0u ? payload : 1u));
  }
  return h;
}
)",
    // FromDouble: cvt.rn.f16.f64 rounds once; a NaN goes through float, as the portable helper.
    R"($Qfloat $N(double x) {
  if (x != x) return simt_round_f16((float)x);
  unsigned short h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(x));
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
)",
    // FromInt: one rounding, straight from the integer ($K the operand's register
    // constraint, $V its register type: 8-bit integers travel in 16-bit registers).
    R"($Qfloat $N($T x) {
  unsigned short h;
  asm("cvt.rn.f16.$I %0, %1;" : "=h"(h) : "$K"(($V)x));
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
)",
    // Fma. Before sm_53: a * b + c exact in double but for one rounding, to 53 bits, which
    // cannot move the value onto a float16 rounding boundary (a product of 11-bit values has
    // 22 bits), then one rounding to float16.
    R"($Qfloat $N(float a, float b, float c) {
#if __CUDA_ARCH__ >= 530
  float r;
  asm("{\n.reg .b16 x, y, z;\ncvt.rn.f16.f32 x, %1;\ncvt.rn.f16.f32 y, %2;\ncvt.rn.f16.f32 z, %3;\n"
      "fma.rn.f16 x, x, y, z;\ncvt.f32.f16 %0, x;\n}"
      : "=f"(r) : "f"(a), "f"(b), "f"(c));
  return r;
#else
  return simt_round_f16_from_f64(__fma_rn((double)a, (double)b, (double)c));
#endif
}
)",
    // Add, Sub, Mul.
    R"($Qfloat $N(float a, float b) {
#if __CUDA_ARCH__ >= 530
  float r;
  asm("{\n.reg .b16 x, y;\ncvt.rn.f16.f32 x, %1;\ncvt.rn.f16.f32 y, %2;\nadd.f16 x, x, y;\n"
      "cvt.f32.f16 %0, x;\n}" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return simt_round_f16(a + b);
#endif
}
)",
    R"($Qfloat $N(float a, float b) {
#if __CUDA_ARCH__ >= 530
  float r;
  asm("{\n.reg .b16 x, y;\ncvt.rn.f16.f32 x, %1;\ncvt.rn.f16.f32 y, %2;\nsub.f16 x, x, y;\n"
      "cvt.f32.f16 %0, x;\n}" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return simt_round_f16(a - b);
#endif
}
)",
    R"($Qfloat $N(float a, float b) {
#if __CUDA_ARCH__ >= 530
  float r;
  asm("{\n.reg .b16 x, y;\ncvt.rn.f16.f32 x, %1;\ncvt.rn.f16.f32 y, %2;\nmul.f16 x, x, y;\n"
      "cvt.f32.f16 %0, x;\n}" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return simt_round_f16(a * b);
#endif
}
)",
    // Neg, Abs: exact, so float's where f16's are missing.
    R"($Qfloat $N(float a) {
#if __CUDA_ARCH__ >= 530
  float r;
  asm("{\n.reg .b16 x;\ncvt.rn.f16.f32 x, %1;\nneg.f16 x, x;\ncvt.f32.f16 %0, x;\n}"
      : "=f"(r) : "f"(a));
  return r;
#else
  return -a;
#endif
}
)",
    R"($Qfloat $N(float a) {
#if __CUDA_ARCH__ >= 530
  float r;
  asm("{\n.reg .b16 x;\ncvt.rn.f16.f32 x, %1;\nabs.f16 x, x;\ncvt.f32.f16 %0, x;\n}"
      : "=f"(r) : "f"(a));
  return r;
#else
  return fabsf(a);
#endif
}
)",
    // Compare: neu for !=, true where either is a NaN, as Python's; the others are ordered.
    R"($Qbool $N(float a, float b) {
#if __CUDA_ARCH__ >= 530
  unsigned short r;
  asm("{\n.reg .b16 x, y;\n.reg .pred p;\ncvt.rn.f16.f32 x, %1;\ncvt.rn.f16.f32 y, %2;\n"
      "setp.$op.f16 p, x, y;\nselp.u16 %0, 1, 0, p;\n}" : "=h"(r) : "f"(a), "f"(b));
  return r != 0;
#else
  return a $c b;
#endif
}
)",
};

}  // namespace simt::codegen
