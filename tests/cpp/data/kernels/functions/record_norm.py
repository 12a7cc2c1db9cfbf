@simt.func
def record_norm(r):
    return r.x * r.x + r.v[0] * r.v[0]
