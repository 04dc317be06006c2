"""A test double of NVIDIA's `tensorrt` Python module, one PROFILE per release line: 8.2, 8.4, 8.5, 8.6, 10.x, 11.x.

It is NOT TensorRT. "Engines" are the ONNX bytes with a JSON header (precision flags, typing, layers); executing
one runs the ONNX with onnxruntime on the CPU, reading and writing the fake device memory of the CUDA doubles
(../_fake_gpu.py). Every call the backend makes is appended as one JSON line to $EDGEPROF_FAKE_TRT_LOG (when set),
so tests can check the control flow: build flags, cache use, and the order H2D → execute → D2H → synchronise.
Python 3.6-safe and free of the `onnx` package (../tensorrt/_onnxwire.py reads the file), so it also runs in the
JetPack 4.6 stand-in venv (Python 3.6, numpy 1.19.5, onnxruntime 1.10).

The version is chosen at import by EDGEPROF_FAKE_TRT_VERSION (default "10.3.0"); a release line without a
profile raises ImportError. What each profile has, and what it lacks (an AttributeError, as on the real module),
is taken from NVIDIA/TensorRT at the release tags 8.2.1, 8.4.3, 8.5.3, v8.6.1, v10.3.0, v11.0:
- python/src/infer/pyCore.cpp: ICudaEngine / IExecutionContext bindings API (num_bindings, get_binding_name,
  binding_is_input, get_binding_dtype, set_binding_shape, get_binding_shape, execute_async_v2) in 8.2-8.6, gone in
  10; tensor API (num_io_tensors, get_tensor_name, get_tensor_mode, get_tensor_dtype, set_input_shape,
  get_tensor_shape, set_tensor_address, execute_async_v3) from 8.5; IBuilderConfig.max_workspace_size up to 8.6,
  set_memory_pool_limit from 8.4; BuilderFlag FP16 / INT8 up to 10.x, removed in 11; NetworkDefinitionCreationFlag
  EXPLICIT_BATCH up to 10.x (ignored in 10), STRONGLY_TYPED from 10 (9.x) - in 11 the only flag that matters:
  networks are strongly typed (samples/python/*/ at v11.0 call create_network(1 << STRONGLY_TYPED));
  Builder.platform_has_fast_fp16 / _int8 up to 10.x, gone in 11.
- python/src/infer/pyFoundationalTypes.cpp: DataType members (8.2, 8.4: FLOAT HALF INT8 INT32 BOOL; 8.5 + UINT8;
  8.6 + FP8; 10 + BF16 INT64 INT4; 11 + FP4 E8M0).
- python/packaging/tensorrt/__init__.py (8.2-8.6) and bindings_wheel/tensorrt/__init__.py (10, 11): nptype();
  8.2/8.4's builds its table with `np.bool`, which numpy 1.24-1.26 do not have.
- the ONNX parser of 8.x refuses an implicit-batch network ("This version of the ONNX parser only supports
  TensorRT INetworkDefinitions with an explicit batch dimension ..."), and casts INT64 inputs down to INT32.
- a strongly typed network takes its precision from the ONNX: FP16 / INT8 builder flags are build errors on it
  (10.x), and do not exist (11).

Other knobs: EDGEPROF_FAKE_TRT_BUILD_FAIL=1 (build_serialized_network returns None, as on a failed build).
"""

# ruff: noqa: UP031, B905 - runs under Python 3.6 too (the JetPack 4.6 stack): %-format, zip without strict

import ctypes
import json
import os

import _fake_gpu
import numpy as np

from . import _onnxwire

__version__ = os.environ.get("EDGEPROF_FAKE_TRT_VERSION", "10.3.0")
VERSION = tuple(int(x) for x in __version__.split(".")[:2])
PROFILES = {(8, 2): "8.2", (8, 4): "8.4", (8, 5): "8.5", (8, 6): "8.6", (10,): "10.x", (11,): "11.x"}
PROFILE = PROFILES.get(VERSION) or PROFILES.get(VERSION[:1])
if PROFILE is None:
    raise ImportError("the tensorrt test double has no profile for %s (profiles: %s)"
                      % (__version__, ", ".join(sorted(PROFILES.values()))))

HAS_BINDINGS = VERSION < (10, 0)
HAS_TENSORS = VERSION >= (8, 5)
HAS_POOLS = VERSION >= (8, 4)
WEAK_TYPING = VERSION < (11, 0)  # BuilderFlag.FP16 / INT8 exist
_MAGIC = b"FAKETRT1\n"
_log = _fake_gpu.log


