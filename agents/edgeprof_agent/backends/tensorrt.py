"""TensorRT backend: an engine built on the device from the pushed ONNX (cached), timed with stream syncs.

Version-aware from TensorRT 8.2 (JetPack 4.6) to 11; what differs, from NVIDIA/TensorRT python/src/infer/pyCore.cpp
and samples/common/sampleOptions.cpp at each release tag (docs/stacks.md has the table), lives in three layers:
trt_engine.py (the engine build: Python builder, trtexec fallback, the engine cache), trt_io.py (the two I/O APIs:
named tensors / bindings) and trt_cuda.py (cuda-python or pycuda: memory, streams, copies).

Owns:
- the Backend (backends/base.py) over those layers: require (an NVIDIA GPU, tensorrt, CUDA Python bindings that
  start), load (engine → execution context → device and host buffers → inputs copied → one first run);
- one query = H2D copies of the inputs, execute on a stream, D2H copies of the outputs, then
  stream.synchronize(): the host clock brackets a finished query (what trtexec calls latency). Option
  `transfers: false` times execute + synchronize only (inputs copied once at load, like --noDataTransfers);
- per-layer times with an IProfiler in the profile pass (after the timed loop), layer kinds from the engine
  inspector when the engine was built with detailed profiling verbosity.
Does not own: timing (worker.py), statistics (host), quantisation (host: export/quantize.py).
This module has run only against the per-version test doubles in tests/agent/fakes/tensorrt (no TensorRT on our
machines).
"""

import json
import os

from .base import Backend as _Base
from .trt_cuda import import_cuda
from .trt_engine import (  # noqa: F401 - banner_version, trtexec_argv, version_tuple: this module's API too
    EngineBuilder, banner_version, trtexec_argv, version_tuple)
from .trt_io import io_api


class Backend(_Base):
    name = "tensorrt"

    def __init__(self, root, tools, workdir=None):
        # root: SysfsRoot, GPU discovery reads /proc/driver/nvidia and the Tegra markers under it; tools: trtexec
        _Base.__init__(self, root, tools, workdir)
        self._trt = None
        self._cuda = None
        self._builder = None  # trt_engine.EngineBuilder
        self._engine = None
        self._context = None
        self._io = None  # trt_io.NamedTensors or trt_io.Bindings, by what the engine has
        self._stream = None
        self._tensors = []  # dicts: name, is_input, host, dev, shape, dtype
        self._options = {}
        self._bindings = None
        self._transfers = True

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
            self._cuda = import_cuda()
        except ImportError as e:
            raise runtime_missing("CUDA Python bindings for tensorrt", e,
                                  "cuda-python (pycuda on JetPack 4: pip3 install pycuda)")
        self._cuda.probe()
        self._trt = trt
        return trt

    def load(self, path, inputs, options):
        from ..protocol import OpError

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
        self._builder = builder = EngineBuilder(trt, cuda, self.tools)
        data, cache = builder.engine_bytes(path, precision, shapes, workdir)
        runtime = trt.Runtime(builder.logger())
        self._runtime = runtime
        self._engine = runtime.deserialize_cuda_engine(data)
        if self._engine is None:
            raise OpError("load_failed", "TensorRT could not deserialize the cached engine %s" % cache["path"],
                          hint="delete it (the GPU or TensorRT version may have changed) and run again")
        self._context = self._engine.create_execution_context()
        self._stream = cuda.stream()
        self._io = io_api(trt, self._engine, self._context)
        self._allocate(self._io.tensors(given), given)
        self.run()  # first run outside the timed loop (lazy initialisation)
        self._options = {
            "precision": precision,
            "transfers": self._transfers,
            "io_api": self._io.name,
            "cuda": cuda.name,
            "typing": "strong (TensorRT 11: precision from the ONNX)" if builder.strongly_typed()
                      else "weak (builder precision flags)",
            "engine_cache": {"hit": cache["hit"], "key": cache["key"], "builder": cache["builder"],
                             "gpu": cache["material"]["gpu"]},
            "build_notes": cache.get("notes") or [],
            "timing": "H2D + execute + D2H, stream synchronised after each query" if self._transfers
                      else "execute only, stream synchronised after each query",
        }

    def _allocate(self, tensors, given):
        """Device and host buffers for each of the engine's tensors, the inputs filled and copied to the GPU."""
        import numpy as np

        cuda = self._cuda
        for t in tensors:
            nbytes = int(np.prod(t["shape"])) * t["dtype"].itemsize
            t["dev"] = cuda.malloc(nbytes)
            t["host"] = cuda.host(t["shape"], t["dtype"])
            if t["is_input"]:
                t["host"][...] = given[t["name"]].astype(t["dtype"])
            self._io.set_address(t["name"], cuda.ptr(t["dev"]))
        self._bindings = [cuda.ptr(t["dev"]) for t in tensors]
        self._tensors = tensors
        self._inputs = [t for t in tensors if t["is_input"]]
        self._outputs = [t for t in tensors if not t["is_input"]]
        self._handle = cuda.stream_handle(self._stream)
        for t in self._inputs:  # inputs on the GPU once, for transfers=false and the first run
            cuda.htod(t["dev"], t["host"], self._stream)
        cuda.sync(self._stream)

    # -------------------------------------------------------------------------------------------- run
    def _execute(self):
        ok = self._io.execute(self._handle, self._bindings)
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
