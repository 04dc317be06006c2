"""The I/O layer of the TensorRT backend: TensorRT's two APIs for an engine's inputs and outputs.

Owns: both I/O APIs, chosen by what the engine has: named tensors (TensorRT >= 8.5: set_input_shape /
set_tensor_address / execute_async_v3; the only API from 10) and bindings (8.2 / 8.4, JetPack 4: set_binding_shape /
execute_async_v2), behind one interface (tensors / set_address / execute); numpy dtypes from our own table (8.2's
trt.nptype uses np.bool, missing in numpy 1.24-1.26).
Does not own: memory and copies (trt_cuda.py), the engine (trt_engine.py), the query (tensorrt.py).
"""

# TensorRT DataType name → numpy dtype name (not trt.nptype: 8.2's builds its table with np.bool)
NP_DTYPES = {"FLOAT": "float32", "HALF": "float16", "INT8": "int8", "INT32": "int32", "BOOL": "bool",
             "UINT8": "uint8", "INT64": "int64"}


def np_dtype(trt, trt_dtype):
    """The numpy dtype of TensorRT DataType `trt_dtype`."""
    import numpy as np

    name = getattr(trt_dtype, "name", None)
    if name in NP_DTYPES:
        return np.dtype(NP_DTYPES[name])
    return np.dtype(trt.nptype(trt_dtype))


def io_api(trt, engine, context):
    """The I/O API of `engine` (named tensors when it has them, else bindings), on its execution `context`."""
    if hasattr(engine, "num_io_tensors"):
        return NamedTensors(trt, engine, context)
    return Bindings(trt, engine, context)


def _missing(name):
    from ..protocol import OpError

    return OpError("bad_inputs", "model input %s was not provided" % name)


class _IOApi(object):
    """What both APIs share: the engine's I/O as dicts, input shapes set first. A subclass names its slots (tensor
    names, or binding indices) and how each slot's mode, shape, dtype and name are read and set."""

    name = ""

    def __init__(self, trt, engine, context):
        self._trt = trt
        self._engine = engine
        self._context = context

    def tensors(self, given):
        """The engine's I/O as dicts (name, is_input, shape, dtype), the input shapes set from `given`."""
        slots = self._slots()
        for slot in slots:
            name = self._name(slot)
            if self._is_input(slot):
                if name not in given:
                    raise _missing(name)
                self._set_shape(slot, given[name].shape)
        tensors = []
        for slot in slots:
            name = self._name(slot)
            is_input = self._is_input(slot)
            shape = tuple(given[name].shape) if is_input else tuple(self._shape(slot))
            dtype = np_dtype(self._trt, self._dtype(slot))
            tensors.append({"name": name, "is_input": is_input, "shape": shape, "dtype": dtype})
        return tensors


class NamedTensors(_IOApi):
    """TensorRT >= 8.5 (the only API from 10): tensors by name, addresses set on the context, execute_async_v3."""

    name = "tensors (execute_async_v3)"

    def _slots(self):
        return [self._engine.get_tensor_name(i) for i in range(self._engine.num_io_tensors)]

    def _name(self, slot):
        return slot

    def _is_input(self, slot):
        return self._engine.get_tensor_mode(slot) == self._trt.TensorIOMode.INPUT

    def _set_shape(self, slot, shape):
        self._context.set_input_shape(slot, shape)

    def _shape(self, slot):
        return self._context.get_tensor_shape(slot)

    def _dtype(self, slot):
        return self._engine.get_tensor_dtype(slot)

    def set_address(self, name, ptr):
        self._context.set_tensor_address(name, ptr)

    def execute(self, handle, bindings):
        return self._context.execute_async_v3(handle)


class Bindings(_IOApi):
    """TensorRT 8.2 / 8.4 (JetPack 4): bindings by index, a pointer list passed to execute_async_v2."""

    name = "bindings (execute_async_v2)"

    def _slots(self):
        return list(range(self._engine.num_bindings))

    def _name(self, slot):
        return self._engine.get_binding_name(slot)

    def _is_input(self, slot):
        return self._engine.binding_is_input(slot)

    def _set_shape(self, slot, shape):
        self._context.set_binding_shape(slot, shape)

    def _shape(self, slot):
        return self._context.get_binding_shape(slot)

    def _dtype(self, slot):
        return self._engine.get_binding_dtype(slot)

    def set_address(self, name, ptr):
        pass  # the pointer list goes to every execute

    def execute(self, handle, bindings):
        return self._context.execute_async_v2(bindings, handle)