class _Enum:
    def __init__(self, name, value):
        self.name, self.value = name, value

    def __int__(self):
        return self.value

    def __eq__(self, other):
        return isinstance(other, _Enum) and other.name == self.name and other.value == self.value

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "%s.%s" % (type(self).__name__, self.name)


def _enum(cls_name, members):
    """A class with one _Enum attribute per (name, value): absent members raise AttributeError."""
    cls = type(cls_name, (object,), {})
    for name, value in members:
        setattr(cls, name, _Enum(name, value))
    return cls


class Logger:
    VERBOSE, INFO, WARNING, ERROR, INTERNAL_ERROR = 4, 3, 2, 1, 0

    def __init__(self, min_severity=2):
        self.min_severity = min_severity


if VERSION < (10, 0):
    NetworkDefinitionCreationFlag = _enum("NetworkDefinitionCreationFlag",
                                          [("EXPLICIT_BATCH", 0), ("EXPLICIT_PRECISION", 1)])
elif VERSION < (11, 0):
    NetworkDefinitionCreationFlag = _enum("NetworkDefinitionCreationFlag",
                                          [("EXPLICIT_BATCH", 0), ("STRONGLY_TYPED", 1)])
else:
    NetworkDefinitionCreationFlag = _enum("NetworkDefinitionCreationFlag",
                                          [("STRONGLY_TYPED", 1), ("PREFER_AOT_PYTHON_PLUGINS", 2),
                                           ("PREFER_JIT_PYTHON_PLUGINS", 3)])

if HAS_POOLS:
    MemoryPoolType = _enum("MemoryPoolType", [("WORKSPACE", 0), ("DLA_MANAGED_SRAM", 1)])

_FLAGS = [("DEBUG", 2), ("GPU_FALLBACK", 3), ("REFIT", 5), ("TF32", 7)]
if WEAK_TYPING:
    _FLAGS = [("FP16", 0), ("INT8", 1)] + _FLAGS
BuilderFlag = _enum("BuilderFlag", _FLAGS)

ProfilingVerbosity = _enum("ProfilingVerbosity", [("LAYER_NAMES_ONLY", 0), ("NONE", 1), ("DETAILED", 2)])
if HAS_TENSORS:
    TensorIOMode = _enum("TensorIOMode", [("NONE", 0), ("INPUT", 1), ("OUTPUT", 2)])
LayerInformationFormat = _enum("LayerInformationFormat", [("ONELINE", 0), ("JSON", 1)])
LayerType = _enum("LayerType", [("CONVOLUTION", 0), ("ACTIVATION", 2), ("MATRIX_MULTIPLY", 17),
                                ("IDENTITY", 20), ("QUANTIZE", 33), ("DEQUANTIZE", 34), ("CAST", 39)])

_TYPES = [("FLOAT", 0), ("HALF", 1), ("INT8", 2), ("INT32", 3), ("BOOL", 4)]
if VERSION >= (8, 5):
    _TYPES.append(("UINT8", 5))
if VERSION >= (8, 6):
    _TYPES.append(("FP8", 6))
if VERSION >= (10, 0):
    _TYPES += [("BF16", 7), ("INT64", 8), ("INT4", 9)]
if VERSION >= (11, 0):
    _TYPES += [("FP4", 10), ("E8M0", 11)]
DataType = _enum("DataType", _TYPES)
float32, float16, int8, int32 = DataType.FLOAT, DataType.HALF, DataType.INT8, DataType.INT32
bool = DataType.BOOL  # noqa: A001 - tensorrt's own name (python/packaging/tensorrt/__init__.py)
if VERSION >= (8, 5):
    uint8 = DataType.UINT8
if VERSION >= (10, 0):
    int64 = DataType.INT64

# ONNX TensorProto element types → TensorRT; before 10 the parser casts INT64 down to INT32
_FROM_ONNX = {1: "FLOAT", 10: "HALF", 3: "INT8", 6: "INT32", 9: "BOOL", 2: "UINT8",
              7: "INT64" if VERSION >= (10, 0) else "INT32"}
_ORT_TYPES = {"tensor(float)": 1, "tensor(float16)": 10, "tensor(int64)": 7, "tensor(int32)": 6,
              "tensor(int8)": 3, "tensor(bool)": 9, "tensor(uint8)": 2}
