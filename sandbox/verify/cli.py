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
from ..errors import OptionError, UsageError
from ..files import writable_output, write_output
from .probes import PROBES_DIR, ProbeError, load_catalogue
from .request import GENERATOR_PROTOCOLS


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
    p.add_argument("--generator", metavar="CMD", help="verify another generator: CMD reads a block on stdin and prints the iframe HTML "
                   "(exit status 2: it refuses the input)")
    p.add_argument("--generator-protocol", choices=GENERATOR_PROTOCOLS, default="source",
                   help="what CMD reads on stdin: 'source' (default) the author source only, so probes needing fields, state, "
                   "theme or the bridge are n/a; 'json' one JSON object {version, source, block_id, fields, state, theme}, so "
                   "every probe runs (docs/GENERATORS.md)")
    p.add_argument("--probe", action="append", metavar="ID", help="run only probes whose id starts with ID (repeatable)")
    p.add_argument("--probes-dir", metavar="DIR", default=str(PROBES_DIR), help="the catalogue to run (default: the built-in one)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    remote.add_arguments(p)
    command("verify")(_verify)


def _verify(args: argparse.Namespace) -> int:
    from . import report
    from .runner import CommandGenerator, Generator, run_matrix
    from .servers import Servers

    json_out = writable_output(args.json) if args.json else None
    html_out = writable_output(args.html) if args.html else None
    names = remote.server_names(args.bind, args.public_host, args.canary_host)
    engines, endpoints = remote.plan(args.engine, remote.parse_remote(args.remote))
    if not engines:
        raise OptionError("no browser engine found (run `make setup`, see README)")
    if not Path(args.probes_dir).is_dir():
        raise OptionError(f"--probes-dir {args.probes_dir}: not a folder")
    try:
        probes = load_catalogue(Path(args.probes_dir))
    except ProbeError as exc:
        raise UsageError(str(exc)) from None
    if args.probe:
        probes = [p for p in probes if any(p.id.startswith(prefix) for prefix in args.probe)]
        if not probes:
            raise OptionError(f"--probe {', '.join(args.probe)}: no probe id starts with that")
    if args.generator is None and args.generator_protocol != "source":
        raise OptionError("--generator-protocol: needs --generator CMD (the built-in generator takes every input)")
    generator: Generator
    if args.generator is not None:
        generator = CommandGenerator(args.generator, args.generator_protocol)
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
        write_output(json_out, json.dumps(report.to_json(probes, runs, generator=generator.name, wall=wall), indent=1, ensure_ascii=False))
    if html_out:
        write_output(html_out, report.to_html(probes, runs, generator=generator.name, wall=wall))
    return 1 if report.unexpected(runs) or report.engine_errors(runs) else 0
