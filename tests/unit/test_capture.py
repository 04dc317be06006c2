"""export/capture.py: the libraries' output goes to the log, edgeprof's own output to the terminal.

Runs in a child Python with real file descriptors 1 and 2 (pytest's own capture would hide what reaches them),
plus in-process checks of the error path and the CLI's --verbose."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from edgeprof.cli.main import build_parser, main
from edgeprof.errors import ModelError
from edgeprof.export import capture as cap_mod
from edgeprof.export.capture import capture, library_failure, to_terminal


def run_child(body: str, tmp_path: Path) -> tuple[str, str]:
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(body))
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return p.stdout, p.stderr


CHILD = """
import ctypes, logging, os, sys, warnings
from pathlib import Path
from rich.console import Console
from edgeprof.export import capture as c

VERBOSE = {verbose}
c.set_verbose(VERBOSE)
console = Console(file=c.TerminalStream("stderr"), force_terminal=False, width=200)
say = c.to_terminal(lambda m: print("progress:", m, file=sys.stderr))
libc = ctypes.CDLL(None)
with c.capture(Path("export.log"), "exporting m to TFLite") as cap:
    print("library print on stdout")
    print("library print on stderr", file=sys.stderr)
    os.write(1, b"C-level fd 1\\n")
    libc.write(2, b"C-level fd 2 via libc\\n", 22)
    warnings.warn("a library FutureWarning", FutureWarning)
    logging.getLogger("somelib").warning("a library log record")
    console.print("edgeprof console line")
    say("edgeprof progress line")
    with c.capture(Path("inner.log"), "inner") as inner:
        os.write(2, b"inner C-level\\n")
        say("progress from the inner capture")
    os.write(2, b"outer again\\n")
print("after: stdout is the terminal again")
os.write(2, b"after: fd 2 is the terminal again\\n")
"""


@pytest.mark.parametrize("verbose", [False, True])
def test_capture_sends_library_output_to_the_log_and_edgeprof_output_to_the_terminal(tmp_path, verbose):
    out, err = run_child(CHILD.format(verbose=verbose), tmp_path)
    log = (tmp_path / "export.log").read_text()
    library = ["library print on stdout", "library print on stderr", "C-level fd 1", "C-level fd 2 via libc",
               "a library FutureWarning", "WARNING somelib: a library log record", "outer again"]
    for line in library:
        assert line in log, f"{line!r} missing from the log:\n{log}"
    assert log.startswith("=== ") and "exporting m to TFLite" in log.splitlines()[0]
    assert "inner C-level" in (tmp_path / "inner.log").read_text() and "inner C-level" not in log
    for own in ("edgeprof console line", "progress: edgeprof progress line",
                "progress: progress from the inner capture", "after: fd 2 is the terminal again"):
        assert own in err and own not in log
    assert "after: stdout is the terminal again" in out
    terminal = out + err
    if verbose:  # --verbose: the same library lines stream to the terminal as well
        for line in ("C-level fd 1", "C-level fd 2 via libc", "a library log record"):
            assert line in terminal
    else:
        for line in library:
            assert line not in terminal, f"{line!r} reached the terminal"


def test_a_model_error_leaving_a_capture_names_the_log_and_keeps_its_tail(tmp_path):
    log = tmp_path / "k.log"
    with pytest.raises(ModelError) as e, capture(log, "exporting m to TFLite"):
        sys.stderr.write("converter: op FOO is not supported\n")
        raise library_failure(ModelError("exporting m to TFLite failed: ValueError: bad op",
                                         hint="try --runtime onnxruntime"))
    assert str(log) in e.value.one_line() and "\n" not in e.value.one_line()
    assert e.value.one_line().startswith("exporting m to TFLite failed") and "try --runtime onnxruntime" in str(e.value)
    assert e.value.detail is not None and "op FOO is not supported" in e.value.detail
    assert e.value.library_log == str(log)  # type: ignore[attr-defined]


def test_other_errors_stay_as_they_are_and_a_silent_capture_leaves_no_log(tmp_path):
    log = tmp_path / "k.log"
    with pytest.raises(ModelError) as e, capture(log, "building m"):
        sys.stderr.write("torch: something\n")
        raise ModelError("builder b.py:build returned int, not a torch.nn.Module", hint="return a module")
    assert str(e.value) == "builder b.py:build returned int, not a torch.nn.Module — return a module"
    assert e.value.detail is None and "torch: something" in log.read_text()
    before = log.read_text()
    with pytest.raises(ModelError) as e, capture(log, "exporting m"):  # a library failure, but nothing said
        raise library_failure(ModelError("exporting m to ONNX failed: RuntimeError: x"))
    assert str(e.value) == "exporting m to ONNX failed: RuntimeError: x"
    assert log.read_text() == before  # the silent section's header was taken back out
    with capture(tmp_path / "quiet.log", "nothing to say"):
        pass
    assert not (tmp_path / "quiet.log").exists()


def test_cli_verbose_on_every_command_and_the_log_tail_only_with_it(tmp_path, monkeypatch, capsys):
    parser = build_parser()
    assert parser.parse_args(["-v", "models"]).verbose is True
    assert parser.parse_args(["models", "--verbose"]).verbose is True
    assert parser.parse_args(["results", "list", "-v"]).verbose is True
    assert parser.parse_args(["models"]).verbose is False

    def failing_export(args):
        with capture(tmp_path / "k.log", "exporting m"):
            sys.stderr.write("LIBRARY SAYS: unsupported op\n")
            raise library_failure(ModelError("exporting m to ONNX failed: RuntimeError: boom",
                                             hint="simplify forward()"))

    import edgeprof.cli.models as models_cli

    monkeypatch.setattr(models_cli, "run", failing_export)
    assert main(["models"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0].startswith("edgeprof: error: exporting m to ONNX failed") and str(tmp_path / "k.log") in err
    assert "LIBRARY SAYS" not in err and "--verbose" in err
    assert main(["models", "-v"]) == 2
    err = capsys.readouterr().err
    assert "    LIBRARY SAYS: unsupported op" in err
    cap_mod.set_verbose(False)


def test_to_terminal_outside_a_capture_calls_straight_through():
    seen: list[str] = []
    say = to_terminal(seen.append)
    say("a")
    assert seen == ["a"] and to_terminal(say) is say
    to_terminal(None)("nothing happens")


RACE = """
import sys, threading
from pathlib import Path
from edgeprof.export import capture as c

out = c.TerminalStream("stderr")
errors, stop = [], threading.Event()

def refresh():  # like rich's live-display thread: writes to the console while captures come and go
    while not stop.is_set():
        try:
            out.write("frame\\n")
            out.flush()
        except Exception as e:
            errors.append(repr(e))

t = threading.Thread(target=refresh)
t.start()
for i in range(200):
    with c.capture(Path("race.log"), "export %d" % i):
        sys.stderr.write("library %d\\n" % i)
stop.set()
t.join()
print("errors=%r" % errors)
"""


def test_console_writes_from_another_thread_survive_captures_coming_and_going(tmp_path):
    out, err = run_child(RACE, tmp_path)
    assert out.strip() == "errors=[]"
    log = (tmp_path / "race.log").read_text()
    assert "library 199" in log and "frame" not in log
    assert "frame" in err and "library" not in err
