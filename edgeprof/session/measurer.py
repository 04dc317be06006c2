"""Measurer: one device kind's way of measuring — the agent over a Transport (agent.py: local, SSH boards), or
LiteRT's benchmark_model over adb (phone.py: phones). Chosen once per device where its session is opened
(session.measurer_for); nothing outside this package asks which one it holds.

Owns: what every measurer offers a DeviceSession: connecting, the device lease (taken for a sweep; a one-off
deploy's where the device has no agent to refuse a run while a sweep holds it), reading the device's facts, its
words in status lines, aborting a running measurement from another thread, what a failure leaves (`after`),
closing. Does not own: the measurement kinds (kinds.py) or their methods (agent.py, phone.py), the sweep (lab/).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from ..records import Device

if TYPE_CHECKING:
    from edgeprof_agent.messages import Facts


class Lease(Protocol):
    """A device lease (edgeprof/agentlink/lease.DeviceLease, phone/lease.PhoneLease): taken, checked, released."""

    token: str | None

    def acquire(self, wait_s: float, stop: threading.Event, on_wait: Callable[[str], None] | None = None) -> Any: ...

    def check(self) -> None: ...

    def release(self) -> None: ...


class Measurer(ABC):
    """One device's measurer (`keep`: for several measurements, see session.DeviceSession). `times` collects the seconds of its own phases (a sweep board's breakdown keys:
    board_agent, board_agent_close); `facts` is the device's facts record, of the measurer's kind."""

    name: ClassVar[str]  # the key measurement kinds list their methods under (kinds.MeasurementKind.methods)
    what: ClassVar[str]  # the measurer in words, for a kind it does not offer
    # status lines while a sweep readies the device
    connecting: ClassVar[str] = "connecting"
    leasing: ClassVar[str] = "taking the device lease"
    reading_facts: ClassVar[str] = "reading device facts"
    stopped_words: ClassVar[str] = "the measurement on the device was stopped"
    # the sweep's overlap: a measurement on this machine keeps exports ahead off the CPUs (`on_this_host`); a
    # remote one lets the board store rows behind and export the next cell ahead (`overlaps`)
    on_this_host: ClassVar[bool] = False
    overlaps: ClassVar[bool] = True

    def __init__(self, device: Device, times: dict[str, float] | None = None, *, keep: bool = True) -> None:
        self.device = device
        self.keep = keep  # kept for several measurements (DeviceSession.keep), or for one
        self.times: dict[str, float] = times if times is not None else {}

    @property
    def connecting_to(self) -> str:
        """The status line while a measurement connects."""
        return f"connecting to {self.device.name}"

    def add_time(self, key: str, seconds: float) -> None:
        self.times[key] = self.times.get(key, 0.0) + seconds

    @property
    @abstractmethod
    def connected(self) -> bool: ...

    @abstractmethod
    def connect(self) -> None:
        """Open the connection to the device (a failure leaves nothing open)."""

    def connected_via(self) -> Any:
        """The open connection (the transport), for a test or a tool that needs it."""
        return None

    @abstractmethod
    def lease(self, holder: dict[str, Any], ttl_s: float) -> Lease:
        """The device lease for `holder` (not taken yet)."""

    def deploy_lease(self, holder: dict[str, Any], wait_s: float, on_wait: Callable[[str], None]) -> Lease | None:
        """A one-off deploy's lease, taken now (waiting up to wait_s, --lease-wait, while another controller holds
        the device; refused at once by default), or None where the device refuses a run itself while a sweep holds
        it (the agent: cli/deploy.py waits on its refusal)."""
        return None

    @abstractmethod
    def read_facts(self, lease: Lease | None, say: Callable[[str], None]) -> Any:
        """The device's facts (under `lease` when one is held), read once per session; timed as the board's
        "board_facts" (and what starts beside it, as its own key: the agent's "board_agent")."""

    def runtime_facts(self, facts: Any) -> Facts | None:
        """`facts` as the agent's Facts where they are those (capability, exports and the store read them)."""
        return None

    def answers(self) -> bool:
        """Whether the device still answers (after a measurement cut short)."""
        return True

    def timed_out(self, e: Exception) -> bool:
        """After the caller's wall-clock bound passed and the measurement raised `e`: whether `e` is that bound
        (the cell is a timed-out row) rather than the device gone."""
        return True

    def after(self, e: BaseException, *, stopped: bool = False) -> None:  # noqa: B027 - optional hook
        """After a measurement raised `e` (`stopped`: it was stopped): drop what cannot serve the next one."""

    def abort(self) -> None:  # noqa: B027 - optional hook
        """From another thread: stop the running measurement (Ctrl-C, a cancelled job, a cell's timeout)."""

    def reset(self) -> None:  # noqa: B027 - optional hook
        """Drop what serves measurements (a kept agent) but keep the connection; started again when needed."""

    @abstractmethod
    def close(self) -> None:
        """Close everything the measurer opened."""

    @classmethod
    def inventory_row(cls, device: Device, power: str) -> list[str]:
        """`edgeprof devices list`'s row: name, address, user, python, workdir, tags, power, via."""
        tags = " ".join(f"{k}={v}" for k, v in device.tags.items()) or "-"
        return [device.name, f"{device.host}:{device.port}", device.user or "(you)", device.python, device.workdir,
                tags, power, f"jump {device.proxy_jump}" if device.proxy_jump else "ssh"]

    check_group: ClassVar[str] = "boards"  # `edgeprof devices check`: whose table the device is checked in
