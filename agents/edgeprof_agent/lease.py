"""Device lease: one controller at a time measures on this board.

Owns: the lock file `<workdir>/edgeprof.lease` and its protocol.
  - A controller (a sweep) starts one agent that calls `lease`: an exclusive, non-blocking flock on the file,
    held by this agent process for as long as it lives. The file then holds who holds it (controller, sweep,
    host, pid, since) and a random token. When the holder dies (controller killed, connection lost), the
    kernel releases the lock with the process: there is nothing stale to clean up.
  - A watchdog ends the lease (and this agent) when the controller has sent nothing for `ttl_s`: a controller
    that lost its network cannot hold a board forever. Controllers renew well within the ttl.
  - `run` with the holder's token measures; `run` without a token (a plain `edgeprof deploy`) takes a SHARED
    lock for the duration of the run, so it is refused while a sweep holds the board and a sweep waits while
    it measures. A `run` with a token that is not the current holder's is refused.
  - Every acquisition and release is appended to `<workdir>/edgeprof.lease.log` (one JSON object a line).
Does not own: waiting and retrying (the host's scheduler does that), what runs under the lease.
Python 3.6 compatible, standard library only.
"""

import errno
import fcntl
import json
import os
import socket
import threading
import time
import uuid

from .protocol import OpError
from .vocab import LEASE_TTL_S, ErrorKind

LEASE_FILE = "edgeprof.lease"
LOG_FILE = "edgeprof.lease.log"
DEFAULT_TTL_S = LEASE_TTL_S  # when a request names no ttl_s (the host's default is the same: vocab.py)
_BUSY = (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK)


def _log(msg):
    import sys
    sys.stderr.write("edgeprof-agent: lease: %s\n" % msg)
    sys.stderr.flush()


def _pid_alive(pid):
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError, TypeError) as e:
        return getattr(e, "errno", None) == errno.EPERM
    return True


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def open_private(path, flags):
    """os.open that never follows a symbolic link planted at `path` (O_NOFOLLOW: ELOOP, refused) and creates
    the file 0600 (owner only)."""
    try:
        return os.open(path, flags | _NOFOLLOW | _CLOEXEC, 0o600)
    except OSError as e:
        if e.errno == errno.ELOOP or (e.errno == errno.EMLINK and os.path.islink(path)):
            raise OpError(ErrorKind.BAD_PATH, "%s is a symbolic link: refused (edgeprof's own files in the workdir are "
                          "never links)" % path, hint="remove it on the board (rm %s) and retry" % path)
        raise


def read_holder(path):
    """What the lease file says about its holder ({} when empty or unreadable)."""
    try:
        fd = open_private(path, os.O_RDONLY)
        with os.fdopen(fd, "r") as f:
            text = f.read()
        return json.loads(text) if text.strip() else {}
    except (IOError, OSError, ValueError, OpError):
        return {}


def holder_now(path):
    """Who holds the board now: the lease holder's record, a note for an unleased run, or None when free."""
    try:
        fd = open_private(path, os.O_RDWR | os.O_CREAT)
    except (OSError, OpError):
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except (IOError, OSError) as e:
            if e.errno not in _BUSY:
                raise
            info = read_holder(path)
            if info.get("token") and _pid_alive(info.get("agent_pid")):
                return info
            return {"kind": "deploy", "note": "an edgeprof deploy without a lease is measuring"}
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def describe(info):
    if not info:
        return "nobody"
    if info.get("kind") == "deploy":
        return info.get("note", "an unleased run")
    since = info.get("since")
    ok = isinstance(since, (int, float)) and not isinstance(since, bool)  # a holder file is not trusted
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since)) if ok and since else "?"
    what = info.get("sweep_id") or info.get("purpose") or "a controller"
    return "%s from %s since %s" % (what, info.get("controller") or "?", when)


