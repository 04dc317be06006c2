"""A generation sweep end to end through `edgeprof sweep`: llama_tiny on llama.cpp Q4_0 over prompt_tokens ×
depth on three boards — this machine (`local`, no power sensor), a real sshd board whose sysfs root is the
Raspberry Pi 4 + INA219 tree (tests/data/boards/rpi4-ina219: every reading 3.2768 W), and a real sshd board whose
python has no llama_cpp (the interpreter run with -S). Then what reads the rows: `results list`, `check` (budgets
and a baseline on decode_tps, ttft_ms, j_per_token), `compare` of two stored runs of one configuration, and the
HTML report's generation charts, each point the stored value.

The board without llama.cpp: its cells are skip rows with the capability's one line, decided from its facts before
anything is built or pushed (no GGUF reaches its workdir). The powered board: J/token equals the tree's watts ×
the decode time ÷ the decode tokens (rel 1e-9: a constant integrates exactly whatever the sampling)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from sshd import SSHLab
from test_sweep_ssh import no_runtime_python

from edgeprof.cli.main import main
from edgeprof.store import Store

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
WATTS = 3_276_800 / 1e6  # tests/data/boards/rpi4-ina219: hwmon2/power1_input (uW)
GEN = 4
REPS = 2

SWEEP = f"""version: 1
name: genlab
models: [llama_tiny]
devices: [local, pi4, bare]
runtimes: [llama.cpp]
precisions: [q4_0]
threads: [1]
prompt_tokens: [8, 16]
depth: [0, 32]
settings: {{gen_tokens: {GEN}, repetitions: {REPS}, idle_s: 0, timeout_s: 300, retries: 0}}
budgets:
  - match: {{model: llama_tiny}}
    limits: ["decode_tps > 0.01", "ttft_ms < 60000"]
  - match: {{device: pi4}}
    limits: ["j_per_token < 100"]
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.fixture
def genlab(sshd_hosts: SSHLab, tmp_path: Path, client_home: Path) -> tuple[Path, Path, Path]:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    pi4, bare = sshd_hosts.start_host("pi4"), sshd_hosts.start_host("bare")
    tree = tmp_path / "rpi4-ina219"
    shutil.copytree(REPO / "tests" / "data" / "boards" / "rpi4-ina219", tree, symlinks=True)
    inv = tmp_path / "devices.yaml"
    inv.write_text("version: 1\ndefaults:\n  connect_timeout: 10\n"
                   f"  known_hosts: {sshd_hosts.known_hosts(tmp_path / 'kh', pi4, bare)}\ndevices:\n"
                   + sshd_hosts.yaml_entry(pi4, "pi4", python=sys.executable, sysfs_root=tree,
                                           power="{source: hwmon, rate_hz: 100}")
                   + sshd_hosts.yaml_entry(bare, "bare", python=no_runtime_python(tmp_path)))
    (tmp_path / "gen.yaml").write_text(SWEEP)
    return tmp_path, inv, Path(bare.workdir)


