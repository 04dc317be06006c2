"""onnxruntime backend.

Owns: building an InferenceSession from the options (intra/inter-op threads, graph optimisation level, execution
providers, spinning) and running it with inputs AND outputs pre-bound as OrtValues through an IOBinding, so one
query costs run_with_iobinding() and nothing else from the harness. An output whose declared shape contradicts
what the model returns (a rank-2 declaration of a rank-3 output) cannot be pre-allocated — onnxruntime checks a
given buffer against the declaration, also the one a binding kept from the last run — so it is bound by name
and device again before each run and onnxruntime allocates it (a warning says so); `outputs()` reads those from
the binding. So is an output whose shape changes from one run to the next under its pre-allocated buffer (a length
drawn at random, or read from new inputs): it moves to onnxruntime's allocation when it first changes, and a late
warning says so (read after the timed loop). Importing onnxruntime and creating the session run inside quiet.RuntimeOutput at log severity WARNING: its warnings go to the workdir's runtime.log
(and the agent's stderr), and a requested provider the session does not use becomes a warning for the result.
profile_ops runs opprof.profile_onnxruntime (a second, profiling session) on load's model, inputs and options.
Does not own: timing (worker.py), statistics (host), the profiling session itself (opprof.py).
"""

import os
import re
import time

from ..vocab import ErrorKind
from .base import Backend as _Base

OPT_LEVELS = {
    "disable": "ORT_DISABLE_ALL",
    "basic": "ORT_ENABLE_BASIC",
    "extended": "ORT_ENABLE_EXTENDED",
    "all": "ORT_ENABLE_ALL",
}


