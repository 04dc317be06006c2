"""pycuda.driver double (see __init__.py); memory and logging from _fake_gpu."""

import _fake_gpu
import numpy as np

_inited = []


class Error(Exception):
    pass


class LogicError(Error):
    pass


class RuntimeError(Error):  # noqa: A001 - pycuda's name (pycuda._driver.RuntimeError)
    pass


def init(flags=0):
    if _fake_gpu.driver_version() < 10020:  # built against CUDA 10.2 (JetPack 4.6)
        if _fake_gpu.driver_version() == 0:
            raise RuntimeError("cuInit failed: no CUDA-capable device is detected")
        raise RuntimeError("cuInit failed: CUDA driver version is insufficient for CUDA runtime version")
    _inited.append(True)


def _need_init():
    if not _inited:
        raise LogicError("cuDeviceGet failed: initialization error")


class Device:
    def __init__(self, n):
        _need_init()
        self.n = n

    def name(self):
        return _fake_gpu.gpu_name()

    def make_context(self):
        return Context()


class Context:
    def pop(self):
        pass


class Stream:
    def __init__(self, flags=0):
        _need_init()
        self.handle = 9

    def synchronize(self):
        _fake_gpu.log("sync", stream=self.handle)


class DeviceAllocation:
    def __init__(self, nbytes):
        self.ptr = _fake_gpu.malloc(nbytes)

    def __int__(self):
        return self.ptr

    def free(self):
        _fake_gpu.free(self.ptr)


def mem_alloc(nbytes):
    _need_init()
    return DeviceAllocation(nbytes)


def pagelocked_empty(shape, dtype, order="C", mem_flags=0):
    return np.empty(shape, dtype=dtype, order=order)


def memcpy_htod_async(dest, src, stream=None):
    _fake_gpu.copy(int(dest), src.ctypes.data, src.nbytes, "htod")


def memcpy_dtoh_async(dest, src, stream=None):
    _fake_gpu.copy(dest.ctypes.data, int(src), dest.nbytes, "dtoh")
