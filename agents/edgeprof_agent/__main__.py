"""Agent entry point: `python3 agent-<sha>.pyz serve --workdir DIR [--sysfs-root /]`.

Owns: the request loop (hello first, then facts / run / generate / ping / lease / renew / release / shutdown),
turning failures into error replies, confining the agent to its workdir (it chdirs there; everything it writes
goes there). Each run and each generation is measured in a child process of its own (children.py), so one agent
serves a whole sweep on a board. The device lease itself is lease.py.
"""

import argparse
import errno
import os
import sys
import traceback

from . import AGENT_VERSION, PROTOCOL_VERSION
from .messages import (OPS, MessageError, HelloReply, LeaseInfoReply, LeaseReply, PingReply, ReleaseReply,
                       RenewReply, Sha256Reply, ShutdownReply)
from .protocol import OpError, ProtocolError, check_hello, read_request, write_message
from .sysfs import SysfsRoot
from .tools import ToolRunner
from .vocab import ErrorKind


def _log(msg):
    sys.stderr.write("edgeprof-agent: %s\n" % msg)
    sys.stderr.flush()


def _power_sources(root, tools):
    from . import power

    try:
        return power.discover_all(root, tools)
    except Exception as e:  # facts must never fail because of one sensor
        return {"error": str(e)}


