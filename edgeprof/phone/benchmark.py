"""LiteRT's benchmark_model on the phone: its command line, and what its output says.

What benchmark_model prints (google-ai-edge/LiteRT tflite/tools/benchmark/benchmark_model.cc, BenchmarkModel::Run
and BenchmarkLoggingListener::OnBenchmarkEnd; the statistics line is tensorflow's StatWithPercentiles::
OutputToStream):
  "Initialized session in 38.466ms."
  "Running benchmark for at least N iterations and at least S seconds but terminate if exceeding M seconds."
  "count=50 first=54420 curr=53846 min=52553 max=57107 avg=54018.3 std=869 p5=52700 median=53900 p95=56100"
     once for the warm-up runs, once for the timed runs; times in µs; p5 / median / p95 are order statistics of
     every run's time (values[n * p / 100] of the sorted runs) computed by benchmark_model itself
  "Inference timings in us: Init: 38466, First inference: 79263, Warmup (avg): 57311.3, Inference (avg): 54018.3"
  "Memory footprint delta from the start of the tool (MB): init=32.0234 overall=33.4375"
  "Overall peak memory footprint (MB) via periodic monitoring: 35.1"  (with --report_peak_memory_footprint)
It prints no per-run times: the raw samples, p99 and anything else computed from them are absent, and the result
says so. Nothing here computes a percentile from a summary.

How many ops a delegate took is the interpreter's own log line (LiteRT tflite/core/subgraph.cc,
Subgraph::ReplaceNodeSubsetsWithDelegateKernels, TFLITE_LOG_PROD, printed by benchmark_model on Android):
  "Replacing 12 out of 14 node(s) with delegate (TfLiteXNNPackDelegate) node, yielding 3 partitions for subgraph 0."
  (older releases: "... yielding 3 partitions for the whole graph." and, before "out of M", "Replacing 12 node(s)
  with delegate (...) node, yielding 3 partitions."). N of M nodes of that subgraph's execution plan went to the
  delegate; the M - N left run on LiteRT's built-in CPU kernels; the partitions are every node subset, delegated or
  not. A second delegate's M counts the first one's delegate kernels as nodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..records import Device
from ..transport.adb import ADBTransport

DELEGATE_FLAGS = {"xnnpack": "--use_xnnpack=true", "gpu": "--use_gpu=true", "nnapi": "--use_nnapi=true",
                  "hexagon": "--use_hexagon=true"}
DELEGATES = ("cpu", *DELEGATE_FLAGS)
NOT_EMITTED = "benchmark_model prints no per-run times (only count/min/max/avg/std and its own p5/median/p95)"

_STAT_RE = re.compile(r"count=(\d+)((?:\s+\w+=[-\d.e+]+)*)")
_TIMINGS_RE = re.compile(r"Inference timings in us: Init: ([-\d.e+]+), First inference: ([-\d.e+]+), "
                         r"Warmup \(avg\): ([-\d.e+na]+), Inference \(avg\): ([-\d.e+na]+)")
_MEM_RE = re.compile(r"Memory footprint delta from the start of the tool \(MB\): init=([-\d.e+]+) "
                     r"overall=([-\d.e+]+)")
# benchmark_tflite_model.cc, after ModifyGraphWithDelegate: one of three lines per delegate applied
_DELEGATED_RE = re.compile(r"Explicitly applied (\S+) delegate, and the model graph will be (completely|partially) "
                           r"executed by the delegate(?: w/ (\d+) delegate kernels)?")
_NOT_DELEGATED_RE = re.compile(r"Though (\S+) delegate is explicitly applied, the model graph will not be executed")
_REPLACED_RE = re.compile(r"Replacing (\d+)(?: out of (\d+))? node\(s\) with delegate \(([^)\n]*)\) node, yielding "
                          r"(\d+) partitions(?: for (?:the whole graph|subgraph (\d+)))?")
# the delegate kernels' registration names (each delegate's TfLiteRegistration custom_name) → benchmark_model's
# delegate name and the compute unit it runs on (XNNPACK is LiteRT's CPU library; NNAPI picks its own device)
DELEGATE_KERNELS = {"TfLiteXNNPackDelegate": ("XNNPACK", "CPU (XNNPACK)"), "TfLiteGpuDelegateV2": ("GPU", "GPU"),
                    "TfLiteNnapiDelegate": ("NNAPI", "NNAPI (its own choice of NPU, GPU, DSP or CPU)"),
                    "TfLiteHexagonDelegate": ("Hexagon", "DSP (Hexagon)"), "TfLiteQnnDelegate": ("QNN", "NPU (QNN HTP)")}
_PEAK_RE = re.compile(r"Overall peak memory footprint \(MB\) via periodic monitoring: ([-\d.e+]+)")


_STAT_NAMES = ("first", "curr", "min", "max", "avg", "std", "p5", "median", "p95")


class BenchmarkOutputError(ValueError):
    """benchmark_model's output did not have the lines a finished benchmark prints."""


