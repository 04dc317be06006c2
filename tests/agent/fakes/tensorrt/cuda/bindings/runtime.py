"""A test double of cuda-python's runtime API (`cuda.bindings.runtime`), for the TensorRT double.

"Device memory" is host memory from ctypes; copies are memmoves. Calls return (error, value...) tuples as
cuda-python does, and each copy and synchronisation is logged to $EDGEPROF_FAKE_TRT_LOG like the tensorrt double.
"""

import ctypes
import json
import os

_buffers = {}


def _log(event, **fields):
    path = os.environ.get("EDGEPROF_FAKE_TRT_LOG")
    if path:
        fields["event"] = event
        with open(path, "a") as f:
            f.write(json.dumps(fields, sort_keys=True) + "\n")


class cudaError_t:  # noqa: N801 - cuda-python's name
    cudaSuccess = 0
    cudaErrorMemoryAllocation = 2


class cudaMemcpyKind:  # noqa: N801
    cudaMemcpyHostToDevice = 1
    cudaMemcpyDeviceToHost = 2


class _Props:
    name = os.environ.get("EDGEPROF_FAKE_GPU_NAME", "Fake GPU T4").encode()


def cudaGetDeviceProperties(device):  # noqa: N802
    return cudaError_t.cudaSuccess, _Props()


def cudaStreamCreate():  # noqa: N802
    return cudaError_t.cudaSuccess, 7


def cudaStreamSynchronize(stream):  # noqa: N802
    _log("sync", stream=int(stream))
    return (cudaError_t.cudaSuccess,)


def cudaMalloc(nbytes):  # noqa: N802
    buf = ctypes.create_string_buffer(int(nbytes))
    ptr = ctypes.addressof(buf)
    _buffers[ptr] = buf
    return cudaError_t.cudaSuccess, ptr


def cudaFree(ptr):  # noqa: N802
    _buffers.pop(int(ptr), None)
    return (cudaError_t.cudaSuccess,)


def cudaMemcpyAsync(dst, src, nbytes, kind, stream):  # noqa: N802
    ctypes.memmove(int(dst), int(src), int(nbytes))
    _log("htod" if kind == cudaMemcpyKind.cudaMemcpyHostToDevice else "dtoh", nbytes=int(nbytes))
    return (cudaError_t.cudaSuccess,)