class Backend(_Base):
    name = "onnxruntime"

    def __init__(self, root=None, tools=None, workdir=None):  # the seam (base.py); onnxruntime uses workdir
        _Base.__init__(self, root, tools, workdir)
        self._sess = None
        self._binding = None
        self._ort = None
        self._options = {}
        self._output_values = []
        self._allocated_by_runtime = []  # outputs whose declared shape is wrong: onnxruntime allocates them
        self._rebind = []  # their names, bound to the device again before each run
        self._out_names, self._declared = [], []  # each output's name and declared shape (_bind_outputs)
        self._loaded = None  # (path, inputs, options) as load received them: the profiling session's

    def require(self):
        from . import runtime_missing

        from ..quiet import RuntimeOutput

        try:
            with RuntimeOutput("importing onnxruntime", self.workdir):
                import onnxruntime as ort
                ort.set_default_logger_severity(2)  # warnings and worse, written to fd 2: captured at load
        except ImportError as e:
            raise runtime_missing("onnxruntime", e, "onnxruntime")
        self._ort = ort
        return ort

    def load(self, path, inputs, options):
        from ..protocol import OpError

        ort = self._ort or self.require()
        self._loaded = (path, inputs, options)
        options = dict(options or {})
        so = ort.SessionOptions()
        so.log_severity_level = 2  # warnings reach fd 2, which RuntimeOutput sends to runtime.log
        threads = options.get("threads")
        if threads:
            so.intra_op_num_threads = int(threads)
        so.inter_op_num_threads = int(options.get("inter_op_threads") or 1)
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        level = options.get("graph_optimization_level") or "all"
        if level not in OPT_LEVELS:
            raise OpError("bad_option", "unknown graph optimisation level %r" % level,
                          hint="use one of " + ", ".join(sorted(OPT_LEVELS)))
        so.graph_optimization_level = getattr(ort.GraphOptimizationLevel, OPT_LEVELS[level])
        spinning = options.get("allow_spinning")
        if spinning is not None:
            so.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
        available = list(ort.get_available_providers())
        providers = options.get("providers") or ["CPUExecutionProvider"]
        missing = [p for p in providers if p not in available]
        if missing:
            raise OpError(
                "provider_missing",
                "execution provider(s) %s not available in onnxruntime %s here (available: %s)" % (
                    ", ".join(missing), ort.__version__, ", ".join(available)),
                hint="install an onnxruntime build with that provider (onnxruntime-gpu, NVIDIA's Jetson wheel) "
                     "or choose from the available ones",
            )
        from ..quiet import RuntimeOutput, ort_findings

        try:
            with RuntimeOutput("loading %s with onnxruntime %s" % (os.path.basename(str(path)), ort.__version__),
                               self.workdir) as out:
                self._sess = ort.InferenceSession(path, sess_options=so, providers=providers)
        except Exception as e:  # onnxruntime raises its own Fail/InvalidGraph types
            _refuse_op(ort, e)
            raise OpError("load_failed", "onnxruntime could not load the model: %s" % (str(e).splitlines() or [""])[0],
                          hint="check the model with onnx.checker, or try --graph-opt disable")
        self.warnings = ort_findings(out.text, providers, list(self._sess.get_providers()), out.where())
        self._options = {
            "threads": threads,
            "inter_op_threads": so.inter_op_num_threads,
            "graph_optimization_level": level,
            "providers_requested": providers,
            "allow_spinning": spinning,
        }
        names = [i.name for i in self._sess.get_inputs()]
        given = dict(inputs)
        absent = [n for n in names if n not in given]
        if absent:
            raise OpError("bad_inputs", "model inputs %s were not provided" % ", ".join(absent))
        self._binding = self._sess.io_binding()
        self._input_names = names
        self._input_values = {}
        self.set_inputs([(name, given[name]) for name in names])
        out_names = [o.name for o in self._sess.get_outputs()]
        for name in out_names:
            self._binding.bind_output(name, "cpu")
        # First run allocates outputs; then bind preallocated OrtValues of those shapes so later runs allocate
        # nothing on the harness side.
        # Shapes and dtypes are read BEFORE clear_binding_outputs(): on onnxruntime 1.10-1.18 the OrtValues that
        # get_outputs() returned are freed by the clear, and reading them afterwards is a SIGSEGV.
        t0 = time.time()
        try:
            self._sess.run_with_iobinding(self._binding)
        except Exception as e:  # the model's own refusal of these inputs (shapes, values): the model's error
            _refuse_op(ort, e)
            raise OpError(ErrorKind.MODEL_INPUT, "the model rejected these inputs: %s" % _first_line(e),
                          detail=str(e))
        self.first_run_s = time.time() - t0
        first = [(tuple(a.shape), a.dtype) for a in (v.numpy() for v in self._binding.get_outputs())]
        self._binding.clear_binding_outputs()
        self._bind_outputs(ort, out_names, first)
        if self._rebind:
            # onnxruntime warns at every run that the shape differs from the declaration (VerifyOutputSizes, on
            # the session's logger): the session is made once more with its log at ERROR, inputs bound again
            so.log_severity_level = 3
            with RuntimeOutput("reloading %s with its log at ERROR" % os.path.basename(str(path)), self.workdir):
                self._sess = ort.InferenceSession(path, sess_options=so, providers=providers)
            self._binding = self._sess.io_binding()
            self._input_values = {}
            self.set_inputs([(name, given[name]) for name in names])
            self._bind_outputs(ort, out_names, first)
            self.run()  # so that outputs() reads a run's buffers from the first call on
            self.warnings.append({"code": "output_shape_declared_wrong", "message": (
                "the model declares output shapes that differ from what it returns: %s; these outputs are bound "
                "by name and allocated by onnxruntime at each inference (inside the timed loop)" % (
                    "; ".join(self._allocated_by_runtime)))})

    def _bind_outputs(self, ort, out_names, first):
        """Pre-allocate each output at the shape the first run gave, unless that contradicts the declared shape:
        onnxruntime refuses such a buffer ("Invalid rank for output"), so that output is bound by name and device
        and onnxruntime allocates it (`_rebind`)."""
        self._output_values, self._allocated_by_runtime, self._rebind = [], [], []
        declared = self._declared = [o.shape for o in self._sess.get_outputs()]
        self._out_names = list(out_names)
        for name, (shape, dtype), want in zip(out_names, first, declared):
            if _fits(want, shape):
                ov = ort.OrtValue.ortvalue_from_shape_and_type(list(shape), dtype, "cpu", 0)
                self._output_values.append(ov)
                self._binding.bind_ortvalue_output(name, ov)
            else:
                self._output_values.append(None)
                self._binding.bind_output(name, "cpu")
                self._allocated_by_runtime.append("%s (declared %s, returns %s)" % (name, list(want), list(shape)))
                self._rebind.append(name)

    def set_inputs(self, inputs):
        """Bind new arrays (the shapes and dtypes of load's) to the named inputs: the accuracy pass."""
        ort = self._ort
        for name, arr in inputs:
            value = ort.OrtValue.ortvalue_from_numpy(arr, "cpu", 0)
            self._input_values[name] = value  # keep alive: the binding does not own it
            self._binding.bind_ortvalue_input(name, value)

    def run(self):
        """One inference. The outputs onnxruntime allocates (`_rebind`: declared wrong, or of a shape that changes
        from one run to the next) are bound to the device again before it: a binding passes the buffer it got
        last time as a given one, which onnxruntime checks and refuses. An output whose shape changes under a
        pre-allocated buffer (a length drawn at random, or read from the inputs' values) moves to them once."""
        binding = self._binding
        for name in self._rebind:
            binding.bind_output(name, "cpu")
        try:
            self._sess.run_with_iobinding(binding)
        except Exception as e:  # onnxruntime's own error types
            if not self._allocate_changing(e):
                raise
            self.run()

    def _allocate_changing(self, e):
        """After a run refused because an output's computed shape differs from its pre-allocated buffer's: every
        pre-allocated output with a free declared dim is bound by name from now on (onnxruntime allocates it at
        each inference) and a late warning says so. False when that is not the error, or nothing is left to move."""
        if not _SHAPE_CHANGED.search(str(e)):
            return False
        moved = [i for i, (v, want) in enumerate(zip(self._output_values, self._declared))
                 if v is not None and (want is None or any(not isinstance(d, int) or d < 0 for d in want))]
        if not moved:
            return False
        for i in moved:
            self._output_values[i] = None
            self._rebind.append(self._out_names[i])
            self._allocated_by_runtime.append("%s (declared %s; its shape changed from one run to the next)"
                                              % (self._out_names[i], list(self._declared[i] or [])))
        self.late_warnings.append({"code": "output_shape_changes", "message": (
            "output(s) %s changed shape from one inference to the next (%s); from then on onnxruntime allocated "
            "them at each inference (inside the timed loop), as a plain run() does"
            % (", ".join(self._out_names[i] for i in moved), _shapes_said(str(e))))})
        return True

    def outputs(self):
        if not self._allocated_by_runtime:
            return [v.numpy() for v in self._output_values]
        now = self._binding.get_outputs()  # the runtime's buffers of the last run, in binding order
        return [(v if v is not None else now[i]).numpy() for i, v in enumerate(self._output_values)]

    def profile_ops(self, iterations):
        """Per-node kernel times from a second session with enable_profiling (opprof.py): never the measured one."""
        from ..opprof import profile_onnxruntime

        path, inputs, options = self._loaded
        return profile_onnxruntime(path, inputs, options, iterations, workdir=self.workdir or ".")

    def describe(self):
        ort = self._ort
        d = {
            "runtime": "onnxruntime",
            "version": ort.__version__ if ort else None,
            "providers_available": list(ort.get_available_providers()) if ort else [],
            "providers": list(self._sess.get_providers()) if self._sess else [],
            "options": self._options,
        }
        try:
            d["device"] = ort.get_device()
        except Exception:
            pass
        return d

    def close(self):
        self._binding = None
        self._sess = None


