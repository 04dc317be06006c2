"""The engine of the TensorRT backend: building it from the pushed ONNX, on the device, and caching it.

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
  GPU name, input shapes): engines are tied to the GPU and the TensorRT version.
Does not own: running the engine (tensorrt.py, trt_io.py), CUDA (trt_cuda.py).
"""

import hashlib
import json
import os
import re

WORKSPACE_BYTES = 1 << 30
TRTEXEC_TIMEOUT_S = 3600.0  # an engine build on a Nano takes minutes
TRTEXEC_BANNER = re.compile(r"\[TensorRT v(\d+)\]")


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


class EngineBuilder(object):
    """Builds (or finds in the cache) the serialized engine of one ONNX for the TensorRT module `trt`, on the GPU
    `cuda` (trt_cuda) names, running trtexec through `tools` (ToolRunner)."""

    def __init__(self, trt, cuda, tools):
        self._trt = trt
        self._cuda = cuda
        self.tools = tools
        self._dynamic_inputs = []  # inputs with dynamic dims, from the last parse (trtexec's shape flags)

    def logger(self):
        trt = self._trt
        return trt.Logger(trt.Logger.WARNING)

    def _engine_key(self, onnx_sha, precision, gpu, shapes):
        material = {"onnx_sha256": onnx_sha, "tensorrt": self._trt.__version__, "precision": precision,
                    "gpu": gpu, "shapes": dict((k, list(v)) for k, v in sorted(shapes.items()))}
        return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest(), material

    def strongly_typed(self):
        """TensorRT 11: BuilderFlag.FP16 / INT8 are gone, every network is strongly typed."""
        return not hasattr(self._trt.BuilderFlag, "FP16")

    def _network_flags(self):
        trt = self._trt
        ncf = getattr(trt, "NetworkDefinitionCreationFlag", None)
        if self.strongly_typed():
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
        typed = self.strongly_typed()
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

    def engine_bytes(self, onnx_path, precision, shapes, workdir):
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
        logger = self.logger()
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
