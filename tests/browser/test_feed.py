"""bridge/flow-ui-feed.js in real browsers: a long feed mounts only the blocks near the viewport,
unmounts those far away, and a block mounted again has the state the host kept (its own
setValue included) at the height it had."""

from __future__ import annotations

import json

BLOCK = """<div style="height:300px;border:1px solid #999">block {i}:
<b data-bind="card.title"></b> <i data-bind="draft.note"></i></div>
<script>
window.mountedAt = Date.now();
flowUi.onChange(function () {});
if ({i} === 0 && !flowUi.get('draft.note')) flowUi.setValue('draft.note', 'typed in block 0');
</script>"""

COUNT = 40

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>feed</title>
<style>body{margin:0}#feed{width:500px}</style></head><body><div id="feed"></div>
<script type="module">
import { mountFeed } from '/bridge/flow-ui-feed.js';
const items = %(items)s;
window.unmounted = [];
window.feed = mountFeed(document.getElementById('feed'), items, {
  mountMargin: '0px 0px', unmountMargin: '100%% 0px', onUnmount: (i) => window.unmounted.push(i),
});
window.feed.settled.then(() => { window.ready = true; });
</script></body></html>"""


def _page_html() -> str:
    items = [
        {"source": BLOCK.replace("{i}", str(i)), "blockId": f"b{i}", "fields": ["draft.note"] if i == 0 else [],
         "state": {"card": {"title": f"title {i}"}}}
        for i in range(COUNT)
    ]
    return PAGE % {"items": json.dumps(items).replace("<", "\\u003c")}


def _frame_text(page, i: int) -> str:
    return page.evaluate("() => document.body.innerText", frame=f'[data-index="{i}"] iframe')


def test_a_feed_mounts_near_the_viewport_and_keeps_state(flowui_page, flowui_server):
    flowui_page.goto(flowui_server.add_page(_page_html()))
    flowui_page.wait_for("() => window.ready === true", timeout=20)
    first = flowui_page.evaluate("() => window.feed.mounted")
    assert 0 in first and len(first) < COUNT // 2, first
    # Block 0 is connected and its own setValue reached the host's state.
    flowui_page.wait_for("() => { const s = window.feed.state(0); return s.draft && s.draft.note === 'typed in block 0'; }", timeout=20)
    height0 = flowui_page.wait_for("() => { const h = window.feed.handle(0); return h && h.iframe.getBoundingClientRect().height > 250 && h.iframe.getBoundingClientRect().height; }", timeout=20)

    # Far down: the last blocks mount, block 0 is unmounted and its frame is gone.
    # Blocks that mount on the way grow from the placeholder's height and push the end down: the
    # user keeps scrolling until the end stays in view.
    flowui_page.wait_for("() => { window.scrollTo(0, document.body.scrollHeight); "
                         f"return window.feed.mounted.includes({COUNT - 1}) && !window.feed.mounted.includes(0); }}", timeout=20)
    assert flowui_page.evaluate("() => document.querySelector('[data-index=\"0\"] iframe') === null")
    assert flowui_page.evaluate("() => window.unmounted.includes(0)")
    # A new state for the unmounted block is kept, with the value the block set.
    flowui_page.evaluate("() => window.feed.setState(0, Object.assign({}, window.feed.state(0), {card: {title: 'changed while away'}}))")

    # Back up: block 0 is mounted again with the host's state, at the height it had.
    flowui_page.evaluate("() => window.scrollTo(0, 0)")
    flowui_page.wait_for("() => window.feed.mounted.includes(0) && window.feed.mounts(0) === 2", timeout=20)
    assert abs(flowui_page.evaluate("() => window.feed.handle(0).iframe.getBoundingClientRect().height") - height0) < 2
    flowui_page.wait_for("() => window.feed.handle(0).status === 'connected'", timeout=20)
    text = ""
    for _ in range(100):
        text = _frame_text(flowui_page, 0)
        if "changed while away" in text and "typed in block 0" in text:
            break
        flowui_page.evaluate("() => new Promise((r) => setTimeout(r, 100))")
    assert "changed while away" in text and "typed in block 0" in text, text
    assert flowui_page.evaluate("() => window.feed.state(0).draft.note") == "typed in block 0"
    assert not flowui_page.evaluate(f"() => window.feed.mounted.includes({COUNT - 1})")


def test_a_feed_refuses_bad_input(flowui_page, flowui_server):
    flowui_page.goto(flowui_server.add_page("<!DOCTYPE html><html><body><div id=f></div></body></html>"))
    errors = flowui_page.evaluate("""async () => {
      const { mountFeed } = await import('/bridge/flow-ui-feed.js');
      const out = [];
      for (const [c, items] of [[null, []], [document.getElementById('f'), 'x'], [document.getElementById('f'), [null]]]) {
        try { mountFeed(c, items); out.push('accepted'); } catch (e) { out.push(e.name + ': ' + e.message); }
      }
      const feed = mountFeed(document.getElementById('f'), [{source: '<p>x</p>', blockId: 'x'}]);
      try { feed.setTheme(0, {accent: 'url(x)'}); out.push('accepted'); } catch (e) { out.push(e.name); }
      feed.destroy();
      return out;
    }""")
    assert errors[0].startswith("TypeError: mountFeed: container")
    assert errors[1].startswith("TypeError: mountFeed: items")
    assert errors[2].startswith("TypeError: mountFeed: item 0")
    assert errors[3] == "ThemeError"


def test_an_item_that_cannot_be_mounted_stops_no_other(flowui_page, flowui_server):
    """mountHtmlBlock throws for an item (here a state past the generator's limit): the items of the
    same batch still mount, the slot says so, `onError` hears it, and nothing escapes the
    observer's callback as an uncaught error (before: the whole batch stayed unmounted)."""
    flowui_page.goto(flowui_server.add_page("<!DOCTYPE html><html><body><div id=f></div></body></html>"))
    got = flowui_page.evaluate("""async () => {
      const { mountFeed } = await import('/bridge/flow-ui-feed.js');
      window.uncaught = [];
      addEventListener('error', (e) => uncaught.push(String(e.message)));
      const failed = [];
      const item = (i, state) => ({ source: '<p data-bind="note"></p>', blockId: 'b' + i, state });
      const feed = mountFeed(document.getElementById('f'),
        [item(0, { note: 'a' }), item(1, { note: '<'.repeat(200000) }), item(2, { note: 'c' })],
        { onError: (i, e) => failed.push([i, e.name]) });
      await feed.settled;
      return { mounted: feed.mounted, failed, why: feed.failed(1),
               notice: document.querySelector('[data-index="1"] .flow-ui-feed-failed') !== null };
    }""")
    assert got["mounted"] == [0, 2], got
    assert got["failed"] == [[1, "TypeError"]] and "at most 1000000" in got["why"], got
    assert got["notice"]
    assert flowui_page.evaluate("() => window.uncaught") == []
