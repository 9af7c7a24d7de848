"""Time the server's pattern check on a pathological pattern (issue 21, item 2).

``(a+)+b`` on ``"a" * n`` backtracks exponentially in Python's ``re``; the server runs the
pattern subset with RE2 (sandbox/document/pattern.py), linear in the input. Prints the best of
several rounds for RE2 at 10,000 characters and for Python's ``re`` at small n (each extra
character doubles its time, so 10,000 characters are out of reach).

    .venv/bin/python bench/patterns.py
"""

from __future__ import annotations

import re
import time

from flowui_sandbox.sandbox.document.pattern import compile_pattern


def best(fn, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    pattern = compile_pattern("(a+)+b")
    for n in (100, 1_000, 10_000):
        text = "a" * n
        print(f"RE2 (the server): (a+)+b on {n:>6,} characters: {best(lambda text=text: pattern.fullmatch(text)) * 1e3:8.3f} ms")
    email = compile_pattern(r"[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}")
    text = "a" * 9_990 + "@b.cc"
    print(f"RE2 (the server): an email pattern on 9,995 characters: {best(lambda: email.fullmatch(text)) * 1e3:8.3f} ms")
    python = re.compile("(?:(a+)+b)")
    for n in (16, 18, 20, 22):
        text = "a" * n
        print(f"Python re:        (a+)+b on {n:>6,} characters: {best(lambda text=text: python.fullmatch(text), 1) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
