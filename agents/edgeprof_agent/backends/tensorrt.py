"""TensorRT backend: build an engine on the device from the pushed ONNX, cache it, time it with stream syncs.

Version-aware from TensorRT 8.2 (JetPack 4.6) to 11; what differs, from NVIDIA/TensorRT python/src/infer/pyCore.cpp
and samples/common/sampleOptions.cpp at each release tag (docs/stacks.md has the table):

Owns:
- the engine build with TensorRT's Python API (Builder → network → OnnxParser → builder config →
  build_serialized_network): explicit-batch network up to 10 (8.x's ONNX parser refuses implicit batch);
  fp32 / fp16 (BuilderFlag.FP16) / int8 (BuilderFlag.INT8 on a Q/DQ ONNX: explicit quantisation, the host quantised
  it) up to 10.x; TensorRT 11 removed both flags: its networks are strongly typed (NetworkDefinitionCreationFlag.
  STRONGLY_TYPED), the precision is the ONNX's own, so fp16 needs an fp16 ONNX and int8 a Q/DQ one (refused in one
  line otherwise); workspace by set_memory_pool_limit (8.4+) or max_workspace_size (8.2); an optimisation profile
  pinned to the run's shapes for dynamic inputs;
- trtexec (`--onnx --saveEngine`) as the fallback builder when the Python builder fails and trtexec exists, with
  the flags of ITS version (read from its banner): `--buildOnly` before 8.6, `--skipInference` from 8.6;
  `--workspace` (MiB) before 8.4, `--memPoolSize=workspace:N` from 8.4; no `--fp16/--int8` in 11; shape flags only
  for the inputs that are dynamic and none for a static model (trtexec refuses those); never a trtexec of another
  TensorRT than the Python module's (its plan would not load);
- the engine cache in the agent's workdir (trt-engines/), keyed by (ONNX sha256, TensorRT version, precision,
  GPU name, input shapes): engines are tied to the GPU and the TensorRT version;
- both I/O APIs, by what the engine has: named tensors (TensorRT >= 8.5: set_input_shape / set_tensor_address /
  execute_async_v3; the only API from 10) and bindings (8.2 / 8.4, JetPack 4: set_binding_shape /
  execute_async_v2); numpy dtypes from our own table (8.2's trt.nptype uses np.bool, missing in numpy 1.24-1.26);
- device memory and streams through cuda-python (`cuda.bindings.runtime`: 12.6.1+ and 13, where `cuda.cudart` was
  removed; `cuda.cudart`: older 12.x / 11.x) or pycuda (JetPack 4.6: no cuda-python for CUDA 10.2 / Python 3.6);
  a CUDA that cannot start (no driver, a driver older than cuda-python's runtime: 13 needs driver >= 580) is one
  capability error before any build;
- one query = H2D copies of the inputs, execute on a stream, D2H copies of the outputs, then
  stream.synchronize(): the host clock brackets a finished query (what trtexec calls latency). Option
  `transfers: false` times execute + synchronize only (inputs copied once at load, like --noDataTransfers);
- per-layer times with an IProfiler in the profile pass (after the timed loop), layer kinds from the engine
  inspector when the engine was built with detailed profiling verbosity.
Does not own: timing (worker.py), statistics (host), quantisation (host: export/quantize.py).
This module has run only against the per-version test doubles in tests/agent/fakes/tensorrt (no TensorRT on our
machines).
"""

import hashlib
import json
import os
import re

WORKSPACE_BYTES = 1 << 30
TRTEXEC_TIMEOUT_S = 3600.0  # an engine build on a Nano takes minutes
TRTEXEC_BANNER = re.compile(r"\[TensorRT v(\d+)\]")
# TensorRT DataType name → numpy dtype name (not trt.nptype: 8.2's builds its table with np.bool)
NP_DTYPES = {"FLOAT": "float32", "HALF": "float16", "INT8": "int8", "INT32": "int32", "BOOL": "bool",
             "UINT8": "uint8", "INT64": "int64"}


def version_tuple(text):
    """'8.2.1.8' → (8, 2, 1); what cannot be read → (0, 0, 0)."""
    parts = []
    for p in str(text or "").split(".")[:3]:
        m = re.match(r"\d+", p)
        if not m:
            break
        parts.append(int(m.group(0)))
    return tuple((parts + [0, 0, 0])[:3])


