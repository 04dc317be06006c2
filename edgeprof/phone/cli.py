"""`edgeprof deploy --device PHONE`: what a phone refuses (one line), the phone's lease for the run, one
measurement (measure.py) → the Result, which cli/deploy.py writes, stores and prints like a board's."""

from __future__ import annotations

import argparse
import threading
import time

from ..errors import ConfigError
from ..records import Device, Result, RunSpec
from .measure import refusal


def deploy_phone(args: argparse.Namespace, spec: RunSpec, device: Device, lease_wait_s: float = 0.0) -> Result:
    """Measure `spec` on the phone under its lease (waiting up to lease_wait_s, --lease-wait, while another
    controller holds it; refused at once by default)."""
    from ..cli.ui import err
    from ..lab.lease import DEPLOY_HINT
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
    hint = "a longer --lease-wait waits for it, or measure another phone" if lease_wait_s > 0 else DEPLOY_HINT
    lease.acquire(lease_wait_s, threading.Event(), on_wait=lambda who: say(f"waiting for the lease: {who}"),
                  hint=hint)
    try:
        result, _ = measure(spec, device, transport, say=say, connect_s=time.monotonic() - t0)
    finally:
        lease.release()
    return result
