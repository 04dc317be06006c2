"""What keeping every sample of a long sustained run costs: memory, bytes and time, old form against new.

A 30-minute sustained run of a sub-millisecond model holds tens of millions of queries. For N queries (latencies
of about 80 µs with a gamma tail, issue times back to back, both int64 ns) this measures, each case in a fresh
process (peak RSS is ru_maxrss above the process's own after its imports; tracemalloc's peak of Python
allocations beside it):

  agent  the loop's holdings and the reply's encoding:
         old  (protocol 9)  two Python lists of ints, samples as raw int64 base64, issue times as JSON numbers
         new  (protocol 10) two array("q"), both packed (int64 bytes regrouped by position, zlib, base64)
  host   parsing the reply, building the Result (latency statistics, scenario times) and storing it in SQLite
         with edgeprof's Store, then loading it back (checked equal, every value):
         old  (schema 8) lists of floats, the JSON numbers stored
         new  (schema 9) one float64 array each (records/samples.py), stored packed

and prints the figures side by side with the ratios old / new. The 30 M old cases are left out by default (they
need about 5 GB; --old-max raises it). --real S also runs `edgeprof deploy --device local --runtime null
--scenario sustained --duration S` through the CLI and reports its queries, the agent's peak RSS, the stored
row's size and the wall time.

  python benchmarks/sustained_samples.py [--sizes 1e6,1e7,3e7] [--old-max 1e7] [--real 60]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _data(n: int) -> tuple[Any, Any]:
    """N latencies and issue offsets (ns) as the agent's loop makes them, as numpy int64."""
    import numpy as np

    rng = np.random.default_rng(0)
    lat = (80_000 + rng.gamma(2.0, 3_000.0, n)).astype(np.int64)
    issued = np.cumsum(lat + rng.integers(200, 400, n)) - lat[0]
    return lat, issued.astype(np.int64)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _reply_line(lat: Any, issued: Any, form: str) -> tuple[str, float, float, float]:
    """The agent side: hold the samples as the loop does, encode the reply's samples and times.
    Returns (line, hold MB above baseline (RSS), peak MB above baseline (RSS), encode seconds)."""
    import array
    import base64

    from edgeprof_agent.record import PACKED_INT64

    base = _rss_mb()
    if form == "old":
        lat_h, iss_h = lat.tolist(), issued.tolist()  # the old loop's Python lists of ints
    else:
        lat_h, iss_h = array.array("q"), array.array("q")
        lat_h.frombytes(lat.tobytes())
        iss_h.frombytes(issued.tobytes())
    del lat, issued
    hold = _rss_mb() - base
    t = time.perf_counter()
    if form == "old":
        samples = {"dtype": "<i8", "b64": base64.b64encode(array.array("q", lat_h).tobytes()).decode("ascii")}
        line = json.dumps({"id": 1, "ok": True, "result": {"samples_ns": samples, "issued_ns": iss_h}})
    else:
        line = json.dumps({"id": 1, "ok": True, "result": {"samples_ns": PACKED_INT64.encode(lat_h),
                                                           "issued_ns": PACKED_INT64.encode(iss_h)}})
    return line, hold, _rss_mb() - base, time.perf_counter() - t


def agent_case(n: int, form: str, d: str) -> dict[str, Any]:
    lat, issued = _data(n)
    line, hold, peak, enc_s = _reply_line(lat, issued, form)
    Path(d, f"reply-{form}.json").write_text(line)  # what the host case reads
    return {"hold_mb": hold, "peak_mb": peak, "encode_s": enc_s, "wire_mb": len(line) / 1e6}