def _sha256_in(workdir, path):
    """sha256 of a file inside the workdir (None if absent). Paths outside the workdir are refused."""
    import hashlib

    real = os.path.realpath(os.path.join(workdir, path))
    if not (real + os.sep).startswith(os.path.realpath(workdir) + os.sep):
        raise OpError(ErrorKind.BAD_PATH, "path %r is outside the agent's workdir" % path)
    if not os.path.isfile(real):
        return None
    h = hashlib.sha256()
    with open(real, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def serve(workdir, sysfs_root):
    import faulthandler
    faulthandler.enable()  # a native crash (SIGSEGV in a runtime) writes every thread's stack to stderr
    if not os.path.isdir(workdir):
        os.makedirs(workdir)
    os.chdir(workdir)
    root, tools = SysfsRoot(sysfs_root), ToolRunner()
    state = {"lease": None}  # the device lease, once a controller asks for it (lease.py)
    try:
        return _requests(workdir, root, tools, state)
    finally:
        if state["lease"] is not None:
            state["lease"].release("agent exiting")


def _lease(state, workdir):
    if state["lease"] is None:
        from .lease import Lease
        state["lease"] = Lease(workdir)
    return state["lease"]


def _parse(op, params):
    """The op's request record; OpError(PROTOCOL) naming the field for a malformed one."""
    if not isinstance(op, str) or op not in OPS:
        raise OpError(ErrorKind.UNKNOWN_OP, "unknown operation %r" % (op,))
    try:
        return OPS[op][0].from_dict({} if params is None else params)
    except MessageError as e:
        raise OpError(ErrorKind.PROTOCOL, "malformed request: %s" % e,
                      hint="the host and the agent disagree on the message; run the same edgeprof on both sides")


def _answer(op, req, workdir, root, tools, state):
    """The reply record of one request (not hello, not shutdown)."""
    if op == "ping":
        return PingReply(pong=True)
    if op == "facts":
        from .environment import facts
        found = facts(workdir, with_runtimes=req.runtimes, root=root, tools=tools)
        found.power_sources = _power_sources(root, tools)
        return found
    if op == "lease":
        return LeaseReply.from_dict(_lease(state, workdir).acquire(req.holder, req.ttl_s))
    if op == "renew":
        return RenewReply.from_dict(_lease(state, workdir).renew(req.token))
    if op == "release":
        return ReleaseReply.from_dict(_lease(state, workdir).release())
    if op == "lease_info":
        from .lease import describe, holder_now
        held = holder_now(os.path.join(workdir, "edgeprof.lease"))
        return LeaseInfoReply(holder=held, text=describe(held))
    if op == "sha256":
        return Sha256Reply(sha256=_sha256_in(workdir, req.path))
    raise OpError(ErrorKind.UNKNOWN_OP, "unknown operation %r" % op)  # pragma: no cover - OPS and this agree


_DISK_ERRNOS = tuple(getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EROFS") if hasattr(errno, n))


def disk_error(e, workdir):
    """The OpError for a full or read-only disk: what happened and where, not an agent bug."""
    what = "read-only" if e.errno == errno.EROFS else "full"
    where = workdir
    name = getattr(e, "filename", None)
    extra = " (writing %s)" % name if name and not str(name).startswith(workdir) else ""
    hint = ("free space on the board (or set another `workdir:` for this device in devices.yaml)" if what == "full"
            else "remount it read-write, or set a writable `workdir:` for this device in devices.yaml")
    return OpError(ErrorKind.DISK, "the board's disk is %s at %s%s" % (what, where, extra), hint=hint)


def _requests(workdir, root, tools, state):
    from .children import Runs

    runs = Runs(lambda rid, compute, *args: _respond(rid, workdir, compute, *args), workdir, root, tools, state)
    try:
        return _serve(runs, workdir, root, tools, state)
    finally:
        runs.close()


def _serve(runs, workdir, root, tools, state):
    greeted = False
    while True:
        try:
            msg = read_request()
        except ProtocolError as e:
            write_message({"id": None, "ok": False, "error": OpError(ErrorKind.PROTOCOL, str(e)).to_dict()})
            return 2
        if msg is None:
            return 0
        rid, op, params = msg["id"], msg["op"], msg["params"] if "params" in msg else {}
        if state["lease"] is not None:
            state["lease"].touch()
        if not greeted and op != "hello":
            _respond(rid, workdir, _refuse_first, op)
        elif op == "hello":
            greeted = _respond(rid, workdir, _hello, params, workdir, root) or greeted
        elif op == "shutdown":
            if _respond(rid, workdir, _shutdown, params):
                return 0
        elif op in ("run", "generate"):  # measured in a child (children.py)
            req = []  # the parsed request, once it parses (else its error reply is written)
            if _respond(rid, workdir, lambda: req.append(_parse(op, params)), quiet=True):
                runs.run(rid, req[0], params, op)
        else:
            _respond(rid, workdir, _answer_raw, op, params, workdir, root, tools, state)


def _answer_raw(op, params, workdir, root, tools, state):
    return _answer(op, _parse(op, params), workdir, root, tools, state)


def _shutdown(params):
    _parse("shutdown", params)
    return ShutdownReply(bye=True)


def _refuse_first(op):
    raise OpError(ErrorKind.PROTOCOL, "first request must be 'hello', got %r" % op)


def _hello(params, workdir, root):
    check_hello(params)  # a host of another version is refused before its fields are read
    _parse("hello", params)
    return HelloReply(agent_version=AGENT_VERSION, protocol=PROTOCOL_VERSION, python=sys.version.split()[0],
                      pid=os.getpid(), workdir=workdir, sysfs_root=root.root)


def _respond(rid, workdir, compute, *args, **kw):
    """Write the reply of `compute(*args)` (a record) for request `rid`, or its error reply; True when it
    answered (`quiet=True`: compute() only checks, and nothing is written when it passes)."""
    quiet = kw.pop("quiet", False)
    try:
        result = compute(*args)
        if not quiet:
            write_message({"id": rid, "ok": True, "result": result.to_dict()})
        return True
    except OpError as e:
        write_message({"id": rid, "ok": False, "error": e.to_dict()})
    except EnvironmentError as e:
        if e.errno in _DISK_ERRNOS:
            write_message({"id": rid, "ok": False, "error": disk_error(e, workdir).to_dict()})
        else:
            _bug(rid, e)
    except Exception as e:
        _bug(rid, e)
    return False


def _bug(rid, e):
    tb = traceback.format_exc()
    _log(tb)
    write_message({"id": rid, "ok": False, "error": OpError(
        ErrorKind.AGENT_EXCEPTION, "%s: %s" % (type(e).__name__, e), detail=tb[-3000:]).to_dict()})


def main(argv=None):
    parser = argparse.ArgumentParser(prog="edgeprof-agent", description="edgeprof device agent")
    sub = parser.add_subparsers(dest="cmd")
    s = sub.add_parser("serve", help="speak the JSON-lines protocol on stdin/stdout")
    s.add_argument("--workdir", required=True)
    s.add_argument("--sysfs-root", default="/")
    f = sub.add_parser("facts", help="print this machine's facts as JSON and exit")
    f.add_argument("--workdir", default=".")
    sub.add_parser("version", help="print the agent and protocol versions")
    args = parser.parse_args(argv)
    if args.cmd == "serve":
        return serve(os.path.abspath(os.path.expanduser(args.workdir)), args.sysfs_root)
    if args.cmd == "facts":
        import json
        from .environment import facts
        print(json.dumps(facts(args.workdir).to_dict(), indent=2, sort_keys=True))
        return 0
    if args.cmd == "version":
        print("edgeprof-agent %s protocol %d" % (AGENT_VERSION, PROTOCOL_VERSION))
        return 0
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
