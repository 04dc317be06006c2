"""The device inventory: devices.yaml → Device records.

Owns: finding the inventory file (explicit path, ./devices.yaml, ~/.config/edgeprof/devices.yaml), reading it
with line numbers, validating every key, `${EDGEPROF_*}` substitution, filling fields the file leaves out from
~/.ssh/config, the built-in device `local`, name look-up with did-you-mean, and tag selection.
Does not own: reading YAML safely and the node validator (files/config.py), connecting to devices (transport), host
keys (known_hosts), or what runs on them.

Every error names the file, the line and the YAML path: `devices.yaml:14 devices.jetson-nano.port: must be an
integer 1–65535`.

devices.yaml format history (keep next to the constant):
  1 — first format: version, defaults, devices.{NAME}.{host, port, user, identity_file, proxy_jump, python,
      workdir, env, tags, power, sysfs_root, connect_timeout, known_hosts}; later `controller` (the lab queue's
      lab.<controller>; optional, so version 1 files stay valid); later phones: `transport: adb` with serial, adb,
      adb_server_port, benchmark_model, workdir, tags, power, thermal (optional, so version 1 files stay valid);
      later `gpu` (the GPU a board's runs use, NVML's index; optional, so version 1 files stay valid); later a
      phone's `litert_lm_main` (LiteRT-LM's benchmark tool, written as benchmark_model; optional, so version 1 files
      stay valid).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import Node

from ..errors import ConfigError, DeviceError
from ..files.config import (
    POWER_RATE_MAX_HZ,
    Doc,
    check_number,
    compose,
    did_you_mean,
    read_text,
    resolve_path,
)
from ..records import Device, local_device
from ..records.device import BenchmarkModel, PhoneConfig, PhonePower
from ..vocab import POWER_SOURCES

INVENTORY_VERSION = 1

DEFAULT_PYTHON = "python3"
DEFAULT_WORKDIR = "~/.cache/edgeprof"
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_SSH_CONFIG = "~/.ssh/config"

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
HOST_RE = re.compile(r"^[A-Za-z0-9_.:%\[\]-]+$")
USER_RE = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.@-]*\$?$")
HOP_RE = re.compile(r"^(?:(?P<user>[^@\s,]+)@)?(?P<host>\[[^\]\s]+\]|[^:@\s,\[\]]+)(?::(?P<port>\d+))?$")
_SUBST_RE = re.compile(r"\$\$\{|\$\{([^}]*)\}|\$\{")

POWER_UNITS = ("W", "mW")
# the power block's keys (docs/power.md); numbers: key -> (lo, hi, lo exclusive)
POWER_NUMBERS: dict[str, tuple[float, float, bool]] = {
    "rate_hz": (0, POWER_RATE_MAX_HZ, True), "timeout_s": (0, 3600, True), "interval_s": (0.5, 3600, False)}
POWER_KEYS = ("source", "rail", "rate_hz", "command", "unit", "covers", "device", "interval_s", "hwmon", "timeout_s")
MAX_CONNECT_TIMEOUT = 3600.0

TOP_KEYS = ("version", "defaults", "devices")
BOARD_KEYS = ("host", "port", "user", "identity_file", "proxy_jump", "python", "workdir", "env", "tags", "power",
              "sysfs_root", "connect_timeout", "known_hosts", "controller", "gpu")
# phones (transport: adb; docs/phones.md): these keys, plus workdir, env, tags, power, connect_timeout, controller
PHONE_KEYS = ("transport", "serial", "adb", "adb_server_port", "benchmark_model", "litert_lm_main", "thermal")
PHONE_ONLY_KEYS = ("serial", "adb", "adb_server_port", "benchmark_model", "litert_lm_main", "thermal")
SSH_ONLY_KEYS = ("host", "port", "user", "identity_file", "proxy_jump", "python", "sysfs_root", "known_hosts", "gpu")
TRANSPORTS = ("ssh", "adb")
DEFAULT_PHONE_WORKDIR = "/data/local/tmp/edgeprof"
SERIAL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")
PHONE_POWER_SOURCES = ("battery", "none")
THERMAL_KEYS = ("warn_status",)
DEVICE_KEYS: tuple[str, ...] = BOARD_KEYS + PHONE_KEYS
DEFAULTS_KEYS = tuple(k for k in DEVICE_KEYS if k not in ("host", "serial"))
MERGED_KEYS = ("env", "tags", "power")  # defaults and device entry merged key by key
SECRET_KEYS = ("password", "passphrase", "passwd")


@dataclass(frozen=True)
class Entry:
    """One devices.yaml device entry after validation, with the defaults block merged in: every key of
    DEVICE_KEYS, None (or empty) where neither wrote it. Defaults that depend on the kind of device (the workdir,
    the connect timeout, what ~/.ssh/config gives) are applied when the Device is built."""

    transport: str = "ssh"
    host: str | None = None
    port: int | None = None
    user: str | None = None
    identity_file: str | None = None
    proxy_jump: str | None = None
    python: str = DEFAULT_PYTHON
    workdir: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    tags: Mapping[str, str] = field(default_factory=dict)
    power: dict[str, Any] | None = None  # the validated power: block (f_power)
    sysfs_root: str = "/"
    connect_timeout: float | None = None
    known_hosts: str | None = None
    controller: str | None = None
    serial: str | None = None
    adb: str | None = None
    adb_server_port: int | None = None
    benchmark_model: BenchmarkModel | None = None
    litert_lm_main: BenchmarkModel | None = None  # LiteRT-LM's benchmark tool, as benchmark_model
    thermal: int | None = None  # thermal.warn_status
    gpu: int | None = None  # the GPU runs use on a machine with several (NVML's index; --gpu overrides it)

    @classmethod
    def merged(cls, defaults: Mapping[str, tuple[Node, Any]], entry: Mapping[str, tuple[Node, Any]]) -> Entry:
        """The entry over the defaults; env, tags and power are merged key by key (MERGED_KEYS)."""
        values: dict[str, Any] = {k: v for k, (_, v) in defaults.items()}
        for key, (_, value) in entry.items():
            values[key] = {**values[key], **value} if key in MERGED_KEYS and key in values else value
        return cls(**values)


def default_search_paths() -> list[str]:
    """Where the inventory is looked for when no path is given, in order."""
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return [os.path.join(".", "devices.yaml"), os.path.join(config_home, "edgeprof", "devices.yaml")]


@dataclass
class Inventory:
    """The devices of one devices.yaml (possibly none) plus the built-in `local`."""

    path: str | None
    by_name: dict[str, Device] = field(default_factory=dict)
    searched: list[str] = field(default_factory=list)

    @property
    def devices(self) -> list[Device]:
        """The devices defined in the file, in file order (`local` is not listed: it is built in)."""
        return list(self.by_name.values())

    def names(self) -> list[str]:
        return ["local", *self.by_name]

    def get(self, name: str) -> Device:
        if name == "local":
            return local_device()
        device = self.by_name.get(name)
        if device is not None:
            return device
        close = difflib.get_close_matches(name, self.names(), n=1, cutoff=0.6)
        where = f"not in {self.path}" if self.path else "no inventory file found (looked in " + ", ".join(
            self.searched) + ")"
        guess = f"; did you mean {close[0]!r}?" if close else ""
        raise DeviceError(f"unknown device {name!r}: {where}{guess}",
                          hint="edgeprof devices list shows the inventory")

    def select(self, tags: Mapping[str, str | int | float | bool | Sequence[str]]) -> list[Device]:
        """Devices whose tags match every selector; a sequence value matches any of its items."""
        out = []
        for device in self.by_name.values():
            ok = True
            for key, want in tags.items():
                have = device.tags.get(key)
                wanted = [_tag_str(w) for w in want] if isinstance(want, list | tuple) else [_tag_str(want)]
                if have is None or have not in wanted:
                    ok = False
                    break
            if ok:
                out.append(device)
        return out


def load_inventory(path: str | None = None, *, ssh_config_path: str | None = None,
                   environ: Mapping[str, str] | None = None) -> Inventory:
    """Read the inventory: `path` if given (must exist), else the first of default_search_paths() that exists.

    No file found is fine: the inventory then holds only `local`. `ssh_config_path` (default ~/.ssh/config)
    supplies fields devices.yaml leaves out; `environ` (default os.environ) is used for `${EDGEPROF_*}`.
    """
    searched = default_search_paths()
    if path is not None:
        if not os.path.isfile(path):
            what = "is not a file" if os.path.exists(path) else "not found"  # a FIFO, a device, a folder
            raise ConfigError(f"inventory file {path} {what}", hint="check the --inventory path")
        chosen: str | None = path
    else:
        chosen = next((p for p in searched if os.path.isfile(p)), None)
    if chosen is None:
        return Inventory(path=None, searched=searched)
    display = os.path.normpath(chosen) if chosen.startswith("." + os.sep) else chosen
    try:
        text = read_text(chosen, "inventory", display)
    except FileNotFoundError:
        raise ConfigError(f"inventory file {chosen} not found", hint="check the --inventory path") from None
    ssh_config = _load_ssh_config(os.path.expanduser(ssh_config_path or DEFAULT_SSH_CONFIG))
    loader = _Loader(display, os.path.dirname(os.path.abspath(chosen)), ssh_config,
                     os.environ if environ is None else environ)
    devices = loader.load(text)
    return Inventory(path=display, by_name=devices, searched=searched)


def parse_proxy_jump(spec: str) -> list[tuple[str | None, str, int | None]]:
    """`[user@]host[:port][,...]` → [(user, host, port)]; raises ValueError on a malformed hop."""
    hops = []
    for raw in spec.split(","):
        hop = raw.strip()
        m = HOP_RE.match(hop)
        if not m:
            raise ValueError(f"bad hop {hop!r}: expected [user@]host[:port]")
        host = m.group("host").strip("[]")
        port = int(m.group("port")) if m.group("port") else None
        if port is not None and not 1 <= port <= 65535:
            raise ValueError(f"bad hop {hop!r}: port must be 1–65535")
        if host.startswith("-"):
            raise ValueError(f"bad hop {hop!r}: a host cannot start with '-'")
        hops.append((m.group("user"), host, port))
    return hops


# ---------------------------------------------------------------------------------------------------------------


def _tag_str(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _load_ssh_config(path: str) -> Any:
    if not os.path.isfile(path):
        return None
    import paramiko

    try:
        return paramiko.SSHConfig.from_path(path)
    except Exception as e:  # paramiko raises various types for a bad file
        raise ConfigError(f"cannot read ssh config {path}: {e}") from None


class _Loader(Doc):
    """devices.yaml's rules on top of the shared node validator (config.Doc)."""

    def __init__(self, display: str, base_dir: str, ssh_config: Any, environ: Mapping[str, str]) -> None:
        super().__init__(display, substitute=self.substitute_env)
        self.base_dir = base_dir
        self.ssh_config = ssh_config
        self.environ = environ

    def substitute_env(self, value: str, node: Node, ypath: str) -> str:
        def repl(m: re.Match[str]) -> str:
            text = m.group(0)
            if text == "$${":
                return "${"
            name = m.group(1)
            if name is None:
                raise self.err(node, ypath, "unclosed '${'", hint="write $${ for a literal ${")
            if not re.fullmatch(r"EDGEPROF_[A-Za-z0-9_]+", name):
                raise self.err(node, ypath, f"only ${{EDGEPROF_*}} variables are substituted, not ${{{name}}}",
                               hint="rename the variable EDGEPROF_..., or write $${ for a literal ${")
            if name not in self.environ:
                raise self.err(node, ypath, f"environment variable {name} is not set",
                               hint=f"export {name}=... before running edgeprof")
            return self.environ[name]

        return _SUBST_RE.sub(repl, value)

    def path(self, node: Node, ypath: str) -> str:
        return resolve_path(self.string(node, ypath, "a file path"), self.base_dir)

    def str_dict(self, node: Node, ypath: str, key_re: re.Pattern[str] | None, key_what: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, knode, vnode in self.mapping(node, ypath):
            kpath = f"{ypath}.{key}"
            if key_re is not None and not key_re.match(key):
                raise self.err(knode, kpath, f"{key!r} is not a valid {key_what}")
            value = self.plain_scalar(vnode, kpath)
            if value is None:
                raise self.err(vnode, kpath, f"must be a single value, not {self.kind(vnode)}")
            out[key] = _tag_str(value)
        return out

    # -- the document ---------------------------------------------------------------------------------------

    def load(self, text: str) -> dict[str, Device]:
        root = compose(text, self.display)
        if root is None:
            return {}
        top = {k: (kn, vn) for k, kn, vn in self.mapping(root, "")}
        for key, (knode, _) in top.items():
            if key not in TOP_KEYS:
                raise self.err(knode, key, f"unknown key{did_you_mean(key, TOP_KEYS)}",
                               hint="top-level keys are " + ", ".join(TOP_KEYS))
        if "version" not in top:
            raise self.err(root, "", "missing 'version: 1'", hint="add 'version: 1' as the first line")
        vnode = top["version"][1]
        version = self.scalar(vnode, "version")
        if isinstance(version, bool) or not isinstance(version, int):
            raise self.err(vnode, "version", f"must be an integer, not {self.kind(vnode)}")
        if version > INVENTORY_VERSION:
            raise self.err(vnode, "version", f"{version} is newer than this edgeprof supports "
                           f"({INVENTORY_VERSION})", hint="upgrade edgeprof (pip install -U edgeprof)")
        if version < 1:
            raise self.err(vnode, "version", f"must be {INVENTORY_VERSION}")

        defaults: dict[str, tuple[Node, Any]] = {}
        if "defaults" in top and not self.is_null(top["defaults"][1]):
            defaults = self.fields(top["defaults"][1], "defaults", DEFAULTS_KEYS)

        devices: dict[str, Device] = {}
        if "devices" not in top or self.is_null(top["devices"][1]):
            return devices
        for name, knode, vnode in self.mapping(top["devices"][1], "devices"):
            ypath = f"devices.{name}"
            if not NAME_RE.match(name):
                raise self.err(knode, ypath, "device names are 1–64 letters, digits, '.', '_' or '-', starting "
                               "with a letter or digit (they become file names and shell words)")
            if name == "local":
                raise self.err(knode, ypath, "'local' is built in (this machine) and cannot be redefined",
                               hint="pick another name")
            entry = {} if self.is_null(vnode) else self.fields(vnode, ypath, DEVICE_KEYS)
            devices[name] = self.device(name, knode, ypath, defaults, entry)
        return devices

    def fields(self, node: Node, ypath: str, allowed: Sequence[str]) -> dict[str, tuple[Node, Any]]:
        """Validate a device entry or the defaults block: {key: (value_node, value)}."""
        out: dict[str, tuple[Node, Any]] = {}
        for key, knode, vnode in self.mapping(node, ypath):
            kpath = f"{ypath}.{key}"
            if key in SECRET_KEYS:
                raise self.err(knode, kpath, "passwords are never stored in devices.yaml",
                               hint="use an SSH key (identity_file) or ssh-agent; put the public key in the "
                                    "board's ~/.ssh/authorized_keys (ssh-copy-id)")
            if key not in allowed:
                extra = " ('host' belongs to each device)" if key == "host" else ""
                raise self.err(knode, kpath, f"unknown key{extra}{did_you_mean(key, allowed)}",
                               hint="known keys: " + ", ".join(allowed))
            out[key] = (vnode, self.FIELD_PARSERS[key](self, vnode, kpath))
        return out

    def f_host(self, node: Node, p: str) -> str:
        value = self.string(node, p, "a host name or address")
        if not HOST_RE.match(value) or value.startswith("-"):
            raise self.err(node, p, f"{value!r} is not a host name or address")
        return value.strip("[]")

    def f_user(self, node: Node, p: str) -> str:
        return self.string(node, p, "a user name", pattern=USER_RE)

    def f_proxy_jump(self, node: Node, p: str) -> str:
        value = self.string(node, p, "[user@]host[:port] (comma-separated for several hops)")
        if value.lower() == "none":
            return "none"
        try:
            parse_proxy_jump(value)
        except ValueError as e:
            raise self.err(node, p, str(e)) from None
        return value

    def f_python(self, node: Node, p: str) -> str:
        value = self.string(node, p, "an interpreter name or path")
        if any(c.isspace() for c in value) and not value.startswith("/"):
            raise self.err(node, p, f"{value!r} must be one interpreter (name or absolute path), not a command "
                           "line", hint="set env: for interpreter options")
        return value

    def f_workdir(self, node: Node, p: str) -> str:
        value = self.string(node, p, "a directory on the device")
        if not (value.startswith("/") or value == "~" or value.startswith("~/")):
            raise self.err(node, p, f"{value!r} must be absolute or start with ~/")
        if "\n" in value or "\0" in value:
            raise self.err(node, p, "must not contain newlines")
        return value

    def f_env(self, node: Node, p: str) -> dict[str, str]:
        return self.str_dict(node, p, ENV_NAME_RE, "environment variable name")

    def f_tags(self, node: Node, p: str) -> dict[str, str]:
        return self.str_dict(node, p, None, "tag")

    def f_power(self, node: Node, p: str) -> dict[str, Any]:
        """The `power:` block: every key is known and checked here; nothing reaches the agent unvalidated."""
        out: dict[str, Any] = {}
        for key, knode, vnode in self.mapping(node, p):
            kpath = f"{p}.{key}"
            if key == "source":
                value = self.string(vnode, kpath, "a power source")
                if value not in POWER_SOURCES and value not in PHONE_POWER_SOURCES:  # battery: phones only
                    raise self.err(vnode, kpath, f"unknown power source {value!r}"
                                   f"{did_you_mean(value, POWER_SOURCES)}",
                                   hint="one of " + ", ".join(POWER_SOURCES))
                out[key] = value
            elif key in ("rail", "command", "covers", "hwmon"):
                out[key] = self.string(vnode, kpath)
            elif key in POWER_NUMBERS:
                lo, hi, lo_open = POWER_NUMBERS[key]
                out[key] = self.number(vnode, kpath, lo=lo, hi=hi, lo_open=lo_open)
            elif key == "device":
                out[key] = self.integer(vnode, kpath, 0, 255)
            elif key == "unit":
                value = self.string(vnode, kpath, "W or mW")
                if value not in POWER_UNITS:
                    raise self.err(vnode, kpath, f"must be W or mW, not {value!r}")
                out[key] = value
            else:
                raise self.err(knode, kpath, f"unknown key{did_you_mean(key, POWER_KEYS)}",
                               hint="power keys: " + ", ".join(POWER_KEYS) + " (see docs/power.md)")
        return out

    def f_sysfs_root(self, node: Node, p: str) -> str:
        value = self.string(node, p, "an absolute path on the device")
        if not value.startswith("/"):
            raise self.err(node, p, f"{value!r} must be an absolute path on the device")
        return value

    def f_connect_timeout(self, node: Node, p: str) -> float:
        return self.number(node, p, hi=MAX_CONNECT_TIMEOUT)

    FIELD_PARSERS: dict[str, Callable[[_Loader, Node, str], Any]] = {
        "host": f_host,
        "port": lambda self, n, p: self.integer(n, p, 1, 65535, digits_ok=True),
        "user": f_user,
        "identity_file": lambda self, n, p: self.path(n, p),
        "proxy_jump": f_proxy_jump,
        "python": f_python,
        "workdir": f_workdir,
        "env": f_env,
        "tags": f_tags,
        "power": f_power,
        "sysfs_root": f_sysfs_root,
        "connect_timeout": f_connect_timeout,
        "known_hosts": lambda self, n, p: self.path(n, p),
        "controller": lambda self, n, p: self.string(n, p, pattern=NAME_RE, what="a controller host name"),
        "transport": lambda self, n, p: self.f_transport(n, p),
        "serial": lambda self, n, p: self.string(n, p, "an adb serial (USB serial or host:port)", pattern=SERIAL_RE),
        "adb": lambda self, n, p: self.string(n, p, "the adb client (name or path)"),
        "adb_server_port": lambda self, n, p: self.integer(n, p, 1024, 65535),
        "benchmark_model": lambda self, n, p: self.f_benchmark_model(n, p),
        "litert_lm_main": lambda self, n, p: self.f_benchmark_model(n, p),
        "thermal": lambda self, n, p: self.f_thermal(n, p),
        "gpu": lambda self, n, p: self.integer(n, p, 0, 63),
    }

    def f_transport(self, node: Node, p: str) -> str:
        value = self.string(node, p, "ssh or adb")
        if value not in TRANSPORTS:
            raise self.err(node, p, f"unknown transport {value!r}{did_you_mean(value, TRANSPORTS)}",
                           hint="ssh (a board, the default) or adb (an Android phone)")
        return value

    def f_benchmark_model(self, node: Node, p: str) -> BenchmarkModel:
        """A host file (pushed to the phone by content) or `phone:/path` already on the phone."""
        value = self.string(node, p, "a file on this host, or phone:/path on the phone")
        if value.startswith("phone:"):
            remote = value[len("phone:"):]
            if not remote.startswith("/") or any(c in remote for c in "\n\0"):
                raise self.err(node, p, f"{remote!r} must be an absolute path on the phone")
            return BenchmarkModel(phone_path=remote)
        return BenchmarkModel(host_path=resolve_path(value, self.base_dir))

    def f_thermal(self, node: Node, p: str) -> int | None:
        """The thermal: block's warn_status (None when the block does not set it)."""
        warn_status = None
        for key, knode, vnode in self.mapping(node, p):
            kpath = f"{p}.{key}"
            if key != "warn_status":
                raise self.err(knode, kpath, f"unknown key{did_you_mean(key, THERMAL_KEYS)}",
                               hint="thermal keys: " + ", ".join(THERMAL_KEYS))
            warn_status = self.integer(vnode, kpath, 0, 6)
        return warn_status

    def phone_device(self, name: str, knode: Node, ypath: str, e: Entry,
                     entry: Mapping[str, tuple[Node, Any]]) -> Device:
        """A `transport: adb` entry: no SSH keys, a serial (or the only device adb sees), battery power."""
        for key in SSH_ONLY_KEYS:
            if key in entry:
                raise self.err(entry[key][0], f"{ypath}.{key}", "does not apply to a phone (transport: adb)",
                               hint="phones take: " + ", ".join(PHONE_ONLY_KEYS) + ", workdir, env, tags, power")

        def node(key: str) -> Node:
            return entry[key][0] if key in entry else knode

        power: PhonePower | None = None
        if e.power is not None:
            extra = sorted(set(e.power) - {"source", "rate_hz"})
            power = PhonePower(**{k: v for k, v in e.power.items() if k not in extra})
            if power.measured not in PHONE_POWER_SOURCES:
                raise self.err(node("power"), f"{ypath}.power.source",
                               f"a phone measures power from its battery, not {power.source!r}",
                               hint="one of " + ", ".join(PHONE_POWER_SOURCES))
            if extra:
                raise self.err(node("power"), f"{ypath}.power.{extra[0]}",
                               "does not apply to a phone", hint="phone power keys: source, rate_hz")
        workdir = e.workdir or DEFAULT_PHONE_WORKDIR
        if workdir.startswith("~"):
            raise self.err(node("workdir"), f"{ypath}.workdir",
                           "must be an absolute path on the phone (e.g. /data/local/tmp/edgeprof)")
        return Device(
            name=name, kind="adb", host=e.serial, python="", workdir=workdir, env=dict(e.env), tags=dict(e.tags),
            connect_timeout=e.connect_timeout or DEFAULT_CONNECT_TIMEOUT, controller=e.controller,
            source=f"{self.display}:{knode.start_mark.line + 1}",
            phone=PhoneConfig(serial=e.serial, adb=e.adb, adb_server_port=e.adb_server_port,
                              benchmark_model=e.benchmark_model, thermal_warn_status=e.thermal, power=power,
                              litert_lm_main=e.litert_lm_main),
        )

    def device(self, name: str, knode: Node, ypath: str, defaults: dict[str, tuple[Node, Any]],
               entry: dict[str, tuple[Node, Any]]) -> Device:
        e = Entry.merged(defaults, entry)
        if e.transport == "adb":
            return self.phone_device(name, knode, ypath, e, entry)
        for key in PHONE_ONLY_KEYS:
            if key in entry:
                raise self.err(entry[key][0], f"{ypath}.{key}", "applies only to a phone",
                               hint="add transport: adb to this entry, or remove the key")
        if e.power is not None and e.power.get("source") == "battery":
            pnode = entry["power"][0] if "power" in entry else defaults["power"][0]
            raise self.err(pnode, f"{ypath}.power.source", "battery applies only to a phone (transport: adb)",
                           hint="one of " + ", ".join(POWER_SOURCES))
        gpu_node = entry["gpu"][0] if "gpu" in entry else defaults["gpu"][0] if "gpu" in defaults else knode
        power_device = (e.power or {}).get("device")
        if e.gpu is not None and power_device is not None and power_device != e.gpu:
            raise self.err(gpu_node, f"{ypath}.gpu", f"is {e.gpu} but power.device is {power_device}: NVML reads "
                           "the GPU the run uses", hint="remove power.device (gpu: sets both)")
        return self.ssh_device(name, knode, ypath, e)

    def ssh_device(self, name: str, knode: Node, ypath: str, e: Entry) -> Device:
        """A board reached over SSH: what devices.yaml leaves out comes from ~/.ssh/config (ssh's own rules)."""
        cfg: dict[str, Any] = {}
        alias = e.host or name
        if self.ssh_config is not None:
            cfg = dict(self.ssh_config.lookup(alias))
        host = cfg.get("hostname", alias)
        if e.host is None and host == name:
            raise self.err(knode, ypath, "no host", hint=f"set host: for it, or add a 'Host {name}' block with "
                           "HostName to ~/.ssh/config")
        if "proxycommand" in cfg and e.proxy_jump is None and "proxyjump" not in cfg:
            raise self.err(knode, ypath, f"~/.ssh/config gives ProxyCommand for {alias!r}, which edgeprof does "
                           "not support", hint="use ProxyJump (proxy_jump: in devices.yaml)")
        port = e.port
        if port is None and "port" in cfg:
            text = str(cfg["port"]).strip()
            port = int(text) if text.isdigit() and len(text) < 6 else None
            if not check_number(port, integer=True, lo=1, hi=65535):
                raise self.err(knode, ypath, f"~/.ssh/config gives Port {cfg['port']!r} for {alias!r}",
                               hint="a port is an integer 1–65535")
        identity = e.identity_file
        if identity is None and cfg.get("identityfile"):
            identity = cfg["identityfile"][0]
        proxy = e.proxy_jump if e.proxy_jump is not None else cfg.get("proxyjump")
        if proxy is not None and proxy.lower() == "none":
            proxy = None
        timeout = e.connect_timeout
        if timeout is None and "connecttimeout" in cfg:
            try:
                timeout = float(cfg["connecttimeout"])
            except ValueError:
                timeout = None
            if not check_number(timeout, integer=False, lo=0, hi=MAX_CONNECT_TIMEOUT, lo_open=True):
                timeout = None  # ssh's own rule: a bad ConnectTimeout is ignored; ours is the default
        return Device(
            name=name, kind="ssh", host=host, port=port or 22, user=e.user if e.user is not None else cfg.get("user"),
            identity_file=identity, proxy_jump=proxy, python=e.python, workdir=e.workdir or DEFAULT_WORKDIR,
            env=dict(e.env), tags=dict(e.tags), power=e.power, sysfs_root=e.sysfs_root,
            connect_timeout=timeout or DEFAULT_CONNECT_TIMEOUT, known_hosts=e.known_hosts, controller=e.controller,
            source=f"{self.display}:{knode.start_mark.line + 1}", gpu=e.gpu,
        )
