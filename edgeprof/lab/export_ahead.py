"""Exports prepared ahead: while a board's cell measures on another machine, the sweep exports the model of that
board's next cell, so that cell finds its artifact in the export cache instead of exporting on its own time.

Owns: when an export ahead may run (`HostUse`: never while a cell measures on this machine, a `local` device,
whose measurement would share the CPU with it; a local cell about to measure waits for a running one to end),
and the thread that runs one (`ExportAhead`: it waits for the board's current cell to reach its measurement, then
exports through the sweep's export_for, which exports once per distinct export and one at a time). What it did
is kept (`done`: cell id, seconds, whether it exported or found the export done) for the sweep's summary; its
time is not a board phase, since it overlaps a measurement. An export ahead that fails leaves nothing: the cell
exports again on its own path and fails there with the error, as before.
Does not own: exporting (scheduler.export_for → run.prepare), the order of a board's cells (scheduler.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .cell import Cell


@dataclass(frozen=True)
class Ahead:
    cell_id: str
    seconds: float
    exported: bool  # False: the export was done already (an earlier cell's, the cache), or it failed


class HostUse:
    """Who is using this machine's CPUs for the sweep: local cells measuring, exports running ahead. Each
    waits for the other kind to finish."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._local = 0
        self._ahead = 0

    def local_begins(self) -> None:
        with self._cond:
            while self._ahead:
                self._cond.wait()
            self._local += 1

    def local_ends(self) -> None:
        with self._cond:
            self._local = max(0, self._local - 1)
            self._cond.notify_all()

    def ahead_begins(self, give_up: threading.Event) -> bool:
        """Wait until no local cell measures; False when `give_up` is set first."""
        with self._cond:
            while self._local:
                if give_up.is_set():
                    return False
                self._cond.wait(0.2)
            if give_up.is_set():
                return False
            self._ahead += 1
            return True

    def ahead_ends(self) -> None:
        with self._cond:
            self._ahead = max(0, self._ahead - 1)
            self._cond.notify_all()


class ExportAhead:
    """One export ahead: `measuring()` when the board's current cell starts measuring, `join()` when that cell
    ended (the next cell starts after it, finding the export in the cache)."""

    def __init__(self, cell: Cell, export: Callable[[Cell], bool], host: HostUse, stop: threading.Event,
                 done: list[Ahead], lock: threading.Lock) -> None:
        self.cell = cell
        self._export = export
        self._host = host
        self._stop = stop
        self._done = done
        self._lock = lock
        self._go = threading.Event()
        self._ended = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"export-ahead-{cell.device}", daemon=True)
        self._thread.start()

    def measuring(self) -> None:
        self._go.set()

    def join(self) -> None:
        self._ended.set()
        self._go.set()
        self._thread.join()

    def _run(self) -> None:
        self._go.wait()
        if self._ended.is_set() or self._stop.is_set():  # the cell ended before it measured: nothing to overlap
            return
        if not self._host.ahead_begins(self._ended):
            return
        t0 = time.monotonic()
        try:
            exported = self._export(self.cell)
        except Exception:  # the cell's own export meets it again and says it there
            exported = False
        finally:
            self._host.ahead_ends()
        with self._lock:
            self._done.append(Ahead(self.cell.cell_id, time.monotonic() - t0, exported))
