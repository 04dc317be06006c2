import json
import os

import pytest
import sqlalchemy as sa

from edgeprof.errors import StoreError
from edgeprof.records import (
    RESULT_KEYS,
    RESULT_SCHEMA_VERSION,
    BoardFacts,
    Environment,
    LatencyStats,
    Memory,
    Result,
    new_run_id,
    utc_now,
)
from edgeprof.store import Store, resolve_db_url


def make_result(run_id=None, device="local", model="m", p50=1.0, created_at=None):
    return Result(
        run_id=run_id or new_run_id(), status="ok", created_at=created_at or utc_now(), device=device, model=model,
        runtime="onnxruntime", precision="fp32", batch=1, threads=2,
        latency_ms=LatencyStats(p50=p50, p90=p50, p95=p50, p97=p50, p99=p50 * 2, p999=p50 * 2, min=p50,
                                max=p50 * 2, mean=p50, std=0.0, cv=0.0, n=5),
        throughput_ips=1000 / p50, memory_mb=Memory(peak_rss=10.0),
        power=None, thermal=None, fidelity=None, environment=Environment(device=BoardFacts(hostname="h")), warnings=[],
        samples_ms=[p50] * 5,
    )


def test_roundtrip_and_json_keys(tmp_path):
    store = Store(str(tmp_path / "r.sqlite"))
    r = make_result()
    store.save(r)
    got = store.get(r.run_id)
    assert got.to_dict() == r.to_dict()
    d = json.loads(got.to_json())
    assert list(d)[: len(RESULT_KEYS)] == list(RESULT_KEYS)
    assert d["schema_version"] == RESULT_SCHEMA_VERSION


def test_list_filters_and_order(tmp_path):
    store = Store(str(tmp_path / "r.sqlite"))
    store.save(make_result("20260101-000000-aaaaaa", device="a", created_at="2026-01-01T00:00:00+00:00"))
    store.save(make_result("20260102-000000-bbbbbb", device="b", created_at="2026-01-02T00:00:00+00:00"))
    rows = store.list()
    assert [r.run_id for r in rows] == ["20260102-000000-bbbbbb", "20260101-000000-aaaaaa"]
    assert [r.device for r in store.list(device="a")] == ["a"]
    assert store.count() == 2


def test_a_listed_run_is_a_record_of_the_runs_summary_columns(tmp_path, capsys):
    """Store.list gives RunRow records (one field per summary column of the runs table); `results list --json`
    prints each as the object it always printed: these keys, in this order, with the stored values."""
    from edgeprof.cli.main import main
    from edgeprof.store import RunRow, runs

    db = str(tmp_path / "r.sqlite")
    r = make_result("20260101-000000-aaaaaa", p50=2.0)
    Store(db).save(r, sweep_id="sw-1")
    (row,) = Store(db).list()
    assert isinstance(row, RunRow) and (row.run_id, row.device, row.p50_ms, row.p99_ms, row.top1) == (
        r.run_id, "local", 2.0, 4.0, None)
    assert row.config_key == r.identity.key() and row.sweep_id == "sw-1" and row.threads == 2
    assert {c.name for c in RunRow.columns()} <= {c.name for c in runs.columns}
    assert main(["results", "list", "--db", db, "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert list(listed) == ["run_id", "created_at", "status", "device", "model", "runtime", "precision", "batch",
                            "threads", "p50_ms", "p99_ms", "throughput_ips", "mean_w", "top1", "sweep_id",
                            "config_key"]
    assert listed == row.to_dict() and listed["throughput_ips"] == 500.0


def test_prefix_lookup_and_errors(tmp_path):
    store = Store(str(tmp_path / "r.sqlite"))
    store.save(make_result("20260101-000000-aaaaaa"))
    store.save(make_result("20260101-000000-aaaabb"))
    assert store.get("20260101-000000-aaaaaa").run_id == "20260101-000000-aaaaaa"
    with pytest.raises(StoreError, match="ambiguous"):
        store.get("20260101-000000-aaaa")
    with pytest.raises(StoreError, match="no run"):
        store.get("nope")
    with pytest.raises(StoreError, match="no run"):
        store.get("%")  # LIKE wildcards are escaped


def test_duplicate_insert_is_atomic(tmp_path):
    store = Store(str(tmp_path / "r.sqlite"))
    r = make_result()
    store.save(r)
    with pytest.raises(sa.exc.IntegrityError):
        store.save(r)
    assert store.count() == 1


def test_newer_result_schema_refused_with_advice():
    d = make_result().to_dict()
    d["schema_version"] = RESULT_SCHEMA_VERSION + 1
    with pytest.raises(StoreError, match="upgrade edgeprof"):
        Result.from_dict(d)


def test_newer_database_schema_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    Store(str(path))
    eng = sa.create_engine(f"sqlite:///{path}")
    with eng.begin() as c:
        c.execute(sa.text("UPDATE meta SET value='99' WHERE key='schema_version'"))
    with pytest.raises(StoreError, match="newer"):
        Store(str(path))


def test_db_url_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGEPROF_DB", str(tmp_path / "env.sqlite"))
    assert resolve_db_url(None).endswith("env.sqlite")
    assert resolve_db_url(str(tmp_path / "x.sqlite")).endswith("x.sqlite")
    assert resolve_db_url("postgresql://u@h/db") == "postgresql://u@h/db"
    monkeypatch.delenv("EDGEPROF_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert resolve_db_url(None) == f"sqlite:///{tmp_path}/xdg/edgeprof/results.sqlite"
    assert os.path.isdir(tmp_path / "xdg" / "edgeprof")
    with pytest.raises(StoreError, match="does not exist"):
        resolve_db_url(str(tmp_path / "missing" / "r.sqlite"))


def test_facts_timestamped(tmp_path):
    """A board's facts are stored as the agent sent them (its Facts record) and read back as that record; a row
    that is not the agent's facts is one StoreError naming the device."""
    from edgeprof.store import device_facts
    from edgeprof_agent.messages import Facts

    store = Store(str(tmp_path / "r.sqlite"))
    assert store.latest_facts("dev") is None
    sent = Facts(hostname="nano", arch="aarch64", cpu="ARMv8", os="Ubuntu 18.04", kernel="4.9.253-tegra",
                 python="3.6.9", python_executable="/usr/bin/python3", agent_version="0.1.0", protocol=9,
                 runtimes={"onnxruntime": {"version": "1.10.0", "providers": ["CPUExecutionProvider"]}})
    store.save_facts("dev", sent)
    ts, facts = store.latest_facts("dev")
    assert isinstance(facts, Facts) and facts == sent and ts.startswith("20")
    assert facts.runtime("onnxruntime").version == "1.10.0"
    with store.engine.begin() as conn:
        conn.execute(device_facts.insert().values(device="dev", collected_at="2026-12-05T00:00:00+00:00",
                                                  facts_json=json.dumps({"arch": "aarch64"})))
    with pytest.raises(StoreError, match=r"the facts of dev stored at 2026-12-05.*missing field 'hostname'"):
        store.latest_facts("dev")
