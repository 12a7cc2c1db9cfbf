# calls: inv_r3
@simt.func
def pair_force(pos, i, j, eps2):
    dx = pos[j, 0] - pos[i, 0]
    dy = pos[j, 1] - pos[i, 1]
    dz = pos[j, 2] - pos[i, 2]
    s = inv_r3(dx * dx + dy * dy + dz * dz + eps2)
    return dx * s, dy * s, dz * s
