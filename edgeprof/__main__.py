"""The `edgeprof` command's entry point ([project.scripts] in pyproject.toml) and `python -m edgeprof`.

Owns: the first moments of the process. The console script's own `from ... import main` runs before any handler
of edgeprof's, so a Ctrl-C while edgeprof.cli.main and its imports loaded (argparse, ...) was a KeyboardInterrupt
traceback (seen under load, when loading takes longer than the user's patience). This module imports nothing but
sys, and turns a Ctrl-C during that import into the line and exit status of any later one (cli/main.py:
"edgeprof: interrupted", 130). What it cannot cover is the interpreter's own start-up before this module runs.
"""

import sys


def main() -> int:
    try:
        from .cli.main import main as cli_main
    except KeyboardInterrupt:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not turn exit 130 into a kill
        print("edgeprof: interrupted", file=sys.stderr)
        forget_handled_interrupt()
        return 130
    try:
        code = cli_main()
    except BaseException as e:
        if not isinstance(e, KeyboardInterrupt):
            forget_handled_interrupt()
        raise
    forget_handled_interrupt()
    return code


def forget_handled_interrupt() -> None:
    """Under `python -m`, an interruption the CLI handled (one line, exit 130) must not end the process as killed
    by SIGINT. CPython (3.8-3.13, Python/pythonrun.c run_eval_code_obj) sets its "unhandled KeyboardInterrupt"
    flag whenever a string exec/eval ends with KeyboardInterrupt -- a Ctrl-C landing in a dataclass's generated
    __init__ while modules load is one -- even when a caller catches it; Py_RunMain then re-raises SIGINT at
    exit for `-m` runs (the console script, run as a file, never checks). The flag is cleared when the next
    string exec starts, so one harmless exec clears it once edgeprof has handled everything."""
    exec("None")


if __name__ == "__main__":
    sys.exit(main())
