"""Runs the probe catalogue: one browser per engine, probes in parallel pages, all engines at once.

A probe's run on one page is :mod:`.attempt`'s; :func:`run_engine` runs the catalogue in one
local browser, :func:`.spread.run_remote` spreads it over remote browsers, and
:func:`run_matrix` runs every engine at once, each the one way or the other. The names of
:mod:`.attempt`, :mod:`.generators` and :mod:`.results` a caller of the runner needs are
re-exported here.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..engines import Engine, EngineError, Session, Watch, give_loop_threads, launch
from ..harness.pages import PagePool
from .attempt import Run, attempt_probe
from .generators import CommandGenerator, Generator, GeneratorOutputError, GeneratorRefused, check_iframe
from .judge import outcome_of, verdict_of
from .observation import ALWAYS
from .probes import Probe
from .results import EngineRun, Progress, Result, conclude
from .servers import Servers
from .spread import run_remote

#: Pages open at once per engine (WebKit pages are whole MiniBrowsers). The 2-core machine is CPU-bound with three browsers (no idle CPU during a run):
# 3 pages each gave the same wall time as 6 (160 s against 169 s) with fewer pages lost to timeouts.
CONCURRENCY = {"chromium": 3, "firefox": 3, "webkit": 3}


async def run_engine(session: Session, probes: list[Probe], servers: Servers, generator: Generator,
                     progress: Progress | None = None, concurrency: int | None = None) -> list[Result]:
    """Every probe on one running browser, ``concurrency`` pages at a time."""
    engine = session.engine.name
    pages = PagePool(session, concurrency or CONCURRENCY.get(engine, 4))
    limit = asyncio.Semaphore(pages.size)
    done = 0

    async def one(probe: Probe) -> Result:
        nonlocal done
        async with limit:
            result = await attempt_probe(probe, pages, servers, generator)
        done += 1
        if progress:
            progress(result, done, len(probes))
        return result

    try:
        await pages.warm()
        return list(await asyncio.gather(*(one(p) for p in probes)))
    finally:
        await pages.close()


async def run_matrix(engines: list[Engine], probes: list[Probe], generator: Generator | None = None,
                     progress: Progress | None = None, servers: Servers | None = None,
                     remote: dict[str, list[Any]] | None = None) -> list[EngineRun]:
    """The catalogue on every engine at once, each engine in its own browser,
    or spread over the remote browsers ``remote[engine]`` (sandbox.engines.remote.Endpoint) when given."""
    generator = generator or Generator()
    loop = asyncio.get_running_loop()
    give_loop_threads(loop, "flowui-verify")
    own = servers is None
    servers = servers or await Servers().start()

    async def per_engine(engine: Engine) -> EngineRun:
        started = time.monotonic()
        if remote and remote.get(engine.name):
            return await run_remote(engine, remote[engine.name], probes, servers, generator, progress)
        try:
            session = await launch(engine)
        except EngineError as exc:
            return EngineRun(engine.name, [], str(exc), time.monotonic() - started)
        try:
            results = await run_engine(session, probes, servers, generator, progress)
        finally:
            try:
                await asyncio.wait_for(session.close(), 30)
            except Exception:  # best effort: a browser already gone raises its driver's own error; its results stand
                pass
        return EngineRun(engine.name, results, "", time.monotonic() - started)

    try:
        return list(await asyncio.gather(*(per_engine(e) for e in engines)))
    finally:
        if own:
            await servers.stop()


__all__ = [
    "Result", "EngineRun", "Generator", "CommandGenerator", "GeneratorOutputError", "GeneratorRefused", "check_iframe",
    "run_engine", "run_matrix", "attempt_probe", "conclude", "outcome_of", "verdict_of", "ALWAYS", "CONCURRENCY", "Watch",
    "Run", "Progress",
]
