"""One measurement, one pipeline: check → (connect) → plan → execute → assemble.

  check(spec, options)            check.py     every flag and spec problem, before anything connects
  plan(spec, device, facts)       plan.py      after the hello: capability, export target, artifacts, inputs,
                                               accuracy data, fidelity reference — the only check after connecting
  execute(plan, session)          execute.py   push, one typed RunRequest, progress, silences and a deadline
  assemble(plan, executed, facts) assemble.py  the frozen Result, built once
deploy() measures one RunSpec on one device session and returns the Result; its caller stores it (cli/deploy.py,
the sweep scheduler), so a failure never leaves half a run in the database and there is one saving path.
deploy() hands the spec to a DeviceSession (edgeprof/session/): the device's measurer runs the spec's measurement
kind there — this pipeline is the forward-pass kind's on the agent (session/agent.py); a phone's is phone/measure.py.
Does not own: the device (edgeprof/session/), exporting (export/), moving bytes (agentlink, transport), measuring (the agent), persisting (store).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CapabilityError
from ..records import Device, Result, RunSpec
from ..vocab import PRECISIONS, RUNTIMES
from .assemble import assemble, host_environment, io_summary
from .check import Options, check, validate_scenario, validate_spec, validate_telemetry
from .execute import Executed, Progress, Quiet, Session, execute, model_rejected, power_config, run_request
from .limits import AGENT_SILENCE_TIMEOUT_S, QUERY_SILENCE_S, phase_silences, run_deadline
from .plan import RunPlan, plan
from .prepare import Prepared, export_target, input_params, input_plan, prepare
from .timing import PhaseClock

if TYPE_CHECKING:
    from ..session import DeviceSession

__all__ = [
    "AGENT_SILENCE_TIMEOUT_S", "PRECISIONS", "QUERY_SILENCE_S", "RUNTIMES", "CapabilityError", "Executed",
    "Options", "PhaseClock", "Prepared", "Progress", "Quiet", "RunPlan", "Session", "assemble", "check", "deploy", "execute",
    "export_target", "host_environment", "input_params", "input_plan", "io_summary", "model_rejected", "phase_silences",
    "plan", "power_config", "prepare", "run_deadline", "run_request", "validate_scenario", "validate_spec",
    "validate_telemetry",
]


def deploy(spec: RunSpec, session: DeviceSession | Device, progress: Progress | None = None, *,
           options: Options | None = None, checked: bool = False, cache_dir: Path | None = None) -> Result:
    """Measure `spec` on the session's device and return the Result; the caller stores it.

    `session` (edgeprof/session/): the device's measurer, connection, lease and facts, opened once by its holder
    (a sweep's board, --find-max-rate's probes, a deploy) and used for every measurement on it; a Device opens a
    one-off session for this measurement (timed in its phases: connect, agent, facts, close) and closes it.
    The spec's measurement kind (session/kinds.py; the forward-pass scenarios are this package's pipeline) is
    measured by the device's measurer, or refused in one line.
    The spec is validated once: `checked` says its caller ran check() on it already (the CLI); otherwise
    validate_spec runs (a sweep cell, a --find-max-rate probe at a new rate). `options`: the CLI's (the flags
    given: --batch 1 on a static batch is refused). `cache_dir`: the export cache (a sweep's)."""
    from ..session import DeviceSession, Job

    job = Job(progress or Quiet(), options=options, checked=checked, cache_dir=cache_dir)
    if isinstance(session, DeviceSession):
        return session.measure(spec, job)
    with DeviceSession(session, keep=False) as one_off:
        return one_off.measure(spec, job)
