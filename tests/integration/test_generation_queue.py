"""A generation sweep through the lab queue (a real PostgreSQL, tests/pg.py; a real `edgeprof worker`): nothing is
exported at submit for a generation cell (lab/queue/artifacts.py), the worker's generation kind builds llama_tiny's
GGUF in its own cache, and every cell ends as its row with its generation section."""

from __future__ import annotations

import pytest
from test_queue_local import edgeprof, submit

from edgeprof.lab import queue
from edgeprof.lab import sweep_state as ledger
from edgeprof.store import Store

pytestmark = pytest.mark.slow


def test_generation_cells_through_the_queue(pg_url, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    queue.upgrade(pg_url)
    (tmp_path / "g.yaml").write_text(
        "name: gq\nmodels: [llama_tiny]\ndevices: [local]\nruntimes: [llama.cpp]\nthreads: [1]\n"
        "prompt_tokens: [8]\ndepth: [0, 16]\nprecisions: [q4_0, fp32]\n"
        "settings: {gen_tokens: 4, repetitions: 2, idle_s: 0, timeout_s: 300, lease_wait_s: 120}\n")
    rc, sweep_id, err = submit(str(tmp_path / "g.yaml"), "--db", pg_url, capsys=capsys)
    assert rc == 0, err
    assert "2 cells queued" in err and "2 stored at once" in err, err  # fp32 on llama.cpp: static skip rows
    cache = tmp_path / "worker-cache"
    p = edgeprof("worker", "--queue", "lab.default", "--db", pg_url, "--poll", "0.2", "--until-idle",
                 "--cache-dir", str(cache))
    _, werr = p.communicate(timeout=300)
    assert p.returncode == 0, werr
    store = Store(pg_url)
    rec = ledger.get_sweep(store, sweep_id)
    assert rec.counts() == {"ok": 2, "failed": 0, "skipped": 2, "pending": 0}
    depths = []
    for row in store.list(sweep_id=sweep_id, limit=None):
        r = store.get(row.run_id)
        if r.status == "ok":
            assert r.generation is not None and r.generation.tokens == 4 and r.generation.prompt_tokens == 8
            depths.append(r.generation.depth)
        else:
            assert r.precision == "fp32" and "llama.cpp takes f16, q8_0, q4_0" in (r.reason or "")
    assert sorted(depths) == [0, 16]
    assert list(cache.rglob("*.gguf")), "the worker built the GGUF in its own cache"