_ONNX_OPS = {"Conv": "CONVOLUTION", "Relu": "ACTIVATION", "MatMul": "MATRIX_MULTIPLY", "Gemm": "MATRIX_MULTIPLY",
             "QuantizeLinear": "QUANTIZE", "DequantizeLinear": "DEQUANTIZE", "Cast": "CAST"}


def _dtype(onnx_elem):
    return getattr(DataType, _FROM_ONNX.get(onnx_elem, "FLOAT"))


def nptype(trt_type):
    if VERSION < (8, 5):  # 8.2 / 8.4: the table is built on every call, with np.bool
        mapping = {float32: np.float32, float16: np.float16, int8: np.int8, int32: np.int32, bool: np.bool}
    else:
        mapping = {float32: np.float32, float16: np.float16, int8: np.int8, int32: np.int32, bool: np.bool_,
                   uint8: np.uint8}
        if VERSION >= (10, 0):
            mapping[int64] = np.int64
    if trt_type in mapping:
        return mapping[trt_type]
    raise TypeError("Could not resolve TensorRT datatype to an equivalent numpy datatype.")


class ITensor:
    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, shape, dtype


class ILayer:
    def __init__(self, name, type_, outputs):
        self.name, self.type, self._outputs = name, type_, outputs

    @property
    def num_outputs(self):
        return len(self._outputs)

    def get_output(self, i):
        return self._outputs[i]


class INetworkDefinition:
    def __init__(self, flags):
        self.flags = flags
        self.inputs, self.outputs, self.layers = [], [], []
        self.onnx = None
        self.nodes = []
        strongly = getattr(NetworkDefinitionCreationFlag, "STRONGLY_TYPED", None)
        self.strongly_typed = not WEAK_TYPING or (strongly is not None and bool_(flags & (1 << int(strongly))))
        explicit = getattr(NetworkDefinitionCreationFlag, "EXPLICIT_BATCH", None)
        self.has_implicit_batch_dimension = (VERSION < (10, 0) and not flags & (1 << int(explicit)))

    @property
    def num_inputs(self):
        return len(self.inputs)

    def get_input(self, i):
        return self.inputs[i]

    @property
    def num_outputs(self):
        return len(self.outputs)

    def get_output(self, i):
        return self.outputs[i]

    @property
    def num_layers(self):
        return len(self.layers)

    def get_layer(self, i):
        return self.layers[i]


def bool_(x):
    return x != 0


class OnnxParser:
    def __init__(self, network, logger):
        self.network = network
        self.errors = []

    def parse(self, model, path=None):
        net = self.network
        if net.has_implicit_batch_dimension:
            self.errors.append("ModelImporter.cpp: This version of the ONNX parser only supports TensorRT "
                               "INetworkDefinitions with an explicit batch dimension. Please ensure the network "
                               "was created using the EXPLICIT_BATCH NetworkDefinitionCreationFlag.")
            _log("parse", ok=False)
            return False
        try:
            info = _onnxwire.read_model(bytes(model))
        except ValueError as e:
            self.errors.append("ModelImporter.cpp: Failed to parse ONNX model: %s" % e)
            _log("parse", ok=False)
            return False
        for vi in info["inputs"]:
            net.inputs.append(ITensor(vi["name"], vi["dims"], _dtype(vi["elem_type"])))
        for vi in info["outputs"]:
            net.outputs.append(ITensor(vi["name"], vi["dims"], _dtype(vi["elem_type"])))
        for name, op in info["nodes"]:
            out_type = DataType.FLOAT
            if name in info["casts"]:
                out_type = _dtype(info["casts"][name])
            net.layers.append(ILayer(name, getattr(LayerType, _ONNX_OPS.get(op, "IDENTITY")),
                                     [ITensor(name + ":0", [], out_type)]))
        net.onnx = bytes(model)
        net.nodes = list(info["nodes"])
        _log("parse", ok=True, inputs=[t.name for t in net.inputs])
        return True

    @property
    def num_errors(self):
        return len(self.errors)

    def get_error(self, i):
        return self.errors[i]


class IOptimizationProfile:
    def __init__(self):
        self.shapes = {}

    def set_shape(self, input, min, opt, max):  # noqa: A002 - TensorRT's argument names
        self.shapes[input] = [list(min), list(opt), list(max)]


