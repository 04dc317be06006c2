"""A test double of NVIDIA's `tensorrt` Python module: the documented API surface edgeprof's backend uses.

It is NOT TensorRT. "Engines" are the ONNX bytes with a JSON header (precision, flags, shapes); executing one
runs the ONNX with onnxruntime on the CPU, reading and writing the fake device memory of the `cuda` double
(tests/agent/fakes/tensorrt/cuda). Every call the backend makes is appended as one JSON line to
$EDGEPROF_FAKE_TRT_LOG (when set), so tests can check the control flow: build flags, cache use, and the order
H2D → execute → D2H → synchronise of every query.

Knobs (environment): EDGEPROF_FAKE_TRT_VERSION (default "10.3.0"; "8.2.1" gives the bindings API of JetPack 4),
EDGEPROF_FAKE_TRT_BUILD_FAIL=1 (build_serialized_network returns None, as on a failed build).
"""

import ctypes
import json
import os

import numpy as np

__version__ = os.environ.get("EDGEPROF_FAKE_TRT_VERSION", "10.3.0")
_VERSION = tuple(int(x) for x in __version__.split(".")[:2])
_MAGIC = b"FAKETRT1\n"


def _log(event, **fields):
    path = os.environ.get("EDGEPROF_FAKE_TRT_LOG")
    if path:
        fields["event"] = event
        with open(path, "a") as f:
            f.write(json.dumps(fields, sort_keys=True) + "\n")


class _Enum:
    def __init__(self, name, value):
        self.name, self.value = name, value

    def __int__(self):
        return self.value

    def __eq__(self, other):
        return isinstance(other, _Enum) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return self.name


class Logger:
    VERBOSE, INFO, WARNING, ERROR = 0, 1, 2, 3

    def __init__(self, level=2):
        self.level = level


class NetworkDefinitionCreationFlag:
    EXPLICIT_BATCH = _Enum("EXPLICIT_BATCH", 0)


class MemoryPoolType:
    WORKSPACE = _Enum("WORKSPACE", 0)


class BuilderFlag:
    FP16 = _Enum("FP16", 0)
    INT8 = _Enum("INT8", 1)


class ProfilingVerbosity:
    LAYER_NAMES_ONLY = _Enum("LAYER_NAMES_ONLY", 0)
    DETAILED = _Enum("DETAILED", 2)


class TensorIOMode:
    NONE = _Enum("NONE", 0)
    INPUT = _Enum("INPUT", 1)
    OUTPUT = _Enum("OUTPUT", 2)


class LayerInformationFormat:
    ONELINE = _Enum("ONELINE", 0)
    JSON = _Enum("JSON", 1)


class DataType:
    FLOAT = _Enum("FLOAT", 0)
    HALF = _Enum("HALF", 1)
    INT8 = _Enum("INT8", 2)
    INT32 = _Enum("INT32", 3)
    BOOL = _Enum("BOOL", 4)
    INT64 = _Enum("INT64", 5)


_NP = {"FLOAT": np.float32, "HALF": np.float16, "INT8": np.int8, "INT32": np.int32, "BOOL": np.bool_,
       "INT64": np.int64}
_FROM_ONNX = {1: DataType.FLOAT, 10: DataType.HALF, 3: DataType.INT8, 6: DataType.INT32, 9: DataType.BOOL,
              7: DataType.INT64}


def nptype(dt):
    return _NP[dt.name]


class _Tensor:
    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, shape, dtype


class INetworkDefinition:
    def __init__(self, flags):
        self.flags = flags
        self.inputs = []
        self.outputs = []
        self.onnx = None

    @property
    def num_inputs(self):
        return len(self.inputs)

    def get_input(self, i):
        return self.inputs[i]


