"""Re-reading a calibration table: the times the board measured kept, every calibration kernel read again by this
edgeprof from the model it was measured on.

A table stores each calibration kernel as the edgeprof that calibrated read it (its key, FLOPs, bytes, calls) beside
the time the board's profiler gave it. When a later edgeprof reads graphs otherwise (round 15: a Slice's bytes are the
part it copies; round 14: every tap of a 1-D convolution), a model predicted from a table calibrated before is read
one way and priced by samples read the other, so the table is to be calibrated again — a night of a board the user
may no longer have. The measurement is the board's, the reading the host's: `reread` keeps the first and renews the
second, without the board (`edgeprof calibrate --reread FILE`).

Owns: `reread(table, cache_dir) -> Reread`. Each generated model is found as calibrate.py wrote it (a file under
cache_dir named `<name>-<sha256[:12]>.onnx`) or is generated again from its name (the seed and index in
`cal-<seed>-<index>-<kind>`, at the opset the table's notes give, else kernels.OPSET; a LiteRT table's one-operator
files: tflite.calibration_files); a bundled reference model is exported as deploy exports it. A candidate is taken
only when every kernel the table stores for that model has a kernel of the same name and output size in it as read
now — the one check that holds whatever the two edgeprofs' readings are, and fails for a model generated otherwise
(kernels.py changed since): such a model is left out of the re-read table, and the notes count it.
Refused in one line: an int8 table (its kernels were read from the quantised files deploy made, which no table keeps:
not supported yet), a table whose fused graphs another onnxruntime read (TableKey.host_ort_version: the fused nodes'
names may differ) or whose files another LiteRT read (its XNNPACK partitions may differ), or one none of whose generated models is found.
Does not own: measuring (calibrate.py), the file (table.py).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import ConfigError, UserError
from .calibrate import model_file, noted_opset
from .graph import Kernel, host_ort_version, kernels
from .kernels import calibration_models
from .table import READING, CalibrationModel, CalibrationTable, MeasuredKernel
from .tflite import GRAPH_LEVEL, calibration_files, host_litert_version, tflite_kernels

__all__ = ["Reread", "reread", "reading_note"]

_NAME = re.compile(r"^cal-(?P<seed>\d+)-(?P<index>\d+)-[a-z0-9]+(?P<dyn>-dyn)?$")
_LITERT_NAME = re.compile(r"^[a-z]+(?P<index>\d+)$")  # tflite.calibration_modules: "<kind><index>", of seed 0

Say = Callable[[int, int, str], None]  # (models done, models in all, label)


@dataclasses.dataclass(frozen=True)
class Reread:
    table: CalibrationTable  # the models whose kernels were read again, and only those
    left_out: tuple[str, ...]  # models not found as they were measured (left out of the table)

    @property
    def reread(self) -> int:
        return len(self.table.models)


def reread(table: CalibrationTable, cache_dir: Path, say: Say | None = None) -> Reread:
    """The table with every model's kernels read again by this edgeprof, their measured times kept (module
    docstring); `say` is called before each model."""
    k = table.key
    if k.precision != "fp32":
        raise ConfigError(f"re-reading a {k.precision} table is not supported yet: its kernels were read from the "
                          f"quantised files deploy made on the calibrating host, which the table does not keep",
                          hint=f"calibrate {k.device_name} again with this edgeprof")
    if k.runtime == "onnxruntime" and k.host_ort_version and k.host_ort_version != host_ort_version():
        raise ConfigError(f"the table's fused graphs were read by onnxruntime {k.host_ort_version}; this host has "
                          f"{host_ort_version()}, whose fused nodes may be named otherwise",
                          hint=f"re-read it where onnxruntime {k.host_ort_version} is installed, or calibrate "
                               f"{k.device_name} again")
    if k.runtime == "tflite" and k.host_litert_version and k.host_litert_version != host_litert_version():
        raise ConfigError(f"the table's files were read by LiteRT {k.host_litert_version}; this host has "
                          f"{host_litert_version()}, whose XNNPACK partitions may differ",
                          hint=f"re-read it where LiteRT {k.host_litert_version} is installed, or calibrate "
                               f"{k.device_name} again")
    finder = _Finder(table, cache_dir)
    out: list[CalibrationModel] = []
    left: list[str] = []
    for i, m in enumerate(table.models):
        if say is not None:
            say(i, len(table.models), m.name)
        found = None
        for ks in finder.candidates(m):
            found = _matched(m, ks)
            if found is not None:
                break
        if found is None:
            left.append(m.name)
            continue
        out.append(found)
    if not any(m.role == "kernels" for m in out):
        raise UserError(f"none of the table's {sum(m.role == 'kernels' for m in table.models)} generated models was "
                        f"found as it was measured (not under {cache_dir}, and generated otherwise by this edgeprof)",
                        hint=f"calibrate {k.device_name} again with this edgeprof")
    when = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    note = (f"re-read by edgeprof {__version__} on {when}: {len(out)} of {len(table.models)} models' kernels read again, "
            f"their measured times kept" + (f"; {len(left)} not found as measured, left out: {', '.join(left[:5])}"
                                           + (" …" if len(left) > 5 else "") if left else ""))
    new = dataclasses.replace(table, models=tuple(out), notes=(*table.notes, note), reading=READING)
    return Reread(table=new, left_out=tuple(left))


def reading_note(table: CalibrationTable, where: str = "FILE") -> str | None:
    """The warning for a prediction from a table read by another reading than this edgeprof's (table.READING);
    None when it is this one's."""
    if table.reading == READING:
        return None
    by = ("an edgeprof from before the readings were numbered" if table.reading == 0 else
          f"reading {table.reading}, {'an older' if table.reading < READING else 'a newer'} edgeprof's")
    fix = (f"edgeprof calibrate --reread {where} reads them again, keeping the board's times" if table.reading <
           READING else "predict with that edgeprof, or upgrade this one")
    return (f"the table's kernels were read by {by}; this edgeprof reads graphs as reading {READING}, and a model's "
            f"kernel read otherwise is priced by samples that do not match it — {fix}")


