@simt.kernel
def k_lane_info(lane, ws):
    t = cuda.threadIdx.x + cuda.blockDim.x * (
        cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    g = cuda.blockIdx.x * (cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z) + t
    lane[g] = cuda.laneid
    ws[g] = cuda.warpsize
