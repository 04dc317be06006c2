"""The one door to board programs: nvpmodel, jetson_clocks, vcgencmd, tegrastats and user power commands.

Owns: finding an executable (injected directories first, then PATH, then the usual system directories) and
running it with a timeout, returning (rc, stdout, stderr) as text. Tests put fake executables that replay
captured output first on the search path.
Does not own: what the output means (probes/, thermal.py) and any change of device state policy.

Python >= 3.6, standard library only: subprocess.Popen + communicate(timeout=...), no subprocess.run extras.
"""

import os
import signal
import subprocess

# Where board tools live even when PATH is minimal (a non-login ssh shell): nvpmodel is in /usr/sbin,
# vcgencmd was in /opt/vc/bin on older Raspberry Pi OS.
SYSTEM_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/opt/vc/bin")

RC_TIMEOUT = 124
RC_NOT_EXECUTABLE = 126
RC_NOT_FOUND = 127


class ToolRunner(object):
    """Runs board tools. `bin_dirs` are searched first; `search_path=False` searches only them (tests)."""

    def __init__(self, bin_dirs=None, timeout=10.0, search_path=True):
        self.bin_dirs = [os.path.abspath(d) for d in (bin_dirs or [])]
        self.timeout = float(timeout)
        self.search_path = search_path
        self._which = {}

    def __repr__(self):
        return "ToolRunner(bin_dirs=%r, search_path=%r)" % (self.bin_dirs, self.search_path)

    def search_dirs(self):
        dirs = list(self.bin_dirs)
        if self.search_path:
            for d in os.environ.get("PATH", "").split(os.pathsep) + list(SYSTEM_DIRS):
                if d and d not in dirs:
                    dirs.append(d)
        return dirs

    def which(self, name):
        """Absolute path of an executable, or None."""
        if os.sep in name:
            return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
        if name in self._which:
            return self._which[name]
        found = None
        for d in self.search_dirs():
            candidate = os.path.join(d, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                found = candidate
                break
        self._which[name] = found
        return found

    def run(self, argv, timeout=None):
        """Run argv (a list, never a shell string). Returns (rc, stdout, stderr) as text.

        Never raises for a missing program, a permission problem or a timeout: rc 127, 126 and 124 say which,
        with a sentence in stderr.
        """
        argv = list(argv)
        if not argv:
            raise ValueError("empty command")
        exe = self.which(argv[0])
        if exe is None:
            return RC_NOT_FOUND, "", "%s: not found (searched %s)" % (argv[0], os.pathsep.join(self.search_dirs()))
        env = dict(os.environ)
        env["LC_ALL"] = "C"
        if self.bin_dirs:
            env["PATH"] = os.pathsep.join(self.bin_dirs + [env.get("PATH", "")])
        limit = self.timeout if timeout is None else float(timeout)
        try:
            proc = subprocess.Popen([exe] + argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, close_fds=True, env=env, start_new_session=True)
        except OSError as e:
            return RC_NOT_EXECUTABLE, "", "%s: cannot run: %s" % (argv[0], e)
        try:
            out, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out, err = proc.communicate()
            return (RC_TIMEOUT, _text(out),
                    _text(err) + "\n%s: timed out after %.1f s and was killed" % (argv[0], limit))
        return proc.returncode, _text(out), _text(err)


def _kill_group(proc):
    """Kill the tool and anything it started (its own session), so no grandchild holds the pipes open."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()


def _text(data):
    return (data or b"").decode("utf-8", "replace")
