"""Section: the base of every typed part of a Result, its JSON in / out, and the host behaviour of the sections
rendered from the agent's records (wire_sections.py).

Owns: Section (to_dict, the strict from_dict naming an unknown or missing field, from_record: a section holding
what the agent sent), the helpers every section module uses (_opt, _keyed, _many, _plain) and the mixins that give a rendered
section its host-only reads (ThermalSnapshotReads). Does not own: any section's fields (sections.py,
wire_sections.py and the section modules beside them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from edgeprof_agent.messages import Record

from ..errors import StoreError
from .samples import Samples
from .spec import Artifact

if TYPE_CHECKING:
    from .wire_sections import RpiState, RpiThrottled

_S = TypeVar("_S", bound="Section")


@dataclass(frozen=True)
class Section:
    """A typed part of a Result: JSON out with `to_dict`, in with `from_dict`, which names an unknown field.

    Inner shapes that belong to a probe (a thermal snapshot's zones, a fidelity output row) stay plain JSON
    data inside a typed field. A field left out of the JSON takes its default (None for measurements the
    producer did not make)."""

    SECTION: ClassVar[str] = "section"
    OMIT_NONE: ClassVar[bool] = False  # to_dict leaves out None fields (a probe's record: absent stays absent)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(v) for f in dataclasses.fields(self)
                if (v := getattr(self, f.name)) is not None or not self.OMIT_NONE}

    @classmethod
    def from_dict(cls: type[_S], d: Mapping[str, Any]) -> _S:
        if not isinstance(d, Mapping):
            raise StoreError(f"result section {cls.SECTION!r} is a {type(d).__name__}, not a mapping",
                             hint="the result JSON is damaged; rerun the measurement")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise StoreError(f"result section {cls.SECTION!r} has unknown field(s) {', '.join(map(repr, unknown))}",
                             hint="it was written by another edgeprof version; upgrade edgeprof to read it")
        missing = [f.name for f in dataclasses.fields(cls) if f.name not in d
                   and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        if missing:
            raise StoreError(f"result section {cls.SECTION!r} lacks field(s) {', '.join(map(repr, missing))}",
                             hint="the result JSON is damaged; rerun the measurement")
        return cls(**dict(d))

    @classmethod
    def from_record(cls: type[_S], record: Record, **extra: Any) -> _S:
        """The section holding what the agent sent: the wire `record`'s JSON (a section of wire_sections.py has
        the record's fields, rendered from them) with `extra`, the host-only fields, set as JSON data too."""
        return cls.from_dict({**record.to_dict(), **extra})


def _opt(cls: type[_S], v: Any) -> _S | None:
    return None if v is None else cls.from_dict(v)


def by_kind(d: Any, section: str, kinds: Mapping[str, type[Any]]) -> Any:
    """A section whose JSON names its record by `kind` (`kinds`: kind → record class): null, or that record;
    anything else is refused in one line (damaged JSON, or a kind another edgeprof version wrote)."""
    if d is None:
        return None
    if not isinstance(d, Mapping):
        raise StoreError(f"result section {section!r} is a {type(d).__name__}, not a mapping",
                         hint="the result JSON is damaged; rerun the measurement")
    cls = kinds.get(d.get("kind"))  # type: ignore[arg-type]
    if cls is None:
        raise StoreError(f"result section {section!r} has kind {d.get('kind')!r}, not one of "
                         f"{', '.join(map(repr, kinds))}",
                         hint="it was written by another edgeprof version; upgrade edgeprof to read it")
    return cls.from_dict(d)


def _keyed(cls: type[_S], v: Any) -> dict[str, _S] | None:
    """An object of sections by name (a snapshot's zones), or None."""
    if v is None:
        return None
    if not isinstance(v, Mapping):
        raise StoreError(f"result section {cls.SECTION!r} holds a {type(v).__name__}, not an object by name",
                         hint="the result JSON is damaged; rerun the measurement")
    return {k: cls.from_dict(x) for k, x in v.items()}


def _many(cls: type[_S], v: Any) -> list[_S] | None:
    """A list of sections (a snapshot's NVML GPUs), or None."""
    if v is None:
        return None
    if not isinstance(v, list):
        raise StoreError(f"result section {cls.SECTION!r} holds a {type(v).__name__}, not a list",
                         hint="the result JSON is damaged; rerun the measurement")
    return [cls.from_dict(x) for x in v]


def _plain(v: Any) -> Any:
    if isinstance(v, Section | Artifact):
        return v.to_dict()
    if isinstance(v, Samples):
        return v.tolist()
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


class ThermalSnapshotReads:
    """What the host reads out of a thermal snapshot's probe data (wire_sections.ThermalSnapshot's base)."""

    rpi: RpiState | None

    @property
    def rpi_throttled(self) -> RpiThrottled | None:
        """The Raspberry Pi's get_throttled bits (raw, now, has_occurred, ...; None: not a Pi, or not read)."""
        return self.rpi.throttled if self.rpi else None
