"""``review()``: the static layer, then (unless static_only) the in-browser layer, merged."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..block.extract import MAX_SOURCE_BYTES
from ..errors import UsageError
from ..files import display_name, parse_json, read_text, shown_name
from .catalogue import SEVERITY_RANK
from .model import BlockInput, BlockReport, BridgeCall, BrowserResult, Finding, Leak, ReviewReport, Summary
from .static import analyse

if TYPE_CHECKING:
    from ..engines.remote import Endpoint
    from ..harness.remote import ServerNames


def tool_version() -> str:
    try:
        return version("flowui-sandbox")
    except PackageNotFoundError:  # pragma: no cover - running from a checkout without install
        return "0"


def expand(paths: Iterable[str]) -> list[str]:
    """Files as given; a directory gives its ``*.html`` files (recursively, sorted)."""
    out: list[str] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found = _html_files(path)
            if not found:
                raise UsageError(f"{display_name(name)}: a directory with no .html file in it")
            out.extend(found)
        else:
            out.append(name)
    return out


def _html_files(folder: Path) -> list[str]:
    """The ``*.html`` names under ``folder``, sorted. A folder that cannot be listed (its own
    or a subfolder's permissions) is a :class:`UsageError` naming it: ``Path.rglob`` would
    drop it silently, and the review would pass over blocks it never read."""
    unreadable: list[str] = []

    def refused(exc: OSError) -> None:
        unreadable.append(f"{display_name(str(exc.filename))}: cannot read the folder: {exc.strerror or exc}")

    found = sorted(str(Path(where, entry)) for where, folders, files in os.walk(folder, onerror=refused)
                   for entry in (*folders, *files) if entry.endswith(".html"))
    if unreadable:
        raise UsageError("\n".join(unreadable))
    return found


def review(files_or_blocks: Sequence[str | BlockInput], *, fields: Sequence[str] = (), state: dict[str, Any] | None = None,
           theme: dict[str, Any] | None = None, engines: Sequence[str] | None = None, static_only: bool = False,
           sensitive: Sequence[str] | None = None, time_limit: float | None = None,
           progress: Callable[[str], None] | None = None, baseline: dict[str, str] | None = None,
           fail_on: str = "high", remote: Sequence[Endpoint] = (), names: ServerNames | None = None,
           screenshots: bool = True) -> ReviewReport:
    """Review blocks (file names, directories, or :class:`BlockInput`) and return the report.

    ``time_limit`` is the per-block limit in each engine (None: the in-browser layer's
    default). ``fields``/``state``/``theme`` apply to blocks given as file names; without
    ``state``, a file's ``NAME.state.json`` beside it is its state when there is one (as
    ``edit`` does: the browsers then mount the block with data of the shape it expects, where a
    path missing from the state would get a string). ``baseline`` maps
    fingerprints to justifications: those findings are moved to ``report.suppressed``.
    ``remote``: browsers elsewhere for the in-browser layer (:func:`flowui_sandbox.sandbox.engines.remote.parse_remote`);
    ``names``: where the proxies they send through listen, and the name they reach them by
    (:func:`flowui_sandbox.sandbox.harness.remote.server_names`, ``canary=False``; default: 127.0.0.1).
    ``screenshots``: take each block's light and dark screenshot in each engine (the command takes
    them only for a JSON or HTML report, which show them).
    Unreadable files raise :class:`UsageError` (one ``FILE: problem`` line each).
    """
    blocks: list[BlockInput] = []
    errors: list[str] = []
    for item in files_or_blocks:  # in the order given
        if isinstance(item, BlockInput):
            blocks.append(item)
            continue
        try:
            given = expand([item])
        except UsageError as exc:  # a folder with nothing to review, or one that cannot be read
            errors.append(str(exc))
            continue
        for name in given:
            try:
                # Up to 4x the limit is read, so an oversized block is a finding (source.refused) and the run goes on.
                source = read_text(name, limit=4 * MAX_SOURCE_BYTES)
            except UsageError as exc:
                errors.append(str(exc))
                continue
            own = state
            from ..block.srcdoc import read_state, state_beside

            beside = state_beside(name)
            if own is None and name != "-" and beside.is_file():

                try:
                    own = read_state(str(beside))
                except UsageError as exc:
                    errors.append(str(exc))
                    continue
            # the report names the file as one line of UTF-8 (a newline or a non-UTF-8 byte escaped)
            blocks.append(BlockInput(file=shown_name(name), source=source, fields=list(fields), state=dict(own or {}), theme=theme))
    if errors:
        raise UsageError("\n".join(errors))
    reports: list[BlockReport] = []
    for block in blocks:
        result = analyse(block.source, file=block.file, fields=block.fields, sensitive=sensitive)
        reports.append(BlockReport(file=block.file, findings=result.findings, summary=Summary(projection=result.projection)))
    used_engines: list[str] = []
    if not static_only:
        from .browser import TIME_LIMIT, run_browser_layer  # the in-browser layer (sandbox/review/browser/)

        results = run_browser_layer(blocks, list(engines) if engines else None, progress=progress, remote=list(remote), names=names,
                                    time_limit=TIME_LIMIT if time_limit is None else time_limit,  # None: the layer's default
                                    screenshots=screenshots)
        for report, browser in zip(reports, results):
            report.browser = browser
            report.findings = merge(report.findings, browser.findings)
            used_engines.extend(e for e in browser.engines if e not in used_engines)
        if engines:
            used_engines = list(engines)
    suppressed: dict[str, str] = {}
    for report in reports:
        if baseline:
            kept = []
            for f in report.findings:
                if f.fingerprint in baseline:
                    suppressed[f.fingerprint] = baseline[f.fingerprint]
                else:
                    kept.append(f)
            report.findings = kept
        report.summary = summarise(report.findings, report.summary, report.browser)
    return ReviewReport(version=tool_version(), engines=used_engines, static_only=static_only, fail_on=fail_on,
                        blocks=reports, suppressed=suppressed)


def merge(static: list[Finding], browser: list[Finding]) -> list[Finding]:
    """One finding per (rule, what it is about): engines seen are unioned; a browser finding
    that confirms a static one (same rule, same paths or hosts, or same position) is folded
    into it."""
    out = list(static)
    for finding in browser:
        match = next((f for f in out if f.rule == finding.rule and (
            f.fingerprint == finding.fingerprint
            or (f.paths or f.hosts) and sorted(f.paths) == sorted(finding.paths) and set(finding.hosts) <= set(f.hosts) | set(finding.hosts)
            and (not f.hosts or not finding.hosts or set(f.hosts) & set(finding.hosts))
            or (f.line, f.column) == (finding.line, finding.column))), None)
        if match is None:
            out.append(finding.model_copy(deep=True))
            continue
        match.engines = sorted(set(match.engines) | set(finding.engines))
        match.hosts = sorted(set(match.hosts) | set(finding.hosts))
        if match.layer == "static" and finding.layer == "browser":
            match.evidence = {**match.evidence, "browser": finding.evidence} if finding.evidence else match.evidence
    out.sort(key=lambda f: (f.line, f.column, f.rule))
    return out


#: Findings whose paths (state paths, or inputs such as input:#email) leave the block.
LEAK_RULES = frozenset(("exfil.state-to-url", "exfil.input-to-url", "exfil.css-keylogger", "exfil.css-state-selector",
                        "channel.webrtc"))
#: Findings whose hosts are where the block sends something: the leaks', and the loads and links that name a host.
HOST_RULES = LEAK_RULES | frozenset(("url.external", "exfil.css-attribute-selector", "network.link-hint", "navigation.self"))


def summarise(findings: list[Finding], summary: Summary, browser: BrowserResult | None) -> Summary:
    hosts: set[str] = set()
    leaks: dict[str, Leak] = {}
    bridge: list[BridgeCall] = []
    counts = {s: 0 for s in SEVERITY_RANK}
    for f in findings:
        counts[f.severity] += 1
        if f.rule in HOST_RULES or f.rule.startswith("browser.") and f.hosts:
            hosts.update(f.hosts)
        if f.rule in LEAK_RULES or f.rule.startswith("browser.exfil"):
            for path in f.paths:
                leak = leaks.setdefault(path, Leak(path=path))
                leak.hosts = sorted(set(leak.hosts) | (set(f.hosts) if f.hosts else {"(unknown host)"}))
                sink = f.evidence.get("sink")
                if sink and sink not in leak.sinks:
                    leak.sinks.append(sink)
        if f.rule in ("exfil.state-to-url", "exfil.input-to-url") and f.evidence.get("sink") == "flowUi.openUrl":
            # one call with the state and typed text in its URL is one call (both findings name it)
            same = next((b for b in bridge if b.kind == "openUrl" and (b.line, b.column) == (f.line, f.column)), None)
            if same is None:
                bridge.append(BridgeCall(kind="openUrl", target=", ".join(f.hosts) or "(computed)", line=f.line, column=f.column,
                                         dynamic=True, paths=f.paths))
            else:
                same.paths = sorted(set(same.paths) | set(f.paths))
        if f.rule in ("bridge.send", "bridge.set-value", "bridge.open-url", "bridge.open-url-dynamic"):
            ev = f.evidence
            kind = ev.get("kind") or {"bridge.send": "send", "bridge.set-value": "setValue"}.get(f.rule, "openUrl")
            bridge.append(BridgeCall(kind=kind, target=str(ev.get("target", ", ".join(f.hosts) or "(computed)")), line=f.line,
                                     column=f.column, dynamic=bool(ev.get("dynamic", False)), paths=f.paths))
    if browser is not None:
        for request in browser.requests:
            if request.get("host"):
                hosts.add(request["host"])
    return Summary(hosts=sorted(hosts), leaks=sorted(leaks.values(), key=lambda leak: leak.path), bridge=bridge,
                   projection=summary.projection, counts=counts)


def failing(report: ReviewReport, fail_on: str) -> list[Finding]:
    if fail_on == "none":
        return []
    floor = SEVERITY_RANK[fail_on]
    return [f for f in report.findings() if SEVERITY_RANK[f.severity] >= floor]


# ---------------------------------------------------------------------------- baseline

BASELINE_TODO = "TODO: say why this finding is acceptable"


def load_baseline(name: str) -> dict[str, str]:
    """fingerprint -> justification. Every entry needs a real justification (a written
    baseline starts with TODO placeholders, which are refused until replaced)."""
    text = read_text(name, limit=16 * 2**20)
    data = parse_json(text, display_name(name))  # deep or bad JSON: one located line
    entries = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise UsageError(f'{name}:1:1: a baseline is {{"version": 1, "findings": [{{"fingerprint", "rule", "file", "justification"}}...]}}')
    out: dict[str, str] = {}
    problems = []
    for index, entry in enumerate(entries):
        fp = entry.get("fingerprint") if isinstance(entry, dict) else None
        why = entry.get("justification") if isinstance(entry, dict) else None
        line = _entry_line(text, fp) if isinstance(fp, str) else 1
        if not isinstance(fp, str) or not fp:
            problems.append(f"{name}:{line}:1: entry {index + 1} has no fingerprint")
        elif not isinstance(why, str) or not why.strip() or why.startswith("TODO"):
            problems.append(f"{name}:{line}:1: entry {index + 1} ({entry.get('rule', '?')}) needs a justification")
        else:
            out[fp] = why.strip()
    if problems:
        raise UsageError("\n".join(problems))
    return out


def _entry_line(text: str, fingerprint: str) -> int:
    at = text.find(fingerprint)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def baseline_document(report: ReviewReport, previous: dict[str, str] | None = None) -> dict:
    previous = previous or {}
    entries = []
    for f in report.findings():
        entries.append({"fingerprint": f.fingerprint, "rule": f.rule, "file": f.file, "message": f.message,
                        "justification": previous.get(f.fingerprint, BASELINE_TODO)})
    for fp, why in report.suppressed.items():
        entries.append({"fingerprint": fp, "justification": why})
    return {"version": 1, "findings": entries}
