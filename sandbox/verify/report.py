"""The results of a verify run as a text matrix, JSON, and a self-contained HTML page (everything escaped)."""

from __future__ import annotations

import html
import json
import time
from typing import Any

from ..block.policy import CSP, SANDBOX
from ..engines import ENGINE_NAMES
from .probes import Probe
from .results import EngineRun, Result

#: How each verdict is shown in the matrix.
CELL = {"held": "held", "allowed": "allowed", "UNEXPECTED": "UNEXPECTED", "n/a": "n/a"}


def unexpected(runs: list[EngineRun]) -> list[Result]:
    return [r for run in runs for r in run.results if r.verdict == "UNEXPECTED"]


def engine_errors(runs: list[EngineRun]) -> list[str]:
    return [f"{run.engine}: {run.error}" for run in runs if run.error]


def _by_probe(runs: list[EngineRun]) -> dict[str, dict[str, Result]]:
    table: dict[str, dict[str, Result]] = {}
    for run in runs:
        for r in run.results:
            table.setdefault(r.probe, {})[r.engine] = r
    return table


def summary(runs: list[EngineRun]) -> dict[str, int]:
    counts = {"held": 0, "allowed": 0, "UNEXPECTED": 0, "n/a": 0}
    for run in runs:
        for r in run.results:
            counts[r.verdict] += 1
    return counts


def text_matrix(probes: list[Probe], runs: list[EngineRun], wall: float | None = None) -> str:
    """The probe x engine matrix, then every unexpected outcome with its reason."""
    engines = [run.engine for run in runs]
    table = _by_probe(runs)
    width = max([len(p.id) for p in probes] + [5])
    lines = [f"{'probe':<{width}}  " + "  ".join(f"{e:<10}" for e in engines)]
    for probe in probes:
        row = table.get(probe.id, {})
        cells = [CELL[row[e].verdict] if e in row else "-" for e in engines]
        lines.append(f"{probe.id:<{width}}  " + "  ".join(f"{c:<10}" for c in cells))
    counts = summary(runs)
    lines.append("")
    tail = f" in {wall:.1f} s" if wall is not None else ""
    lines.append(
        f"{len(probes)} probes x {len(engines)} engines{tail}: {counts['held']} held, {counts['allowed']} allowed by design "
        f"or documented engine behaviour, {counts['UNEXPECTED']} UNEXPECTED" + (f", {counts['n/a']} n/a" if counts["n/a"] else "")
    )
    for error in engine_errors(runs):
        lines.append(f"ENGINE FAILED {error}")
    for run in runs:
        for b in run.browsers:
            if b.get("lost") or b.get("error"):
                # With the engine failed, no other browser of it ran them.
                where = "" if run.error else " (its probes ran on the others)"
                lines.append(f"BROWSER LOST {run.engine} {b['url']}: {b.get('lost') or b.get('error')}{where}")
    bad = unexpected(runs)
    if bad:
        lines.append("")
        lines.append("UNEXPECTED:")
        for r in bad:
            lines.append(f"  {r.probe} [{r.engine}] observed {r.status}: {r.reason}")
            for e in r.evidence[:3]:
                lines.append(f"      evidence: {e}")
    return "\n".join(lines)


def to_json(probes: list[Probe], runs: list[EngineRun], *, generator: str, wall: float) -> dict[str, Any]:
    return {
        "generator": generator,
        "policy": {"csp": CSP, "sandbox": SANDBOX},
        "wall_seconds": round(wall, 2),
        "summary": summary(runs),
        "engines": [{"engine": run.engine, "error": run.error, "seconds": round(run.seconds, 2),
                     **({"browsers": run.browsers} if run.browsers else {})} for run in runs],
        "probes": [
            {"id": p.id, "title": p.title, "category": p.category, "attack": p.attack, "bridge": p.bridge,
             "expect": {e: p.expected(e).model_dump() for e in ENGINE_NAMES}}
            for p in probes
        ],
        "results": [r.to_json() for run in runs for r in run.results],
    }


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1b1b}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
.held{background:#e3f4e1}.allowed{background:#fff4cf}.UNEXPECTED{background:#ffd6d6;font-weight:bold}.n\\/a{background:#eee}
details{margin:4px 0}pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:6px;margin:4px 0}
code{background:#f1f1f1}
"""


def to_html(probes: list[Probe], runs: list[EngineRun], *, generator: str, wall: float) -> str:
    """A self-contained page: the matrix, then per engine each probe's result and evidence.

    Every value comes from probes, browsers or servers: all of it is escaped.
    """
    e = html.escape
    engines = [run.engine for run in runs]
    table = _by_probe(runs)
    counts = summary(runs)
    out = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>flowui-sandbox verify: {counts['UNEXPECTED']} unexpected</title><style>{_CSS}</style></head><body>",
        "<h1>flowui-sandbox verify</h1>",
        f"<p>Generator: <code>{e(generator)}</code>. Policy: <code>{e(CSP)}</code>, sandbox <code>{e(SANDBOX)}</code>.</p>",
        f"<p>{len(probes)} probes &times; {len(engines)} engines in {wall:.1f} s: {counts['held']} held, "
        f"{counts['allowed']} allowed (by design or documented engine behaviour), "
        f"<b>{counts['UNEXPECTED']} UNEXPECTED</b>, {counts['n/a']} n/a.</p>",
    ]
    for error in engine_errors(runs):
        out.append(f'<p class="UNEXPECTED">Engine failed: {e(error)}</p>')
    out.append("<h2>Matrix</h2><table><tr><th>probe</th><th>attack</th>" + "".join(f"<th>{e(x)}</th>" for x in engines) + "</tr>")
    for p in probes:
        row = table.get(p.id, {})
        cells = "".join(
            f'<td class="{e(row[x].verdict)}"><a href="#{e(p.id)}--{e(x)}">{e(CELL[row[x].verdict])}</a></td>' if x in row else "<td>-</td>"
            for x in engines
        )
        out.append(f'<tr><td><code>{e(p.id)}</code></td><td>{e(p.title)}</td>{cells}</tr>')
    out.append("</table>")
    by_id = {p.id: p for p in probes}
    for run in runs:
        out.append(f"<h2>{e(run.engine)} ({run.seconds:.1f} s)</h2>")
        for r in sorted(run.results, key=lambda r: r.probe):
            probe = by_id.get(r.probe)
            out.append(f'<details id="{e(r.probe)}--{e(run.engine)}"{" open" if r.verdict == "UNEXPECTED" else ""}>')
            out.append(f'<summary><span class="{e(r.verdict)}">{e(r.verdict)}</span> <code>{e(r.probe)}</code>: observed {e(r.status)}, '
                       f"expected {e(r.expected.outcome)}</summary>")
            if probe is not None:
                out.append(f"<probe>{e(probe.attack)}</probe>")
            if r.reason:
                out.append(f"<probe><b>Why:</b> {e(r.reason)}</probe>")
            if r.evidence:
                out.append("<probe><b>Evidence (observed outside the block):</b></probe><ul>" + "".join(f"<li>{e(x)}</li>" for x in r.evidence) + "</ul>")
            out.append(f"<pre>{e(json.dumps(r.observed, indent=1, ensure_ascii=False, default=str))}</pre>")
            if probe is not None:
                out.append(f"<details><summary>source</summary><pre>{e(probe.block.source)}</pre></details>")
            out.append("</details>")
    out.append(f"<p>Generated {e(time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime()))}.</p></body></html>")
    return "\n".join(out)


__all__ = ["text_matrix", "to_json", "to_html", "unexpected", "summary", "engine_errors"]
