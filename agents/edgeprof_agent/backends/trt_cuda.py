"""The CUDA layer of the TensorRT backend: device memory, streams and copies through whichever CUDA Python
bindings the device has.

Owns: cuda-python (`cuda.bindings.runtime`: 12.6.1+ and 13, where `cuda.cudart` was removed; `cuda.cudart`: older
12.x / 11.x) or pycuda (JetPack 4.6: no cuda-python for CUDA 10.2 / Python 3.6), behind one small interface
(probe / gpu_name / stream / stream_handle / malloc / ptr / host / htod / dtoh / sync / free); a CUDA that cannot
start (no driver, a driver older than cuda-python's runtime: 13 needs driver >= 580) is one capability error
before any build.
Does not own: TensorRT (tensorrt.py, trt_engine.py, trt_io.py).
"""


def _cuda_version_text(v):
    """cudaDriverGetVersion / cudaRuntimeGetVersion's 12040 → '12.4'."""
    return "%d.%d" % (int(v) // 1000, int(v) % 1000 // 10)


class CudaRuntime(object):
    """cuda-python's runtime API (calls return (error, value...) tuples)."""

    def __init__(self, cudart, modname):
        self.rt = cudart
        self.name = "cuda-python (%s)" % modname

    def probe(self):
        """Raise one capability OpError when CUDA cannot start here (no driver, a driver too old for the CUDA
        runtime cuda-python links: cuda-python 13 needs a CUDA 13 driver, >= 580)."""
        from ..protocol import OpError

        try:
            ret = self.rt.cudaGetDeviceProperties(0)
            err = ret[0] if isinstance(ret, tuple) else ret
            if err == self.rt.cudaError_t.cudaSuccess:
                return
            driver = self.rt.cudaDriverGetVersion()[1]
            runtime = self.rt.cudaRuntimeGetVersion()[1]
        except Exception as e:  # e.g. libcuda.so cannot be loaded
            raise OpError("capability", "CUDA cannot start through %s: %s: %s" % (self.name, type(e).__name__, e),
                          hint="check the NVIDIA driver (nvidia-smi) on the device")
        if not driver:
            raise OpError("capability", "CUDA cannot start through %s: no NVIDIA driver is loaded (%s)" % (
                self.name, err), hint="install the NVIDIA driver on the device (nvidia-smi must work)")
        if int(driver) < int(runtime):
            hint = "upgrade the NVIDIA driver"
            if int(runtime) // 1000 > int(driver) // 1000:
                hint = "pip install 'cuda-python<%d' (a CUDA %d build) or %s" % (
                    int(runtime) // 1000, int(driver) // 1000, hint)
            raise OpError("capability", "%s needs a driver for CUDA %s; this device's NVIDIA driver supports CUDA "
                          "%s (%s)" % (self.name, _cuda_version_text(runtime), _cuda_version_text(driver), err),
                          hint=hint)
        raise OpError("capability", "CUDA cannot start through %s: cudaGetDeviceProperties(0) failed: %s" % (
            self.name, err), hint="check the GPU with nvidia-smi on the device")

    def _check(self, ret, what):
        from ..protocol import OpError

        err = ret[0] if isinstance(ret, tuple) else ret
        if err != self.rt.cudaError_t.cudaSuccess:
            raise OpError("cuda_error", "%s failed: %s" % (what, err))
        return ret[1] if isinstance(ret, tuple) and len(ret) == 2 else (ret[1:] if isinstance(ret, tuple) else None)

    def gpu_name(self):
        props = self._check(self.rt.cudaGetDeviceProperties(0), "cudaGetDeviceProperties")
        name = props.name
        return name.decode("utf-8", "replace").rstrip("\x00") if isinstance(name, bytes) else str(name)

    def stream(self):
        return self._check(self.rt.cudaStreamCreate(), "cudaStreamCreate")

    def stream_handle(self, stream):
        return int(stream)

    def malloc(self, nbytes):
        return self._check(self.rt.cudaMalloc(max(1, nbytes)), "cudaMalloc")

    def ptr(self, dev):
        return int(dev)

    def host(self, shape, dtype):
        import numpy as np
        return np.empty(shape, dtype=dtype)

    def htod(self, dev, arr, stream):
        self._check(self.rt.cudaMemcpyAsync(dev, arr.ctypes.data, arr.nbytes,
                                            self.rt.cudaMemcpyKind.cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync")

    def dtoh(self, arr, dev, stream):
        self._check(self.rt.cudaMemcpyAsync(arr.ctypes.data, dev, arr.nbytes,
                                            self.rt.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync")

    def sync(self, stream):
        self._check(self.rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize")

    def free(self, dev):
        try:
            self.rt.cudaFree(dev)
        except Exception:
            pass


class PyCuda(object):
    """pycuda (common on JetPack 4 images); page-locked host buffers so copies are truly async."""

    name = "pycuda"

    def __init__(self, driver):
        self.cuda = driver

    def probe(self):
        pass  # pycuda.autoinit already started CUDA (see import_cuda)

    def gpu_name(self):
        return self.cuda.Device(0).name()

    def stream(self):
        return self.cuda.Stream()

    def stream_handle(self, stream):
        return int(stream.handle)

    def malloc(self, nbytes):
        return self.cuda.mem_alloc(max(1, nbytes))

    def ptr(self, dev):
        return int(dev)

    def host(self, shape, dtype):
        return self.cuda.pagelocked_empty(shape, dtype)

    def htod(self, dev, arr, stream):
        self.cuda.memcpy_htod_async(dev, arr, stream)

    def dtoh(self, arr, dev, stream):
        self.cuda.memcpy_dtoh_async(arr, dev, stream)

    def sync(self, stream):
        stream.synchronize()

    def free(self, dev):
        try:
            dev.free()
        except Exception:
            pass


def import_cuda():
    """The CUDA Python bindings here: cuda-python's new layout (`cuda.bindings.runtime`, 12.6.1+ and 13: 13 removed
    `cuda.cudart`), its old one (`cuda.cudart`), then pycuda (JetPack 4.6). ImportError when none imports; a
    capability OpError when pycuda imports but CUDA does not start."""
    from ..protocol import OpError

    errors = []
    for modname in ("cuda.bindings.runtime", "cuda.cudart"):
        try:
            mod = __import__(modname, fromlist=["x"])
            return CudaRuntime(mod, modname)
        except ImportError as e:
            errors.append("%s: %s" % (modname, e))
    try:
        import pycuda.driver as driver
    except ImportError as e:
        errors.append("pycuda: %s" % e)
        raise ImportError("; ".join(errors))
    try:
        import pycuda.autoinit  # noqa: F401 - cuInit and a context on device 0
    except Exception as e:  # pycuda.driver.Error: cuInit failed (no driver, no device, driver too old)
        raise OpError("capability", "CUDA cannot start through pycuda: %s" % (str(e).strip() or type(e).__name__),
                      hint="check the NVIDIA driver (JetPack's CUDA) on the device: nvidia-smi / tegrastats")
    return PyCuda(driver)

