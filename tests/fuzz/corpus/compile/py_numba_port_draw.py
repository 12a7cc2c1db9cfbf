@cuda.jit
def draw(states, u32, u64, normal):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(u32.shape[1]):
            u32[i, k] = xoroshiro128p_uniform_float32(states, i)
        u64[i] = xoroshiro128p_uniform_float64(states, i)
        normal[i] = xoroshiro128p_normal_float32(states, i)