def host_case(n: int, form: str, db_dir: str) -> dict[str, Any]:
    import gc

    import numpy as np

    from edgeprof.analysis.stats import latency_summary
    from edgeprof.records import Environment, Result, Scenario
    from edgeprof.records.samples import ms_from_ns, ms_from_ns_tenth_us
    from edgeprof.store import Store
    from edgeprof_agent.messages import ScenarioReply

    line = Path(db_dir, f"reply-{form}.json").read_text()  # the reply line as the transport holds it
    base = _rss_mb()
    t0 = time.perf_counter()
    raw = json.loads(line)["result"]
    del line
    field = ScenarioReply.FIELDS[[f.name for f in ScenarioReply.FIELDS].index("issued_ns")]
    samples_ns = field.check(raw["samples_ns"], "samples_ns")
    issued_ns = field.check(raw["issued_ns"], "issued_ns")
    del raw
    if form == "old":  # schema 8's assemble: lists of floats
        samples_ms: Any = [ns / 1e6 for ns in samples_ns]
        issued_ms: Any = [round(t / 1e6, 4) for t in issued_ns]
    else:
        samples_ms, issued_ms = ms_from_ns(samples_ns), ms_from_ns_tenth_us(issued_ns)
    del samples_ns, issued_ns
    lat_stats = latency_summary(samples_ms)
    result = Result(run_id="20261205-000000-bench0", status="ok", created_at="2026-12-05T00:00:00+00:00",
                    device="local", model="bench", runtime="null", precision="fp32", batch=1, threads=None,
                    latency_ms=lat_stats, throughput_ips=None, memory_mb=None, power=None, thermal=None,
                    fidelity=None, environment=Environment(), warnings=[], samples_ms=samples_ms,
                    scenario=Scenario(name="sustained", queries=n, samples=n, issued_ms=issued_ms))
    del samples_ms, issued_ms
    build_s = time.perf_counter() - t0
    build_mb = _rss_mb() - base
    store = Store(f"sqlite:///{db_dir}/results.db")
    if form == "old":  # schema 8 stored the numbers
        real = Result.to_json
        Result.to_json = lambda self, indent=None, packed=False: real(self, indent, packed=False)  # type: ignore
    t1 = time.perf_counter()
    store.save(result)
    store_s = time.perf_counter() - t1
    store_mb = _rss_mb() - base
    size = os.path.getsize(f"{db_dir}/results.db")
    del result
    gc.collect()
    t2 = time.perf_counter()
    back = store.get("20261205-000000-bench0")
    load_s = time.perf_counter() - t2
    lat, _issued = _data(n)
    exact = bool(np.array_equal(np.asarray(back.samples_ms), lat / 1e6))
    return {"build_s": build_s, "build_mb": build_mb, "store_s": store_s, "peak_mb": _rss_mb() - base,
            "store_mb_rss": store_mb, "db_mb": size / 1e6, "load_s": load_s, "exact": exact}


