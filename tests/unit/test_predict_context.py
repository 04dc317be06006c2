"""Round 23: a small kernel (and, since the round's run, a memory-bound one of under 4 MB) costs more just after a
kernel that swept the caches (a CNN's classifier Gemm after its
last convolution and pool: 4-11 µs on this host) than among small kernels (an MLP's Gemms: 0.5), which FLOPs and
bytes cannot tell apart. Its neighbours are also found in its context (cost.contexts: the log bytes of the largest of
the kernels run just before it), so a board of that kind is recovered; FitOptions(context=False) is the method up to
round 22, which priced both at their mix. Round 24: the context also holds the bytes the kernel's whole model moves in
a run — a small model's weights are still in the caches from its run before, a large model's are not, whatever ran
just before (FitOptions(footprint=False): round 23's method)."""

import dataclasses

import numpy as np
import pytest

from edgeprof.predict.cost import DEFAULT_OPTIONS, contexts, contextual
from edgeprof.predict.fit import fit
from edgeprof.predict.graph import Kernel
from edgeprof.predict.table import CalibrationModel, CalibrationTable, MeasuredKernel, TableKey

KEY = TableKey(device_name="b", device={}, runtime="onnxruntime", runtime_version="1.32.0", precision="fp32",
               threads=1)
HOT, COLD = 0.5, 8.0  # a small Gemm's µs among small kernels, and just after a convolution of megabytes


def _k(op, flops, nbytes, i):
    family = {"Conv/kxk": "conv/kxk", "Gemm/w": "matmul"}[op]
    return Kernel(name=f"{op}{i}", op=op.split("/")[0], key=op, family=family, dtype="float32", flops=float(flops),
                  bytes=float(nbytes), out_elems=1.0)


def _board_us(ks):
    """The synthetic board: a convolution 1 µs per MFLOP; a Gemm HOT µs, or COLD right after a convolution, and
    beyond that its bytes at 100 GB/s from the cache or 30 after a convolution."""
    out = []
    for i, k in enumerate(ks):
        if k.key == "Conv/kxk":
            out.append(k.flops * 1e-6)
        else:
            after_conv = any(p.key == "Conv/kxk" for p in ks[max(i - 3, 0):i])
            out.append((COLD if after_conv else HOT) * (1 + k.flops / 1e5) + k.bytes / (3e4 if after_conv else 1e5))
    return out


def _table(seed=0):
    rng = np.random.default_rng(seed)
    models = []
    for m in range(40):
        if m % 2:  # a CNN: convolutions, then a small classifier Gemm
            ks = [_k("Conv/kxk", rng.uniform(1e7, 1e8), rng.uniform(1e6, 4e6), i) for i in range(3)]
        else:  # an MLP of small Gemms
            ks = [_k("Gemm/w", rng.uniform(1e2, 1e3), rng.uniform(4e2, 4e3), i) for i in range(3)]
        ks.append(_k("Gemm/w", rng.uniform(1e2, 1e3), rng.uniform(4e2, 4e3), 9))
        nbytes = rng.uniform(2e5, 8e5)  # a Gemm of one row against a weight of a few hundred kB: memory-bound
        ks.append(_k("Gemm/w", nbytes / 2, nbytes, 10))
        models.append(_model(m, ks, _board_us(ks)))
    return CalibrationTable(key=KEY, models=tuple(models), created_at="")


def _model(m, ks, us):
    measured = tuple(MeasuredKernel(k, u) for k, u in zip(ks, us, strict=True))
    return CalibrationModel(name=f"m{m}", role="kernels", p50_ms=sum(us) / 1e3, profiled_run_ms=None,
                            unmatched_us=0.0, kernels=measured)


def test_a_small_kernel_is_priced_by_samples_that_ran_in_its_context():
    table = _table()
    mlp = [_k("Gemm/w", 500, 2000, i) for i in range(4)]
    cnn = [_k("Conv/kxk", 5e7, 2e6, 0), _k("Gemm/w", 500, 2000, 1)]
    p = fit(table)
    p.with_context(mlp)
    assert p.cost(mlp[-1])[0] == pytest.approx(_board_us(mlp)[-1], rel=0.2)
    p.with_context(cnn)
    assert p.cost(cnn[-1])[0] == pytest.approx(_board_us(cnn)[-1], rel=0.2)
    assert p.predict(mlp).p50_ms * 1e3 == pytest.approx(sum(_board_us(mlp)), rel=0.25)
    old = fit(table, dataclasses.replace(DEFAULT_OPTIONS, context=False))  # round 22's: the two kinds mixed
    old.with_context(mlp)
    hot = old.cost(mlp[-1])[0]
    old.with_context(cnn)
    assert old.cost(cnn[-1])[0] == pytest.approx(hot)  # one price for both


