"""A call made in a forked child that the kernel stops after a budget of CPU time.

Extraction (:mod:`flowui_sandbox.sandbox.block.extract`) parses a large untrusted source here: lexbor's cost
grows with tags x nesting depth and a parse cannot be interrupted from Python, so the
parse runs where a CPU-time timer (``ITIMER_PROF``, whose default action ends the
process even inside C code) and a wall-clock kill can stop it. docs/PARSER.md gives
the measurements behind the budgets.

The child runs only ``fn`` (lexbor and a little Python), marshal and ``os.write``, then
``os._exit``: no lock another thread may hold is touched, so forking a threaded
process is safe. The result must be marshal-able (strings, numbers, lists, tuples,
dicts).
"""

from __future__ import annotations

import gc
import marshal
import os
import select
import signal
import time
import warnings
from collections.abc import Callable
from typing import Any, Literal

from ..errors import SandboxError

#: Whether this platform can run a call in a child (no ``fork``: the caller runs it in-process).
AVAILABLE = hasattr(os, "fork")


class ChildStopped(SandboxError):
    """The child gave no result. ``cause``: ``"cpu"`` (its CPU budget ran out), ``"wall"``
    (the wall-clock limit ran out first: a loaded machine, or a slow call) or ``"failed"``
    (it exited otherwise, e.g. out of memory)."""

    def __init__(self, cause: Literal["cpu", "wall", "failed"]):
        self.cause = cause
        super().__init__(cause)


def call_cpu_limited(fn: Callable[..., Any], *args: Any, cpu_seconds: float, wall_seconds: float) -> Any:
    """``fn(*args)`` in a forked child that may use ``cpu_seconds`` of CPU and is killed
    after ``wall_seconds``; its result comes back through a pipe. Raises
    :class:`ChildStopped` when there is none."""
    read, write = os.pipe()
    with warnings.catch_warnings():  # Python 3.12+ warns about fork() with threads running
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        status = 1
        try:
            gc.disable()  # a collection would touch (and so copy) every page of the parent
            os.close(read)
            # SIGPROF after cpu_seconds of CPU time; its default action ends the
            # child even inside C code (no Python handler runs there).
            signal.signal(signal.SIGPROF, signal.SIG_DFL)
            signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
            view = memoryview(marshal.dumps(fn(*args)))
            while view:
                view = view[os.write(write, view):]
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    chunks: list[bytes] = []
    deadline = time.monotonic() + wall_seconds
    killed = False
    poller = select.poll()  # not select.select: it fails on descriptors above 1023
    poller.register(read, select.POLLIN)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                killed = True
                break
            if poller.poll(left * 1000):
                chunk = os.read(read, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
    except BaseException:  # e.g. KeyboardInterrupt: do not leave the child running
        os.kill(pid, signal.SIGKILL)
        raise
    finally:
        os.close(read)
        _, status = os.waitpid(pid, 0)
    if killed:
        raise ChildStopped("wall")
    if os.WIFSIGNALED(status):
        raise ChildStopped("cpu")
    if os.WEXITSTATUS(status) != 0:
        raise ChildStopped("failed")
    return marshal.loads(b"".join(chunks))


__all__ = ["AVAILABLE", "ChildStopped", "call_cpu_limited"]
