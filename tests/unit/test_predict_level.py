"""The model level's recentring on the table's folds (edgeprof/predict/level.py, fit.fit; round 25): a fitted level
is multiplied by e^c, c the median log(measured / predicted) of the generated models each predicted by a fit that
did not see it; the held-out errors the interval is taken from move by −c; a whole-model table's measured level
(LiteRT) is left as it is; FitOptions(recentre=False) is round 24's method."""

import math

import numpy as np
import pytest
from test_predict_fit import _k, _table  # tests/unit is on sys.path

from edgeprof.predict import fit as fit_module
from edgeprof.predict.fit import FitOptions, fit
from edgeprof.predict.level import recentre
from edgeprof.predict.table import CalibrationModel, CalibrationTable, MeasuredKernel, TableKey


def test_recentre_moves_the_level_by_the_generated_models_median_error_alone():
    held = [("g1", 0.1), ("g2", 0.3), ("g3", 0.2), ("ref", -2.0)]
    level, moved, c = recentre((1.0, 0.5, 0.0, 2.0), held, ["g1", "g2", "g3"])
    assert c == pytest.approx(0.2)  # the reference model's −2.0 is not in the median
    assert level == pytest.approx((math.exp(0.2), 0.5 * math.exp(0.2), 0.0, 2.0 * math.exp(0.2)))
    assert moved == [("g1", pytest.approx(-0.1)), ("g2", pytest.approx(0.1)), ("g3", pytest.approx(0.0)),
                     ("ref", pytest.approx(-2.2))]
    assert recentre((1.0,), [("ref", 0.5)], []) == ((1.0,), [("ref", 0.5)], 0.0)  # nothing generated held out


def test_fit_recentres_a_fitted_level_on_its_folds_and_says_so(monkeypatch):
    """The folds say every generated model runs 25 % slower than predicted (log 1.25): the level and so every
    prediction grow by ×1.25, the interval is taken from the moved errors, the method line says it, and
    recentre=False leaves the in-sample level."""
    table = _table(20)
    real = fit_module.held_out_errors
    errs = {m.name: math.log(1.25) + (0.01 if i % 2 else -0.01) for i, m in enumerate(table.models)}
    monkeypatch.setattr(fit_module, "held_out_errors", lambda t, options=None: list(errs.items()))
    plain, moved = fit(table, FitOptions(recentre=False)), fit(table)
    assert plain.recentred == 0.0 and moved.recentred == pytest.approx(math.log(1.25))
    assert np.allclose(moved.level, np.array(plain.level) * 1.25)
    ks = [_k("Conv/kxk", 3e7, 2e5, i=1), _k("Add", 5e4, 4e5, i=2)]
    assert moved.predict(ks).p50_ms == pytest.approx(1.25 * plain.predict(ks).p50_ms)
    assert sorted(e for _, e in moved.held) == pytest.approx(sorted(e - math.log(1.25) for e in errs.values()))
    assert moved.spread < plain.spread  # the interval of the recentred errors (±1 %), not of the 25 % bias
    assert "the model level ×1.250, its folds' median error" in moved.predict(ks).method
    assert "its folds' median error" not in plain.predict(ks).method
    monkeypatch.setattr(fit_module, "held_out_errors", real)
    got = fit(table)  # on the table's own folds: the generated models' errors are centred on 0
    assert abs(float(np.median([e for _, e in got.held]))) < 1e-9


def test_a_whole_model_tables_measured_level_is_not_recentred():
    """LiteRT's tables time one-operator models whole: the level is the measured per-run overhead, not a fit (and
    the LiteRT replays of held-out-17 to -23 were worse recentred: 29 / 71 → 14 / 57 % within ±10 / ±25 %)."""
    key = TableKey(device_name="b", device={}, runtime="tflite", runtime_version="2.0", precision="fp32", threads=1)
    rng = np.random.default_rng(3)
    models = []
    for m in range(16):
        k = _k("Add", rng.uniform(1e3, 1e5), rng.uniform(1e4, 1e6), i=m)
        us = 2.0 + 1e-5 * k.bytes
        models.append(CalibrationModel(name=f"m{m}", role="kernels", p50_ms=(us + 3.0) * rng.uniform(1.0, 1.5) / 1e3,
                                       profiled_run_ms=None, unmatched_us=0.0, kernels=(MeasuredKernel(k, None),)))
    p = fit(CalibrationTable(key=key, models=tuple(models), created_at=""))
    assert p.recentred is None and p.level[0] == 1.0 and p.held
