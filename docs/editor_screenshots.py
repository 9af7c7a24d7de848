"""Screenshots of the editor (`flowui-sandbox edit`) in light and dark, for the README.

    .venv/bin/python docs/editor_screenshots.py

Runs the editor server over the starter block in a temporary folder, drives headless Chromium
through the project's engines (Playwright), and writes docs/editor-light.png (the bridge log
after the author used the block) and docs/editor-dark.png (the cheat sheet, dark theme).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flowui_sandbox.sandbox.editor.server import EditorServer, EditorSession  # noqa: E402
from flowui_sandbox.sandbox.engines import find_engines, launch  # noqa: E402

PREVIEW = ".preview-frame"
BLOCK = ".block:not(.pending) iframe"


async def main() -> None:
    engine = next(e for e in find_engines() if e.name == "chromium")
    source = (ROOT / "examples" / "starter.html").read_text(encoding="utf-8")
    state = json.loads((ROOT / "examples" / "starter.state.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "starter.html"
        file.write_text(source, encoding="utf-8")
        server = await EditorServer(EditorSession(file=file, state=state, fields=["order.items", "draft.email", "draft.agree"], block_id="starter")).start()
        session = await launch(engine)
        try:
            page = (await session.new_page()).raw
            await page.set_viewport_size({"width": 1440, "height": 900})
            await page.goto(server.url)
            await page.wait_for_function("() => Number(document.querySelector('[data-testid=preview]').dataset.ready) >= 1")
            block = page.frame_locator(PREVIEW).frame_locator(BLOCK)
            await block.locator("#email").fill("anna@example.com")
            await block.locator("#agree").check()
            await block.locator("#submit").click()
            await page.click('[role=tab][data-tab="log"]')
            await page.wait_for_function("() => document.querySelectorAll('[data-testid=log] li[data-code=action]').length > 0")
            await page.click("[data-testid=source] .cm-content")
            await page.wait_for_timeout(400)
            await page.screenshot(path=str(ROOT / "docs" / "editor-light.png"))
            await page.select_option("[data-testid=scheme]", "dark")
            await page.click('[role=tab][data-tab="cheatsheet"]')
            await page.wait_for_timeout(600)
            await page.screenshot(path=str(ROOT / "docs" / "editor-dark.png"))
        finally:
            await session.close()
            await server.stop()
    print("wrote docs/editor-light.png and docs/editor-dark.png")


if __name__ == "__main__":
    asyncio.run(main())
