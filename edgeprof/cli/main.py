"""edgeprof command line: one thin module per command (parse, call the library, print).

Owns: the top-level parser, loading command modules, turning UserError into one line and an exit code.
Each command module `edgeprof/cli/<name>.py` exposes `register(subparsers)`; the parser it adds sets
`func=run` with `run(args) -> int`.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import UserError

COMMANDS = ["deploy", "models", "results", "devices", "sweep", "compare", "check", "report", "db", "worker", "lab"]

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="edgeprof",
        description="Profile inference on edge boards: latency percentiles, throughput, memory, power.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"edgeprof {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"edgeprof.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"edgeprof.cli.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as e:
        print(f"edgeprof: error: {e.one_line()}", file=sys.stderr)
        if e.detail:
            for line in e.detail.rstrip().splitlines()[-15:]:
                print(f"    {line}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("edgeprof: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