def test_generation_sweep_on_three_boards_then_check_compare_list_and_report(genlab, capsys) -> None:  # type: ignore[no-untyped-def]
    tmp, inv, bare_workdir = genlab
    db = str(tmp / "r.sqlite")
    code, out, err = run(capsys, "sweep", str(tmp / "gen.yaml"), "--inventory", str(inv), "--db", db, "--quiet",
                         "--id-file", str(tmp / "id"))
    assert code == 0, out + err
    out = re.sub(r"\s+", " ", out + err)  # the cell lines (stderr) and the summary (stdout), unwrapped
    sweep_id = (tmp / "id").read_text().strip()
    store = Store(db)
    rows = {(r.sweep.cell_id if r.sweep else ""): r
            for r in (store.get(x.run_id) for x in store.list(sweep_id=sweep_id, limit=None))}
    ids = {f"{d}/llama_tiny/llama.cpp/q4_0/b1/t1/pp{p}/tg{GEN}/d{depth}"
           for d in ("local", "pi4", "bare") for p in (8, 16) for depth in (0, 32)}
    assert set(rows) == ids

    # the board without llama.cpp: skip rows saying so, nothing built or pushed there
    for cid, r in rows.items():
        if cid.startswith("bare/"):
            assert r.status == "skipped" and r.generation is None
            assert r.reason is not None and r.reason.startswith(
                "device bare has no llama.cpp: llama_cpp is not importable there"), r.reason
            assert f"skipped {cid}: device bare has no llama.cpp" in out
    assert not list(bare_workdir.rglob("*.gguf")), "a GGUF reached the board without llama.cpp"

    measured = {cid: r for cid, r in rows.items() if not cid.startswith("bare/")}
    for cid, r in measured.items():
        g = r.generation
        assert r.status == "ok" and g is not None, (cid, r.reason)
        pp, depth = int(cid.split("/pp")[1].split("/")[0]), int(cid.rsplit("/d", 1)[1])
        assert (g.prompt_tokens, g.tokens, g.depth, g.repetitions) == (pp, GEN, depth, REPS)
        # stored as given, a depth of 0 as 0 (the generation settings are kept as they are, vocab "always")
        assert r.settings.depth == depth and r.settings.prompt_tokens == pp
        assert f"ok {cid}: pp{pp} tg{GEN}" in out and "decode" in out
        # where the time went: the host's phases and the agent's, the timed window the repetitions' span
        ph = r.phases
        assert ph is not None and ph.export_s is not None and ph.push_s is not None and ph.measure_s is not None
        assert 0 < ph.window_s <= ph.measure_s <= ph.run_s
        if cid.startswith("pi4/"):  # energy from the tree's constant watts, per decode token
            e = g.energy
            assert e is not None and e.decode_tokens == REPS * (GEN - 1)
            assert e.decode_mean_w == pytest.approx(WATTS, rel=1e-9)
            assert e.j_per_token == pytest.approx(WATTS * e.decode_s / e.decode_tokens, rel=1e-9)
        else:
            assert g.energy is None and g.energy_reason
    # each depth its own configuration (check's baseline, the report's latest-per-configuration)
    assert len({r.identity.key() for r in measured.values()}) == len(measured)

    # results list: the generation's own columns, not empty forward-pass ones
    code, listed, err = run(capsys, "results", "list", "--db", db, "--limit", "0")
    assert code == 0, err
    assert "p50" not in listed and "inf/s" not in listed, listed
    assert "TTFT" in listed and "decode" in listed and "mJ/tok" in listed and "pp16" in listed, listed
    code, js, err = run(capsys, "results", "list", "--db", db, "--limit", "0", "--json")
    listed_json = {x["run_id"]: x for x in json.loads(js)}
    for r in measured.values():
        assert r.generation is not None and r.generation.decode_tps is not None
        assert listed_json[r.run_id]["generation"]["decode_tps"] == r.generation.decode_tps.mean
        assert listed_json[r.run_id]["generation"]["depth"] == r.generation.depth

    # check: the sweep file's budgets on the generation figures pass, against itself nothing changed
    code, checked, err = run(capsys, "check", "--db", db, "--sweep", sweep_id, "--baseline", sweep_id, "--all",
                             "--junit", str(tmp / "check.xml"))
    flat = re.sub(r"\s+", " ", checked)
    assert code == 0, checked + err
    for metric in ("decode_tps", "ttft_ms", "j_per_token"):
        assert metric in flat
    junit = (tmp / "check.xml").read_text()
    assert "j_per_token &lt; 100" in junit or "j_per_token < 100" in junit
    # a budget the runs miss fails, naming the metric
    code, checked, err = run(capsys, "check", "--db", db, "--sweep", sweep_id, "--baseline", sweep_id,
                             "--budget", "decode_tps > 1e9")
    assert code == 1 and "decode_tps" in checked and "FAIL" in checked, checked + err

    # compare: the same configuration measured again (a second sweep of one cell), figure by figure
    (tmp / "again.yaml").write_text(SWEEP.replace("devices: [local, pi4, bare]", "devices: [pi4]")
                                    .replace("prompt_tokens: [8, 16]", "prompt_tokens: [8]")
                                    .replace("depth: [0, 32]", "depth: [0]").replace("name: genlab", "name: again"))
    code, out2, err = run(capsys, "sweep", str(tmp / "again.yaml"), "--inventory", str(inv), "--db", db, "--quiet",
                          "--id-file", str(tmp / "id2"))
    assert code == 0, out2 + err
    again = store.list(sweep_id=(tmp / "id2").read_text().strip(), limit=None)
    assert len(again) == 1
    b = store.get(again[0].run_id)
    a = measured[f"pi4/llama_tiny/llama.cpp/q4_0/b1/t1/pp8/tg{GEN}/d0"]
    assert a.identity.key() == b.identity.key()
    code, compared, err = run(capsys, "compare", "--db", db, a.run_id, b.run_id)
    assert code == 0, compared + err
    flat = re.sub(r"\s+", " ", compared)
    assert "decode tokens per second" in flat and "time to first token" in flat and "energy per generated token" in flat
    assert a.generation is not None and b.generation is not None and a.generation.decode_tps is not None
    ratio = b.generation.decode_tps.mean / a.generation.decode_tps.mean
    assert f"{ratio:.3f}" in flat
    assert "p50 latency" not in flat and "throughput" not in flat  # no forward-pass rows of n/a
    # the two sweeps cell by cell: the generation figures' columns, not the forward pass's
    code, compared, err = run(capsys, "compare", "--db", db, sweep_id, (tmp / "id2").read_text().strip())
    assert code == 0, compared + err
    assert "decode_tps" in compared and "j_per_token" in compared and "p50_ms" not in compared
    assert f"{ratio:.2f}" in compared

    # the report: the generation charts, each point the stored value
    page = tmp / "report.html"
    code, _, err = run(capsys, "report", "--db", db, "--sweep", sweep_id, "--out", str(page))
    assert code == 0, err
    doc = page.read_text()
    if os.environ.get("EDGEPROF_KEEP_REPORT"):  # to look at it (headless Chromium --screenshot)
        shutil.copy(page, os.environ["EDGEPROF_KEEP_REPORT"])
    points = [dict(re.findall(r'data-([a-z]+)="([^"]*)"', m))
              for m in re.findall(r'<g class="gen-point"[^>]*>', doc)]
    by_run = {r.run_id: r for r in measured.values()}
    depth_pts = [p for p in points if p["chart"] == "decode_vs_depth"]
    ttft_pts = [p for p in points if p["chart"] == "ttft_vs_prompt"]
    assert len(depth_pts) == len(ttft_pts) == len(measured)
    for p in depth_pts:
        g = by_run[p["run"]].generation
        assert g is not None and g.decode_tps is not None
        assert float(p["x"]) == g.depth and float(p["v"]) == pytest.approx(g.decode_tps.mean, rel=1e-5)
    for p in ttft_pts:
        g = by_run[p["run"]].generation
        assert g is not None
        assert float(p["x"]) == g.prompt_tokens and float(p["v"]) == pytest.approx(g.ttft_ms.mean, rel=1e-5)
    bars = re.findall(r'<g class="gen-bar" data-device="([^"]*)" data-v="([^"]*)" data-run="([^"]*)"', doc)
    assert sorted(d for d, _, _ in bars) == ["pi4"] * 4  # only the powered board has energy per token
    for _, v, run_id in bars:
        e = by_run[run_id].generation.energy  # type: ignore[union-attr]
        assert e is not None and e.j_per_token is not None and float(v) == pytest.approx(e.j_per_token * 1000, rel=1e-5)
    pareto = re.findall(r'<g class="gen-pareto-point" data-front="(\d)" data-w="([^"]*)" data-v="([^"]*)"', doc)
    assert len(pareto) == 4 and all(float(w) == pytest.approx(WATTS, rel=1e-5) for _, w, _ in pareto)
    # at one wattage the fastest run is the frontier
    best = max(float(v) for _, _, v in pareto)
    assert [f for f, _, v in pareto if float(v) == best] == ["1"]
    assert "no power reading on local" in html.unescape(doc)
    assert "context depth (tokens in the KV cache before the prompt)" in doc and ">decode tokens/s<" in doc
    # the llama-bench table: pp and tg rows of every run
    # (two boards measured; pp8 at depth 0 on each, tg4 at depth 32 for each board and prompt length)
    assert doc.count('<td class="l">pp8</td>') == 2 and doc.count(f'<td class="l">tg{GEN} @ d32</td>') == 4


