"""Generation cells in sweep files (lab/spec.py, lab/matrix.py, lab/cell_decisions.py): generative models and
runtimes on the matrix, the prompt_tokens / gen_tokens / depth axes and their cell ids, the static skip rows
(precision, runtime, a model that is not generative, the context), the capability decision on a board's facts
(the runtime's module not importable there), budgets refused on the other kind's figures, and the identity that
keeps two depths apart. Nothing is measured: no runtime is needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgeprof.errors import ConfigError
from edgeprof.inventory.devices import Inventory
from edgeprof.lab.cell_decisions import cell_decision
from edgeprof.lab.spec import Cell, expand, load_sweep, resolve_devices
from edgeprof.records import Device
from edgeprof_agent.messages import Facts

REPO = Path(__file__).resolve().parents[2]


def inventory() -> Inventory:
    devs = {"orin": Device(name="orin", host="10.0.0.2", tags={"soc": "orin"}),
            "nano": Device(name="nano", host="10.0.0.1", tags={"soc": "nano"})}
    return Inventory(path="devices.yaml", by_name=devs)


def cells_of(text: str, tmp_path: Path) -> list[Cell]:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    spec = load_sweep(str(path))
    return expand(spec, resolve_devices(spec, inventory()))


def by_id(cells: list[Cell]) -> dict[str, Cell]:
    return {c.cell_id: c for c in cells}


def test_depth_prompt_and_runtime_axes_expand_to_generation_cells(tmp_path):
    cells = by_id(cells_of("""
models: [llama_tiny, ds_cnn]
devices: [orin]
runtimes: [llama.cpp, onnxruntime-genai, onnxruntime]
precisions: [q4_0, int4, fp32]
settings: {gen_tokens: 16, repetitions: 2}
prompt_tokens: [32, 128]
depth: [0, 512, 3968]
""", tmp_path))
    ok = sorted(cid for cid, c in cells.items() if not c.skip)
    # llama.cpp q4_0 and onnxruntime-genai int4 / fp32 at every (prompt, depth) that fits llama_tiny's 4096
    # tokens; ds_cnn on onnxruntime fp32 once (the generation axes are not its axes)
    want = {f"orin/llama_tiny/{rt}/{p}/b1/tauto/pp{pp}/tg16/d{d}"
            for rt, p in (("llama.cpp", "q4_0"), ("onnxruntime-genai", "int4"), ("onnxruntime-genai", "fp32"))
            for pp in (32, 128) for d in (0, 512, 3968) if d + pp + 16 <= 4096}
    assert set(ok) == want | {"orin/ds_cnn/onnxruntime/fp32/b1/tauto"}
    for cid in want:
        c = cells[cid]
        spec = c.run_spec()
        assert (spec.prompt_tokens, spec.gen_tokens, spec.repetitions) == (c.gen_settings()["prompt_tokens"], 16, 2)
        assert spec.depth == int(cid.rsplit("/d", 1)[1])
    # the one past the context is a skip row saying so, with the depth the prompt and generation leave
    over = cells["orin/llama_tiny/llama.cpp/q4_0/b1/tauto/pp128/tg16/d3968"]
    assert over.skip is not None and "4112 tokens is past the context of llama_tiny (4096 tokens)" in over.skip
    # a precision or runtime of the other kind: one skip row each, with the reason, never one per depth
    assert "llama.cpp takes f16, q8_0, q4_0" in cells["orin/llama_tiny/llama.cpp/fp32/b1/tauto/pp32/tg16/d0"].skip
    wrong_rt = [c for c in cells.values() if c.model_label == "llama_tiny" and c.runtime == "onnxruntime"]
    assert len(wrong_rt) == 3 and all("llama_tiny is a generative model" in (c.skip or "") for c in wrong_rt)
    not_gen = [c for c in cells.values() if c.model_label == "ds_cnn" and c.runtime == "llama.cpp"]
    assert len(not_gen) == 3 and all("ds_cnn is not one" in (c.skip or "") for c in not_gen)
    # a forward-pass cell stores none of the generation settings
    fwd = cells["orin/ds_cnn/onnxruntime/fp32/b1/tauto"]
    assert (fwd.setting("gen_tokens"), fwd.setting("repetitions"), fwd.setting("depth")) == (None, None, None)


def test_defaults_ids_match_rules_and_include(tmp_path):
    cells = by_id(cells_of("""
