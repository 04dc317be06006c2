"""A hostile board on the agent link (issue 14 items 5, 6): a giant line without a newline, an event flood, a
frozen agent — each a one-line error that says what really happened, with real elapsed times, and no stall."""

from __future__ import annotations

import json
import stat
import sys
import textwrap
import time
from pathlib import Path

import pytest

from edgeprof import agentlink
from edgeprof.agentlink import AgentLink
from edgeprof.errors import AgentError, AgentProtocolError, TransportError
from edgeprof.records import Device
from edgeprof.transport import base
from edgeprof.transport.local import LocalTransport, PipeReader
from edgeprof_agent import PROTOCOL_VERSION

HELLO = {"agent_version": "0.1.0", "protocol": PROTOCOL_VERSION, "python": "3.6.9", "pid": 1, "workdir": "/w", "sysfs_root": "/"}


def fake_agent(tmp_path: Path, on_facts: str) -> Device:
    """A device python whose agent answers hello, then does `on_facts` (Python code) on the next request."""
    fake = tmp_path / "fake_agent.py"
    fake.write_text(textwrap.dedent(f"""
        import json, os, sys, time
        for line in sys.stdin:
            req = json.loads(line)
            if req["op"] == "hello":
                hello = dict({HELLO!r}, pid=os.getpid())
                print(json.dumps({{"id": req["id"], "ok": True, "result": hello}}), flush=True)
            elif req["op"] == "shutdown":
                break
            else:
                rid = req["id"]
    """) + textwrap.indent(textwrap.dedent(on_facts), " " * 8))
    py = tmp_path / "python"
    py.write_text(f'#!/bin/sh\nexec {sys.executable} {fake} "$@"\n')
    py.chmod(py.stat().st_mode | stat.S_IEXEC)
    return Device(name="pi", kind="local", python=str(py), workdir=str(tmp_path / "wd"))


def test_a_giant_line_without_newline_is_a_protocol_error_not_a_stall(tmp_path, monkeypatch):
    monkeypatch.setattr(base, "MAX_LINE_BYTES", 1 << 20)
    monkeypatch.setattr(PipeReader.__init__, "__defaults__", (False, None, 1 << 20))
    d = fake_agent(tmp_path, """
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
            sys.stdout.flush()
    """)
    link = AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    started = time.monotonic()
    with pytest.raises(AgentProtocolError) as info:
        link.facts(timeout=30)
    assert time.monotonic() - started < 20
    assert info.value.message.startswith("agent on device pi wrote a line over 1 MiB without a newline during "
                                         "'facts'")
    assert link.proc.poll() is not None  # stopped
    link.close()


def test_an_event_flood_is_named_a_flood(tmp_path, monkeypatch):
    monkeypatch.setattr(agentlink.link, "FLOOD_WINDOW_S", 0.5)
    d = fake_agent(tmp_path, """
        ev = json.dumps({"event": "progress", "phase": "measure", "n": 1})
        while True:
            print(ev, flush=True)
    """)
    link = AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    with pytest.raises(AgentProtocolError) as info:
        link.facts(timeout=30)
    msg = info.value.message
    assert msg.startswith("agent on device pi flooded its output during 'facts': ") and "/s" in msg
    assert "sent nothing" not in msg
    link.close()


def test_silence_reports_the_real_elapsed_time(tmp_path):
    d = fake_agent(tmp_path, """
        print(json.dumps({"event": "progress", "phase": "load"}), flush=True)
        time.sleep(60)
    """)
    link = AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    with pytest.raises(AgentError) as info:
        link.facts(timeout=0.8)
    msg = info.value.message
    # the real silence, not a rounded "1 s"; and what came before it
    assert msg.startswith("agent on device pi sent nothing for 0.8 s during 'facts' (after 1 line in 0.")
    assert "below" not in (info.value.hint or "")
    link.close()


def test_stderr_lines_are_cut_in_the_tail(tmp_path):
    import io

    stream = io.BytesIO(b"a" * (base.STDERR_LINE_CHARS * 3) + b"\nshort\n")
    r = PipeReader(stream, keep_tail=True)
    r.join(5)
    lines = r.tail(100_000).splitlines()
    assert lines == ["a" * base.STDERR_LINE_CHARS + " …", "short"]


def test_real_agent_reply_is_below_the_bound(tmp_path):
    d = Device(name="local", kind="local", python=sys.executable, workdir=str(tmp_path / "wd"))
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac") as link:
        facts = link.facts(runtimes=False)
    assert facts.protocol == PROTOCOL_VERSION == 11
    assert len(json.dumps(facts.to_dict())) < base.MAX_LINE_BYTES


