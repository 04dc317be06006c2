"""Phase times (schema 6, protocol 6): the agent times each phase of a measurement, the host its own; the Result's
phases split into parts that add up to the total; results show prints them; a sweep's breakdown sums them per
board with the board's own phases. Real agent processes over the local transport (the null runtime)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from edgeprof import session as seam
from edgeprof.agentlink import AgentLink
from edgeprof.analysis.breakdown import breakdown
from edgeprof.records import Device, Result, RunSpec
from edgeprof.records.phases import PHASE_LABELS, Phases
from edgeprof.report.phases import markdown, phase_lines, text_table
from edgeprof.run.timing import PhaseClock
from edgeprof.session import DeviceSession
from edgeprof.transport.local import LocalTransport
from edgeprof_agent import messages as m


def _dev(tmp_path: Path) -> Device:
    return Device(name="bench-1", kind="local", workdir=str(tmp_path / "wd"), python=sys.executable)


def _spec(**kw: object) -> RunSpec:
    base: dict[str, object] = {"min_duration_s": 0.3, "min_queries": 20, "warmup_s": 0.2, "idle_s": 0.0,
                               "max_queries": None}  # no cap: the null runtime would reach it first
    base.update(kw)
    return RunSpec(device="bench-1", model="none", runtime="null", **base)  # type: ignore[arg-type]


def test_a_deploy_times_every_phase_it_makes(tmp_path: Path) -> None:
    r = seam.deploy(_spec(), _dev(tmp_path))
    p = r.phases
    assert isinstance(p, Phases) and p.total_s is not None and p.device_s is not None and p.run_s is not None
    # measured where they happen: the connection, the agent's start, the facts, the device's phases
    for name in ("connect_s", "agent_s", "facts_s", "push_s", "load_s", "warmup_s", "measure_s", "close_s"):
        assert getattr(p, name) is not None, name
    assert p.agent_s is not None and p.agent_s > 0 and p.facts_s is not None and p.facts_s > 0
    assert p.export_s is None and p.fidelity_s is None and p.profile_s is None  # the null runtime makes none
    assert p.window_s == round(r.settings.window_s or 0, 4) and p.window_s >= 0.3
    assert p.measure_s is not None and p.measure_s >= p.window_s
    # the warm-up of the null runtime is steady at once: far below its 0.2 s cap
    assert p.warmup_s is not None and p.warmup_s < 0.2 and r.settings.warmup is not None
    assert r.settings.warmup["steady"] is True
    assert p.device_s <= p.run_s <= p.total_s
    parts = dict(p.parts())
    assert list(parts) == [k for k, _ in PHASE_LABELS]
    assert abs(sum(parts.values()) - p.total_s) < 1e-6 and min(parts.values()) >= 0
    assert parts["window"] / p.total_s < 1


def test_a_sweep_cells_phases_leave_the_boards_connection_and_facts_out(tmp_path: Path) -> None:
    d = _dev(tmp_path)
    t = LocalTransport()
    with AgentLink.open(t, d) as link:
        facts = link.facts(runtimes=False)
    with DeviceSession(d, keep=False, facts=facts, transport=t) as session:  # the board's connection and facts
        r = seam.deploy(_spec(), session)
    assert r.phases is not None and r.phases.connect_s is None and r.phases.facts_s is None
    assert r.phases.agent_s is not None
    assert any("once per board" in line for line in phase_lines(r.phases))


def test_an_agent_without_phases_leaves_the_device_phases_null() -> None:
    """A reply of an agent before protocol 6 (no phases): the host's phases stand, the device's are None."""
    clock = PhaseClock()
    with clock.phase("push"):
        time.sleep(0.01)
    with clock.phase("push"):
        time.sleep(0.01)
    reply = SimpleNamespace(phases=None, window_s=1.5)
    p = clock.phases(reply)  # type: ignore[arg-type]
    assert p.push_s is not None and p.push_s >= 0.02 and p.load_s is None and p.device_s is None
    assert p.window_s == 1.5 and p.accuracy_s is None
    assert "wire" not in dict(p.parts()) and "reply" not in dict(p.parts())  # no device time to subtract


def test_parts_add_up_and_the_request_overhead_is_the_round_trip_minus_the_device() -> None:
    p = Phases(connect_s=0.5, agent_s=1.0, facts_s=0.5, export_s=2.0, export_cached=True, push_s=0.1,
               cooldown_s=0.0, idle_s=1.0, load_s=0.4, warmup_s=0.2, window_s=5.0, measure_s=5.1, outputs_s=0.0,
               profile_s=None, accuracy_s=0.7, accuracy_device_s=0.5, fidelity_s=0.3, device_s=7.3, run_s=7.6,
               close_s=0.2, total_s=14.0)
    parts = dict(p.parts())
    assert parts["around_window"] == pytest.approx(0.1)
    # the agent's 7.3 s minus its listed phases (idle, load, warm-up, measure, outputs, accuracy pass), and the
    # round trip's 7.6 s minus the agent's whole time
    assert parts["reply"] == pytest.approx(7.3 - (1.0 + 0.4 + 0.2 + 5.1 + 0.5))
    assert parts["wire"] == pytest.approx(7.6 - 7.3)
    assert sum(parts.values()) == pytest.approx(14.0) and parts["other"] == pytest.approx(
        14.0 - sum(v for k, v in parts.items() if k != "other"))
    lines = phase_lines(p)
    assert lines[0] == "phases: 14.00 s in all, timed window 5.00 s (36 %)"
    assert "export 2.00 (cached)" in lines[1] and "timed window 5.00" in lines[2] and "fidelity 0.30" in lines[3]


def test_results_show_prints_the_phases_and_json_has_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    from edgeprof.cli.main import main
    from edgeprof.store import Store

    r = seam.deploy(_spec(), _dev(tmp_path))
    db = str(tmp_path / "r.sqlite")
    Store(db).save(r)
    assert main(["results", "show", r.run_id, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "phases: " in out and "timed window" in out and "agent push/start" in out
    assert main(["results", "show", r.run_id, "--db", db, "--json"]) == 0
    import json

    shown = json.loads(capsys.readouterr().out)
    assert shown["phases"] == r.phases.to_dict() if r.phases else False
    assert Result.from_dict(shown).phases == r.phases


def test_a_breakdown_sums_per_board_and_counts_rows_without_phases() -> None:
    def row(device: str, window: float, total: float) -> SimpleNamespace:
        return SimpleNamespace(device=device, phases=Phases(window_s=window, measure_s=window, load_s=0.5,
                                                            total_s=total))

    rows = [row("a", 5.0, 7.0), row("a", 5.0, 6.0), row("b", 5.0, 8.0), SimpleNamespace(device="b", phases=None)]
    bd = breakdown(rows, wall_s=25.0)  # type: ignore[arg-type]
    assert bd.window_s == 15.0 and bd.share() == pytest.approx(0.6) and bd.without_phases == 1
    assert bd.boards["a"].cells == 2 and bd.boards["a"].seconds["load"] == 1.0
    assert bd.boards["b"].seconds["other"] == pytest.approx(2.5)
    lines = text_table(bd)
    assert lines[0].startswith("timed windows 15.00 s of 25.00 s wall: 0.60")
    assert any(line.startswith("timed window") and "15.00" in line and "60.0" in line for line in lines)
    md = markdown(bd)
    assert md[0] == "| phase | a | b | all | % of wall |" and any("| load | 1.00 | 0.50 | 1.50 |" in x for x in md)


def test_the_agent_reply_phases_cover_its_total(tmp_path: Path) -> None:
    """The agent's RunPhases: every phase it ran, their sum within its total."""
    d = _dev(tmp_path)
    with AgentLink.open(LocalTransport(), d) as link:
        reply = link.run(m.RunRequest(runtime="null", warmup_s=0.1, min_duration_s=0.2, min_queries=10, idle_s=0.0,
                                      max_queries=None))
    ph = reply.phases
    assert isinstance(ph, m.RunPhases) and ph.profile_s is None and ph.accuracy_s is None
    listed = ph.cooldown_s + ph.idle_s + ph.load_s + ph.streams_s + ph.warmup_s + ph.measure_s + ph.outputs_s
    assert 0 < listed <= ph.total_s and ph.measure_s >= reply.window_s >= 0.2
    # protocol 9: the total starts when the agent read the request; its setup (parsing it, importing the
    # measuring code) is inside the total, so the host counts it as the agent's, not the wire's
    assert ph.setup_s is not None and ph.setup_s > 0 and listed + ph.setup_s <= ph.total_s + 1e-3


def test_the_report_says_where_the_time_went() -> None:
    """The report's section from stored rows (golden v6): the summary line and the table; rows of older schemas
    have no phases and say so instead of inventing numbers."""
    import json

    from edgeprof.analysis.breakdown import stored_breakdown
    from edgeprof.report.phases import html_section

    golden = Path(__file__).resolve().parents[1] / "data" / "golden" / "results"
    v6 = [Result.from_dict(json.loads(p.read_text())) for p in sorted((golden / "v6").glob("ok_local_*.json"))]
    bd = stored_breakdown(v6)
    assert bd is not None and bd.boards["local"].cells == 4 and bd.wall_s is None
    assert bd.window_s == pytest.approx(sum(r.phases.window_s for r in v6 if r.phases and r.phases.window_s))
    page = html_section(v6)
    assert "timed windows" in page and "<table" in page and "agent push/start" in page
    v5 = [Result.from_dict(json.loads(p.read_text())) for p in sorted((golden / "v5").glob("ok_local_*.json"))]
    assert stored_breakdown(v5) is None and "No result in this selection has phase times" in html_section(v5)
