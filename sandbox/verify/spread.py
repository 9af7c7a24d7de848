"""The catalogue spread over remote browsers: every session of an engine pulls probes from one queue.

A probe whose browser went away during its run (the server was killed, the machine
was lost) is run again on another session of the same engine, once
(:func:`flowui_sandbox.sandbox.harness.remote.spread`); each result records the browser that ran it
(``observed["browser"]``).
"""

from __future__ import annotations

import asyncio
import time

from ..engines import Engine
from ..engines.remote import Endpoint
from ..harness.pages import PagePool
from ..harness.remote import Worker, close_all, connect_all, spread
from .attempt import attempt_probe
from .generators import Generator
from .probes import Probe
from .results import EngineRun, Progress, Result, conclude
from .servers import Servers


async def run_remote(engine: Engine, endpoints: list[Endpoint], probes: list[Probe], servers: Servers,
                     generator: Generator, progress: Progress | None = None) -> EngineRun:
    started = time.monotonic()
    workers, unreachable = await connect_all(engine, endpoints)
    if not workers:
        return EngineRun(engine.name, [], "no remote browser answered: " + "; ".join(f"{u['url']}: {u['error']}" for u in unreachable),
                         time.monotonic() - started, unreachable)
    pools = {id(w): PagePool(w.session, w.pages) for w in workers}
    done = 0

    async def run(worker: Worker, probe: Probe) -> Result:
        nonlocal done
        alive = getattr(worker.session, "alive", None)
        result = (await attempt_probe(probe, pools[id(worker)], servers, generator, alive)).noting(browser=worker.label)
        done += 1
        if progress:
            progress(result, done, len(probes))
        return result

    def failed(probe: Probe, why: str) -> Result:
        nonlocal done
        result = conclude(probe.id, engine.name, "error", probe.expected(engine.name), observed={"why": why})
        done += 1
        if progress:
            progress(result, done, len(probes))
        return result

    async def warm(worker: Worker) -> None:
        try:
            await pools[id(worker)].warm()
        except Exception as exc:  # a browser that cannot open its pages takes no work
            worker.lost = f"could not open pages: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"

    try:
        await asyncio.gather(*(warm(w) for w in workers))
        results = await spread(workers, probes, run, failed)
    finally:
        for worker in workers:
            try:
                await asyncio.wait_for(pools[id(worker)].close(), 30)
            except TimeoutError:  # PagePool.close handles the driver's errors itself; the browser is closed next
                pass
        await close_all(workers)
    browsers = unreachable + [{"url": w.label, "probes": w.done, **({"lost": w.lost} if w.lost else {})} for w in workers]
    # Browsers lost or unreachable are no engine error while others did the work: the report lists them.
    error = "every remote browser was lost" if results and all(r.status == "error" for r in results) and all(w.lost for w in workers) else ""
    return EngineRun(engine.name, results, error, time.monotonic() - started, browsers)


__all__ = ["run_remote"]
