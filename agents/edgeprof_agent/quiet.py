"""The runtimes' own output on the device: into the agent's log, and what matters into edgeprof's warnings.

Owns:
- `RuntimeOutput`, a context manager a backend wraps around importing its runtime and loading a model: file
  descriptors 1 and 2 (where LiteRT's "INFO: Created TensorFlow Lite XNNPACK delegate for CPU.", absl and
  onnxruntime's C++ logger write) go to `<workdir>/runtime.log` (appended, one header line per section). fd 1
  is the protocol channel, so nothing a runtime prints may reach it. Afterwards the caught lines are copied to
  the agent's stderr, which the host keeps as the tail it shows when something fails (it never prints it).
- `findings(...)`: the caught lines that matter to the measurement (a delegate that was not applied, XNNPACK
  taking only part of the graph, an execution provider onnxruntime did not use), as `{code, message}`
  warnings in edgeprof's words, each code once.
Does not own: the runtimes (backends/), the timed loop (its own runtime output goes to stderr as before),
showing warnings (the host).
"""

import os
import re
import sys
import tempfile
import time

LOG_NAME = "runtime.log"


def _flush():
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except Exception:
            pass


class RuntimeOutput(object):
    """fd 1 and 2 into `<workdir>/runtime.log` (or a temporary file without a workdir) for the body.

    `.text` holds what was caught, `.path` the log (None without a workdir)."""

    def __init__(self, what, workdir=None):
        self.what = what
        self.path = os.path.join(workdir, LOG_NAME) if workdir else None
        self.text = ""
        self._fd = None
        self._saved = None
        self._start = 0

    def __enter__(self):
        _flush()
        if self.path:
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            os.write(self._fd, ("=== %s edgeprof-agent: %s (pid %d) ===\n" % (stamp, self.what, os.getpid()))
                     .encode("utf-8"))
        else:
            fd, tmp = tempfile.mkstemp(prefix="edgeprof-runtime-", suffix=".log")
            os.unlink(tmp)
            self._fd = fd
        self._start = os.lseek(self._fd, 0, os.SEEK_END)
        self._saved = (os.dup(1), os.dup(2))
        os.dup2(self._fd, 1)
        os.dup2(self._fd, 2)
        return self

    def __exit__(self, *exc):
        _flush()
        os.dup2(self._saved[0], 1)
        os.dup2(self._saved[1], 2)
        os.close(self._saved[0])
        os.close(self._saved[1])
        try:
            os.lseek(self._fd, self._start, os.SEEK_SET)
            chunks = []
            while True:
                chunk = os.read(self._fd, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
            self.text = b"".join(chunks).decode("utf-8", "replace")
        finally:
            os.close(self._fd)
        if self.text.strip():  # the host keeps the agent's stderr as the tail shown on failures
            sys.stderr.write("".join("edgeprof-agent: %s: %s\n" % (self.what, ln)
                                     for ln in self.text.splitlines() if ln.strip()))
            sys.stderr.flush()
        return False

    def where(self):
        return ("the runtime's own words are in %s" % self.path) if self.path else "see the agent's stderr"


_REPLACING = re.compile(r"Replacing (\d+) out of (\d+) node\(s\) with delegate \(([^)]+)\)(?: node)?, yielding (\d+) "
                        r"partitions")
_DELEGATE_FAILED = re.compile(r"(Failed to apply|Ignoring failed application of).*delegate", re.I)
_DYNAMIC = re.compile(r"delegate that only supports static-sized tensors", re.I)
_ORT_UNASSIGNED = re.compile(r"Some nodes were not assigned to the preferred execution providers", re.I)


def tflite_findings(text, xnnpack, delegate, where):
    """LiteRT's load output → warnings: a delegate not applied, or applied to part of the graph only."""
    found = []
    external = "the delegate %s" % delegate if delegate else None
    if _DELEGATE_FAILED.search(text) or _DYNAMIC.search(text):
        why = " (the graph has dynamic-sized tensors)" if _DYNAMIC.search(text) else ""
        if external:
            found.append(("delegate_not_applied",
                          "LiteRT did not apply %s%s: the model ran on LiteRT's built-in CPU kernels, not on the "
                          "delegate's hardware; %s" % (external, why, where)))
        elif xnnpack:
            found.append(("xnnpack_not_applied",
                          "LiteRT could not apply the XNNPACK delegate%s: the model ran on LiteRT's built-in "
                          "kernels, usually slower than XNNPACK; %s" % (why, where)))
    for m in _REPLACING.finditer(text):
        taken, total, name, parts = int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4))
        if taken < total:
            code = "xnnpack_partial" if "xnnpack" in name.lower() else "delegate_partial"
            found.append((code, "%s took %d of %d ops (%d partitions); the other %d ran on LiteRT's built-in "
                                "kernels, with copies between them; %s" % (name, taken, total, parts,
                                                                            total - taken, where)))
    return _once(found)


def ort_findings(text, requested, used, where):
    """onnxruntime's load output and the session's providers → warnings about providers it did not use."""
    found = []
    dropped = [p for p in requested if p not in used]
    if dropped:
        found.append(("provider_fallback",
                      "onnxruntime did not use %s (the session runs on %s): the numbers are not those of the "
                      "requested provider; %s" % (", ".join(dropped), ", ".join(used) or "nothing", where)))
    if _ORT_UNASSIGNED.search(text) and [p for p in used if p != "CPUExecutionProvider"]:
        found.append(("provider_partial",
                      "onnxruntime ran some nodes on CPUExecutionProvider, not on %s: copies between them "
                      "count in the latency; %s" % (", ".join(p for p in used if p != "CPUExecutionProvider"),
                                                      where)))
    return _once(found)


def _once(found):
    seen = set()
    out = []
    for code, message in found:
        if code not in seen:
            seen.add(code)
            out.append({"code": code, "message": message})
    return out
