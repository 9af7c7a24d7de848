"""`flowui-sandbox verify`: run the attack-probe catalogue on every engine and print the matrix."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from .. import remote
from ..engines import ENGINE_NAMES
from ..errors import UsageError
from .probes import PROBES_DIR, ProbeError, load_catalogue


def add_cli(sub: argparse._SubParsersAction, command) -> None:
    p = sub.add_parser(
        "verify", help="run the attack-probe catalogue in every browser engine and report what the sandbox held",
        description="Runs every probe of the catalogue (fixtures/probes) on every engine found and prints a "
        "probe x engine matrix. Exit status: 0 when every outcome is the expected one, 1 when any is UNEXPECTED, "
        "2 on a usage error.",
    )
    p.add_argument("--engine", action="append", metavar="E", help=f"run on this engine only (repeatable; {', '.join(ENGINE_NAMES)})")
    p.add_argument("--json", metavar="FILE", help="write every result as JSON to FILE")
    p.add_argument("--html", metavar="FILE", help="write an HTML report with the evidence to FILE")
    p.add_argument("--generator", metavar="CMD", help="verify another generator: CMD reads an author source on stdin and prints the iframe HTML")
    p.add_argument("--probe", action="append", metavar="ID", help="run only probes whose id starts with ID (repeatable)")
    p.add_argument("--probes-dir", metavar="DIR", default=str(PROBES_DIR), help="the catalogue to run (default: the built-in one)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    remote.add_arguments(p)
    command("verify")(_verify)


def _writable(name: str | None, flag: str) -> Path | None:
    if name is None:
        return None
    path = Path(name)
    if path.is_dir():
        raise UsageError(f"{flag} {name}: is a directory, not a file")
    if not path.parent.exists():
        raise UsageError(f"{flag} {name}: the folder {path.parent} does not exist")
    return path


def _write(path: Path, text: str, flag: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot write: {exc.strerror}") from None


def _verify(args: argparse.Namespace) -> int:
    from . import report
    from .runner import CommandGenerator, Generator, run_matrix
    from .servers import Servers

    json_out = _writable(args.json, "--json")
    html_out = _writable(args.html, "--html")
    names = remote.server_names(args.bind, args.public_host, args.canary_host)
    engines, endpoints = remote.plan(args.engine, remote.parse_remote(args.remote))
    if not engines:
        raise UsageError("no browser engine found (run `make setup`, see README)")
    try:
        probes = load_catalogue(Path(args.probes_dir))
    except ProbeError as exc:
        raise UsageError(str(exc)) from None
    if args.probe:
        probes = [p for p in probes if any(p.id.startswith(prefix) for prefix in args.probe)]
        if not probes:
            raise UsageError(f"--probe {', '.join(args.probe)}: no probe id starts with that")
    if args.generator is not None:
        generator = CommandGenerator(args.generator)
        generator.preflight()
    else:
        generator = Generator()

    total = len(probes) * len(engines)
    finished = 0

    def progress(result, done: int, count: int) -> None:
        nonlocal finished
        finished += 1
        if not args.quiet:
            flag = "  <-- UNEXPECTED" if result.verdict == "UNEXPECTED" else ""
            print(f"[{finished:>3}/{total}] {result.engine:<8} {result.probe:<40} {result.verdict}{flag}", file=sys.stderr, flush=True)

    if not args.quiet:
        where = "".join(f" {e.name} on {len(endpoints[e.name])} remote browser(s)," for e in engines if e.name in endpoints)
        print(f"verify: {len(probes)} probes on {', '.join(e.name for e in engines)} (generator: {generator.name}){where.rstrip(',')}", file=sys.stderr)
    started = time.monotonic()

    async def run():
        async with Servers(names.bind, names.host, names.canary) as servers:
            return await run_matrix(engines, probes, generator, progress, servers, endpoints)

    runs = asyncio.run(run())
    wall = time.monotonic() - started

    print(report.text_matrix(probes, runs, wall))
    if json_out:
        _write(json_out, json.dumps(report.to_json(probes, runs, generator=generator.name, wall=wall), indent=1, ensure_ascii=False), "--json")
    if html_out:
        _write(html_out, report.to_html(probes, runs, generator=generator.name, wall=wall), "--html")
    return 1 if report.unexpected(runs) or report.engine_errors(runs) else 0
