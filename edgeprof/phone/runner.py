"""PhoneRunner: a phone's files pushed by content over adb, and one tool run (run_tool: LiteRT's benchmark_model, or
LiteRT-LM's litert_lm_main for litertlm.py) with `adb shell`, a battery sampler loop beside it on the phone (or the
ODPM rails read before and after, rails.py, where the phone has them), thermal state before/after.

Owns: the content-addressed layout under the phone's workdir (artifacts/<sha256>.<ext>, bin/<tool>-<sha>),
the shell line that runs the sampler and the tool together (built from quoted words only: one sample before the
loop starts and one after the tool ends, so the trace covers the whole process, and the phone clock read just
before and after the tool, ToolRun.span_ns, on the samples' own clock), reading the
battery trace (units and sign per the kernel power_supply ABI, vendor deviations detected and stated), and the
refusals: battery power while charging (the rails are measured then), a crash, output that is not
benchmark_model's.
Does not own: the transport (transport/adb.py), parsing the tools' output (benchmark.py, litertlm.py).

A phone plugs in at the device seam (edgeprof/session/phone.py, its measurer), not at run.execute's StartedAgent: the
agent's RunRequest → RunReply path does not fit benchmark_model (a RunReply carries every run's time, and
benchmark_model prints none: see benchmark.py); `measure` returns what benchmark_model did measure instead, and
result.py stores that (measure.py composes the steps).
"""

from __future__ import annotations

import dataclasses
import posixpath
import shlex
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import DeviceError, MeasurementFailed, TransportError
from ..records import Device
from ..records.device import BenchmarkModel, PhoneConfig
from ..transport.adb import ADBTransport, sha256_file
from . import benchmark
from .facts import BATTERY, Battery, Thermal, read_battery, read_thermal
from .power import PowerReading
from .rails import rails_power, read_rails

SAMPLER_PERIOD_S = 0.2  # Perfetto's android.power guidance: poll no faster than every 100 ms
TRACE_MARKER = "edgeprof-battery-trace"
SPAN_MARK = "edgeprof-tool-span"  # the line after TRACE_MARKER: the phone clock before and after the tool
NOT_ON_PHONES = "not supported on phones yet"


TIMEOUT_S = 900.0  # one benchmark_model run on a phone, at most (phone/measure.py's default too)


@dataclass(frozen=True)
class PhoneMemory:
    """benchmark_model's memory lines in MB: the footprint deltas from its start, and its periodic RSS peak."""

    init_delta: float | None
    overall_delta: float | None
    peak: float | None


@dataclass
class ToolRun:
    """One tool run on a phone (PhoneRunner.run_tool): its output (stdout and stderr together) and what was read
    around it. `power` covers the whole tool process (with the battery, every sample kept); None with the reason in
    `power_reason`."""

    output: str
    power: PowerReading | None
    power_reason: str | None
    thermal_before: Thermal
    thermal_after: Thermal
    battery: Battery
    warnings: list[str]
    # the phone clock (PHONE_CLOCK, the battery sampler's) read just before the tool started and just after it
    # ended, in the same shell line; None where no sampler ran (the rails, power off, charging)
    span_ns: tuple[int, int] | None = None