def test_a_kernels_context_is_the_largest_of_the_three_before_it():
    ks = [_k("Conv/kxk", 1e7, 1e6, 0)] + [_k("Gemm/w", 100, 100, i) for i in range(1, 6)]
    c = [before for before, _ in contexts(ks)]
    assert c[0] == 0.0  # nothing ran before the first
    assert c[1] == c[2] == c[3] == pytest.approx(np.log1p(1e6))
    assert c[4] == c[5] == pytest.approx(np.log1p(100))  # the convolution is four kernels back: out of the window
    assert [whole for _, whole in contexts(ks)] == [pytest.approx(np.log1p(1e6 + 500))] * 6  # its model's bytes a run
    assert [whole for _, whole in contexts(ks, footprint=False)] == [0.0] * 6


def test_a_memory_bound_kernel_is_priced_by_samples_that_ran_in_its_context():
    table = _table()
    gemv = [_k("Gemm/w", 500, 2000, 0), _k("Gemm/w", 2e5, 4e5, 1)]
    after_conv = [_k("Conv/kxk", 5e7, 2e6, 0), _k("Gemm/w", 2e5, 4e5, 1)]
    p = fit(table)
    for ks in (gemv, after_conv):
        p.with_context(ks)
        assert p.cost(ks[-1])[0] == pytest.approx(_board_us(ks)[-1], rel=0.2)
    assert _board_us(after_conv)[-1] > 2 * _board_us(gemv)[-1]  # the two differ, and both are recovered


def test_which_kernels_are_found_in_their_context():
    assert contextual(_k("Gemm/w", 500, 2000, 0))  # small
    assert contextual(_k("Gemm/w", 2e5, 4e5, 0))  # reads more than it computes, a few hundred kB
    assert not contextual(_k("Gemm/w", 2e5, 8e6, 0))  # too large to stay in a cache
    assert not contextual(_k("Conv/kxk", 5e7, 2e6, 0))  # compute-bound: as before


WARM, EVICTED = 3.0, 9.0  # a 400 kB Gemm of one row: its weights still cached from the run before, or not


def _footprint_table(seed=0):
    """Models of four small Gemms, then a memory-bound one; half of them first run a convolution of 40 MB, which
    leaves the last Gemm's weights out of the caches by the next run — four kernels back, out of its local window."""
    rng = np.random.default_rng(seed)
    models = []
    for m in range(40):
        big = [_k("Conv/kxk", rng.uniform(1e7, 1e8), rng.uniform(3e7, 5e7), 0)] if m % 2 else []
        ks = big + [_k("Gemm/w", rng.uniform(1e2, 1e3), rng.uniform(4e2, 4e3), i) for i in range(1, 5)]
        nbytes = rng.uniform(3e5, 5e5)
        ks.append(_k("Gemm/w", nbytes / 2, nbytes, 9))
        us = [k.flops * 1e-6 if k.key == "Conv/kxk" else HOT for k in ks[:-1]]
        us.append((EVICTED if big else WARM) * nbytes / 4e5)
        models.append(_model(m, ks, us))
    return CalibrationTable(key=KEY, models=tuple(models), created_at="")


def test_a_memory_bound_kernel_is_priced_by_samples_of_models_that_move_as_much_in_a_run():
    table = _footprint_table()
    small = [_k("Gemm/w", 500, 2000, i) for i in range(4)] + [_k("Gemm/w", 2e5, 4e5, 9)]
    large = [_k("Conv/kxk", 5e7, 4e7, 0), *small]
    p = fit(table)
    for ks, us in ((small, WARM), (large, EVICTED)):
        p.with_context(ks)
        assert p.cost(ks[-1])[0] == pytest.approx(us, rel=0.2)
    old = fit(table, dataclasses.replace(DEFAULT_OPTIONS, footprint=False))  # round 23's: the two mixed
    old.with_context(small)
    warm = old.cost(small[-1])[0]
    old.with_context(large)
    assert old.cost(large[-1])[0] == pytest.approx(warm)
    assert max(warm / WARM, EVICTED / warm) > 1.5  # one price, wrong by half or more for one of the two
    assert "its model's bytes a run" in p.predict(small).method  # the prediction says how it was made
    assert "its model's bytes a run" not in old.predict(small).method
