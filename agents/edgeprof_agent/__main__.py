"""Agent entry point: `python3 agent-<sha>.pyz serve --workdir DIR [--sysfs-root /]`.

Owns: the request loop (hello first, then facts / run / ping / lease / renew / release / shutdown), turning
failures into error replies, and confining the agent to its workdir (it chdirs there; everything it writes
goes there). The device lease itself is lease.py.
"""

import argparse
import os
import sys
import traceback

from . import AGENT_VERSION, PROTOCOL_VERSION
from .protocol import OpError, ProtocolError, check_hello, read_request, write_message


def _log(msg):
    sys.stderr.write("edgeprof-agent: %s\n" % msg)
    sys.stderr.flush()


def _seams(sysfs_root):
    """The sysfs root and tool runner seams, when this agent build has them."""
    try:
        from .sysfs import SysfsRoot
        from .tools import ToolRunner
    except ImportError:
        return None, None
    return SysfsRoot(sysfs_root), ToolRunner()


def _power_sources(root, tools):
    try:
        from . import power
    except ImportError:
        return None
    try:
        return power.discover_all(root, tools)
    except Exception as e:  # facts must never fail because of one sensor
        return {"error": str(e)}


def _sha256_in(workdir, path):
    """sha256 of a file inside the workdir (None if absent). Paths outside the workdir are refused."""
    import hashlib

    if not isinstance(path, str):
        raise OpError("bad_path", "sha256 needs a path")
    real = os.path.realpath(os.path.join(workdir, path))
    if not (real + os.sep).startswith(os.path.realpath(workdir) + os.sep):
        raise OpError("bad_path", "path %r is outside the agent's workdir" % path)
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
    root, tools = _seams(sysfs_root)
    state = {"lease": None}  # the device lease, once a controller asks for it (lease.py)
    try:
        return _requests(workdir, root, tools, sysfs_root, state)
    finally:
        if state["lease"] is not None:
            state["lease"].release("agent exiting")


def _lease(state, workdir):
    if state["lease"] is None:
        from .lease import Lease
        state["lease"] = Lease(workdir)
    return state["lease"]


def _requests(workdir, root, tools, sysfs_root, state):
    greeted = False
    while True:
        try:
            req = read_request()
        except ProtocolError as e:
            write_message({"id": None, "ok": False, "error": {"type": "protocol", "message": str(e)}})
            return 2
        if req is None:
            return 0
        rid, op, params = req["id"], req["op"], req.get("params") or {}
        if state["lease"] is not None:
            state["lease"].touch()
        try:
            if not greeted and op != "hello":
                raise OpError("protocol", "first request must be 'hello', got %r" % op)
            if op == "hello":
                check_hello(params)
                greeted = True
                result = {"agent_version": AGENT_VERSION, "protocol": PROTOCOL_VERSION,
                          "python": sys.version.split()[0], "pid": os.getpid(), "workdir": workdir,
                          "sysfs_root": sysfs_root}
            elif op == "ping":
                result = {"pong": True}
            elif op == "facts":
                from .environment import facts
                result = facts(workdir, with_runtimes=params.get("runtimes", True))
                result["power_sources"] = _power_sources(root, tools)
            elif op == "run":
                from .worker import run_measurement
                from .lease import RunGuard
                with RunGuard(workdir, params, state["lease"]):
                    result = run_measurement(params, workdir, root, tools)
            elif op == "lease":
                result = _lease(state, workdir).acquire(params)
            elif op == "renew":
                result = _lease(state, workdir).renew(params)
            elif op == "release":
                result = _lease(state, workdir).release()
            elif op == "lease_info":
                from .lease import describe, holder_now
                held = holder_now(os.path.join(workdir, "edgeprof.lease"))
                result = {"holder": held, "text": describe(held)}
            elif op == "sha256":
                result = {"sha256": _sha256_in(workdir, params.get("path"))}
            elif op == "shutdown":
                write_message({"id": rid, "ok": True, "result": {"bye": True}})
                return 0
            else:
                raise OpError("unknown_op", "unknown operation %r" % op)
            write_message({"id": rid, "ok": True, "result": result})
        except OpError as e:
            write_message({"id": rid, "ok": False, "error": e.to_dict()})
        except Exception as e:
            tb = traceback.format_exc()
            _log(tb)
            write_message({"id": rid, "ok": False, "error": {
                "type": "agent_exception", "message": "%s: %s" % (type(e).__name__, e), "detail": tb[-3000:]}})


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
        print(json.dumps(facts(args.workdir), indent=2, sort_keys=True))
        return 0
    if args.cmd == "version":
        print("edgeprof-agent %s protocol %d" % (AGENT_VERSION, PROTOCOL_VERSION))
        return 0
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
