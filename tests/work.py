"""Work counted, not timed: how many Python and built-in calls a function makes.

A test that a hostile input stays linear compares the calls made at two sizes of the same input:
a count is the same on every machine and every run, where seconds depend on what else the machine
is doing (timings belong in ``bench/``). Calls miss work done inside one built-in (a quadratic
``str`` concatenation), so a test states the size ratio its count allows and why.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def calls_made(fn: Callable[[], T]) -> tuple[T, int]:
    """``fn()``'s result and the number of function calls, Python and built-in, it made in this thread."""
    count = 0

    def tally(frame, event, arg):
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    previous = sys.getprofile()
    sys.setprofile(tally)
    try:
        result = fn()
    finally:
        sys.setprofile(previous)
    return result, count
