"""The bridge between an html block and its host page.

* ``flow-ui-runtime.js``: the classic script the generator inlines into every
  block document; it defines ``window.flowUi``.
* ``flow-ui-host.js``: the ES module a host page uses to mount a block.
* :mod:`flowui_sandbox.bridge.protocol`: pydantic models of every message (see PROTOCOL.md).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

BRIDGE_DIR = Path(__file__).resolve().parent
RUNTIME_FILE = BRIDGE_DIR / "flow-ui-runtime.js"
HOST_MODULE_FILE = BRIDGE_DIR / "flow-ui-host.js"


@lru_cache(maxsize=1)
def runtime_source() -> str:
    """The in-block runtime's JavaScript, exactly as inlined into block documents."""
    return RUNTIME_FILE.read_text(encoding="utf-8")