def test_stale_partial_uploads_are_removed_at_connect(tmp_path):
    import os

    wd = tmp_path / "wd"
    (wd / "artifacts").mkdir(parents=True)
    stale = [wd / "agent-abc.pyz.part-0011", wd / "artifacts" / "f00.onnx.part-aabb"]
    fresh = wd / "artifacts" / "f01.onnx.part-ccdd"  # another controller's upload, still being written
    keep = wd / "artifacts" / "notes.part"  # not ours
    for p in (*stale, fresh, keep):
        p.write_bytes(b"x" * 100)
    old = time.time() - 3600
    for p in (*stale, keep):
        os.utime(p, (old, old))
    d = Device(name="local", kind="local", python=sys.executable, workdir=str(wd))
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac"):
        pass
    assert not any(p.exists() for p in stale)
    assert fresh.exists() and keep.exists()


class _CutTransport(LocalTransport):
    """Writes half the file, then the connection is cut (or the user presses Ctrl-C)."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__("pi")
        self.exc = exc

    def put_file(self, local_path: str, remote_path: str) -> int:
        with open(local_path, "rb") as src, open(remote_path, "wb") as dst:
            dst.write(src.read(10))
        raise self.exc


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), TransportError("pi: connection lost")])
def test_a_failed_upload_leaves_no_partial_file(tmp_path, exc):
    src = tmp_path / "model.onnx"
    src.write_bytes(b"y" * 1000)
    dest = tmp_path / "board"
    dest.mkdir()
    with pytest.raises(type(exc)):
        agentlink.push_file(_CutTransport(exc), src, str(dest / "model.onnx"), agentlink.sha256_file(src))
    assert list(dest.iterdir()) == []


@pytest.mark.parametrize(("code", "word"), [("ENOSPC", "full"), ("EROFS", "read-only")])
def test_a_full_or_read_only_board_disk_is_named(tmp_path, code, word):
    from edgeprof_agent.messages import LeaseRequest

    # the real agent, on a board whose disk refuses writes in the workdir
    wrapper = tmp_path / "python-disk"
    wrapper.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import errno, os, sys
        sys.path.insert(0, sys.argv[1])
        from edgeprof_agent import lease
        def refuse(path, flags, mode=0o777):
            raise OSError(errno.{code}, os.strerror(errno.{code}), path)
        lease.os.open = refuse
        sys.argv = sys.argv[1:]
        from edgeprof_agent.__main__ import main
        sys.exit(main())
    """))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    wd = tmp_path / "wd"
    d = Device(name="pi", kind="local", python=str(wrapper), workdir=str(wd))
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac") as link:
        with pytest.raises(AgentError) as info:
            link.request(LeaseRequest(holder={"controller": "c"}, ttl_s=60))
    e = info.value
    assert e.message == f"device pi: the board's disk is {word} at {wd}"
    assert "bug" not in e.one_line()


def test_a_server_closing_before_the_banner_is_not_called_a_timeout(tmp_path):
    import socket
    import threading

    from edgeprof.errors import TransportError
    from edgeprof.transport.ssh import SSHTransport

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    port = srv.getsockname()[1]

    def close_at_once() -> None:
        conn, _ = srv.accept()
        conn.sendall(b"not ssh\r\n" * 3)
        time.sleep(0.3)
        conn.close()

    threading.Thread(target=close_at_once, daemon=True).start()
    dev = Device(name="pi5", host="127.0.0.1", port=port, connect_timeout=10)
    started = time.monotonic()
    try:
        with pytest.raises(TransportError) as info:
            SSHTransport(dev, user_known_hosts=str(tmp_path / "kh")).connect()
    finally:
        srv.close()
    assert time.monotonic() - started < 8
    msg = info.value.message
    assert "timed out" not in msg
    assert msg.startswith(f"device pi5 (127.0.0.1:{port}): the server closed the connection after 0.")



PARAMIKO_QUIET = """
import socket, sys, threading, time
from edgeprof.errors import TransportError
from edgeprof.records import Device
from edgeprof.transport.ssh import SSHTransport
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(5); port = srv.getsockname()[1]
def close_at_once():
    c, _ = srv.accept(); c.sendall(b"not ssh\\r\\n" * 3); time.sleep(0.3); c.close()
threading.Thread(target=close_at_once, daemon=True).start()
try:
    SSHTransport(Device(name="pi", host="127.0.0.1", port=port, connect_timeout=5),
                 user_known_hosts=sys.argv[1]).connect()
except TransportError as e:
    print(e.message)
time.sleep(0.5)
"""


