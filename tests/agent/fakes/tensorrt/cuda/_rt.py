"""The runtime API subset the TensorRT backend calls, shaped like cuda-python's (`cuda.bindings.runtime` /
`cuda.cudart`): every call returns a tuple (cudaError_t, values...). cuda-python links the CUDA runtime of its
own major version statically (cuda-bindings 13.0.3 notes: "statically link against the CUDA Runtime library"), so
a driver older than that major version fails every call with cudaErrorInsufficientDriver, and
cudaDriverGetVersion reports 0 when no driver is loaded.
"""

import enum

import _fake_gpu

from . import VERSION

_RUNTIME = 1000 * VERSION[0]  # the runtime cuda-python links: 13000 for 13.x, 12000 for 12.x


class cudaError_t(enum.IntEnum):  # noqa: N801 - cuda-python's names
    cudaSuccess = 0
    cudaErrorMemoryAllocation = 2
    cudaErrorInsufficientDriver = 35
    cudaErrorNoDevice = 100


class cudaMemcpyKind(enum.IntEnum):  # noqa: N801
    cudaMemcpyHostToDevice = 1
    cudaMemcpyDeviceToHost = 2


class cudaStream_t:  # noqa: N801
    def __init__(self, handle):
        self._handle = handle

    def __int__(self):
        return self._handle


class cudaDeviceProp:  # noqa: N801
    def __init__(self):
        self.name = _fake_gpu.gpu_name().encode() + b"\x00" * 8


def _driver_ok():
    return _fake_gpu.driver_version() >= _RUNTIME


def cudaDriverGetVersion():  # noqa: N802
    return cudaError_t.cudaSuccess, _fake_gpu.driver_version()


def cudaRuntimeGetVersion():  # noqa: N802
    return cudaError_t.cudaSuccess, _RUNTIME


def cudaGetDeviceProperties(device):  # noqa: N802
    if not _driver_ok():
        return cudaError_t.cudaErrorInsufficientDriver, None
    return cudaError_t.cudaSuccess, cudaDeviceProp()


def cudaStreamCreate():  # noqa: N802
    if not _driver_ok():
        return cudaError_t.cudaErrorInsufficientDriver, None
    return cudaError_t.cudaSuccess, cudaStream_t(7)


def cudaStreamSynchronize(stream):  # noqa: N802
    _fake_gpu.log("sync", stream=int(stream))
    return (cudaError_t.cudaSuccess,)


def cudaMalloc(nbytes):  # noqa: N802
    if not _driver_ok():
        return cudaError_t.cudaErrorInsufficientDriver, 0
    return cudaError_t.cudaSuccess, _fake_gpu.malloc(nbytes)


def cudaFree(ptr):  # noqa: N802
    _fake_gpu.free(ptr)
    return (cudaError_t.cudaSuccess,)


def cudaMemcpyAsync(dst, src, nbytes, kind, stream):  # noqa: N802
    _fake_gpu.copy(dst, src, nbytes, "htod" if kind == cudaMemcpyKind.cudaMemcpyHostToDevice else "dtoh")
    return (cudaError_t.cudaSuccess,)
