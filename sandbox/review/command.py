"""What ``flowui-sandbox review`` does: review files, write the report in a format, exit by
severity; from the command's options (sandbox/cli.py) to its exit status (docs/REVIEW.md)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import OptionError
from ..files import writable_output, write_output

FORMATS = ("text", "json", "sarif", "html")
#: An output file's format when --format does not name one: by its name's ending (anything else: text).
_EXTENSIONS = ((".sarif.json", "sarif"), (".sarif", "sarif"), (".json", "json"), (".html", "html"), (".htm", "html"))
FAIL_ON = ("high", "medium", "low", "none")
#: The formats whose report holds each block's screenshots: without one, the browsers take none.
SHOWS_SCREENSHOTS = frozenset({"json", "html"})


def review_files(files: Sequence[str], *, fields: str = "", state: str | None = None, theme: str | None = None,
                 engines: Sequence[str] | None = None, static_only: bool = False, output_format: str | None = None,
                 output: str | Sequence[str] | None = None,
                 fail_on: str = "high", baseline: str | None = None, write_baseline: str | None = None,
                 sensitive: str | None = None, time_limit: float | None = None, list_rules: bool = False,
                 remote_specs: Sequence[str] = (), bind: str = "127.0.0.1", public_host: str | None = None) -> int:
    """Review ``files`` (block sources or directories of them) and write the report in
    ``output_format`` to ``output`` (default: stdout), or to each of several outputs (one review,
    several reports: each in ``output_format`` if given, else in the format its name ends with,
    :func:`format_of`); return 1 when a finding at or above
    ``fail_on`` remains, else 0. ``fields`` and ``sensitive`` are comma-separated lists,
    ``state`` and ``theme`` JSON files; a bad option is an :class:`OptionError` naming it.
    ``list_rules``: print the rule catalogue instead. ``remote_specs``: ``ENGINE[:PAGES]=URL`` browsers
    elsewhere for the in-browser layer, as ``verify --remote`` takes them (docs/REVIEW-BROWSER.md,
    "Remote browsers"); ``bind`` and ``public_host``: where the proxies they send through listen,
    and the name they reach them by."""
    from ..block.paths import parse_path_list
    from ..block.srcdoc import read_state, read_theme
    from . import render
    from .api import baseline_document, failing, load_baseline, review

    outputs: list[str | None] = [output] if isinstance(output, str) else list(output or ())
    if list_rules:
        for name in outputs or [None]:
            _write(name, render.rules_markdown())
        return 0
    if not files:
        raise OptionError("give at least one FILE (or a directory)")

    from ..engines.remote import parse_remote, plan
    from ..harness.remote import server_names

    names = server_names(bind, public_host, canary=False)
    endpoints = []
    if remote_specs:
        if static_only:
            raise OptionError("--remote: --static runs no browser; give one or the other")
        endpoints = parse_remote(list(remote_specs))
        plan(list(engines) if engines is not None else None, endpoints)  # an engine named but not served, one not installed
    for name in (*outputs, write_baseline):
        if name:
            writable_output(name)  # refused now, not after the browsers ran
    field_paths, problems = parse_path_list(fields or "", "--fields")
    if problems:
        raise OptionError("\n".join(problems))
    state_value = read_state(state) if state else None
    theme_value = read_theme(theme) if theme else None
    sensitive_words = [w.strip() for w in sensitive.split(",") if w.strip()] if sensitive is not None else None
    baseline_value = load_baseline(baseline) if baseline else None
    if time_limit is not None and not 0.5 <= time_limit <= 600:
        raise OptionError(f"--time-limit: {time_limit:g} s; give 0.5 to 600")
    progress = _progress() if sys.stderr.isatty() else None
    formats = [output_format or format_of(name) for name in outputs or [None]]
    report = review(list(files), fields=field_paths, state=state_value if isinstance(state_value, dict) else None,
                    theme=theme_value.to_json() if theme_value is not None else None,
                    engines=list(engines) if engines is not None else None, static_only=static_only, sensitive=sensitive_words,
                    time_limit=time_limit, progress=progress, baseline=baseline_value, fail_on=fail_on,
                    remote=endpoints, names=names, screenshots=bool(SHOWS_SCREENSHOTS & set(formats)))
    if progress is not None:
        sys.stderr.write("\r\x1b[K")
    renderers = {"text": render.to_text, "json": lambda r: render.to_json(r) + "\n", "html": render.to_html,
                 "sarif": lambda r: render.dumps(render.to_sarif(r))}
    for name, fmt in zip(outputs or [None], formats):
        _write(name, renderers[fmt](report))
    if write_baseline:
        _write(write_baseline, render.dumps(baseline_document(report, baseline_value)))
    return 1 if failing(report, fail_on) else 0


def format_of(output: str | None) -> str:
    """The format of an output named ``output`` when --format names none: ``.json`` JSON,
    ``.sarif`` (or ``.sarif.json``) SARIF, ``.html`` HTML, anything else (stdout too) text."""
    lower = (output or "").lower()
    return next((fmt for ending, fmt in _EXTENSIONS if lower.endswith(ending)), "text")


def _progress():
    def show(message: str) -> None:
        sys.stderr.write("\r\x1b[K" + message[:200])
        sys.stderr.flush()

    return show


def _write(name: str | None, text: str) -> None:
    if not name:
        sys.stdout.write(text)
        return
    write_output(Path(name), text)
