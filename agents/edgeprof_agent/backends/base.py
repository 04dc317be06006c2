"""The Backend interface every runtime backend implements (null, onnxruntime, tflite, tensorrt).

Owns: the declaration of what the agent may ask of a runtime, and the defaults of what is optional. The agent
(worker.py, opprof.py, accuracy.py) calls these members and nothing else; it never probes a backend for a member.

Built with the agent's hardware seam, Backend(root, tools, workdir): the SysfsRoot it may read (tensorrt: GPU
discovery), the ToolRunner it runs programs through (tensorrt: trtexec) and the workdir where the runtime's own
output goes (runtime.log, quiet.py).

Required (a subclass defines them):
- load(path, inputs, options) -> None: load the artifact at `path` with the run's inputs [(name, array)] bound,
  `options` the runtime options (threads, providers, precision, ...);
- run() -> None: one inference on the bound inputs (what the timed loop times);
- outputs() -> list of numpy arrays of the last run (fidelity checks, the I/O summary, the accuracy pass);
- describe() -> dict: runtime, version, providers, the options actually used (the reply's `runtime`).

With a default here (a subclass overrides what it has):
- require() -> None: raise runtime_missing / capability before anything else is needed (default: nothing to
  check, the null runtime);
- close() -> None: free the runtime's resources (default: nothing held);
- set_inputs(inputs) -> None: bind new arrays of load's shapes (the accuracy pass). Default: raises NotSupported;
- profile_ops(iterations) -> dict: the per-op profile (opprof.py's shape) from the runtime's own timer. Default:
  raises NotSupported, which opprof.profile reports as {"available": false, "reason": "<runtime> has no per-op
  profiler in edgeprof"};
- warnings: [{code, message}], what the runtime said at load that matters to the measurement, in edgeprof's
  words (quiet.py). Default: none;
- first_run_s: the first inference's time in s, when load runs one (the I/O summary shows it). Default: None.
Does not own: choosing a backend by name (backends/__init__.py), timing (worker.py).
"""

from ..protocol import OpError
from ..vocab import ErrorKind


class NotSupported(OpError):
    """A backend was asked for an optional capability (set_inputs, profile_ops) its runtime does not have."""

    def __init__(self, runtime, what, message=None):
        OpError.__init__(self, ErrorKind.CAPABILITY, message or "%s: the %s runtime does not support it" % (
            what, runtime))
        self.runtime = runtime
        self.what = what


class Backend(object):
    """The base of every backend: the declared interface, with the optional members' defaults."""

    name = None  # the runtime's name in vocab (RUNTIMES) and in backends.BACKENDS

    def __init__(self, root=None, tools=None, workdir=None):
        self.root = root  # SysfsRoot
        self.tools = tools  # ToolRunner
        self.workdir = workdir  # runtime.log goes there (quiet.py)
        self.warnings = []  # [{code, message}] from the runtime's load output, in edgeprof's words (quiet.py)
        self.late_warnings = []  # [{code, message}] of what changed after the load (read after the timed loop)
        self.first_run_s = None  # the first inference's time (load runs it once; the I/O summary shows it)

    # ------------------------------------------------------------------------------------------ required
    def load(self, path, inputs, options):
        raise NotImplementedError("%s.load" % type(self).__name__)

    def run(self):
        raise NotImplementedError("%s.run" % type(self).__name__)

    def outputs(self):
        raise NotImplementedError("%s.outputs" % type(self).__name__)

    def describe(self):
        raise NotImplementedError("%s.describe" % type(self).__name__)

    # ------------------------------------------------------------------------------------------ optional
    def require(self):
        """Raise an OpError when the runtime cannot run here; the default has nothing to check."""
        return None

    def close(self):
        return None

    def set_inputs(self, inputs):
        raise NotSupported(self.name, "set_inputs", "the %s runtime cannot rebind its inputs (set_inputs)"
                           % self.name)

    def profile_ops(self, iterations):
        raise NotSupported(self.name, "profile_ops", "%s has no per-op profiler in edgeprof" % self.name)


REQUIRED = ("load", "run", "outputs", "describe")  # a subclass defines these
OPTIONAL = ("require", "close", "set_inputs", "profile_ops")  # defaults above
