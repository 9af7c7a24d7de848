"""The report as text (one ``FILE:LINE:COL: severity rule: message`` line per finding, then
a summary), JSON (the model; schema in report.schema.json), SARIF 2.1.0 and HTML."""

from __future__ import annotations

import html
import json
import urllib.parse
from pathlib import Path
from typing import Any

from .catalogue import SEVERITY_RANK, load_rules
from .model import ReviewReport

SCHEMA_FILE = Path(__file__).with_name("report.schema.json")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"high": "error", "medium": "warning", "low": "note", "info": "note"}
#: GitHub code scanning's security-severity (0-10) per severity.
_SECURITY_SEVERITY = {"high": "8.0", "medium": "5.0", "low": "3.0", "info": "0.0"}
INFORMATION_URI = "https://github.com/flowui/flowui-sandbox/blob/main/docs/REVIEW.md"


def report_schema() -> dict:
    return ReviewReport.model_json_schema()


def to_json(report: ReviewReport) -> str:
    return report.model_dump_json(indent=2)


def to_text(report: ReviewReport) -> str:
    lines = []
    for block in report.blocks:
        for f in block.findings:
            engines = f" [{', '.join(f.engines)}]" if f.engines else ""
            lines.append(f"{f.file}:{f.line}:{f.column}: {f.severity} {f.rule}: {f.message}{engines}")
    lines.append("")
    for block in report.blocks:
        s = block.summary
        counts = ", ".join(f"{s.counts.get(k, 0)} {k}" for k in ("high", "medium", "low", "info"))
        lines.append(f"{block.file}: {counts}")
        lines.append(f"  hosts contacted: {', '.join(s.hosts) or 'none'}")
        if s.leaks:
            lines.append("  paths that leave: " + "; ".join(f"{leak.path} -> {', '.join(leak.hosts)}" for leak in s.leaks))
        else:
            lines.append("  paths that leave: none found")
        if s.bridge:
            lines.append("  bridge calls: " + "; ".join(f"{c.kind}({c.target}){' dynamic' if c.dynamic else ''}" for c in s.bridge))
        else:
            lines.append("  bridge calls: none")
        p = s.projection
        lines.append(f"  projection: receives {', '.join(p.received) or 'nothing'}; reads {', '.join(p.read) or 'nothing'}")
        if block.browser is not None and block.browser.timed_out:
            lines.append(f"  timed out in: {', '.join(block.browser.timed_out)}")
    total = {k: sum(b.summary.counts.get(k, 0) for b in report.blocks) for k in ("high", "medium", "low", "info")}
    layer = "static only" if report.static_only else f"static and in-browser ({', '.join(report.engines) or 'no engine'})"
    lines.append(f"{len(report.blocks)} block(s), {layer}: " + ", ".join(f"{v} {k}" for k, v in total.items())
                 + (f"; {len(report.suppressed)} suppressed by the baseline" if report.suppressed else ""))
    return "\n".join(lines) + "\n"


#: The base id of relative artifact URIs (the working directory the review ran in).
SRCROOT = "%SRCROOT%"


def artifact_location(file: str, root: Path | None = None) -> dict[str, str]:
    """SARIF's ``artifactLocation`` of ``file``: a relative URI reference with ``uriBaseId``
    when the file is inside ``root`` (the working directory), else an absolute ``file:`` URI
    (SARIF 2.1.0 §3.4.3; the validator's rule SARIF1004). A name that is no file (``-``,
    ``<block>``) is a relative reference with its characters percent-encoded."""
    base = (root or Path.cwd()).resolve()
    path = Path(file)
    if file in ("-", "") or file.startswith("<"):
        return {"uri": urllib.parse.quote(file or "-", safe=""), "uriBaseId": SRCROOT}
    resolved = path.resolve() if path.is_absolute() else (base / path).resolve()
    try:
        relative = resolved.relative_to(base)
    except ValueError:
        return {"uri": resolved.as_uri()}
    return {"uri": urllib.parse.quote(relative.as_posix(), safe="/"), "uriBaseId": SRCROOT}


def to_sarif(report: ReviewReport, root: Path | None = None) -> dict:
    """The report as SARIF 2.1.0; artifact URIs relative to ``root`` (default: the working directory)."""
    base = (root or Path.cwd()).resolve()
    rules = list(load_rules().values())
    index = {r.id: i for i, r in enumerate(rules)}
    results = []
    for f in report.findings():
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "level": _LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": artifact_location(f.file, base),
                "region": {"startLine": f.line, "startColumn": f.column}}}],
            "partialFingerprints": {"flowuiReview/v1": f.fingerprint},
            "properties": {"severity": f.severity, "layer": f.layer, "engines": f.engines, "paths": f.paths, "hosts": f.hosts},
        }
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "flowui-sandbox review",
                "version": report.version,
                "informationUri": INFORMATION_URI,
                "rules": [{
                    "id": r.id,
                    "name": "".join(w.capitalize() for w in r.id.replace(".", "-").split("-")),
                    "shortDescription": {"text": r.title},
                    "fullDescription": {"text": r.meaning},
                    "help": {"text": f"{r.meaning}\n\nFix: {r.fix}\n\nBasis: {r.basis}",
                             "markdown": f"{r.meaning}\n\n**Fix:** {r.fix}\n\n**Basis:** `{r.basis}`"},
                    "defaultConfiguration": {"level": _LEVEL[r.severity]},
                    "properties": {"security-severity": _SECURITY_SEVERITY[r.severity], "tags": ["security"],
                                   "layer": r.layer},
                } for r in rules],
            }},
            "results": results,
            "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
            "columnKind": "unicodeCodePoints",
        }],
    }


