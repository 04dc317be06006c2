"""deploy(): one RunSpec measured on one device session, the Result returned; its caller stores it (cli/deploy.py,
the sweep's board), so a failure never leaves half a run in the database and there is one saving path.

Owns: handing a spec to a DeviceSession (a Device opens a one-off one). Does not own: the measurement kinds and
their methods (kinds.py, agent.py, phone.py), the forward-pass pipeline (run/), storing (store/).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..records import Device, Result, RunSpec
from .kinds import Job
from .session import DeviceSession

if TYPE_CHECKING:
    from ..run import Options, Progress


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
    from ..run import Quiet  # the pipeline loads when a measurement is made, not with the seam

    job = Job(progress or Quiet(), options=options, checked=checked, cache_dir=cache_dir)
    if isinstance(session, DeviceSession):
        return session.measure(spec, job)
    with DeviceSession(session, keep=False) as one_off:
        return one_off.measure(spec, job)
