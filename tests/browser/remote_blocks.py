"""The corpus blocks both review-through-browser-servers files review (test_review_remote.py,
test_review_remote_command.py): a benign block, leaks by an image, on a click, on a change, through
openUrl, a bridge send, and two blocks that leak only in a browser that looks like a desktop
user's (a non-UTC time zone, no ``HeadlessChrome`` user agent): the browser server's persona
(sandbox/harness/browser_server.py)."""

from __future__ import annotations

from flowui_sandbox.sandbox.review.corpus import load_corpus
from flowui_sandbox.sandbox.review.model import BlockInput

BLOCKS = ["benign_card", "exfil_image", "exfil_on_click_handler", "exfil_onchange", "exfil_openurl", "benign_form_send",
          "evade_timezone_utc", "evade_headless_ua"]


def remote_blocks() -> list[BlockInput]:
    cases = {c.name: c for c in load_corpus()}
    return [BlockInput(file=name, source=cases[name].source, fields=cases[name].fields, state=cases[name].state) for name in BLOCKS]
