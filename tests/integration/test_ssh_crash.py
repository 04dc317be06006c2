"""A native crash over SSH (issue 10 item 4): sshd reports exit-signal, which paramiko gives as -1; faulthandler's
"Fatal Python error: Segmentation fault" in the agent's stderr names the signal, the device's facts the version."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import onnxruntime
import pytest
from sshd import SSHHost, SSHLab

from edgeprof import session as seam
from edgeprof.errors import AgentCrashed
from edgeprof.records import RunSpec
from edgeprof.session import DeviceSession
from edgeprof.transport.ssh import SSHTransport

pytestmark = pytest.mark.ssh

WRAPPER = """#!{python}
import sys
sys.path.insert(0, sys.argv[1])
from edgeprof_agent.backends import ort
def run(self):
    import ctypes
    ctypes.string_at(0)
ort.Backend.run = run
sys.argv = sys.argv[1:]
from edgeprof_agent.__main__ import main
sys.exit(main())
"""


def test_segfault_over_ssh_names_signal_runtime_version_and_keeps_the_stack(sshd_hosts: SSHLab,
                                                                            tmp_path: Path) -> None:
    from test_agent_crash import write_model

    host: SSHHost = sshd_hosts.start_host("nano", workdir=str(tmp_path / "board" / "edgeprof"))
    python = tmp_path / "python-crash"
    python.write_text(WRAPPER.format(python=sys.executable))
    python.chmod(python.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    kh = sshd_hosts.known_hosts(tmp_path / "known_hosts", host)
    dev = sshd_hosts.device(host, python=str(python))
    model = write_model(tmp_path / "m.onnx")
    spec = RunSpec(device=dev.name, model=str(model), runtime="onnxruntime", min_duration_s=0.2, min_queries=5,
                   warmup_s=0.0)
    with SSHTransport(dev, user_known_hosts=str(kh)) as t, pytest.raises(AgentCrashed) as info:
        seam.deploy(spec, DeviceSession(dev, keep=False, transport=t), cache_dir=tmp_path / "cache")
    e = info.value
    assert e.message == (f"device {dev.name}: the agent crashed with SIGSEGV in onnxruntime "
                         f"{onnxruntime.__version__} during 'run'")
    assert "Fatal Python error: Segmentation fault" in (e.detail or "")
