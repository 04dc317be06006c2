"""One measurement, one pipeline: check → (connect) → plan → execute → assemble.

  check(spec, options)            validate.py  every flag and spec problem, before anything connects
  plan(spec, device, facts)       plan.py      after the hello: capability, export target, artifacts, inputs,
                                               accuracy data, fidelity reference — the only check after connecting
  execute(plan, session)          execute.py   push, one typed RunRequest, progress, silences and a deadline
  assemble(plan, executed, facts) assemble.py  the frozen Result, built once
This pipeline is the forward-pass kind's on the agent (session/agent.py); a phone's is phone/measure.py. One
measurement is started by session.deploy(spec, session), which hands the spec to the device's measurer.
Does not own: the device and deploy() (edgeprof/session/), exporting (export/), moving bytes (agentlink, transport), measuring (the agent), persisting (store).
"""

from __future__ import annotations

from ..errors import CapabilityError
from ..vocab import PRECISIONS, RUNTIMES
from .assemble import assemble, host_environment, io_summary
from .execute import (
                      Executed,
                      Progress,
                      Quiet,
                      StartedAgent,
                      execute,
                      model_rejected,
                      power_config,
                      run_request,
)
from .limits import AGENT_SILENCE_TIMEOUT_S, QUERY_SILENCE_S, phase_silences, run_deadline
from .plan import RunPlan, plan
from .prepare import Prepared, export_target, input_params, input_plan, prepare
from .timing import PhaseClock
from .validate import Options, check, validate_scenario, validate_spec, validate_telemetry

__all__ = [
    "AGENT_SILENCE_TIMEOUT_S", "PRECISIONS", "QUERY_SILENCE_S", "RUNTIMES", "CapabilityError", "Executed",
    "Options", "PhaseClock", "Prepared", "Progress", "Quiet", "RunPlan", "StartedAgent", "assemble", "check", "execute",
    "export_target", "host_environment", "input_params", "input_plan", "io_summary", "model_rejected", "phase_silences",
    "plan", "power_config", "prepare", "run_deadline", "run_request", "validate_scenario", "validate_spec",
    "validate_telemetry",
]
