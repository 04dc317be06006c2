"""The one door to /sys and /proc: every sensor, thermal and memory read of the agent goes through SysfsRoot.

Owns: mapping board paths ("/sys/class/thermal/...") under an injectable root directory, reading small text
files, globbing and listing. Tests hand it a temp tree laid out like a real board (tests/data/boards/).
Does not own: running programs (tools.py), parsing what the files mean (probes/, thermal.py), and this
process's own /proc/self (procinfo.py reads the real one on purpose).

Python >= 3.6, standard library only.
"""

import glob as _glob
import os
import re

_DIGITS = re.compile(r"(\d+)")


def natural_key(text):
    """Sort key that puts hwmon2 before hwmon10 and cpu9 before cpu10."""
    return [int(part) if part.isdigit() else part for part in _DIGITS.split(text)]


class SysfsRoot(object):
    """Board paths are absolute ("/sys/..."); they are resolved under `root` ("/" on a real board)."""

    def __init__(self, root="/"):
        self.root = os.path.abspath(root)
        self._prefix = "" if self.root == "/" else self.root

    def __repr__(self):
        return "SysfsRoot(%r)" % self.root

    def path(self, board_path):
        """The real filesystem path of a board path."""
        if not board_path.startswith("/"):
            raise ValueError("board paths are absolute, got %r" % board_path)
        return self._prefix + board_path

    def board_path(self, real_path):
        """Inverse of path(): a real path under root back to its board path."""
        if not self._prefix:
            return real_path
        if real_path == self._prefix:
            return "/"
        if real_path.startswith(self._prefix + "/"):
            return real_path[len(self._prefix):]
        raise ValueError("%r is outside the sysfs root %r" % (real_path, self.root))

    def read_text(self, board_path):
        """The file's text without the trailing newline. Raises IOError/OSError like open()."""
        with open(self._prefix + board_path, "r") as f:
            return f.read().rstrip("\n")

    def read_int(self, board_path):
        """An integer file (sysfs values: '1234\\n'). Raises ValueError when the text is not an integer.

        The sampler's hot path: os.open/os.read skip the buffered text file object (about 3x cheaper).
        """
        fd = os.open(self._prefix + board_path, os.O_RDONLY)
        try:
            return int(os.read(fd, 4096))
        finally:
            os.close(fd)

    def try_read_text(self, board_path, default=None):
        try:
            return self.read_text(board_path)
        except (IOError, OSError, UnicodeDecodeError):
            return default

    def try_read_int(self, board_path, default=None):
        try:
            return self.read_int(board_path)
        except (IOError, OSError, ValueError, UnicodeDecodeError):
            return default

    def exists(self, board_path):
        return os.path.exists(self._prefix + board_path)

    def isdir(self, board_path):
        return os.path.isdir(self._prefix + board_path)

    def readable(self, board_path):
        return os.access(self._prefix + board_path, os.R_OK)

    def glob(self, pattern):
        """Board paths matching a glob pattern, in natural order."""
        found = _glob.glob(self.path(pattern))
        return sorted((self.board_path(p) for p in found), key=natural_key)

    def listdir(self, board_path):
        """Entry names of a directory in natural order; [] when it does not exist."""
        try:
            names = os.listdir(self._prefix + board_path)
        except (IOError, OSError):
            return []
        return sorted(names, key=natural_key)

    def realpath(self, board_path):
        """Board path with symlinks resolved (sysfs is full of them: bus/i2c/devices/* -> devices/...)."""
        real = os.path.realpath(self._prefix + board_path)
        try:
            return self.board_path(real)
        except ValueError:
            return real