class IBuilderConfig:
    def __init__(self):
        self.flags = []
        self.profiles = []
        self.workspace = None
        self.profiling_verbosity = ProfilingVerbosity.LAYER_NAMES_ONLY

    def set_memory_pool_limit(self, pool, pool_size):
        self.workspace = ("pool", int(pool_size))

    def _get_max_workspace_size(self):
        return self.workspace[1] if self.workspace else 0

    def _set_max_workspace_size(self, size):
        self.workspace = ("max_workspace_size", int(size))

    max_workspace_size = property(_get_max_workspace_size, _set_max_workspace_size)

    def set_flag(self, flag):
        self.flags.append(flag.name)

    def add_optimization_profile(self, profile):
        self.profiles.append(profile)
        return len(self.profiles) - 1


if not HAS_POOLS:
    del IBuilderConfig.set_memory_pool_limit
if VERSION >= (10, 0):  # removed in 10 (pyCore.cpp v10.3.0 has no max_workspace_size)
    del IBuilderConfig.max_workspace_size


class Builder:
    def __init__(self, logger):
        self.logger = logger

    platform_has_fast_fp16 = True
    platform_has_fast_int8 = True

    def create_network(self, flags=0):
        _log("create_network", flags=int(flags))
        return INetworkDefinition(int(flags))

    def create_builder_config(self):
        return IBuilderConfig()

    def create_optimization_profile(self):
        return IOptimizationProfile()

    def build_serialized_network(self, network, config):
        _log("build", flags=config.flags, profiles=[p.shapes for p in config.profiles],
             detailed=config.profiling_verbosity == ProfilingVerbosity.DETAILED,
             strongly_typed=network.strongly_typed, workspace=list(config.workspace or []))
        if os.environ.get("EDGEPROF_FAKE_TRT_BUILD_FAIL"):
            return None
        if network.strongly_typed and set(config.flags) & set(["FP16", "INT8"]):
            _log("build_error", message="precision flags are not allowed on a strongly typed network")
            return None
        dynamic = any(d < 0 for t in network.inputs for d in t.shape)
        if dynamic and not config.profiles:
            _log("build_error", message="Network has dynamic or shape inputs, but no optimization profile")
            return None
        return serialize(network.onnx, config.flags, network.nodes, network.strongly_typed)


if VERSION >= (11, 0):
    del Builder.platform_has_fast_fp16, Builder.platform_has_fast_int8


def serialize(onnx_bytes, flags, nodes, strongly_typed=False):
    header = json.dumps({"flags": list(flags), "nodes": [list(n) for n in nodes], "version": __version__,
                         "strongly_typed": strongly_typed}).encode()
    return _MAGIC + header + b"\n" + onnx_bytes


class IEngineInspector:
    def __init__(self, engine):
        self.engine = engine

    def get_engine_information(self, fmt):
        return json.dumps({"Layers": [{"Name": n, "LayerType": t} for n, t in self.engine.nodes]})


class ICudaEngine:
    def __init__(self, header, onnx_bytes):
        import onnxruntime as ort

        if header["version"] != __version__:  # a plan from another TensorRT version
            raise RuntimeError("engine plan of TensorRT %s, this is %s" % (header["version"], __version__))
        self.flags = header["flags"]
        self.nodes = [tuple(n) for n in header["nodes"]]
        so = ort.SessionOptions()
        so.log_severity_level = 3
        self.session = ort.InferenceSession(onnx_bytes, so, providers=["CPUExecutionProvider"])
        ins, outs = self.session.get_inputs(), self.session.get_outputs()
        self.names = [i.name for i in ins] + [o.name for o in outs]
        self.n_inputs = len(ins)
        self.ort_types = [_ORT_TYPES[x.type] for x in list(ins) + list(outs)]
        self.types = [_dtype(t) for t in self.ort_types]

    def create_execution_context(self):
        _log("create_execution_context")
        return IExecutionContext(self)

    def create_engine_inspector(self):
        return IEngineInspector(self)

    # named tensors (8.5+)
    @property
    def num_io_tensors(self):
        return len(self.names)

    def get_tensor_name(self, index):
        return self.names[index]

    def get_tensor_mode(self, name):
        return TensorIOMode.INPUT if self.names.index(name) < self.n_inputs else TensorIOMode.OUTPUT

    def get_tensor_dtype(self, name):
        return self.types[self.names.index(name)]

    # bindings (up to 8.6)
    @property
    def num_bindings(self):
        return len(self.names)

    def get_binding_name(self, index):
        return self.names[index]

    def binding_is_input(self, index):
        return index < self.n_inputs

    def get_binding_dtype(self, index):
        return self.types[index]


