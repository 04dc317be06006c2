"""A sweep's `batch:` on a model whose batch is static 4 (issue 35 item 6): `batch: [1, 4]` does not silently run
the static batch for the batch-1 cell. That cell fails with deploy's one line for `--batch 1` (the model is static
4; leave the batch out or export a dynamic batch), the batch-4 cell runs and stores batch 4, and a sweep that
writes no batch runs and counts the static 4 (test_models_round3b.py covers a static 10 the same way)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_models_round3 import static_batch_model

from edgeprof.cli.main import main
from edgeprof.lab import sweep_state as ledger
from edgeprof.store import Store

FAST = ["--min-duration", "0.1", "--min-queries", "5", "--warmup", "0", "--idle", "0", "--quiet"]


def test_batch_1_in_a_sweep_on_a_static_batch_4_fails_as_deploy_does(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "r.sqlite")
    model = static_batch_model(tmp_path / "static4.onnx", batch=4)
    code = main(["deploy", "--device", "local", "--model", str(model), "--batch", "1", "--db", db, *FAST])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1
    assert "--batch 1: the model is static (input 'x' [4, 3, 8, 8] has dimension 0 fixed at 4)" in lines[0]
    assert "leave out --batch (the run feeds and counts its static batch 4)" in lines[0]

    base = ("models: [static4.onnx]\ndevices: [local]\nruntimes: [onnxruntime]\n"
            "settings: {min_duration_s: 0.1, min_queries: 5, warmup_s: 0, idle_s: 0}\n")
    cells = {}
    for name, extra in (("written", "batch: [1, 4]\n"), ("absent", "")):
        (tmp_path / f"{name}.yaml").write_text(f"name: {name}\n{base}{extra}")
        main(["sweep", str(tmp_path / f"{name}.yaml"), "--db", db, "--quiet", "--id-file", str(tmp_path / name)])
        capsys.readouterr()
        rec = ledger.get_sweep(Store(db), (tmp_path / name).read_text().strip())
        cells[name] = {c.cell.batch: c for c in rec.cells}
    one, four = cells["written"][1], cells["written"][4]
    assert one.status == "failed"
    row = Store(db).get(one.run_id) if one.run_id else None  # failures are rows: one without a measurement
    assert row is None or (row.status == "failed" and not row.samples_ms)
    assert one.reason is not None and "\n" not in one.reason and one.reason in lines[0]
    assert four.status == "ok"
    r = Store(db).get(four.run_id)
    assert r is not None and r.batch == 4 and r.io is not None and r.io.batch == 4
    (absent,) = cells["absent"].values()
    r = Store(db).get(absent.run_id)
    assert absent.status == "ok" and r is not None and r.batch == 4
