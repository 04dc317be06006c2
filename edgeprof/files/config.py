"""The configuration layer: one safe YAML loader and one node validator for every YAML file edgeprof reads.

Owns: reading a YAML file with bounds (size, control characters, nesting depth, alias expansion, recursive
anchors, tags outside YAML's core schema) so hostile input is a one-line `file:line` ConfigError and never a
traceback or a hang; the node validator `Doc` (mappings with merge keys and duplicate detection, lists, scalars,
strings, integers, numbers, run settings, bounded pass-through values) whose errors name the file, the line and
the YAML path (`devices.yaml:14 devices.jetson-nano.port: must be an integer 1–65535`) with did-you-mean; and
the one rule for numbers (finite, within range) shared by devices.yaml, sweep files and the deploy flags
(`check_number`, `check_cli_settings`).
Does not own: which keys a file has and what they mean (inventory/devices.py for devices.yaml, lab/spec.py for sweep
files), the run settings' table itself (vocab.SETTINGS), or argument parsing (cli/).
"""

from __future__ import annotations

import difflib
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import yaml
from yaml.events import AliasEvent, CollectionStartEvent, NodeEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..errors import ConfigError
from ..vocab import POWER_RATE_MAX_HZ, SETTINGS, Setting

__all__ = [
    "MAX_FILE_BYTES", "MAX_DEPTH", "MAX_NODES", "Doc", "compose", "read_text", "did_you_mean", "check_number",
    "number_phrase", "check_cli_settings", "setting_problem", "BATCH_MAX", "THREADS_MAX", "POWER_RATE_MAX_HZ",
    "OTHER_NUMBERS", "resolve_path",
]

MAX_FILE_BYTES = 4 * 1024 * 1024  # a configuration file larger than this is refused unread
MAX_DEPTH = 64  # nesting of lists and mappings
MAX_NODES = 100_000  # nodes of the document with every alias expanded (an alias bomb expands to billions)
MAX_PLAIN_ITEMS = 256  # entries of a pass-through mapping or list (runtime_options, tag values)
MAX_PLAIN_STR = 4096  # characters of a pass-through string

_CORE = "tag:yaml.org,2002:"
# YAML's core schema (+ merge keys and the timestamps PyYAML resolves implicitly); anything else is refused
ALLOWED_TAGS = frozenset(_CORE + t for t in ("null", "bool", "int", "float", "str", "seq", "map", "merge",
                                            "timestamp"))
# C0 controls except tab, newline and carriage return; DEL; C1 controls
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f"; did you mean {close[0]!r}?" if close else ""


# -- reading and composing ---------------------------------------------------------------------------------------


