"""The CLI starts fast (issue 22): `edgeprof --version` and `--help` import no command module and none of the
heavy libraries; a command imports only itself, and every help text is the one its module registers.
Module sets, not timings (benchmarks/cli_startup.py measures the time)."""

import argparse
import json
import subprocess
import sys

import pytest

from edgeprof.cli.main import ALL, COMMANDS, build_parser, command_of

HEAVY = ("numpy", "sqlalchemy", "rich", "paramiko", "onnx", "onnxruntime", "torch", "yaml", "ruamel", "psycopg",
         "procrastinate", "edgeprof.records", "edgeprof.store", "edgeprof.agentlink",
         "edgeprof_agent")


def _imported_by(argv):
    code = ("import json, sys\nfrom edgeprof.cli.main import main\ntry:\n    main(json.loads(sys.argv[1]))\n"
            "except SystemExit:\n    pass\nsys.stderr.write(json.dumps(sorted(sys.modules)))\n")
    p = subprocess.run([sys.executable, "-c", code, json.dumps(argv)], capture_output=True, text=True, check=True)
    return p.stdout, set(json.loads(p.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("argv", [["--version"], ["--help"], []])
def test_version_and_help_import_no_heavy_module(argv):
    out, modules = _imported_by(argv)
    assert out.startswith("edgeprof 0.") if argv == ["--version"] else "COMMAND" in out
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY)
    assert heavy == []
    assert not [m for m in modules if m.startswith("edgeprof.cli.") and m != "edgeprof.cli.main"]


def test_a_commands_help_imports_that_command_only():
    out, modules = _imported_by(["models", "--help"])
    assert "bundled models" in out.lower()
    commands = sorted(m for m in modules if m.startswith("edgeprof.cli.") and m[len("edgeprof.cli."):] in COMMANDS)
    assert commands == ["edgeprof.cli.models"]


def _subparsers(parser):
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_the_help_lines_main_lists_are_the_ones_the_modules_register():
    full = build_parser(ALL)
    registered = dict((a.dest, a.help) for a in _subparsers(full)._choices_actions)
    assert list(registered) == list(COMMANDS)
    assert registered == COMMANDS
    assert build_parser(None).format_help() == full.format_help()  # `edgeprof --help`, unchanged


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_commands_help_is_the_same_when_only_it_is_loaded(name):
    full = _subparsers(build_parser(ALL)).choices[name]
    alone = _subparsers(build_parser(name)).choices[name]
    assert alone.format_help() == full.format_help()
    for sub in (a for a in full._actions if isinstance(a, argparse._SubParsersAction)):
        other = next(a for a in alone._actions if isinstance(a, argparse._SubParsersAction))
        assert sorted(sub.choices) == sorted(other.choices)
        for k in sub.choices:
            assert other.choices[k].format_help() == sub.choices[k].format_help()


def test_the_command_is_the_first_word_that_is_not_an_option():
    assert command_of(["-v", "deploy", "--device", "local"]) == "deploy"
    assert command_of(["--version"]) is None and command_of([]) is None and command_of(["--", "x"]) is None
    assert command_of(["nosuch"]) == "nosuch"


def test_an_unknown_command_is_refused_as_before(capsys):
    from edgeprof.cli.main import main

    with pytest.raises(SystemExit) as e:
        main(["deplo"])
    assert e.value.code == 2
    assert "invalid choice: 'deplo'" in capsys.readouterr().err


# a Ctrl-C while the CLI's own modules load (under load that takes long enough to be hit): the console script that
# pip wrote, and `python -m edgeprof`, end as any later Ctrl-C does. sitecustomize sends the SIGINT at the very
# moment the import of a module starts, so the interruption lands inside that import every time:
# - edgeprof.cli.main: before any handler of edgeprof's (edgeprof/__main__.py catches it);
# - edgeprof.cli.models, from inside a string exec (a dataclass's generated __init__ is one): CPython then flags
#   the KeyboardInterrupt as unhandled although the CLI handled it, and under `-m` kills the process by SIGINT at
#   exit (-2, not 130) unless the flag is cleared (edgeprof.interrupts.forget_handled_interrupt)
SIGINT_ON_IMPORT = """\
import os, signal, sys


class SigintOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["SIGINT_ON_IMPORT"]:
            exec("os.kill(os.getpid(), signal.SIGINT)\\nfor _ in range(10000000): pass", {"os": os, "signal": signal})
        return None


sys.meta_path.insert(0, SigintOnImport())
"""


# (python -m edgeprof.cli.main has runpy import edgeprof.cli.main itself, outside any code of edgeprof's)
@pytest.mark.parametrize(("how", "module"), [
    ("console script", "edgeprof.cli.main"), ("console script", "edgeprof.cli.models"),
    ("python -m edgeprof", "edgeprof.cli.main"), ("python -m edgeprof", "edgeprof.cli.models"),
    ("python -m edgeprof.cli.main", "edgeprof.cli.models")])
def test_ctrl_c_while_the_cli_modules_load_is_one_line_and_exit_130(tmp_path, how, module):
    import os
    from pathlib import Path

    (tmp_path / "sitecustomize.py").write_text(SIGINT_ON_IMPORT)
    script = Path(sys.executable).parent / "edgeprof"
    argv = {"console script": [str(script)], "python -m edgeprof": [sys.executable, "-m", "edgeprof"],
            "python -m edgeprof.cli.main": [sys.executable, "-m", "edgeprof.cli.main"]}[how]
    if how == "console script":
        assert script.exists(), f"{script}: the venv has no edgeprof console script (pip install -e .)"
        assert "edgeprof.__main__" in script.read_text()  # the entry point of pyproject.toml
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([*argv, "models"], capture_output=True, text=True, timeout=60,
                       env=dict(env, PYTHONPATH=str(tmp_path), SIGINT_ON_IMPORT=module))
    assert "Traceback" not in p.stderr and "KeyboardInterrupt" not in p.stderr, p.stderr
    assert (p.returncode, p.stderr.strip()) == (130, "edgeprof: interrupted")  # -2: killed by SIGINT
    ok = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=60, env=env)
    assert ok.returncode == 0 and ok.stdout.startswith("edgeprof 0."), ok.stderr
