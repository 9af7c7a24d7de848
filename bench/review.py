"""Static review speed, as ratios measured in one run (bench/review_browser.py has the in-browser half).

    .venv/bin/python bench/review.py

Static review of the typical 5 KB block (bench/extraction.py's generator): blocks per
second (target >= 500) and its cost as a multiple of ``extract_paths`` on the same block
(the review parses the HTML, the JavaScript and the CSS, and runs the data flow; the
extraction only the HTML). CPU time, best of rounds. Then the whole corpus
(fixtures/review/) and the review of a 4 MiB source (refused at once: a finding).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction import best, block

from flowui_sandbox.sandbox.block.extract import extract_paths
from flowui_sandbox.sandbox.review.corpus import load_corpus
from flowui_sandbox.sandbox.review.static import review_static

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


def main() -> int:
    static_rows(block(5 * 1024))
    big = "<p>" + "x" * (4 * 1024 * 1024) + "</p>"
    start = time.perf_counter()
    findings = review_static(big)
    print(f"a 4 MiB source: {findings[0].rule} in {(time.perf_counter() - start) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
