"""LiteRT's benchmark_model on the phone: its command line, and what its output says.

What benchmark_model prints (google-ai-edge/LiteRT tflite/tools/benchmark/benchmark_model.cc, BenchmarkModel::Run
and BenchmarkLoggingListener::OnBenchmarkEnd; the statistics line is tensorflow's Stat / StatWithPercentiles::
OutputToStream, tensorflow/core/util/stats_calculator.h, now xla/tsl/util/stats_calculator.h), in LiteRT:
  "Initialized session in 38.466ms."
  "Running benchmark for at least N iterations and at least S seconds but terminate if exceeding M seconds."
  "count=50 first=54420 curr=53846 min=52553 max=57107 avg=54018.3 std=869 p5=52700 median=53900 p95=56100"
     once for the warm-up runs, once for the timed runs; times in µs; p5 / median / p95 are order statistics of
     every run's time (values[n * p / 100] of the sorted runs) computed by benchmark_model itself
  "Inference timings in us: Init: 38466, First inference: 79263, Warmup (avg): 57311.3, Inference (avg): 54018.3"
  "Memory footprint delta from the start of the tool (MB): init=32.0234 overall=33.4375"
  "Overall peak memory footprint (MB) via periodic monitoring: 35.1"  (with --report_peak_memory_footprint)
The builds phones carry print less (tests/data/phones/benchmark_model/ holds one output of each, with its source):
  - every TensorFlow-tree build (tensorflow/lite/tools/benchmark, TF 1.x-2.x: `Stat<int64_t>`, not
    StatWithPercentiles) prints no percentiles: "count=2100 first=470 curr=455 min=401 max=900 avg=458.2 std=25";
  - Stat prints "count=N curr=X" when every run took the same time (N = 1 always), with "(all same)" after it when
    N > 1, and "count=0" when nothing ran (--dry_run);
  - before "Inference timings in us: Init: ..", the summary was "Average inference timings in us: Warmup: W,
    Init: I, Inference: A" (2019 builds; tensorflow/lite/tools/benchmark/README.md's example) and before it
    "... Init: I, no stats: A" (from tensorflow/contrib/lite in 2018, whose runs began "Running benchmark for N
    iterations ", into 2019; release ranges from the sources' dates, not checked tag by tag); neither prints a
    first-inference figure: the warm-up line's first run (`first=`, or `curr=` when every run took the same) is
    that figure;
  - the memory line was "Peak memory footprint (MB): init=X overall=Y" (the max-RSS deltas) before its rename.
What a build printed is kept as its own; what it did not print is absent with the reason (latency_ms: the
percentiles), never computed from the summary. A run whose timed line gives no time at all is not a finished
benchmark (BenchmarkOutputError).
It prints no per-run times: the raw samples, p99 and anything else computed from them are absent, and the result
says so.

How many ops a delegate took is the interpreter's own log line (LiteRT tflite/core/subgraph.cc,
Subgraph::ReplaceNodeSubsetsWithDelegateKernels, TFLITE_LOG_PROD, printed by benchmark_model on Android):
  "Replacing 12 out of 14 node(s) with delegate (TfLiteXNNPackDelegate) node, yielding 3 partitions for subgraph 0."
  (older releases: "... yielding 3 partitions for the whole graph." and, before "out of M", "Replacing 12 node(s)
  with delegate (...) node, yielding 3 partitions."). N of M nodes of that subgraph's execution plan went to the
  delegate; the M - N left run on LiteRT's built-in CPU kernels; the partitions are every node subset, delegated or
  not. A second delegate's M counts the first one's delegate kernels as nodes.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

from ..records import Device
from ..transport.adb import ADBTransport

DELEGATE_FLAGS = {"xnnpack": "--use_xnnpack=true", "gpu": "--use_gpu=true", "nnapi": "--use_nnapi=true",
                  "hexagon": "--use_hexagon=true"}
DELEGATES = ("cpu", *DELEGATE_FLAGS)
NOT_EMITTED = "benchmark_model prints no per-run times (only count/min/max/avg/std and its own p5/median/p95)"
NO_PERCENTILES = ("this benchmark_model build printed no percentiles (its count= line has no p5/median/p95: "
                  "TensorFlow's Stat, not LiteRT's StatWithPercentiles); not computed from its summary")
PERCENTILE_KEYS = (("p5", "p5"), ("median", "p50"), ("p95", "p95"))  # benchmark_model's name → edgeprof's

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?(?:e[-+]?\d+)?|nan|inf)"
_STAT_RE = re.compile(r"count=(\d+)([^\n]*)")
# the end-of-run summary, newest first (benchmark_model.cc, BenchmarkLoggingListener::OnBenchmarkEnd)
_TIMINGS_RE = re.compile(rf"Inference timings in us: Init: ({_NUMBER}), First inference: ({_NUMBER}), "
                         rf"Warmup \(avg\): ({_NUMBER}), Inference \(avg\): ({_NUMBER})")
_AVERAGE_RE = re.compile(rf"Average inference timings in us: Warmup: ({_NUMBER}), Init: ({_NUMBER}), "
                         rf"(Inference|no stats): ({_NUMBER})")
_MEM_RE = re.compile(r"Memory footprint delta from the start of the tool \(MB\): init=([-\d.e+]+) "
                     r"overall=([-\d.e+]+)")
_OLD_MEM_RE = re.compile(r"(?<!Overall )Peak memory footprint \(MB\): init=([-\d.e+]+) overall=([-\d.e+]+)")
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
    """One `count=...` line (Stat / StatWithPercentiles::OutputToStream): times in µs as benchmark_model printed
    them; None where the line left one out (a TensorFlow-tree build prints no percentiles; "count=N curr=X" when
    every run took X µs, `all_same`, prints no first/min/max/avg/std)."""

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
    all_same: bool = False

    def spread(self) -> dict[str, float] | None:
        """min / max / mean / std in µs as the line gives them: printed, or when the line says every run took
        `curr` µs (Stat's all_same branch: min == max), that time for each and std 0. None: no time in the line."""
        if self.count <= 0:
            return None
        if self.all_same and self.curr is not None:
            return {"min": self.curr, "max": self.curr, "mean": self.curr, "std": 0.0}
        lo, hi, avg, std = self.min, self.max, self.avg, self.std
        if lo is None or hi is None or avg is None or std is None:
            return None
        return {"min": lo, "max": hi, "mean": avg, "std": std}

    @property
    def mean(self) -> float | None:
        s = self.spread()
        return s["mean"] if s is not None else None

    @property
    def first_run(self) -> float | None:
        """The first run's time: `first=`, or `curr=` when every run took the same."""
        return self.first if self.first is not None else self.curr if self.all_same else None


@dataclass(frozen=True)
class BenchmarkLatency:
    """The timed runs' statistics benchmark_model printed, in ms, named as edgeprof names them
    (BenchmarkOutput.latency_ms); None: not printed, with the reason in `absent` (statistic → why). count, min, max,
    mean and std are always printed for a finished run (latency_ms refuses a line without them)."""

    count: int
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    std: float | None = None
    p5: float | None = None
    p50: float | None = None
    p95: float | None = None
    absent: dict[str, str] = field(default_factory=dict)

    def printed(self) -> dict[str, float]:
        """The count and each statistic the build printed, by name (a one-line error says them)."""
        return {f.name: v for f in dataclasses.fields(self) if f.name != "absent"
                and (v := getattr(self, f.name)) is not None}


@dataclass(frozen=True)
class OpTime:
    """One row of --enable_op_profiling's run-order table (tensorflow StatsCalculator): the node's type, its first
    run and its mean over the timed runs (ms), and its name."""

    type: str
    first_ms: float
    avg_ms: float
    name: str


@dataclass(frozen=True)
class Placement:
    """Where one delegate's ops ran, from the interpreter's "Replacing N out of M node(s) with delegate (K) node,
    yielding P partitions" lines (summed over its subgraphs): ops on the delegate, the total and the ops left on
    LiteRT's CPU kernels (None where the line gives no M: old releases), partitions, subgraphs, the delegate kernel
    and its compute unit."""

    delegate: str
    kernel: str
    unit: str
    ops_on_delegate: int
    ops_total: int | None
    partitions: int
    subgraphs: list[int]
    ops_on_cpu: int | None


@dataclass(frozen=True)
class Delegation:
    """Which delegate took the graph: "completely", "partially" (with its number of delegate kernels, i.e. delegated
    partitions) or "not"; `applied`: set where no flag applied it (LiteRT applies XNNPACK by default); `placement`:
    where the interpreter said how many ops ran where. `to_dict` is the phone section's stored shape
    (records/phone.PhoneBenchmark.delegation), `from_dict` reads it back."""

    delegate: str
    graph: str
    delegate_kernels: int | None
    applied: str | None = None
    placement: Placement | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"delegate": self.delegate, "graph": self.graph, "delegate_kernels": self.delegate_kernels}
        if self.applied is not None:
            out["applied"] = self.applied
        if self.placement is not None:
            out.update({k: v for k, v in dataclasses.asdict(self.placement).items() if k != "delegate"})
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Delegation:
        has_placement = "ops_on_delegate" in d
        placement = Placement(**{f.name: d[f.name] for f in dataclasses.fields(Placement) if f.name != "delegate"},
                              delegate=d["delegate"]) if has_placement else None
        return cls(delegate=d["delegate"], graph=d["graph"], delegate_kernels=d.get("delegate_kernels"),
                   applied=d.get("applied"), placement=placement)


