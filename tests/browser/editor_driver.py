"""Driving the editor page in every engine: real key presses, and scripts in the block's frame.

The block's frame sits two levels down (editor page > preview host frame > the host module's
holder frame > sandboxed srcdoc frame); :data:`BLOCK` is that path as a
:data:`flowui_sandbox.sandbox.engines.Frame`, which every driver's ``evaluate`` and ``click``
follow. Keys are the page's own ``press`` and ``type_text`` (real key events), so CodeMirror sees
typing as a user's.
"""

from __future__ import annotations

import time
from typing import Any

from flowui_sandbox.sandbox.engines import EngineError

PREVIEW_FRAME = ".preview-frame"
#: The preview host page's frame, then the host module's holder frame in it (the block's frame inside).
BLOCK = (PREVIEW_FRAME, ".block:not(.pending) iframe")


def focus_editor(page, testid: str, *, at_end: bool = True) -> None:
    """Clicks into the CodeMirror editor ``[data-testid=testid]``; with ``at_end`` the cursor goes to the end."""
    page.click(f'[data-testid="{testid}"] .cm-content')
    if at_end:
        page.press("Control+End")


def block_eval(page, script: str, arg: Any = None, *, timeout: float = 10) -> Any:
    """Evaluates ``script`` (a function expression) in the connected block's frame."""
    return page.evaluate(script, arg, frame=BLOCK, timeout=timeout)


def preview_eval(page, script: str, arg: Any = None, *, timeout: float = 10) -> Any:
    """Evaluates ``script`` in the preview host page's frame (another origin than the editor's)."""
    return page.evaluate(script, arg, frame=PREVIEW_FRAME, timeout=timeout)


_TRUTHY = object()


def block_wait(page, script: str, arg: Any = None, *, expect: Any = _TRUTHY, timeout: float = 10) -> Any:
    """Evaluates ``script`` in the block's frame until it is truthy, or equal to ``expect`` if given.

    The frame may be replaced meanwhile. Wait for the whole of what was typed with ``expect``: the
    preview rebuilds while keys still arrive, so a truthy part of it (``'typed he'``) shows first.
    """
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = block_eval(page, script, arg, timeout=max(1.0, deadline - time.monotonic()))
        except EngineError as exc:  # the frame was being swapped: try again
            last = f"{type(exc).__name__}: {exc}"
            if time.monotonic() >= deadline:
                raise
        else:
            if (last == expect) if expect is not _TRUTHY else last:
                return last
        if time.monotonic() >= deadline:
            raise EngineError(f"{page.name}: timed out waiting in the block for {script[:100]!r} (last {last!r})")
        time.sleep(0.05)


def block_click(page, selector: str, *, timeout: float = 10) -> None:
    """A real user click on ``selector`` inside the connected block's frame.

    Except in Firefox (driven over WebDriver BiDi, headless): there the driver's input never
    reaches an out-of-process frame, and the preview is one (another site than the editor's,
    Fission): a mousedown at the button's page coordinates, or a key press after focusing it, lands
    on the editor's ``<iframe>`` element (measured). There the click is the element's ``click()``,
    run in the block's frame: the same events for the block's script, without a user activation.
    """
    if page.name == "firefox":
        block_eval(page, "(s) => { document.querySelector(s).click(); return true; }", selector, timeout=timeout)
        return
    page.click(selector, frame=BLOCK, timeout=timeout)


__all__ = ["BLOCK", "focus_editor", "block_eval", "preview_eval", "block_wait", "block_click"]
