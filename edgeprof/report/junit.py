"""JUnit XML for `edgeprof check`: one testcase per finding, in the shape Jenkins and GitLab render.

Owns: the XML (testsuites/testsuite/testcase with failure, error, skipped, system-out). A regression or a
broken budget is a <failure>, a failed cell an <error>, a skipped cell <skipped>; the message names the cell
and the metric, the body holds the numbers. Does not own: deciding outcomes (analysis/regress.py).
"""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from ..analysis.regress import Finding, summarize
from ..files.output import visible
from ..records import utc_now

_TAG = {"failed": "failure", "error": "error", "skipped": "skipped"}


def _x(text: object) -> str:
    """Text XML 1.0 can carry: control characters (an escape sequence in a model name) shown as \\x1b."""
    return visible(str(text), lines=True)


def junit_xml(findings: Sequence[Finding], *, suite: str = "edgeprof check", properties: dict[str, str] | None = None
              ) -> str:
    s = summarize(findings)
    root = ET.Element("testsuites", name=suite, tests=str(s["tests"]), failures=str(s["failed"]),
                      errors=str(s["error"]), skipped=str(s["skipped"]))
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(s["tests"]), failures=str(s["failed"]),
                       errors=str(s["error"]), skipped=str(s["skipped"]), timestamp=utc_now(),
                       hostname=_x(socket.gethostname()))
    if properties:
        props = ET.SubElement(ts, "properties")
        for k, v in properties.items():
            ET.SubElement(props, "property", name=_x(k), value=_x(v))
    for f in findings:
        tc = ET.SubElement(ts, "testcase", classname=_x(f.classname), name=_x(f.name), time="0")
        tag = _TAG.get(f.outcome)
        if tag is not None:
            el = ET.SubElement(tc, tag, message=_x(f.message), type=_x(f.kind))
            if f.detail and tag != "skipped":
                el.text = _x(f.detail)
        out = "\n".join(x for x in (f.message if f.outcome == "passed" else "",
                                    f.detail if f.outcome in ("passed", "skipped") else "",
                                    f"run {f.run_id}" if f.run_id else "") if x)
        if out:
            ET.SubElement(tc, "system-out").text = _x(out)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
