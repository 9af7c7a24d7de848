"""`build --page`: the self-contained host page mounts the block through the host module, in every engine."""

import json
from pathlib import Path

from sandbox.generator import build_page

ROOT = Path(__file__).resolve().parents[2]


def test_starter_page_mounts_and_answers_the_bridge(page, server):
    state = json.loads((ROOT / "examples" / "starter.state.json").read_text(encoding="utf-8"))
    html = build_page(
        (ROOT / "examples" / "starter.html").read_text(encoding="utf-8"),
        block_id="starter", state=state, fields=["order.items", "draft.email", "draft.agree"],
    )
    page.goto(server.add_page(html))
    # The host module connected the block, and its log reached the page.
    page.wait_for("() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('connected'))", timeout=20)
    # The block rendered its projection: the bound customer name is in the frame.
    assert page.wait_for(
        "() => document.querySelector('[data-bind=\"customer.name\"]')?.textContent", frame="#block iframe"
    ) == state["customer"]["name"]
    # A bridge call from inside the block comes back answered by the page's host.
    reply = page.evaluate("() => flowUi.send('preview_check', {n: 1})", frame="#block iframe")
    assert reply == {"received": "preview_check"}
    assert page.wait_for("() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('action preview_check'))")
