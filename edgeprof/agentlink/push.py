"""Putting files on a device by content: the workdir set up in one remote command (stale partial uploads
removed), each upload written under a temporary name, verified on the device by sha256, then renamed — so a
partial or corrupted upload is never used — and a board's full or read-only disk named as such.

Owns: sha256_file, remote_sha256, push_file, ensure_workdir and the upload itself. Does not own: which files
are pushed (run/execute.py, link.py's AgentLink.push_artifact).
"""

from __future__ import annotations

import errno
import hashlib
import os
import posixpath
import re
import secrets
from pathlib import Path

from ..errors import (
    DeviceError,
    TransportError,
)
from ..records import Device
from ..transport.base import Transport

_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def remote_sha256(transport: Transport, path: str) -> str | None:
    """sha256 of a file on the device (coreutils sha256sum), or None if it does not exist."""
    r = transport.run(["sha256sum", "--", path], timeout=120)
    if r.returncode != 0:
        return None
    digest = r.stdout.split(" ", 1)[0].strip().lower()
    return digest if _SHA_RE.match(digest) else None


# One remote command that verifies an upload and renames it into place (or removes it): no partial or
# corrupted file is ever left under the final name.
_COMMIT_SCRIPT = (
    'got=$(sha256sum -- "$1" 2>/dev/null | cut -d" " -f1); '
    'if [ "$got" = "$3" ]; then mv -f -- "$1" "$2" && exit 0; rm -f -- "$1"; exit 8; fi; '
    'rm -f -- "$1"; printf "%s" "$got"; exit 9'
)
# uploads not written to for this long are left over from a lost connection or a killed host: removed at connect
STALE_PART_MIN = 10
# One remote command for the start of every session: expand ~, create the workdir, remove stale partial uploads
# (in the workdir, in artifacts/ and in a model folder there: artifacts/<digest>.ortgenai/), hash the agent if
# present.
_SETUP_SCRIPT = (
    'umask 077; w="$1"; case "$w" in "~") w="$HOME";; "~/"*) w="$HOME/${w#"~/"}";; esac; '
    'case "$w" in /*) ;; *) w="$PWD/$w";; esac; '
    'mkdir -p -- "$w" "$w/artifacts" || exit 3; printf "%s\\n" "$w"; '
    f'find "$w" "$w/artifacts" -maxdepth 1 -type f -name "*.part-*" -mmin +{STALE_PART_MIN} '
    '-exec rm -f {} \\; 2>/dev/null; '
    f'find "$w/artifacts" -mindepth 2 -maxdepth 2 -type f -name "*.part-*" -mmin +{STALE_PART_MIN} '
    '-exec rm -f {} \\; 2>/dev/null; '
    'sha256sum -- "$w/$2" 2>/dev/null; exit 0'
)


_FULL_ERRNOS = tuple(getattr(errno, n) for n in ("ENOSPC", "EDQUOT") if hasattr(errno, n))


def _disk_trouble(transport: Transport, remote: str, need: int, exc: BaseException) -> DeviceError | None:
    """The error for an upload that failed because the board's disk is full or read-only, else None. A local
    copy says so by its errno; SFTP says only "Failure", so the board is asked how much room is left there."""
    where = posixpath.dirname(remote)
    if posixpath.basename(where) == "artifacts":
        where = posixpath.dirname(where)  # the workdir, as devices.yaml names it
    code = exc.errno if isinstance(exc, OSError) else None
    free = None
    if code in _FULL_ERRNOS:
        word = "full"
    elif code == errno.EROFS:
        word = "read-only"
    else:
        try:
            r = transport.run(["df", "-Pk", "--", where], timeout=15)
            free = int(r.stdout.splitlines()[1].split()[3]) if r.returncode == 0 else None
        except Exception:  # noqa: BLE001 - the connection is gone: it was not the disk, as far as we know
            return None
        if free is None or free * 1024 >= need:
            return None
        word = "full"
    room = f" ({free} KiB free, the upload needs {need // 1024 + 1} KiB)" if free is not None else ""
    return DeviceError(f"device {transport.device_name}: the board's disk is {word} at {where}{room}",
                       hint=f"free space there (df -h {where}) or set another `workdir:` for this device in "
                            "devices.yaml" if word == "full" else
                            "remount it read-write or set another `workdir:` for this device in devices.yaml")


def _upload(transport: Transport, local: str | Path, remote: str, sha256: str) -> int:
    tmp = f"{remote}.part-{secrets.token_hex(6)}"
    try:
        moved = transport.put_file(str(local), tmp)
    except BaseException as e:  # a lost connection, Ctrl-C, anything: never leave the partial file on the board
        try:
            transport.run(["rm", "-f", "--", tmp], timeout=15)
        except Exception:  # noqa: BLE001 - the connection is gone: the next connect removes it as stale
            pass
        if isinstance(e, OSError | TransportError):
            trouble = _disk_trouble(transport, remote, os.path.getsize(local), e)
            if trouble is not None:
                raise trouble from None
        raise
    r = transport.run(["sh", "-c", _COMMIT_SCRIPT, "edgeprof-commit", tmp, remote, sha256], timeout=120)
    if r.returncode == 9:
        raise TransportError(
            f"upload of {posixpath.basename(remote)} to device {transport.device_name} arrived corrupted "
            f"(sha256 {r.stdout.strip()[:16] or 'unreadable'}… != {sha256[:16]}…)",
            hint="check free disk space in the device workdir and retry",
        )
    if r.returncode != 0:
        raise TransportError(f"could not move the upload into place on device {transport.device_name}: "
                             f"{r.stderr.strip() or 'exit ' + str(r.returncode)}",
                             hint="check permissions and free space in the device workdir")
    return moved


def push_file(transport: Transport, local: str | Path, remote: str, sha256: str) -> int:
    """Put `local` at `remote` unless the device already has it with this sha256. Returns bytes moved.

    Upload goes to a temporary name next to the target, is verified on the device, then renamed: a partial or
    corrupted upload is never used (and is removed)."""
    if remote_sha256(transport, remote) == sha256:
        return 0
    return _upload(transport, local, remote, sha256)


def ensure_workdir(transport: Transport, device: Device, agent_name: str = "") -> tuple[str, str | None]:
    """Create the workdir (and artifacts/) in one remote command; returns (absolute workdir, sha256 of
    workdir/agent_name if that file exists)."""
    r = transport.run(["sh", "-c", _SETUP_SCRIPT, "edgeprof-setup", device.workdir, agent_name or "."],
                      timeout=120)
    if r.returncode < 0:  # killed by a signal: the board is going down or the session was cut, not a bad workdir
        raise TransportError(f"device {device.name}: the setup command was killed (signal) while creating the "
                             f"workdir; the board may be shutting down or the connection was cut",
                             detail=r.stderr.strip() or None)
    lines = r.stdout.splitlines()
    if r.returncode != 0 or not lines or not lines[0].startswith("/"):
        raise DeviceError(
            f"cannot create workdir {device.workdir!r} on device {device.name}: "
            f"{r.stderr.strip() or 'exit ' + str(r.returncode)}",
            hint="set a writable `workdir:` for this device in devices.yaml",
        )
    workdir = lines[0].rstrip("/") or "/"
    digest = lines[1].split(" ", 1)[0].strip().lower() if len(lines) > 1 else ""
    return workdir, digest if _SHA_RE.match(digest) else None
