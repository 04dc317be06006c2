"""`edgeprof deploy --device local` of the bundled tiny Llama on llama.cpp (Q4_0, one thread, extra buffers off: the
AMX crash docs/generative.md names) through the real agent: `--depth 0` stored as 0, `--mmap` set explicitly and
recorded in the runtime facts `results show --json` prints, the server and sustained scenarios at a depth, and the
deadline of the whole generation (made tiny here) stopping a run that keeps talking, with nothing stored."""

from __future__ import annotations

import json

import pytest

from edgeprof.cli.main import main

pytestmark = pytest.mark.gen
pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
BASE = ["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "llama.cpp", "--precision", "q4_0",
        "--threads", "1", "--idle", "0", "--extra-buffers", "off", "--prompt-tokens", "16", "--gen-tokens", "8",
        "--quiet"]


def _deploy(db: str, capsys, *flags: str) -> dict:
    code = main([*BASE, *flags, "--db", db])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    run_id = cap.err.split("stored as run ", 1)[1].split()[0]
    assert main(["results", "show", run_id, "--db", db, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("mmap", ["off", "on"])
def test_depth_zero_and_mmap_are_stored_as_given(mmap, tmp_path, capsys):
    r = _deploy(str(tmp_path / "r.sqlite"), capsys, "--depth", "0", "--repetitions", "2", "--mmap", mmap)
    assert r["settings"]["depth"] == 0 and r["generation"]["depth"] == 0  # given 0: a value, not "not given"
    assert r["settings"]["repetitions"] == 2 and r["settings"]["prompt_tokens"] == 16
    options = r["environment"]["runtime"]["options"]  # what the backend loaded with, as it described itself
    assert options["use_mmap"] is (mmap == "on") and options["extra_buffers"] is False
    assert r["settings"]["runtime_options"] == {"use_mmap": mmap == "on", "extra_buffers": False}


def test_server_at_a_depth_runs_every_request_at_it(tmp_path, capsys):
    r = _deploy(str(tmp_path / "r.sqlite"), capsys, "--depth", "200", "--scenario", "server", "--rate", "20",
                "--min-queries", "6", "--min-duration", "0")
    g = r["generation"]
    assert g["depth"] == 200 and r["settings"]["depth"] == 200 and g["scenario"]["requests"] == 6
    assert len(g["depth_fill_ns"]) == 6 and all(ns > 0 for ns in g["depth_fill_ns"])  # each filled, untimed
    assert g["n_ctx"] == 200 + 16 + 8 and g["kv_cache"]["n_ctx"] >= 224  # the cache has room for it
    assert all(len(t) == 8 for t in g["token_ns"])


def test_sustained_at_a_depth_runs_every_request_at_it(tmp_path, capsys):
    r = _deploy(str(tmp_path / "r.sqlite"), capsys, "--depth", "200", "--scenario", "sustained", "--duration", "3",
                "--window", "1")
    g = r["generation"]
    assert g["depth"] == 200 and len(g["depth_fill_ns"]) == len(g["token_ns"]) > 1
    assert all(ns > 0 for ns in g["depth_fill_ns"])
    assert sum(w["tokens"] for w in g["scenario"]["windows"]) == sum(len(t) for t in g["token_ns"])


def test_a_generation_past_its_deadline_is_stopped_with_one_line_and_not_stored(tmp_path, capsys, monkeypatch):
    import edgeprof.session.generation as gen

    real = gen.generation_deadline

    def tiny(spec, s):  # the real deadline (its label, its reason, its advice) with a 4 s total
        d = real(spec, s)
        d.total_s = 4.0
        return d

    monkeypatch.setattr(gen, "generation_deadline", tiny)
    db = str(tmp_path / "r.sqlite")
    # 1000 repetitions of 64 tokens (tens of seconds), a progress event after each: the agent keeps talking
    code = main([*BASE, "--repetitions", "1000", "--gen-tokens", "64", "--db", db])
    err = capsys.readouterr().err
    assert code == 3, err
    first = err.strip().splitlines()[0]
    assert "was still in 'generate', phase 'measure'" in first and "past the generation's deadline of 4 s" in first
    assert "1000 repetitions" in first and "its last progress: 'measure' " in first and " of 1000 done" in first
    assert "the agent was stopped" in first and "--repetitions" in err and "Traceback" not in err
    assert main(["results", "list", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []  # nothing stored as if complete


def test_a_sweep_sets_mmap_through_its_runtime_options(tmp_path, monkeypatch, capsys):
    from edgeprof.store import Store

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "s.yaml").write_text(
        "name: mmap\nmodels: [llama_tiny]\ndevices: [local]\nruntimes: [llama.cpp]\nprecisions: [q4_0]\n"
        "threads: [1]\nprompt_tokens: [16]\ngen_tokens: [8]\ndepth: [0]\n"
        "settings: {repetitions: 2, idle_s: 0, retries: 0, runtime_options: {use_mmap: false, extra_buffers: false}}\n")
    db = str(tmp_path / "r.sqlite")
    code = main(["sweep", str(tmp_path / "s.yaml"), "--db", db, "--quiet"])
    cap = capsys.readouterr()
    assert code == 0, cap.out + cap.err
    store = Store(db)
    (row,) = store.list(limit=None)
    r = store.get(row.run_id)
    assert r.status == "ok" and r.environment is not None and r.environment.runtime is not None
    opts = r.environment.runtime.options
    assert opts is not None and opts.use_mmap is False and opts.extra_buffers is False
    assert r.settings.depth == 0  # a sweep's depth: [0] is stored as 0 too
