"""A board that heats up: a copy of a tests/data/boards tree whose thermal zones rise with time and whose cpufreq
steps down past a trip point, written on a schedule by a thread while a run goes on.

The schedule (seconds from start()): every zone reads t0_c + rise_c_per_s * t until plateau_c, then stays there;
every cpufreq policy's scaling_cur_freq reads high_khz until trip_s, then low_khz. Files are replaced atomically
(os.replace), as a reader of sysfs sees one value or the other, never half a write. So a sustained run over it has
a known onset (the window holding trip_s), a known temperature then, and a known steady state (from the first
window after both the trip and the plateau).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

BOARDS = Path(__file__).resolve().parents[2] / "data" / "boards"


class HeatingBoard:
    def __init__(self, dest: Path, tree: str = "rpi5", *, t0_c: float = 50.0, rise_c_per_s: float = 3.0,
                 plateau_c: float = 68.0, high_khz: int = 2400000, low_khz: int = 1200000, trip_s: float = 5.0,
                 tick_s: float = 0.05, copy: bool = True) -> None:
        self.dir = Path(dest)
        if copy:
            shutil.copytree(BOARDS / tree, self.dir, symlinks=True)
        self.t0_c, self.rise, self.plateau_c = t0_c, rise_c_per_s, plateau_c
        self.high_khz, self.low_khz, self.trip_s, self.tick_s = high_khz, low_khz, trip_s, tick_s
        self.zones = sorted((self.dir / "sys/class/thermal").glob("thermal_zone*/temp"))
        self.freqs = sorted((self.dir / "sys/devices/system/cpu/cpufreq").glob("policy*/scaling_cur_freq"))
        assert self.zones and self.freqs, f"{self.dir} has no thermal zone or cpufreq policy"
        self.t_start: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.write(0.0)

    def temp_c(self, t: float) -> float:
        return min(self.t0_c + self.rise * t, self.plateau_c)

    def khz(self, t: float) -> int:
        return self.high_khz if t < self.trip_s else self.low_khz

    def write(self, t: float) -> None:
        for path, text in ([(z, f"{int(round(self.temp_c(t) * 1000))}\n") for z in self.zones]
                           + [(f, f"{self.khz(t)}\n") for f in self.freqs]):
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(text)
            os.replace(tmp, path)

    def start(self) -> HeatingBoard:
        """Start the schedule now (t = 0)."""
        self.t_start = time.perf_counter()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def _loop(self) -> None:
        assert self.t_start is not None
        while not self._stop.is_set():
            self.write(time.perf_counter() - self.t_start)
            self._stop.wait(self.tick_s)
