"""`edgeprof deploy` of a generative model over a real OpenSSH sshd on loopback (tests/integration/sshd.py,
boardlab.py): the device is a board whose sysfs root is a copy of the Raspberry Pi 4 + INA219 tree
(tests/data/boards/rpi4-ina219; its hwmon power1_input holds a fixed 3 276 800 uW, no driver changes it), and for
llama.cpp also a Jetson Nano tree (jetson-nano-jp4: the INA3221's POM_5V_IN at a fixed 2 468 mW); its `python:` is
this venv's (llama_cpp and onnxruntime_genai importable there). Through the CLI's main():

- llama.cpp Q4_0 (one GGUF file) and onnxruntime-genai int4 (a FOLDER, pushed file by file into
  artifacts/<digest>.ortgenai): stored, read back by `results show --json`; a second deploy of the same model
  moves no model bytes (every file is found on the board by its sha256) and its agent is not pushed again;
  the files on the board are the local ones, byte for byte;
- J/token over sshd: the stored result's j_per_token == W x decode time / decoded tokens and j_per_prompt_token
  == W x TTFT window / prompt tokens, mean W per phase == W;
- a board whose llama_cpp does not import: one line before anything is built or pushed;
- onnxruntime-genai with --providers cuda on the 2 x T4 tree: this CPU wheel refused by the host from the facts
  (is_cuda_available() False); with the og double built with CUDA and the pynvml double, devices.yaml gpu: 1 pinned,
  device_id 0, the GPU's memory stored beside peak RSS, and gpu: 2 one line before the push;
- LiteRT-LM (a .litertlm built from llama_tiny, one file): J/token as above, a second deploy moving nothing (needs
  litert-lm-api in this venv, the board's Python); a user's .litertlm (that build copied outside the cache) pushed
  as it is and measured with the vocabulary and KV cache read from it on the host, J/token as above.

Energy tolerance (rel 1e-9): every reading is the same W, and the trapezoid integral of a constant over a window
is W x the window's length wherever the readings fall, so the sampling rate does not enter (only float rounding
of sums of ns). The windows are the stored result's own (generation.windows_ns, the agent's clock stamps):
the prompt window is the TTFT window (prefill + the first token's pick, docs/generative.md), the decode window the
first token's end to the last token's end; decoded tokens = repetitions x (tokens - 1).
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "integration"))
from boardlab import Board, BoardLab, board_lab  # noqa: E402
from sshd import SSHLab, missing_reason  # noqa: E402

pytestmark = [pytest.mark.gen, pytest.mark.ssh]

WATTS = 3_276_800 / 1e6  # tests/data/boards/rpi4-ina219: hwmon2/power1_input (uW)
# tests/data/boards/jetson-nano-jp4: the INA3221's POM_5V_IN, iio:device0/in_power0_input (mW)
NANO_WATTS = 2468 / 1e3
PROMPT, GEN, REPS = 32, 8, 3
SMALL = ["--prompt-tokens", str(PROMPT), "--gen-tokens", str(GEN), "--repetitions", str(REPS), "--threads", "1",
         "--idle", "0.3", "--quiet"]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoardLab]:
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    ssh = SSHLab(tmp_path_factory.mktemp("gen-sshlab"))
    try:
        with board_lab(ssh, tmp_path_factory.mktemp("gen-ssh"), "gen-board") as bl:
            yield bl
    finally:
        ssh.stop_all()


@pytest.fixture
def cache(gen_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The CLI's artifact cache: the gen lane's, so the builds of tiny_hf / tiny_gguf / tiny_ortgenai are reused."""
    monkeypatch.setenv("EDGEPROF_CACHE", str(gen_cache))
    return gen_cache