def test_paramikos_thread_prints_no_traceback(tmp_path):
    import subprocess

    # a process of its own: logging as edgeprof's CLI has it (pytest's log capture would hide the difference)
    p = subprocess.run([sys.executable, "-c", PARAMIKO_QUIET, str(tmp_path / "kh")], capture_output=True,
                       text=True, timeout=60)
    assert "the server closed the connection" in p.stdout
    assert "Traceback" not in p.stderr and "Exception (client)" not in p.stderr, p.stderr


@pytest.mark.parametrize("reply", [
    '"[" * 200000',  # nested past the JSON parser's depth
    'json.dumps([1, 2, 3])',  # a list, not an object
    'json.dumps({"id": rid, "ok": False, "error": "boom"})',  # a string error
    'json.dumps({"id": rid, "ok": True, "result": {"samples_ns": "fast"}})',  # not a facts record
])
def test_malformed_replies_are_one_line_protocol_errors(tmp_path, reply):
    d = fake_agent(tmp_path, f"""
        print({reply}, flush=True)
        time.sleep(30)
    """)
    link = AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac")
    with pytest.raises(AgentProtocolError) as info:
        link.facts(timeout=20)
    assert "\n" not in info.value.one_line()
    assert info.value.message.startswith(("agent on device pi printed a non-protocol line",
                                          "malformed reply from the agent on device pi"))
    link.close()


def test_an_agent_frozen_mid_measurement_is_found_in_the_phase_s_silence_not_600_s(tmp_path, monkeypatch,
                                                                                  capsys):
    """The run's phases set how long a silence may be (runner.phase_silences): measuring sends progress between
    queries, so an agent that stops there is found in QUERY_SILENCE_S, while loading may still take 600 s."""
    from edgeprof.cli.main import main
    from edgeprof.run import limits as runner

    monkeypatch.setattr(runner, "QUERY_SILENCE_S", 1.5)
    d = fake_agent(tmp_path, """
        if req["op"] == "facts":
            facts = {"hostname": "pi", "arch": "aarch64", "cpu": "Cortex-A76", "os": "Debian 12", "kernel": "6.6",
                     "python": "3.11.2", "python_executable": "/usr/bin/python3", "agent_version": "0.1.0",
                     "protocol": 2, "gpus": []}
            print(json.dumps({"id": rid, "ok": True, "result": facts}), flush=True)
        else:
            for phase in ("load", "warmup", "measure"):
                print(json.dumps({"event": "progress", "phase": phase}), flush=True)
            time.sleep(3600)  # frozen in the timed loop
    """)
    monkeypatch.setattr("edgeprof.cli.deploy.resolve_device", lambda name, inventory: d)
    started = time.monotonic()
    code = main(["deploy", "--device", "pi", "--model", "gemm", "--runtime", "null", "--no-store", "--quiet"])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code != 0 and elapsed < 30, (elapsed, err)
    assert "agent on device pi sent nothing for 1." in err and "during 'run'" in err, err


CHATTY_RUN = """
        if req["op"] == "facts":
            facts = {"hostname": "pi", "arch": "x86_64", "cpu": "x", "os": "Debian 12", "kernel": "6.6",
                     "python": "3.11.2", "python_executable": "/usr/bin/python3", "agent_version": "0.1.0",
                     "protocol": 2, "gpus": []}
            print(json.dumps({"id": rid, "ok": True, "result": facts}), flush=True)
        else:
            print(json.dumps({"event": "progress", "phase": "load"}), flush=True)
            t0, n = time.monotonic(), 0
            while True:  # progress every 0.1 s, forever: never silent, never a flood, never done
                n += STEP
                print(json.dumps({"event": "progress", "phase": "measure", "elapsed_s": time.monotonic() - t0,
                                  "total_s": 0.5, "n": n, "min_queries": 5}), flush=True)
                time.sleep(0.1)
"""


