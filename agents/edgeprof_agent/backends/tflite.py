"""TFLite / LiteRT backend: ai_edge_litert's Interpreter, else tflite_runtime's (whichever the board has).

Owns: building the Interpreter from the options (threads; XNNPACK on or off; an external delegate .so with its
options), resizing dynamic inputs to the given shapes, quantising float inputs for int8-input models (scale
and zero point from the file), setting the inputs ONCE at load so a timed query is one invoke(), dequantising
int8 outputs for fidelity checks, and the op profile pass (the Python interpreters expose no per-op timer:
the pass says so and lists the graph's ops by type). Importing the runtime and loading run inside
quiet.RuntimeOutput: LiteRT's own lines go to the workdir's runtime.log (and the agent's stderr), and the ones
that matter (a delegate not applied, XNNPACK on part of the graph) become `warnings` for the result.
Does not own: timing (worker.py) or statistics (host).
"""

import os
import time

from ..vocab import ErrorKind
from .base import Backend as _Base

MODULES = ("ai_edge_litert", "tflite_runtime")


def _import_interpreter():
    """(module name, interpreter module) for the first importable LiteRT/TFLite runtime."""
    errors = []
    for name in MODULES:
        try:
            mod = __import__(name + ".interpreter", fromlist=["Interpreter"])
            return name, mod
        except ImportError as e:
            errors.append("%s: %s" % (name, e))
    raise ImportError("; ".join(errors))


def _version(name):
    try:
        v = getattr(__import__(name), "__version__", None)
        if v:
            return v
    except Exception:
        pass
    from ..environment import dist_version
    return dist_version(name)


def _install_hint():
    """What installs a TFLite runtime on THIS Python: ai-edge-litert has wheels for Python 3.9+ only,
    tflite-runtime (built for numpy 1) up to 2.14 for 3.7/3.8, neither for 3.6 (JetPack 4.6)."""
    import sys
    if sys.version_info < (3, 7):
        return ("no LiteRT or tflite-runtime wheel exists for Python %d.%d: measure with --runtime onnxruntime "
                "(pip3 install onnxruntime==1.10.0) or, on a Jetson, --runtime tensorrt" % sys.version_info[:2])
    if sys.version_info < (3, 9):
        return ("ai-edge-litert needs Python 3.9+: on Python %d.%d install pip3 install 'tflite-runtime<2.15' "
                "'numpy<2', or pick another --runtime" % sys.version_info[:2])
    return "install it on the device (pip3 install ai-edge-litert) or pick another --runtime"


def _refuse_numpy2_build(module_name):
    """tflite-runtime (every release, last 2.14) is built for numpy 1: under numpy 2 its interpreter fails with
    "returned a result with an exception set". Say so in one line instead of that."""
    from ..protocol import OpError

    if module_name != "tflite_runtime":
        return
    import numpy

    if int(numpy.__version__.split(".")[0]) < 2:
        return
    raise OpError("runtime_missing", "tflite_runtime %s was built for numpy 1.x and cannot run under numpy %s here" % (
        _version(module_name), numpy.__version__),
        hint="on the device: pip3 install 'numpy<2', or replace tflite-runtime with ai-edge-litert (numpy 2 builds, "
             "Python 3.9+)")


