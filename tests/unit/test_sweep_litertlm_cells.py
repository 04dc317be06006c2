"""LiteRT-LM in sweep files (issue 36 item 6): `runtimes: [llama.cpp, litert-lm]` expands llama_tiny (and a Hugging Face folder) into cells of
both runtimes with llama-bench's ids, each runtime at its own default precision (llama.cpp q4_0; LiteRT-LM
wi8_afp32 for a model edgeprof builds, as-built for a .litertlm file), a precision of the other runtime a skip row
with check()'s line, the board's facts deciding (litert_lm not importable there), a user's .litertlm on a board
judged by its own figures before connecting (one without graphs a skip row),
and a phone cell decided by the phone's own refusal (phone/litertlm.refusal): a bundled model is a skip row there,
a .litertlm runs. Nothing is measured and litert_lm is not needed (litert-lm-builder writes the .litertlm file,
skipped without it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgeprof.inventory.devices import Inventory
from edgeprof.lab.cell_decisions import cell_decision
from edgeprof.lab.spec import Cell, expand, load_sweep, resolve_devices
from edgeprof.records import Device
from edgeprof.records.device import BenchmarkModel, PhoneConfig
from edgeprof_agent.messages import Facts

REPO = Path(__file__).resolve().parents[2]


def inventory() -> Inventory:
    devs = {"orin": Device(name="orin", host="10.0.0.2", tags={"soc": "orin"}),
            "phone": Device(name="phone", kind="adb", phone=PhoneConfig(
                serial="emulator-5554", litert_lm_main=BenchmarkModel(phone_path="/data/local/tmp/litert_lm_main")))}
    return Inventory(path="devices.yaml", by_name=devs)


def cells_of(text: str, tmp_path: Path) -> dict[str, Cell]:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    spec = load_sweep(str(path))
    return {c.cell_id: c for c in expand(spec, resolve_devices(spec, inventory()))}


def facts(**runtimes):
    d = json.loads((REPO / "tests/data/golden/messages/v11/facts.json").read_text())
    d["runtimes"] = runtimes
    return Facts.from_dict(d)


def test_llama_cpp_and_litert_lm_expand_with_each_runtime_s_default_precision(tmp_path):
    cells = cells_of("""
models: [llama_tiny]
devices: [orin]
runtimes: [llama.cpp, litert-lm]
prompt_tokens: [32]
gen_tokens: [8]
depth: [0, 64]
""", tmp_path)
    # the same id spelling as the other runtimes; no precisions: q4_0 on llama.cpp, wi8_afp32 on LiteRT-LM (the
    # exporter's default recipe: deploy's default for a model it builds)
    assert set(cells) == {f"orin/llama_tiny/{rt}/{p}/b1/tauto/pp32/tg8/d{d}"
                          for rt, p in (("llama.cpp", "q4_0"), ("litert-lm", "wi8_afp32")) for d in (0, 64)}
    for cid, c in cells.items():
        assert c.skip is None, (cid, c.skip)
        spec = c.run_spec()
        assert (spec.runtime, spec.prompt_tokens, spec.gen_tokens) == (c.runtime, 32, 8)
        assert spec.depth == int(cid.rsplit("/d", 1)[1])
        assert c.kind.name == "generation"


def test_a_precision_of_the_other_runtime_is_a_skip_row_with_check_s_line(tmp_path):
    cells = cells_of("""