class Lease(object):
    """The lease as held (or not) by this agent process."""

    def __init__(self, workdir, on_expire=None):
        self.path = os.path.join(workdir, LEASE_FILE)
        self.log_path = os.path.join(workdir, LOG_FILE)
        self.fd = None
        self.info = None
        self.ttl_s = DEFAULT_TTL_S
        self.last_seen = time.time()
        self._lock = threading.Lock()
        self._watchdog = None
        self._on_expire = on_expire or (lambda: os._exit(4))

    @property
    def token(self):
        return self.info.get("token") if self.info else None

    def touch(self):
        self.last_seen = time.time()

    def _append_log(self, event, info):
        line = dict(info or {})
        line["event"] = event
        line["at"] = time.time()
        try:
            fd = open_private(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            with os.fdopen(fd, "a") as f:
                f.write(json.dumps(line, sort_keys=True) + "\n")
        except (IOError, OSError, OpError) as e:
            _log("cannot write %s: %s" % (self.log_path, e))

    def acquire(self, holder=None, ttl_s=None):
        """holder: who asks ({"controller", "sweep_id", "purpose", "user"}); ttl_s: None = DEFAULT_TTL_S."""
        with self._lock:
            self.touch()
            ttl = float(ttl_s or DEFAULT_TTL_S)
            if ttl <= 0:
                raise OpError("bad_request", "lease ttl_s must be > 0")
            self.ttl_s = ttl
            if self.fd is not None:
                return {"acquired": True, "token": self.token, "holder": self.info, "renewed": True}
            fd = open_private(self.path, os.O_RDWR | os.O_CREAT)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except (IOError, OSError) as e:
                os.close(fd)
                if e.errno in _BUSY:
                    holder = holder_now(self.path) or {"kind": "unknown"}
                    return {"acquired": False, "holder": holder, "holder_text": describe(holder)}
                raise
            holder = holder or {}
            info = dict((k, holder[k]) for k in ("controller", "sweep_id", "purpose", "user") if k in holder)
            info.update({"token": uuid.uuid4().hex, "agent_pid": os.getpid(), "host": socket.gethostname(),
                         "since": time.time(), "ttl_s": ttl})
            data = json.dumps(info, sort_keys=True).encode("utf-8")
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, data)
            os.fsync(fd)
            self.fd = fd
            self.info = info
            self._append_log("acquired", info)
            if self._watchdog is None:
                self._watchdog = threading.Thread(target=self._watch, name="lease-watchdog")
                self._watchdog.daemon = True
                self._watchdog.start()
            return {"acquired": True, "token": info["token"], "holder": info}

    def renew(self, token=None):
        with self._lock:
            self.touch()
            if self.fd is None:
                return {"held": False, "reason": "this agent holds no lease (it expired or was never taken)"}
            if token and token != self.token:
                return {"held": False, "reason": "the lease token does not match this agent's lease"}
            return {"held": True, "token": self.token, "age_s": time.time() - self.info["since"]}

    def release(self, reason="released"):
        with self._lock:
            if self.fd is None:
                return {"released": False}
            try:
                os.ftruncate(self.fd, 0)  # nobody holds it now; stale text would mislead `holder_now`
            except OSError:
                pass
            info = dict(self.info or {})
            info["reason"] = reason
            self._append_log("released", info)
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None
                self.info = None
            return {"released": True}

    def _watch(self):
        while True:
            time.sleep(min(1.0, self.ttl_s / 4.0))
            if self.fd is None:
                continue
            silent = time.time() - self.last_seen
            if silent > self.ttl_s:
                _log("the controller sent nothing for %.0f s (ttl %.0f s): releasing the lease and exiting"
                     % (silent, self.ttl_s))
                self.release("expired: controller silent for %.0f s" % silent)
                self._on_expire()
                return


class RunGuard(object):
    """Held around a `run`: checks the caller's token against the lease, or takes a shared lock when the
    caller has none (an unleased deploy), so a lease cannot be taken in the middle of the run."""

    def __init__(self, workdir, token=None, own_lease=None):
        self.path = os.path.join(workdir, LEASE_FILE)
        self.token = token
        self.own = own_lease
        self.fd = None

    def __enter__(self):
        token = self.token
        if self.own is not None and self.own.fd is not None:
            return self  # this very agent holds the lease
        if token:
            info = read_holder(self.path)
            held = holder_now(self.path)
            if not held or info.get("token") != token:
                raise OpError(ErrorKind.LEASED, "this controller's lease on the device is gone (now held by %s)"
                              % describe(held), holder=describe(held),
                              hint="the lease expired or the device restarted; the sweep takes it again")
            return self
        fd = open_private(self.path, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except (IOError, OSError) as e:
            os.close(fd)
            if e.errno in _BUSY:
                held = holder_now(self.path)
                raise OpError(ErrorKind.LEASED, "the device is leased by %s" % describe(held), holder=describe(held),
                              hint="wait for that sweep to finish (edgeprof sweeps hold a board only while they run)")
            raise
        self.fd = fd
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None
        return False
