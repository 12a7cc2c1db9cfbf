// Numba's ABI: the result through the first pointer, 0 for "no exception".
extern "C" __device__ int mul_f32_f32(float* result, float x, float y) {
  *result = x * y;
  return 0;
}

// A sum over an array's data pointer, for CPointer parameters.
extern "C" __device__ int sum_reduce(float* result, float* array, int n) {
  float total = 0;
  for (int i = 0; i < n; ++i) total += array[i];
  *result = total;
  return 0;
}
