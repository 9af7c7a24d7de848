"""Review speed, as ratios measured in one run.

    .venv/bin/python bench/review.py [--engine E]... [--static-only] [--batch N] [--single N]

1. Static review of the typical 5 KB block (bench/extraction.py's generator): blocks per
   second (target >= 500) and its cost as a multiple of ``extract_paths`` on the same
   block. CPU time, best of rounds.
2. In-browser review of that block, per engine: wall seconds for one block in a warm
   browser (target <= 2 s) and for a cold run (launch included).
3. Batch: N blocks (default 50, the corpus cycled) in one run of the in-browser layer
   (one browser per engine, pages reused and in parallel) against one browser launch per
   block, timed on ``--single`` blocks (default 5) and scaled to N (each single run is
   independent, so the scaling is linear). Target: the batch >= 5x faster.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction import block, best  # noqa: E402

from sandbox.extract import extract_paths  # noqa: E402
from sandbox.review.corpus import load_corpus  # noqa: E402
from sandbox.review.model import BlockInput  # noqa: E402
from sandbox.review.static import review_static  # noqa: E402

FIELDS = ["order.title", "order.total", "order.paid", "customer.name"]


def static_rows(typical: str) -> None:
    review_static(typical, fields=FIELDS)  # warm the parsers
    t_review = best(lambda s: review_static(s, fields=FIELDS), typical, 1.0)
    t_extract = best(extract_paths, typical, 1.0)
    print(f"static review, typical {len(typical.encode()) / 1024:.1f} KB block: {1 / t_review:,.0f} blocks/s "
          f"({t_review * 1000:.2f} ms; target >= 500/s), {t_review / t_extract:.1f}x extract_paths ({t_extract * 1e6:.0f} us)")
    corpus = load_corpus()
    start = time.process_time()
    for case in corpus:
        review_static(case.source, fields=case.fields)
    print(f"static review of the {len(corpus)}-block corpus: {(time.process_time() - start) * 1000:.0f} ms CPU")


def browser_rows(typical: str, engines: list[str] | None, batch: int, single: int) -> None:
    from sandbox.engines import select_engines
    from sandbox.review.browser import run_browser_layer

    names = [e.name for e in select_engines(engines)]
    corpus = [BlockInput(file=c.name + ".html", source=c.source, fields=c.fields, state=c.state) for c in load_corpus()]
    blocks = [corpus[i % len(corpus)] for i in range(batch)]
    one = BlockInput(file="typical.html", source=typical, fields=FIELDS)
    for name in names:
        start = time.monotonic()
        run_browser_layer([one], [name])
        cold = time.monotonic() - start
        start = time.monotonic()
        run_browser_layer([one] * 6, [name])
        six = time.monotonic() - start
        start = time.monotonic()
        run_browser_layer([one], [name])
        again = time.monotonic() - start
        warm = max(0.0, (six - again) / 5)  # the launch cancels out: five more blocks in the same browser
        print(f"{name}: typical block cold {cold:.1f} s (launch included), {warm:.2f} s per block in a warm browser "
              f"(target <= 2 s)")
        start = time.monotonic()
        run_browser_layer(blocks, [name])
        batched = time.monotonic() - start
        start = time.monotonic()
        for b in blocks[:single]:
            run_browser_layer([b], [name])
        per_launch = (time.monotonic() - start) / single
        print(f"{name}: {batch} blocks batched {batched:.1f} s; one launch per block {per_launch:.1f} s x {batch} = "
              f"{per_launch * batch:.0f} s (from {single}); batch {per_launch * batch / batched:.1f}x faster (target >= 5x)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", action="append")
    parser.add_argument("--static-only", action="store_true")
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--single", type=int, default=5)
    args = parser.parse_args()
    typical = block(5 * 1024)
    static_rows(typical)
    sys.stdout.flush()
    if not args.static_only:
        browser_rows(typical, args.engine, args.batch, args.single)
    return 0


if __name__ == "__main__":
    sys.exit(main())
