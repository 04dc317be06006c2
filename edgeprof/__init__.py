"""edgeprof — edge and mobile inference profiler (host side).

Owns: the host controller (inventory, export, transport, run orchestration, statistics, storage, reports).
Does not own: anything that runs on a device; that is the `edgeprof_agent` package in `agents/`.
"""

__version__ = "0.1.0"
