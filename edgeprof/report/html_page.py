"""The HTML report's page pieces shared by its sections: the inline style sheet and script, value formatting,
number cells and board colours.

Owns: CSS, JS, ERROR_HOOK, how a value or a missing one is shown in a cell, which results charts about boards
show (the null runtime only when alone) and the colour of each named series.
Does not own: the sections (html.py, html_rates.py, html_history.py) or SVG drawing (svg.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import Result
from ..vocab import fmt_value
from . import svg
from .svg import t

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

def fmt(v: float | None, unit: str = "") -> str:
    return fmt_value(v, unit) if v is not None else "–"


def num_cell(v: float | None, *, best: bool = False, bar: float | None = None, text: str | None = None) -> str:
    cls = ' class="best"' if best else ""
    shown = text if text is not None else fmt(v)
    barhtml = f'<span class="bar" style="width:{max(2, int(bar * 70))}px"></span>' if bar is not None else ""
    dv = "" if v is None else f"{v:.6g}"
    return f'<td data-v="{dv}"{cls}>{barhtml}{t(shown)}</td>'


def measured(results: Sequence[Result]) -> list[Result]:
    """Results of real runtimes: the null runtime measures the harness itself, so charts about boards leave it
    out (unless it is all there is)."""
    real = [r for r in results if r.runtime != "null"]
    return real or list(results)


class Colors:
    def __init__(self, names: Sequence[str]) -> None:
        self.map = {n: svg.color(i) for i, n in enumerate(dict.fromkeys(names))}

    def __call__(self, name: str) -> str:
        if name not in self.map:
            self.map[name] = svg.color(len(self.map))
        return self.map[name]