SERVER_SWEEP = """version: 1
name: genserver
models: [llama_tiny]
devices: [local]
runtimes: [llama.cpp]
precisions: [q4_0]
threads: [1]
scenarios: [single-stream, server, offline]
rates: [20]
prompt_tokens: [16]
gen_tokens: [4]
settings: {repetitions: 2, min_queries: 6, min_duration_s: 0, idle_s: 0, retries: 0}
overrides:
  - {match: {scenario: server}, ttft_bound_ms: 100000, tpot_bound_ms: 100000}
"""


def test_a_generation_sweep_runs_the_server_scenario_and_skips_one_the_kind_has_not(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """scenarios: server on a generative model is a server cell (Poisson arrivals at the sweep's rate, its bounds
    from an override, LoadGen's verdict stored); a scenario the generation kind has not (offline) is a skip row
    saying which it has, decided before anything is built."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    (tmp_path / "s.yaml").write_text(SERVER_SWEEP)
    db = str(tmp_path / "r.sqlite")
    code, out, err = run(capsys, "sweep", str(tmp_path / "s.yaml"), "--db", db)
    assert code == 0, out + err
    store = Store(db)
    rows = {r.sweep.cell_id: r for r in (store.get(x.run_id) for x in store.list(limit=None)) if r.sweep}
    base = "local/llama_tiny/llama.cpp/q4_0/b1/t1/pp16/tg4/d0"
    assert set(rows) == {base, f"{base}/server@20", f"{base}/offline"}
    server = rows[f"{base}/server@20"]
    sc = server.generation.scenario if server.generation else None
    assert server.status == "ok" and sc is not None and sc.name == "server" and sc.rate_rps == 20
    assert sc.requests == len(sc.ttft_ms) == 6 and sc.valid is True and (sc.ttft_bound_ms, sc.tpot_bound_ms) == (1e5, 1e5)
    assert server.scenario.name == "server" and server.scenario.valid is True  # the Result's own scenario section
    assert rows[base].status == "ok" and rows[base].generation.scenario is None
    off = rows[f"{base}/offline"]
    assert off.status == "skipped" and "the offline scenario for a generative model: not supported yet" in off.reason
