"""`edgeprof report`: one self-contained HTML page (or Markdown, or CSV) from stored results."""

from __future__ import annotations

import argparse
import os

from ..errors import ConfigError
from ..files.output import write_output
from ..report.data import gather
from .common import add_db_args, check_writable, open_store
from .ui import err, shown

FORMATS = ("html", "md", "csv")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="an HTML page (or md / csv) comparing boards: latency, energy, Pareto, power, history",
        description="Write a report of a sweep (default: the newest) or of the newest result of each "
                    "configuration matching filters. The HTML is one file with everything inline: it opens "
                    "offline and can be mailed or archived by a CI job.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  edgeprof report --out report.html                 the newest sweep\n"
               "  edgeprof report --sweep sw-20261130 --out nightly.html\n"
               "  edgeprof report --device jetson-nano --model resnet18 --out nano.html   (no sweep needed)\n"
               "  edgeprof report --format md --out report.md       for a wiki page or merge request\n"
               "  edgeprof report --format csv --out cells.csv      one row per cell; its stored prediction in the\n"
               "                                                    predicted_* and prediction_* columns (docs/nightly.md)\n",
    )
    p.add_argument("--out", "-o", metavar="PATH", required=True, help="file to write ('-' for stdout)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="html, md or csv (default: from the --out extension, else html)")
    p.add_argument("--sweep", metavar="ID", help="a sweep id, prefix or `last` (default when no filter is given)")
    p.add_argument("--device", help="only this device (newest result of each configuration)")
    p.add_argument("--model", help="only this model")
    p.add_argument("--history", type=int, default=30, metavar="N", help="results per configuration in the "
                   "history charts (default 30; 0: none)")
    p.add_argument("--title", help="page title")
    add_db_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.out != "-":
        check_writable(args.out, "--out", args.db)
    fmt = args.format
    if fmt is None:
        ext = os.path.splitext(args.out)[1].lower().lstrip(".")
        fmt = {"htm": "html", "markdown": "md"}.get(ext, ext) if ext in ("html", "htm", "md", "markdown", "csv") \
            else "html"
    if args.history < 0:
        raise ConfigError("--history must be >= 0")
    store = open_store(args.db)
    data = gather(store, sweep=args.sweep, device=args.device, model=args.model, history=args.history,
                  title=args.title)
    for message in store.skipped:
        err.print(f"[yellow]warning[/yellow] skipped: {shown(message)}")
    if not data.results:
        raise ConfigError(f"no results match in {store.display_url}",
                          hint="run edgeprof deploy or edgeprof sweep first, or loosen --device / --model")
    if fmt == "html":
        from ..report.html import render_html

        text = render_html(data)
    elif fmt == "md":
        from ..report.tabular import render_markdown

        text = render_markdown(data)
    else:
        from ..report.tabular import render_csv

        text = render_csv(data)
    if args.out == "-":
        print(text, end="")
        return 0
    write_output(args.out, text, "--out")
    err.print(f"{fmt} report of {len(data.results)} results ({shown(data.scope)}) written to {shown(args.out)}")
    return 0