def deploy(lab: BoardLab, board: Board, runtime: str, precision: str, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, _out, err, r = lab.deploy(board, "llama_tiny", "--runtime", runtime, "--precision", precision, *SMALL,
                                    monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and r is not None, err
    return r


def shown_json(lab: BoardLab, run_id: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    import json

    from edgeprof.cli.main import main

    code = main(["results", "show", run_id, "--db", lab.db, "--json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    return json.loads(cap.out)


@pytest.fixture
def no_artifacts(lab: BoardLab) -> None:
    """The module's boards share one sshd host and workdir: each test starts with no model on it (the agent kept)."""
    import shutil

    artifacts = Path(lab.host.workdir, "artifacts")
    for p in artifacts.iterdir() if artifacts.is_dir() else []:
        shutil.rmtree(p) if p.is_dir() else p.unlink()


def check_generation(r: dict[str, Any], runtime: str, precision: str, fmt: str) -> dict[str, Any]:
    assert (r["status"], r["runtime"], r["precision"], r["model"]) == ("ok", runtime, precision, "llama_tiny")
    assert r["artifact"]["format"] == fmt
    g = r["generation"]
    assert (g["prompt_tokens"], g["tokens"], g["depth"], g["repetitions"]) == (PROMPT, GEN, 0, REPS)
    assert len(g["token_ns"]) == REPS and all(len(t) == GEN for t in g["token_ns"])
    assert g["decode_tps"]["mean"] > 0 and g["ttft_ms"]["mean"] > 0
    assert r["environment"]["runtime"]["runtime"] == runtime
    return g


def check_energy(r: dict[str, Any], watts: float = WATTS, source: str = "hwmon") -> None:
    """The stored J/token against W x the stored windows (the module docstring's tolerance)."""
    g = r["generation"]
    e = g["energy"]
    assert e is not None and g["energy_reason"] is None, g["energy_reason"]
    assert e["source"] == source and e["n_readings"] >= 2
    windows = g["windows_ns"]
    assert len(windows) == REPS and windows[0][0] == 0
    for w in windows:
        assert w[0] < w[1] < w[2] < w[3]
    ttft_s = sum(w[2] - w[0] for w in windows) / 1e9
    decode_s = sum(w[3] - w[2] for w in windows) / 1e9
    assert e["prefill_s"] == pytest.approx(ttft_s, rel=1e-12) and e["decode_s"] == pytest.approx(decode_s, rel=1e-12)
    assert (e["prompt_tokens"], e["decode_tokens"]) == (REPS * PROMPT, REPS * (GEN - 1))
    assert e["j_per_token"] == pytest.approx(watts * decode_s / (REPS * (GEN - 1)), rel=1e-9)
    assert e["j_per_prompt_token"] == pytest.approx(watts * ttft_s / (REPS * PROMPT), rel=1e-9)
    assert e["prefill_mean_w"] == pytest.approx(watts, rel=1e-9)
    assert e["decode_mean_w"] == pytest.approx(watts, rel=1e-9)
    assert e["tokens_per_j"] == pytest.approx(REPS * (GEN - 1) / (watts * decode_s), rel=1e-9)
    # the prefill itself (append of the prompt) is inside the TTFT window; the first token's pick is the rest
    prefill_s = sum(g["prefill_ns"]) / 1e9
    assert prefill_s == sum(w[1] - w[0] for w in windows) / 1e9 and prefill_s < ttft_s
    p = r["power"]
    assert p is not None and p["source"] == source and p["mean_w"] == pytest.approx(watts, rel=1e-9)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@pytest.mark.parametrize("tree, source, watts", [
    ("rpi4-ina219", "hwmon", WATTS),
    ("jetson-nano-jp4", "jetson-ina3221", NANO_WATTS),  # the rail the board's total is read from: POM_5V_IN
])
def test_llama_cpp_q4_0_over_sshd_with_j_per_token_and_a_second_deploy_moving_nothing(
        tree: str, source: str, watts: float, lab: BoardLab, cache: Path, no_artifacts: None, tiny_gguf: Any,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    local = tiny_gguf("q4_0")  # the build the CLI finds in the cache
    with lab.board(tree, power={"source": source, "rate_hz": 100}, drive=False) as b:
        first = deploy(lab, b, "llama.cpp", "q4_0", monkeypatch, capsys)
        second = deploy(lab, b, "llama.cpp", "q4_0", monkeypatch, capsys)
    g = check_generation(first, "llama.cpp", "q4_0", "gguf")
    assert first["artifact"]["sha256"] == sha256(local) and first["artifact"]["size_bytes"] == local.stat().st_size
    assert first["transfer"]["artifact_bytes"] == local.stat().st_size  # the GGUF went over SFTP, once
    assert second["transfer"]["artifact_bytes"] == 0  # found on the board by its sha256
    assert second["transfer"]["agent_bytes"] == 0 and second["transfer"]["total_bytes"] == 0
    assert second["artifact"]["sha256"] == first["artifact"]["sha256"]
    pushed = list(Path(lab.host.workdir, "artifacts").glob(f"{first['artifact']['sha256']}*"))
    assert len(pushed) == 1 and sha256(pushed[0]) == first["artifact"]["sha256"]
    assert g["energy"] is not None
    for r in (first, second):
        check_energy(r, watts, source)
        back = shown_json(lab, r["run_id"], capsys)  # what the store gives back is what was printed
        assert back["generation"] == r["generation"] and back["transfer"] == r["transfer"]
        check_energy(back, watts, source)


def test_onnxruntime_genai_int4_folder_over_sshd_pushed_by_content_and_resumed(
        lab: BoardLab, cache: Path, no_artifacts: None, tiny_ortgenai: Any, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    local = tiny_ortgenai("int4")  # built once per run (the model builder, 15-25 s); the CLI finds it cached
    files = sorted(p for p in local.iterdir() if p.is_file() and p.name != "meta.json")
    assert {"genai_config.json", "model.onnx"} <= {p.name for p in files}
    total = sum(p.stat().st_size for p in files)
    with lab.board("rpi4-ina219", power={"source": "hwmon", "rate_hz": 100}, drive=False) as b:
        first = deploy(lab, b, "onnxruntime-genai", "int4", monkeypatch, capsys)
        folder = Path(lab.host.workdir, "artifacts", f"{first['artifact']['sha256']}.ortgenai")
        assert folder.is_dir()
        assert {p.name: sha256(p) for p in folder.iterdir()} == {p.name: sha256(p) for p in files}
        assert first["transfer"]["artifact_bytes"] == total == first["artifact"]["size_bytes"]
        second = deploy(lab, b, "onnxruntime-genai", "int4", monkeypatch, capsys)
        assert second["transfer"]["artifact_bytes"] == 0 and second["transfer"]["total_bytes"] == 0
        # an upload cut short: one file gone from the board, another corrupted; the next deploy sends those two
        # only, by content, and the folder is whole again
        gone, bad = folder / "genai_config.json", folder / "model.onnx"
        gone.unlink()
        bad.write_bytes(bad.read_bytes()[:100])
        # and what a killed host leaves: a partial upload in the folder, an hour old (removed when the next
        # session sets up), beside another controller's upload still being written (kept)
        stale, fresh = folder / "model.onnx.data.part-0a0b0c", folder / "tokenizer.json.part-1a1b1c"
        for part in (stale, fresh):
            part.write_bytes(b"x" * 100)
        os.utime(stale, (time.time() - 3600, time.time() - 3600))
        third = deploy(lab, b, "onnxruntime-genai", "int4", monkeypatch, capsys)
    assert third["transfer"]["artifact_bytes"] == (local / gone.name).stat().st_size + (local / bad.name).stat().st_size
    assert not stale.exists() and fresh.exists()
    fresh.unlink()
    assert {p.name: sha256(p) for p in folder.iterdir()} == {p.name: sha256(p) for p in files}
    assert not list(folder.glob("*.part-*"))  # no upload of this deploy left half-written
    for r in (first, second, third):
        check_generation(r, "onnxruntime-genai", "int4", "ortgenai")
        assert r["artifact"]["sha256"] == first["artifact"]["sha256"]
        check_energy(r)
    back = shown_json(lab, third["run_id"], capsys)
    assert back["generation"] == third["generation"]


def test_a_folder_file_name_that_cannot_be_pushed_ends_in_one_line(tmp_path: Path, tiny_ortgenai: Any) -> None:
    """The folder push's name check (session/generation.py _folder_files), before anything is sent."""
    import shutil

    from edgeprof.errors import ConfigError
    from edgeprof.session.genartifact import _folder_files

    folder = tmp_path / "model"
    shutil.copytree(tiny_ortgenai("int4"), folder)
    assert [n for n, _h, _s in _folder_files(folder)]
    for name in ("-rf", ".hidden", "new\nline", "a b", "back\\slash"):
        (folder / name).write_text("x")
        with pytest.raises(ConfigError) as e:
            _folder_files(folder)
        assert repr(name) in str(e.value) and "\n" not in str(e.value).replace(repr(name), "")
        (folder / name).unlink()


def test_a_board_whose_llama_cpp_does_not_import_is_refused_in_one_line_before_the_push(
        lab: BoardLab, cache: Path, no_artifacts: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The capability check over sshd: the board's llama_cpp fails to import (a stub ahead of it on the board's
    PYTHONPATH, as a broken install does); the agent's facts say so and the deploy ends in one line naming the
    import error, with nothing built or pushed."""
    import yaml

    stub = tmp_path / "board-site"
    stub.mkdir()
    (stub / "llama_cpp.py").write_text("raise ImportError('libllama.so: cannot open shared object file')\n")
    with lab.board("rpi4-ina219", drive=False) as b:
        inv = yaml.safe_load(b.inventory.read_text())
        inv["devices"][b.device]["env"]["PYTHONPATH"] = str(stub)
        b.inventory.write_text(yaml.safe_dump(inv, sort_keys=False))
        monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "empty-cache"))
        code, _out, err, r = lab.deploy(b, "llama_tiny", "--runtime", "llama.cpp", *SMALL, monkeypatch=monkeypatch,
                                        capsys=capsys)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code != 0 and r is None and len(lines) == 1, err
    assert f"device {b.device} has no llama.cpp" in lines[0] and "libllama.so" in lines[0], err
    assert not list((tmp_path / "empty-cache").rglob("*.gguf"))  # nothing built
    assert not list(Path(lab.host.workdir, "artifacts").iterdir())  # nothing pushed


def test_onnxruntime_genai_cuda_on_a_gpu_board_without_its_cuda_build_is_refused_by_the_host_in_one_line(
        lab: BoardLab, cache: Path, no_artifacts: None, tiny_ortgenai: Any, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """--providers cuda on a board whose facts show NVIDIA GPUs (the x86 + 2 x T4 tree: /proc/driver/nvidia/gpus)
    whose onnxruntime-genai is this CPU wheel: the facts read its is_cuda_available() (False), so the host refuses
    it before anything is pushed: one line naming the module's lack of CUDA, exit != 0, nothing in the board's
    artifacts, no result stored for the board. (The agent's own refusal, for facts that do not say: the
    tests/agent/test_generate_requests.py test of the op.)"""
    import json

    import onnxruntime_genai as og

    if og.is_cuda_available():
        pytest.skip("this onnxruntime-genai has CUDA")
    tiny_ortgenai("int4")  # built once per run; the CLI would find it cached
    with lab.board("x86-2xt4", drive=False) as b:
        code, _out, err, r = lab.deploy(b, "llama_tiny", "--runtime", "onnxruntime-genai", "--precision", "int4",
                                        "--providers", "CUDAExecutionProvider", *SMALL, monkeypatch=monkeypatch,
                                        capsys=capsys)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code != 0 and r is None and len(lines) == 1, err
    assert (f"device {b.device}: --providers cuda: {b.device}'s onnxruntime-genai {og.__version__} has no CUDA "
            "(is_cuda_available() is False) — install onnxruntime-genai-cuda on the device") in lines[0], err
    artifacts = Path(lab.host.workdir, "artifacts")
    assert not artifacts.is_dir() or not list(artifacts.iterdir())  # nothing pushed
    from edgeprof.cli.main import main

    assert main(["results", "list", "--db", lab.db, "--device", b.device, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


MIB = 2**20
T4_UUIDS = ("GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f70", "GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f71")
T4S = [{"name": "Tesla T4", "uuid": T4_UUIDS[0], "bus_id": "00000000:3B:00.0", "temp_c": 41,
        "wave": {"base": 30.0, "amp": 0.0}, "processes": [["self", 100 * MIB]]},
       {"name": "Tesla T4", "uuid": T4_UUIDS[1], "bus_id": "00000000:AF:00.0", "temp_c": 63,
        "wave": {"base": 55.0, "amp": 0.0}, "processes": [["self", 700 * MIB]]}]


def og_double_on(board: Board, gpu: int) -> None:
    """The board's onnxruntime_genai, ahead of this venv's CPU wheel on its PYTHONPATH (the pynvml double's folder),
    is the og double built with CUDA (tests/agent/fakes/og_double.py: no model runs; it follows python.cpp), and its
    devices.yaml entry says gpu: N."""
    import shutil

    import yaml

    mods = board.dir.parent / "modules"
    shutil.copy(REPO / "tests" / "agent" / "fakes" / "og_double.py", mods / "_og_double.py")
    (mods / "onnxruntime_genai").mkdir()
    (mods / "onnxruntime_genai" / "__init__.py").write_text(
        "import sys\nfrom _og_double import FakeOg\nsys.modules[__name__] = FakeOg(cuda=True)\n")
    doc = yaml.safe_load(board.inventory.read_text())
    doc["devices"][board.device]["gpu"] = gpu
    board.inventory.write_text(yaml.safe_dump(doc, sort_keys=False))


def test_onnxruntime_genai_cuda_on_devices_yaml_s_gpu_over_sshd_with_doubles(
        lab: BoardLab, cache: Path, no_artifacts: None, tiny_ortgenai: Any, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """No GPU here: the 2 x T4 tree's driver list, the pynvml double (GPU 1 lists 700 MiB for the measuring
    process) and the og double built with CUDA as the board's onnxruntime_genai. The facts read its
    is_cuda_available() (True), so the host passes --providers cuda; devices.yaml gpu: 1 is checked against the
    facts' GPUs, sent, pinned by the agent (CUDA_VISIBLE_DEVICES = GPU 1's UUID) with the CUDA provider's device_id
    0, and stored (environment.runtime.gpu, settings.gpu, options.device_id); the process's GPU memory from NVML
    is in the generation section beside peak RSS with its source, and shown. gpu: 2 is one line before the push."""
    import json

    tiny_ortgenai("int4")  # built once per run; the CLI finds it cached
    with lab.board("x86-2xt4", nvml={"gpus": T4S}, drive=False) as b:
        og_double_on(b, gpu=1)
        code, _out, err, r = lab.deploy(b, "llama_tiny", "--runtime", "onnxruntime-genai", "--precision", "int4",
                                        "--providers", "cuda", *SMALL, monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and r is not None, err
    env = r["environment"]
    assert env["device"]["runtimes"]["onnxruntime_genai"]["cuda"] is True
    assert env["runtime"]["gpu"] == {"index": 1, "name": "Tesla T4", "uuid": T4_UUIDS[1],
                                     "pci_bus_id": "00000000:AF:00.0", "source": "NVML", "kind": "discrete",
                                     "cuda_env": {"CUDA_VISIBLE_DEVICES": T4_UUIDS[1]}}
    opts = env["runtime"]["options"]
    assert (opts["provider"], opts["device_id"], opts["device_type"]) == ("cuda", 0, "CUDA")
    assert r["settings"]["gpu"] == 1
    g = r["generation"]
    assert g["gpu_memory"]["after_load_bytes"] == g["gpu_memory"]["end_bytes"] == 700 * MIB  # GPU 1's, not 0's
    assert g["gpu_memory"]["gpu"] == 1 and "NVML" in g["gpu_memory"]["source"] and "gpu_memory_reason" not in g
    assert list(g).index("gpu_memory") == list(g).index("peak_rss_bytes") + 1
    assert r["memory_mb"]["gpu_process_bytes"] == 700 * MIB
    assert r["power"]["rail"] == "gpu1"  # NVML's power of the pinned GPU
    from edgeprof.cli.main import main

    assert main(["results", "show", r["run_id"], "--db", lab.db]) == 0
    assert "GPU memory (GPU 1) after load 700 MiB, at the end 700 MiB (NVML)" in capsys.readouterr().out
    artifacts = Path(lab.host.workdir, "artifacts")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in artifacts.rglob("*"))
    with lab.board("x86-2xt4", nvml={"gpus": T4S}, drive=False) as b:
        og_double_on(b, gpu=2)
        code, _out, err, r = lab.deploy(b, "llama_tiny", "--runtime", "onnxruntime-genai", "--precision", "int4",
                                        "--providers", "cuda", *SMALL, monkeypatch=monkeypatch, capsys=capsys)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code != 0 and r is None and len(lines) == 1, err
    assert f"gpu: 2 ({b.inventory}:" in lines[0], err
    assert f"{b.device} has 2 NVIDIA GPU(s) (0: Tesla T4, 1: Tesla T4)" in lines[0], err
    assert main(["results", "list", "--db", lab.db, "--device", b.device, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert sorted((p.name, p.stat().st_mtime_ns) for p in artifacts.rglob("*")) == before  # nothing pushed


def test_litert_lm_over_sshd_with_j_per_token_and_a_second_deploy_moving_nothing(
        lab: BoardLab, cache: Path, no_artifacts: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """llama_tiny built into a .litertlm (docs/generative.md "LiteRT-LM on a board"), pushed as one file, measured
    by the agent's LiteRT-LM backend on the powered Pi 4 tree: J/token = W x the stored windows, as for the other
    runtimes; a second deploy moves nothing. The board's Python is this one: needs litert-lm-api here."""
    pytest.importorskip("litert_lm", reason="litert-lm-api is not installed (pip install 'edgeprof[litert-lm]')")
    pytest.importorskip("litert_torch", reason="litert-torch is not installed (pip install 'edgeprof[litert-lm]')")
    with lab.board("rpi4-ina219", power={"source": "hwmon", "rate_hz": 100}, drive=False) as b:
        first = deploy(lab, b, "litert-lm", "wi8_afp32", monkeypatch, capsys)
        second = deploy(lab, b, "litert-lm", "wi8_afp32", monkeypatch, capsys)
    check_generation(first, "litert-lm", "wi8_afp32", "litertlm")
    pushed = Path(lab.host.workdir, "artifacts", f"{first['artifact']['sha256']}.litertlm")
    assert pushed.is_file() and sha256(pushed) == first["artifact"]["sha256"]
    assert first["transfer"]["artifact_bytes"] == first["artifact"]["size_bytes"] == pushed.stat().st_size
    assert second["transfer"]["artifact_bytes"] == 0 and second["transfer"]["total_bytes"] == 0
    for r in (first, second):
        check_energy(r)
        back = shown_json(lab, r["run_id"], capsys)
        assert back["generation"] == r["generation"]
        check_energy(back)


def test_a_users_litertlm_over_sshd_is_pushed_as_it_is_and_measured_with_the_dims_read_from_it(
        lab: BoardLab, cache: Path, no_artifacts: None, tiny_hf: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A user's .litertlm (llama_tiny's build copied outside the cache) on the powered Pi 4 tree: precision
    as-built, the file on the board equal to the user's by sha256, its vocabulary and KV cache read from the file on
    the host (environment.runtime.options.passthrough.dims_from), J/token = W x the stored windows; a run past its
    256-token cache is one line before anything connects."""
    pytest.importorskip("litert_lm", reason="litert-lm-api is not installed (pip install 'edgeprof[litert-lm]')")
    pytest.importorskip("litert_torch", reason="litert-torch is not installed (pip install 'edgeprof[litert-lm]')")
    import shutil

    from edgeprof.generative.build import litertlm_file

    built = litertlm_file(tiny_hf, "wi8_afp32", PROMPT + GEN, cache_dir=cache, name="llama_tiny")
    mine = tmp_path / "mine.litertlm"
    shutil.copyfile(built.path, mine)
    with lab.board("rpi4-ina219", power={"source": "hwmon", "rate_hz": 100}, drive=False) as b:
        code, _out, err, r = lab.deploy(b, str(mine), "--runtime", "litert-lm", *SMALL, monkeypatch=monkeypatch,
                                        capsys=capsys)
        assert code == 0 and r is not None, err
        code, _out, err, none = lab.deploy(b, str(mine), "--runtime", "litert-lm", "--prompt-tokens", "250",
                                           "--gen-tokens", "8", "--quiet", monkeypatch=monkeypatch, capsys=capsys)
    assert code == 2 and none is None and len(err.strip().splitlines()) == 1
    assert "258 tokens do not fit the KV cache of" in err and "(256 tokens, the length its graphs were built with)" in err
    assert (r["status"], r["runtime"], r["precision"], r["model"]) == ("ok", "litert-lm", "as-built", str(mine))
    pushed = Path(lab.host.workdir, "artifacts", f"{r['artifact']['sha256']}.litertlm")
    assert pushed.is_file() and sha256(pushed) == sha256(mine) == r["artifact"]["sha256"]
    opts = r["environment"]["runtime"]["options"]["passthrough"]
    assert opts["dims_from"].startswith("read from the .litertlm's TFLite signatures") and opts["vocab_size"] == 2048
    g = r["generation"]
    assert (g["kv_cache"]["layers"], g["kv_cache"]["kv_heads"], g["kv_cache"]["head_dim"]) == (4, 4, 32)
    assert all(len(t) == GEN for t in g["token_ns"]) and len(g["token_ns"]) == REPS
    check_energy(r)
    assert shown_json(lab, r["run_id"], capsys)["generation"] == g
