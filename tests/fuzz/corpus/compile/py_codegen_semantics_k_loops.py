@simt.kernel
def k_loops(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s = 0
        for j in range(20):
            if j % 3 == 0:
                continue
            if j > a[i]:
                break
            s += j
        down = 0
        for j in range(a[i], -4, -3):
            down = down * 3 + j
        steps = 0
        n = a[i] + 1
        while n != 1:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            steps += 1
            if steps >= 50:
                break
        empty = 0
        for j in range(5, a[i], 1):
            empty += 1
        out[i, 0] = s
        out[i, 1] = down
        out[i, 2] = steps
        out[i, 3] = empty
