"""The `edgeprof` command's entry point ([project.scripts] in pyproject.toml) and `python -m edgeprof`.

Owns: the first moments of the process. The console script's own `from ... import main` runs before any handler
of edgeprof's, so a Ctrl-C while edgeprof.cli.main and its imports loaded (argparse, ...) was a KeyboardInterrupt
traceback (seen under load, when loading takes longer than the user's patience). This module imports nothing but
sys before that import (interrupts.py after it, or once SIGINT is ignored), and turns a Ctrl-C during that import
into the line and exit status of any later one (cli/main.py: "edgeprof: interrupted", 130). What it cannot cover is the interpreter's own start-up before this module runs.
"""

import sys


def main() -> int:
    try:
        from .cli.main import main as cli_main
    except KeyboardInterrupt:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not turn exit 130 into a kill
        print("edgeprof: interrupted", file=sys.stderr)
        # SIGINT is ignored by now: this import cannot be cut
        from .interrupts import forget_handled_interrupt

        forget_handled_interrupt()
        return 130
    from .interrupts import forget_handled_interrupt  # already loaded by cli.main

    try:
        code = cli_main()
    except BaseException as e:
        if not isinstance(e, KeyboardInterrupt):
            forget_handled_interrupt()
        raise
    forget_handled_interrupt()
    return code


if __name__ == "__main__":
    sys.exit(main())
