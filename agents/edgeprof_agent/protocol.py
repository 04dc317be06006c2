"""JSON-lines protocol between host and agent.

Owns: message framing and shapes. One JSON object per line, UTF-8.
  host  -> agent  request: {"id": 1, "op": "hello", "params": {...}}
  agent -> host   reply:   {"id": 1, "ok": true, "result": {...}}
                           {"id": 1, "ok": false, "error": {"type": "runtime_missing", "message": "...", "hint": "..."}}
  agent -> host   event:   {"event": "progress" | "log", ...}   (no id; any number before a reply)
What goes in "params", "result", "error" and events is a record of messages.py (one per op), both sides import.
The first request must be "hello" carrying the host's protocol version; the agent refuses anything else first.
stdout carries protocol lines only; logs go to stderr. Nothing received is ever executed or unpickled.
received_ns() says when the request being answered was read (a run's phases start there: worker.py).
Does not own: what the ops do (worker.py).
"""

import json
import os
import sys
import threading

from . import PROTOCOL_VERSION
from .clock import now_ns
from .messages import ErrorReply, ProgressEvent
from .vocab import ErrorKind

_write_lock = threading.Lock()
_received = [None, None]  # (pid, clock.now_ns) of read_request's last request


class ProtocolError(Exception):
    pass


class OpError(Exception):
    """An operation failed in a way the host should show the user (type, one-line message, hint)."""

    def __init__(self, type_, message, hint=None, detail=None, protocol=None, holder=None):
        Exception.__init__(self, message)
        self.type = type_  # an ErrorKind constant
        self.message = message
        self.hint = hint
        self.detail = detail
        self.protocol = protocol
        self.holder = holder  # ErrorKind.LEASED: who holds the lease, since when

    def reply(self):
        return ErrorReply(type=self.type, message=self.message, hint=self.hint or None,
                          detail=self.detail or None, protocol=self.protocol, holder=self.holder or None)

    def to_dict(self):
        return self.reply().to_dict()


def _default(obj):
    # numpy scalars and similar: fall back to float/int/str, never pickle
    for cast in (int, float):
        try:
            v = cast(obj)
            if v == obj:
                return v
        except Exception:
            pass
    return str(obj)


def write_message(msg, stream=None):
    stream = stream or sys.stdout
    line = json.dumps(msg, separators=(",", ":"), default=_default)
    with _write_lock:
        stream.write(line + "\n")
        stream.flush()


def send_progress(phase, **fields):
    """A progress event (messages.ProgressEvent: an unknown field is a bug, raised here)."""
    write_message(ProgressEvent(phase=phase, **fields).to_dict())


def read_request(stream=None):
    """Next request dict, or None at end of input."""
    stream = stream or sys.stdin
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            continue
        _received[:] = [os.getpid(), now_ns()]
        try:
            msg = json.loads(line)
        except ValueError:
            raise ProtocolError("request is not JSON: %r" % line[:200])
        if not isinstance(msg, dict) or "op" not in msg or "id" not in msg:
            raise ProtocolError("request lacks 'id' or 'op': %r" % line[:200])
        return msg


def received_ns():
    """clock.now_ns when this process read the request it is answering (where a run's setup starts); None
    before any, and in a child forked from the reading process, which cannot tell whether that stamp is its
    request's (a child waiting for the next run was forked before it was read): whoever hands a child its
    request passes the stamp on (worker.run_measurement's `received`)."""
    return _received[1] if _received[0] == os.getpid() else None


def check_hello(params):
    """Refuse a host of another protocol version before reading the rest of its hello (whose fields may differ).
    `params` is the raw hello params dict."""
    host_protocol = params.get("protocol") if isinstance(params, dict) else None
    if host_protocol != PROTOCOL_VERSION:
        older = "agent" if isinstance(host_protocol, int) and host_protocol > PROTOCOL_VERSION else "host"
        raise OpError(
            ErrorKind.PROTOCOL_MISMATCH,
            "agent speaks protocol %s but the host speaks %r (the %s is older)" % (
                PROTOCOL_VERSION, host_protocol, older),
            hint="the host and the agent come from different edgeprof versions; run the same edgeprof on the host",
            protocol=PROTOCOL_VERSION,
        )
