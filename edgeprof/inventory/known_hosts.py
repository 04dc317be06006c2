"""SSH host key trust: OpenSSH known_hosts files, read, matched and written.

Owns: parsing known_hosts (plain, wildcard, negated and hashed host patterns, `[host]:port`, `@revoked`), the
verdict for a key a host presents (trusted / unknown / changed / revoked) across the user's file and a lab file,
SHA256 fingerprints, and recording a key (`edgeprof devices trust`): appended, or replacing the host's old line.
Does not own: connecting to the host (transport.ssh) or asking the user (cli.devices). There is no
"accept anything" mode: an unknown or changed key is always an error until a person trusts it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import HostKeyError

DEFAULT_USER_KNOWN_HOSTS = "~/.ssh/known_hosts"


def host_id(host: str, port: int) -> str:
    """The name a host has in known_hosts: `host` on port 22, else `[host]:port` (as OpenSSH writes it)."""
    return host if port == 22 else f"[{host}]:{port}"


def fingerprint(blob: bytes) -> str:
    """OpenSSH's SHA256 fingerprint of a public key blob: `SHA256:` + unpadded base64."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode("ascii").rstrip("=")


@dataclass(frozen=True)
class KnownKey:
    """One key line of a known_hosts file."""

    path: str
    line: int  # 1-based
    patterns: str  # the host field as written (or |1|salt|hash)
    keytype: str
    blob: bytes
    marker: str | None = None  # "revoked" | "cert-authority" | None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.blob)

    @property
    def hashed(self) -> bool:
        return self.patterns.startswith("|1|")

    def matches(self, hid: str) -> bool:
        return _match_patterns(self.patterns, hid)

    def names_only(self, hid: str) -> bool:
        """True when this line is about `hid` alone (so replacing it touches no other host)."""
        if self.hashed:
            return self.matches(hid)
        return self.patterns.lower() == hid.lower()


@dataclass
class Verdict:
    status: str  # "trusted" | "unknown" | "changed" | "revoked"
    keytype: str
    fingerprint: str
    matched: KnownKey | None = None
    recorded: list[KnownKey] = field(default_factory=list)  # other keys recorded for the host

    @property
    def same_type(self) -> list[KnownKey]:
        return [k for k in self.recorded if k.keytype == self.keytype]


