"""`edgeprof db upgrade` and the queue's PostgreSQL-only guards, against a real PostgreSQL (tests/pg.py)."""

from __future__ import annotations

import psycopg
import pytest

from edgeprof.cli.main import main
from edgeprof.lab import queue
from edgeprof.store import Store


def _tables(url: str) -> set[str]:
    with psycopg.connect(queue.conninfo(url)) as conn:
        return {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}


def _indexes(url: str) -> dict[str, str]:
    with psycopg.connect(queue.conninfo(url)) as conn:
        return {r[0]: r[1] for r in conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'procrastinate_jobs'")}


def test_upgrade_creates_everything_and_is_idempotent(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "upgrade", "--db", pg_url]) == 0
    first = capsys.readouterr().err
    assert "procrastinate schema created" in first
    tables = _tables(pg_url)
    assert {"runs", "sweeps", "sweep_cells", "meta", "procrastinate_jobs", "procrastinate_workers",
            "lab_artifacts", "lab_workers"} <= tables
    idx = _indexes(pg_url)
    assert queue.FETCH_INDEX in idx
    assert "(lock, status, priority DESC, id)" in idx[queue.FETCH_INDEX]
    assert "sweep_id" in idx[queue.SWEEP_INDEX]
    assert main(["db", "upgrade", "--db", pg_url]) == 0  # twice is fine
    second = capsys.readouterr().err
    assert "procrastinate schema up to date" in second
    assert _tables(pg_url) == tables
    with psycopg.connect(queue.conninfo(pg_url)) as conn:
        recorded = conn.execute("SELECT value FROM meta WHERE key = %s", (queue.MIGRATION_KEY,)).fetchone()[0]
    assert recorded.endswith(".sql")


def test_upgrade_applies_newer_migrations(pg_url: str) -> None:
    queue.upgrade(pg_url)
    # pretend the database was created by an older edgeprof: the last migration not yet applied
    import procrastinate

    names = sorted(p.name for p in
                   __import__("pathlib").Path(procrastinate.schema.SchemaManager.get_migrations_path()).glob("*.sql"))
    with psycopg.connect(queue.conninfo(pg_url)) as conn:
        conn.execute("UPDATE meta SET value = %s WHERE key = %s", (names[-2], queue.MIGRATION_KEY))
    # the newest migration replaces functions (CREATE OR REPLACE): applying it again must work and be recorded
    done = queue.upgrade(pg_url)
    assert any(names[-1] in line for line in done), done
    with psycopg.connect(queue.conninfo(pg_url)) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = %s",
                            (queue.MIGRATION_KEY,)).fetchone()[0] == names[-1]


def test_plain_postgresql_url_uses_psycopg3(pg_url: str) -> None:
    plain = pg_url.replace("postgresql+psycopg://", "postgresql://")
    assert queue.postgres_url(plain) == pg_url
    queue.upgrade(plain)
    assert Store(queue.postgres_url(plain)).count() == 0


def test_upgrade_on_sqlite_is_one_line(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["db", "upgrade", "--db", str(tmp_path / "r.sqlite")])
    e = capsys.readouterr().err.strip().splitlines()
    assert rc != 0
    assert len(e) == 1 and e[0].startswith("edgeprof: error: the queue needs PostgreSQL:"), e
    assert "docs/lab.md" in e[0]


def test_unreachable_database_is_one_line(pg_server, capsys: pytest.CaptureFixture[str]) -> None:
    from pg import free_port

    rc = main(["db", "upgrade", "--db", f"postgresql://postgres@127.0.0.1:{free_port()}/nope"])
    e = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(e) == 1 and "cannot" in e[0], e


def test_queue_commands_need_upgrade_first(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["lab", "status", "--db", pg_url])
    e = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(e) == 1 and "edgeprof db upgrade" in e[0], e


def test_artifacts_by_sha256_round_trip_once_and_refuse_tampering(pg_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    queue.upgrade(pg_url)
    store = Store(pg_url)
    entry = tmp_path / "cache" / "0123abcd"
    entry.mkdir(parents=True)
    (entry / "model.onnx").write_bytes(b"\x08\x01model-bytes" * 100)
    (entry / "meta.json").write_text('{"path": "model.onnx"}')
    ref = queue.put_artifact(store, entry)
    assert queue.put_artifact(store, entry) == ref  # stored once
    with psycopg.connect(queue.conninfo(pg_url)) as conn:
        assert conn.execute("SELECT count(*) FROM lab_artifacts").fetchone()[0] == 1
    other = tmp_path / "worker-cache"
    got = queue.fetch_artifact(store, ref, other)
    assert got == other / "0123abcd"
    assert (got / "model.onnx").read_bytes() == (entry / "model.onnx").read_bytes()
    assert (got / "meta.json").read_text() == '{"path": "model.onnx"}'
    assert queue.fetch_artifact(store, ref, other) == got  # already there: not unpacked again
    with psycopg.connect(queue.conninfo(pg_url)) as conn:
        conn.execute("UPDATE lab_artifacts SET content = %s", (b"tampered",))
    from edgeprof.errors import StoreError

    with pytest.raises(StoreError, match="does not match its sha256"):
        queue.fetch_artifact(store, ref, tmp_path / "third")
    with pytest.raises(StoreError, match="is not in"):
        queue.fetch_artifact(store, {"sha256": "0" * 64, "entry": "x"}, tmp_path / "third")


def test_an_exported_model_past_one_bytea_is_refused_in_one_line_and_not_stored(pg_url: str, tmp_path,  # type: ignore[no-untyped-def]
                                                                               monkeypatch) -> None:
    from edgeprof.errors import ModelError
    from edgeprof.lab.queue import artifacts

    queue.upgrade(pg_url)
    store = Store(pg_url)
    entry = tmp_path / "cache" / "big0entry"
    entry.mkdir(parents=True)
    (entry / "model.onnx").write_bytes(b"\x08\x01" * 4096)
    (entry / ("ab" * 32 + ".data")).write_bytes(b"\0" * 8192)  # a model's data beside it counts too
    monkeypatch.setattr(artifacts, "BYTEA_LIMIT", 10_000)
    with pytest.raises(ModelError) as e:
        queue.put_artifact(store, entry)
    msg = str(e.value)
    assert "\n" not in msg and "big0entry" in msg and "not supported yet" in msg and "no --queue" in e.value.hint
    with psycopg.connect(queue.conninfo(pg_url)) as conn:
        assert conn.execute("SELECT count(*) FROM lab_artifacts").fetchone()[0] == 0
