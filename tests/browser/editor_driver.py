"""Driving the editor page in every engine: real key presses, and scripts in the block's frame.

The block's frame sits two levels down (editor page > preview host frame > sandboxed srcdoc
frame), below what :meth:`flowui_sandbox.sandbox.engines.Page.evaluate`'s ``frame`` reaches, so these helpers
use the drivers' own frame switching. Keys are real key events (Playwright's keyboard,
WebDriver's actions), so CodeMirror sees typing as a user's.
"""

from __future__ import annotations

import json
from typing import Any

from flowui_sandbox.sandbox.engines import EngineError
from flowui_sandbox.sandbox.engines.playwright import PlaywrightPage
from flowui_sandbox.sandbox.engines.webdriver import _WD_WRAPPER

PREVIEW_FRAME = ".preview-frame"
BLOCK_FRAME = ".block:not(.pending) iframe"  # the host module's holder frame; the block's frame is inside it


async def _held(holder_frame, timeout: float):
    """The block's frame: the one child frame of the host module's holder frame."""
    import asyncio

    for _ in range(int(timeout / 0.05) + 1):
        children = [f for f in holder_frame.child_frames if not f.is_detached()]
        if children:
            return children[0]
        await asyncio.sleep(0.05)
    raise EngineError("the holder frame holds no block frame")


def _is_playwright(page) -> bool:
    return isinstance(page.async_page, PlaywrightPage)


def _run(page, coro_fn, timeout: float = 20):
    return page._portal.run(coro_fn(), timeout=timeout)


def press(page, keys: str) -> None:
    """A key chord such as ``Control+a`` or ``Control+s``."""
    if _is_playwright(page):
        _run(page, lambda: page.async_page.raw.keyboard.press(keys))
        return
    from selenium.webdriver.common.keys import Keys

    *mods, key = keys.split("+")
    names = {"Control": Keys.CONTROL, "Shift": Keys.SHIFT, "Alt": Keys.ALT, "Meta": Keys.META, "End": Keys.END, "Home": Keys.HOME}
    # Element key input to the focused element: WebKitGTK's actions go to the frame the driver
    # last switched into, element input goes where the focus is.
    chord = "".join(names[m] for m in mods) + names.get(key, key) + (Keys.NULL if mods else "")
    driver = page.async_page.raw
    _run(page, lambda: page.async_page._call(lambda: driver.switch_to.active_element.send_keys(chord), timeout=10))


def type_text(page, text: str) -> None:
    """Types ``text`` with real key events into the focused element."""
    if _is_playwright(page):
        _run(page, lambda: page.async_page.raw.keyboard.type(text))
        return
    driver = page.async_page.raw
    _run(page, lambda: page.async_page._call(lambda: driver.switch_to.active_element.send_keys(text), timeout=20))


def focus_editor(page, testid: str, *, at_end: bool = True) -> None:
    """Clicks into the CodeMirror editor ``[data-testid=testid]``; with ``at_end`` the cursor goes to the end."""
    page.click(f'[data-testid="{testid}"] .cm-content')
    if at_end:
        press(page, "Control+End")


def _back_to_top(driver) -> None:
    # default_content alone leaves WebKitGTK's key input in the frame last entered; switching to
    # the window itself brings it back to the top document.
    driver.switch_to.default_content()
    driver.switch_to.window(driver.current_window_handle)


def block_eval(page, script: str, arg: Any = None, *, timeout: float = 10) -> Any:
    """Evaluates ``script`` (a function expression) in the connected block's frame."""
    return _frame_eval(page, script, arg, timeout=timeout, block=True)


def preview_eval(page, script: str, arg: Any = None, *, timeout: float = 10) -> Any:
    """Evaluates ``script`` in the preview host page's frame (another origin than the editor's)."""
    return _frame_eval(page, script, arg, timeout=timeout, block=False)