class KnownHosts:
    """The known_hosts entries of several files (missing files are fine), in order."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = [os.path.expanduser(p) for p in paths]
        self.entries: list[KnownKey] = []
        for p in self.paths:
            self.entries.extend(read_known_hosts(p))

    def for_host(self, hid: str) -> list[KnownKey]:
        """Key lines (not revocations, not CAs) that name this host."""
        return [e for e in self.entries if e.marker is None and e.matches(hid)]

    def key_types(self, hid: str) -> list[str]:
        """Key types recorded for the host, in file order, without repeats (to steer negotiation)."""
        out: list[str] = []
        for e in self.for_host(hid):
            if e.keytype not in out:
                out.append(e.keytype)
        return out

    def verify(self, hid: str, keytype: str, blob: bytes) -> Verdict:
        fp = fingerprint(blob)
        for e in self.entries:
            if e.marker == "revoked" and e.blob == blob:
                return Verdict("revoked", keytype, fp, matched=e)
        recorded = self.for_host(hid)
        for e in recorded:
            if e.keytype == keytype and e.blob == blob:
                return Verdict("trusted", keytype, fp, matched=e, recorded=recorded)
        if any(e.keytype == keytype for e in recorded):
            return Verdict("changed", keytype, fp, recorded=recorded)
        return Verdict("unknown", keytype, fp, recorded=recorded)


def read_known_hosts(path: str) -> list[KnownKey]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise HostKeyError(f"cannot read known_hosts file {path}: {e.strerror}") from None
    out = []
    for i, raw in enumerate(lines, 1):
        entry = _parse_line(path, i, raw)
        if entry is not None:
            out.append(entry)
    return out


def _parse_line(path: str, lineno: int, raw: str) -> KnownKey | None:
    line = raw.strip()
    if not line or line.startswith("#"):
        return None
    parts = line.split()
    marker = None
    if parts[0].startswith("@"):
        marker = parts[0][1:]
        parts = parts[1:]
        if marker not in ("revoked", "cert-authority"):
            return None
    if len(parts) < 3:
        return None
    try:
        blob = base64.b64decode(parts[2], validate=True)
    except (binascii.Error, ValueError):
        return None
    return KnownKey(path, lineno, parts[0], parts[1], blob, marker)


def _wildcard_re(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern) + r"\Z",
                      re.IGNORECASE)


def _match_patterns(patterns: str, hid: str) -> bool:
    if patterns.startswith("|1|"):
        try:
            _, _, salt64, hash64 = patterns.split("|", 3)
            salt, want = base64.b64decode(salt64), base64.b64decode(hash64)
        except (ValueError, binascii.Error):
            return False
        got = hmac.new(salt, hid.encode("utf-8"), hashlib.sha1).digest()
        return hmac.compare_digest(got, want)
    matched = False
    for pat in patterns.split(","):
        negate = pat.startswith("!")
        if negate:
            pat = pat[1:]
        if _wildcard_re(pat).match(hid):
            if negate:
                return False
            matched = True
    return matched


@dataclass
class Recorded:
    path: str
    added: bool  # False: the key was already there
    removed: list[KnownKey]  # old lines replaced
    stale_elsewhere: list[KnownKey]  # conflicting lines in other files we did not touch


def record_host_key(path: str, hid: str, keytype: str, blob: bytes, *, replace: bool = False,
                    also_read: Sequence[str] = ()) -> Recorded:
    """Add `hid keytype key` to the known_hosts file `path` (created 0600 in a 0700 directory if needed).

    A different key of the same type already recorded for the host in `path` is a changed key: refused with
    HostKeyError unless `replace`, which removes those lines (only lines naming this host alone; a shared or
    wildcard line must be edited by hand). A conflicting line in one of the `also_read` files is refused the same
    way; with `replace` it is reported (stale_elsewhere), not touched.
    """
    path = os.path.expanduser(path)
    own = [e for e in read_known_hosts(path) if e.marker is None and e.matches(hid)]
    if any(e.keytype == keytype and e.blob == blob for e in own):
        return Recorded(path, False, [], _stale(also_read, path, hid, keytype, blob))
    conflicting = [e for e in own if e.keytype == keytype]
    stale = _stale(also_read, path, hid, keytype, blob)
    if (conflicting or stale) and not replace:
        old = (conflicting or stale)[0]
        raise HostKeyError(
            f"{old.where} records a different {keytype} key for {hid} ({old.fingerprint}); the host now presents "
            f"{fingerprint(blob)}",
            hint="if you verified the new fingerprint on the board itself, rerun with --replace")
    shared = [e for e in conflicting if not e.names_only(hid)]
    if shared:
        raise HostKeyError(f"{shared[0].where} lists {hid} together with other hosts ({shared[0].patterns})",
                           hint="edit that line by hand, then rerun")
    d = os.path.dirname(path)
    if d and not os.path.isdir(d):
        os.makedirs(d, mode=0o700, exist_ok=True)
    drop = {e.line for e in conflicting}
    try:
        if drop:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines(keepends=True)
            kept = [ln for i, ln in enumerate(lines, 1) if i not in drop]
            tmp = f"{path}.edgeprof-tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.writelines(kept)
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
            os.replace(tmp, path)
        new = not os.path.exists(path)
        with open(path, "a+", encoding="utf-8") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() > 0:
                f.seek(f.tell() - 1)
                last = f.read(1)
                f.seek(0, os.SEEK_END)
                if last != "\n":
                    f.write("\n")
            f.write(f"{hid} {keytype} {base64.b64encode(blob).decode('ascii')}\n")
        if new:
            os.chmod(path, 0o600)
    except OSError as e:
        raise HostKeyError(f"cannot write known_hosts file {path}: {e.strerror}") from None
    return Recorded(path, True, conflicting, stale)


def _stale(paths: Sequence[str], skip: str, hid: str, keytype: str, blob: bytes) -> list[KnownKey]:
    out: list[KnownKey] = []
    for p in paths:
        p = os.path.expanduser(p)
        if os.path.abspath(p) == os.path.abspath(skip):
            continue
        out.extend(e for e in read_known_hosts(p)
                   if e.marker is None and e.matches(hid) and e.keytype == keytype and e.blob != blob)
    return out
