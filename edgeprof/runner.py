"""The names edgeprof.runner has always exported, now homes in edgeprof/run/ (one measurement: check → plan →
execute → assemble). New code imports from edgeprof.run.

Owns: nothing but these re-exports. Does not own: anything else (see edgeprof/run/__init__.py).
"""

from __future__ import annotations

from .run import (
    PRECISIONS,
    QUERY_SILENCE_S,
    RUNTIMES,
    CapabilityError,
    Prepared,
    Progress,
    deploy,
    export_target,
    host_environment,
    input_params,
    input_plan,
    phase_silences,
    prepare,
    run_deadline,
    run_request,
    validate_scenario,
    validate_spec,
    validate_telemetry,
)

__all__ = [
    "PRECISIONS", "QUERY_SILENCE_S", "RUNTIMES", "CapabilityError", "Prepared", "Progress", "deploy",
    "export_target", "host_environment", "input_params", "input_plan", "phase_silences", "prepare", "run_deadline",
    "run_request", "validate_scenario", "validate_spec", "validate_telemetry",
]