@dataclass(frozen=True)
class BenchmarkStats:
    """One `count=...` line (StatWithPercentiles::OutputToStream): times in µs as benchmark_model printed them;
    None where the line left one out (an old build prints no percentiles)."""

    count: int
    first: float | None = None
    curr: float | None = None
    min: float | None = None
    max: float | None = None
    avg: float | None = None
    std: float | None = None
    p5: float | None = None
    median: float | None = None
    p95: float | None = None


@dataclass
class BenchmarkOutput:
    warmup: BenchmarkStats
    timed: BenchmarkStats
    init_us: float
    first_inference_us: float
    memory_init_mb: float | None = None
    memory_overall_mb: float | None = None
    peak_memory_mb: float | None = None
    op_profile: list[dict[str, Any]] = field(default_factory=list)
    delegation: list[dict[str, Any]] = field(default_factory=list)

    def latency_ms(self) -> dict[str, Any]:
        """The timed runs' statistics benchmark_model measured, in ms, named as edgeprof names them."""
        t = self.timed
        out: dict[str, Any] = {"count": t.count}
        for ours, us in (("min", t.min), ("max", t.max), ("mean", t.avg), ("std", t.std), ("p5", t.p5),
                         ("p50", t.median), ("p95", t.p95)):
            if us is not None:
                out[ours] = us / 1000.0
        out["absent"] = {"samples": NOT_EMITTED, "p99": NOT_EMITTED}
        return out


def parse_stats(text: str) -> BenchmarkStats:
    m = _STAT_RE.search(text)
    if m is None:
        raise BenchmarkOutputError("no count= line")
    values = {k: float(v) for k, v in re.findall(r"(\w+)=([-\d.e+]+)", m.group(2)) if k in _STAT_NAMES}
    return BenchmarkStats(count=int(m.group(1)), **values)


def parse_output(text: str) -> BenchmarkOutput:
    """benchmark_model's stdout+stderr → its numbers; BenchmarkOutputError when a finished run's lines are missing."""
    blocks = re.split(r"Running benchmark for at least", text)
    if len(blocks) < 3:
        raise BenchmarkOutputError("fewer than two 'Running benchmark' sections (warm-up and timed)")
    warmup, timed = parse_stats(blocks[1]), parse_stats(blocks[2])
    t = _TIMINGS_RE.search(text)
    if t is None:
        raise BenchmarkOutputError("no 'Inference timings in us' line")
    mem, peak = _MEM_RE.search(text), _PEAK_RE.search(text)
    return BenchmarkOutput(
        warmup=warmup, timed=timed, init_us=float(t.group(1)), first_inference_us=float(t.group(2)),
        memory_init_mb=float(mem.group(1)) if mem else None, memory_overall_mb=float(mem.group(2)) if mem else None,
        peak_memory_mb=float(peak.group(1)) if peak and float(peak.group(1)) > 0 else None,
        op_profile=parse_op_profile(text), delegation=parse_delegation(text))