# onnxruntime's refusal of a pre-allocated output whose computed shape differs: 1.16 and later ("...has shape {2,126}
# but the computed output shape for this run is {2,129}"), and before ("Shape mismatch attempting to re-use buffer")
_SHAPE_CHANGED = re.compile(r"computed output shape for this run|Shape mismatch attempting to re-use buffer")


def _shapes_said(text):
    """The two shapes onnxruntime's refusal names ("{2,126}, then {2,129}"), else its error's first line."""
    m = re.search(r"has shape (\{[^}]*\}) but the computed output shape for this run is (\{[^}]*\})", text) or \
        re.search(r"re-use buffer\. (\{[^}]*\}) != (\{[^}]*\})", text)
    return "%s, then %s" % m.groups() if m else _first_line(text)[:200]


def _fits(declared, shape):
    """A buffer of `shape` agrees with the model's declared output shape (its rank, its fixed dims): onnxruntime
    checks a pre-allocated output against the declaration ("Invalid rank for output")."""
    if declared is None or len(declared) != len(shape):
        return False
    return all(not isinstance(d, int) or d < 0 or d == n for d, n in zip(declared, shape))


def _refuse_op(ort, e):
    """An op this onnxruntime lacks (opsupport.py): a load failure that names the op, not the inputs' fault."""
    from ..protocol import OpError
    from .opsupport import op_refusal

    said = op_refusal("onnxruntime", ort.__version__, str(e))
    if said is not None:
        raise OpError(ErrorKind.LOAD_FAILED, said[0], hint=said[1], detail=str(e))


def _first_line(e):
    return (str(e).strip().splitlines() or [""])[0]
