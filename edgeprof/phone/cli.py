"""`edgeprof deploy --device PHONE`: what a phone refuses (one line), the phone's lease for the run, one
measurement (measure.py) → the Result, which cli/deploy.py writes, stores and prints like a board's."""

from __future__ import annotations

import argparse
import threading
import time

from ..errors import ConfigError
from ..records import Device, Result, RunSpec
from .measure import refusal

DEPLOY_HINT = "wait for that sweep to finish, or measure another phone"


def deploy_phone(args: argparse.Namespace, spec: RunSpec, device: Device) -> Result:
    """Measure `spec` on the phone under its lease (refused at once when another controller holds it)."""
    from ..cli.ui import err
    from ..lab.ledger import controller_name
    from .device import open_adb
    from .lease import PhoneLease
    from .measure import measure

    reason = refusal(spec, runtime_given=args.runtime, find_max_rate=bool(getattr(args, "find_max_rate", False)))
    if reason is not None:
        raise ConfigError(f"device {device.name}: {reason}")
    say = (lambda s: None) if args.quiet else (lambda s: err.print(s))
    say(f"connecting to {device.name} over adb")
    t0 = time.monotonic()
    transport = open_adb(device)
    lease = PhoneLease(transport, device.name, device.workdir,
                       {"controller": controller_name(), "purpose": "deploy"})
    lease.acquire(0.0, threading.Event(), hint=DEPLOY_HINT)
    try:
        result, _ = measure(spec, device, transport, say=say, connect_s=time.monotonic() - t0)
    finally:
        lease.release()
    return result
