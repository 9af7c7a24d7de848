"""flowui_sandbox.sandbox.block.cpu_limited: a call in a forked child, its result or why it has none.

Extraction uses it for large sources (tests/test_extract.py checks the messages); here the
three ways a child is stopped, each with its own cause, and the result coming back.
"""

from __future__ import annotations

import os
import time

import pytest

from flowui_sandbox.sandbox.block.cpu_limited import AVAILABLE, ChildStopped, call_cpu_limited

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="no fork() on this platform: extraction parses in-process")


def _spin() -> None:
    while True:
        pass


def _sleep() -> None:
    time.sleep(60)


def _fail() -> None:
    raise MemoryError("out of memory")


def _pid_and(value):
    return [os.getpid(), value]


def test_the_result_comes_back_from_another_process():
    pid, value = call_cpu_limited(_pid_and, ("a", 1, ["b", (2.5, None)]), cpu_seconds=5, wall_seconds=60)
    assert pid != os.getpid()
    assert value == ("a", 1, ["b", (2.5, None)])


def test_a_large_result_comes_back_whole():
    big = ["x" * 100] * 50_000  # 5 MB: more than one pipe buffer, read in chunks
    assert call_cpu_limited(list, big, cpu_seconds=5, wall_seconds=60) == big


def test_a_call_that_spends_its_cpu_budget_is_stopped():
    # 0.2 s of CPU; the wall limit is far away so even a loaded machine reports the CPU cause.
    with pytest.raises(ChildStopped) as stopped:
        call_cpu_limited(_spin, cpu_seconds=0.2, wall_seconds=120)
    assert stopped.value.cause == "cpu"


def test_a_call_that_outlives_the_wall_clock_is_killed():
    with pytest.raises(ChildStopped) as stopped:
        call_cpu_limited(_sleep, cpu_seconds=5, wall_seconds=0.3)
    assert stopped.value.cause == "wall"


def test_a_call_that_fails_says_so():
    with pytest.raises(ChildStopped) as stopped:
        call_cpu_limited(_fail, cpu_seconds=5, wall_seconds=60)
    assert stopped.value.cause == "failed"