@dataclass
class BenchmarkOutput:
    warmup: BenchmarkStats
    timed: BenchmarkStats
    init_us: float
    first_inference_us: float | None
    memory_init_mb: float | None = None
    memory_overall_mb: float | None = None
    peak_memory_mb: float | None = None
    op_profile: list[OpTime] = field(default_factory=list)
    delegation: list[Delegation] = field(default_factory=list)
    summary_line: str = "Inference timings in us"  # which end-of-run summary this build printed
    memory_line: str | None = None  # which memory-footprint line (None: none printed)

    def latency_ms(self) -> BenchmarkLatency:
        """The timed runs' statistics benchmark_model printed, in ms, named as edgeprof names them; `absent`: each
        one it did not print, and why. Raises BenchmarkOutputError when the timed line gives no time at all."""
        t = self.timed
        spread = t.spread()
        if spread is None:
            raise BenchmarkOutputError(f"the timed runs' line gives no time: count={t.count}, "
                                       + ("no run was timed" if t.count == 0 else "with no min/max/avg/std"))
        out: dict[str, Any] = {k: v / 1000.0 for k, v in spread.items()}
        absent = {"samples": NOT_EMITTED, "p99": NOT_EMITTED}
        for theirs, ours in PERCENTILE_KEYS:
            v = getattr(t, theirs)
            if v is not None:
                out[ours] = v / 1000.0
            else:
                absent[ours] = NO_PERCENTILES
        return BenchmarkLatency(count=t.count, absent=absent, **out)