def _matched(m: CalibrationModel, ks: Sequence[Kernel]) -> CalibrationModel | None:
    """`m` with kernels `ks` (a candidate file as read now) and the stored times, when every stored kernel has one
    of the same name and output size among them (in order, for a name met more than once); None otherwise."""
    by_name: dict[str, list[Kernel]] = {}
    for kk in ks:
        by_name.setdefault(kk.name, []).append(kk)
    used: dict[str, int] = {}
    times: dict[int, float | None] = {}
    for mk in m.kernels:
        n = mk.kernel.name
        j = used.get(n, 0)
        got = by_name.get(n, [])
        if j >= len(got) or abs(got[j].out_elems - mk.kernel.out_elems) > 0.5:
            return None
        used[n] = j + 1
        times[id(got[j])] = mk.us
    if not m.kernels:
        return None
    return dataclasses.replace(m, kernels=tuple(MeasuredKernel(kernel=kk, us=times.get(id(kk))) for kk in ks))


class _Finder:
    """The files a table's models may have been measured on, read as this edgeprof reads them."""

    def __init__(self, table: CalibrationTable, cache_dir: Path) -> None:
        self.table, self.cache_dir = table, cache_dir
        k = table.key
        self.tflite = k.runtime == "tflite" or k.graph_level == GRAPH_LEVEL
        self.level, self.threads = k.graph_level, k.threads
        self.opset = noted_opset(table.notes)
        self.generated: dict[int, dict[str, Any]] = {}  # seed → name → proto (ONNX) or path (LiteRT)

    def candidates(self, m: CalibrationModel) -> Iterator[list[Kernel]]:
        if m.role == "reference":
            yield from self._reference(m.name)
            return
        if self.tflite:
            path = self._generated(m.name)
            if path is not None:
                yield tflite_kernels(path, self.threads)
            return
        files = sorted(self.cache_dir.glob(f"{m.name}-*.onnx")) if self.cache_dir.is_dir() else []
        files = [f for f in files if re.fullmatch(re.escape(m.name) + r"-[0-9a-f]{12}\.onnx", f.name)]
        proto = self._generated(m.name)
        if proto is not None:  # generated again: written under its content name, as calibrate.py writes it
            path = model_file(self.cache_dir, m.name, proto)
            files = [path, *[f for f in files if f != path]]
        for f in files:
            yield kernels(f, {}, self.level)

    def _numbered(self, name: str) -> tuple[int, int] | None:
        """(seed, index) of a generated model's name; None for another name (a dynamically quantised copy)."""
        got = (_LITERT_NAME if self.tflite else _NAME).match(name)
        if got is None or (not self.tflite and got.group("dyn")):
            return None
        return (0 if self.tflite else int(got.group("seed"))), int(got.group("index"))

    def _generated(self, name: str) -> Any:
        """The generated model `name` (an ONNX proto, or a LiteRT table's .tflite path), generated again with every
        model of its seed up to the table's last (each model draws from its own generator: kernels.py)."""
        numbered = self._numbered(name)
        if numbered is None:
            return None
        seed, index = numbered
        have = self.generated.setdefault(seed, {})
        if name not in have:
            want = max([index + 1, *(n[1] + 1 for mm in self.table.models if mm.role == "kernels"
                                     and (n := self._numbered(mm.name)) is not None and n[0] == seed)])
            if self.tflite:
                have.update(dict(calibration_files(seed, self.cache_dir / "tflite", want)))
            else:
                have.update(dict(calibration_models(seed, want, opset=self.opset)))
        return have.get(name)

    def _reference(self, name: str) -> Iterator[list[Kernel]]:
        from .service import model_graph

        try:
            g = model_graph(name, level=self.level, threads=self.threads)
        except UserError:
            return
        yield g.kernels
