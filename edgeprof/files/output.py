"""What edgeprof writes for people and other programs, made safe: output paths that would overwrite the results
database, text that would act on a terminal or a spreadsheet.

Owns: writing an output file whole or not at all (`write_output`), showing control characters and escape
sequences visibly (`visible`), and neutralising CSV text cells that a spreadsheet would run as a formula
(`csv_text`, after OWASP's CSV-injection guidance).
Does not own: refusing an output path that is the results database (store.location.refuse_db_path), rendering
(cli/ui.py, report/).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from ..errors import ConfigError

__all__ = ["brief", "csv_text", "visible", "write_output"]

# C0 and C1 control characters, DEL, and the bidirectional marks and overrides that reorder what is shown
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: str, *, lines: bool = False) -> str:
    """`text` with every control character shown as its Python escape (ESC as `\\x1b`), so nothing a result
    holds (a model or device name, a reason) reaches a terminal or a report raw. `lines`: newlines and tabs stay
    (multi-line text such as a stderr tail). Text without control characters is returned unchanged."""
    pattern = _CONTROL_BUT_LINES if lines else _CONTROL
    return pattern.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                       else f"\\u{ord(m.group()):04x}", text)


def brief(text: object, limit: int = 60) -> str:
    """`text` quoted for a one-line message: repr (control characters escaped), cut to `limit` characters with
    its length said, so a 70 000-character argument does not make a 70 000-character error."""
    t = str(text)
    return repr(t) if len(t) <= limit else f"{t[:limit]!r}… ({len(t)} characters)"


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_text(value: object) -> object:
    """A CSV cell: numbers (and None) as they are; text with control characters shown visibly and, when it starts
    like a formula (= + - @ tab CR, OWASP), prefixed with a single quote so a spreadsheet shows it as text."""
    if not isinstance(value, str):
        return value
    return ("'" if value.startswith(_FORMULA_START) else "") + visible(value)


def write_output(path: str | os.PathLike[str], text: str, flag: str) -> None:
    """Write `text` to the file `path` whole or not at all: a regular file (or a new one) is written to a private
    temporary file beside it and renamed into place, so a full disk leaves the old file (or none), never half of
    the new one. A device or FIFO (/dev/stdout) is written directly, without blocking on a FIFO that nobody
    reads. Every failure is one ConfigError line naming the flag and the path."""
    p = Path(os.path.realpath(Path(path).expanduser()))  # through a link, as open() would write
    try:
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise ConfigError(f"{flag} {path}: cannot write it ({e.strerror or e})", hint="give another path") from None
    data = text.encode("utf-8")
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise ConfigError(f"{flag} {path}: is a folder", hint="give a file path")
        try:
            fd = os.open(p, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
            try:
                view = memoryview(data)
                while view:
                    n = os.write(fd, view)
                    view = view[n:]
            finally:
                os.close(fd)
        except OSError as e:
            raise ConfigError(f"{flag} {path}: cannot write it ({e.strerror or e})",
                              hint="give a file path with room to write") from None
        return
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            if st is not None:
                os.chmod(tmp, stat.S_IMODE(st.st_mode))
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
            os.replace(tmp, p)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as e:
        raise ConfigError(f"{flag} {path}: cannot write it ({e.strerror or e}); nothing was written",
                          hint="free some space or give another path") from None
