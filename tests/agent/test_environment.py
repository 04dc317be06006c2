"""Facts and GPU discovery read the board through the same SysfsRoot and ToolRunner as the probes, so a board
tree under tests/data/boards gives one consistent picture (issue 9: the hardware seam)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent.backends import get_backend
from edgeprof_agent.environment import facts, find_trtexec
from edgeprof_agent.gpus import nvidia_gpus
from edgeprof_agent.messages import Facts
from edgeprof_agent.sysfs import SysfsRoot
from edgeprof_agent.tools import ToolRunner

BOARDS = Path(__file__).resolve().parents[1] / "data" / "boards"


def _tools(tmp_path, *names):
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    for name in names:
        p = bindir / name
        p.write_text("#!/bin/sh\necho fake\n")
        p.chmod(0o755)
    return ToolRunner([str(bindir)], search_path=False)


def test_facts_of_a_jetson_nano_tree(tmp_path):
    f = facts(str(tmp_path), with_runtimes=False, root=SysfsRoot(str(BOARDS / "jetson-nano-jp4")),
              tools=_tools(tmp_path))
    assert isinstance(f, Facts)
    assert f.board_model == "NVIDIA Jetson Nano Developer Kit"
    assert f.l4t.release == "32.7.1" and f.l4t.raw.startswith("# R32 (release), REVISION: 7.1")
    assert f.memory_mb == round(4059272 / 1024.0, 1)
    assert f.os == "Ubuntu 18.04.6 LTS"
    assert f.cpu == "ARMv8 Processor rev 1 (v8l)"
    assert f.gpus == [{"name": "NVIDIA Jetson Nano Developer Kit", "kind": "integrated"}]
    assert f.runtimes is None
    assert Facts.from_dict(json.loads(json.dumps(f.to_dict()))) == f


def test_facts_of_an_orin_tree_and_an_x86_tree_differ_as_the_boards_do(tmp_path):
    tools = _tools(tmp_path)
    orin = facts(None, with_runtimes=False, root=SysfsRoot(str(BOARDS / "orin-nano-jp6")), tools=tools)
    assert orin.l4t.release == "36.3.0" and orin.memory_mb == round(7802112 / 1024.0, 1)
    assert orin.board_model.startswith("NVIDIA Jetson Orin Nano")
    x86 = facts(None, with_runtimes=False, root=SysfsRoot(str(BOARDS / "x86-rapl")), tools=tools)
    assert x86.l4t is None and x86.board_model is None and x86.gpus == []
    assert x86.memory_mb == round(32583944 / 1024.0, 1)


def test_discrete_gpus_under_the_root(tmp_path):
    d = tmp_path / "proc" / "driver" / "nvidia" / "gpus" / "0000:01:00.0"
    d.mkdir(parents=True)
    (d / "information").write_text("Model: \t\t Tesla T4\nIRQ:   \t\t 40\n")
    assert nvidia_gpus(SysfsRoot(str(tmp_path))) == [{"name": "Tesla T4", "kind": "discrete", "bus": "0000:01:00.0"}]
    assert nvidia_gpus(SysfsRoot(str(tmp_path / "proc"))) == []


def test_trtexec_is_found_through_the_tool_runner(tmp_path):
    assert find_trtexec(_tools(tmp_path)) is None
    tools = _tools(tmp_path, "trtexec")
    assert find_trtexec(tools) == str(tmp_path / "bin" / "trtexec")


def test_backends_get_the_seam_explicitly(tmp_path):
    root, tools = SysfsRoot(str(BOARDS / "jetson-nano-jp4")), _tools(tmp_path)
    trt = get_backend("tensorrt", root, tools)
    assert trt.root is root and trt.tools is tools
    assert not hasattr(type(trt), "sysfs_root")  # no side channel left
    for name in ("null", "onnxruntime", "tflite"):
        get_backend(name, root, tools)  # every backend takes the seam


def test_the_agent_reports_the_board_tree_it_was_started_on(tmp_path):
    board = BOARDS / "orin-nano-jp6"
    p = subprocess.Popen([sys.executable, "-m", "edgeprof_agent", "serve", "--workdir", str(tmp_path / "w"),
                          "--sysfs-root", str(board)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        out = p.communicate("\n".join(json.dumps(m) for m in (
            {"id": 1, "op": "hello", "params": {"protocol": PROTOCOL_VERSION}},
            {"id": 2, "op": "facts", "params": {"runtimes": False}})) + "\n", timeout=60)[0]
    finally:
        if p.poll() is None:
            p.kill()
    replies = [json.loads(line) for line in out.splitlines()]
    assert replies[0]["result"]["sysfs_root"] == str(board)
    f = Facts.from_dict(replies[1]["result"])
    assert f.l4t.release == "36.3.0" and f.board_model.startswith("NVIDIA Jetson Orin Nano")
    assert f.memory_mb == round(7802112 / 1024.0, 1)
    assert [g["kind"] for g in f.gpus] == ["integrated"]
    # the power sources come from the same tree: the Orin Nano's INA3221
    assert "jetson-ina3221" in json.dumps(f.power_sources)


def test_host_name_kernel_and_cores_come_from_the_board_tree_when_it_has_them(tmp_path):
    board = tmp_path / "board"
    (board / "proc" / "sys" / "kernel").mkdir(parents=True)
    (board / "proc" / "sys" / "kernel" / "hostname").write_text("jetson-nano-07\n")
    (board / "proc" / "sys" / "kernel" / "osrelease").write_text("4.9.253-tegra\n")
    (board / "sys" / "devices" / "system" / "cpu").mkdir(parents=True)
    (board / "sys" / "devices" / "system" / "cpu" / "online").write_text("0-2,5\n")
    f = facts(None, with_runtimes=False, root=SysfsRoot(str(board)), tools=_tools(tmp_path))
    assert (f.hostname, f.kernel, f.cores) == ("jetson-nano-07", "4.9.253-tegra", 4)
    # a tree without them (or a garbled cpu list) falls back to the running system, as on a real board's "/"
    (board / "sys" / "devices" / "system" / "cpu" / "online").write_text("garbled\n")
    (board / "proc" / "sys" / "kernel" / "hostname").unlink()
    g = facts(None, with_runtimes=False, root=SysfsRoot(str(board)), tools=_tools(tmp_path))
    assert g.cores == os.cpu_count() and g.hostname and g.hostname != "jetson-nano-07"
