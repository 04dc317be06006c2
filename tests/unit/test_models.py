"""Bundled models: catalogue, name parsing, deterministic seeded builds, architecture sanity."""

import subprocess
import sys

import pytest
import torch

import edgeprof_models as em
from edgeprof.errors import ModelError

ALL = em.names()


def test_names_are_sorted_base_names():
    assert ALL == ["bert_tiny", "conv", "ds_cnn", "gemm", "mobilenet_v2", "resnet18"]


def test_importing_the_catalogue_does_not_import_torch():
    code = ("import sys, edgeprof_models as em\n"
            "[em.get(n) for n in em.names()]; em.get('gemm:8x4x2').source_files()\n"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_unknown_name_suggests_the_close_one():
    with pytest.raises(ModelError) as e:
        em.get("mobilnet_v2")
    assert e.value.message == "unknown model 'mobilnet_v2'"
    assert e.value.hint == "did you mean mobilenet_v2? (edgeprof models lists them)"
    with pytest.raises(ModelError) as e:
        em.get("zzzzzz")
    assert e.value.hint == "edgeprof models lists them"


@pytest.mark.parametrize("name, full, dims", [
    ("gemm", "gemm:1760x16x1760", {"M": 1760, "N": 16, "K": 1760}),
    ("gemm:64x8X32", "gemm:64x8x32", {"M": 64, "N": 8, "K": 32}),
    ("conv", "conv:56x56x64x64x3", {"H": 56, "W": 56, "C": 64, "K": 64, "R": 3}),
    ("conv:7x9x3x5x1", "conv:7x9x3x5x1", {"H": 7, "W": 9, "C": 3, "K": 5, "R": 1}),
])
def test_microbenchmark_shapes_parse(name, full, dims):
    m = em.get(name)
    assert m.name == full and m.options == dims and m.task == "microbenchmark"
    assert m.inputs[0].shape[0] == "batch"


def test_microbenchmark_input_orientation():
    assert em.get("gemm:64x8x32").inputs[0].shape == ("batch", 8, 32)  # [batch, N, K]
    assert em.get("conv:7x9x3x5x1").inputs[0].shape == ("batch", 3, 7, 9)  # [batch, C, H, W]


@pytest.mark.parametrize("bad", ["gemm:", "gemm:1x2", "gemm:1x2x3x4", "gemm:axbxc", "gemm:0x2x3", "gemm:-1x2x3",
                                 "gemm:99999999x1x1", "conv:1x2x3x4", "conv:8x8x3x3x2"])
def test_bad_microbenchmark_shapes_say_the_format(bad):
    with pytest.raises(ModelError) as e:
        em.get(bad)
    text = str(e.value)
    assert bad.split(":")[1] in text or bad in text
    assert ("gemm:MxNxK" in text or "conv:HxWxCxKxR" in text or "e.g." in text)


def test_fixed_models_take_no_suffix():
    with pytest.raises(ModelError, match="takes no shape suffix"):
        em.get("resnet18:1x2")


def test_declared_inputs_and_outputs():
    bert = em.get("bert_tiny")
    assert [(t.name, t.shape, t.dtype, t.low, t.high) for t in bert.inputs] == [
        ("input_ids", ("batch", 128), "int64", 0, 30522), ("attention_mask", ("batch", 128), "int64", 1, 2)]
    assert bert.task == "encoder" and bert.num_classes is None
    assert em.get("ds_cnn").inputs[0].shape == ("batch", 1, 49, 10) and em.get("ds_cnn").num_classes == 12
    for n in ("mobilenet_v2", "resnet18"):
        m = em.get(n)
        assert m.inputs[0].shape == ("batch", 3, 224, 224) and m.num_classes == 1000 and m.outputs == ("logits",)
    for n in ALL:
        m = em.get(n)
        assert m.task in em.TASKS and m.description and all(p.exists() for p in m.source_files())


def _example(m, batch=2):
    g = torch.Generator().manual_seed(0)
    out = {}
    for s in m.inputs:
        shape = s.concrete(batch)
        if s.dtype.startswith("float"):
            out[s.name] = torch.rand(shape, generator=g) * (s.high - s.low) + s.low
        else:
            out[s.name] = torch.randint(int(s.low), int(s.high), shape, generator=g)
    return out


@pytest.mark.parametrize("name", ALL)
def test_builds_are_deterministic_and_leave_the_callers_rng_alone(name):
    m = em.get(name)
    torch.manual_seed(123)
    before = torch.get_rng_state()
    a, b, c = m.build(0), m.build(0), m.build(1)
    assert torch.equal(torch.get_rng_state(), before)
    assert not a.training
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert sa.keys() == sb.keys()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert any(not torch.equal(sa[k], sc[k]) for k in sa if sa[k].is_floating_point())


EXPECTED_PARAMS = {"mobilenet_v2": 3_504_872, "resnet18": 11_689_512}  # torchvision's counts


@pytest.mark.parametrize("name", ALL)
def test_forward_shapes_and_scale(name):
    m = em.get(name)
    model = m.build(0)
    with torch.no_grad():
        out = model(**_example(m))
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == len(m.outputs)
    if m.num_classes:
        assert outs[0].shape == (2, m.num_classes)
    for o in outs:
        assert o.shape[0] == 2 and torch.isfinite(o).all()
        assert 1e-3 < float(o.abs().max()) < 100  # calibrated: neither vanishing nor exploding
    params = sum(p.numel() for p in model.parameters())
    if name in EXPECTED_PARAMS:
        assert params == EXPECTED_PARAMS[name]


def test_bert_tiny_shapes_and_mask_matters():
    m = em.get("bert_tiny")
    model = m.build(0)
    x = _example(m)
    with torch.no_grad():
        hidden, pooled = model(**x)
        x["attention_mask"][:, 64:] = 0
        hidden2, _ = model(**x)
    assert hidden.shape == (2, 128, 128) and pooled.shape == (2, 128)
    assert not torch.allclose(hidden, hidden2)
    assert sum(p.numel() for p in model.parameters()) == 4_336_512


def test_microbenchmarks_are_single_ops_with_expected_weights():
    gemm = em.get("gemm:64x8x32").build(0)
    assert [tuple(p.shape) for p in gemm.parameters()] == [(32, 64)]
    with torch.no_grad():
        assert gemm(input=torch.ones(3, 8, 32)).shape == (3, 8, 64)
    conv = em.get("conv:7x9x3x5x3").build(0)
    with torch.no_grad():
        assert conv(input=torch.ones(1, 3, 7, 9)).shape == (1, 5, 7, 9)