class Runtime:
    def __init__(self, logger):
        self.logger = logger

    def deserialize_cuda_engine(self, serialized_engine):
        data = bytes(serialized_engine)
        if not data.startswith(_MAGIC):
            _log("deserialize", ok=False)
            return None
        header, onnx_bytes = data[len(_MAGIC):].split(b"\n", 1)
        _log("deserialize", ok=True)
        try:
            return ICudaEngine(json.loads(header.decode()), onnx_bytes)
        except RuntimeError as e:
            _log("deserialize_error", message=str(e))
            return None


class IProfiler:
    def __init__(self):
        pass


class IExecutionContext:
    def __init__(self, engine):
        self.engine = engine
        self.shapes = {}
        self.addresses = {}
        self.profiler = None
        self._out_shapes = None

    def _set_shape(self, name, shape):
        self.shapes[name] = tuple(int(d) for d in shape)
        self._out_shapes = None
        return True

    def set_input_shape(self, name, shape):
        return self._set_shape(name, shape)

    def set_binding_shape(self, binding, shape):
        return self._set_shape(self.engine.names[binding], shape)

    def _np(self, i):
        return np.dtype(_NP_ONNX[self.engine.ort_types[i]])

    def _outputs_for_shapes(self):
        if self._out_shapes is None:
            feed = {}
            for i, inp in enumerate(self.engine.session.get_inputs()):
                feed[inp.name] = np.zeros(self.shapes[inp.name], dtype=self._np(i))
            self._out_shapes = [tuple(o.shape) for o in self.engine.session.run(None, feed)]
        return self._out_shapes

    def get_tensor_shape(self, name):
        return self._shape(name)

    def _shape(self, name):
        i = self.engine.names.index(name)
        if i < self.engine.n_inputs:
            return self.shapes[name]
        return self._outputs_for_shapes()[i - self.engine.n_inputs]

    def get_binding_shape(self, binding):
        return self._shape(self.engine.names[binding])

    def set_tensor_address(self, name, memory):
        self.addresses[name] = int(memory)
        return True

    def _run(self, stream):
        e = self.engine
        feed = {}
        for i, inp in enumerate(e.session.get_inputs()):
            trt_dtype = np.dtype(_NP_TRT[e.types[i].name])  # what the caller wrote (INT32 for INT64 before 10)
            shape = self.shapes[inp.name]
            n = int(np.prod(shape)) * trt_dtype.itemsize
            raw = np.frombuffer(ctypes.string_at(self.addresses[inp.name], n), dtype=trt_dtype).reshape(shape)
            feed[inp.name] = raw.astype(self._np(i))
        outs = e.session.run(None, feed)
        for k, (o, name) in enumerate(zip(outs, e.names[e.n_inputs:])):
            o = np.ascontiguousarray(o.astype(_NP_TRT[e.types[e.n_inputs + k].name]))
            ctypes.memmove(self.addresses[name], o.ctypes.data, o.nbytes)
        if self.profiler is not None:
            for k, (node, _kind) in enumerate(e.nodes):
                self.profiler.report_layer_time(node, 0.01 * (k + 1))
        _log("execute", stream=int(stream))
        return True

    def execute_async_v3(self, stream_handle):
        return self._run(stream_handle)

    def execute_async_v2(self, bindings, stream_handle, input_consumed=None):
        for name, ptr in zip(self.engine.names, bindings):
            self.addresses[name] = int(ptr)
        return self._run(stream_handle)


_NP_ONNX = {1: np.float32, 10: np.float16, 3: np.int8, 6: np.int32, 9: np.bool_, 7: np.int64, 2: np.uint8}
_NP_TRT = {"FLOAT": np.float32, "HALF": np.float16, "INT8": np.int8, "INT32": np.int32, "BOOL": np.bool_,
           "INT64": np.int64, "UINT8": np.uint8}

if not HAS_TENSORS:
    for _name in ("num_io_tensors", "get_tensor_name", "get_tensor_mode", "get_tensor_dtype"):
        delattr(ICudaEngine, _name)
    for _name in ("set_input_shape", "get_tensor_shape", "set_tensor_address", "execute_async_v3"):
        delattr(IExecutionContext, _name)
if not HAS_BINDINGS:
    for _name in ("num_bindings", "get_binding_name", "binding_is_input", "get_binding_dtype"):
        delattr(ICudaEngine, _name)
    for _name in ("set_binding_shape", "get_binding_shape", "execute_async_v2"):
        delattr(IExecutionContext, _name)
