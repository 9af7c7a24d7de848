"""Browser engines: find them, launch them, drive them through one async :class:`Page`.

Modules: :mod:`.names` (the engines' names), :mod:`.base` (the driver interface, the
capabilities, the errors), :mod:`.discovery` (finding and launching), :mod:`.playwright` and
:mod:`.webdriver` (the two real drivers), :mod:`.remote` (browsers on other machines),
:mod:`.fake` (a scripted driver for unit tests).
docs/ENGINES.md says which driver each engine gets and what each driver can do.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .base import (
        HOLDER_ATTRIBUTE,
        Capability,
        DocumentReplaced,
        Engine,
        EngineError,
        Frame,
        FrameHandle,
        Page,
        PageGone,
        ScriptTimeout,
        Session,
        Unsupported,
        Watch,
        give_loop_threads,
    )
    from .discovery import DEBIAN_CHROMIUM, DEBIAN_FIREFOX, engines_report, find_engines, launch, select_engines
    from .names import ENGINE_NAMES
    from .playwright import CHROMIUM_ARGS, FIREFOX_PREFS, playwright_launch_options
    from .webdriver import kill_tree, webdriver_enter_frame

# Each name and the module that defines it, imported on first use: the command line reads
# ENGINE_NAMES to build its options without loading asyncio and the drivers.
_LAZY = {
    **dict.fromkeys(["HOLDER_ATTRIBUTE", "Capability", "DocumentReplaced", "Engine", "EngineError", "Frame", "FrameHandle", "Page", "PageGone",
                     "ScriptTimeout", "Session", "Unsupported", "Watch",
                     "give_loop_threads"], "base"),
    "ENGINE_NAMES": "names",
    **dict.fromkeys(["DEBIAN_CHROMIUM", "DEBIAN_FIREFOX", "engines_report", "find_engines", "launch", "select_engines"], "discovery"),
    **dict.fromkeys(["CHROMIUM_ARGS", "FIREFOX_PREFS", "playwright_launch_options"], "playwright"),
    **dict.fromkeys(["kill_tree", "webdriver_enter_frame"], "webdriver"),
}
__all__ = [
    "ENGINE_NAMES", "HOLDER_ATTRIBUTE", "Capability", "DocumentReplaced", "Engine", "EngineError", "Frame", "FrameHandle", "Page", "PageGone", "ScriptTimeout",
    "Session", "Unsupported", "Watch", "give_loop_threads", "DEBIAN_CHROMIUM", "DEBIAN_FIREFOX", "engines_report", "find_engines", "launch",
    "select_engines", "CHROMIUM_ARGS", "FIREFOX_PREFS", "playwright_launch_options", "kill_tree", "webdriver_enter_frame",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
