"""The in-browser layer of ``flowui-sandbox review``: the block run in every engine found, watched from outside.

:func:`run_browser_layer` mounts each block through the real generator and host module
with its state's projected leaves replaced by canaries (:mod:`.canaries`), routes every
request of the page, to any host, to local logging servers (:mod:`.proxy`), acts like a
user (:mod:`.run`), and hands what each engine saw, frozen (:mod:`.observation`), to the judge
(:mod:`.judge`), which turns it into findings. One browser per engine, a few pages in parallel,
all engines at once. docs/REVIEW.md ("In-browser layer") says what
each engine observes and what escapes.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable
from typing import Any

from ...block.extract import extract_paths
from ...engines import Engine, EngineError, give_loop_threads, select_engines
from ...engines.remote import Endpoint, plan
from ...errors import OptionError, Recovered, UsageError
from ...harness.remote import ServerNames, Worker, close_all, connect_all
from ...harness.server import tls_context
from ..model import BlockInput, BrowserResult
from . import judge
from .canaries import Canaries
from .observation import BlockObservation
from .run import SETTLE, SLOTS, Lane, Work

#: Default per-block time limit (s) per engine.
TIME_LIMIT = 15.0

Progress = Callable[[str], None]


def run_browser_layer(blocks: list[BlockInput], engines: list[str] | None, *, time_limit: float = TIME_LIMIT,
                      progress: Progress | None = None, settle: float = SETTLE, slots: int = SLOTS,
                      remote: list[Endpoint] | None = None, names: ServerNames | None = None,
                      screenshots: bool = True) -> list[BrowserResult]:
    """Review ``blocks`` in the ``engines`` named (None: every engine found, or with ``remote`` the
    engines given remote browsers); results in the blocks' order. ``remote``: browsers elsewhere
    (:func:`flowui_sandbox.sandbox.engines.remote.parse_remote`); an engine named without one runs here.

    Raises :class:`UsageError` when a named engine is not installed or none is found, and
    :class:`OptionError` when no remote browser of an engine answers. ``names``: where the slots' proxies
    listen and the name the remote browsers reach them by (default: 127.0.0.1). ``screenshots``: take
    each block's light and dark screenshot (``BrowserResult.screenshots``; a SARIF or text report
    does not show them, and a batch takes about a tenth longer with them: docs/REVIEW-BROWSER.md)."""
    if remote:
        chosen, endpoints = plan(engines, list(remote))
    else:
        try:
            chosen, endpoints = select_engines(engines), {}
        except EngineError as exc:
            raise UsageError(f"--engine: {exc}") from None
    if not chosen:
        raise UsageError("review: no browser engine found for the in-browser layer (run `make setup`, or use --static)")
    return asyncio.run(review_in_browsers(blocks, chosen, time_limit=time_limit, progress=progress, settle=settle, slots=slots,
                                          remote=endpoints, names=names, screenshots=screenshots))


async def review_in_browsers(blocks: list[BlockInput], engines: list[Engine], *, time_limit: float = TIME_LIMIT,
                             progress: Progress | None = None, settle: float = SETTLE, slots: int = SLOTS,
                             remote: dict[str, list[Endpoint]] | None = None, names: ServerNames | None = None,
                             screenshots: bool = True) -> list[BrowserResult]:
    """Review ``blocks`` in ``engines``; an engine with endpoints in ``remote`` on those browsers
    (at least one of each engine's must answer: :class:`OptionError` naming them, before any block
    runs; one that does not while another does is a :class:`Recovered` note)."""
    workers = await _connect(engines, remote or {})
    loop = asyncio.get_running_loop()
    give_loop_threads(loop, "flowui-review")
    loop.set_exception_handler(_quiet)
    _, context = tls_context("127.0.0.1", "localhost")
    works = [_work(i, b) for i, b in enumerate(blocks)]
    total = len(works) * len(engines)
    done = 0

    def on_done(engine: str, work: Work) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(f"{done}/{total} {engine} {work.file}")

    lanes = [Lane(e, context, time_limit=time_limit, settle=settle, slots=slots, on_done=on_done, remote=workers.get(e.name),
                  names=names, screenshots=screenshots)
             for e in engines]
    quiet = _QuietDisconnects()
    logging.getLogger("aiohttp.server").addFilter(quiet)
    try:
        runs = await run_lanes(lanes, works)
    finally:
        logging.getLogger("aiohttp.server").removeFilter(quiet)
    results = []
    for w in works:
        per_engine = {lane.engine.name: run[w.index] for lane, run in zip(lanes, runs)}
        results.append(judge.judge(w, per_engine))
    return results


async def run_lanes(lanes: list[Lane], works: list[Work]) -> list[dict[int, BlockObservation]]:
    """Every engine's lane at once; a lane that is done lends its pages to those still reviewing
    (Firefox's lane is the last by minutes: alone on its three pages it did not fill the cores)."""

    async def run(lane: Lane) -> dict[int, BlockObservation]:
        try:
            return await lane.run(works)
        finally:
            others = [other for other in lanes if other is not lane]
            for k, other in enumerate(others):
                other.lend(lane.size // len(others) + (k < lane.size % len(others)))

    return list(await asyncio.gather(*(run(lane) for lane in lanes)))


async def _connect(engines: list[Engine], remote: dict[str, list[Endpoint]]) -> dict[str, list[Worker]]:
    """The remote browsers of each engine, connected. An engine none of whose browsers answers is
    refused (:class:`OptionError` naming them, the others closed); a browser that does not answer
    while another of its engine does is a note (:class:`Recovered`), and its share goes to the
    others: verify's rule (docs/SCALE.md, "A lost browser")."""
    named = [e for e in engines if remote.get(e.name)]
    connected = await asyncio.gather(*(connect_all(e, remote[e.name]) for e in named))
    refused = [u for workers, errors in connected if not workers for u in errors]
    if refused:
        await asyncio.gather(*(close_all(w) for w, _ in connected))
        raise OptionError("\n".join(f"--remote {u['error']}" for u in refused))  # each names its engine and URL
    for _, errors in connected:
        for u in errors:
            said = u["error"].strip().splitlines()[0] if u["error"].strip() else f"{u['url']}: no answer"
            warnings.warn(Recovered(f"--remote {said}; the engine's blocks go to its other browsers"), stacklevel=1)
    return {e.name: w for e, (w, _) in zip(named, connected)}


class _QuietDisconnects(logging.Filter):
    """A hung page closed while a server sent it the bridge files is expected here, not news."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        while exc is not None:
            if isinstance(exc, ConnectionError):
                return False
            exc = exc.__context__
        return True


def _quiet(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A tunnel the browser tore down mid-handshake is no news, and neither is the failure of a step
    the harness abandoned (a block past its time limit: its page is dropped, its verdict recorded);
    anything else is reported as usual."""
    exc = context.get("exception")
    if isinstance(exc, (ConnectionError, OSError, AttributeError)):
        return
    if str(context.get("message", "")).startswith("Task exception was never retrieved") and (
            isinstance(exc, (EngineError, TimeoutError)) or type(exc).__module__.startswith("playwright")):
        return
    loop.default_exception_handler(context)


def _work(index: int, block: BlockInput) -> Work:
    from flowui_sandbox.theme import DARK, LIGHT, Theme

    try:
        paths = extract_paths(block.source)
    except Exception:
        paths = []
    fields = list(block.fields)
    light = Theme.parse(block.theme) if block.theme else LIGHT
    dark = DARK if light.color_scheme != "dark" else LIGHT
    if light.color_scheme == "dark":
        light, dark = dark, light
    return Work(index, block.file, block.source, fields, [*fields, *[p for p in paths if p not in fields]],
                dict(block.state or {}), block.theme, dark.to_json(), light.to_json(),
                (light.tokens["page-background"], dark.tokens["page-background"]))


__all__ = ["run_browser_layer", "review_in_browsers", "run_lanes", "TIME_LIMIT", "Canaries"]
