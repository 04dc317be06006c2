"""`edgeprof devices list | check | trust` end to end against real sshd hosts, through devices.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sshd import SSHHost, SSHLab

from edgeprof.cli.main import main
from edgeprof.store import Store

pytestmark = pytest.mark.ssh


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def device_yaml(lab: SSHLab, host: SSHHost, name: str | None = None, **extra: str) -> str:
    lines = [f"  {name or host.name}:", "    host: 127.0.0.1", f"    port: {host.port}", f"    user: {lab.user}",
             f"    identity_file: {lab.client_key}", f"    workdir: \"{host.workdir}\""]
    lines += [f"    {k}: {v}" for k, v in extra.items()]
    if host.env:
        lines.append("    env:")
        lines += [f"      {k}: {json.dumps(v)}" for k, v in host.env.items()]
    return "\n".join(lines) + "\n"


def write_inventory(path: Path, lab: SSHLab, hosts: list[SSHHost], **extra: str) -> Path:
    path.write_text("version: 1\ndevices:\n" + "".join(device_yaml(lab, h, **extra) for h in hosts))
    return path


def test_list_shows_the_inventory(three_hosts: list[SSHHost], sshd_hosts: SSHLab, client_home: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    inv = write_inventory(client_home.parent / "devices.yaml", sshd_hosts, three_hosts)
    code, out, _ = cli(["devices", "list", "--inventory", str(inv)], capsys)
    assert code == 0
    for h in three_hosts:
        assert h.name in out and f"127.0.0.1:{h.port}" in out
    assert "local" in out
    code, out, _ = cli(["devices", "list", "--inventory", str(inv), "--json"], capsys)
    data = json.loads(out)
    assert [d["name"] for d in data["devices"]] == ["local", "alpha", "beta", "gamma"]


def test_unknown_host_then_trust_then_accepted(sshd_hosts: SSHLab, client_home: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    host = sshd_hosts.start_host("nano")
    inv = write_inventory(client_home.parent / "devices.yaml", sshd_hosts, [host])
    db = str(client_home.parent / "results.sqlite")
    code, out, err = cli(["devices", "check", "nano", "--inventory", str(inv), "--db", db, "--json"], capsys)
    assert code == 3
    res = json.loads(out)[0]
    assert res["stage"] == "hostkey" and res["reachable"] is True and not res["ok"]
    assert f"unknown host key ssh-ed25519 {host.fingerprint()}" in res["error"]
    assert "edgeprof devices trust nano" in res["error"]

    code, out, err = cli(["devices", "trust", "nano", "--inventory", str(inv)], capsys)  # stdin is not a tty
    assert code == 3 and "without confirmation" in err and "--yes" in err
    assert not (client_home / ".ssh" / "known_hosts").exists()

    code, out, err = cli(["devices", "trust", "nano", "--inventory", str(inv), "--yes"], capsys)
    assert code == 0, err
    assert host.fingerprint() in out and "ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub" in out
    recorded = (client_home / ".ssh" / "known_hosts").read_text()
    assert recorded == host.known_hosts_line()
    assert (client_home / ".ssh" / "known_hosts").stat().st_mode & 0o077 == 0

    code, out, _ = cli(["devices", "trust", "nano", "--inventory", str(inv), "--yes"], capsys)
    assert code == 0 and "already trusted" in out

    code, out, err = cli(["devices", "check", "nano", "--inventory", str(inv), "--db", db, "--json"], capsys)
    assert code == 0, out + err
    res = json.loads(out)[0]
    assert res["ok"] and res["reachable"] and res["authenticated"] and res["python"].startswith("3.")
    assert res["facts"]["arch"] and res["facts"]["disk_free_mb"] > 0 and "runtimes" in res["facts"]
    assert res["facts"]["workdir"] == host.workdir
    saved = Store(db).latest_facts("nano")
    assert saved is not None and saved[1].arch == res["facts"]["arch"] and saved[0] == res["facts_saved_at"]


def test_changed_key_needs_replace(sshd_hosts: SSHLab, client_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    host = sshd_hosts.start_host("orin")
    inv = write_inventory(client_home.parent / "devices.yaml", sshd_hosts, [host])
    assert cli(["devices", "trust", "orin", "--inventory", str(inv), "--yes"], capsys)[0] == 0
    old_fp = host.fingerprint()
    before = (client_home / ".ssh" / "known_hosts").read_text()
    sshd_hosts.restart_with_new_key(host)

    code, out, err = cli(["devices", "check", "orin", "--inventory", str(inv), "--no-store"], capsys)
    assert code == 3 and "HOST KEY CHANGED" in out

    code, out, err = cli(["devices", "trust", "orin", "--inventory", str(inv), "--yes"], capsys)
    assert code == 3
    assert "WARNING" in out and "HOST KEY CHANGED" in err and "--replace" in err
    assert (client_home / ".ssh" / "known_hosts").read_text() == before  # untouched

    code, out, err = cli(["devices", "trust", "orin", "--inventory", str(inv), "--yes", "--replace"], capsys)
    assert code == 0, err
    assert "removed old key" in out and old_fp in out
    assert (client_home / ".ssh" / "known_hosts").read_text() == host.known_hosts_line()
    code, out, err = cli(["devices", "check", "orin", "--inventory", str(inv), "--no-store", "--json"], capsys)
    assert code == 0, out + err


def test_trust_writes_the_lab_known_hosts_file(sshd_hosts: SSHLab, client_home: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    host = sshd_hosts.start_host("pi5")
    lab_dir = client_home.parent / "lab"
    lab_dir.mkdir()
    inv = write_inventory(lab_dir / "devices.yaml", sshd_hosts, [host], known_hosts="lab_known_hosts")
    code, out, err = cli(["devices", "trust", "pi5", "--inventory", str(inv), "--yes"], capsys)
    assert code == 0, err
    assert (lab_dir / "lab_known_hosts").read_text() == host.known_hosts_line()  # relative to devices.yaml
    assert not (client_home / ".ssh" / "known_hosts").exists()


def test_check_all_devices_in_parallel(three_hosts: list[SSHHost], sshd_hosts: SSHLab, client_home: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (client_home / ".ssh" / "known_hosts").write_text("".join(h.known_hosts_line() for h in three_hosts))
    inv = write_inventory(client_home.parent / "devices.yaml", sshd_hosts, three_hosts)
    db = str(client_home.parent / "results.sqlite")
    code, out, err = cli(["devices", "check", "--inventory", str(inv), "--db", db], capsys)
    assert code == 0, out + err
    for h in three_hosts:
        assert h.name in out
    assert "facts stored for alpha, beta, gamma" in err
    code, out, _ = cli(["devices", "check", "--inventory", str(inv), "--json", "--no-store"], capsys)
    results = json.loads(out)
    assert [r["device"] for r in results] == ["alpha", "beta", "gamma"]
    assert all(r["ok"] for r in results)
    assert results[2]["facts"]["workdir"] == three_hosts[2].workdir
    assert " " in results[0]["facts"]["workdir"]


def test_check_reports_each_failure_without_stopping_the_others(sshd_hosts: SSHLab, client_home: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    good = sshd_hosts.start_host("good")
    down = sshd_hosts.start_host("down")
    sshd_hosts.stop_host(down)
    (client_home / ".ssh" / "known_hosts").write_text(good.known_hosts_line())
    inv = write_inventory(client_home.parent / "devices.yaml", sshd_hosts, [good, down])
    code, out, err = cli(["devices", "check", "--inventory", str(inv), "--no-store", "--json"], capsys)
    assert code == 3
    by = {r["device"]: r for r in json.loads(out)}
    assert by["good"]["ok"]
    assert by["down"]["reachable"] is False and "connection refused" in by["down"]["error"]


def test_ssh_config_fallback_and_env_substitution(sshd_hosts: SSHLab, client_home: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    host = sshd_hosts.start_host("aliased")
    (client_home / ".ssh" / "config").write_text(
        f"Host nano-alias\n  HostName 127.0.0.1\n  Port {host.port}\n  User {sshd_hosts.user}\n"
        f"  IdentityFile {sshd_hosts.client_key}\n")
    (client_home / ".ssh" / "known_hosts").write_text(host.known_hosts_line())
    monkeypatch.setenv("EDGEPROF_NANO_WORKDIR", host.workdir)
    inv = client_home.parent / "devices.yaml"
    inv.write_text("version: 1\ndevices:\n  nano-alias:\n    workdir: ${EDGEPROF_NANO_WORKDIR}\n")
    code, out, err = cli(["devices", "list", "--inventory", str(inv), "--json"], capsys)
    d = json.loads(out)["devices"][1]
    assert (d["host"], d["port"], d["user"], d["identity_file"]) == ("127.0.0.1", host.port, sshd_hosts.user,
                                                                     str(sshd_hosts.client_key))
    assert d["workdir"] == host.workdir
    code, out, err = cli(["devices", "check", "--inventory", str(inv), "--no-store", "--json"], capsys)
    assert code == 0, out + err


@pytest.mark.parametrize("yaml_text, expect", [
    ("version: 1\ndevices:\n  nano:\n    host: 127.0.0.1\n    port: 70000\n",
     "devices.yaml:5 devices.nano.port: must be an integer 1–65535"),
    ("version: 1\ndevices:\n  'nano;reboot':\n    host: 127.0.0.1\n", "devices.yaml:3 devices.nano;reboot: device names"),
    ("version: 1\ndevices:\n  nano:\n    host: 127.0.0.1\n    password: x\n",
     "devices.yaml:5 devices.nano.password: passwords are never stored in devices.yaml"),
])
def test_inventory_errors_are_one_line(client_home: Path, capsys: pytest.CaptureFixture[str], yaml_text: str,
                                       expect: str) -> None:
    (client_home.parent / "devices.yaml").write_text(yaml_text)  # found as ./devices.yaml (cwd is tmp_path)
    code, out, err = cli(["devices", "list"], capsys)
    assert code == 2
    assert err.startswith(f"edgeprof: error: {expect}")
    assert len(err.strip().splitlines()) == 1


def test_unknown_device_name(client_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (client_home.parent / "devices.yaml").write_text("version: 1\ndevices:\n  jetson-nano:\n    host: 10.0.0.5\n")
    code, out, err = cli(["devices", "check", "jetson-nan"], capsys)
    assert code == 2
    assert "unknown device 'jetson-nan'" in err and "did you mean 'jetson-nano'" in err
    assert "edgeprof devices list shows the inventory" in err
