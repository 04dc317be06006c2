"""Poisoned results (issue 14 item 5): latency samples that are missing, NaN, infinite, zero or negative fail the
run with the reason (never stored as ok), and no JSON edgeprof writes contains a bare NaN or Infinity."""

from __future__ import annotations

import dataclasses
import json
import stat
import sys
from pathlib import Path

import pytest

from edgeprof import session as seam
from edgeprof.agentlink import check_samples
from edgeprof.cli.main import main
from edgeprof.errors import MeasurementFailed
from edgeprof.records import (
    Device,
    Environment,
    LatencyStats,
    Memory,
    Power,
    Result,
    RunSpec,
    dumps_json,
    new_run_id,
    utc_now,
)
from edgeprof.store import Store

# a device `python:` whose agent replaces the samples of its run reply (a hostile board)
WRAPPER = """#!{python}
import sys
sys.path.insert(0, sys.argv[1])
from edgeprof_agent import messages
real = messages.RunReply.to_dict
def to_dict(self):
    d = real(self)
    d["samples_ns"] = {samples}
    return d
messages.RunReply.to_dict = to_dict
sys.argv = sys.argv[1:]
from edgeprof_agent.__main__ import main
sys.exit(main())
"""


def hostile(tmp_path: Path, samples: str) -> Device:
    path = tmp_path / "python-hostile"
    path.write_text(WRAPPER.format(python=sys.executable, samples=samples))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return Device(name="pi", kind="local", python=str(path), workdir=str(tmp_path / "work"))


SPEC = RunSpec(device="pi", model="m", runtime="null", min_duration_s=0.1, min_queries=3, warmup_s=0.0)


@pytest.mark.parametrize(("samples", "message"), [
    ("[float('nan'), 1000, 2000]", "the agent on device pi returned 1 non-finite/negative latency samples (of 3)"),
    ("[-5, -1, 0, 2000]", "the agent on device pi returned 3 non-finite/negative latency samples (of 4)"),
    ("[float('inf')]", "the agent on device pi returned 1 non-finite/negative latency samples (of 1)"),
    ("[]", "the agent on device pi returned no latency samples"),
    # protocol 9 packs them: int64 holds no NaN, but a negative or zero still fails the run
    ("messages.PACKED_INT64.encode([-5, 0, 2000])",
     "the agent on device pi returned 2 non-finite/negative latency samples (of 3)"),
    ("messages.PACKED_INT64.encode([])", "the agent on device pi returned no latency samples"),
])
def test_a_board_returning_poisoned_samples_fails_the_run(tmp_path, samples, message):
    with pytest.raises(MeasurementFailed) as info:
        seam.deploy(SPEC, hostile(tmp_path, samples))
    assert info.value.message == message


def test_deploy_stores_nothing_for_poisoned_samples(tmp_path, capsys, monkeypatch):
    db = str(tmp_path / "r.sqlite")
    monkeypatch.setattr("edgeprof.cli.deploy.resolve_device", lambda name, inv: hostile(tmp_path, "[-1, -2]"))
    code = main(["deploy", "--device", "pi", "--model", "m", "--runtime", "null", "--min-duration", "0.1",
                 "--min-queries", "3", "--warmup", "0", "--db", db, "--quiet"])
    err = capsys.readouterr().err
    assert code != 0
    assert "returned 2 non-finite/negative latency samples" in err and "Traceback" not in err
    assert Store(db).count() == 0


def test_check_samples_accepts_positive_finite():
    check_samples([1, 2.5, 10**12], "d")  # no raise
    with pytest.raises(MeasurementFailed):
        check_samples([True], "d")


def test_json_never_carries_bare_nan(tmp_path, capsys):
    r = Result(run_id=new_run_id(), status="ok", created_at=utc_now(), device="pi", model="m",
               runtime="onnxruntime", precision="fp32", batch=1, threads=None, latency_ms=None, throughput_ips=1.0,
               memory_mb=Memory(peak_rss=10.0), power=None, thermal=None, fidelity=None,
               environment=Environment(), warnings=[], samples_ms=[1.0])
    r = dataclasses.replace(
        r, latency_ms=LatencyStats(p50=1.0, p90=1.0, p95=1.0, p97=1.0, p99=float("inf"), p999=float("nan"),
                                   min=1.0, max=1.0, mean=1.0, std=float("nan"), cv=float("nan"), n=1),
        power=Power.from_dict({"source": "ina3221", "rail": "VDD_IN", "mean_w": float("nan")}))
    text = r.to_json(indent=2)
    assert "NaN" not in text and "Infinity" not in text
    d = json.loads(text)
    assert d["latency_ms"]["std"] is None and d["latency_ms"]["p99"] is None and d["power"]["mean_w"] is None
    db = str(tmp_path / "r.sqlite")
    Store(db).save(r)
    assert main(["results", "show", r.run_id, "--db", db, "--json"]) == 0
    shown = capsys.readouterr().out
    assert "NaN" not in shown and "Infinity" not in shown
    json.loads(shown, parse_constant=lambda c: pytest.fail(f"bare {c} in results show --json"))
    assert main(["results", "list", "--db", db, "--json"]) == 0
    listed = capsys.readouterr().out
    rows = json.loads(listed, parse_constant=lambda c: pytest.fail(f"bare {c} in results list --json"))
    assert rows[0]["p99_ms"] is None
    assert dumps_json({"a": [float("-inf"), 1.5]}) == '{"a": [null, 1.5]}'
