"""known_hosts matching and recording (no network: keys are random blobs)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from pathlib import Path

import pytest

from edgeprof.errors import HostKeyError
from edgeprof.inventory.known_hosts import KnownHosts, fingerprint, host_id, record_host_key

ED = "ssh-ed25519"


def blob() -> bytes:
    return os.urandom(51)


def line(hosts: str, b: bytes, keytype: str = ED) -> str:
    return f"{hosts} {keytype} {base64.b64encode(b).decode()}\n"


def hashed(hid: str) -> str:
    salt = os.urandom(20)
    digest = hmac.new(salt, hid.encode(), hashlib.sha1).digest()
    return f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"


def test_host_id_and_fingerprint() -> None:
    assert host_id("10.0.0.5", 22) == "10.0.0.5"
    assert host_id("10.0.0.5", 2222) == "[10.0.0.5]:2222"
    b = b"\x00\x01"
    assert fingerprint(b) == "SHA256:" + base64.b64encode(hashlib.sha256(b).digest()).decode().rstrip("=")


def test_verdicts(tmp_path: Path) -> None:
    k1, k2, k3 = blob(), blob(), blob()
    f = tmp_path / "kh"
    f.write_text("# comment\n\n" + line("nano,10.0.0.5", k1) + line("[10.0.0.*]:2222,![10.0.0.9]:2222", k2)
                 + line(hashed("orin"), k3) + "garbage line\n" + f"@revoked * {ED} {base64.b64encode(k3).decode()}\n")
    kh = KnownHosts([str(f), str(tmp_path / "missing")])
    assert kh.verify("10.0.0.5", ED, k1).status == "trusted"
    assert kh.verify("10.0.0.5", ED, k1).matched.line == 3  # type: ignore[union-attr]
    assert kh.verify("NANO", ED, k1).status == "trusted"  # host names are case-insensitive
    assert kh.verify("10.0.0.5", ED, k2).status == "changed"
    assert kh.verify("10.0.0.5", "ecdsa-sha2-nistp256", k2).status == "unknown"  # other type recorded only
    assert kh.verify("[10.0.0.7]:2222", ED, k2).status == "trusted"
    assert kh.verify("[10.0.0.9]:2222", ED, k2).status == "unknown"  # negated pattern
    assert kh.verify("[10.0.0.7]:22", ED, k2).status == "unknown"
    assert kh.verify("orin", ED, k3).status == "revoked"
    assert kh.verify("elsewhere", ED, blob()).status == "unknown"
    assert kh.key_types("10.0.0.5") == [ED]


def test_record_appends_and_creates_private_file(tmp_path: Path) -> None:
    f = tmp_path / "ssh" / "known_hosts"
    k = blob()
    rec = record_host_key(str(f), "[127.0.0.1]:2200", ED, k)
    assert rec.added and f.read_text() == line("[127.0.0.1]:2200", k)
    assert f.stat().st_mode & 0o777 == 0o600 and f.parent.stat().st_mode & 0o777 == 0o700
    assert not record_host_key(str(f), "[127.0.0.1]:2200", ED, k).added  # already there
    other = tmp_path / "other"
    other.write_text("x y z")  # no trailing newline: the new line must start on its own line
    record_host_key(str(other), "h", ED, k)
    assert other.read_text().splitlines()[1] == line("h", k).strip()


def test_record_refuses_changed_key_without_replace(tmp_path: Path) -> None:
    f = tmp_path / "kh"
    old, new, unrelated = blob(), blob(), blob()
    f.write_text(line("gw", unrelated) + line("[127.0.0.1]:2200", old) + line(hashed("[127.0.0.1]:2200"), old))
    with pytest.raises(HostKeyError, match="records a different ssh-ed25519 key") as e:
        record_host_key(str(f), "[127.0.0.1]:2200", ED, new)
    assert "--replace" in str(e.value)
    rec = record_host_key(str(f), "[127.0.0.1]:2200", ED, new, replace=True)
    assert [r.line for r in rec.removed] == [2, 3]
    assert f.read_text() == line("gw", unrelated) + line("[127.0.0.1]:2200", new)


def test_replace_never_edits_shared_lines_or_other_files(tmp_path: Path) -> None:
    f = tmp_path / "kh"
    old, new = blob(), blob()
    f.write_text(line("a,b", old))
    with pytest.raises(HostKeyError, match="together with other hosts"):
        record_host_key(str(f), "a", ED, new, replace=True)
    user = tmp_path / "user_kh"
    user.write_text(line("c", old))
    lab = tmp_path / "lab_kh"
    with pytest.raises(HostKeyError, match="records a different"):
        record_host_key(str(lab), "c", ED, new, also_read=[str(user)])
    rec = record_host_key(str(lab), "c", ED, new, replace=True, also_read=[str(user)])
    assert rec.added and [s.path for s in rec.stale_elsewhere] == [str(user)]
    assert user.read_text() == line("c", old)  # untouched