models: [llama_tiny]
devices: [orin]
runtimes: [llama.cpp, litert-lm]
precisions: [q4_0, fp32, as-built]
gen_tokens: [8]
""", tmp_path)
    base = "orin/llama_tiny/{}/{}/b1/tauto/pp512/tg8/d0"
    assert cells[base.format("litert-lm", "fp32")].skip is None
    assert cells[base.format("llama.cpp", "q4_0")].skip is None
    assert "--precision q4_0: litert-lm takes as-built, wi8_afp32, fp32" in cells[base.format("litert-lm", "q4_0")].skip
    assert "llama.cpp takes f16, q8_0, q4_0" in cells[base.format("llama.cpp", "fp32")].skip
    # as-built is a .litertlm's own: llama_tiny is built by edgeprof, at wi8_afp32 or fp32
    assert "--precision as-built: llama_tiny is built for LiteRT-LM by edgeprof" in cells[
        base.format("litert-lm", "as-built")].skip


def test_the_board_s_facts_decide_litert_lm_before_anything_is_built(tmp_path):
    cells = cells_of("models: [llama_tiny]\ndevices: [orin]\nruntimes: [litert-lm]\ngen_tokens: [8]\n", tmp_path)
    (cell,) = cells.values()
    assert cell.skip is None and cell.precision == "wi8_afp32"
    lacking = cell_decision(cell, facts(llama_cpp={"version": "0.3.16"},
                                        litert_lm={"error": "ModuleNotFoundError: No module named 'litert_lm'"}))
    assert not lacking.ok
    assert lacking.reason.startswith("device orin: litert-lm: not installed on this device (litert_lm is not "
                                     "importable there: ModuleNotFoundError: No module named 'litert_lm')")
    assert "\n" not in lacking.reason
    assert cell_decision(cell, facts(litert_lm={"version": "0.18.1"})).ok


def test_a_phone_takes_a_litertlm_and_skips_a_bundled_model_in_one_line(tmp_path):
    pytest.importorskip("litert_lm_builder", reason="litert-lm-builder writes the .litertlm (the litert-lm extra)")
    pytest.importorskip("ai_edge_litert", reason="ai-edge-litert reads a .litertlm's graphs (the litert-lm extra)")
    from litert_lm_builder import litertlm_builder as lb

    from edgeprof.generative.build import hf_folder

    tok = Path(hf_folder("llama_tiny", cache_dir=tmp_path / "cache").path).parent / "tokenizer.json"
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(256)) * 16)
    b = lb.LitertLmFileBuilder()
    b.add_hf_tokenizer(str(tok))
    b.add_generic_binary_data(str(blob))
    lm = tmp_path / "tiny.litertlm"
    with lm.open("wb") as f:
        b.build(f)
    cells = cells_of(f"""
models: [llama_tiny, {lm}]
devices: [orin, phone]
runtimes: [litert-lm]
gen_tokens: [8]
""", tmp_path)
    by = {(c.device, c.model_label): c for c in cells.values()}
    # the .litertlm: measured as built (its default precision), on the phone by litert_lm_main
    phone_lm = by[("phone", str(lm))]
    assert phone_lm.precision == "as-built" and phone_lm.skip is None
    # a bundled model on the phone: the phone path runs .litertlm files only, said in one line
    phone_tiny = by[("phone", "llama_tiny")]
    assert phone_tiny.precision == "wi8_afp32"
    assert phone_tiny.skip == "llama_tiny: a phone runs generative models from a .litertlm file (LiteRT-LM's format)"
    # on the board: llama_tiny is built and runs; this .litertlm (a tokenizer and a blob, no graphs) is a skip row
    # before connecting: the agent's backend needs its decode signature's figures (generative/litertlm_read.py)
    board_lm = by[("orin", str(lm))]
    assert board_lm.skip == (f"{lm}: has no TFLite prefill/decode model section (model_type tf_lite_prefill_decode; "
                             "TFLite sections found: none) — give a .litertlm of a text generation model")
    assert cell_decision(by[("orin", "llama_tiny")], facts(litert_lm={"version": "0.18.1"})).ok


def test_a_hugging_face_folder_takes_both_runtimes_at_their_defaults(tmp_path):
    from edgeprof.generative.build import hf_folder

    folder = Path(hf_folder("llama_tiny", cache_dir=tmp_path / "cache").path).parent
    cells = cells_of(f"models: ['{folder}']\ndevices: [orin]\nruntimes: [llama.cpp, litert-lm]\ngen_tokens: [8]\n",
                     tmp_path)
    assert {(c.runtime, c.precision, c.skip) for c in cells.values()} == {("llama.cpp", "q4_0", None),
                                                                          ("litert-lm", "wi8_afp32", None)}
    assert all(c.cell_id.endswith("/b1/tauto/pp512/tg8/d0") for c in cells.values())
