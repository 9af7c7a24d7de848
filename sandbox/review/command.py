"""``flowui-sandbox review``: the command line of the security review (docs/REVIEW.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..engines import ENGINE_NAMES
from ..errors import OptionError
from ..files import writable_output, write_output

FORMATS = ("text", "json", "sarif", "html")


def add_cli(sub, command) -> None:
    p = sub.add_parser("review", help="security review of html blocks: what each one does with what the policy allows",
                       description="Review html block sources (files or directories of .html files): statically, "
                                   "and unless --static in real browsers. Exit 0 when nothing at or above --fail-on "
                                   "was found, 1 when something was, 2 on bad input.")
    p.add_argument("files", nargs="*", metavar="FILE", help="a block source (UTF-8 HTML) or a directory of them")
    p.add_argument("--fields", metavar="a,b", default="", help="comma-separated fields the block receives")
    p.add_argument("--state", metavar="F", help="a JSON file holding the state to mount the block with")
    p.add_argument("--theme", metavar="F", help="a JSON file holding a flat theme")
    p.add_argument("--engine", action="append", choices=ENGINE_NAMES, metavar="E",
                   help=f"a browser engine ({', '.join(ENGINE_NAMES)}); repeat for several; default: every engine found")
    p.add_argument("--static", action="store_true", help="the static layer only (no browser)")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("-o", "--output", metavar="OUT", help="write the report to OUT instead of stdout")
    p.add_argument("--fail-on", choices=("high", "medium", "low", "none"), default="high",
                   help="exit 1 when a finding at or above this severity remains (default: high)")
    p.add_argument("--baseline", metavar="F", help="a baseline: findings whose fingerprint it lists (with a justification) are suppressed")
    p.add_argument("--write-baseline", metavar="F", help="write the findings as a baseline to F (justifications to fill in)")
    p.add_argument("--sensitive", metavar="w,w", help="comma-separated words that make a path sensitive (replaces the default list)")
    p.add_argument("--time-limit", type=float, default=None, metavar="S", help="per-block time limit in each engine, seconds (default: the in-browser layer's, 15)")
    p.add_argument("--list-rules", action="store_true", help="print the rule catalogue (Markdown) and exit")
    command("review")(_review_command)


def _review_command(args: argparse.Namespace) -> int:
    from ..generator import read_state, read_theme
    from ..paths import parse_path_list
    from . import render
    from .api import baseline_document, failing, load_baseline, review

    if args.list_rules:
        _write(args.output, render.rules_markdown())
        return 0
    if not args.files:
        raise OptionError("give at least one FILE (or a directory)")

    for name in (args.output, args.write_baseline):
        if name:
            writable_output(name)  # refused now, not after the browsers ran
    fields, problems = parse_path_list(args.fields or "", "--fields")
    if problems:
        raise OptionError("\n".join(problems))
    state = read_state(args.state) if args.state else None
    theme = read_theme(args.theme) if args.theme else None
    sensitive = [w.strip() for w in args.sensitive.split(",") if w.strip()] if args.sensitive is not None else None
    baseline = load_baseline(args.baseline) if args.baseline else None
    if args.time_limit is not None and not 0.5 <= args.time_limit <= 600:
        raise OptionError(f"--time-limit: {args.time_limit:g} s; give 0.5 to 600")
    progress = _progress() if sys.stderr.isatty() else None
    report = review(args.files, fields=fields, state=state if isinstance(state, dict) else None,
                    theme=theme.to_json() if theme is not None else None, engines=args.engine,
                    static_only=args.static, sensitive=sensitive, time_limit=args.time_limit,
                    progress=progress, baseline=baseline, fail_on=args.fail_on)
    if progress is not None:
        sys.stderr.write("\r\x1b[K")
    text = {"text": render.to_text, "json": lambda r: render.to_json(r) + "\n", "html": render.to_html,
            "sarif": lambda r: render.dumps(render.to_sarif(r))}[args.format](report)
    _write(args.output, text)
    if args.write_baseline:
        _write(args.write_baseline, render.dumps(baseline_document(report, baseline)))
    return 1 if failing(report, args.fail_on) else 0


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