def _child(kind: str, n: int, form: str, d: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "agents"),
                                                        os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(n), form, d], env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def real_run(duration_s: float) -> None:
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, HOME=home, XDG_DATA_HOME=f"{home}/data", XDG_CACHE_HOME=f"{home}/cache",
                   XDG_CONFIG_HOME=f"{home}/config",
                   PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "agents"), os.environ.get("PYTHONPATH", "")]))
        db = f"{home}/results.db"
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "edgeprof", "deploy", "--device", "local", "--runtime", "null",
                              "--model", "null", "--scenario", "sustained", "--duration", f"{duration_s:g}",
                              "--window", f"{duration_s / 6:g}", "--warmup", "0", "--idle", "0", "--db", db,
                              "--json", f"{home}/r.json"], env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t
        host_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0  # run first: no other child
        if out.returncode:
            print(f"real run failed ({out.returncode}): {out.stderr.strip().splitlines()[-1:]}")
            return
        from edgeprof.store import Store

        (run_id,) = [row["run_id"] for row in Store(f"sqlite:///{db}").list()]
        stored = Store(f"sqlite:///{db}").get(run_id)  # the packed row (the --json file is numbers: large)
        n = len(stored.samples_ms)
        assert stored.sustained is not None and stored.memory_mb is not None
        r = {"memory_mb": {"peak_rss": stored.memory_mb.peak_rss}}
        windows = [w.n for w in stored.sustained.windows]
        print(f"\nreal: deploy --device local --runtime null --scenario sustained --duration {duration_s:g}: "
              f"{n} samples kept ({n / duration_s:,.0f} queries/s), windows {windows} (sum {sum(windows)}), "
              f"agent peak RSS {r['memory_mb']['peak_rss']} MB, host CLI peak RSS {host_peak:.0f} MB, "
              f"stored row {os.path.getsize(db) / 1e6:.1f} MB, --json file {os.path.getsize(f'{home}/r.json') / 1e6:.1f}"
              f" MB, wall {wall:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1e6,1e7,3e7")
    ap.add_argument("--old-max", type=float, default=1e7, help="largest N the old form is measured at")
    ap.add_argument("--real", type=float, default=0.0, help="also a real local sustained run of this many s")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        kind, n, form, d = a.child
        fn = agent_case(int(n), form, d) if kind == "agent" else host_case(int(n), form, d)
        print(json.dumps(fn))
        return
    if a.real:  # first: the CLI's peak RSS is the largest of this process's children so far
        real_run(a.real)
    sizes = [int(float(s)) for s in a.sizes.split(",") if s]
    agent: dict[int, dict[str, Any]] = {}
    host: dict[int, dict[str, Any]] = {}
    for n in sizes:
        forms = [f for f in ("old", "new") if f == "new" or n <= a.old_max]
        for f in forms:
            with tempfile.TemporaryDirectory() as d:
                agent.setdefault(n, {})[f] = _child("agent", n, f, d)
                if "error" not in agent[n][f]:
                    host.setdefault(n, {})[f] = _child("host", n, f, d)
    print("agent: hold = the loop's latencies + issue times; peak = with the reply encoded (RSS above baseline)")
    print(f"{'N':>11} {'form':>4} {'hold MB':>8} {'peak MB':>8} {'encode s':>9} {'wire MB':>8} {'B/query':>8}")
    for n, rows in agent.items():
        for f, r in rows.items():
            if "error" in r:
                print(f"{n:>11,} {f:>4} error: {r['error']}")
                continue
            print(f"{n:>11,} {f:>4} {r['hold_mb']:>8.0f} {r['peak_mb']:>8.0f} {r['encode_s']:>9.2f} "
                  f"{r['wire_mb']:>8.1f} {r['wire_mb'] * 1e6 / n:>8.2f}")
        if len(rows) == 2 and all("error" not in r for r in rows.values()):
            o, w = rows["old"], rows["new"]
            print(f"{'':>11} old/new: hold x{o['hold_mb'] / max(w['hold_mb'], 1):.1f}, peak "
                  f"x{o['peak_mb'] / max(w['peak_mb'], 1):.1f}, wire x{o['wire_mb'] / w['wire_mb']:.1f}, encode "
                  f"x{o['encode_s'] / w['encode_s']:.2f}")
    print("\nhost: build = parse the reply line + the Result; store = Store.save (SQLite); load = Store.get; peak RSS"
          " above the process holding the line")
    print(f"{'N':>11} {'form':>4} {'build s':>8} {'build MB':>9} {'store s':>8} {'peak MB':>8} {'db MB':>7} "
          f"{'load s':>7} exact")
    for n, rows in host.items():
        for f, r in rows.items():
            if "error" in r:
                print(f"{n:>11,} {f:>4} error: {r['error']}")
                continue
            print(f"{n:>11,} {f:>4} {r['build_s']:>8.2f} {r['build_mb']:>9.0f} {r['store_s']:>8.2f} "
                  f"{r['peak_mb']:>8.0f} {r['db_mb']:>7.1f} {r['load_s']:>7.2f} {r['exact']}")
        if len(rows) == 2 and all("error" not in r for r in rows.values()):
            o, w = rows["old"], rows["new"]
            print(f"{'':>11} old/new: build x{o['build_s'] / w['build_s']:.1f}, store x{o['store_s'] / w['store_s']:.1f},"
                  f" peak x{o['peak_mb'] / max(w['peak_mb'], 1):.1f}, db x{o['db_mb'] / w['db_mb']:.1f}, load "
                  f"x{o['load_s'] / w['load_s']:.1f}")


if __name__ == "__main__":
    main()