@dataclass
class PhoneRun:
    """What one benchmark_model run on a phone measured (result.py makes the stored Result of it)."""

    device: str
    command: list[str]
    latency_ms: benchmark.BenchmarkLatency  # benchmark_model's own statistics, and what is absent
    init_ms: float
    first_inference_ms: float | None  # None: this build printed no first-inference figure
    memory_mb: PhoneMemory
    power: PowerReading | None
    power_reason: str | None
    thermal_before: Thermal
    thermal_after: Thermal
    ops: list[benchmark.OpTime] = field(default_factory=list)
    delegation: list[benchmark.Delegation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    output: benchmark.BenchmarkOutput | None = None  # everything parsed from benchmark_model's output
    battery: Battery | None = None  # read before the run
    binary: str | None = None  # benchmark_model's path on the phone


PHONE_CLOCK = "date +%s%N"  # the phone's clock for the sampler's samples and the tool's start and end (toybox date)


def sample_command() -> str:
    """One battery sample as one line: the phone clock in ns, then the battery files' text (mksh + toybox)."""
    files = " ".join(shlex.quote(f"{BATTERY}/{f}") for f in ("current_now", "voltage_now", "status"))
    return f't=$({PHONE_CLOCK}); set -- $(cat {files} 2>/dev/null); echo "$t $1 $2 $3"'


def sampler_script(trace: str, period_s: float) -> str:
    """A POSIX shell loop (mksh + toybox): one sample (sample_command) every `period_s`, appended to `trace`.
    Run in the background; its words are fixed here, the paths quoted."""
    return f"while :; do {sample_command()}; sleep {period_s:g}; done >> {shlex.quote(trace)} 2>/dev/null"


def battery_power(lines: list[str]) -> tuple[PowerReading | None, str | None, list[str]]:
    """The sampler's trace → (power summary, why there is none, warnings). Kernel ABI: current_now µA, voltage_now
    µV; many phones (Pixel) report discharge as negative current; some vendors report mA / mV (detected by size).
    Refused when any sample was taken while charging."""
    samples: list[tuple[int, int, int, str]] = []
    for line in lines:
        parts = line.split()
        if len(parts) == 4 and all(p.lstrip("-").isdigit() for p in parts[:3]):
            samples.append((int(parts[0]), int(parts[1]), int(parts[2]), parts[3]))
    if len(samples) < 2:
        return None, f"the battery sampler took {len(samples)} sample(s) (at least 2 are needed)", []
    if any(s[3] in ("Charging", "Full") for s in samples):
        return None, "the phone was charging during the window: battery current is then the charger's, not the load's", []
    warnings = []
    cur = [s[1] for s in samples]
    volt = [s[2] for s in samples]
    cur_scale, volt_scale = 1e-6, 1e-6
    if max(abs(c) for c in cur) < 20_000 and any(cur):
        cur_scale = 1e-3
        warnings.append("battery current_now looks like mA, not the kernel ABI's µA (a vendor deviation): read as mA")
    if max(volt) < 10_000:
        volt_scale = 1e-3
        warnings.append("battery voltage_now looks like mV, not the kernel ABI's µV (a vendor deviation): read as mV")
    watts = [abs(c) * cur_scale * v * volt_scale for c, v in zip(cur, volt, strict=True)]
    signs = {c > 0 for c in cur if c}
    if len(signs) > 1:
        warnings.append("battery current changed sign during the window (charger plugged in or out?)")
    elif signs == {True}:
        warnings.append("battery current_now is positive while discharging, not negative as the kernel ABI has it "
                        "(a vendor deviation): read as a magnitude")
    duration = (samples[-1][0] - samples[0][0]) / 1e9
    return PowerReading(source="battery", covers="the whole phone (battery side: screen, radios and all)",
                        mean_w=statistics.fmean(watts), max_w=max(watts), samples=len(samples), duration_s=duration,
                        clock=f"phone ({PHONE_CLOCK})",
                        discharge_sign="negative" if signs == {False} else "positive" if signs == {True} else "mixed",
                        trace_ns=tuple(s[0] for s in samples), trace_w=tuple(watts)), \
        None, warnings


def split_span(lines: list[str]) -> tuple[list[str], tuple[int, int] | None]:
    """The trace's lines without the SPAN_MARK line, and the tool's start and end from it (None: no such line, or
    not two clock readings in order)."""
    span: tuple[int, int] | None = None
    kept = []
    for line in lines:
        parts = line.split()
        if parts[:1] == [SPAN_MARK]:
            if len(parts) == 3 and all(p.isdigit() for p in parts[1:]) and int(parts[1]) <= int(parts[2]):
                span = (int(parts[1]), int(parts[2]))
            continue
        kept.append(line)
    return kept, span


class PhoneRunner:
    """A phone over adb: push by content; `measure` runs benchmark_model."""

    def __init__(self, transport: ADBTransport, device: Device) -> None:
        self.transport, self.device = transport, device
        self.phone = device.phone or PhoneConfig()
        self.workdir = device.workdir.rstrip("/") or "/data/local/tmp/edgeprof"
        self.bytes_moved = 0
        self._binary: str | None = None

    @property
    def sampler_period_s(self) -> float:
        """Seconds between the battery sampler's reads (devices.yaml power.rate_hz, else SAMPLER_PERIOD_S)."""
        rate = self.phone.power.rate_hz if self.phone.power is not None else None
        return 1.0 / rate if rate else SAMPLER_PERIOD_S

    def _push_by_content(self, local_path: str, sha256: str, remote: str, mode: str | None = None) -> int:
        if self.transport.remote_sha256(remote) == sha256:
            return 0
        tmp = f"{remote}.part"
        moved = self.transport.put_file(local_path, tmp)
        args = ["sh", "-c", 'mv -f "$1" "$2" && { [ -z "$3" ] || chmod "$3" "$2"; }', "mv", tmp, remote, mode or ""]
        r = self.transport.run(args)
        if r.returncode != 0:
            raise TransportError(f"{self.transport.label}: cannot place {remote}: {r.stderr.strip()}",
                                 device=self.device.name)
        self.bytes_moved += moved
        return moved

    def push_artifact(self, local_path: str, sha256: str, ext: str) -> tuple[str, int]:
        remote = posixpath.join(self.workdir, "artifacts", f"{sha256}.{ext}")
        return remote, self._push_by_content(local_path, sha256, remote)

    def benchmark_binary(self) -> str:
        """benchmark_model on the phone: the devices.yaml phone:/path, or the host file pushed by content."""
        if self._binary is None:
            self._binary = self.tool_binary(
                "benchmark_model", self.phone.benchmark_model,
                hint="set benchmark_model: in devices.yaml (LiteRT's android_aarch64 build, see docs/phones.md)")
        return self._binary

    def tool_binary(self, tool: str, configured: BenchmarkModel | None, hint: str) -> str:
        """A tool on the phone: its devices.yaml phone:/path, or the host file pushed by content to
        bin/<tool>-<sha>; DeviceError (one line, with `hint`) when devices.yaml names none."""
        if configured is not None and configured.phone_path:
            return configured.phone_path
        if configured is not None and configured.host_path:
            sha = sha256_file(configured.host_path)
            remote = posixpath.join(self.workdir, "bin", f"{tool}-{sha[:16]}")
            self._push_by_content(configured.host_path, sha, remote, mode="755")
            return remote
        raise DeviceError(f"device {self.device.name!r}: no {tool}", hint=hint, device=self.device.name)

    def run_tool(self, argv: list[str], *, tool: str, power: bool = True, timeout: float = TIMEOUT_S,
                 error_line: Callable[[str], str | None] = benchmark.error_line) -> ToolRun:
        """One run of a tool on the phone (argv: quoted word by word into the shell line) with the battery sampler
        beside it, or between two reads of the power rails where the phone has them; the thermal state and the
        battery read before, the thermal state after. A crash or a non-zero exit is MeasurementFailed (one line:
        the tool's own error line, found by `error_line`); a phone gone mid-run a TransportError. The power
        summary covers the whole tool process (its load included): what it is per inference or per token is the
        caller's to say."""
        warnings: list[str] = []
        thermal_before = read_thermal(self.transport)
        battery = read_battery(self.transport)
        # the rails (rails.py) are preferred where the phone has them, and do not depend on the charger
        rails = read_rails(self.transport) if power and self.phone.measures_power else None
        power_reason: str | None = None
        if not power or not self.phone.measures_power:
            power_reason = "power measurement is off for this phone (power: source: none)"
        elif rails is None and battery.charging:
            power_reason = ("the phone is charging: battery power is not measured while charging (unplug it, or "
                            "use adb over Wi-Fi); latency is still measured")
            warnings.append(f"power refused: {power_reason}")
        trace = posixpath.join(self.workdir, "battery.trace")
        period = self.sampler_period_s
        tool_line = " ".join(shlex.quote(a) for a in argv)
        if power_reason is None and rails is None:
            # one sample before the loop starts and one after the tool ends, so that the trace covers the whole
            # process; the tool's start and end read on the samples' clock, in the same line (SPAN_MARK). The
            # line ends in `(exit $rc)`, not `exit`: an adbd without shell v2 gets the status from a marker echoed
            # after the line (transport/adb.py run_line), which `exit` would never reach. The newline before the
            # marker is the separator's own: the tool's output is found whole even when it printed nothing or did
            # not end its last line
            q = shlex.quote(trace)
            line = (f"mkdir -p {shlex.quote(self.workdir)}; {{ {sample_command()}; }} > {q} 2>/dev/null; "
                    f"( {sampler_script(trace, period)} ) & s=$!; t0=$({PHONE_CLOCK}); {tool_line} 2>&1; rc=$?; "
                    f"t1=$({PHONE_CLOCK}); kill $s 2>/dev/null; wait $s 2>/dev/null; "
                    f"{{ {sample_command()}; }} >> {q} 2>/dev/null; "
                    f'echo; echo {TRACE_MARKER}; echo "{SPAN_MARK} $t0 $t1"; cat {q}; rm -f {q}; (exit $rc)')
        else:
            line = f"{tool_line} 2>&1"
        r = self.transport.run_line(line, argv=argv, timeout=timeout)
        output, _, trace_text = r.stdout.partition(f"\n{TRACE_MARKER}\n")
        trace_lines, span_ns = split_span(trace_text.splitlines())
        if r.returncode != 0 or TRACE_MARKER not in r.stdout and power_reason is None and rails is None:
            self._still_there(tool)  # a cut-short run: the phone may be gone (unplugged, rebooted)
        if r.returncode >= 128 or r.returncode < 0:
            raise MeasurementFailed(f"device {self.device.name}: {tool} died (exit {r.returncode}, signal "
                                    f"{r.returncode - 128 if r.returncode >= 128 else -r.returncode})"
                                    + (lambda e: f": {e}" if e else "")(error_line(output)),
                                    detail=output[-4000:], device=self.device.name, op="run")
        if r.returncode != 0:
            last = error_line(output)
            raise MeasurementFailed(f"device {self.device.name}: {tool} failed (exit {r.returncode})"
                                    + (f": {last}" if last else ""),
                                    detail=output[-4000:], device=self.device.name, op="run")
        power_summary = None
        if power_reason is None:
            power_summary, power_reason, more = (rails_power(rails, read_rails(self.transport)) if rails is not None
                                                 else battery_power(trace_lines))
            warnings.extend(more)
            if power_summary is None:
                warnings.append(f"power refused: {power_reason}")
        thermal_after = read_thermal(self.transport)
        warn_at = self.phone.warn_status
        if thermal_after.status is not None and thermal_after.status >= warn_at:
            warnings.append(f"thermal status after the run: {thermal_after.status_name} ({thermal_after.status}); "
                            "the phone may have throttled")
        return ToolRun(output=output, power=power_summary, power_reason=power_reason, thermal_before=thermal_before,
                       thermal_after=thermal_after, battery=battery, warnings=warnings, span_ns=span_ns)

    def measure(self, graph: str, *, threads: int | None = None, num_runs: int = 100, warmup_runs: int = 5,
                min_secs: float = 10.0, delegate: str = "xnnpack", profile_ops: bool = False, power: bool = True,
                timeout: float = TIMEOUT_S, warmup_min_secs: float | None = None) -> PhoneRun:
        """One benchmark_model run of `graph` (a path on the phone) with the battery sampler beside it, or between
        two reads of the power rails where the phone has them."""
        argv = benchmark.command(self.benchmark_binary(), graph, num_threads=threads, num_runs=num_runs,
                                 warmup_runs=warmup_runs, min_secs=min_secs, delegate=delegate,
                                 profile_ops=profile_ops, warmup_min_secs=warmup_min_secs)
        run = self.run_tool(argv, tool="benchmark_model", power=power, timeout=timeout)
        output = run.output
        try:
            parsed = benchmark.parse_output(output)
        except benchmark.BenchmarkOutputError as e:
            self._still_there("benchmark_model")
            raise MeasurementFailed(f"device {self.device.name}: benchmark_model's output is not a finished "
                                    f"benchmark ({e})", detail=output[-4000:], device=self.device.name,
                                    op="run") from None
        power_summary = run.power
        if power_summary is not None:
            mean_s = (parsed.timed.mean or 0.0) / 1e6
            power_summary = dataclasses.replace(
                power_summary, energy_per_inference_j=power_summary.mean_w * mean_s,
                energy_note=f"mean {power_summary.source} power over the whole benchmark_model process (load, "
                            "warm-up, timed runs) × the timed runs' mean latency")
        latency = parsed.latency_ms()
        return PhoneRun(
            device=self.device.name, command=argv, latency_ms=latency, init_ms=parsed.init_us / 1000,
            first_inference_ms=parsed.first_inference_us / 1000 if parsed.first_inference_us is not None else None,
            memory_mb=PhoneMemory(init_delta=parsed.memory_init_mb, overall_delta=parsed.memory_overall_mb,
                                  peak=parsed.peak_memory_mb),
            power=power_summary, power_reason=run.power_reason, thermal_before=run.thermal_before,
            thermal_after=run.thermal_after, ops=parsed.op_profile, delegation=parsed.delegation,
            warnings=run.warnings, output=parsed, battery=run.battery, binary=argv[0])

    def _still_there(self, tool: str = "benchmark_model") -> None:
        """After a run that ended oddly: a TransportError (retried like a lost link) when the phone no longer
        answers, so a phone unplugged mid-run is not reported as the tool's failure."""
        try:
            self.transport.run(["true"], timeout=15)
        except TransportError as e:
            raise TransportError(f"lost device {self.device.name} during the {tool} run: {e.message}",
                                 device=self.device.name, detail=e.detail) from None

    def close(self) -> None:
        pass