def parse_stats(text: str) -> BenchmarkStats:
    """The first `count=` line of `text`, as printed."""
    m = _STAT_RE.search(text)
    if m is None:
        raise BenchmarkOutputError("no count= line")
    rest = m.group(2)
    values = {k: float(v) for k, v in re.findall(rf"(\w+)=({_NUMBER})", rest) if k in _STAT_NAMES}
    all_same = "first" not in values and "curr" in values and ("(all same)" in rest or int(m.group(1)) == 1)
    return BenchmarkStats(count=int(m.group(1)), all_same=all_same, **values)


def parse_output(text: str) -> BenchmarkOutput:
    """benchmark_model's stdout+stderr → its numbers; BenchmarkOutputError when a finished run's lines are missing
    or its timed runs give no time. Every release's format (the module's docstring)."""
    blocks = re.split(r"Running benchmark for ", text)
    if len(blocks) < 3:
        raise BenchmarkOutputError("fewer than two 'Running benchmark' sections (warm-up and timed)")
    warmup, timed = parse_stats(blocks[1]), parse_stats(blocks[2])
    t, a = _TIMINGS_RE.search(text), _AVERAGE_RE.search(text)
    first: float | None
    if t is not None:
        init, first, summary = float(t.group(1)), float(t.group(2)), "Inference timings in us"
    elif a is not None:  # older builds: no first-inference figure; the warm-up line's first run is that figure
        init, first, summary = float(a.group(2)), warmup.first_run, f"Average inference timings in us ({a.group(3)})"
    else:
        raise BenchmarkOutputError("no 'Inference timings in us' line")
    mem, old_mem, peak = _MEM_RE.search(text), _OLD_MEM_RE.search(text), _PEAK_RE.search(text)
    memory = mem or old_mem
    out = BenchmarkOutput(
        warmup=warmup, timed=timed, init_us=init, first_inference_us=first,
        memory_init_mb=float(memory.group(1)) if memory else None,
        memory_overall_mb=float(memory.group(2)) if memory else None,
        peak_memory_mb=float(peak.group(1)) if peak and float(peak.group(1)) > 0 else None,
        op_profile=parse_op_profile(text), delegation=parse_delegation(text), summary_line=summary,
        memory_line=None if memory is None else "Memory footprint delta" if mem else "Peak memory footprint")
    out.latency_ms()  # a run whose timed line gives no time is not a finished benchmark
    return out


