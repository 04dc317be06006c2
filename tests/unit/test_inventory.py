"""devices.yaml loading: fields, defaults, ssh_config fallback, substitution, and errors that name file:line path."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from edgeprof.errors import ConfigError, DeviceError
from edgeprof.inventory.devices import INVENTORY_VERSION, load_inventory, parse_proxy_jump

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str, name: str = "devices.yaml") -> str:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(p)


def load(tmp_path: Path, text: str, ssh_config: str = "", environ: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    cfg = tmp_path / "ssh_config"
    cfg.write_text(textwrap.dedent(ssh_config))
    return load_inventory(write(tmp_path, text), ssh_config_path=str(cfg), environ=environ or {})


def error(tmp_path: Path, text: str, **kw: object) -> str:
    with pytest.raises(ConfigError) as e:
        load(tmp_path, text, **kw)  # type: ignore[arg-type]
    return str(e.value)


def test_full_device_and_defaults(tmp_path: Path) -> None:
    inv = load(tmp_path, """
        version: 1
        defaults:
          user: ubuntu
          connect_timeout: 5
          env: {OMP_NUM_THREADS: 4, A: x}
          tags: {lab: bench1}
        devices:
          orin:
            host: 10.0.0.7
            port: 2222
            identity_file: keys/lab_ed25519
            python: python3.10
            workdir: /opt/edgeprof work
            env: {A: y}
            tags: {family: jetson, jetpack: 6}
            power: {source: jetson-ina3221, rail: VDD_IN, rate_hz: 50}
            sysfs_root: /
            known_hosts: lab_known_hosts
    """)
    d = inv.get("orin")
    assert (d.host, d.port, d.user, d.python, d.workdir) == ("10.0.0.7", 2222, "ubuntu", "python3.10",
                                                            "/opt/edgeprof work")
    assert d.identity_file == str(tmp_path / "keys" / "lab_ed25519")
    assert d.known_hosts == str(tmp_path / "lab_known_hosts")
    assert d.env == {"OMP_NUM_THREADS": "4", "A": "y"}
    assert d.tags == {"lab": "bench1", "family": "jetson", "jetpack": "6"}
    assert d.power == {"source": "jetson-ina3221", "rail": "VDD_IN", "rate_hz": 50.0}
    assert d.connect_timeout == 5.0
    assert d.kind == "ssh"
    assert d.source and d.source.endswith("devices.yaml:8")
    assert [x.name for x in inv.devices] == ["orin"]


def test_gpu_key(tmp_path: Path) -> None:
    inv = load(tmp_path, "version: 1\ndevices:\n  t4s: {host: a, gpu: 1, power: {source: nvml, device: 1}}\n"
                         "  plain: {host: b}\n")
    assert inv.get("t4s").gpu == 1 and inv.get("t4s").to_dict()["gpu"] == 1
    assert inv.get("plain").gpu is None and "gpu" not in inv.get("plain").to_dict()


def test_builtin_defaults(tmp_path: Path) -> None:
    d = load(tmp_path, "version: 1\ndevices:\n  pi: {host: pi5.lan}\n").get("pi")
    assert (d.port, d.python, d.workdir, d.sysfs_root, d.connect_timeout) == (22, "python3", "~/.cache/edgeprof",
                                                                             "/", 10.0)
    assert d.user is None and d.identity_file is None and d.proxy_jump is None and d.power is None


def test_local_is_builtin_and_needs_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    inv = load_inventory(None)
    assert inv.path is None and inv.devices == []
    assert inv.get("local").kind == "local"
    with pytest.raises(DeviceError) as e:
        inv.get("lcoal")
    assert "did you mean 'local'" in str(e.value) and "edgeprof devices list" in str(e.value)


def test_search_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "cfg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cfg))
    (cfg / "edgeprof").mkdir(parents=True)
    (cfg / "edgeprof" / "devices.yaml").write_text("version: 1\ndevices:\n  user-level: {host: a}\n")
    assert [d.name for d in load_inventory(None).devices] == ["user-level"]
    (tmp_path / "devices.yaml").write_text("version: 1\ndevices:\n  cwd-level: {host: b}\n")
    inv = load_inventory(None)
    assert [d.name for d in inv.devices] == ["cwd-level"] and inv.path == "devices.yaml"
    explicit = write(tmp_path, "version: 1\ndevices:\n  explicit: {host: c}\n", "lab.yaml")
    assert [d.name for d in load_inventory(explicit).devices] == ["explicit"]
    with pytest.raises(ConfigError, match="not found"):
        load_inventory(str(tmp_path / "missing.yaml"))


def test_unknown_device_did_you_mean(tmp_path: Path) -> None:
    inv = load(tmp_path, "version: 1\ndevices:\n  jetson-nano: {host: a}\n  orin: {host: b}\n")
    with pytest.raises(DeviceError) as e:
        inv.get("jetson-nan")
    msg = str(e.value)
    assert "unknown device 'jetson-nan'" in msg and "did you mean 'jetson-nano'" in msg
    assert "edgeprof devices list shows the inventory" in msg


def test_error_names_file_line_and_path(tmp_path: Path) -> None:
    msg = error(tmp_path, """
        version: 1
        devices:
          orin:
            host: 10.0.0.7
          jetson-nano:
            host: 10.0.0.5
            port: 99999
    """)
    assert msg.startswith(f"{tmp_path / 'devices.yaml'}:7 devices.jetson-nano.port: must be an integer 1–65535")


def test_relative_path_shown_as_devices_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / "devices.yaml").write_text("version: 1\ndevices:\n  nano:\n    host: a\n    port: x\n")
    with pytest.raises(ConfigError) as e:
        load_inventory(None, ssh_config_path=str(tmp_path / "none"))
    assert str(e.value).startswith("devices.yaml:5 devices.nano.port: must be an integer 1–65535")


@pytest.mark.parametrize("body, expect", [
    ("  nano:\n    host: a\n    prot: 22\n", ":5 devices.nano.prot: unknown key; did you mean 'port'?"),
    ("  nano:\n    host: a\n    password: hunter2\n",
     ":5 devices.nano.password: passwords are never stored in devices.yaml — use an SSH key"),
    ("  nano:\n    host: a\n    power: {source: jtop2}\n", ":5 devices.nano.power.source: unknown power source"),
    ("  nano:\n    host: a\n    power: {sorce: jtop}\n", ":5 devices.nano.power.sorce: unknown key; did you mean"),
    ("  nano:\n    host: a\n    power: {unit: kW}\n", ":5 devices.nano.power.unit: must be W or mW"),
    ("  nano:\n    host: a\n    power: {rate_hz: -1}\n", ":5 devices.nano.power.rate_hz: must be a positive"),
    ("  nano:\n    host: a\n    env: {1BAD: x}\n", ":5 devices.nano.env.1BAD: '1BAD' is not a valid"),
    ("  nano:\n    host: a\n    workdir: relative/dir\n", ":5 devices.nano.workdir: 'relative/dir' must be absolute"),
    ("  nano:\n    host: a\n    connect_timeout: soon\n", ":5 devices.nano.connect_timeout: must be a positive"),
    ("  nano:\n    host: a\n    proxy_jump: 'a@b:c:d'\n", ":5 devices.nano.proxy_jump: bad hop"),
    ("  nano:\n    host: a\n    host: b\n", ":5 devices.nano.host: duplicate key (first at line 4)"),
    ("  nano:\n    host: a\n    tags: [x, y]\n", ":5 devices.nano.tags: must be a mapping, not a list"),
    ("  nano:\n    port: 22\n", ":3 devices.nano: no host — set host:"),
    ("  local:\n    host: a\n", ":3 devices.local: 'local' is built in"),
    ("  'bad;name$(x)':\n    host: a\n", ":3 devices.bad;name$(x): device names are"),
    ("  '-rf':\n    host: a\n", ":3 devices.-rf: device names are"),
    ("  nano:\n    host: '-oProxyCommand=x'\n", ":4 devices.nano.host: '-oProxyCommand=x' is not a host"),
    ("  nano: [a]\n", ":3 devices.nano: must be a mapping, not a list"),
    ("  t4s:\n    host: a\n    gpu: -1\n", ":5 devices.t4s.gpu: must be an integer"),
    ("  t4s:\n    host: a\n    gpu: first\n", ":5 devices.t4s.gpu: must be an integer"),
    ("  t4s:\n    host: a\n    gpu: 1\n    power: {source: nvml, device: 0}\n",
     ":5 devices.t4s.gpu: is 1 but power.device is 0"),
    ("  phone:\n    transport: adb\n    gpu: 1\n", ":5 devices.phone.gpu: does not apply to a phone"),
])
def test_device_errors(tmp_path: Path, body: str, expect: str) -> None:
    msg = error(tmp_path, "version: 1\ndevices:\n" + body)
    assert expect in msg, msg
    assert msg.startswith(str(tmp_path / "devices.yaml") + ":")


def test_top_level_errors(tmp_path: Path) -> None:
    assert "devices.yaml:2 devics: unknown key; did you mean 'devices'?" in error(tmp_path, "version: 1\ndevics: {}\n")
    assert "missing 'version: 1'" in error(tmp_path, "devices: {}\n")
    newer = error(tmp_path, f"version: {INVENTORY_VERSION + 1}\ndevices: {{}}\n")
    assert f"devices.yaml:1 version: {INVENTORY_VERSION + 1} is newer" in newer and "upgrade edgeprof" in newer
    assert "defaults.host: unknown key ('host' belongs to each device)" in error(
        tmp_path, "version: 1\ndefaults:\n  host: x\n")
    assert "defaults.passphrase: passwords are never stored" in error(
        tmp_path, "version: 1\ndefaults:\n  passphrase: x\n")
    assert "devices.yaml:3: not valid YAML" in error(tmp_path, "version: 1\ndevices:\n  a: b: c\n")


def test_empty_file_is_an_empty_inventory(tmp_path: Path) -> None:
    assert load(tmp_path, "").devices == []
    assert load(tmp_path, "version: 1\n").devices == []


def test_env_substitution(tmp_path: Path) -> None:
    text = """
        version: 1
        devices:
          nano:
            host: ${EDGEPROF_NANO_HOST}
            port: ${EDGEPROF_NANO_PORT}
            env: {LITERAL: "$${HOME} and $HOME"}
    """
    d = load(tmp_path, text, environ={"EDGEPROF_NANO_HOST": "10.1.2.3", "EDGEPROF_NANO_PORT": "2200"}).get("nano")
    assert (d.host, d.port) == ("10.1.2.3", 2200)
    assert d.env == {"LITERAL": "${HOME} and $HOME"}
    missing = error(tmp_path, text, environ={"EDGEPROF_NANO_HOST": "x"})
    assert "devices.yaml:5 devices.nano.port: environment variable EDGEPROF_NANO_PORT is not set" in missing
    other = error(tmp_path, "version: 1\ndevices:\n  nano:\n    host: ${HOME}\n")
    assert "devices.yaml:4 devices.nano.host: only ${EDGEPROF_*} variables are substituted, not ${HOME}" in other
    unclosed = error(tmp_path, "version: 1\ndevices:\n  nano:\n    host: a\n    user: ${EDGEPROF_X\n")
    assert "devices.nano.user: unclosed '${'" in unclosed


def test_ssh_config_fills_left_out_fields(tmp_path: Path) -> None:
    ssh_config = """
        Host nano
          HostName 10.0.0.5
          User jetson
          Port 2201
          IdentityFile ~/.ssh/nano_key
          ProxyJump gw.lab
        Host orin-alias
          HostName 10.0.0.9
          User nvidia
          ConnectTimeout 3
    """
    inv = load(tmp_path, """
        version: 1
        devices:
          nano: {}
          orin:
            host: orin-alias
            user: admin
    """, ssh_config=ssh_config)
    nano = inv.get("nano")
    assert (nano.host, nano.user, nano.port, nano.proxy_jump) == ("10.0.0.5", "jetson", 2201, "gw.lab")
    assert nano.identity_file == os.path.expanduser("~/.ssh/nano_key")
    orin = inv.get("orin")
    assert (orin.host, orin.user, orin.port, orin.connect_timeout) == ("10.0.0.9", "admin", 22, 3.0)
    d = load(tmp_path, "version: 1\ndevices:\n  nano:\n    proxy_jump: none\n", ssh_config=ssh_config).get("nano")
    assert d.proxy_jump is None
    pc = error(tmp_path, "version: 1\ndevices:\n  b: {host: box}\n", ssh_config="Host box\n  ProxyCommand nc %h %p\n")
    assert "ProxyCommand" in pc and "ProxyJump" in pc


def test_yaml_merge_keys_and_anchors(tmp_path: Path) -> None:
    inv = load(tmp_path, """
        version: 1
        devices:
          nano-1: &nano
            host: 10.0.0.5
            python: python3.6
            tags: {family: jetson}
          nano-2:
            <<: *nano
            host: 10.0.0.6
    """)
    n2 = inv.get("nano-2")
    assert (n2.host, n2.python, n2.tags) == ("10.0.0.6", "python3.6", {"family": "jetson"})


def test_select_by_tags(tmp_path: Path) -> None:
    inv = load(tmp_path, """
        version: 1
        devices:
          nano: {host: a, tags: {family: jetson, jetpack: 4}}
          orin: {host: b, tags: {family: jetson, jetpack: 6}}
          pi5: {host: c, tags: {family: rpi}}
    """)
    assert [d.name for d in inv.select({"family": "jetson"})] == ["nano", "orin"]
    assert [d.name for d in inv.select({"family": "jetson", "jetpack": 6})] == ["orin"]
    assert [d.name for d in inv.select({"family": ["rpi", "x86"]})] == ["pi5"]
    assert inv.select({"missing": "x"}) == []


def test_parse_proxy_jump() -> None:
    assert parse_proxy_jump("gw") == [(None, "gw", None)]
    assert parse_proxy_jump("me@gw:2222,other@[::1]:22") == [("me", "gw", 2222), ("other", "::1", 22)]
    for bad in ("", "a b", "me@gw:0", "-oX"):
        with pytest.raises(ValueError):
            parse_proxy_jump(bad)


def test_example_devices_yaml_loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    example = REPO / "devices.yaml"
    inv = load_inventory(str(example), ssh_config_path=str(tmp_path / "none"), environ={})
    assert [d.name for d in inv.devices] == ["jetson-nano", "orin-nano", "pi5", "x86-t4"]
    assert inv.get("jetson-nano").python == "python3.6"
    assert inv.get("pi5").proxy_jump == "ops@gw.lab.example:22"
    assert inv.get("x86-t4").known_hosts == str(REPO / "lab_known_hosts")
    assert [d.name for d in inv.select({"family": "jetson"})] == ["jetson-nano", "orin-nano"]


def test_ssh_config_numbers_follow_the_same_rules(tmp_path: Path) -> None:
    bad_port = "Host nano\n  HostName 10.0.0.5\n  Port 99999\n"
    msg = error(tmp_path, "version: 1\ndevices:\n  nano: {}\n", ssh_config=bad_port)
    assert "devices.yaml:3 devices.nano: ~/.ssh/config gives Port '99999' for 'nano'" in msg, msg
    nan_timeout = "Host nano\n  HostName 10.0.0.5\n  ConnectTimeout nan\n"
    inv = load(tmp_path, "version: 1\ndevices:\n  nano: {}\n", ssh_config=nan_timeout)
    assert inv.get("nano").connect_timeout == 10.0  # a non-finite ConnectTimeout is ignored, as ssh ignores it
