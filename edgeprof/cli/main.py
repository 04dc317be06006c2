"""edgeprof command line: one thin module per command (parse, call the library, print).

Owns: the top-level parser, loading command modules, turning UserError into one line and an exit code, and the
options every command takes (`--verbose`: the libraries' output captured during export streams to the terminal
as well, and an error's captured log tail is printed under its one line), Ctrl-C as one line and exit 130
(interrupts.py counts SIGINTs so that none is lost or reported as another failure), and a write refused for
room or permission (errors.DISK_ERRNOS) that reached the top as one line. Points the consoles of cli/ui.py at
export/capture.py's TerminalStream, so edgeprof's own output reaches the terminal while export output is captured.
Each command module `edgeprof/cli/<name>.py` exposes `register(subparsers)`; the parser it adds sets
`func=run` with `run(args) -> int`.
Starts fast: only the command named on the command line is imported (with its libraries: numpy, SQLAlchemy,
rich, paramiko...); the others are listed by the help line COMMANDS keeps for them, so `edgeprof --version` and
`edgeprof --help` import none of them (tests/unit/test_cli_startup.py checks both, and that COMMANDS says what
each module registers).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import IO, cast

from .. import __version__

# each command, in the order `edgeprof --help` lists them, with the help line its module's register() gives it
COMMANDS = {
    "deploy": "profile one model on one device",
    "models": "list bundled models with parameters and FLOPs",
    "results": "list and show stored runs",
    "devices": "list, check and trust the boards in devices.yaml",
    "sweep": "run a sweep: models × devices × runtimes × precisions × batch × threads",
    "compare": "compare two runs or two sweeps (ratio, Mann-Whitney U, minimum effect)",
    "check": "regressions and budget violations of a sweep (exit 1 on any; JUnit XML)",
    "report": "an HTML page (or md / csv) comparing boards: latency, energy, Pareto, power, history",
    "db": "the results database: upgrade a PostgreSQL database for the lab queue",
    "worker": "run queued sweep cells (edgeprof sweep --queue) on this controller's boards",
    "lab": "the lab queue: status of boards, queued cells and workers",
    "calibrate": "measure a board's kernels once, for edgeprof predict",
    "predict": "predict a model's latency on boards from their calibration tables",
}
ALL = "*"

EPILOG = """\
examples:
  edgeprof deploy --device local --model mobilenet_v2        profile a bundled model on this machine
  edgeprof deploy --device local --model path/model.onnx --input input=1x3x224x224
  edgeprof models                                             bundled models with parameters and FLOPs
  edgeprof results list                                       stored runs, newest first
  edgeprof devices check                                      reach every board in devices.yaml
  edgeprof sweep sweeps/example.yaml                          a matrix of models × devices × runtimes
  edgeprof check --junit check.xml && edgeprof report --out report.html
"""


def build_parser(command: str | None = ALL) -> argparse.ArgumentParser:
    """The parser of every command (`command` ALL), or of the one named `command` with the others listed by
    their help line only (None: all of them listed only, as `edgeprof --help` shows them)."""
    parser = argparse.ArgumentParser(
        prog="edgeprof",
        description="Profile inference on edge boards: latency percentiles, throughput, memory, power.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"edgeprof {__version__}")
    add_global_args(parser, default=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_line in COMMANDS.items():
        if command != ALL and name != command:
            sub.add_parser(name, help=help_line)
            continue
        try:
            module = importlib.import_module(f"edgeprof.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"edgeprof.cli.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    _add_to_subcommands(parser)
    return parser


def add_global_args(p: argparse.ArgumentParser, default: object) -> None:
    p.add_argument("-v", "--verbose", action="store_true", default=default,
                   help="also stream the libraries' output (torch, LiteRT, onnxruntime; always kept in a log next "
                        "to the artifact in the cache) to the terminal, and print a log's tail under an error")


def _add_to_subcommands(parser: argparse.ArgumentParser) -> None:
    """Every (sub)command takes the global options too, after its name (`edgeprof deploy ... -v`)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                add_global_args(sub, default=argparse.SUPPRESS)  # not set there: keep the top-level value
                _add_to_subcommands(sub)


def command_of(argv: list[str]) -> str | None:
    """The command named on a command line: its first word that is not an option (the top-level options take
    no value), or None."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


def _console_streams() -> None:
    """edgeprof's consoles write through TerminalStream: the terminal, even while fd 1/2 are captured."""
    from ..export import capture

    try:
        from . import ui
    except ImportError:  # pragma: no cover - rich is a dependency
        return
    ui.out.file = cast(IO[str], capture.TerminalStream("stdout"))
    ui.err.file = cast(IO[str], capture.TerminalStream("stderr"))


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # also while the command's modules are still being imported
        return _interrupted()
    except ImportError:
        # a Ctrl-C inside an extension module's import surfaces as that import failing (numpy: "PyCapsule_Import
        # could not import module 'datetime'"): an interruption, not a broken install
        from .. import interrupts

        if interrupts.count() == 0:
            raise
        return _interrupted()


def _interrupted() -> int:
    from .. import interrupts

    interrupts.settle()  # a SIGINT re-sent or repeated now must not kill the process on its way out (exit 130)
    print("edgeprof: interrupted", file=sys.stderr)
    return 130


def _main(argv: list[str] | None) -> int:
    from .. import interrupts

    interrupts.install()  # before the command's modules load: a Ctrl-C there is counted too
    parser = build_parser(command_of(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    from ..errors import UserError, disk_advice, disk_error_in, disk_text
    from ..export import capture
    from ..files.output import visible

    capture.set_verbose(bool(getattr(args, "verbose", False)))
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    _console_streams()
    try:
        return int(args.func(args) or 0)
    except UserError as e:  # its text may hold a path, a name or a device's words: shown visibly (outputs.visible)
        print(f"edgeprof: error: {visible(e.one_line())}", file=sys.stderr)
        library_log = getattr(e, "library_log", None)
        verbose_only = bool(getattr(e, "verbose_detail", False))  # e.g. a native stack: its hint says --verbose
        if e.detail and (capture.verbose() or not (library_log or verbose_only)):
            for line in e.detail.rstrip().splitlines()[-15 if not verbose_only else -60:]:
                print(f"    {visible(line)}", file=sys.stderr)
        elif e.detail and not verbose_only:
            print("    (rerun with --verbose to see the log's last lines here)", file=sys.stderr)
        return e.exit_code
    except OSError as e:  # a write that no module turned into its own line: still one line, not a traceback
        disk = disk_error_in(e)
        if disk is None:
            raise
        where = f" {disk.filename}" if disk.filename else ""
        print(f"edgeprof: error: cannot write{visible(where)}: {disk_text(disk)} — {disk_advice(disk)}, or give another "
              "path", file=sys.stderr)
        return 2


if __name__ == "__main__":  # python -m edgeprof.cli.main, as python -m edgeprof
    from edgeprof.interrupts import forget_handled_interrupt

    code = main()
    forget_handled_interrupt()
    sys.exit(code)
