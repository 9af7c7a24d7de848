"""What `flowui-sandbox verify` does: run the attack-probe catalogue on every engine, print the
matrix, write the reports; from the command's options (sandbox/cli.py) to its exit status."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..engines.remote import parse_remote, plan
from ..errors import OptionError, UsageError
from ..files import writable_output, write_output
from ..harness import remote
from .probes import PROBES_DIR, ProbeError, load_catalogue


def verify(*, engines: Sequence[str] | None = None, json_file: str | None = None, html_file: str | None = None,
           generator: str | None = None, generator_protocol: str = "source", probe_prefixes: Sequence[str] | None = None,
           probes_dir: str = str(PROBES_DIR), quiet: bool = False, remote_specs: Sequence[str] = (),
           bind: str = "127.0.0.1", public_host: str | None = None, canary_host: str | None = None) -> int:
    """Run the catalogue in ``probes_dir`` (only the probes whose id starts with one of
    ``probe_prefixes``) on ``engines`` (default: every engine found, plus the ``remote_specs``
    ``ENGINE[:PAGES]=URL``), against the built-in generator or the command ``generator``.
    Return 0 when every outcome is the expected one, 1 otherwise; a bad option is an
    :class:`OptionError` naming it."""
    from . import report
    from .runner import CommandGenerator, Generator, run_matrix
    from .servers import Servers

    json_out = writable_output(json_file) if json_file else None
    html_out = writable_output(html_file) if html_file else None
    names = remote.server_names(bind, public_host, canary_host)
    chosen_engines, endpoints = plan(list(engines) if engines is not None else None, parse_remote(list(remote_specs)))
    if not chosen_engines:
        raise OptionError("no browser engine found (run `make setup`, see README)")
    if not Path(probes_dir).is_dir():
        raise OptionError(f"--probes-dir {probes_dir}: not a folder")
    try:
        probes = load_catalogue(Path(probes_dir))
    except ProbeError as exc:
        raise UsageError(str(exc)) from None
    if probe_prefixes:
        probes = [p for p in probes if any(p.id.startswith(prefix) for prefix in probe_prefixes)]
        if not probes:
            raise OptionError(f"--probe {', '.join(probe_prefixes)}: no probe id starts with that")
    if generator is None and generator_protocol != "source":
        raise OptionError("--generator-protocol: needs --generator CMD (the built-in generator takes every input)")
    if generator is not None:
        command = CommandGenerator(generator, generator_protocol)
        command.preflight()
        chosen: Generator = command
    else:
        chosen = Generator()

    total = len(probes) * len(chosen_engines)
    finished = 0

    def progress(result, done: int, count: int) -> None:
        nonlocal finished
        finished += 1
        if not quiet:
            flag = "  <-- UNEXPECTED" if result.verdict == "UNEXPECTED" else ""
            print(f"[{finished:>3}/{total}] {result.engine:<8} {result.probe:<40} {result.verdict}{flag}", file=sys.stderr, flush=True)

    if not quiet:
        where = "".join(f" {e.name} on {len(endpoints[e.name])} remote browser(s)," for e in chosen_engines if e.name in endpoints)
        print(f"verify: {len(probes)} probes on {', '.join(e.name for e in chosen_engines)} (generator: {chosen.name}){where.rstrip(',')}", file=sys.stderr)
    started = time.monotonic()

    async def run():
        async with Servers(names.bind, names.host, names.canary) as servers:
            return await run_matrix(chosen_engines, probes, chosen, progress, servers, endpoints)

    runs = asyncio.run(run())
    wall = time.monotonic() - started

    print(report.text_matrix(probes, runs, wall))
    if json_out:
        write_output(json_out, json.dumps(report.to_json(probes, runs, generator=chosen.name, wall=wall), indent=1, ensure_ascii=False))
    if html_out:
        write_output(html_out, report.to_html(probes, runs, generator=chosen.name, wall=wall))
    return 1 if report.unexpected(runs) or report.engine_errors(runs) else 0