def parse_delegation(text: str) -> list[dict[str, Any]]:
    """Which delegate took the graph: completely, partially (with its number of delegate kernels, i.e. delegated
    partitions; the ops left run on the CPU), or not at all; with the interpreter's "Replacing N out of M node(s)"
    lines, how many ops ran on the delegate and how many on LiteRT's CPU kernels (`placement`)."""
    out: list[dict[str, Any]] = []
    for name, how, kernels in _DELEGATED_RE.findall(text):
        out.append({"delegate": name, "graph": how, "delegate_kernels": int(kernels) if kernels else None})
    for name in _NOT_DELEGATED_RE.findall(text):
        out.append({"delegate": name, "graph": "not", "delegate_kernels": 0})
    for p in parse_placement(text):
        entry = next((d for d in out if d["delegate"].lower() == p["delegate"].lower()), None)
        if entry is None:  # applied by the runtime itself (LiteRT applies XNNPACK by default), not by a flag
            entry = {"delegate": p["delegate"], "graph": "completely" if p["ops_on_cpu"] == 0 else "partially",
                     "delegate_kernels": None, "applied": "by the runtime (no benchmark_model flag)"}
            out.append(entry)
        entry.update({k: v for k, v in p.items() if k != "delegate"})
    return out


def parse_placement(text: str) -> list[dict[str, Any]]:
    """The "Replacing N out of M node(s) with delegate (K) node, yielding P partitions" lines, per delegate (summed
    over its subgraphs): ops on the delegate, ops left on the CPU (None where the line gives no M: old releases),
    partitions, subgraphs, and the compute unit."""
    by: dict[str, dict[str, Any]] = {}
    for n, m, kernel, parts, subgraph in _REPLACED_RE.findall(text):
        name, unit = DELEGATE_KERNELS.get(kernel.strip(), (kernel.strip() or "unknown", kernel.strip() or "unknown"))
        p = by.setdefault(name, {"delegate": name, "kernel": kernel.strip(), "unit": unit, "ops_on_delegate": 0,
                                 "ops_total": 0, "partitions": 0, "subgraphs": []})
        p["ops_on_delegate"] += int(n)
        p["ops_total"] = None if not m or p["ops_total"] is None else p["ops_total"] + int(m)
        p["partitions"] += int(parts)
        p["subgraphs"].append(int(subgraph) if subgraph else 0)
    for p in by.values():
        p["ops_on_cpu"] = p["ops_total"] - p["ops_on_delegate"] if p["ops_total"] is not None else None
    return list(by.values())


def placement_line(d: dict[str, Any]) -> str:
    """One line for `deploy`: which delegate took the graph, and (where the interpreter said) how many ops ran
    where, like a compute-unit breakdown."""
    kernels = f" ({d['delegate_kernels']} delegate kernels)" if d.get("delegate_kernels") else ""
    line = f"delegate {d['delegate']}: graph {d['graph']} delegated{kernels}"
    if d.get("ops_on_delegate") is not None:
        total = d.get("ops_total")
        line += (f"; ops: {d['ops_on_delegate']} of {total} on {d['unit']}, {d['ops_on_cpu']} on the CPU "
                 f"(LiteRT's kernels), {d['partitions']} partitions" if total is not None else
                 f"; ops: {d['ops_on_delegate']} on {d['unit']} (this LiteRT prints no total)")
    return line


def parse_op_profile(text: str) -> list[dict[str, Any]]:
    """--enable_op_profiling's "Operator-wise Profiling Info for Regular Benchmark Runs" run-order table
    (tensorflow StatsCalculator: node type, first, avg ms, %, cdf%, mem KB, times called, name)."""
    section = text.split("Operator-wise Profiling Info for Regular Benchmark Runs:", 1)
    if len(section) < 2:
        return []
    run_order = section[1].split("Top by Computation Time", 1)[0]
    ops = []
    for line in run_order.splitlines():
        cols = [c.strip() for c in line.split("\t") if c.strip()]
        if len(cols) >= 8 and re.fullmatch(r"[\d.]+", cols[1]) and re.fullmatch(r"[\d.]+", cols[2]):
            ops.append({"type": cols[0], "first_ms": float(cols[1]), "avg_ms": float(cols[2]),
                        "name": cols[-1]})
    return ops


