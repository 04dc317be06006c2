"""One measurement, one pipeline: check → (connect) → plan → execute → assemble.

  check(spec, options)            check.py     every flag and spec problem, before anything connects
  plan(spec, device, facts)       plan.py      after the hello: capability, export target, artifacts, inputs,
                                               accuracy data, fidelity reference — the only check after connecting
  execute(plan, session)          execute.py   push, one typed RunRequest, progress, silences and a deadline
  assemble(plan, executed, facts) assemble.py  the frozen Result, built once
deploy() composes them for one RunSpec on one Device and returns the Result; its caller stores it (cli/deploy.py,
the sweep scheduler), so a failure never leaves half a run in the database and there is one saving path.
The `Session` (execute.py) is where a device of another kind plugs in; agentlink.AgentLink is today's.
Does not own: exporting (export/), moving bytes (agentlink, transport), measuring (the agent), persisting (store).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from edgeprof_agent.messages import Facts

from ..agentlink import AgentLink
from ..errors import CapabilityError
from ..records import Device, Result, RunSpec
from ..transport import Transport, open_transport
from ..vocab import PRECISIONS, RUNTIMES
from .assemble import assemble, host_environment, io_summary
from .check import Options, check, validate_scenario, validate_spec, validate_telemetry
from .execute import Executed, Progress, Quiet, Session, execute, model_rejected, power_config, run_request
from .limits import AGENT_SILENCE_TIMEOUT_S, QUERY_SILENCE_S, phase_silences, run_deadline
from .plan import RunPlan, plan
from .prepare import Prepared, export_target, input_params, input_plan, prepare
from .timing import PhaseClock

__all__ = [
    "AGENT_SILENCE_TIMEOUT_S", "PRECISIONS", "QUERY_SILENCE_S", "RUNTIMES", "CapabilityError", "Executed",
    "Options", "PhaseClock", "Prepared", "Progress", "Quiet", "RunPlan", "Session", "assemble", "check", "deploy", "execute",
    "export_target", "host_environment", "input_params", "input_plan", "io_summary", "model_rejected", "phase_silences",
    "plan", "power_config", "prepare", "run_deadline", "run_request", "validate_scenario", "validate_spec",
    "validate_telemetry",
]


def deploy(spec: RunSpec, device: Device, *, progress: Progress | None = None,
           cache_dir: Path | None = None, facts: Facts | Mapping[str, Any] | None = None,
           lease_token: str | None = None,
           transport: Transport | None = None, on_link: Callable[[AgentLink], None] | None = None,
           checked: bool = False, options: Options | None = None, link: AgentLink | None = None) -> Result:
    """Measure `spec` on `device` and return the Result; the caller stores it. The spec is validated once:
    `checked` says its caller ran check() on it already (the CLI); otherwise validate_spec runs here (a sweep cell,
    a --find-max-rate probe at a new rate).
    The device's facts, with its runtimes and their versions, are read first (unless given: `facts`, a
    messages.Facts or its dict, as a sweep reads them once per board), then plan() decides before any export or
    push (see there).
    For sweeps (lab/scheduler.py): `transport` reuses an open connection (left open afterwards); `on_link` gets
    the started agent so another thread can stop it (cell timeout, Ctrl-C); `lease_token` is the device lease
    the run is made under; `link`: the board's agent, started once for the whole sweep (each run is a child
    process of it: agents/edgeprof_agent/__main__.py), used and left running, so this measurement times no
    agent start and no close. `options`: the CLI's (the flags given: --batch 1 on a static batch is refused)."""
    progress = progress or Quiet()
    if device.kind == "adb":  # a phone has no agent: edgeprof/phone/measure.py measures it (deploy, sweeps)
        raise CapabilityError(f"device {device.name}: a phone has no agent to run this pipeline on",
                              hint="edgeprof deploy --device and sweeps measure it with benchmark_model "
                                   "(edgeprof/phone/measure.py, docs/phones.md)", device=device.name)
    if not checked:
        validate_spec(spec)
    options = options or Options.of(spec)
    known = facts if isinstance(facts, Facts) or facts is None else Facts.from_dict(dict(facts))
    clock = PhaseClock()  # the Result's phases (records/phases.py)
    progress.stage(f"connecting to {device.name}")
    if transport is None:
        with clock.phase("connect"):
            transport = open_transport(device)
            try:
                transport.connect()
            except BaseException:
                transport.close()
                raise
        opened: contextlib.AbstractContextManager[Transport] = transport
    else:  # the sweep's connection, left open; its board times connecting once
        opened = contextlib.nullcontext(transport)
    with opened as transport:
        kept = link is not None
        if link is None:
            with clock.phase("agent"):
                link = AgentLink.open(transport, device, progress=progress.stage)
        if on_link is not None:
            on_link(link)
        try:
            if known is not None:
                device_facts = known  # read once per board (the sweep), not timed here
            else:
                with clock.phase("facts"):
                    device_facts = link.facts(runtimes=True)
            if link.known_facts is None or device_facts.runtimes:
                link.known_facts = device_facts  # names the runtime's version should the agent crash in it
            planned = plan(spec, device, device_facts, options=options, cache_dir=cache_dir, say=progress.stage,
                           clock=clock)
            session: Session = link  # an AgentLink is a Session (mypy checks it here)
            executed = execute(planned, session, progress=progress, lease_token=lease_token)
        finally:
            if not kept:
                with clock.phase("close"):
                    link.close()
    return assemble(planned, executed, device_facts, say=progress.stage)