class OnnxParser:
    def __init__(self, network, logger):
        self.network = network
        self.errors = []

    def parse(self, data):
        import onnx

        try:
            model = onnx.load_from_string(data)
        except Exception as e:
            self.errors.append(f"ModelImporter: failed to parse ONNX: {e}")
            _log("parse", ok=False)
            return False
        init = set(i.name for i in model.graph.initializer)
        for vi in model.graph.input:
            if vi.name in init:
                continue
            dims = [d.dim_value if d.HasField("dim_value") else -1 for d in vi.type.tensor_type.shape.dim]
            self.network.inputs.append(_Tensor(vi.name, dims, _FROM_ONNX.get(vi.type.tensor_type.elem_type,
                                                                             DataType.FLOAT)))
        self.network.onnx = data
        self.network.nodes = [(n.name or f"{n.op_type}_{i}", n.op_type) for i, n in enumerate(model.graph.node)]
        _log("parse", ok=True, inputs=[t.name for t in self.network.inputs])
        return True

    @property
    def num_errors(self):
        return len(self.errors)

    def get_error(self, i):
        return self.errors[i]


class IOptimizationProfile:
    def __init__(self):
        self.shapes = {}

    def set_shape(self, name, min, opt, max):  # noqa: A002 - TensorRT's argument names
        self.shapes[name] = [list(min), list(opt), list(max)]


class IBuilderConfig:
    def __init__(self):
        self.flags = []
        self.profiles = []
        self.workspace = None
        self.profiling_verbosity = ProfilingVerbosity.LAYER_NAMES_ONLY

    def set_memory_pool_limit(self, pool, size):
        self.workspace = size

    def set_flag(self, flag):
        self.flags.append(flag.name)

    def add_optimization_profile(self, profile):
        self.profiles.append(profile)
        return len(self.profiles) - 1


class _OldConfig(IBuilderConfig):
    set_memory_pool_limit = property(lambda self: (_ for _ in ()).throw(AttributeError("set_memory_pool_limit")))
    max_workspace_size = 0


class Builder:
    platform_has_fast_fp16 = True
    platform_has_fast_int8 = True

    def __init__(self, logger):
        self.logger = logger

    def create_network(self, flags=0):
        _log("create_network", flags=int(flags))
        return INetworkDefinition(flags)

    def create_builder_config(self):
        if _VERSION < (8, 4):  # before memory pools: config.max_workspace_size
            return _OldConfig()
        return IBuilderConfig()

    def create_optimization_profile(self):
        return IOptimizationProfile()

    def build_serialized_network(self, network, config):
        _log("build", flags=config.flags, profiles=[p.shapes for p in config.profiles],
             detailed=config.profiling_verbosity == ProfilingVerbosity.DETAILED)
        if os.environ.get("EDGEPROF_FAKE_TRT_BUILD_FAIL"):
            return None
        return serialize(network.onnx, config.flags, [n for n in network.nodes])


def serialize(onnx_bytes, flags, nodes):
    header = json.dumps({"flags": list(flags), "nodes": nodes, "version": __version__}).encode()
    return _MAGIC + header + b"\n" + onnx_bytes


class IEngineInspector:
    def __init__(self, engine):
        self.engine = engine

    def get_engine_information(self, fmt):
        return json.dumps({"Layers": [{"Name": n, "LayerType": t} for n, t in self.engine.nodes]})


class _EngineBase:
    def __init__(self, header, onnx_bytes):
        import onnxruntime as ort

        self.flags = header["flags"]
        self.nodes = [tuple(n) for n in header["nodes"]]
        so = ort.SessionOptions()
        so.log_severity_level = 3
        self.session = ort.InferenceSession(onnx_bytes, so, providers=["CPUExecutionProvider"])
        self.names = [i.name for i in self.session.get_inputs()] + [o.name for o in self.session.get_outputs()]
        self.n_inputs = len(self.session.get_inputs())
        types = {"tensor(float)": DataType.FLOAT, "tensor(float16)": DataType.HALF, "tensor(int64)": DataType.INT64,
                 "tensor(int32)": DataType.INT32, "tensor(int8)": DataType.INT8, "tensor(bool)": DataType.BOOL}
        self.types = [types[x.type] for x in list(self.session.get_inputs()) + list(self.session.get_outputs())]

    def create_execution_context(self):
        _log("create_execution_context")
        return IExecutionContext(self)

    def create_engine_inspector(self):
        return IEngineInspector(self)