def parse_delegation(text: str) -> list[Delegation]:
    """Which delegate took the graph: completely, partially (with its number of delegate kernels, i.e. delegated
    partitions; the ops left run on the CPU), or not at all; with the interpreter's "Replacing N out of M node(s)"
    lines, how many ops ran on the delegate and how many on LiteRT's CPU kernels (`placement`)."""
    out: list[Delegation] = []
    for name, how, kernels in _DELEGATED_RE.findall(text):
        out.append(Delegation(delegate=name, graph=how, delegate_kernels=int(kernels) if kernels else None))
    for name in _NOT_DELEGATED_RE.findall(text):
        out.append(Delegation(delegate=name, graph="not", delegate_kernels=0))
    for p in parse_placement(text):
        i = next((i for i, d in enumerate(out) if d.delegate.lower() == p.delegate.lower()), None)
        if i is None:  # applied by the runtime itself (LiteRT applies XNNPACK by default), not by a flag
            out.append(Delegation(delegate=p.delegate, graph="completely" if p.ops_on_cpu == 0 else "partially",
                                  delegate_kernels=None, applied="by the runtime (no benchmark_model flag)",
                                  placement=p))
        else:
            out[i] = dataclasses.replace(out[i], placement=p)
    return out


def parse_placement(text: str) -> list[Placement]:
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
    return [Placement(**p) for p in by.values()]


def placement_line(d: Delegation) -> str:
    """One line for `deploy`: which delegate took the graph, and (where the interpreter said) how many ops ran
    where, like a compute-unit breakdown."""
    kernels = f" ({d.delegate_kernels} delegate kernels)" if d.delegate_kernels else ""
    line = f"delegate {d.delegate}: graph {d.graph} delegated{kernels}"
    p = d.placement
    if p is not None:
        total = p.ops_total
        line += (f"; ops: {p.ops_on_delegate} of {total} on {p.unit}, {p.ops_on_cpu} on the CPU "
                 f"(LiteRT's kernels), {p.partitions} partitions" if total is not None else
                 f"; ops: {p.ops_on_delegate} on {p.unit} (this LiteRT prints no total)")
    return line


def parse_op_profile(text: str) -> list[OpTime]:
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
            ops.append(OpTime(type=cols[0], first_ms=float(cols[1]), avg_ms=float(cols[2]), name=cols[-1]))
    return ops


def error_line(output: str) -> str | None:
    """benchmark_model's first `ERROR: ...` line, without its level (None: it printed none)."""
    last = [ln for ln in output.splitlines() if ln.startswith("ERROR")]
    return last[0][len("ERROR: "):] if last else None


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
