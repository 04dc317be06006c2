"""A generation sweep on the JetPack 4.6 stack (tests/lanes/stack_profiles.py: Python 3.6, numpy, onnxruntime
1.10, no llama.cpp) as the `python:` of a real sshd board, beside this machine: the board's cells are skip rows
saying its Python cannot import llama_cpp, decided from the 3.6 agent's facts before anything is built or pushed
(no GGUF in its workdir), while the same cells measure on `local`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sshd import SSHLab

from edgeprof.cli.main import main
from edgeprof.store import Store

pytestmark = [pytest.mark.stacks, pytest.mark.ssh]


def test_llama_cpp_cells_on_a_python_3_6_board_are_skip_rows(
        ssh_lab: SSHLab, client_home: Path, stack_entry: Callable[[str], dict[str, object]],
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    entry = stack_entry("jetpack-4.6")
    host = ssh_lab.shared_host("jetpack46", client_home / ".ssh" / "known_hosts")
    inv = client_home.parent / "devices.yaml"
    inv.write_text("version: 1\ndevices:\n" + ssh_lab.yaml_entry(host, "nano", python=entry["python"]))
    sweep = client_home.parent / "gen.yaml"
    sweep.write_text("name: gen36\nmodels: [llama_tiny]\ndevices: [nano, local]\nruntimes: [llama.cpp]\n"
                     "threads: [1]\nprompt_tokens: [8]\ngen_tokens: [4]\ndepth: [0, 16]\n"
                     "settings: {repetitions: 2, idle_s: 0, timeout_s: 300, retries: 0}\n")
    db = str(client_home.parent / "r.sqlite")
    code = main(["sweep", str(sweep), "--inventory", str(inv), "--db", db, "--quiet"])
    cap = capsys.readouterr()
    assert code == 0, cap.out + cap.err
    store = Store(db)
    rows = [store.get(r.run_id) for r in store.list(limit=None)]
    nano = [r for r in rows if r.device == "nano"]
    local = [r for r in rows if r.device == "local"]
    assert len(nano) == len(local) == 2
    for r in nano:
        assert r.status == "skipped" and r.reason is not None, r.reason
        assert r.reason.startswith("device nano has no llama.cpp: llama_cpp is not importable there ("), r.reason
    assert all(r.status == "ok" and r.generation is not None for r in local)
    stored = store.latest_facts("nano")  # the facts the decision was made on: the 3.6 agent's
    assert stored is not None and str(stored[1].python).startswith("3.6.")
    assert not list(Path(host.workdir).rglob("*.gguf")), "a GGUF reached the board without llama.cpp"
