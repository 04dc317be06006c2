"""What does the lab queue (procrastinate on PostgreSQL) cost? Three figures, each next to its goal:

  1. job fetch time with BOARDS boards x PER_BOARD queued cells (half the boards busy), with edgeprof's fetch
     index `(lock, status, priority desc, id)` and without it, measured side by side.   goal <= 10 ms
  2. hand-off gap: how long a board stays idle between one cell's row being stored and the next cell on the
     same board starting (two workers polling every --poll s; no worker is woken when a board lock frees).
                                                                                      goal <= 0.5 s
  3. cells per second through two `edgeprof worker` processes with null-runtime cells on --ssh-boards sshd
     boards on loopback (tests/integration/sshd.py; 0: the one device `local`).

Run: python benchmarks/queue_overhead.py [--db postgresql://...] [--boards 500] [--per-board 20]
                                          [--cells 24] [--poll 0.2] [--ssh-boards 3]
Without --db it starts a throw-away PostgreSQL (tests/pg.py: Debian's postgresql package, as the postgres user
when run as root). The database given with --db gets a fresh schema `edgeprof_bench_<random>`-named database.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "integration")]

import psycopg  # noqa: E402

from edgeprof.lab import queue  # noqa: E402
from edgeprof.store import Store  # noqa: E402


def fresh_database(server_url: str) -> str:
    import uuid

    import sqlalchemy as sa

    u = sa.engine.make_url(queue.postgres_url(server_url))
    name = "edgeprof_bench_" + uuid.uuid4().hex[:8]
    with psycopg.connect(queue.conninfo(u.set(database="postgres").render_as_string(hide_password=False)),
                         autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return u.set(database=name).render_as_string(hide_password=False)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


# -- 1. fetch time ---------------------------------------------------------------------------------------------


def fetch_times(url: str, boards: int, per_board: int, rounds: int) -> dict[str, list[float]]:
    from procrastinate import jobs as pjobs

    app = queue.make_app(url)
    jobs = [pjobs.Job(id=None, queue="lab.bench", priority=(i % 3) * 5, lock=f"board:b{b:04d}",
                      queueing_lock=f"cell:bench:b{b}:{i}", task_name=queue.TASK_NAME,
                      task_kwargs={"v": 1, "sweep_id": "bench", "cell": {}, "after_run_id": None, "artifacts": []})
            for b in range(boards) for i in range(per_board)]
    with app.open():
        for i in range(0, len(jobs), 2000):
            app.job_manager.batch_defer_jobs(jobs[i:i + 2000])
    out: dict[str, list[float]] = {}

    async def measure() -> list[float]:
        times = []
        async with app.open_async():
            wid = await app.job_manager.register_worker()
            # half the boards busy: their first cell is running
            with psycopg.connect(queue.conninfo(url), autocommit=True) as conn:
                conn.execute("UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE id IN ("
                             "SELECT min(id) FROM procrastinate_jobs GROUP BY lock) AND "
                             "substr(lock, 8)::int %% 2 = 0", (wid,))
                conn.execute("ANALYZE procrastinate_jobs")
                for _ in range(rounds):
                    t0 = time.perf_counter()
                    job = await app.job_manager.fetch_job(queues=["lab.bench"], worker_id=wid)
                    times.append((time.perf_counter() - t0) * 1000.0)
                    assert job is not None
                    conn.execute("UPDATE procrastinate_jobs SET status = 'todo', worker_id = NULL WHERE id = %s",
                                 (job.id,))
        return times

    with psycopg.connect(queue.conninfo(url), autocommit=True) as conn:
        conn.execute(f"DROP INDEX IF EXISTS {queue.FETCH_INDEX}")
    out["without the index"] = asyncio.run(measure())
    with psycopg.connect(queue.conninfo(url), autocommit=True) as conn:
        conn.execute(f"CREATE INDEX {queue.FETCH_INDEX} ON procrastinate_jobs (lock, status, priority DESC, id)")
    out["with the index"] = asyncio.run(measure())
    with psycopg.connect(queue.conninfo(url), autocommit=True) as conn:
        conn.execute("DELETE FROM procrastinate_jobs WHERE args->>'sweep_id' = 'bench'")
    return out


# -- 2 and 3. hand-off gap and throughput ------------------------------------------------------------------------


def write_model(path: Path) -> None:
    from test_sweep_local import write_model as wm

    wm(path)


def run_sweep(url: str, tmp: Path, devices: list[str], inventory: Path | None, cells: int,
              poll: float) -> dict[str, Any]:
    write_model(tmp / "m.onnx")
    per_board = max(1, cells // len(devices))
    (tmp / "bench.yaml").write_text(
        "version: 1\nname: bench\nmodels: [m.onnx]\ndevices: [" + ", ".join(devices) + "]\nruntimes: [\"null\"]\n"
        f"batch: [{', '.join(str(b + 1) for b in range(per_board))}]\n"
        # max_queries keeps a null cell's samples (and so the row to store) the size of a real cell's
        "settings: {min_duration_s: 0.2, min_queries: 20, max_queries: 2000, warmup_s: 0, timeout_s: 60}\n")
    inv = ["--inventory", str(inventory)] if inventory else []
    env = {**os.environ}
    workers = [subprocess.Popen([sys.executable, "-m", "edgeprof", "worker", "--queue",
                                 "lab.bench" if inventory else "lab.default", "--db", url, "--poll", str(poll),
                                 "--concurrency", str(len(devices)), *inv], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        store = Store(url)
        deadline = time.monotonic() + 60
        while len([w for w in queue.lab_status(store).workers if w["alive"]]) < 2:
            if time.monotonic() > deadline:
                raise RuntimeError("workers did not start")
            time.sleep(0.2)
        t0 = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "edgeprof", "sweep", str(tmp / "bench.yaml"), "--queue",
                            "--wait", "--db", url, *inv], capture_output=True, text=True, timeout=1800)
        wall = time.monotonic() - t0
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-3000:])
        sweep_id = p.stdout.strip().splitlines()[0]
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        for w in workers:
            w.communicate(timeout=60)
    results = list(store.iter_results(sweep_id=sweep_id, limit=None))
    gaps: list[float] = []
    for dev in devices:
        spans = sorted((r.extra["sweep"]["started_at_unix"], r.extra["sweep"]["ended_at_unix"],
                        r.extra["sweep"]["controller"]) for r in results if r.device == dev)
        gaps += [s2 - e1 for (_, e1, _), (s2, _, _) in zip(spans, spans[1:], strict=False)]
    controllers = {r.extra["sweep"]["controller"] for r in results}
    # the queue's own part: one job of a board ended (event succeeded) -> the board's next job started
    with psycopg.connect(queue.conninfo(url)) as conn:
        rows = conn.execute(
            "SELECT j.lock, e.type::text, extract(epoch FROM e.at) FROM procrastinate_jobs j "
            "JOIN procrastinate_events e ON e.job_id = j.id WHERE j.args->>'sweep_id' = %s "
            "AND e.type IN ('started', 'succeeded') ORDER BY j.lock, e.at", (sweep_id,)).fetchall()
    queue_gaps: list[float] = []
    last_end: dict[str, float] = {}
    for lock, kind, at in rows:
        if kind == "started" and lock in last_end:
            queue_gaps.append(float(at) - last_end.pop(lock))
        elif kind == "succeeded":
            last_end[lock] = float(at)
    return {"cells": len(results), "wall_s": wall, "gaps": gaps, "queue_gaps": queue_gaps,
            "controllers": len(controllers)}


def ssh_inventory(tmp: Path, n: int) -> tuple[Any, list[str], Path]:
    from sshd import SSHLab
    from test_sweep_ssh import inventory

    lab = SSHLab(tmp / "lab")
    names = [f"board{i}" for i in range(n)]
    hosts = {name: lab.start_host(name) for name in names}
    inv = inventory(tmp / "devices.yaml", lab, {name: (hosts[name], {"rack": "1"}, sys.executable)
                                                for name in names})
    inv.write_text(inv.read_text().replace("    port:", "    controller: bench\n    port:"))
    return lab, names, inv


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", help="a PostgreSQL server URL (a fresh database is created on it)")
    ap.add_argument("--boards", type=int, default=500)
    ap.add_argument("--per-board", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=50, help="fetches timed per variant")
    ap.add_argument("--cells", type=int, default=24, help="null cells in the throughput sweep")
    ap.add_argument("--poll", type=float, default=0.2, help="the workers' --poll")
    ap.add_argument("--ssh-boards", type=int, default=3, help="sshd boards for the throughput sweep (0: local)")
    args = ap.parse_args()
    server = None
    if args.db:
        url = fresh_database(args.db)
    else:
        from pg import PgServer, missing_reason

        reason = missing_reason()
        if reason:
            print(f"queue_overhead: {reason}; or pass --db", file=sys.stderr)
            return 2
        server = PgServer()
        server.init()
        server.start()
        url = server.create_database()
    tmp = Path(tempfile.mkdtemp(prefix="edgeprof-qbench-"))
    os.environ.setdefault("XDG_CACHE_HOME", str(tmp / "cache"))
    os.environ["HOME"] = str(tmp)
    lab = None
    try:
        queue.upgrade(url)
        print(f"PostgreSQL: {queue.display(url)}")
        ft = fetch_times(url, args.boards, args.per_board, args.rounds)
        print(f"\n1. job fetch, {args.boards} boards x {args.per_board} queued cells (half the boards busy), "
              f"{args.rounds} fetches each (goal <= 10 ms):")
        for name, times in ft.items():
            print(f"   {name:18s} median {statistics.median(times):7.2f} ms   p95 {pct(times, 0.95):7.2f} ms")
        ratio = statistics.median(ft["without the index"]) / statistics.median(ft["with the index"])
        print(f"   the index makes the median fetch {ratio:.1f}x faster")
        if args.ssh_boards > 0:
            lab, devices, inv = ssh_inventory(tmp, args.ssh_boards)
        else:
            devices, inv = ["local"], None
        r = run_sweep(url, tmp, devices, inv, args.cells, args.poll)
        gaps = r["gaps"]
        print(f"\n2. hand-off gap between consecutive cells on one board (two workers, --poll {args.poll:g} s; "
              "goal <= 0.5 s):")
        if gaps:
            print(f"   board idle, one cell's end to the next cell's start (includes edgeprof's per-cell teardown "
                  f"and set-up: row commit, lease release, SSH connect, agent start): median "
                  f"{statistics.median(gaps):.3f} s   p95 {pct(gaps, 0.95):.3f} s   max {max(gaps):.3f} s "
                  f"({len(gaps)} hand-offs)")
        qg = r["queue_gaps"]
        if qg:
            print(f"   the queue's part, a board's job ended to its next job started: median "
                  f"{statistics.median(qg):.3f} s   p95 {pct(qg, 0.95):.3f} s   max {max(qg):.3f} s")
        print(f"\n3. throughput: {r['cells']} null cells on {len(devices)} board(s) through 2 workers "
              f"({r['controllers']} ran cells): {r['cells'] / r['wall_s']:.2f} cells/s "
              f"({r['wall_s']:.1f} s from submit to the last row)")
    finally:
        if lab is not None:
            lab.stop_all()
        if server is not None:
            server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
