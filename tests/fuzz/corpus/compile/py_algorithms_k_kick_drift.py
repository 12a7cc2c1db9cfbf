@simt.kernel
def k_kick_drift(pos, vel, acc, dt):
    i = cuda.grid(1)
    if i < pos.shape[0]:
        for d in range(3):
            vel[i, d] += acc[i, d] * dt
            pos[i, d] += vel[i, d] * dt
