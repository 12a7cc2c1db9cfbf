@simt.kernel
def k_int_ops(a, b, add, sub, mul, truediv, floordiv, mod, and_, or_, xor, neg, inv, absolute,
              pos, eq, ne, lt, le, gt, ge):
    i = cuda.grid(1)
    if i < a.shape[0]:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        truediv[i] = a[i] / b[i]
        floordiv[i] = a[i] // b[i]
        mod[i] = a[i] % b[i]
        and_[i] = a[i] & b[i]
        or_[i] = a[i] | b[i]
        xor[i] = a[i] ^ b[i]
        neg[i] = -a[i]
        inv[i] = ~a[i]
        absolute[i] = abs(a[i])
        pos[i] = +a[i]
        eq[i] = a[i] == b[i]
        ne[i] = a[i] != b[i]
        lt[i] = a[i] < b[i]
        le[i] = a[i] <= b[i]
        gt[i] = a[i] > b[i]
        ge[i] = a[i] >= b[i]
