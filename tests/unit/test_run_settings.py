"""One table of run settings (vocab.RunSettings): deploy's flags, a sweep's `settings:` and `overrides`, the RunSpec,
the agent's RunRequest and the stored settings section are derived from it, so a new setting is one field there.

The first test proves it the way a contributor would meet it: a setting added to the table's source alone (in a
fresh interpreter) is a deploy flag with its help, is refused out of range, is taken by a sweep file, reaches the
RunSpec and is stored by a real deploy (the null runtime on this machine)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import edgeprof
from edgeprof import vocab
from edgeprof.records import RunSpec, Settings

VOCAB = Path(edgeprof.__file__).parent / "vocab.py"
ANCHOR = "    # sweep files only (runtime_options:"
NEW_FIELD = '''    probe_gap_s: float = _setting(
        "number", 0.0, "a pause between two probes (s)", lo=0, hi=60, flag="--probe-gap", place="measure",
        metavar="S", flag_help="pause S seconds between two probes (test-only setting)")
'''

SCRIPT = textwrap.dedent('''
    import importlib.abc, importlib.util, json, sys
    VOCAB, ANCHOR, NEW_FIELD, tmp = sys.argv[1:5]
    source = open(VOCAB).read()
    assert ANCHOR in source
    source = source.replace(ANCHOR, NEW_FIELD + ANCHOR, 1)

    class PatchedVocab(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path, target=None):
            return importlib.util.spec_from_loader(name, self, origin=VOCAB) if name == "edgeprof.vocab" else None
        def create_module(self, spec):
            return None
        def exec_module(self, module):
            module.__file__ = VOCAB
            exec(compile(source, VOCAB, "exec"), module.__dict__)

    sys.meta_path.insert(0, PatchedVocab())
    import contextlib, io, os
    from edgeprof.cli.main import main
    from edgeprof.lab.spec import parse_sweep
    from edgeprof.records import Settings
    out = {}
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), contextlib.suppress(SystemExit):
        main(["deploy", "--help"])
    out["help"] = help_text.getvalue()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        out["bad_rc"] = main(["deploy", "--device", "local", "--model", "none", "--runtime", "null",
                              "--probe-gap", "99", "--no-store", "--quiet"])
    out["bad_err"] = err.getvalue()
    sweep = parse_sweep("models: [ds_cnn]\\ndevices: [local]\\nsettings: {probe_gap_s: 1.5}\\n"
                        "overrides: [{match: {batch: 1}, probe_gap_s: 2.5}]\\n", os.path.join(tmp, "s.yaml"))
    out["sweep_default"] = sweep.settings["probe_gap_s"]
    out["override"] = sweep.overrides[0].settings["probe_gap_s"]
    out["stored_row"] = Settings.from_dict(sweep.settings).to_dict()["probe_gap_s"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        out["rc"] = main(["deploy", "--device", "local", "--model", "none", "--runtime", "null", "--min-duration",
                          "0.1", "--min-queries", "5", "--warmup", "0", "--idle", "0", "--probe-gap", "0.25",
                          "--no-store", "--quiet", "--json", os.path.join(tmp, "r.json")])
    out["stored_deploy"] = json.load(open(os.path.join(tmp, "r.json")))["settings"]["probe_gap_s"]
    print(json.dumps(out))
''')


def test_a_setting_added_to_the_table_alone_is_a_flag_a_sweep_setting_and_stored(tmp_path):
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(VOCAB), ANCHOR, NEW_FIELD, str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    help_text = " ".join(out["help"].split())
    assert "--probe-gap S pause S seconds between two probes (test-only setting)" in help_text
    # placed where the table says: among the measurement flags, before the load scenario's group
    assert help_text.index("--probe-gap") < help_text.index("load scenario")
    assert out["bad_rc"] == 2 and "--probe-gap 99: must be <= 60" in out["bad_err"]
    assert (out["sweep_default"], out["override"], out["stored_row"]) == (1.5, 2.5, 1.5)
    assert out["rc"] == 0 and out["stored_deploy"] == 0.25


def test_every_setting_is_in_every_derived_place_and_nothing_else_is():
    import argparse

    from edgeprof.cli import deploy

    names = set(vocab.SETTINGS)
    assert names == {f.name for f in dataclasses.fields(vocab.RunSettings)}
    spec_fields = {f.name for f in dataclasses.fields(RunSpec)}
    identity = {"device", "model", "runtime", "precision", "batch", "threads", "input_shapes", "scenario", "rate"}
    assert spec_fields == names | identity  # the RunSpec is the settings plus the configuration's identity
    reported = {"inputs", "window_s", "stopped_by", "warmup", "load_s"}  # what the agent says about the loop
    policy = set(vocab.POLICY)  # how a sweep runs a cell: a sweep row keeps its cell's, a RunSpec has none
    assert policy == {f.name for f in dataclasses.fields(vocab.SweepPolicy)} and not policy & names
    assert {f.name for f in dataclasses.fields(Settings)} == names | policy | reported
    assert list(vocab.SWEEP_SETTINGS) == [*vocab.SETTINGS, *vocab.POLICY]
    parser = argparse.ArgumentParser()
    deploy.register(parser.add_subparsers())
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["deploy"]
    flags = {o: a.dest for a in sub._actions for o in a.option_strings}
    for name, s in vocab.SETTINGS.items():
        if s.flag is not None:  # a flag is listed (a place deploy knows), with the setting as its dest
            assert flags.get(s.flag) == name, f"{s.flag} is not in deploy --help (place {s.place!r})"


def test_the_wire_names_of_the_table_are_the_agents_request_fields():
    """The agent keeps its own Python 3.6 records (messages.py): the table's wire names must be their fields, and
    every request field named like a setting is sent from it (input_data and accuracy carry the pushed file)."""
    from edgeprof_agent.messages import RunRequest, ScenarioSpec

    request = {f.name for f in RunRequest.FIELDS}
    scenario = {f.name for f in ScenarioSpec.FIELDS}
    wired = {name for name, s in vocab.SETTINGS.items() if s.wire == "request"}
    assert wired <= request
    assert {name for name, s in vocab.SETTINGS.items() if s.wire == "scenario"} <= scenario
    assert (request & set(vocab.SETTINGS)) - wired == {"input_data", "accuracy"}


def test_the_request_carries_the_spec_settings():
    from edgeprof.records import Device
    from edgeprof.run import run_request

    spec = RunSpec(device="local", model="none", runtime="null", min_duration_s=2.5, max_queries=None, seed=7,
                   cooldown_c=40.0, scenario="multi-stream", samples_per_query=4, profile_ops=True)
    req = run_request(spec, Device(name="local", kind="local"), None, None, [], return_outputs=False,
                      profile_ops=spec.profile_ops)
    assert (req.min_duration_s, req.max_queries, req.seed, req.cooldown_c) == (2.5, None, 7, 40.0)
    assert req.profile_ops is False  # the null runtime profiles no ops
    assert req.scenario is not None and (req.scenario.samples_per_query, req.scenario.seed) == (4, 7)


@pytest.mark.parametrize("text, setting, value", [
    ("settings: {profile_ops: true}\n", "profile_ops", True),
    ("settings: {cooldown_c: 45}\n", "cooldown_c", 45.0),
    ("settings: {opset: 17}\n", "opset", 17),
])
def test_a_sweep_takes_every_setting_deploy_takes(tmp_path, text, setting, value):
    from edgeprof.lab.spec import parse_sweep

    spec = parse_sweep("models: [ds_cnn]\ndevices: [local]\n" + text, str(tmp_path / "s.yaml"))
    assert spec.settings[setting] == value


def test_profile_ops_is_stored_when_asked_for_and_a_bad_value_is_a_line_error(tmp_path):
    from edgeprof.errors import ConfigError
    from edgeprof.lab.spec import parse_sweep

    asked = RunSpec(device="d", model="m", profile_ops=True)
    assert Settings.of_run(asked).to_dict()["profile_ops"] is True
    assert Settings.of_run(RunSpec(device="d", model="m")).to_dict()["profile_ops"] is None
    with pytest.raises(ConfigError, match="s.yaml:3 settings.profile_ops: must be true or false"):
        parse_sweep("models: [ds_cnn]\ndevices: [local]\nsettings: {profile_ops: 3}\n", str(tmp_path / "s.yaml"))
