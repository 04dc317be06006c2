"""A stand-in adbd: the device side of the adb wire protocol, written from AOSP's protocol documents, on loopback TCP.

Sources (AOSP packages/modules/adb): protocol.txt (24-byte message headers: command, arg0, arg1, data length,
data checksum, magic = command ^ 0xffffffff; CNXN / AUTH / OPEN / OKAY / WRTE / CLSE; one WRTE in flight per
stream until the peer's OKAY), SERVICES.TXT (`shell:`, `shell,v2,raw:`, `sync:`), SYNC.TXT (STAT / LIST / SEND /
RECV / DATA / DONE / OKAY / FAIL / QUIT: a 4-byte id and a little-endian 32-bit length), shell_protocol.h (shell v2
packets: 1-byte id, 4-byte length; stdin 0, stdout 1, stderr 2, exit 3, close-stdin 4, window-size 5).

The real adb client reaches it with `adb connect 127.0.0.1:PORT` (PORT outside 5555–5585, where the adb server
scans for emulators by itself). Shell commands run under mksh (Android's shell) or /bin/sh in a private mount
namespace chrooted into a phone-shaped tree (phone_tree.py), so `/sys/class/power_supply/battery/...`, `/proc/cpuinfo`
and `/data/local/tmp` are the tree's. Needs root (unshare -m, chroot). The tree's /usr is this machine's, or (`usr=`)
the aarch64 lane's arm64 Debian root's: then every command is a real aarch64 binary (its mksh and toybox) run under
qemu-user through binfmt_misc (tests/arm/test_phone_root.py).

Modes: "ok"; "unauthorized" (answers CNXN with AUTH TOKEN forever: `adb devices` shows `unauthorized`);
"legacy" (no shell_v2 feature: the client falls back to `shell:` with no exit code); `vanish()` drops every
connection and stops listening (a phone unplugged mid-run).
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import struct
import subprocess
import threading
from pathlib import Path

A_SYNC, A_CNXN, A_AUTH, A_OPEN = 0x434E5953, 0x4E584E43, 0x48545541, 0x4E45504F
A_OKAY, A_CLSE, A_WRTE = 0x59414B4F, 0x45534C43, 0x45545257
A_VERSION = 0x01000001
MAX_PAYLOAD = 256 * 1024
PHONE_PATH = "/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/usr/bin:/bin"


def header(cmd: int, arg0: int, arg1: int, data: bytes) -> bytes:
    return struct.pack("<6I", cmd, arg0, arg1, len(data), sum(data) & 0xFFFFFFFF, cmd ^ 0xFFFFFFFF) + data


def shell_argv(root: Path, command: str, usr: str = "/usr") -> list[str]:
    """The host argv that runs `command` as the phone's shell would: chrooted into `root`, `usr` bound on its /usr
    and /dev on its /dev."""
    sh = "/usr/bin/mksh" if os.path.exists(os.path.join(usr, "bin", "mksh")) else "/bin/sh"
    inner = ('mount --rbind "$3" "$1/usr" && mount --rbind /dev "$1/dev" && '
             f'exec chroot "$1" /usr/bin/env -i PATH={PHONE_PATH} HOME=/ TMPDIR=/data/local/tmp {sh} -c "$2"')
    return ["unshare", "-m", "--propagation", "private", "/bin/sh", "-c", inner, "adbd", str(root), command, usr]


class Stream:
    def __init__(self, conn: Connection, local: int, remote: int) -> None:
        self.conn, self.local, self.remote = conn, local, remote
        self.acked = threading.Event()
        self.acked.set()
        self.closed = False
        self.proc: subprocess.Popen[bytes] | None = None
        self.buf = b""
        self.kind = "shell"

    def write(self, data: bytes) -> None:
        for i in range(0, len(data), MAX_PAYLOAD):
            while not self.acked.wait(0.2):
                if self.closed or self.conn.dead:
                    return
            if self.closed:
                return
            self.acked.clear()
            self.conn.send(A_WRTE, self.local, self.remote, data[i:i + MAX_PAYLOAD])

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.conn.send(A_CLSE, self.local, self.remote)
        self.kill()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    # -- shell ---------------------------------------------------------------------------------------------
    def start_shell(self, command: str, v2: bool) -> None:
        self.v2 = v2
        self.proc = subprocess.Popen(shell_argv(self.conn.adbd.root, command, self.conn.adbd.usr), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE if v2 else subprocess.STDOUT,
                                     start_new_session=True)
        threading.Thread(target=self._pump_shell, daemon=True).start()

    def _packet(self, kind: int, data: bytes) -> bytes:
        return struct.pack("<BI", kind, len(data)) + data if self.v2 else data

    def _pump_shell(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        lock = threading.Lock()

        def pump(f: object, kind: int) -> None:
            while chunk := os.read(f.fileno(), 65536):  # type: ignore[attr-defined]
                with lock:
                    self.write(self._packet(kind, chunk))

        readers = [threading.Thread(target=pump, args=(proc.stdout, 1), daemon=True)]
        if self.v2 and proc.stderr is not None:
            readers.append(threading.Thread(target=pump, args=(proc.stderr, 2), daemon=True))
        for t in readers:
            t.start()
        for t in readers:
            t.join()
        rc = proc.wait()
        if self.v2:
            self.write(self._packet(3, bytes([rc & 0xFF if rc >= 0 else (128 - rc) & 0xFF])))
        self.close()

    def shell_input(self, data: bytes) -> None:
        proc = self.proc
        if proc is None or proc.stdin is None:
            return
        if not self.v2:
            proc.stdin.write(data)
            proc.stdin.flush()
            return
        self.buf += data
        while len(self.buf) >= 5:
            kind, n = struct.unpack("<BI", self.buf[:5])
            if len(self.buf) < 5 + n:
                return
            payload, self.buf = self.buf[5:5 + n], self.buf[5 + n:]
            try:
                if kind == 0:
                    proc.stdin.write(payload)
                    proc.stdin.flush()
                elif kind == 4:
                    proc.stdin.close()
            except (BrokenPipeError, ValueError):
                pass

    # -- sync ----------------------------------------------------------------------------------------------
    def start_sync(self) -> None:
        """Requests are served on their own thread: an answer of several WRTEs waits for OKAYs that the
        connection's reading thread must be free to receive."""
        self.kind = "sync"
        self.inbox: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._sync_loop, daemon=True).start()

    def _sync_loop(self) -> None:
        while (data := self.inbox.get()) is not None and not self.closed:
            self._sync_input(data)

    def sync_input(self, data: bytes) -> None:
        self.inbox.put(data)

    def _sync_input(self, data: bytes) -> None:
        self.buf += data
        while len(self.buf) >= 8:
            ident, n = self.buf[:4], struct.unpack("<I", self.buf[4:8])[0]
            if ident in (b"DONE", b"QUIT"):  # DONE's length field is the mtime; QUIT has none
                self.buf = self.buf[8:]
                self._sync(ident, n, b"")
                continue
            if len(self.buf) < 8 + n:
                return
            payload, self.buf = self.buf[8:8 + n], self.buf[8 + n:]
            self._sync(ident, n, payload)

    def _path(self, phone_path: bytes) -> Path:
        return self.conn.adbd.root / phone_path.decode().lstrip("/")

    def _sync(self, ident: bytes, n: int, payload: bytes) -> None:
        if ident == b"STAT":
            p = self._path(payload)
            st = p.stat() if p.exists() else None
            self.write(b"STAT" + struct.pack("<3I", st.st_mode if st else 0, st.st_size if st else 0,
                                             int(st.st_mtime) if st else 0))
        elif ident == b"LIST":
            p = self._path(payload)
            out = b""
            for child in sorted(p.iterdir()) if p.is_dir() else []:
                st, name = child.lstat(), child.name.encode()
                out += b"DENT" + struct.pack("<4I", st.st_mode, st.st_size, int(st.st_mtime), len(name)) + name
            self.write(out + b"DONE" + struct.pack("<4I", 0, 0, 0, 0))
        elif ident == b"SEND":
            path, _, mode = payload.rpartition(b",")
            self.target, self.mode, self.data = self._path(path), int(mode or b"420") & 0o7777, bytearray()
        elif ident == b"DATA":
            self.data += payload
        elif ident == b"DONE":
            try:
                self.target.parent.mkdir(parents=True, exist_ok=True)
                self.target.write_bytes(bytes(self.data))
                os.chmod(self.target, self.mode)
                self.write(b"OKAY" + struct.pack("<I", 0))
            except OSError as e:
                msg = f"{e.strerror}".encode()
                self.write(b"FAIL" + struct.pack("<I", len(msg)) + msg)
        elif ident == b"RECV":
            p = self._path(payload)
            if not p.is_file():
                msg = b"No such file or directory"
                self.write(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                return
            data = p.read_bytes()
            out = b"".join(b"DATA" + struct.pack("<I", len(data[i:i + 65536])) + data[i:i + 65536]
                           for i in range(0, len(data), 65536))
            self.write(out + b"DONE" + struct.pack("<I", 0))
        elif ident == b"QUIT":
            self.close()


class Connection:
    def __init__(self, adbd: StandInAdbd, sock: socket.socket) -> None:
        self.adbd, self.sock = adbd, sock
        self.lock = threading.Lock()
        self.streams: dict[int, Stream] = {}
        self.next_id = 1
        self.dead = False

    def send(self, cmd: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        with self.lock:
            try:
                self.sock.sendall(header(cmd, arg0, arg1, data))
            except OSError:
                self.dead = True

    def recv_exact(self, n: int) -> bytes | None:
        buf = b""
        while len(buf) < n:
            try:
                chunk = self.sock.recv(n - len(buf))
            except OSError:
                return None
            if not chunk:
                return None
            buf += chunk
        return buf

    def serve(self) -> None:
        try:
            while (head := self.recv_exact(24)) is not None:
                cmd, arg0, arg1, n, _check, _magic = struct.unpack("<6I", head)
                data = self.recv_exact(n) if n else b""
                if data is None:
                    break
                self.handle(cmd, arg0, arg1, data)
        finally:
            self.dead = True
            for s in list(self.streams.values()):
                s.closed = True
                s.kill()
            self.sock.close()

    def handle(self, cmd: int, arg0: int, arg1: int, data: bytes) -> None:
        mode = self.adbd.mode
        if cmd == A_CNXN or (cmd == A_AUTH and mode == "unauthorized" and arg0 == 2):
            if mode == "unauthorized":  # never accept a key: AUTH TOKEN again (protocol.txt, AUTH)
                self.send(A_AUTH, 1, 0, os.urandom(20))
                return
            features = "" if mode == "legacy" else "shell_v2,cmd"
            banner = ("device::ro.product.name=oriole;ro.product.model=Pixel 6;ro.product.device=oriole;"
                      f"features={features}").encode()
            self.send(A_CNXN, A_VERSION, MAX_PAYLOAD, banner)
        elif cmd == A_OPEN:
            service = data.rstrip(b"\0").decode()
            local, self.next_id = self.next_id, self.next_id + 1
            stream = Stream(self, local, arg0)
            name, _, rest = service.partition(":")
            if name == "shell" or name.startswith("shell,"):
                args = name.split(",")[1:]
                v2 = "v2" in args
                if v2 and mode == "legacy":
                    self.send(A_CLSE, 0, arg0)
                    return
                self.streams[local] = stream
                self.send(A_OKAY, local, arg0)
                stream.start_shell(rest, v2)
            elif name == "sync":
                self.streams[local] = stream
                stream.start_sync()
                self.send(A_OKAY, local, arg0)
            elif name == "root":
                self.streams[local] = stream
                self.send(A_OKAY, local, arg0)
                threading.Thread(target=lambda: (stream.write(b"adbd cannot run as root in production builds\n"),
                                                 stream.close()), daemon=True).start()
            else:
                self.send(A_CLSE, 0, arg0)  # refused
        elif cmd == A_OKAY:
            s = self.streams.get(arg1)
            if s is not None:
                s.remote = arg0
                s.acked.set()
        elif cmd == A_WRTE:
            s = self.streams.get(arg1)
            if s is None:
                return
            self.send(A_OKAY, s.local, s.remote)
            if s.kind == "sync":
                s.sync_input(data)
            else:
                s.shell_input(data)
        elif cmd == A_CLSE:
            s = self.streams.pop(arg1, None)
            if s is not None:
                s.closed = True
                s.kill()
                if s.kind == "sync":
                    s.inbox.put(None)


class StandInAdbd:
    """Listens on 127.0.0.1:port (0 picks one outside 5555–5585) for the adb server's TCP transport."""

    def __init__(self, root: Path, *, mode: str = "ok", port: int = 0, usr: str = "/usr") -> None:
        self.root, self.mode, self.usr = Path(root), mode, usr
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        while 5555 <= self.sock.getsockname()[1] <= 5585:
            self.sock.close()
            self.sock = socket.socket()
            self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.sock.listen(8)
        self.conns: list[Connection] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.sock.accept()
            except OSError:
                return
            conn = Connection(self, sock)
            self.conns.append(conn)
            threading.Thread(target=conn.serve, daemon=True).start()

    def vanish(self) -> None:
        """The phone is unplugged: stop listening, drop every connection."""
        self.sock.close()
        for c in self.conns:
            try:
                c.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    close = vanish


def can_run() -> str | None:
    """Why the stand-in cannot run here (None when it can)."""
    if os.geteuid() != 0:
        return "the stand-in phone needs root (unshare -m, chroot)"
    if shutil.which("unshare") is None or shutil.which("chroot") is None:
        return "unshare/chroot missing"
    return None


def serial(d: StandInAdbd) -> str:
    """The adb serial of a stand-in phone (adb over TCP: host:port)."""
    return f"127.0.0.1:{d.port}"