def _frame_eval(page, script: str, arg: Any, *, timeout: float, block: bool) -> Any:
    if _is_playwright(page):
        async def run():
            raw = page.async_page.raw
            outer = await (await raw.wait_for_selector(PREVIEW_FRAME, state="attached", timeout=timeout * 1000)).content_frame()
            if not block:
                return await outer.evaluate(script, arg)
            holder = await (await outer.wait_for_selector(BLOCK_FRAME, state="attached", timeout=timeout * 1000)).content_frame()
            inner = await _held(holder, timeout)
            return await inner.evaluate(script, arg)

        return _run(page, run, timeout=timeout + 10)

    from selenium.webdriver.common.by import By

    driver = page.async_page.raw

    def run():
        driver.set_script_timeout(timeout)
        driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, PREVIEW_FRAME))
        try:
            if block:
                driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, BLOCK_FRAME))
                driver.switch_to.frame(0)  # the block's frame in the holder (WebKitWebDriver finds no element there)
            return driver.execute_async_script(_WD_WRAPPER % script, json.dumps(arg))
        finally:
            _back_to_top(driver)

    result = _run(page, lambda: page.async_page._call(run, timeout=timeout), timeout=timeout + 10)
    if isinstance(result, dict) and "__err" in result:
        raise EngineError(f"{page.name}: script failed: {result['__err']}")
    return result.get("__ok") if isinstance(result, dict) else result


def block_wait(page, script: str, arg: Any = None, *, timeout: float = 10) -> Any:
    """Evaluates ``script`` in the block's frame until it is truthy (the frame may be replaced meanwhile)."""
    import time

    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = block_eval(page, script, arg, timeout=max(1.0, deadline - time.monotonic()))
        except Exception as exc:  # the frame was being swapped: try again
            last = f"{type(exc).__name__}: {exc}"
            if time.monotonic() >= deadline:
                raise
        else:
            if last:
                return last
        if time.monotonic() >= deadline:
            raise EngineError(f"{page.name}: timed out waiting in the block for {script[:100]!r} (last {last!r})")
        time.sleep(0.05)


__all__ = ["press", "type_text", "focus_editor", "block_eval", "preview_eval", "block_wait", "block_click"]


def block_click(page, selector: str, *, timeout: float = 10) -> None:
    """A real user click on ``selector`` inside the connected block's frame.

    Except in Firefox driven over WebDriver BiDi (headless): there the driver's input never reaches
    an out-of-process frame, and the preview is one (another site than the editor's, Fission):
    a mousedown at the button's page coordinates, or a key press after focusing it, lands on the
    editor's ``<iframe>`` element (measured). There the click is the element's ``click()``, run in
    the block's frame: the same events for the block's script, without a user activation.
    """
    if page.name == "firefox" and _is_playwright(page):
        block_eval(page, "(s) => { document.querySelector(s).click(); return true; }", selector, timeout=timeout)
        return
    if _is_playwright(page):
        async def run():
            raw = page.async_page.raw
            # Chromium (Firefox returned above): the holder's frame, then the block's.
            await raw.frame_locator(PREVIEW_FRAME).frame_locator(BLOCK_FRAME).frame_locator("iframe").locator(selector).first.click(timeout=timeout * 1000)

        _run(page, run, timeout=timeout + 10)
        return
    from selenium.webdriver.common.by import By

    driver = page.async_page.raw

    def run():
        driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, PREVIEW_FRAME))
        try:
            driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, BLOCK_FRAME))
            driver.switch_to.frame(0)  # the block's frame in the holder
            driver.find_element(By.CSS_SELECTOR, selector).click()
        finally:
            _back_to_top(driver)

    _run(page, lambda: page.async_page._call(run, timeout=timeout), timeout=timeout + 10)


def leave_to(page, url: str) -> None:
    """Navigates to ``url`` from a page with unsaved edits, confirming its "leave the page?" prompt
    as a user would."""
    if _is_playwright(page):
        raw = page.async_page.raw

        async def run():
            async def accept(dialog):
                await dialog.accept()

            raw.on("dialog", accept)
            try:
                await raw.goto(url, timeout=15000)
            finally:
                raw.remove_listener("dialog", accept)

        _run(page, run)
        return
    driver = page.async_page.raw

    def run():
        from selenium.common.exceptions import NoAlertPresentException, UnexpectedAlertPresentException

        try:
            driver.get(url)
        except UnexpectedAlertPresentException:
            pass
        try:
            driver.switch_to.alert.accept()
        except NoAlertPresentException:
            pass
        if driver.current_url != url:
            driver.get(url)

    _run(page, lambda: page.async_page._call(run, timeout=20))
