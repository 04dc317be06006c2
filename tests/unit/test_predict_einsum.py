"""Einsum in prediction (round 11): its FLOPs by the equation (export/flops.py's einsum_flops), a key and family of
its own, and the calibration's misc models measuring it in the three forms exporters write (predict/einsums.py).
Hush's DeepFilterNet stages, whose grouped linears are Einsums, had them priced by the roofline fallback at a
seventh of their time."""

import math

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from edgeprof.export.flops import count_flops, einsum_flops
from edgeprof.predict.einsums import einsum_op
from edgeprof.predict.fit import MIN_SAMPLES
from edgeprof.predict.graph import kernels
from edgeprof.predict.kernels import _G, calibration_models


@pytest.mark.parametrize(("equation", "shapes", "flops"), [
    ("btgi,gio->btgo", [(1, 1, 16, 32), (16, 32, 32)], 2 * 16 * 32 * 32),  # a grouped linear, one frame
    ("bij,bjk->bik", [(4, 8, 16), (4, 16, 32)], 2 * 4 * 8 * 16 * 32),
    ("bhqd,bhkd->bhqk", [(1, 2, 10, 8), (1, 2, 12, 8)], 2 * 2 * 10 * 12 * 8),
    ("...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 6)], 2 * 2 * 3 * 4 * 5 * 6),  # ellipses broadcast from the right
    ("ij->ji", [(3, 7)], 21),  # one operand: one per point
    ("i j , j k -> i k", [(2, 3), (3, 4)], 2 * 2 * 3 * 4),
])
def test_an_einsums_flops_are_a_multiply_add_per_point_of_its_index_space(equation, shapes, flops):
    assert einsum_flops(equation, shapes) == flops


def test_the_misc_models_einsums_run_count_and_key_as_einsum(tmp_path):
    forms = set()
    for seed in range(12):
        g = _G(np.random.default_rng(seed), opset=15 if seed % 2 else 17)
        einsum_op(g)
        path = tmp_path / f"e{seed}.onnx"
        model = g.model(f"e{seed}")
        onnx.save(model, str(path))
        onnx.checker.check_model(str(path), full_check=True)
        sess = ort.InferenceSession(str(path))
        feeds = {i.name: np.random.default_rng(0).standard_normal(i.shape).astype(np.float32)
                 for i in sess.get_inputs()}
        sess.run(None, feeds)
        (k,) = [k for k in kernels(path, {n: v.shape for n, v in feeds.items()}) if k.op == "Einsum"]
        node = next(n for n in model.graph.node if n.op_type == "Einsum")
        equation = onnx.helper.get_attribute_value(node.attribute[0]).decode()
        forms.add(equation)
        weighted = any(i.name in node.input for i in model.graph.initializer)
        assert k.key == ("Einsum/w" if weighted else "Einsum/a") and k.family == "einsum"
        assert weighted == (equation == "btgi,gio->btgo") and k.flops_known and k.flops > 0
        assert k.flops == count_flops(str(path), {n: v.shape for n, v in feeds.items()})
        assert k.flops <= 2 * 8 * 256 * 256 * 256  # bounded: a misc model's op stays small
        assert math.isfinite(k.bytes) and k.bytes > 0
    assert forms == {"btgi,gio->btgo", "bij,bjk->bik", "bhqd,bhkd->bhqk"}
    table = [n.op_type for _, m in calibration_models(seed=0, count=230) for n in m.graph.node]
    assert table.count("Einsum") >= MIN_SAMPLES  # enough for a key of its own in a table's ~230 models


def test_einsums_are_measured_in_head_models_and_the_misc_models_keep_their_other_ops():
    """Round 16: beside a misc model's STFTs and Resizes onnxruntime's Einsum ran 2-6× slower than in a small model
    whose data stays in the cache; the misc kind still draws its Einsums (so its other ops are the ones it drew
    before) and writes none, and each head model writes one to three after its Gemms (and since round 18 none,
    one or two tree ensembles after those: trees.py, and a PRelu last)."""
    models = list(calibration_models(seed=0, count=120))
    heads = [m for name, m in models if name.endswith("-head")]
    miscs = [m for name, m in models if name.endswith("-misc")]
    assert heads and miscs
    assert all(n.op_type != "Einsum" for m in miscs for n in m.graph.node)
    for m in heads:
        ops = [n.op_type for n in m.graph.node]
        first = ops.index("Einsum")
        assert ops[-2:] == ["Sub", "PRelu"]  # and one PRelu last, on a half-negative input (round 18)
        trees = [i for i, op in enumerate(ops) if op.startswith("TreeEnsemble")]
        last = trees[0] if trees else len(ops) - 2
        assert 1 <= ops.count("Einsum") <= 3 and "Gemm" in ops[:first] and set(ops[first:last]) == {"Einsum"}
        assert len(trees) <= 2 and trees == list(range(last, len(ops) - 2))
    # a misc model that drew an Einsum keeps the ops after it as they were drawn: the generator's state is the
    # same whether the Einsum is written or not (weights included), checked by writing one beside it
    g1, g2 = _G(np.random.default_rng(7)), _G(np.random.default_rng(7))
    einsum_op(g1)
    einsum_op(_G(g2.rng))
    assert g1.rng.random() == g2.rng.random()
