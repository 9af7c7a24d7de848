"""Browser engines: find them, launch them, drive them through one async :class:`Page`.

Modules: :mod:`.base` (the driver interface, the capabilities, the errors), :mod:`.discovery`
(finding and launching), :mod:`.playwright` and :mod:`.webdriver` (the two real drivers),
:mod:`.remote` (browsers on other machines), :mod:`.fake` (a scripted driver for unit tests).
docs/ENGINES.md says which driver each engine gets and what each driver can do.
"""

from .base import (
    ENGINE_NAMES,
    HOLDER_ATTRIBUTE,
    Capability,
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
)
from .discovery import DEBIAN_CHROMIUM, DEBIAN_FIREFOX, engines_report, find_engines, launch, select_engines
from .playwright import CHROMIUM_ARGS, playwright_launch_options
from .webdriver import kill_tree, webdriver_enter_frame

__all__ = [
    "ENGINE_NAMES", "HOLDER_ATTRIBUTE", "Capability", "Engine", "EngineError", "Frame", "FrameHandle", "Page", "PageGone", "ScriptTimeout",
    "Session", "Unsupported", "Watch", "DEBIAN_CHROMIUM", "DEBIAN_FIREFOX", "engines_report", "find_engines", "launch",
    "select_engines", "CHROMIUM_ARGS", "playwright_launch_options", "kill_tree", "webdriver_enter_frame",
]
