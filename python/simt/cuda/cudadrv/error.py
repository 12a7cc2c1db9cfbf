"""Numba's numba.cuda.cudadrv.error: its driver errors are simt's (`CudaAPIError` and
`CudaDriverError` are simt.DeviceError, which every device's driver failures raise;
`NvrtcError` is simt.BackendCompileError)."""

from ...errors import BackendCompileError, DeviceError

__all__ = ["CudaAPIError", "CudaDriverError", "CudaSupportError", "NvrtcError"]

CudaAPIError = CudaDriverError = CudaSupportError = DeviceError
NvrtcError = BackendCompileError