def command(binary: str, graph: str, *, num_threads: int | None, num_runs: int, warmup_runs: int,
            min_secs: float, delegate: str, profile_ops: bool, warmup_min_secs: float | None = None) -> list[str]:
    argv = [binary, f"--graph={graph}", f"--num_runs={num_runs}", f"--warmup_runs={warmup_runs}",
            f"--min_secs={min_secs:g}", "--report_peak_memory_footprint=true"]
    if warmup_min_secs is not None:
        argv.append(f"--warmup_min_secs={warmup_min_secs:g}")
    if num_threads is not None:
        argv.append(f"--num_threads={num_threads}")
    if delegate in DELEGATE_FLAGS:
        argv.append(DELEGATE_FLAGS[delegate])
    elif delegate == "cpu":
        argv.append("--use_xnnpack=false")
    if profile_ops:
        argv.append("--enable_op_profiling=true")
    return argv


def binary_path(device: Device) -> str | None:
    """Where benchmark_model is on the phone before any push (phone:/path in devices.yaml), else None."""
    bm = device.phone.benchmark_model if device.phone is not None else None
    return bm.phone_path if bm is not None else None


@dataclass(frozen=True)
class SelfReport:
    """What benchmark_model said about itself: state "ok" with the flags it knows, or why it could not be asked."""

    state: str
    path: str | None = None
    flags: int | None = None
    delegate_flags: list[str] | None = None

    @property
    def ok(self) -> bool:
        return self.state == "ok"

    def to_dict(self) -> dict[str, Any]:
        if not self.ok:
            return {"state": self.state}
        return {"state": self.state, "path": self.path, "flags": self.flags, "delegate_flags": self.delegate_flags}


def self_report(t: ADBTransport, device: Device, remote: str | None = None) -> SelfReport:
    """What benchmark_model says about itself (`--help`: the flags it knows), or why it could not be asked."""
    remote = remote or binary_path(device)
    if remote is None:
        configured = device.phone is not None and device.phone.benchmark_model is not None
        return SelfReport("not pushed yet" if configured else "not configured (benchmark_model: in devices.yaml)")
    r = t.run([remote, "--help"], timeout=30)
    flags = sorted(set(re.findall(r"--(\w+)=", r.stdout + r.stderr)))
    if not flags:
        return SelfReport(f"{remote} did not list its flags (exit {r.returncode})")
    return SelfReport("ok", path=remote, flags=len(flags),
                      delegate_flags=[f for f in flags if f.startswith("use_") or f == "external_delegate_path"])


def delegates_offered(t: ADBTransport) -> list[str]:
    """Delegates this phone can offer: CPU and XNNPACK always; GPU where an OpenCL or Vulkan driver is there; NNAPI
    on Android 8.1+ (SDK 27; deprecated from Android 15); Hexagon/QNN where Qualcomm's libraries are."""
    r = t.run(["sh", "-c", 'getprop ro.build.version.sdk; for f in /vendor/lib64/libOpenCL.so '
               '/system/vendor/lib64/libOpenCL.so /vendor/lib64/libvulkan.so /vendor/lib64/hw/vulkan.*.so '
               '/vendor/lib64/libQnnHtp.so /vendor/lib64/libhexagon_interface.so; do [ -e "$f" ] && echo "$f"; '
               'done; true'])
    lines = r.stdout.split()
    sdk = int(lines[0]) if lines and lines[0].isdigit() else 0
    found = " ".join(lines[1:])
    out = ["cpu", "xnnpack"]
    if "OpenCL" in found or "vulkan" in found:
        out.append("gpu")
    if sdk >= 27:
        out.append("nnapi")
    if "Qnn" in found:
        out.append("qnn (external delegate)")
    if "hexagon" in found:
        out.append("hexagon")
    return out