models: [llama_tiny]
devices: [orin, nano]
precisions: [q4_0]
batch: [1, 2]
depth: [0, 256]
exclude: [{device: nano, depth: 256}]
include: [{device: nano, depth: 1024, prompt_tokens: 64}]
overrides: [{match: {depth: 256}, repetitions: 9}]
""", tmp_path))
    # no runtimes: a bundled generative model runs on llama.cpp; llama-bench's 512 / 128 where not given
    assert "orin/llama_tiny/llama.cpp/q4_0/b1/tauto/pp512/tg128/d256" in cells
    assert cells["orin/llama_tiny/llama.cpp/q4_0/b1/tauto/pp512/tg128/d256"].setting("repetitions") == 9
    assert cells["orin/llama_tiny/llama.cpp/q4_0/b1/tauto/pp512/tg128/d0"].setting("repetitions") is None
    assert "nano/llama_tiny/llama.cpp/q4_0/b1/tauto/pp512/tg128/d256" not in cells  # excluded by depth
    inc = cells["nano/llama_tiny/llama.cpp/q4_0/b1/tauto/pp64/tg128/d1024"]
    assert not inc.skip and inc.run_spec().depth == 1024 and inc.run_spec().prompt_tokens == 64
    assert "batch 2: a generative model is measured one sequence at a time" in (
        cells["orin/llama_tiny/llama.cpp/q4_0/b2/tauto/pp512/tg128/d0"].skip or "")


@pytest.mark.parametrize("text, where, words", [
    ("depth: [0, 512]\nsettings: {depth: 64}\n", "s.yaml:5 depth", "both an axis here and a setting"),
    ("depth: [0, 0]\n", "s.yaml:5 depth", "each depth once"),
    ("depth: [-1]\n", "s.yaml:5 depth[0]", ">= 0"),
    ("gen_tokens: [0]\n", "s.yaml:5 gen_tokens[0]", ">= 1"),
    ("depth: [0, 64]\noverrides: [{match: {model: llama_tiny}, depth: 5}]\n", "s.yaml:6 overrides[0].depth",
     "an axis of this sweep"),
    ("budgets: [{match: {model: ds_cnn}, limits: ['decode_tps > 5']}]\n", "s.yaml:5 budgets[0]",
     "on a generation figure, and it matches the forward-pass cell"),
    ("budgets: [{match: {model: llama_tiny}, limits: ['p99_ms < 5']}]\n", "s.yaml:5 budgets[0]",
     "on a forward pass's figure, and it matches the generation cell"),
])
def test_bad_generation_sweeps_are_one_line_at_their_place(tmp_path, text, where, words):
    base = ("models: [llama_tiny, ds_cnn]\ndevices: [orin]\nruntimes: [llama.cpp, onnxruntime]\n"
            "precisions: [q4_0, fp32]\n")
    with pytest.raises(ConfigError) as e:
        cells_of(base + text, tmp_path)
    msg = str(e.value)
    assert where in msg and words in msg, msg
    assert "\n" not in e.value.one_line()


def test_generation_budgets_attach_to_generation_cells(tmp_path):
    cells = cells_of("""
models: [llama_tiny]
devices: [orin]
depth: [0, 512]
budgets: [{match: {model: llama_tiny, depth: 512}, limits: ['decode_tps > 5', 'ttft_ms < 900', 'j_per_token < 0.2',
                                                           'peak_rss_mb < 500']}]
