"""PhaseClock: the host's stopwatch for one measurement's phases (records/phases.py holds what it measures).

Owns: timing named host phases (connect, agent, facts, export, push, run, fidelity, accuracy, close) with a
monotonic clock, summing repeats, and building the Result's Phases from them and the agent's RunPhases. Does not
own: the device's phases (the agent's worker times them), showing them (report/phases.py).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from edgeprof_agent.messages import GenerateReply, RunReply

from ..records.phases import Phases


class PhaseClock:
    """Seconds per named host phase since `started` (time.monotonic)."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.seconds: dict[str, float] = {}
        self.export_cached: bool | None = None

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the block as phase `name` (added to what it already holds), also when it raises."""
        t0 = time.monotonic()
        try:
            yield
        finally:
            self.add(name, time.monotonic() - t0)

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def took(self, name: str) -> float | None:
        """The seconds phase `name` took, to 0.1 ms (None: it did not happen)."""
        v = self.seconds.get(name)
        return round(v, 4) if v is not None else None

    def phases(self, reply: RunReply | GenerateReply | None, window_s: float | None = None) -> Phases:
        """The Result's phases now: the host's, with the device's from the agent's reply (None before protocol 6).
        `window_s`: the timed window of a reply that does not state it (a generation's: its repetitions' span)."""
        d = reply.phases if reply is not None else None
        stated = getattr(reply, "window_s", None)  # a RunReply states its window; a GenerateReply does not
        host_accuracy = self.seconds.get("accuracy")
        device_accuracy = d.accuracy_s if d is not None else None
        accuracy = None if host_accuracy is None and device_accuracy is None else round(
            (host_accuracy or 0.0) + (device_accuracy or 0.0), 4)
        return Phases(
            connect_s=self.took("connect"), agent_s=self.took("agent"), facts_s=self.took("facts"),
            export_s=self.took("export"), export_cached=self.export_cached, push_s=self.took("push"),
            cooldown_s=d.cooldown_s if d else None, idle_s=d.idle_s if d else None,
            load_s=round(d.load_s + d.streams_s, 4) if d else None, warmup_s=d.warmup_s if d else None,
            window_s=round(float(window_s), 4) if window_s is not None else
            round(float(stated), 4) if stated is not None else None,
            measure_s=d.measure_s if d else None, outputs_s=d.outputs_s if d else None,
            profile_s=d.profile_s if d else None, accuracy_s=accuracy, accuracy_device_s=device_accuracy,
            fidelity_s=self.took("fidelity"), device_s=d.total_s if d else None, run_s=self.took("run"),
            close_s=self.took("close"), total_s=round(time.monotonic() - self.started, 4),
            sessions_s=getattr(d, "sessions_s", None) if d else None)