def read_text(path: str, what: str, display: str | None = None) -> str:
    """A configuration file's text, refused when larger than MAX_FILE_BYTES or not UTF-8.

    FileNotFoundError is left to the caller (each file has its own advice)."""
    shown = display or path
    try:  # a regular file only: a FIFO or a device would block or never end (O_NONBLOCK, then checked on the fd)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ConfigError(f"cannot read {what} {shown}: not a regular file", hint="give a file on disk")
            os.set_blocking(fd, True)
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise ConfigError(f"cannot read {what} {shown}: {e.strerror or e}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{shown}: the {what} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB",
                          hint="a configuration file this large is not one edgeprof wrote or expects")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise ConfigError(f"{shown}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x})",
                          hint="save the file as UTF-8") from None


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe composer with bounds: depth, expanded size, no recursive anchors, core tags only."""

    display = "config.yaml"

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._open: set[str] = set()
        self._sizes: dict[int, int] = {}
        self._aliases = 0

    def _refuse(self, mark: Any, message: str, hint: str | None = None) -> ConfigError:
        line = f":{mark.line + 1}" if mark is not None else ""
        return ConfigError(f"{self.display}{line}: {message}", hint=hint)

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            anchor = event.anchor
            if anchor in self._open:
                raise self._refuse(event.start_mark, f"recursive anchor: *{anchor} refers to a node that contains it",
                                   hint="YAML anchors may not refer to themselves")
            node = super().compose_node(parent, index)
            self._aliases += 1
            return node
        assert isinstance(event, NodeEvent)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise self._refuse(event.start_mark, f"nested more than {MAX_DEPTH} levels deep")
        anchor = event.anchor
        if anchor is not None and isinstance(event, CollectionStartEvent):
            self._open.add(anchor)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
            if anchor is not None:
                self._open.discard(anchor)
        if node is None:
            return None
        if node.tag not in ALLOWED_TAGS:
            raise self._refuse(node.start_mark, f"the tag {node.tag.replace(_CORE, '!!')} is not allowed",
                               hint="configuration files use plain YAML values only (no !tags)")
        size = 1
        if isinstance(node, SequenceNode):
            size += sum(self._sizes.get(id(n), 1) for n in node.value)
        elif isinstance(node, MappingNode):
            size += sum(self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1) for k, v in node.value)
        if size > MAX_NODES:
            raise self._refuse(node.start_mark, f"expands to more than {MAX_NODES} values (through aliases)"
                               if self._aliases else f"has more than {MAX_NODES} values",
                               hint="write the values out; anchors and aliases are for a few shared blocks")
        self._sizes[id(node)] = size
        return node


_FLOW_RE = re.compile(r"[\[\]{}'\"#\n]")


def _flow_depth_line(text: str) -> int | None:
    """A fast look for flow nesting ([ and {) deeper than MAX_DEPTH, outside quotes and comments: the line, or None.

    PyYAML's scanner slows down quadratically with flow depth (5000 levels take seconds) before the composer
    sees the first node; this finds such a file in one pass. The composer's own depth check stays the rule."""
    depth = 0
    quote = ""
    comment = False
    line = 1
    for m in _FLOW_RE.finditer(text):
        c = m.group()
        if c == "\n":
            line += 1
            comment = False
            continue
        if comment:
            continue
        if quote:
            if c == quote and not (quote == '"' and text[m.start() - 1] == "\\"):
                quote = ""
            continue
        if c in "'\"":
            quote = c
        elif c == "#":
            comment = m.start() == 0 or text[m.start() - 1] in " \t\n"
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return line
        else:
            depth = max(0, depth - 1)
    return None


def compose(text: str, display: str) -> Node | None:
    """Text → the YAML node tree (None for an empty document), or a ConfigError naming `display:line`."""
    m = _CONTROL_RE.search(text)
    if m is not None:
        lineno = text.count("\n", 0, m.start()) + 1
        raise ConfigError(f"{display}:{lineno}: control character U+{ord(m.group()):04X} is not allowed",
                          hint="remove it (configuration files are plain text)")
    deep = _flow_depth_line(text)
    if deep is not None:
        raise ConfigError(f"{display}:{deep}: nested more than {MAX_DEPTH} levels deep")
    loader = _BoundedLoader(text)
    loader.display = display
    try:
        node: Node | None = loader.get_single_node()
        return node
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{display}{line}: not valid YAML: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{display}: not valid YAML: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
            from None
    except RecursionError:
        raise ConfigError(f"{display}: nested too deeply") from None
    finally:
        loader.dispose()


# -- numbers -----------------------------------------------------------------------------------------------------


def number_phrase(*, integer: bool, lo: float | None, hi: float | None, lo_open: bool = False) -> str:
    """What an acceptable value is, for `must be <phrase>`: "an integer 1–65535", "a positive number up to 3600"."""
    if integer:
        if lo is not None and hi is not None:
            return f"an integer {lo:g}–{hi:g}"
        return f"an integer >= {lo:g}" if lo is not None else "an integer"
    if lo == 0 and lo_open:
        return "a positive number" + (f" up to {hi:g}" if hi is not None else "")
    if lo is not None and hi is not None:
        return f"a number {lo:g}–{hi:g}" + (f" (> {lo:g})" if lo_open else "")
    if lo is not None:
        return f"a number {'>' if lo_open else '>='} {lo:g}"
    return "a finite number"


def check_number(value: Any, *, integer: bool, lo: float | None = None, hi: float | None = None,
                 lo_open: bool = False) -> bool:
    """The one rule for a number in a configuration: a real int/float (not bool), finite, within [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if integer and not isinstance(value, int):
        return False
    if not math.isfinite(value):
        return False
    if lo is not None and (value <= lo if lo_open else value < lo):
        return False
    return hi is None or value <= hi


def setting_problem(setting: Setting, value: Any) -> str | None:
    """A run setting's value by its own rule (vocab.Setting.check: kind, finite, range): None, or what is wrong."""
    return setting.check(value)


# numbers that are not run settings (vocab.SETTINGS) but are checked alike wherever they are written: the batch and
# threads axes (sweep files, deploy flags) and the power sampling rate (devices.yaml power.rate_hz, --power-rate;
# its bound is vocab.POWER_RATE_MAX_HZ, re-exported here for devices.yaml).
# name -> (integer, lo, hi, lo exclusive, flag)
BATCH_MAX = 65536
THREADS_MAX = 1024
OTHER_NUMBERS: dict[str, tuple[bool, float, float, bool, str]] = {
    "batch": (True, 1, BATCH_MAX, False, "--batch"),
    "threads": (True, 1, THREADS_MAX, False, "--threads"),
    "power_rate_hz": (False, 0, POWER_RATE_MAX_HZ, True, "--power-rate"),
}


def _shown(value: Any) -> str:
    """A number as the user typed it: -1 not -1.0, nan, inf; text with a control character quoted (one line)."""
    if isinstance(value, str) and not value.isprintable():
        return repr(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_cli_settings(values: Mapping[str, Any]) -> None:
    """Check numbers given on the command line (deploy flags) with the rules sweep files and devices.yaml use.

    `values` maps a run setting's name (vocab.SETTINGS, e.g. "min_duration_s") or one of OTHER_NUMBERS ("batch",
    "threads", "power_rate_hz") to the parsed value; None means "not given" and is skipped. Raises a one-line
    ConfigError naming the flag, e.g. `--min-duration nan: must be a finite number`."""
    for name, value in values.items():
        if value is None:
            continue
        if name in OTHER_NUMBERS:
            integer, lo, hi, lo_open, flag = OTHER_NUMBERS[name]
            if not check_number(value, integer=integer, lo=lo, hi=hi, lo_open=lo_open):
                # flags say it as deploy always did ("> 0 and <= 1000"); the bounds are the YAML ones
                phrase = (f"> {lo:g} and <= {hi:g}" if lo_open and not integer
                          else number_phrase(integer=integer, lo=lo, hi=hi, lo_open=lo_open))
                raise ConfigError(f"{flag} {_shown(value)}: must be {phrase}")
            continue
        setting = SETTINGS.get(name)
        if setting is None:
            raise ConfigError(f"unknown run setting {name!r}{did_you_mean(name, [*SETTINGS, *OTHER_NUMBERS])}")
        problem = setting_problem(setting, value)
        if problem is not None:
            where = setting.flag or name
            raise ConfigError(f"{where} {_shown(value)}: {problem}", hint=f"{where}: {setting.help}")


# -- the node validator ------------------------------------------------------------------------------------------


class Doc:
    """Validates the nodes of one YAML document; every error names `display:line ypath`.

    `substitute`, when given, is applied to every string scalar (devices.yaml's `${EDGEPROF_*}`)."""

    def __init__(self, display: str, substitute: Callable[[str, Node, str], str] | None = None) -> None:
        self.display = display
        self.substitute = substitute
        self.constructor = yaml.constructor.SafeConstructor()
        self._items: dict[int, list[tuple[str, Node, Node]]] = {}

    # -- errors --------------------------------------------------------------------------------------------------

    def where(self, node: Node | None, ypath: str) -> str:
        line = f":{node.start_mark.line + 1}" if node is not None else ""
        return f"{self.display}{line}" + (f" {ypath}" if ypath else "")

    def err(self, node: Node | None, ypath: str, message: str, hint: str | None = None) -> ConfigError:
        return ConfigError(f"{self.where(node, ypath)}: {message}", hint=hint)

    # -- reading nodes -------------------------------------------------------------------------------------------

    def construct(self, node: Node, ypath: str) -> Any:
        """A scalar node's Python value (the tree was bounded by compose(), so this is cheap)."""
        try:
            return self.constructor.construct_object(node, deep=True)
        except (ValueError, OverflowError, yaml.YAMLError) as e:  # e.g. a 5000-digit int, 2026-13-45
            text = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise self.err(node, ypath, f"cannot read this value: {text[:200]}") from None

    def kind(self, node: Node) -> str:
        if isinstance(node, MappingNode):
            return "a mapping"
        if isinstance(node, SequenceNode):
            return "a list"
        try:
            value = self.constructor.construct_object(node, deep=True)
        except (ValueError, OverflowError, yaml.YAMLError):
            return f"{node.value[:40]!r}"
        if value is None:
            return "empty"
        text = repr(value)
        return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"

    def is_null(self, node: Node | None) -> bool:
        return node is None or (isinstance(node, ScalarNode) and node.tag == _CORE + "null")

    def mapping(self, node: Node, ypath: str) -> list[tuple[str, Node, Node]]:
        """Items of a mapping node as (key, key_node, value_node); duplicate or non-string keys are errors.

        `<<: *anchor` merge keys are applied; a key written out overrides a merged one."""
        if not isinstance(node, MappingNode):
            raise self.err(node, ypath, f"must be a mapping, not {self.kind(node)}")
        cached = self._items.get(id(node))
        if cached is not None:
            return cached
        explicit = {id(k) for k, _ in node.value if k.tag != _CORE + "merge"}
        try:
            self.constructor.flatten_mapping(node)
        except yaml.MarkedYAMLError as e:
            raise self.err(node, ypath, f"bad merge key: {e.problem}") from None
        items: dict[str, tuple[Node, Node]] = {}
        for knode, vnode in node.value:
            key = self.construct(knode, ypath) if isinstance(knode, ScalarNode) else None
            if not isinstance(key, str):
                shown = self.kind(knode) if key is None else repr(key)
                kpath = f"{ypath}.{key}" if ypath else str(key)
                raise self.err(knode, kpath, f"key {shown} must be a string",
                               hint=f"quote it: \"{key}\":" if key is not None else None)
            if key in items and id(knode) in explicit and id(items[key][0]) in explicit:
                kpath = f"{ypath}.{key}" if ypath else key
                raise self.err(knode, kpath, f"duplicate key (first at line {items[key][0].start_mark.line + 1})")
            items[key] = (knode, vnode)
        out = [(k, kn, vn) for k, (kn, vn) in items.items()]
        self._items[id(node)] = out
        return out

    def seq(self, node: Node, ypath: str, *, scalar_ok: bool = True) -> list[tuple[str, Node]]:
        """Items of a list as (path, node); a single scalar counts as a one-item list."""
        if isinstance(node, SequenceNode):
            if not node.value:
                raise self.err(node, ypath, "must not be empty")
            return [(f"{ypath}[{i}]", n) for i, n in enumerate(node.value)]
        if scalar_ok and isinstance(node, ScalarNode):
            return [(ypath, node)]
        raise self.err(node, ypath, f"must be a list, not {self.kind(node)}")

    def scalar(self, node: Node, ypath: str) -> Any:
        if not isinstance(node, ScalarNode):
            raise self.err(node, ypath, f"must be a single value, not {self.kind(node)}")
        value = self.construct(node, ypath)
        if isinstance(value, str) and self.substitute is not None:
            value = self.substitute(value, node, ypath)
        return value

    def string(self, node: Node, ypath: str, what: str = "a string", *,
               pattern: re.Pattern[str] | None = None) -> str:
        value = self.scalar(node, ypath)
        if isinstance(value, bool) or value is None or not isinstance(value, str | int | float) or value == "":
            raise self.err(node, ypath, f"must be {what}, not {self.kind(node)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.err(node, ypath, f"must be {what}, not {self.kind(node)}")
        value = str(value)
        if len(value) > MAX_PLAIN_STR:
            raise self.err(node, ypath, f"must be {what} of at most {MAX_PLAIN_STR} characters")
        if pattern is not None and not pattern.match(value):
            raise self.err(node, ypath, f"must be {what}, not {value!r}")
        return value

    def integer(self, node: Node, ypath: str, lo: int = 1, hi: int | None = None, *, cap: int | None = None,
                allow_null: bool = False, digits_ok: bool = False) -> int | None:
        """An integer in [lo, hi] (`digits_ok`: a quoted "22" counts); null only with allow_null.

        `hi` is part of what the value means (a port is 1–65535); `cap` is a sanity bound on a value that is
        otherwise open-ended (batch >= 1, at most 65536): both are enforced, they only read differently."""
        value = self.scalar(node, ypath)
        if value is None and allow_null:
            return None
        if digits_ok and isinstance(value, str) and value.strip().isdigit() and len(value) < 20:
            value = int(value)
        if not check_number(value, integer=True, lo=lo, hi=hi if hi is not None else cap):
            phrase = number_phrase(integer=True, lo=lo, hi=hi) + (f" (at most {cap})" if cap is not None else "")
            raise self.err(node, ypath, f"must be {phrase}{' or null' if allow_null else ''}, not {self.kind(node)}")
        return int(value)

    def number(self, node: Node, ypath: str, *, lo: float = 0, hi: float | None = None,
               lo_open: bool = True) -> float:
        """A finite number in (lo, hi] (lo_open) or [lo, hi]; a quoted number counts."""
        value = self.scalar(node, ypath)
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                pass
        if not check_number(value, integer=False, lo=lo, hi=hi, lo_open=lo_open):
            phrase = number_phrase(integer=False, lo=lo, hi=hi, lo_open=lo_open)
            raise self.err(node, ypath, f"must be {phrase}", hint=f"got {self.kind(node)}")
        return float(value)

    def setting(self, node: Node, ypath: str, setting: Setting) -> Any:
        """A run setting (vocab.SETTINGS) checked by its own rule."""
        if setting.kind == "mapping":
            return self.options(node, ypath)
        value = self.scalar(node, ypath)
        problem = setting_problem(setting, value)
        if problem is not None:
            raise self.err(node, ypath, f"{problem}, not {self.kind(node)}", hint=setting.help)
        if setting.kind == "duration" and value is not None:
            return setting.typed(value)  # `30m` → 1800.0 (vocab.parse_duration)
        return float(value) if setting.kind == "number" and value is not None else value

    def plain_scalar(self, node: Node, ypath: str) -> str | int | float | bool | None:
        """A pass-through scalar: a string (bounded), a finite number, a bool or null."""
        value = self.scalar(node, ypath)
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int | float):
            if not check_number(value, integer=False, lo=-1e15, hi=1e15):
                raise self.err(node, ypath, f"must be a finite number of sane size, not {self.kind(node)}")
            return value
        text = str(value)
        if len(text) > MAX_PLAIN_STR:
            raise self.err(node, ypath, f"must be at most {MAX_PLAIN_STR} characters")
        return text

    def plain_list(self, node: Node, ypath: str) -> list[Any]:
        items = self.seq(node, ypath, scalar_ok=False) if isinstance(node, SequenceNode) and node.value else []
        if len(items) > MAX_PLAIN_ITEMS:
            raise self.err(node, ypath, f"must have at most {MAX_PLAIN_ITEMS} items")
        out = []
        for p, n in items:
            if not isinstance(n, ScalarNode):
                raise self.err(n, p, f"must be a single value, not {self.kind(n)}")
            out.append(self.plain_scalar(n, p))
        return out

    def options(self, node: Node, ypath: str) -> dict[str, Any]:
        """Options passed through to the device (runtime_options): each value a scalar, a list of scalars, or
        a mapping of scalars (e.g. delegate_options), all bounded. Nothing deeper is passed on."""
        items = self.mapping(node, ypath)
        if len(items) > MAX_PLAIN_ITEMS:
            raise self.err(node, ypath, f"must have at most {MAX_PLAIN_ITEMS} keys")
        out: dict[str, Any] = {}
        for key, _kn, vn in items:
            p = f"{ypath}.{key}"
            if isinstance(vn, SequenceNode):
                out[key] = self.plain_list(vn, p)
            elif isinstance(vn, MappingNode):
                sub = self.mapping(vn, p)
                if len(sub) > MAX_PLAIN_ITEMS:
                    raise self.err(vn, p, f"must have at most {MAX_PLAIN_ITEMS} keys")
                inner: dict[str, Any] = {}
                for k2, _k2n, v2 in sub:
                    if not isinstance(v2, ScalarNode):
                        raise self.err(v2, f"{p}.{k2}", f"must be a single value, not {self.kind(v2)}")
                    inner[k2] = self.plain_scalar(v2, f"{p}.{k2}")
                out[key] = inner
            else:
                out[key] = self.plain_scalar(vn, p)
        return out

    def match_value(self, node: Node, ypath: str) -> Any:
        """A value in a match rule: a scalar, or a list of scalars."""
        if isinstance(node, SequenceNode):
            return self.plain_list(node, ypath)
        return self.plain_scalar(node, ypath)


def resolve_path(value: str, base_dir: str) -> str:
    """A path from a configuration file: ~ expanded, relative to the file's directory."""
    value = os.path.expanduser(value)
    return value if os.path.isabs(value) else os.path.normpath(os.path.join(base_dir, value))