""", tmp_path)
    budgets = {c.gen_settings()["depth"]: c.budgets for c in cells}
    assert budgets == {0: [], 512: ["decode_tps > 5", "ttft_ms < 900", "j_per_token < 0.2", "peak_rss_mb < 500"]}


def facts(**runtimes):
    d = json.loads((REPO / "tests/data/golden/messages/v11/facts.json").read_text())
    d["runtimes"] = runtimes
    return Facts.from_dict(d)


def test_the_board_s_facts_decide_before_anything_is_built(tmp_path):
    cell = next(c for c in cells_of("models: [llama_tiny]\ndevices: [nano]\ngen_tokens: [8]\n", tmp_path))
    assert not cell.skip  # statically possible
    lacking = cell_decision(cell, facts(onnxruntime={"version": "1.10.0", "providers": ["CPUExecutionProvider"]},
                                        llama_cpp={"error": "ModuleNotFoundError: No module named 'llama_cpp'"}))
    assert not lacking.ok
    assert lacking.reason.startswith("device nano has no llama.cpp: llama_cpp is not importable there "
                                     "(ModuleNotFoundError: No module named 'llama_cpp')")
    unreported = cell_decision(cell, facts())
    assert not unreported.ok and "not reported by the agent" in unreported.reason
    assert cell_decision(cell, facts(llama_cpp={"version": "0.3.16"})).ok


def test_cell_round_trips_with_its_generation_settings(tmp_path):
    cell = next(c for c in cells_of("models: [llama_tiny]\ndevices: [orin]\ndepth: [512]\n", tmp_path))
    back = Cell.from_dict(json.loads(json.dumps(cell.to_dict())))
    assert back.cell_id == cell.cell_id == "orin/llama_tiny/llama.cpp/q4_0/b1/tauto/pp512/tg128/d512"
    assert back.run_spec() == cell.run_spec()


def test_two_depths_are_two_configurations():
    from edgeprof.records import Result

    d = json.loads((REPO / "tests/data/golden/results/v10/ok_local_generation.json").read_text())
    a = Result.from_dict(d)
    d["generation"]["depth"] = 512
    b = Result.from_dict(d)
    assert a.identity.key() != b.identity.key()
    g = a.generation
    assert g is not None
    shape = f"pp{g.prompt_tokens} tg{g.tokens}" + (f" @ d{g.depth}" if g.depth else "")
    assert a.identity.label().endswith(shape) and b.identity.label().endswith(f"pp{g.prompt_tokens} tg{g.tokens} @ d512")


def test_chart_ticks_of_one_value_read_twice_end():
    """Two readings of one constant power differ by float rounding only: the axis is one value, not an endless
    loop of steps below the float's resolution (report/svg.py)."""
    from edgeprof.report.svg import nice_ticks, padded

    a, b = 3.2767999999999997, 3.2768000000000001
    assert nice_ticks(a, b) == [a]
    lo, hi = padded(a, b)
    assert lo < a and hi > b and nice_ticks(lo, hi)


def test_a_budget_is_judged_on_the_cells_that_run(tmp_path):
    """A forward pass's budget over a mixed sweep reaches ds_cnn's skip row on llama.cpp (never measured): not
    refused there; it is refused where it reaches llama_tiny on llama.cpp, which runs."""
    base = ("models: [llama_tiny, ds_cnn]\ndevices: [orin]\nruntimes: [onnxruntime, llama.cpp]\n"
            "precisions: [fp32, q4_0]\n")
    cells = cells_of(base + "budgets: [{match: {model: ds_cnn}, limits: ['p99_ms < 5']}]\n", tmp_path)
    skipped = [c for c in cells if c.model_label == "ds_cnn" and c.runtime == "llama.cpp"]
    assert skipped and all(c.skip and c.budgets == ["p99_ms < 5"] for c in skipped)
    with pytest.raises(ConfigError, match="matches the generation cell orin/llama_tiny/llama.cpp/q4_0"):
        (tmp_path / "b").mkdir()
        cells_of(base + "budgets: [{match: {device: orin}, limits: ['p99_ms < 5']}]\n", tmp_path / "b")


def test_an_override_setting_a_depth_an_include_rule_also_adds_makes_one_cell(tmp_path):
    cells = cells_of("""
models: [llama_tiny]
devices: [orin]
include: [{depth: 512}]
overrides: [{match: {model: llama_tiny}, depth: 512}]
""", tmp_path)
    assert [c.cell_id for c in cells] == ["orin/llama_tiny/llama.cpp/q4_0/b1/tauto/pp512/tg128/d512"]