@pytest.mark.ssh
@pytest.mark.parametrize(("step", "which"), [
    (1, "past the end its own progress reported in 'measure'"),  # says it is done, and goes on
    (0, "past the longest its 'measure' phase may take"),  # never gets anywhere, and says so forever
])
def test_an_agent_that_keeps_sending_progress_is_stopped_at_the_runs_deadline(sshd_hosts, tmp_path, monkeypatch,
                                                                              capsys, step, which):
    """Issue 14 item 5: a watchdog that works while events keep arriving. Over loopback sshd, an agent sending
    progress every 0.1 s forever (below the flood rate, never silent) is stopped at the deadline derived from
    the run's settings, in one line naming the real elapsed time."""
    from edgeprof.cli.main import main
    from edgeprof.run import limits as runner

    monkeypatch.setattr(runner, "QUERY_SILENCE_S", 2.0)  # a query may take 2 s: the bounds below are seconds
    host = sshd_hosts.start_host("chatty")
    d = fake_agent(tmp_path, CHATTY_RUN.replace("STEP", str(step)))
    dev = sshd_hosts.device(host, "pi", python=d.python,
                            known_hosts=str(sshd_hosts.known_hosts(tmp_path / "kh", host)))
    monkeypatch.setattr("edgeprof.cli.deploy.resolve_device", lambda name, inventory: dev)
    started = time.monotonic()
    code = main(["deploy", "--device", "pi", "--model", "gemm", "--runtime", "null", "--no-store", "--quiet",
                 "--min-duration", "0.5", "--min-queries", "5", "--warmup", "0"])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code != 0 and elapsed < 30, (elapsed, err)
    assert "agent on device pi was still in 'run', phase 'measure' after " in err and which in err, err
    said = float(err.split("phase 'measure' after ")[1].split(" s,")[0])
    assert 0.5 < said <= elapsed, (said, elapsed)  # the real time it ran, not a configured number
    assert "it kept sending output" in err and "sent nothing" not in err and "Traceback" not in err, err
    # the measure phase's bound: min(max(0.5 + 2, 5 × 2), max_queries × 2) + 2 = 12 s; the settle rule: 2 s
    assert (11 < said < 16) if step == 0 else (2 < said < 6), said


@pytest.mark.parametrize("over", ["local", "ssh"])
def test_a_board_workdir_on_a_really_full_disk_is_named(tmp_path, monkeypatch, capsys, request, over):
    """Issue 14 item 9: the board's workdir on a full (tmpfs) disk. Pushing the agent fails there: one line,
    "the board's disk is full at <workdir>" (a local copy says ENOSPC; SFTP says only "Failure", so the board is
    asked how much room is left), not a traceback nor a transport error to retry."""
    from test_store_faults import fill, small_tmpfs

    from edgeprof.cli.main import main

    with small_tmpfs(tmp_path / "board") as disk:
        wd = disk / "wd"
        (wd / "artifacts").mkdir(parents=True)
        fill(disk)
        if over == "ssh":
            lab = request.getfixturevalue("sshd_hosts")
            host = lab.start_host("full")
            dev = lab.device(host, "pi", python=sys.executable, workdir=str(wd),
                             known_hosts=str(lab.known_hosts(tmp_path / "kh", host)))
        else:
            dev = Device(name="pi", kind="local", python=sys.executable, workdir=str(wd))
        monkeypatch.setattr("edgeprof.cli.deploy.resolve_device", lambda name, inventory: dev)
        code = main(["deploy", "--device", "pi", "--model", "gemm", "--runtime", "null", "--no-store", "--quiet"])
        err = capsys.readouterr().err
        assert code != 0 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert err.startswith(f"edgeprof: error: device pi: the board's disk is full at {wd}"), err
        assert "bug" not in err and "retry" not in err, err
        assert [p.name for p in wd.iterdir()] == ["artifacts"]  # no partial upload left behind


def test_a_request_without_progress_is_bounded_whole_by_its_timeout(tmp_path):
    """Only a run sends progress: an agent answering `facts` with events forever (never silent, never a flood)
    is stopped at twice the request's timeout in all, not kept alive by each event."""
    d = fake_agent(tmp_path, """
        while True:
            print(json.dumps({"event": "progress", "phase": "measure", "n": 1}), flush=True)
            time.sleep(0.1)
    """)
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac") as link:
        started = time.monotonic()
        with pytest.raises(AgentError) as info:
            link.facts(timeout=1.5)
        elapsed = time.monotonic() - started
    msg = info.value.message
    assert elapsed < 10, elapsed
    assert msg.startswith("agent on device pi was still in 'facts', phase 'measure' after 3."), msg
    assert "past its deadline of 3 s (twice its timeout: no progress is sent during 'facts')" in msg, msg
    assert "it kept sending output" in msg, msg
