"""Time the ui-action check on large messages (sandbox/document/action.py).

A user can send up to 1,000,000 characters of fields; an html block may write any path under
its own fields, so one message can carry tens of thousands of keys. The check is linear in
them: each key costs a look-up of its prefixes (not a scan of the page's inputs), and the
writes are made on one copy of the touched containers (not a copy of the state per key).

    .venv/bin/python bench/actions.py
"""

from __future__ import annotations

import time

from flowui_sandbox.sandbox.document import validate_ui_action
from flowui_sandbox.sandbox.document.projection import report_of

MT = "application/vnd.platform.ui-action+json"


def main() -> None:
    document = {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": [
        *[{"block_id": f"i{i}", "type": "text_input", "field": f"f{i}", "pattern": "[a-z]+"} for i in range(300)],
        {"block_id": "card", "type": "html", "source": "<p></p>", "fields": ["bag"]}]}]}
    report = report_of(document)  # validated once, as a server keeps it
    for n in (2_000, 8_000, 32_000):
        fields = {f"bag.k{i}": i for i in range(n)}
        message = {"role": "ROLE_USER", "parts": [{"mediaType": MT, "data": {"action": "go", "source": "card", "fields": fields}}]}
        best = min(_time(lambda message=message: validate_ui_action(report, "p", message, state={"bag": {}})) for _ in range(3))
        print(f"{n:>6,} keys under an html block's field: {best * 1e3:8.1f} ms ({best / n * 1e6:.1f} µs a key)")
    fields = {f"f{i}": "abc" * 100 for i in range(300)}
    message = {"role": "ROLE_USER", "parts": [{"mediaType": MT, "data": {"action": "go", "source": "card", "fields": fields}}]}
    best = min(_time(lambda: validate_ui_action(report, "p", message, state={})) for _ in range(3))
    print(f"   300 patterned inputs of 300 characters: {best * 1e3:8.1f} ms")


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