class ICudaEngine(_EngineBase):
    """Named tensors (TensorRT >= 8.5)."""

    @property
    def num_io_tensors(self):
        return len(self.names)

    def get_tensor_name(self, i):
        return self.names[i]

    def get_tensor_mode(self, name):
        return TensorIOMode.INPUT if self.names.index(name) < self.n_inputs else TensorIOMode.OUTPUT

    def get_tensor_dtype(self, name):
        return self.types[self.names.index(name)]


class _BindingsEngine(_EngineBase):
    """Bindings (TensorRT 7-8.4, JetPack 4): no named-tensor API on the engine."""

    @property
    def num_bindings(self):
        return len(self.names)

    def get_binding_name(self, b):
        return self.names[b]

    def binding_is_input(self, b):
        return b < self.n_inputs

    def get_binding_dtype(self, b):
        return self.types[b]


class Runtime:
    def __init__(self, logger):
        self.logger = logger

    def deserialize_cuda_engine(self, data):
        data = bytes(data)
        if not data.startswith(_MAGIC):
            _log("deserialize", ok=False)
            return None
        header, onnx_bytes = data[len(_MAGIC):].split(b"\n", 1)
        _log("deserialize", ok=True)
        cls = ICudaEngine if _VERSION >= (8, 5) else _BindingsEngine
        return cls(json.loads(header.decode()), onnx_bytes)


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

    def set_input_shape(self, name, shape):
        self.shapes[name] = tuple(int(d) for d in shape)
        self._out_shapes = None
        return True

    def set_binding_shape(self, b, shape):
        return self.set_input_shape(self.engine.names[b], shape)

    def _outputs_for_shapes(self):
        if self._out_shapes is None:
            feed = {}
            for i, inp in enumerate(self.engine.session.get_inputs()):
                feed[inp.name] = np.zeros(self.shapes[inp.name], dtype=nptype(self.engine.types[i]))
            outs = self.engine.session.run(None, feed)
            self._out_shapes = [tuple(o.shape) for o in outs]
        return self._out_shapes

    def get_tensor_shape(self, name):
        i = self.engine.names.index(name)
        if i < self.engine.n_inputs:
            return self.shapes[name]
        return self._outputs_for_shapes()[i - self.engine.n_inputs]

    def get_binding_shape(self, b):
        return self.get_tensor_shape(self.engine.names[b])

    def set_tensor_address(self, name, ptr):
        self.addresses[name] = int(ptr)
        return True

    def _run(self, stream):
        e = self.engine
        feed = {}
        for i, inp in enumerate(e.session.get_inputs()):
            dtype = np.dtype(nptype(e.types[i]))
            shape = self.shapes[inp.name]
            n = int(np.prod(shape)) * dtype.itemsize
            feed[inp.name] = np.frombuffer(ctypes.string_at(self.addresses[inp.name], n), dtype=dtype).reshape(shape)
        outs = e.session.run(None, feed)
        for o, name in zip(outs, e.names[e.n_inputs:], strict=False):
            o = np.ascontiguousarray(o)
            ctypes.memmove(self.addresses[name], o.ctypes.data, o.nbytes)
        if self.profiler is not None:
            for k, (node, _kind) in enumerate(e.nodes):
                self.profiler.report_layer_time(node, 0.01 * (k + 1))
        _log("execute", stream=int(stream))
        return True

    def execute_async_v3(self, stream_handle):
        return self._run(stream_handle)

    def execute_async_v2(self, bindings, stream_handle):
        for name, ptr in zip(self.engine.names, bindings, strict=False):
            self.addresses[name] = int(ptr)
        return self._run(stream_handle)
