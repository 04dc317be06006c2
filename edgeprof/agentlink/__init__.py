"""The link between host and device agent, one module per responsibility (every name re-exported here but lease.py's):

  bundle.py    the agent zipapp (deterministic, named by its sha256)
  push.py      files on the device by content (verified, renamed into place; full or read-only disks named)
  link.py      AgentLink: start, handshake, typed JSON-lines calls with silences and deadlines
  kept_agent.py KeptAgent: one agent kept for several measurements (a sweep's board, --find-max-rate's probes)
  lease.py     DeviceLease: the lease-holding agent on a board (a sweep's lock); KeptLease, what a phone's lease
               (phone/lease.py) shares with it
  deadline.py  RunDeadline, the watchdog on a whole request
  failures.py  what a dead agent or bad samples mean (crash_signal, check_samples); runtime_version is
               capability.py's (re-exported)
Does not own: what a run measures (agent) or what the host does with the answer (run/).
"""

from __future__ import annotations

from ..capability import runtime_version
from .bundle import build_agent, build_agent_bytes
from .deadline import RunDeadline
from .failures import check_samples, crash_signal
from .kept_agent import KeptAgent
from .link import FLOOD_LINES_PER_S, FLOOD_WINDOW_S, PROTOCOL_VERSION, AgentLink, Event, EventSink
from .push import ensure_workdir, push_file, remote_sha256, sha256_file

__all__ = [
    "FLOOD_LINES_PER_S", "FLOOD_WINDOW_S", "PROTOCOL_VERSION", "AgentLink", "Event", "EventSink", "KeptAgent",
    "RunDeadline",
    "build_agent", "build_agent_bytes", "check_samples", "crash_signal", "ensure_workdir", "push_file",
    "remote_sha256", "runtime_version", "sha256_file",
]
