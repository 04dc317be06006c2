"""A real PostgreSQL server for tests: initdb + pg_ctl on a free loopback port, started and stopped by the tests.

Owns: finding Debian's PostgreSQL binaries (/usr/lib/postgresql/N/bin, or PATH), a throw-away cluster in a temp
directory (fsync off, TCP on 127.0.0.1 only, trust auth for the `postgres` role), running it as the `postgres`
user when the tests run as root (PostgreSQL refuses to run as root), restarting it, one fresh database per test,
and removing everything at the end.
Does not own: fixtures (tests/conftest.py: `pg_server`, `pg_url`) or test cases.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
import warnings
from pathlib import Path

START_TIMEOUT_S = 60.0  # generous: a 2-core CI machine under load


def find_bindir() -> str | None:
    """The directory holding initdb and pg_ctl: the newest /usr/lib/postgresql/N/bin, else PATH."""
    for cand in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2])
                       if p.split("/")[-2].isdigit() else 0, reverse=True):
        if os.access(os.path.join(cand, "initdb"), os.X_OK) and os.access(os.path.join(cand, "pg_ctl"), os.X_OK):
            return cand
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return os.path.dirname(initdb)
    return None


def missing_reason() -> str | None:
    """Why the PostgreSQL tests cannot run here, or None when they can."""
    if find_bindir() is None:
        return "PostgreSQL server binaries not installed (apt-get install -y postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root, and runuser (util-linux) is missing to start PostgreSQL as the postgres user"
    try:
        import procrastinate  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as e:
        return f"{e.name} not installed (pip install -e '.[lab]')"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """One throw-away PostgreSQL cluster. `url(db)` is a SQLAlchemy URL edgeprof accepts with --db."""

    def __init__(self) -> None:
        bindir = find_bindir()
        if bindir is None:
            raise RuntimeError("no PostgreSQL binaries")
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="edgeprof-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, "postgres", "postgres")

    def _run(self, *args: str, check: bool = True, timeout: float = START_TIMEOUT_S) -> subprocess.CompletedProcess:
        cmd = [os.path.join(self.bindir, args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout,
                               cwd=str(self.root))
        except subprocess.TimeoutExpired:  # what the server was doing meanwhile
            raise RuntimeError(f"{' '.join(args[:2])} did not finish in {timeout:.0f} s; the server's log "
                               f"ends:\n{self._log_tail()}") from None
        if check and p.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed ({p.returncode}): {p.stdout[-3000:]}\n{self._log_tail()}")
        return p

    def _log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-instructions" if self._initdb_has_no_instructions() else "-N")
        with open(self.data / "postgresql.conf", "a") as f:
            f.write(f"\nport = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n"
                    "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n")

    def _initdb_has_no_instructions(self) -> bool:
        p = self._run("initdb", "--help", check=False)
        return "--no-instructions" in p.stdout

    def start(self) -> None:
        for attempt in range(3):
            try:
                self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", str(int(START_TIMEOUT_S)),
                          "start")
                break
            except RuntimeError as e:
                # the port was taken between free_port() and the bind (another xdist worker, another run): a new
                # one (the last `port =` line of postgresql.conf wins)
                if attempt == 2 or "already in use" not in str(e):
                    raise
                self.port = free_port()
                with open(self.data / "postgresql.conf", "a") as f:
                    f.write(f"port = {self.port}\n")
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL did not answer on port {self.port}") from None
                time.sleep(0.1)

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        try:
            self.stop()
        except RuntimeError as e:  # a fast shutdown that hung (seen once in a full parallel run): say what the
            # server was doing, and crash-stop it -- the restart the test wants still happens, a harsher one
            warnings.warn(f"PostgreSQL's fast shutdown hung, stopping it with -m immediate: {e}", stacklevel=2)
            self.stop("immediate")
        self.start()

    def cleanup(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{db}"

    def create_database(self, name: str | None = None) -> str:
        """A fresh empty database; returns its URL."""
        import psycopg

        name = name or "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)