def to_html(report: ReviewReport) -> str:
    e = html.escape
    parts = ["<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>flowui-sandbox review</title><style>",
             "body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}"
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}"
             ".high{color:#b00020;font-weight:600}.medium{color:#b35c00}.low{color:#555}.info{color:#777}"
             "img{max-width:360px;border:1px solid #ccc;margin:4px}code{font-size:92%}</style></head><body>",
             f"<h1>Security review</h1><p>{e(report.tool)} {e(report.version)} &middot; "
             f"{'static only' if report.static_only else 'static and in-browser: ' + e(', '.join(report.engines))}"
             f" &middot; {len(report.blocks)} block(s)</p>"]
    parts.append("<h2>Summary</h2><table><tr><th>block</th><th>high</th><th>medium</th><th>low</th><th>info</th><th>hosts contacted</th></tr>")
    for b in report.blocks:
        c = b.summary.counts
        parts.append(f"<tr><td><a href='#{e(b.file)}'>{e(b.file)}</a></td>" + "".join(
            f"<td class={k}>{c.get(k, 0)}</td>" for k in ("high", "medium", "low", "info")) + f"<td>{e(', '.join(b.summary.hosts))}</td></tr>")
    parts.append("</table>")
    for b in report.blocks:
        s = b.summary
        parts.append(f"<h2 id='{e(b.file)}'>{e(b.file)}</h2><h3>Findings</h3>")
        if b.findings:
            parts.append("<table><tr><th>where</th><th>severity</th><th>rule</th><th>message</th><th>engines</th></tr>")
            for f in b.findings:
                parts.append(f"<tr><td>{f.line}:{f.column}</td><td class={f.severity}>{f.severity}</td><td><code>{e(f.rule)}</code></td>"
                             f"<td>{e(f.message)}</td><td>{e(', '.join(f.engines))}</td></tr>")
            parts.append("</table>")
        else:
            parts.append("<p>No findings.</p>")
        parts.append("<h3>Paths that leave</h3>")
        if s.leaks:
            parts.append("<table><tr><th>path</th><th>hosts</th><th>through</th></tr>" + "".join(
                f"<tr><td><code>{e(leak.path)}</code></td><td>{e(', '.join(leak.hosts))}</td><td>{e(', '.join(leak.sinks))}</td></tr>"
                for leak in s.leaks) + "</table>")
        else:
            parts.append("<p>None found.</p>")
        parts.append("<h3>Bridge calls</h3>")
        if s.bridge:
            parts.append("<table><tr><th>where</th><th>call</th><th>target</th><th>paths</th></tr>" + "".join(
                f"<tr><td>{c.line}:{c.column}</td><td>{c.kind}</td><td>{e(c.target)}{' (computed)' if c.dynamic else ''}</td>"
                f"<td>{e(', '.join(c.paths))}</td></tr>" for c in s.bridge) + "</table>")
        else:
            parts.append("<p>None.</p>")
        p = s.projection
        parts.append("<h3>Projection</h3><table>" + "".join(
            f"<tr><th>{k}</th><td>{e(', '.join(v) or '-')}</td></tr>" for k, v in (
                ("fields", p.fields), ("markup paths", p.markup), ("read", p.read), ("never read", p.unread_fields),
                ("read but not projected", p.unprojected_reads), ("sensitive", p.sensitive))) + "</table>")
        if b.browser is not None and b.browser.screenshots:
            parts.append("<h3>Screenshots</h3>")
            for engine, shots in b.browser.screenshots.items():
                for scheme, png in shots.items():
                    parts.append(f"<figure style='display:inline-block'><img alt='{e(engine)} {e(scheme)}' "
                                 f"src='data:image/png;base64,{e(png)}'><figcaption>{e(engine)}, {e(scheme)}</figcaption></figure>")
    if report.suppressed:
        parts.append("<h2>Suppressed by the baseline</h2><table><tr><th>fingerprint</th><th>justification</th></tr>" + "".join(
            f"<tr><td><code>{e(fp)}</code></td><td>{e(why)}</td></tr>" for fp, why in report.suppressed.items()) + "</table>")
    parts.append("</body></html>\n")
    return "".join(parts)


def rules_markdown() -> str:
    """docs/REVIEW.md's rule table, rendered from the catalogue (checked by a test)."""
    rules = sorted(load_rules().values(), key=lambda r: (-SEVERITY_RANK[r.severity], r.id))
    out = ["| rule | severity | layer | title | what it means | how to fix it | basis |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rules:
        cells = [f"`{r.id}`", r.severity, r.layer, r.title, r.meaning, r.fix, f"`{r.basis}`"]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out) + "\n"


def dumps(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
