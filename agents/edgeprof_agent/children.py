"""Each measurement in a child process of the serving agent (__main__.py), so one agent serves a whole sweep on a
board and every run starts from the same light process.

Owns (`Runs`):
- the child of one run: forked from the serving process, which never imports a runtime (facts do not), so the
  child holds only what its own run loads; it writes its events and its reply on the agent's stdout and exits;
  the serving process waits for it under the RunGuard (no lease is taken meanwhile);
- the standby child: forked as soon as a run's child has ended, while the host reads that reply and readies the
  next cell, so the board is not measuring. It reads its memory baseline (the RSS before load, and what the
  process holds then) first, then imports numpy, which every runtime but the null one loads, and waits for its
  run on a pipe. The next non-null run goes to it (its load phase then times the runtime's import and the model
  load, without numpy's); a null run, or a standby that died, gets a fresh child. The baseline note says so;
- the serving process's end when a child dies of a signal (a runtime's native crash, the out-of-memory killer):
  it dies by the same signal, its lease released first, so the host sees the agent die exactly as a run inside
  it would; a child that exits otherwise before it answers ends it with that exit code. Neither writes a word
  of its own: the host tells the user what the child did (agentlink/link.py);
- every child dies with the serving process (prctl PR_SET_PDEATHSIG): an agent killed from outside or stopped
  by the host never leaves a measurement running on the board.
Runs of both measuring ops go through it: `run` (worker.py) and `generate` (genworker.py, protocol 11).
Does not own: the request loop and the replies (__main__.py), the measurements (worker.py, genworker.py), the lease
(lease.py).
"""

import errno
import json
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1  # linux/prctl.h
STANDBY_NOTE = "; read in the agent's standby child before numpy was imported, ahead of the run"


def _raise(e):
    raise e


class Runs(object):
    """The runs of one serving agent. `respond(rid, compute, *args)` writes compute's reply or its error."""

    def __init__(self, respond, workdir, root, tools, state):
        self.respond = respond
        self.workdir = workdir
        self.root = root
        self.tools = tools
        self.state = state
        self.standby = None  # (pid, the pipe's write end) of the child waiting for the next run

    def run(self, rid, req, params, op="run"):
        """Measure `req` (its raw `params` go to a standby child) in a child; return once it ended. `op`: "run"
        (worker.run_measurement) or "generate" (genworker.run_generate, protocol 11)."""
        from .lease import RunGuard
        from .protocol import OpError, received_ns

        received = received_ns()  # when this process read the request: the child's phases start there
        guard = RunGuard(self.workdir, req.lease_token, self.state["lease"])
        try:
            guard.__enter__()
        except OpError as e:  # leased by a sweep (or a planted link): this run's error reply; the agent serves on
            self.respond(rid, _raise, e)
            return
        try:
            pid = self._hand_to_standby(rid, op, params, received) if req.runtime != "null" else None
            if pid is None:
                self.close()
                pid = self._fork(self._measure, rid, op, req, received)
            status = _wait_child(pid)
        finally:
            guard.__exit__(None, None, None)
        if os.WIFSIGNALED(status):
            self._die_like(os.WTERMSIG(status))
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 3
        if code != 0:
            self.close()
            self._release()
            os._exit(code)
        self.standby = self._start_standby()

    def close(self):
        """End the standby child (it holds nothing: killed, not waited for while it imports) and reap it."""
        standby, self.standby = self.standby, None
        if standby is None:
            return
        pid, fd = standby
        _close(fd)
        _signal(pid, signal.SIGKILL)
        _reap(pid)

    # -- children ---------------------------------------------------------------------------------------------

    def _fork(self, main, *args):
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid != 0:
            return pid
        code = 3  # the child: run `main`, exit without the serving process's cleanup (lease release, atexit)
        try:
            _die_with(parent)
            if self.standby is not None:  # a child holds no other child's pipe
                _close(self.standby[1])
            main(*args)
            code = 0
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)

    def _measure(self, rid, op, req, received):
        self.respond(rid, _measurer(op), req, self.workdir, self.root, self.tools, received)

    def _start_standby(self):
        try:
            r, w = os.pipe()
        except OSError:
            return None
        try:
            pid = self._fork(self._standby_main, r, w)
        except OSError:  # no process to spare: the next run forks its own child
            _close(r)
            _close(w)
            return None
        _close(r)
        return (pid, w)

    def _standby_main(self, r, w):
        from . import memory, procinfo, worker
        from .messages import OPS

        _close(w)
        worker.BASELINE = (procinfo.rss_mb(), memory.baseline_note() + STANDBY_NOTE)
        try:
            import numpy  # noqa: F401 - what every runtime but null loads, imported before the run is asked for
        except ImportError:
            worker.BASELINE = None  # nothing imported: the run reads its own baseline
        with os.fdopen(r, "r") as pipe:
            line = pipe.readline()
        if not line:
            return  # the serving process ended the standby
        msg = json.loads(line)
        op = msg["op"]
        self.respond(msg["id"], lambda: _measurer(op)(OPS[op][0].from_dict(msg["params"]), self.workdir,
                                                     self.root, self.tools, msg["received"]))

    def _hand_to_standby(self, rid, op, params, received):
        """The standby's pid once it has the run, or None (none, or it died)."""
        standby, self.standby = self.standby, None
        if standby is None:
            return None
        pid, fd = standby
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except OSError:
            done = pid
        if done == pid:  # it died waiting
            _close(fd)
            return None
        try:
            os.write(fd, (json.dumps({"id": rid, "op": op, "params": params, "received": received}) + "\n").encode(
                "utf-8"))
        except OSError:
            _close(fd)
            _signal(pid, signal.SIGKILL)
            _reap(pid)
            return None
        _close(fd)
        return pid

    # -- ending as the child did ------------------------------------------------------------------------------

    def _release(self):
        if self.state["lease"] is not None:
            self.state["lease"].release("agent exiting")

    def _die_like(self, sig):
        """End this process by `sig`, the signal that killed its measuring child (its stderr already holds the
        child's native stack, from faulthandler): the standby ended and the lease released first."""
        self.close()
        self._release()
        import faulthandler
        faulthandler.disable()
        sys.stderr.flush()
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, RuntimeError, ValueError):  # SIGKILL and SIGSTOP have no handler to reset
            pass
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # a signal this process cannot die of (ignored before): the shell's convention


def _measurer(op):
    """The function that measures a request of `op`: worker.run_measurement for run, genworker.run_generate
    for generate (imported in the child that measures)."""
    if op == "generate":
        from .genworker import run_generate
        return run_generate
    from .worker import run_measurement
    return run_measurement


def _die_with(parent):
    """Have the kernel kill this child when the serving process dies (prctl PR_SET_PDEATHSIG). Linux only;
    elsewhere the host's kill of the agent's process group still reaches the child."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError, ImportError):
        pass
    if os.getppid() != parent:  # it died before the prctl took effect
        os._exit(3)


def _wait_child(pid):
    """waitpid(pid) through interruptions: a SIGINT to this process is passed to the child (its run ends as the
    signal says), and waiting goes on until the child is gone."""
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except KeyboardInterrupt:
            _signal(pid, signal.SIGINT)
        except OSError as e:  # pragma: no cover - Python >= 3.5 retries EINTR itself
            if e.errno != errno.EINTR:
                raise


def _reap(pid):
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass


def _signal(pid, sig):
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _close(fd):
    try:
        os.close(fd)
    except OSError:
        pass