class Backend(_Base):
    name = "tflite"

    def __init__(self, root=None, tools=None, workdir=None):  # the seam (base.py); LiteRT uses workdir
        _Base.__init__(self, root, tools, workdir)
        self._module_name = None
        self._tfl = None
        self._interp = None
        self._options = {}
        self._in_details = []  # [(the name the run feeds it by, the input's details)]
        self._out_details = []
        self._delegate = None

    def require(self):
        from . import runtime_missing

        from ..quiet import RuntimeOutput

        try:
            with RuntimeOutput("importing the TFLite runtime", self.workdir):
                self._module_name, self._tfl = _import_interpreter()
        except ImportError as e:
            err = runtime_missing("tflite (ai_edge_litert or tflite_runtime)", e, "ai-edge-litert")
            err.hint = _install_hint()
            raise err
        _refuse_numpy2_build(self._module_name)
        return self._tfl

    def load(self, path, inputs, options):
        from ..quiet import RuntimeOutput, tflite_findings

        tfl = self._tfl or self.require()
        with RuntimeOutput("loading %s with %s" % (os.path.basename(str(path)), self._module_name),
                           self.workdir) as out:
            self._load(tfl, path, inputs, options)
        self.warnings = tflite_findings(out.text, self._options.get("xnnpack"), self._options.get("delegate"),
                                        out.where())

    def _load(self, tfl, path, inputs, options):
        from ..protocol import OpError

        options = dict(options or {})
        threads = options.get("threads")
        xnnpack = options.get("xnnpack")
        xnnpack = True if xnnpack is None else bool(xnnpack)
        kwargs = {"model_path": path}
        if threads:
            kwargs["num_threads"] = int(threads)
        if not xnnpack:
            resolver = getattr(tfl, "OpResolverType", None)
            if resolver is None or not hasattr(resolver, "BUILTIN_WITHOUT_DEFAULT_DELEGATES"):
                raise OpError("bad_option", "this %s cannot turn XNNPACK off (no OpResolverType)" % self._module_name,
                              hint="upgrade the runtime or leave --xnnpack on")
            kwargs["experimental_op_resolver_type"] = resolver.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        delegate_path = options.get("delegate")
        if delegate_path:
            try:
                self._delegate = tfl.load_delegate(delegate_path, options.get("delegate_options") or {})
            except Exception as e:
                raise OpError("load_failed", "could not load TFLite delegate %s: %s" % (delegate_path, e),
                              hint="give the path of the delegate .so on the device (e.g. libtensorflowlite_gpu_delegate.so)")
            kwargs["experimental_delegates"] = [self._delegate]
        try:
            self._interp = tfl.Interpreter(**kwargs)
        except Exception as e:
            self._refuse_op(e)
            raise OpError("load_failed", "the TFLite interpreter could not load the model: %s" % (
                (str(e).splitlines() or [""])[0]), hint="check the file with the LiteRT tools, or try --xnnpack off")
        interp = self._interp
        given = dict(inputs)
        sig_names = self._signature_names()
        details = interp.get_input_details()
        resized = []
        for d in details:
            name = self._pick_name(d, sig_names, given)
            if name is None:
                raise OpError("bad_inputs", "model input %s (%s) was not provided (given: %s)" % (
                    sig_names.get(d["index"], d["name"]), d["name"], ", ".join(sorted(given))))
            arr = given[name]
            if list(d["shape"]) != list(arr.shape):
                interp.resize_tensor_input(d["index"], list(arr.shape))
                resized.append(name)
        try:
            interp.allocate_tensors()
        except Exception as e:
            self._refuse_op(e)
            raise OpError("load_failed", "allocating tensors failed: %s" % (str(e).splitlines() or [""])[0],
                          hint="the model may not accept these input shapes (--input/--batch)")
        self._in_details = [(self._pick_name(d, sig_names, given), d) for d in interp.get_input_details()]
        quantised = self.set_inputs(inputs)
        self._out_details = interp.get_output_details()
        t0 = time.time()
        try:
            interp.invoke()  # first run outside the timed loop (lazy delegate preparation)
        except Exception as e:  # the model's own refusal of these inputs: the model's error
            self._refuse_op(e)
            raise OpError(ErrorKind.MODEL_INPUT, "the model rejected these inputs: %s" % (
                (str(e).strip().splitlines() or [""])[0]), detail=str(e))
        self.first_run_s = time.time() - t0
        self._options = {
            "threads": threads,
            "xnnpack": xnnpack,
            "delegate": delegate_path,
            "delegate_options": options.get("delegate_options") or {},
            "resized_inputs": resized,
            "quantized_inputs": quantised,
        }

    def _refuse_op(self, e):
        """A Flex or unresolved custom op (opsupport.py): a load failure that names the op, not the inputs' fault."""
        from ..protocol import OpError
        from .opsupport import op_refusal

        said = op_refusal("tflite", "%s %s" % (self._module_name, _version(self._module_name)), str(e))
        if said is not None:
            raise OpError(ErrorKind.LOAD_FAILED, said[0], hint=said[1], detail=str(e))

    def set_inputs(self, inputs):
        """Set the named inputs (the shapes of load's; float data of an integer-quantised input is quantised with
        the tensor's scale and zero point). Returns the names quantised so."""
        import numpy as np

        given = dict(inputs)
        quantised = []
        for name, d in self._in_details:
            if name not in given:
                continue
            arr = given[name]
            want = np.dtype(d["dtype"])
            scale, zero = d.get("quantization") or (0.0, 0)
            if want.kind in "iu" and scale and arr.dtype.kind == "f":
                info = np.iinfo(want)
                arr = np.clip(np.round(arr / scale + zero), info.min, info.max).astype(want)
                quantised.append(name)
            elif arr.dtype != want:
                arr = arr.astype(want)
            self._interp.set_tensor(d["index"], arr)
        return quantised

    @staticmethod
    def _pick_name(detail, sig_names, given):
        for cand in (sig_names.get(detail["index"]), detail["name"]):
            if cand is not None and cand in given:
                return cand
        return None

    def _signature_names(self):
        try:
            sigs = self._interp.get_signature_list()
            if not sigs:
                return {}
            runner = self._interp.get_signature_runner(list(sigs)[0])
            return dict((d["index"], n) for n, d in runner.get_input_details().items())
        except Exception:
            return {}

    def run(self):
        self._interp.invoke()

    def outputs(self):
        import numpy as np

        outs = []
        for d in self._out_details:
            arr = np.array(self._interp.get_tensor(d["index"]))
            scale, zero = d.get("quantization") or (0.0, 0)
            if arr.dtype.kind in "iu" and scale:
                arr = (arr.astype(np.float32) - zero) * np.float32(scale)
            outs.append(arr)
        return outs

    def profile_ops(self, iterations):
        """No per-op timer is exposed by the Python interpreters: say so, and list the graph's ops."""
        counts = {}
        try:
            for op in self._interp._get_ops_details():
                counts[op["op_name"]] = counts.get(op["op_name"], 0) + 1
        except Exception:
            pass
        return {
            "available": False,
            "source": "%s Interpreter" % self._module_name,
            "reason": "the %s Python API exposes no per-op timings (TFLite's C++ benchmark_model "
                      "--enable_op_profiling has them); listed: the graph's ops by type, without times" % self._module_name,
            "op_counts": counts,
            "iterations": 0,
        }

    def describe(self):
        return {
            "runtime": "tflite",
            "module": self._module_name,
            "version": _version(self._module_name) if self._module_name else None,
            "providers": (["XNNPACK"] if self._options.get("xnnpack") else ["builtin"]) + (
                ["delegate:" + self._options["delegate"]] if self._options.get("delegate") else []),
            "options": self._options,
        }

    def close(self):
        self._interp = None
        self._delegate = None
