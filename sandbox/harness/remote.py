"""Work spread over the browsers of an engine, and the names of the servers remote browsers reach.

The remote endpoints and their sessions are :mod:`.engines.remote`'s (``ENGINE[:PAGES]=URL``,
see docs/SCALE.md); here a session becomes a :class:`Worker`:

:func:`spread` runs jobs (probes, author blocks) over every session of an engine
from one queue, each session ``pages`` jobs at a time; a session whose browser goes
away retires, and the job it held goes back to the queue for another session.

The servers that observe a block must be reachable from the remote browsers:
:func:`server_names` turns ``--bind``, ``--public-host`` and ``--canary-host`` into
the bind address and the two site names (defaults: 127.0.0.1, ``127.0.0.1`` and ``localhost``).
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ..engines import Engine, EngineError, Session
from ..engines.remote import Endpoint, connect
from ..errors import OptionError


async def connect_all(engine: Engine, endpoints: list[Endpoint]) -> tuple[list[Worker], list[dict[str, str]]]:
    """A worker per endpoint that answered, and ``{"url", "error"}`` for each that did not."""
    connected = await asyncio.gather(*(connect(engine, e) for e in endpoints), return_exceptions=True)
    workers: list[Worker] = [Worker(c, e.pages, e.url, endpoint=e) for e, c in zip(endpoints, connected) if not isinstance(c, BaseException)]
    errors = [{"url": e.url, "error": str(c)} for e, c in zip(endpoints, connected) if isinstance(c, BaseException)]
    return workers, errors


async def close_all(workers: list[Worker]) -> None:
    for worker in workers:
        try:
            await asyncio.wait_for(worker.session.close(), 30)
        except Exception:  # best effort: a browser already gone raises its driver's own error; the others still close
            pass


# --------------------------------------------------------------------------- spreading


class SessionLost(EngineError):
    """The browser behind a session went away while it held a job."""


J = TypeVar("J")
R = TypeVar("R")


@dataclass
class Worker(Generic[J]):
    """One session and how many jobs it takes at once."""

    session: Session
    pages: int
    label: str
    lost: str = ""  # why it retired
    done: int = 0
    #: Where the session was connected to (None for a session made here: a test's).
    endpoint: Endpoint | None = None


@dataclass
class _Item(Generic[J]):
    index: int
    job: J
    lost_on: list[str] = field(default_factory=list)


async def spread(workers: list[Worker], jobs: list[J], run: Callable[[Worker, J], Awaitable[R]],
                 failed: Callable[[J, str], R], *, retries: int = 1) -> list[R]:
    """``run(worker, job)`` for every job, each worker ``pages`` at a time, all pulling from one queue.

    ``run`` raises :class:`SessionLost` when the worker's browser went away: the worker
    retires and the job goes back to the queue for another worker, ``retries`` times at
    most; then (or when no worker is left) ``failed(job, why)`` stands for its result.
    Results come back in the order of ``jobs``.
    """
    queue: list[_Item[J]] = [_Item(i, job) for i, job in enumerate(jobs)]
    results: dict[int, R] = {}
    wake = asyncio.Event()

    def active() -> list[Worker]:
        return [w for w in workers if not w.lost]

    async def lane(worker: Worker) -> None:
        while len(results) < len(jobs) and not worker.lost:
            if not queue:
                wake.clear()
                # Work may come back from a lane whose browser was lost: wait for it, or for the end.
                try:
                    await asyncio.wait_for(wake.wait(), 0.2)
                except TimeoutError:
                    pass
                continue
            item = queue.pop(0)
            try:
                results[item.index] = await run(worker, item.job)
                worker.done += 1
            except SessionLost as exc:
                worker.lost = worker.lost or (str(exc) or "the browser went away")
                item.lost_on.append(worker.label)
                if len(item.lost_on) > retries or not active():
                    results[item.index] = failed(item.job, f"lost with its browser on {', '.join(item.lost_on)}")
                else:
                    queue.insert(0, item)
            wake.set()

    async def drain() -> None:
        # Every worker lost: what is left fails, so the run ends with a result per job.
        while len(results) < len(jobs):
            if not active():
                for item in queue:
                    results[item.index] = failed(item.job, "every browser of this engine was lost: " + "; ".join(f"{w.label}: {w.lost}" for w in workers))
                queue.clear()
                return
            await asyncio.sleep(0.2)

    await asyncio.gather(drain(), *(lane(w) for w in workers for _ in range(w.pages)))
    return [results[i] for i in range(len(jobs))]


# ------------------------------------------------- the observing servers' names


@dataclass(frozen=True)
class ServerNames:
    bind: str
    host: str  # the host origins' name in URLs
    canary: str  # the canary's: another site


def _is_loopback(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def server_names(bind: str = "127.0.0.1", public_host: str | None = None, canary_host: str | None = None, *,
                 canary: bool = True) -> ServerNames:
    """The bind address and the two site names, checked (OptionError naming the option).
    ``canary=False``: no canary site is served (review's proxy), so none is asked for."""
    problems = []
    try:
        address = ipaddress.ip_address(bind)
    except ValueError:
        raise OptionError(f"--bind {bind}: not an IP address (give the address of an interface, or 0.0.0.0)") from None
    if address.version != 4:
        problems.append(f"--bind {bind}: only IPv4 addresses are supported")
    host = public_host or ("127.0.0.1" if address.is_unspecified else bind)
    if address.is_unspecified and not public_host:
        problems.append(f"--bind {bind}: give --public-host NAME, the name or address the remote browsers reach this machine by")
    canary_name = canary_host or "localhost"
    if not canary:
        pass
    elif not canary_host and not address.is_unspecified and bind != "127.0.0.1":
        problems.append(f"--bind {bind}: give --canary-host NAME, a name of that address on another site than {host} "
                        "(localhost is 127.0.0.1)")
    elif not _is_loopback(host) and not canary_host:
        problems.append(f"--public-host {host}: give --canary-host NAME too, another name of this machine on another site "
                        "(e.g. the address for --public-host and a DNS name for --canary-host)")
    if canary and canary_name == host:
        problems.append(f"--canary-host {canary_name}: must differ from --public-host (the canary stands for another site)")
    if problems:
        raise OptionError("\n".join(problems))
    return ServerNames(bind, host, canary_name)


__all__ = ["connect_all", "close_all", "SessionLost", "Worker", "spread", "server_names", "ServerNames"]
