"""The HTML report: one self-contained file (inline CSS, SVG and a few lines of JS) that opens with no network.

Owns: the page: summary tiles, the board comparison per model (sortable, best value marked), latency
distributions (log-axis ridgelines with p50/p99/max), the performance-per-watt Pareto chart (latency vs energy
per inference, one point per board × runtime × precision × batch × threads, non-dominated front drawn), power
traces with the timed window shaded (idle baseline beside it), latency and energy per frame against the rate of
the server / fixed-rate scenarios per board (where each board saturates), nightly history per metric with
step-detection markers, failed and skipped cells with reasons and stderr, warnings, and each board's environment.
Does not own: choosing results (data.py), statistics (stats.py, compare.py, regress.py).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence

from .. import __version__
from ..compare import METRIC_BY_NAME, Metric, metric_values
from ..records import Power, PowerTrace, Result
from ..regress import Step, detect_step
from ..store import config_key
from ..vocab import fmt_value
from . import svg
from .data import ReportData, accuracy_rows, config_label, log_histogram, model_label, pareto_front, row
from .svg import Chart, Scale, padded, t

CSS = """
:root{--ink:#1f2933;--muted:#616e7c;--line:#e4e7eb;--bg:#f4f6f8;--card:#fff;--accent:#0b5d93;--bad:#c62828;
--warn:#a15c00;--good:#1b7f3b}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:var(--ink);background:var(--bg)}
.hero{background:linear-gradient(120deg,#0a2f4a 0%,#0b5d93 60%,#1479b8 100%);color:#fff;padding:26px 40px 24px}
.hero h1{margin:0 0 4px;font-size:26px;font-weight:650;letter-spacing:-.01em}
.hero .scope{opacity:.85;font-size:13px}
.tiles{display:flex;flex-wrap:wrap;gap:12px;margin-top:18px}
.tile{background:rgba(255,255,255,.12);border:1px solid rgba(255,255,255,.18);border-radius:10px;padding:10px 16px;
min-width:130px}
.tile .v{font-size:24px;font-weight:650;line-height:1.1}.tile .k{font-size:12px;opacity:.85}
.tile.bad .v{color:#ffb4a9}.tile.warn .v{color:#ffe08a}
nav{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid var(--line);padding:8px 40px;
display:flex;gap:18px;flex-wrap:wrap;font-size:13px}
nav a{color:var(--accent);text-decoration:none}nav a:hover{text-decoration:underline}
main{padding:8px 40px 40px;max-width:1500px}
section{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:18px 22px;margin:18px 0;
box-shadow:0 1px 2px rgba(16,24,40,.04)}
h2{margin:0 0 4px;font-size:19px}h3{margin:18px 0 6px;font-size:15px;color:#323f4b}
.lede{margin:0 0 10px;color:var(--muted);font-size:13px;max-width:980px}
table{border-collapse:collapse;width:100%;font-size:13px;font-variant-numeric:tabular-nums}
th,td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th{font-weight:600;color:#3e4c59;background:#f8fafc;position:relative}
th.l,td.l{text-align:left}td.wrap{white-space:normal;max-width:560px}
table.sortable th{cursor:pointer;user-select:none}table.sortable th:hover{background:#eef2f6}
th.asc::after{content:" ▲";font-size:9px}th.desc::after{content:" ▼";font-size:9px}
tr:hover td{background:#fafbfd}
td.best{color:var(--good);font-weight:650}
td.worse{color:var(--bad);font-weight:650}
tr.harness td{color:#9aa5b1}
.bar{display:inline-block;height:8px;border-radius:4px;background:#9ec5e3;vertical-align:middle;margin-right:6px}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px;vertical-align:-1px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}
.badge.failed{background:#fdecea;color:var(--bad)}.badge.skipped{background:#fff4e0;color:var(--warn)}
.badge.ok{background:#e8f5ec;color:var(--good)}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:16px}
.card{border:1px solid var(--line);border-radius:10px;padding:10px 12px}
.card h4{margin:0 0 4px;font-size:13px}
.note{color:var(--muted);font-size:13px}
.notice{background:#f8fafc;border:1px dashed #cbd2d9;border-radius:8px;padding:10px 14px;color:#52606d;font-size:13px}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;color:#3e4c59;margin:4px 0 0}
.legend span{white-space:nowrap}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
svg .tick{font-size:11px;fill:#616e7c}svg .axis{font-size:12px;fill:#3e4c59}
svg .lbl{font-size:11.5px;fill:#1f2933}svg .small{font-size:10.5px;fill:#616e7c}
details{margin:2px 0}summary{cursor:pointer;color:var(--accent);font-size:12px}
pre{background:#0f1b26;color:#d9e2ec;padding:10px 12px;border-radius:8px;overflow:auto;font-size:12px;max-height:260px;
white-space:pre-wrap}
ul.warn{margin:6px 0;padding-left:18px}ul.warn li{margin:3px 0}
code{background:#eef2f6;padding:0 4px;border-radius:4px;font-size:12px}
table.history td{vertical-align:middle;padding:4px 8px}table.history td.cfg{white-space:normal;min-width:200px}td.spark svg{vertical-align:middle;margin-right:6px}
td.spark .sv{display:inline-block;vertical-align:middle;font-size:12px;color:#3e4c59;line-height:1.2}
td.spark .badge{background:#f8fafc;font-size:11px;padding:0 4px}
footer{color:var(--muted);font-size:12px;padding:0 40px 30px}
"""

JS = """
(function(){
  function num(td){var v=td.getAttribute('data-v');if(v===null||v===''){return null;}var f=parseFloat(v);
    return isNaN(f)?v:f;}
  function sortBy(th){
    var table=th.closest('table');var body=table.tBodies[0];var idx=Array.prototype.indexOf.call(th.parentNode.children,th);
    var asc=!th.classList.contains('asc');
    Array.prototype.forEach.call(th.parentNode.children,function(h){h.classList.remove('asc','desc');});
    th.classList.add(asc?'asc':'desc');
    var rows=Array.prototype.slice.call(body.rows);
    rows.sort(function(a,b){var x=num(a.cells[idx]),y=num(b.cells[idx]);
      if(x===null&&y===null){return 0;}if(x===null){return 1;}if(y===null){return -1;}
      if(typeof x==='number'&&typeof y==='number'){return asc?x-y:y-x;}
      return asc?String(x).localeCompare(String(y)):String(y).localeCompare(String(x));});
    rows.forEach(function(r){body.appendChild(r);});
  }
  var ths=document.querySelectorAll('table.sortable th');
  for(var i=0;i<ths.length;i++){ths[i].addEventListener('click',function(){sortBy(this);});}
  document.body.setAttribute('data-ready','1');
})();
"""

ERROR_HOOK = ("<script>window.addEventListener('error',function(e){var b=document.body;"
              "if(b){b.setAttribute('data-errors',(b.getAttribute('data-errors')||'')+e.message+';');}});</script>")

MAX_TRACES = 12
HISTORY_METRICS = ("p50_ms", "p99_ms", "throughput_ips", "mj_per_inference", "peak_rss_mb")


def _f(v: float | None, unit: str = "") -> str:
    return fmt_value(v, unit) if v is not None else "–"


def _num_cell(v: float | None, *, best: bool = False, bar: float | None = None, text: str | None = None) -> str:
    cls = ' class="best"' if best else ""
    shown = text if text is not None else _f(v)
    barhtml = f'<span class="bar" style="width:{max(2, int(bar * 70))}px"></span>' if bar is not None else ""
    dv = "" if v is None else f"{v:.6g}"
    return f'<td data-v="{dv}"{cls}>{barhtml}{t(shown)}</td>'


def _measured(results: Sequence[Result]) -> list[Result]:
    """Results of real runtimes: the null runtime measures the harness itself, so charts about boards leave it
    out (unless it is all there is)."""
    real = [r for r in results if r.runtime != "null"]
    return real or list(results)


class _Colors:
    def __init__(self, names: Sequence[str]) -> None:
        self.map = {n: svg.color(i) for i, n in enumerate(dict.fromkeys(names))}

    def __call__(self, name: str) -> str:
        if name not in self.map:
            self.map[name] = svg.color(len(self.map))
        return self.map[name]


def render_html(data: ReportData) -> str:
    dev_color = _Colors(data.devices())
    sections = [
        ("compare", "Board comparison", _comparison(data, dev_color)),
        ("dist", "Latency distribution", _distributions(data, dev_color)),
        ("pareto", "Performance per watt", _pareto(data, dev_color)),
        ("accuracy", "Accuracy", _accuracy(data, dev_color)),
        ("power", "Power traces", _power(data, dev_color)),
        ("rates", "Latency and energy per frame against rate", _rates(data)),
        ("history", "Nightly history", _history(data)),
        ("cells", "Failed and skipped cells", _cells(data)),
        ("warnings", "Warnings", _warnings(data)),
        ("env", "Environment", _environment(data)),
    ]
    nav = "".join(f'<a href="#{sid}">{t(name)}</a>' for sid, name, _ in sections)
    body = "".join(f'<section id="{sid}"><h2>{t(name)}</h2>{html}</section>' for sid, name, html in sections)
    return (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<link rel=\"icon\" href=\"data:,\">"
        f"<title>{t(data.title)}</title><style>{CSS}</style>{ERROR_HOOK}</head><body>"
        f"{_hero(data)}<nav>{nav}</nav><main>{body}</main>"
        f"<footer>Generated by edgeprof {t(__version__)} on {t(data.generated_at)} from {t(data.db)}. "
        "Latency is single-stream (MLPerf LoadGen rule: min duration and min queries both met); percentiles "
        "interpolate linearly between order statistics of the raw samples; nothing is clipped. Energy uses the "
        "board's own sensor over exactly the timed window (idle baseline shown, not subtracted). Server and "
        "fixed-rate latency is counted from each query's scheduled time (docs/scenarios.md).</footer>"
        f"<script>{JS}</script></body></html>"
    )


# -- header -------------------------------------------------------------------------------------------------


def _hero(data: ReportData) -> str:
    ok, bad = data.ok, data.not_ok
    failed = sum(1 for r in bad if r.status == "failed")
    skipped = sum(1 for r in bad if r.status == "skipped")
    tiles = [(str(len(ok)), "configurations measured", ""), (str(len(data.devices())), "boards", ""),
             (str(len(data.models())), "models", "")]
    tiles.append((str(failed), "failed cells", "bad" if failed else ""))
    tiles.append((str(skipped), "skipped cells", "warn" if skipped else ""))
    energy = [(v, r) for r in _measured(ok) if (v := metric_values(r)["mj_per_inference"]) is not None]
    if energy:
        best_v, best_r = min(energy, key=lambda x: x[0])
        tiles.append((_f(best_v, "mJ"), f"least energy / inference: {model_label(best_r)} on {best_r.device}", ""))
    tile_html = "".join(f'<div class="tile {cls}"><div class="v">{t(v)}</div><div class="k">{t(k)}</div></div>'
                        for v, k, cls in tiles)
    return (f'<header class="hero"><h1>{t(data.title)}</h1><div class="scope">{t(data.scope)} · generated '
            f'{t(data.generated_at)}</div><div class="tiles">{tile_html}</div></header>')


# -- comparison ---------------------------------------------------------------------------------------------


_COLS: tuple[tuple[str, str, str], ...] = (
    ("p50_ms", "p50 ms", "lower"), ("p99_ms", "p99 ms", "lower"), ("throughput_ips", "inf/s", "higher"),
    ("peak_rss_mb", "peak MB", "lower"), ("mean_w", "W", "lower"), ("mj_per_inference", "mJ/inf", "lower"),
    ("inferences_per_joule", "inf/J", "higher"), ("gflops_per_watt", "GFLOPS/W", "higher"),
)


def _by_model(results: Sequence[Result]) -> dict[str, list[Result]]:
    out: dict[str, list[Result]] = {}
    for r in results:
        out.setdefault(model_label(r), []).append(r)
    return out


def _comparison(data: ReportData, dev_color: _Colors) -> str:
    if not data.ok:
        return '<p class="notice">No successful measurements in this selection.</p>'
    parts = ['<p class="lede">One row per configuration. Best value of each column within a model in '
             '<b style="color:#1b7f3b">green</b>; click a header to sort. W is the mean over the timed window '
             'from the board\'s own sensor (see Environment for what the rail covers).</p>']
    for model, rs in _by_model(data.ok).items():
        rows = [row(r) for r in rs]
        best: dict[str, float] = {}
        for key, _, better in _COLS:  # the null runtime measures the harness, not a board: never "best"
            vals = [x[key] for x in rows if x[key] is not None and x["runtime"] != "null"]
            if len(vals) > 1:
                best[key] = min(vals) if better == "lower" else max(vals)
        p50max = max((x["p50_ms"] or 0) for x in rows) or 1.0
        names = ["board", "runtime", "precision", "batch", "threads"] + [c[1] for c in _COLS] + ["CV %", "n"]
        head = "".join(("<th class=\"l\">" if i < 5 else "<th>") + t(h) + "</th>" for i, h in enumerate(names))
        body = []
        for x in sorted(rows, key=lambda x: (x["runtime"] == "null", x["p50_ms"] or math.inf)):
            cells = [f'<td class="l" data-v="{t(x["device"])}"><span class="dot" style="background:'
                     f'{dev_color(x["device"])}"></span>{t(x["device"])}</td>',
                     f'<td class="l" data-v="{t(x["runtime"])}">{t(x["runtime"])}</td>',
                     f'<td class="l" data-v="{t(x["precision"])}">{t(x["precision"])}</td>',
                     f'<td class="l" data-v="{x["batch"]}">{x["batch"]}</td>',
                     f'<td class="l" data-v="{x["threads"] or 0}">{x["threads"] or "auto"}</td>']
            for key, _, _ in _COLS:
                v = x[key]
                cells.append(_num_cell(v, best=key in best and v == best[key],
                                       bar=(v / p50max) if key == "p50_ms" and v is not None else None))
            cv = x["cv"]
            cells.append(_num_cell(cv * 100 if cv is not None else None,
                                   text=f"{cv * 100:.1f}" if cv is not None else None))
            cells.append(_num_cell(x["n"], text=str(x["n"]) if x["n"] is not None else None))
            harness = ' class="harness" title="the null runtime runs no model: it measures the harness itself"'
            body.append(f"<tr{harness if x['runtime'] == 'null' else ''}>" + "".join(cells) + "</tr>")
        parts.append(f"<h3>{t(model)}</h3><table class=\"sortable\"><thead><tr>{head}</tr></thead>"
                     f"<tbody>{''.join(body)}</tbody></table>")
    return "".join(parts)


# -- accuracy ------------------------------------------------------------------------------------------------


def _accuracy(data: ReportData, dev_color: _Colors) -> str:
    rows = accuracy_rows(data.ok)
    if not rows:
        return ('<p class="note">No accuracy pass in this selection: give <code>--accuracy DATA.npz</code> '
                '(inputs and labels or expected outputs) to score the model next to its speed.</p>')
    names = ["model", "data", "board", "runtime", "precision", "top-1", "top-5", "Δ top-1 (points)", "MAE",
             "Δ MAE", "p50 ms", "mJ/inf"]
    head = "".join(("<th class=\"l\">" if i < 5 else "<th>") + t(h) + "</th>" for i, h in enumerate(names))
    body = []
    for a in rows:
        r = a.result
        x = row(r)
        worse = ' class="worse"' if a.vs_fp32_top1 is not None and a.vs_fp32_top1 <= -0.5 else ""
        body.append(
            f'<tr class="acc-row" data-precision="{t(r.precision)}">'
            f'<td class="l">{t(a.model)}</td><td class="l">{t(a.data)}</td>'
            f'<td class="l" data-v="{t(r.device)}"><span class="dot" style="background:{dev_color(r.device)}">'
            f'</span>{t(r.device)}</td><td class="l">{t(r.runtime)}</td><td class="l">{t(r.precision)}</td>'
            + _num_cell(a.top1, text=_f(a.top1, "%")) + _num_cell(a.top5, text=_f(a.top5, "%"))
            + (f'<td data-v="{a.vs_fp32_top1:.6g}"{worse}>{a.vs_fp32_top1:+.1f}</td>'
               if a.vs_fp32_top1 is not None else '<td data-v="">–</td>')
            + _num_cell(a.mae) + _num_cell(a.vs_fp32_mae, text=f"{a.vs_fp32_mae:+.3g}"
                                           if a.vs_fp32_mae is not None else None)
            + _num_cell(x["p50_ms"]) + _num_cell(x["mj_per_inference"]) + "</tr>")
    return ('<p class="lede">Every sample of the data through the artifact that was measured, on the board, '
            'after the timed loop. Δ is the change from the fp32 run of the same configuration on the same data '
            '(points of top-1; a drop of half a point or more in <b style="color:#c62828">red</b>).</p>'
            f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')


# -- latency distributions ----------------------------------------------------------------------------------


def _distributions(data: ReportData, dev_color: _Colors) -> str:
    groups = _by_model([r for r in _measured(data.ok) if r.samples_ms])
    if not groups:
        return '<p class="notice">No raw latency samples in this selection.</p>'
    parts = ['<p class="lede">Every raw sample of each configuration on a log axis (density per bin). '
             'Ticks: <b>p50</b> (dark), <b style="color:#c62828">p99</b> (red); the dot is the slowest query. '
             'Nothing is clipped: the tail is the point.</p>']
    for model, rs in groups.items():
        rs = sorted(rs, key=lambda r: r.latency_ms.p50 if r.latency_ms else math.inf)
        lo = min(min(r.samples_ms) for r in rs)
        hi = max(max(r.samples_ms) for r in rs)
        lo, hi = padded(max(lo, 1e-6), max(hi, lo * 1.01), log=True, frac=0.03)
        row_h, left = 34, 290
        ch = Chart(1000, 40 + row_h * len(rs), left=left, right=20, top=8, bottom=34,
                   label=f"latency distribution of {model}")
        xs = Scale(lo, hi, ch.x0, ch.x1, log=True)
        for v in xs.ticks():
            x = xs(v)
            ch.add(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{ch.y1}" y2="{ch.y0}" stroke="{svg.GRID}"/>')
            ch.add(svg.text(x, ch.y0 + 16, svg.fmt_num(v), "tick", "middle"))
        ch.add(svg.text((ch.x0 + ch.x1) / 2, ch.h - 4, "latency per query (ms, log scale)", "axis", "middle"))
        for i, r in enumerate(rs):
            top = ch.y1 + i * row_h
            base = top + row_h - 6
            edges, dens = log_histogram(r.samples_ms, 60, lo, hi)
            pts: list[tuple[float, float]] = [(xs(edges[0]), float(base))]
            for j, d in enumerate(dens):
                xm = xs(math.sqrt(edges[j] * edges[j + 1]))
                pts.append((xm, base - d * (row_h - 10)))
            pts.append((xs(edges[-1]), base))
            path = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in pts) + " Z"
            c = dev_color(r.device)
            lat = r.latency_ms
            if lat is None:  # every result with samples has its statistics
                continue
            tip = (f"{config_label(r)}\np50 {_f(lat.p50, 'ms')} · p90 {_f(lat.p90, 'ms')} · "
                   f"p99 {_f(lat.p99, 'ms')} · max {_f(lat.max, 'ms')} · n {lat.n}")
            ch.add(f'<g><path d="{path}" fill="{c}" fill-opacity="0.28" stroke="{c}" stroke-width="1.2">'
                   f'{svg.title(tip)}</path>')
            for key, pv, colr, w in (("p50", lat.p50, svg.INK, 2.4), ("p99", lat.p99, "#c62828", 2.0)):
                if pv:
                    x = xs(pv)
                    ch.add(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{base - row_h + 12:.1f}" y2="{base + 2:.1f}" '
                           f'stroke="{colr}" stroke-width="{w}">{svg.title(key + " " + _f(pv, "ms"))}</line>')
            if lat.max:
                ch.add(svg.circle(xs(lat.max), base - 3, 2.6, "#c62828", f"max {_f(lat.max, 'ms')}"))
            ch.add(f'<circle cx="{12}" cy="{base - 9:.1f}" r="4.5" fill="{c}"/>')
            ch.add(svg.text(22, base - 5, config_label(r)))
            ch.add(f'<line x1="{ch.x0}" x2="{ch.x1}" y1="{base + 0.5:.1f}" y2="{base + 0.5:.1f}" stroke="{svg.GRID}"/>'
                   "</g>")
        parts.append(f"<h3>{t(model)}</h3>{ch}")
    return "".join(parts)


# -- Pareto -------------------------------------------------------------------------------------------------


def _null_reasons(results: Sequence[Result], key: str) -> list[str]:
    reasons: dict[str, list[str]] = {}
    for r in results:
        why = getattr(r.null_reasons, key)
        if why:
            reasons.setdefault(str(why), []).append(r.device)
    return [f"{', '.join(sorted(set(devs)))}: {why}" for why, devs in reasons.items()]


def _pareto(data: ReportData, dev_color: _Colors) -> str:
    parts = ['<p class="lede">Latency (p50) against energy per inference, one point per board × runtime × '
             'precision × batch × threads. Down and left is better; the dashed line joins the configurations '
             'no other one beats on both.</p>']
    cards = []
    for model, rs in _by_model(_measured(data.ok)).items():
        pts = []
        for r in rs:
            v = metric_values(r)
            if v["p50_ms"] and v["mj_per_inference"]:
                pts.append((v["p50_ms"], v["mj_per_inference"], r))
        if not pts:
            continue
        xs_v = [p[0] for p in pts]
        ys_v = [p[1] for p in pts]
        xlog = max(xs_v) / min(xs_v) > 8
        ylog = max(ys_v) / min(ys_v) > 8
        ch = Chart(520, 330, left=62, right=20, top=14, bottom=44, label=f"Pareto chart for {model}")
        xlo, xhi = padded(min(xs_v), max(xs_v), xlog, 0.12)
        ylo, yhi = padded(min(ys_v), max(ys_v), ylog, 0.12)
        if not xlog:
            xlo = max(0.0, xlo)
        if not ylog:
            ylo = max(0.0, ylo)
        xs = Scale(xlo, xhi, ch.x0, ch.x1, xlog)
        ys = Scale(ylo, yhi, ch.y0, ch.y1, ylog)
        ch.axes(xs, ys, xlabel="p50 latency (ms)", ylabel="energy per inference (mJ)")
        front = pareto_front([(p[0], p[1]) for p in pts])
        if len(front) > 1:
            stair: list[tuple[float, float]] = []
            for k, i in enumerate(front):
                x, y = xs(pts[i][0]), ys(pts[i][1])
                if k:
                    stair.append((x, stair[-1][1]))
                stair.append((x, y))
            ch.add(svg.polyline(stair, "#52606d", 1.4, dash="5 4", tip="Pareto front"))
        placed: list[tuple[float, float, float]] = []  # (x0, x1, y) of labels drawn so far
        for i, (x, y, r) in enumerate(pts):
            v = metric_values(r)
            tip = (f"{config_label(r)}\np50 {_f(x, 'ms')} · {_f(y, 'mJ')}/inference · {_f(v['mean_w'], 'W')} · "
                   f"{_f(v['inferences_per_joule'], 'inf/J')}")
            on_front = i in front
            ch.add(svg.circle(xs(x), ys(y), 6.5 if on_front else 5, dev_color(r.device), tip,
                              stroke=svg.INK if on_front else "#fff"))
            label = f"{r.device} {r.runtime} {r.precision} b{r.batch}" + (f" t{r.threads}" if r.threads else "")
            right = xs(x) > ch.x0 + 0.62 * (ch.x1 - ch.x0)
            width = 5.6 * len(label)
            lx0 = xs(x) - 9 - width if right else xs(x) + 9
            ly = ys(y) - 8
            for dy in (0, 13, -13, 26, -26, 39, -39, 52):  # first free slot near the point
                if all(abs(ly + dy - py) >= 12 or lx0 + width < px0 or lx0 > px1 for px0, px1, py in placed):
                    ly += dy
                    break
            placed.append((lx0, lx0 + width, ly))
            ch.add(svg.text(lx0, ly, label, "small"))
        cards.append(f'<div class="card"><h4>{t(model)}</h4>{ch}</div>')
    if not cards:
        reasons = _null_reasons(data.ok, "power")
        items = "".join(f"<li>{t(x)}</li>" for x in reasons[:8])
        parts.append('<div class="notice">No energy per inference in this selection, so no Pareto chart. '
                     'Give the boards a power source in devices.yaml (<code>power: {source: auto}</code> finds '
                     'INA3221, Pi 5 PMIC, hwmon, NVML or RAPL; <code>source: command</code> reads an external '
                     f'meter).<ul class="warn">{items}</ul></div>')
    else:
        parts.append(f'<div class="grid">{"".join(cards)}</div>')
    legend = "".join(f'<span><span class="dot" style="background:{c}"></span>{t(n)}</span>'
                     for n, c in dev_color.map.items())
    parts.append(f'<div class="legend">{legend}</div>')
    return "".join(parts)


# -- rate curves (load scenarios) -----------------------------------------------------------------------------


def _rate_points(rs: Sequence[Result]) -> dict[str, list[Result]]:
    """Scheduled-scenario results of one board and model by series (runtime, precision, batch, threads and
    scenario), each sorted by rate."""
    out: dict[str, list[Result]] = {}
    for r in rs:
        key = f"{r.runtime} {r.precision} b{r.batch}" + (f" t{r.threads}" if r.threads else "") + f" · {r.scenario.name}"
        out.setdefault(key, []).append(r)
    return {k: sorted(v, key=lambda r: r.scenario.rate_qps or 0.0) for k, v in out.items()}


def _rate_chart(title: str, series: dict[str, list[Result]], value: str, unit: str, ylabel: str,
                capacity: dict[str, float], colors: _Colors) -> str | None:
    pts = [(r.scenario.rate_qps, metric_values(r)[value], r) for rs in series.values() for r in rs]
    ys_v = [y for _, y, _ in pts if y is not None]
    rates = [x for x, _, _ in pts if x is not None]
    if not ys_v or not rates:
        return None
    shown_cap = {n: c for n, c in capacity.items() if c <= 2 * max(rates)}  # far beyond: named, not drawn
    xs_v = rates + list(shown_cap.values())
    scale = 1000.0 if unit == "mJ" else 1.0  # j_per_frame is in J: shown in mJ
    ys_v = [y * scale for y in ys_v]
    ylog = min(ys_v) > 0 and max(ys_v) / min(ys_v) > 20
    ch = Chart(520, 280, left=62, right=20, top=14, bottom=44, label=title)
    xlo, xhi = padded(0.0, max(xs_v), False, 0.08)
    ylo, yhi = padded(min(ys_v), max(ys_v), ylog, 0.12)
    xs = Scale(max(0.0, xlo), xhi, ch.x0, ch.x1)
    ys = Scale(ylo if ylog else max(0.0, ylo), yhi, ch.y0, ch.y1, ylog)
    ch.axes(xs, ys, xlabel="rate (queries/s)", ylabel=ylabel)
    far = [f"{name}: single-stream {_f(cap, 'q/s')} →" for name, cap in capacity.items() if name not in shown_cap]
    for i, note in enumerate(far):
        ch.add(svg.text(ch.x1, ch.y1 + 10 + 12 * i, note, "small", "end"))
    for name, cap in shown_cap.items():
        x = xs(cap)
        tip = f"{name}: single-stream throughput {_f(cap, 'q/s')} (the rate it saturates at)"
        ch.add(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{ch.y1}" y2="{ch.y0}" stroke="{colors(name)}" '
               f'stroke-dasharray="3 4" stroke-width="1.2" class="capacity">{svg.title(tip)}</line>')
    for name, rs in series.items():
        c = colors(name)
        line = []
        for r in rs:
            v = metric_values(r)[value]
            if v is None or r.scenario.rate_qps is None:
                continue
            x, y = xs(r.scenario.rate_qps), ys(v * scale)
            line.append((x, y))
            sc = r.scenario
            verdict = "" if sc.valid is None else (" · VALID" if sc.valid else " · INVALID")
            tip = (f"{name} at {sc.rate_qps:g}/s: {_f(v * scale, unit)}{verdict}"
                   + (f" · misses {sc.misses} of {sc.queries}" if sc.misses is not None else "")
                   + f" · run {r.run_id}")
            ch.add(f'<g class="rate-point" data-rate="{sc.rate_qps:g}" data-v="{v * scale:.6g}" '
                   f'data-valid="{"" if sc.valid is None else int(sc.valid)}">'
                   + svg.circle(x, y, 4.5, c if sc.valid is not False else "#fff", tip, stroke=c) + "</g>")
        ch.add(svg.polyline(line, c, 1.6, tip=name))
    return str(ch)


def _rates(data: ReportData) -> str:
    scheduled = [r for r in data.ok if r.scenario.name in ("server", "fixed-rate") and r.scenario.rate_qps]
    if not scheduled:
        return ('<p class="lede">No server or fixed-rate runs in this selection. Run <code>edgeprof deploy '
                '--scenario fixed-rate --rate 30</code>, or a sweep with <code>scenarios: [single-stream, '
                'fixed-rate]</code> and <code>rates: [10, 30, 60]</code> (docs/scenarios.md).</p>')
    parts = ['<p class="lede">For each board, p99 latency (counted from each query\'s scheduled time) and energy '
             'per frame (window energy ÷ frames, idle gaps included) at each rate. A hollow point is INVALID '
             '(p99 over the latency bound, or for fixed-rate over the period); the dashed line is the '
             'single-stream throughput of the same configuration, where the board saturates.</p>']
    colors = _Colors([])
    cards = []
    for (device, model), rs in sorted(_group(scheduled).items()):
        series = _rate_points(rs)
        capacity: dict[str, float] = {}
        for r in data.ok:
            if (r.device, model_label(r), r.scenario.name) == (device, model, "single-stream") and r.throughput_ips:
                base = f"{r.runtime} {r.precision} b{r.batch}" + (f" t{r.threads}" if r.threads else "")
                for name in series:
                    if name.startswith(base + " · "):
                        capacity[name] = r.throughput_ips
        charts = [c for c in (
            _rate_chart(f"p99 latency against rate, {model} on {device}", series, "p99_ms", "ms",
                        "p99 latency (ms)", capacity, colors),
            _rate_chart(f"energy per frame against rate, {model} on {device}", series, "j_per_frame", "mJ",
                        "energy per frame (mJ)", capacity, colors)) if c]
        if len(charts) < 2:
            charts.append('<p class="small">No energy per frame: this board has no power sensor '
                          '(devices.yaml <code>power:</code>).</p>')
        cards.append(f'<div class="card rate-card" data-device="{t(device)}"><h4>{t(model)} on {t(device)}</h4>'
                     + "".join(charts) + "</div>")
    parts.append(f'<div class="grid">{"".join(cards)}</div>')
    legend = "".join(f'<span><span class="dot" style="background:{c}"></span>{t(n)}</span>'
                     for n, c in colors.map.items())
    parts.append(f'<div class="legend">{legend}</div>')
    return "".join(parts)


def _group(rs: Sequence[Result]) -> dict[tuple[str, str], list[Result]]:
    out: dict[tuple[str, str], list[Result]] = {}
    for r in rs:
        out.setdefault((r.device, model_label(r)), []).append(r)
    return out


# -- power traces -------------------------------------------------------------------------------------------


def _power(data: ReportData, dev_color: _Colors) -> str:
    traced = [r for r in _measured(data.ok) if r.power and r.power.trace and r.power.trace.t_s]
    if not traced:
        return ('<p class="notice">No power traces in this selection (traces come with a power source; see '
                'Performance per watt).</p>')
    parts = ['<p class="lede">Board power over the measurement. The <b style="color:#0b5d93">shaded band</b> is '
             'the timed window energy is integrated over; on its left (own time scale), the idle baseline '
             'measured before the model was loaded (shown, not subtracted). Dashed: mean over the window; '
             'dotted: idle.</p>']
    cards = []
    for r in traced[:MAX_TRACES]:
        p = r.power or Power()
        trace = p.trace or PowerTrace()
        ts, ws = [float(x) for x in trace.t_s], [float(x) for x in trace.w]
        window = float(p.window_s or (ts[-1] if ts else 1.0)) or 1.0
        idle = p.idle_trace or PowerTrace()
        its, iws = [float(x) for x in idle.t_s], [float(x) for x in idle.w]
        ch = Chart(520, 230, left=52, right=14, top=12, bottom=40, label=f"power trace of {config_label(r)}")
        # a broken time axis: the idle baseline on the left quarter, the timed window on the rest, each on its
        # own scale (an idle period of 3 s next to a 0.1 s window would otherwise squash the window)
        split = ch.x0 + (ch.x1 - ch.x0) * (0.22 if its else 0.0)
        wx0 = split + (18 if its else 6)
        xs = Scale(0.0, window, wx0, ch.x1 - 4)
        allw = ws + iws
        lo_w, hi_w = padded(min(allw), max(allw), frac=0.15)
        ys = Scale(max(0.0, lo_w), hi_w, ch.y0, ch.y1)
        ch.add(svg.rect(xs(0), ch.y1, xs(window) - xs(0), ch.y0 - ch.y1, "#0b5d93", 0.09,
                        f"timed window: {_f(window, 's')}, {_f(p.energy_j, 'J')}"))
        ch.axes(xs, ys, xlabel="time in the timed window (s)", ylabel="W", xticks=svg.nice_ticks(0, window, 4))
        c = dev_color(r.device)
        if its:
            ixs = Scale(its[0], its[-1] if its[-1] > its[0] else its[0] + 1, ch.x0 + 4, split)
            ch.add(svg.polyline([(ixs(x), ys(w)) for x, w in zip(its, iws, strict=False)], "#7b8794", 1.4,
                                tip=f"idle baseline {_f(p.idle_w, 'W')} over {_f(its[-1] - its[0], 's')}, "
                                    "before the model was loaded"))
            ch.add(svg.text((ch.x0 + split) / 2, ch.y1 + 11, "idle", "small", "middle"))
            ch.add(svg.text((ch.x0 + split) / 2, ch.y0 + 17, _f(its[-1] - its[0], "s"), "tick", "middle"))
            mid = (split + wx0) / 2
            ch.add(f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{ch.y1}" y2="{ch.y0}" stroke="#9aa5b1" '
                   f'stroke-dasharray="2 3">{svg.title("load and warm-up happen here (not to scale)")}</line>')
            if p.idle_w:
                y = ys(p.idle_w)
                ch.add(svg.polyline([(ch.x0 + 4, y), (xs(window), y)], "#7b8794", 0.9, dash="2 3",
                                    tip=f"idle {_f(p.idle_w, 'W')}"))
        ch.add(svg.polyline([(xs(x), ys(w)) for x, w in zip(ts, ws, strict=False)], c, 1.8, tip="timed window"))
        if p.mean_w:
            y = ys(p.mean_w)
            ch.add(svg.polyline([(xs(0), y), (xs(window), y)], svg.INK, 1.1, dash="4 3",
                                tip=f"mean {_f(p.mean_w, 'W')}"))
        covers = p.covers or ""
        src = str(p.source or "")
        if p.rail and p.rail != src:
            src += f" {p.rail}"
        if p.rate_hz:
            src += f" @ {_f(p.rate_hz, 'Hz')}"
        sub = (f"{_f(p.mean_w, 'W')} mean · idle {_f(p.idle_w, 'W')} · "
               f"{_f(p.energy_mj_per_inference, 'mJ')}/inf · {src}")
        cards.append(f'<div class="card"><h4><span class="dot" style="background:{c}"></span>'
                     f'{t(config_label(r, with_model=True))}</h4><div class="note">{t(sub)}</div>{ch}'
                     f'<div class="note">{t(covers)}</div></div>')
    parts.append(f'<div class="grid">{"".join(cards)}</div>')
    if len(traced) > MAX_TRACES:
        parts.append(f'<p class="note">{len(traced) - MAX_TRACES} more traces not shown.</p>')
    return "".join(parts)


# -- history ------------------------------------------------------------------------------------------------


def _ts(created_at: str) -> float:
    try:
        return _dt.datetime.fromisoformat(created_at).timestamp()
    except ValueError:
        return 0.0


_STEP_COLOR = {"regressed": "#c62828", "suspect": "#e69f00", "improved": "#1b7f3b"}
MAX_BIG_HISTORY = 8  # above this many configurations, one chart per metric becomes spaghetti: sparklines only


def _step_of(values: Sequence[float], metric: Metric) -> Step:
    return detect_step(list(values), better=metric.better, min_effect=0.05 * metric.effect_scale)


def _sparkline(pts: Sequence[tuple[float, float, Result]], metric: Metric, name: str) -> str:
    """A 150×30 line of one configuration's history for one metric, with its step marker and the last value."""
    w, h, pad = 112, 28, 4
    vals = [v for _, v, _ in pts]
    mid = sorted(vals)[len(vals) // 2]
    # at least ±10 % of the median in view, so run-to-run noise of a few percent looks flat
    lo, hi = min(min(vals), mid * 0.9), max(max(vals), mid * 1.1)
    if hi <= lo:
        lo, hi = lo - 1.0, hi + 1.0
    xs = Scale(0, max(1, len(pts) - 1), pad, w - pad)
    ys = Scale(lo, hi, h - pad, pad)
    step = _step_of(vals, metric)
    colr = _STEP_COLOR.get(step.status, "#52606d") if step.start is not None else "#52606d"
    parts = [svg.polyline([(xs(i), ys(v)) for i, v in enumerate(vals)], "#52606d", 1.3, tip=name)]
    for i, (_, v, r) in enumerate(pts):
        parts.append(svg.circle(xs(i), ys(v), 1.8, "#52606d", f"{r.created_at} · {metric.fmt(v)} · run {r.run_id}",
                                stroke="none"))
    if step.start is not None and step.status in _STEP_COLOR:
        seg = [(xs(i), ys(v)) for i, v in enumerate(vals) if i >= step.start]
        parts.append(svg.polyline(seg if len(seg) > 1 else seg * 2, colr, 2.2,
                                  tip=f"{step.status}: {metric.fmt(step.before)} → {metric.fmt(step.after)} "
                                      f"({(step.change or 0) * 100:+.1f} %)"))
    parts.append(svg.circle(xs(len(vals) - 1), ys(vals[-1]), 2.6, colr, f"newest: {metric.fmt(vals[-1])}"))
    spark = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
             f'role="img" aria-label="{t(metric.label)} history">' + "".join(parts) + "</svg>")
    change = ""
    if step.start is not None and step.status in _STEP_COLOR:
        change = (f'<br><span class="badge" style="color:{colr}">{step.status} '
                  f'{(step.change or 0) * 100:+.0f} %</span>')
    return (f'<td class="l spark">{spark}<span class="sv">{t(metric.fmt(vals[-1]))}{change}</span></td>')


def _history(data: ReportData) -> str:
    series: list[tuple[str, list[Result]]] = []
    for r in _measured(data.ok):
        hist = data.histories.get(config_key(r)) or []
        if len(hist) >= 2:
            series.append((config_label(r, with_model=True), hist))
    if not series:
        return ('<p class="notice">History appears once a configuration has been measured more than once '
                '(e.g. the second night of a nightly sweep).</p>')
    parts = ['<p class="lede">Each configuration\'s last results, oldest to newest. Colours come from the '
             'same step detection as <code>edgeprof check --history</code>: <b style="color:#c62828">'
             'regression</b> (held for 2+ results), <b style="color:#e69f00">suspect</b> (one result only, '
             'not an alarm), <b style="color:#1b7f3b">improvement</b>. Each sparkline has its own scale (at '
             'least ±10 % around its median); hover a point for its run.</p>']
    metrics = [METRIC_BY_NAME[m] for m in HISTORY_METRICS]
    rows = []
    for name, hist in series:
        cells = []
        for metric in metrics:
            pts = [(_ts(h.created_at), v, h) for h in hist if (v := metric_values(h)[metric.name]) is not None]
            cells.append(_sparkline(pts, metric, name) if len(pts) >= 2 else '<td class="l note">–</td>')
        rows.append(f'<tr><td class="l cfg">{t(name)}<div class="note">{len(hist)} results</div></td>'
                    + "".join(cells) + "</tr>")
    head = '<th class="l">configuration</th>' + "".join(f'<th class="l">{t(m.label)}</th>' for m in metrics)
    parts.append(f'<div style="overflow-x:auto"><table class="history"><thead><tr>{head}</tr></thead>'
                 f'<tbody>{"".join(rows)}</tbody></table></div>')
    if len(series) <= MAX_BIG_HISTORY:
        parts.append(_history_charts(series))
    return "".join(parts)


def _history_charts(series: list[tuple[str, list[Result]]]) -> str:
    colors = _Colors([name for name, _ in series])
    cards = []
    for mname in HISTORY_METRICS:
        metric = METRIC_BY_NAME[mname]
        lines: list[tuple[str, list[tuple[float, float, Result]]]] = []
        for name, hist in series:
            pts = [(_ts(h.created_at), v, h) for h in hist if (v := metric_values(h)[mname]) is not None]
            if len(pts) >= 2:
                lines.append((name, pts))
        allx = [x for _, pts in lines for x, _, _ in pts]
        ally = [v for _, pts in lines for _, v, _ in pts if v > 0]
        if not lines or not ally:
            continue
        ylog = max(ally) / min(ally) > 4
        ch = Chart(700, 260, left=62, right=16, top=12, bottom=42, label=f"history of {metric.label}")
        xlo, xhi = padded(min(allx), max(allx), frac=0.04)
        ylo, yhi = padded(min(ally), max(ally), ylog, 0.1)
        xs = Scale(xlo, xhi, ch.x0, ch.x1)
        ys = Scale(ylo if ylog else max(0.0, ylo), yhi, ch.y0, ch.y1, ylog)
        fmt = "%H:%M:%S" if max(allx) - min(allx) < 2 * 86400 else "%m-%d"

        def when(v: float, f: str = fmt) -> str:
            return _dt.datetime.fromtimestamp(v).strftime(f)

        ch.axes(xs, ys, xlabel="when measured (local time)", ylabel=f"{metric.label} ({metric.unit})",
                xticks=svg.nice_ticks(xlo, xhi, 5), xfmt=when)
        for name, pts in lines:
            c = colors(name)
            ch.add(svg.polyline([(xs(x), ys(v)) for x, v, _ in pts], c, 1.6, tip=name))
            for x, v, h in pts:
                ch.add(svg.circle(xs(x), ys(v), 2.8, c, f"{name}\n{h.created_at} · {metric.fmt(v)} · run {h.run_id}"))
            step = _step_of([v for _, v, _ in pts], metric)
            if step.start is not None and step.status in _STEP_COLOR:
                x, v, h = pts[step.start]
                tip = (f"{step.status}: {name}\n{metric.name} {metric.fmt(step.before)} → {metric.fmt(step.after)} "
                       f"({(step.change or 0) * 100:+.1f} %) since {h.created_at}")
                bad_up = (step.status != "improved") == (metric.better == "lower")
                ch.add(svg.triangle(xs(x), ys(v) + (-11 if bad_up else 11), 6, _STEP_COLOR[step.status], tip,
                                    up=bad_up))
        cards.append(f'<div class="card"><h4>{t(metric.label)}</h4>{ch}</div>')
    legend = "".join(f'<span><span class="dot" style="background:{c}"></span>{t(n)}</span>'
                     for n, c in colors.map.items())
    return f'<div class="grid" style="margin-top:14px">{"".join(cards)}</div><div class="legend">{legend}</div>'


# -- failed / skipped, warnings, environment ----------------------------------------------------------------


def _cells(data: ReportData) -> str:
    rows = data.not_ok
    if not rows:
        return '<p class="note">Every cell in this selection completed.</p>'
    body = []
    for r in sorted(rows, key=lambda r: (r.status, r.device)):
        attempts = r.sweep.attempts if r.sweep and r.sweep.attempts is not None else ""
        tail = r.stderr_tail
        det = f"<details><summary>stderr tail</summary><pre>{t(tail)}</pre></details>" if tail else ""
        body.append(f'<tr><td class="l"><span class="badge {t(r.status)}">{t(r.status)}</span></td>'
                    f'<td class="l">{t(config_label(r, with_model=True))}</td>'
                    f'<td class="l wrap">{t(r.reason or "")}{det}</td><td>{t(attempts)}</td>'
                    f'<td class="l">{t(r.created_at)}</td></tr>')
    return ('<p class="lede">Cells that did not produce numbers are rows too, with the reason. '
            '<code>edgeprof sweep --resume SWEEP_ID</code> reruns exactly these.</p>'
            '<table class="sortable"><thead><tr><th class="l">status</th><th class="l">cell</th>'
            '<th class="l">reason</th><th>attempts</th><th class="l">when</th></tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def _warnings(data: ReportData) -> str:
    items = []
    for r in data.ok:
        label = config_label(r, with_model=True)
        for w in r.warnings:
            items.append(f"<li><b>{t(label)}</b> · <code>{t(w.code)}</code> {t(w.message)}</li>")
        for note in r.power.warnings if r.power else []:
            items.append(f"<li><b>{t(label)}</b> · <code>power</code> {t(note)}</li>")
    if not items:
        return '<p class="note">No warnings: every run was steady enough to trust as measured.</p>'
    return f'<p class="lede">Each warning comes with what to do about it.</p><ul class="warn">{"".join(items)}</ul>'


_FACTS = (("hostname", "hostname"), ("board_model", "board"), ("cpu", "CPU"), ("arch", "arch"), ("cores", "cores"),
          ("memory_mb", "memory MB"), ("os", "OS"), ("kernel", "kernel"), ("python", "device Python"),
          ("l4t", "L4T"), ("agent_version", "agent"))


def _environment(data: ReportData) -> str:
    latest: dict[str, Result] = {}
    runtimes: dict[str, set[str]] = {}
    power: dict[str, str] = {}
    for r in data.ok:
        latest.setdefault(r.device, r)
        env = r.environment
        desc = f"{r.runtime} {env.runtime_version or ''}".strip()
        if env.runtime_providers:
            desc += f" ({', '.join(env.runtime_providers)})"
        runtimes.setdefault(r.device, set()).add(desc)
        p = r.power
        if p and p.source:
            power[r.device] = f"{p.source} · rail {p.rail} · {p.covers or ''} · {_f(p.rate_hz, 'Hz')}"
    if not latest:
        return '<p class="note">No environment recorded (no successful run).</p>'
    devices = list(latest)
    head = "<th class=\"l\"></th>" + "".join(f'<th class="l">{t(d)}</th>' for d in devices)
    body = []
    for key, label in _FACTS:
        vals = [latest[d].environment.agent_version if key == "agent_version" else latest[d].environment.fact(key)
                for d in devices]
        if all(v in (None, "") for v in vals):
            continue
        body.append(f'<tr><td class="l"><b>{t(label)}</b></td>' +
                    "".join(f'<td class="l wrap">{t(v if v not in (None, "") else "–")}</td>' for v in vals) + "</tr>")
    body.append('<tr><td class="l"><b>runtimes</b></td>' + "".join(
        f'<td class="l wrap">{t("; ".join(sorted(runtimes.get(d, set()))))}</td>' for d in devices) + "</tr>")
    body.append('<tr><td class="l"><b>power</b></td>' + "".join(
        f'<td class="l wrap">{t(power.get(d) or _null_power(data, d))}</td>' for d in devices) + "</tr>")
    host = data.ok[0].environment.host
    host_line = ", ".join(f"{k} {v}" for k, v in host.items() if v)
    return (f'<table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
            f'<p class="note">Controller: {t(host_line)}. Thread variables, runtime options and every raw '
            'sample are in each run\'s JSON (<code>edgeprof results show RUN_ID --json</code>).</p>')


def _null_power(data: ReportData, device: str) -> str:
    for r in data.ok:
        if r.device == device:
            why = r.null_reasons.power
            if why:
                return f"not measured: {why}"
    return "not measured"