def banner_version(number):
    """NV_TENSORRT_VERSION as trtexec prints it: 8201 (8.x: 1000*major + 100*minor + patch) or 100300 (10+:
    10000*major + 100*minor + patch) → (major, minor, patch)."""
    n = int(number)
    if n >= 100000:
        return (n // 10000, n % 10000 // 100, n % 100)
    return (n // 1000, n % 1000 // 100, n % 100)


def trtexec_argv(trtexec, version, onnx_path, engine_path, precision, shapes, dynamic, workspace):
    """trtexec's argv for an engine build on TensorRT `version` (a tuple); `dynamic` names the inputs with
    dynamic dims (only they take shape flags)."""
    argv = [trtexec, "--onnx=%s" % onnx_path, "--saveEngine=%s" % engine_path,
            "--skipInference" if version >= (8, 6) else "--buildOnly"]
    mib = max(1, workspace >> 20)
    argv.append("--memPoolSize=workspace:%d" % mib if version >= (8, 4) else "--workspace=%d" % mib)
    if precision in ("fp16", "int8") and version < (11, 0):
        argv.append("--%s" % precision)
    spec = ",".join("%s:%s" % (k, "x".join(str(d) for d in v)) for k, v in sorted(shapes.items()) if k in dynamic)
    if spec:
        argv += ["--minShapes=" + spec, "--optShapes=" + spec, "--maxShapes=" + spec]
    return argv


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _cuda_version_text(v):
    """cudaDriverGetVersion / cudaRuntimeGetVersion's 12040 → '12.4'."""
    return "%d.%d" % (int(v) // 1000, int(v) % 1000 // 10)


class _CudaRuntime(object):
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


class _PyCuda(object):
    """pycuda (common on JetPack 4 images); page-locked host buffers so copies are truly async."""

    name = "pycuda"

    def __init__(self, driver):
        self.cuda = driver

    def probe(self):
        pass  # pycuda.autoinit already started CUDA (see _import_cuda)

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


def _import_cuda():
    """The CUDA Python bindings here: cuda-python's new layout (`cuda.bindings.runtime`, 12.6.1+ and 13: 13 removed
    `cuda.cudart`), its old one (`cuda.cudart`), then pycuda (JetPack 4.6). ImportError when none imports; a
    capability OpError when pycuda imports but CUDA does not start."""
    from ..protocol import OpError

    errors = []
    for modname in ("cuda.bindings.runtime", "cuda.cudart"):
        try:
            mod = __import__(modname, fromlist=["x"])
            return _CudaRuntime(mod, modname)
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
    return _PyCuda(driver)


class Backend(object):
    name = "tensorrt"

    def __init__(self, root, tools, workdir=None):
        self.root = root  # SysfsRoot: GPU discovery reads /proc/driver/nvidia and the Tegra markers under it
        self.tools = tools  # ToolRunner: trtexec
        self._trt = None
        self._cuda = None
        self._engine = None
        self._context = None
        self._stream = None
        self._tensors = []  # dicts: name, is_input, host, dev, shape, dtype
        self._options = {}
        self._v3 = True
        self._bindings = None
        self._transfers = True
        self._cache = {}
        self._dynamic_inputs = []  # inputs with dynamic dims, from the last parse (trtexec's shape flags)

    # ------------------------------------------------------------------------------------------ setup
    def require(self):
        from . import runtime_missing
        from ..protocol import OpError
        from ..gpus import nvidia_gpus

        if not nvidia_gpus(self.root):
            raise OpError("capability", "tensorrt needs an NVIDIA GPU; this device has none "
                          "(no /proc/driver/nvidia/gpus, not a Jetson)", hint="pick another --runtime")
        try:
            import tensorrt as trt
        except ImportError as e:
            raise runtime_missing("tensorrt", e, "tensorrt (JetPack ships it; x86: NVIDIA's wheels)")
        try:
            self._cuda = _import_cuda()
        except ImportError as e:
            raise runtime_missing("CUDA Python bindings for tensorrt", e,
                                  "cuda-python (pycuda on JetPack 4: pip3 install pycuda)")
        self._cuda.probe()
        self._trt = trt
        return trt

    def _logger(self):
        trt = self._trt
        return trt.Logger(trt.Logger.WARNING)

    def _engine_key(self, onnx_sha, precision, gpu, shapes):
        material = {"onnx_sha256": onnx_sha, "tensorrt": self._trt.__version__, "precision": precision,
                    "gpu": gpu, "shapes": dict((k, list(v)) for k, v in sorted(shapes.items()))}
        return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest(), material

    def _strongly_typed(self):
        """TensorRT 11: BuilderFlag.FP16 / INT8 are gone, every network is strongly typed."""
        return not hasattr(self._trt.BuilderFlag, "FP16")

    def _network_flags(self):
        trt = self._trt
        ncf = getattr(trt, "NetworkDefinitionCreationFlag", None)
        if self._strongly_typed():
            return 1 << int(ncf.STRONGLY_TYPED)
        if version_tuple(trt.__version__) < (10, 0, 0) and hasattr(ncf, "EXPLICIT_BATCH"):
            return 1 << int(ncf.EXPLICIT_BATCH)  # 8.x's ONNX parser refuses implicit-batch networks
        return 0  # 10: explicit batch always (EXPLICIT_BATCH is deprecated and ignored)

    def _typed_precision_check(self, network, precision):
        """On a strongly typed network the ONNX's types are the engine's: fp16 needs fp16 tensors, int8 Q/DQ."""
        from ..protocol import OpError

        trt = self._trt
        if precision == "fp32":
            return
        half, qdq = trt.DataType.HALF, set()
        for name in ("QUANTIZE", "DEQUANTIZE"):
            if hasattr(trt.LayerType, name):
                qdq.add(getattr(trt.LayerType, name))
        tensors = [network.get_input(i) for i in range(network.num_inputs)]
        layers = [network.get_layer(i) for i in range(network.num_layers)]
        for layer in layers:
            tensors += [layer.get_output(j) for j in range(layer.num_outputs)]
        if precision == "fp16" and any(t.dtype == half for t in tensors):
            return
        if precision == "int8" and any(layer.type in qdq for layer in layers):
            return
        what = "fp16 tensors" if precision == "fp16" else "Q/DQ (QuantizeLinear/DequantizeLinear) nodes"
        raise OpError("bad_option", "TensorRT %s builds strongly typed networks (BuilderFlag.%s was removed): the "
                      "engine's precision is the ONNX's, and this ONNX has no %s" % (
                          self._trt.__version__, precision.upper(), what),
                      hint="send an ONNX already in %s (fp16: ModelOpt AutoCast or onnxconverter-common's float16; "
                           "int8: a Q/DQ export) or run --precision fp32" % precision)

    def _build_python(self, onnx_path, precision, shapes, logger, workspace):
        from ..protocol import OpError

        trt = self._trt
        builder = trt.Builder(logger)
        typed = self._strongly_typed()
        network = builder.create_network(self._network_flags())
        parser = trt.OnnxParser(network, logger)
        with open(onnx_path, "rb") as f:
            ok = parser.parse(f.read())
        if not ok:
            errors = [str(parser.get_error(i)) for i in range(parser.num_errors)]
            raise OpError("load_failed", "TensorRT's ONNX parser rejected the model: %s" % (
                "; ".join(errors)[:500] or "no detail"), hint="check the opset and ops against TensorRT's support matrix")
        dynamic = []
        for i in range(network.num_inputs):
            inp = network.get_input(i)
            if any(int(d) < 0 for d in inp.shape):
                dynamic.append(inp.name)
        self._dynamic_inputs = dynamic
        if typed:
            self._typed_precision_check(network, precision)
        config = builder.create_builder_config()
        if hasattr(config, "set_memory_pool_limit") and hasattr(trt, "MemoryPoolType"):  # 8.4+
            config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, workspace)
        else:  # TensorRT < 8.4
            config.max_workspace_size = workspace
        notes = []
        if typed:
            notes.append("TensorRT %s: strongly typed network, precision taken from the ONNX" % trt.__version__)
        elif precision == "fp16":
            if not getattr(builder, "platform_has_fast_fp16", True):
                notes.append("this GPU has no fast fp16: TensorRT may keep fp32 kernels")
            config.set_flag(trt.BuilderFlag.FP16)
        elif precision == "int8":
            if not getattr(builder, "platform_has_fast_int8", True):
                notes.append("this GPU has no fast int8: TensorRT may keep fp32 kernels")
            config.set_flag(trt.BuilderFlag.INT8)  # explicit quantisation: the ONNX carries Q/DQ nodes
        if hasattr(config, "profiling_verbosity") and hasattr(trt, "ProfilingVerbosity"):
            config.profiling_verbosity = trt.ProfilingVerbosity.DETAILED
        if dynamic:
            profile = builder.create_optimization_profile()
            for name in dynamic:
                if name not in shapes:
                    raise OpError("bad_inputs", "input %s has dynamic dims and no shape was given" % name)
                shape = tuple(shapes[name])
                profile.set_shape(name, shape, shape, shape)
            config.add_optimization_profile(profile)
        serialized = builder.build_serialized_network(network, config)
        if serialized is None:
            raise OpError("load_failed", "TensorRT could not build an engine (build_serialized_network returned None)",
                          hint="see the agent's stderr for TensorRT's log")
        return bytes(serialized), notes

    def _trtexec_version(self, trtexec):
        """trtexec's own TensorRT version, from the banner `--help` prints; the Python module's when unread."""
        rc, out, err = self.tools.run([trtexec, "--help"], timeout=60.0)
        m = TRTEXEC_BANNER.search(out + err)
        if m:
            return banner_version(m.group(1)), "trtexec banner"
        return version_tuple(self._trt.__version__), "python tensorrt (trtexec printed no version)"

    def _build_trtexec(self, trtexec, onnx_path, precision, shapes, engine_path):
        from ..protocol import OpError

        version, _source = self._trtexec_version(trtexec)
        python_version = version_tuple(self._trt.__version__)
        if version[:2] != python_version[:2]:  # a plan loads only in the TensorRT version that built it
            raise OpError("load_failed", "TensorRT's Python builder failed, and %s is TensorRT %s while the Python "
                          "module is %s: its engine would not load here" % (
                              trtexec, ".".join(str(x) for x in version), self._trt.__version__),
                          hint="put the trtexec of the same TensorRT first on PATH, or see the agent's stderr for "
                               "why the Python build failed")
        argv = trtexec_argv(trtexec, version, onnx_path, engine_path, precision, shapes,
                            self._dynamic_inputs, WORKSPACE_BYTES)
        rc, out, err = self.tools.run(argv, timeout=TRTEXEC_TIMEOUT_S)
        if rc != 0 or not os.path.isfile(engine_path):
            lines = (out + "\n" + err).strip().splitlines()
            errors = [ln for ln in lines if "[E]" in ln]
            tail = lines[-5:]
            raise OpError("load_failed", "trtexec %s could not build the engine (exit %s)%s" % (
                ".".join(str(x) for x in version), rc, ": " + errors[0].split("[E]", 1)[1].strip() if errors else ""),
                detail="\n".join(tail))
        return argv

    def _engine_bytes(self, onnx_path, precision, shapes, workdir):
        """(serialized engine, cache info): from the cache, else built (Python API, trtexec fallback)."""
        from ..protocol import OpError

        gpu = self._cuda.gpu_name()
        key, material = self._engine_key(_sha256(onnx_path), precision, gpu, shapes)
        cache_dir = os.path.join(workdir, "trt-engines")
        if not os.path.isdir(cache_dir):
            os.makedirs(cache_dir)
        path = os.path.join(cache_dir, key + ".engine")
        info = {"key": key, "path": path, "material": material, "hit": False, "builder": None, "notes": []}
        if os.path.isfile(path):
            with open(path, "rb") as f:
                info["hit"] = True
                info["builder"] = "cache"
                return f.read(), info
        tmp = path + ".part-%d" % os.getpid()
        logger = self._logger()
        try:
            data, notes = self._build_python(onnx_path, precision, shapes, logger, WORKSPACE_BYTES)
            info["builder"] = "tensorrt python api"
            info["notes"] = notes
            with open(tmp, "wb") as f:
                f.write(data)
        except OpError as e:
            from ..environment import find_trtexec

            trtexec = find_trtexec(self.tools)
            if trtexec is None or e.type != "load_failed" or "parser" in e.message:
                raise
            info["builder"] = "trtexec (python builder failed: %s)" % e.message
            info["trtexec_argv"] = self._build_trtexec(trtexec, onnx_path, precision, shapes, tmp)
            with open(tmp, "rb") as f:
                data = f.read()
        os.rename(tmp, path)
        with open(path + ".json", "w") as f:
            json.dump(material, f, sort_keys=True)
        return data, info

    def load(self, path, inputs, options):
        from ..protocol import OpError
        import numpy as np

        trt = self._trt or self.require()
        cuda = self._cuda
        options = dict(options or {})
        precision = options.get("precision") or "fp32"
        if precision not in ("fp32", "fp16", "int8"):
            raise OpError("bad_option", "unknown TensorRT precision %r" % precision)
        self._transfers = options.get("transfers", True) is not False
        given = dict(inputs)
        shapes = dict((k, tuple(v.shape)) for k, v in given.items())
        workdir = options.get("workdir") or os.getcwd()
        data, cache = self._engine_bytes(path, precision, shapes, workdir)
        runtime = trt.Runtime(self._logger())
        self._runtime = runtime
        self._engine = runtime.deserialize_cuda_engine(data)
        if self._engine is None:
            raise OpError("load_failed", "TensorRT could not deserialize the cached engine %s" % cache["path"],
                          hint="delete it (the GPU or TensorRT version may have changed) and run again")
        engine = self._engine
        self._context = engine.create_execution_context()
        ctx = self._context
        self._stream = cuda.stream()
        self._v3 = hasattr(engine, "num_io_tensors")
        tensors = []
        if self._v3:
            names = [engine.get_tensor_name(i) for i in range(engine.num_io_tensors)]
            for name in names:
                is_input = engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT
                if is_input:
                    if name not in given:
                        raise OpError("bad_inputs", "model input %s was not provided" % name)
                    ctx.set_input_shape(name, given[name].shape)
            for name in names:
                is_input = engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT
                shape = tuple(given[name].shape) if is_input else tuple(ctx.get_tensor_shape(name))
                dtype = self._np_dtype(engine.get_tensor_dtype(name))
                tensors.append({"name": name, "is_input": is_input, "shape": shape, "dtype": dtype})
        else:
            for b in range(engine.num_bindings):
                name = engine.get_binding_name(b)
                is_input = engine.binding_is_input(b)
                if is_input:
                    if name not in given:
                        raise OpError("bad_inputs", "model input %s was not provided" % name)
                    ctx.set_binding_shape(b, given[name].shape)
            for b in range(engine.num_bindings):
                name = engine.get_binding_name(b)
                is_input = engine.binding_is_input(b)
                shape = tuple(given[name].shape) if is_input else tuple(ctx.get_binding_shape(b))
                dtype = self._np_dtype(engine.get_binding_dtype(b))
                tensors.append({"name": name, "is_input": is_input, "shape": shape, "dtype": dtype})
        for t in tensors:
            nbytes = int(np.prod(t["shape"])) * t["dtype"].itemsize
            t["dev"] = cuda.malloc(nbytes)
            t["host"] = cuda.host(t["shape"], t["dtype"])
            if t["is_input"]:
                t["host"][...] = given[t["name"]].astype(t["dtype"])
            if self._v3:
                ctx.set_tensor_address(t["name"], cuda.ptr(t["dev"]))
        self._bindings = [cuda.ptr(t["dev"]) for t in tensors]
        self._tensors = tensors
        self._inputs = [t for t in tensors if t["is_input"]]
        self._outputs = [t for t in tensors if not t["is_input"]]
        self._handle = cuda.stream_handle(self._stream)
        for t in self._inputs:  # inputs on the GPU once, for transfers=false and the first run
            cuda.htod(t["dev"], t["host"], self._stream)
        cuda.sync(self._stream)
        self.run()  # first run outside the timed loop (lazy initialisation)
        self._options = {
            "precision": precision,
            "transfers": self._transfers,
            "io_api": "tensors (execute_async_v3)" if self._v3 else "bindings (execute_async_v2)",
            "cuda": cuda.name,
            "typing": "strong (TensorRT 11: precision from the ONNX)" if self._strongly_typed()
                      else "weak (builder precision flags)",
            "engine_cache": {"hit": cache["hit"], "key": cache["key"], "builder": cache["builder"],
                             "gpu": cache["material"]["gpu"]},
            "build_notes": cache.get("notes") or [],
            "timing": "H2D + execute + D2H, stream synchronised after each query" if self._transfers
                      else "execute only, stream synchronised after each query",
        }

    def _np_dtype(self, trt_dtype):
        import numpy as np

        name = getattr(trt_dtype, "name", None)
        if name in NP_DTYPES:
            return np.dtype(NP_DTYPES[name])
        return np.dtype(self._trt.nptype(trt_dtype))

    # -------------------------------------------------------------------------------------------- run
    def _execute(self):
        if self._v3:
            ok = self._context.execute_async_v3(self._handle)
        else:
            ok = self._context.execute_async_v2(self._bindings, self._handle)
        if ok is False:
            from ..protocol import OpError
            raise OpError("run_failed", "TensorRT execution failed (execute_async returned False)")

    def set_inputs(self, inputs):
        """Copy new arrays (the shapes of load's) into the named inputs' host buffers (and to the GPU when the
        timed runs do not copy): the accuracy pass."""
        given = dict(inputs)
        for t in self._inputs:
            if t["name"] in given:
                t["host"][...] = given[t["name"]].astype(t["dtype"])
                if not self._transfers:
                    self._cuda.htod(t["dev"], t["host"], self._stream)
        if not self._transfers:
            self._cuda.sync(self._stream)

    def run(self):
        cuda, stream = self._cuda, self._stream
        if self._transfers:
            for t in self._inputs:
                cuda.htod(t["dev"], t["host"], stream)
        self._execute()
        if self._transfers:
            for t in self._outputs:
                cuda.dtoh(t["host"], t["dev"], stream)
        cuda.sync(stream)

    def outputs(self):
        import numpy as np

        if not self._transfers:
            for t in self._outputs:
                self._cuda.dtoh(t["host"], t["dev"], self._stream)
            self._cuda.sync(self._stream)
        return [np.array(t["host"]) for t in self._outputs]

    def profile_ops(self, iterations):
        """Per-layer times from an IProfiler over `iterations` synchronised runs."""
        trt = self._trt

        class LayerTimes(trt.IProfiler):
            def __init__(self):
                trt.IProfiler.__init__(self)
                self.totals = {}
                self.order = []

            def report_layer_time(self, layer_name, ms):
                if layer_name not in self.totals:
                    self.totals[layer_name] = [0.0, 0]
                    self.order.append(layer_name)
                self.totals[layer_name][0] += float(ms)
                self.totals[layer_name][1] += 1

        kinds = self._layer_kinds()
        prof = LayerTimes()
        self._context.profiler = prof
        for _ in range(iterations):
            self.run()
        nodes = [[name, kinds.get(name, "layer"), "TensorRT", prof.totals[name][0] * 1000.0, prof.totals[name][1]]
                 for name in prof.order]
        return {"available": bool(nodes), "source": "TensorRT IProfiler (per layer, synchronised runs)",
                "reason": None if nodes else "the profiler reported no layers", "iterations": iterations,
                "unit": "us", "nodes": nodes}

    def _layer_kinds(self):
        trt = self._trt
        try:
            inspector = self._engine.create_engine_inspector()
            info = json.loads(inspector.get_engine_information(trt.LayerInformationFormat.JSON))
            kinds = {}
            for layer in info.get("Layers", []):
                if isinstance(layer, dict):
                    kinds[layer.get("Name")] = layer.get("LayerType", "layer")
            return kinds
        except Exception:
            return {}

    def describe(self):
        trt = self._trt
        return {
            "runtime": "tensorrt",
            "version": getattr(trt, "__version__", None) if trt else None,
            "providers": ["TensorRT"],
            "options": self._options,
        }

    def close(self):
        for t in self._tensors:
            if self._cuda is not None and t.get("dev") is not None:
                self._cuda.free(t["dev"])
        self._tensors = []
        self._context = None
        self._engine = None
