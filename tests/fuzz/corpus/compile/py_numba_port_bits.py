@cuda.jit
def bits(x, pc, lz, fs, rv):
    i = cuda.grid(1)
    if i < x.size:
        pc[i] = cuda.popc(x[i])
        lz[i] = cuda.clz(x[i])
        fs[i] = cuda.ffs(x[i])
        rv[i] = cuda.brev(x[i])
