# signature: int64[::1], int32
def kernel(sin, int):
    """User names that are C, OpenCL and CUDA names must still work."""
    float4 = cuda.grid(1)
    j1 = int
    threadIdx = float4 * 2
    double = threadIdx - j1
    if float4 < len(sin):
        sin[float4] = double ** 2 + (double << 3) + (double >> 65) + (-double) // 7
        print("sin", float4, sin[float4], 1.5, True)
