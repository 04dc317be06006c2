"""Issue 35 items 3-5 through the CLI: a plain deploy on a board a running sweep holds ends in one line naming the
holder, since when, and `--lease-wait` (which then waits for it); untrusted names never reach the terminal raw."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sshd import SSHHost, SSHLab
from test_ssh_cli import write_inventory

from edgeprof.cli.main import main

pytestmark = pytest.mark.ssh

REPO = Path(__file__).resolve().parents[2]

# another process holding the board's lease exactly as a running sweep's agent does (agents/edgeprof_agent/lease.py)
HOLDER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[1] + "/agents")
    from edgeprof_agent.lease import Lease
    lz = Lease(sys.argv[2], on_expire=lambda: None)
    got = lz.acquire({"controller": "lab-ci", "sweep_id": "sw-20261205-nightly", "purpose": "sweep"}, ttl_s=600)
    assert got["acquired"], got
    print("held", flush=True)
    time.sleep(float(sys.argv[3]))
    lz.release()
""")


def hold(workdir: str, seconds: float) -> subprocess.Popen[str]:
    Path(workdir).mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(REPO), workdir, str(seconds)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def deploy(inv: Path, name: str, *extra: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["deploy", "--device", name, "--inventory", str(inv), "--model", "ds_cnn", "--runtime", "null",
                 "--no-store", "--min-duration", "0.1", "--min-queries", "5", "--warmup", "0", *extra])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_deploy_on_a_leased_board_is_one_line_then_lease_wait_waits(sshd_hosts: SSHLab, client_home: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    host: SSHHost = sshd_hosts.start_host("leased")
    inv = write_inventory(client_home.parent / "devices.yaml", sshd_hosts, [host],
                          known_hosts=str(sshd_hosts.known_hosts(client_home.parent / "kh", host)))
    holder = hold(host.workdir, 600)
    try:
        code, out, err = deploy(inv, "leased", capsys=capsys)
    finally:
        holder.kill()
        holder.wait()
    assert code == 2, err
    assert "Traceback" not in err and "BlockingIOError" not in err and "OpError" not in err, err
    lines = err.rstrip("\n").splitlines()  # progress lines (stderr is not a terminal), then the one line
    assert [ln for ln in lines if ln.startswith("edgeprof: error:")] == lines[-1:], err
    assert re.fullmatch(r"edgeprof: error: device leased is leased by sw-20261205-nightly from lab-ci "
                        r"since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d — edgeprof deploy --lease-wait TIME \(e\.g\. 30m\) "
                        r"waits for it", lines[-1]), lines[-1]

    holder = hold(host.workdir, 3)  # released after 3 s: --lease-wait 60 waits, then measures
    try:
        t0 = time.monotonic()
        code, out, err = deploy(inv, "leased", "--lease-wait", "60", capsys=capsys)
        waited = time.monotonic() - t0
    finally:
        holder.kill()
        holder.wait()
    assert code == 0, err
    assert "sw-20261205-nightly" in err and waited >= 2.0, err
