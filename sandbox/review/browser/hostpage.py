"""The host page a reviewed block is mounted in: the real host module, callbacks that record.

The block's document is built by the real generator (:func:`flowui_sandbox.sandbox.block.srcdoc.build_srcdoc`)
and mounted with ``mountHtmlBlock({srcdoc, ...})`` from ``/bridge/flow-ui-host.js``, as
``build --page`` does. A page slot loads the host page once and mounts block after block
in it (:data:`MOUNT`), each with a fresh record. The page's script is :data:`HOST_SCRIPT`
(``host-page.js``), given its parameters as JSON (:func:`config`); everything the host sees
goes to ``window.__review``, which the harness reads from outside the block's frame through
the functions of ``window.__reviewHost``:

* ``actions`` (onAction: the ui-action), ``values`` (onValue), ``urls`` (onOpenUrl:
  recorded and let through to a stand-in ``window.open``, so the block is told "opened", as
  by a host that opens URLs, and no window opens), ``log`` (onLog: refusals, CSP
  violations and errors the runtime reports, height loops, navigation);
* ``maxGap``: the longest stall of a 50 ms timer of the host page (a block busy on the
  main thread stalls its host in every engine: a sandboxed srcdoc frame shares its
  parent's process);
* ``heights``: the frame's heights as the host module applied them.

What the harness runs inside the block's frame is :data:`FRAME_SCRIPT` (``block-frame.js``):
one function per call, its text read from the file (:func:`frame_function`) and evaluated in
the frame, so nothing of the harness stays in the block's window.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import tree_sitter_javascript
from tree_sitter import Language, Parser

from ...block.jsonjs import script_json
from ...data import shipped_script
from ...errors import SandboxError

#: Items kept per list in ``window.__review`` (a flood is counted by the host's own rate limit).
MAX_ITEMS = 200
#: Characters kept of each recorded value (its JSON text, cut).
MAX_CHARS = 20_000
#: The block's frame in the host page (the host module's holder frame, in the ``#block`` box).
FRAME = "#block iframe"
#: The host page's script (a module: :func:`host_page` calls its ``start``).
HOST_SCRIPT = Path(__file__).resolve().parent / "host-page.js"
#: The functions the harness evaluates inside the block's frame.
FRAME_SCRIPT = Path(__file__).resolve().parent / "block-frame.js"


def config() -> dict[str, Any]:
    """The host script's parameters."""
    return {"maxItems": MAX_ITEMS, "maxChars": MAX_CHARS, "frame": FRAME}


@functools.cache
def host_page() -> str:
    """The slot's host page: loaded once per page, then :data:`MOUNT` mounts each block in it
    (a page load per block cost 0.15 to 0.4 s in Firefox)."""
    script = shipped_script(HOST_SCRIPT)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>flowui-sandbox review</title><link rel="icon" href="data:,">'
        "<style>body{margin:0;padding:8px}#block{max-width:640px}</style>"
        '</head><body><div id="block"></div>'
        f"<script type=\"module\">import {{ mountHtmlBlock }} from '/bridge/flow-ui-host.js';\n{script}\n"
        f"start(mountHtmlBlock, {script_json(config())});</script></body></html>"
    )


@functools.cache
def _frame_functions() -> dict[str, str]:
    """Each ``export const NAME = <function>`` of :data:`FRAME_SCRIPT`: NAME to the function's text."""
    data = shipped_script(FRAME_SCRIPT, inline=False).encode("utf-8")  # evaluated, never inlined
    tree = Parser(Language(tree_sitter_javascript.language())).parse(data)
    if tree.root_node.has_error:
        raise SandboxError(f"{FRAME_SCRIPT}: not valid JavaScript (a broken installation?)")
    out: dict[str, str] = {}
    for node in tree.root_node.named_children:
        declaration = node.child_by_field_name("declaration") if node.type == "export_statement" else None
        if declaration is None or declaration.type != "lexical_declaration":
            continue
        for declarator in declaration.named_children:
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is not None and value is not None and value.type in ("arrow_function", "function_expression"):
                out[data[name.start_byte:name.end_byte].decode()] = data[value.start_byte:value.end_byte].decode()
    return out


def frame_function(name: str) -> str:
    """The text of function ``name`` of :data:`FRAME_SCRIPT`, for an evaluate in the block's frame."""
    try:
        return _frame_functions()[name]
    except KeyError:
        raise SandboxError(f"{FRAME_SCRIPT}: no function {name!r} (a broken installation?)") from None


# The harness's calls into the host page: one-line calls of window.__reviewHost (host-page.js).

#: Whether the page is the review's host page with its script run (then MOUNT can be called). Asked
#: of any page, before the host script may exist: it only looks for it.
LOADED = "() => !!window.__reviewHost"
#: Mount the block ``{srcdoc, background}`` in place of the last one.
MOUNT = "(block) => window.__reviewHost.mount(block)"
#: Resolves once the block is mounted and heard from (connected, or not within 5 s).
READY = "() => window.__reviewHost.ready()"
#: What the harness reads back (one call: a busy page answers once).
READ = "() => window.__reviewHost.read()"
#: Destroy the block's frame (its pending loads stop), as a host does.
UNMOUNT = "() => window.__reviewHost.unmount()"
#: Whether the block's frame is still there, and how many loads it had.
FRAME_STATE = "() => window.__reviewHost.frameState()"
#: The block's box, as a screenshot's clip.
CLIP = "() => window.__reviewHost.clip()"
#: Scroll to the end of the block's frame (as a reader does): whether the page scrolls.
SCROLL_END = "() => window.__reviewHost.scrollEnd()"
#: And back to the top.
SCROLL_BACK = "() => window.__reviewHost.scrollBack()"
#: Resolves after an animation frame and a little more (a theme painted).
PAINTED = "() => window.__reviewHost.painted()"
#: Resolves after two animation frames and a little more (a resize delivered).
RESIZED = "() => window.__reviewHost.resized()"
#: The state update and the theme switch, sent to the mounted block.
SET_STATE = "(s) => window.__reviewHost.setState(s)"
SET_THEME = "(t) => window.__reviewHost.setTheme(t)"
#: A point of the block's frame as a viewport point, and where a pointer from the host page enters
#: the frame (``[x, y, entry x, entry y]``), the host page scrolled first when the point is outside
#: the viewport; null when the frame is gone.
TO_VIEWPORT = "(point) => window.__reviewHost.toViewport(point)"

#: Elements a user acts on, read inside the block's frame.
ACTIONABLE = "a[href], button, input, select, textarea, summary, [onclick], [role=button]"
#: Inside the block's frame (:data:`FRAME_SCRIPT` says what each does).
LIST_ACTIONS = frame_function("listActions")
LOCATE = frame_function("locate")
FOCUS = frame_function("focusElement")
SELECT_LAST = frame_function("selectLast")
HAS_COLOR_SCHEME = frame_function("hasColorScheme")
SIZED = frame_function("sized")
END_SEEN = frame_function("endSeen")

__all__ = [
    "host_page", "config", "frame_function", "LOADED", "MOUNT", "READY", "READ", "UNMOUNT", "FRAME_STATE", "CLIP", "SCROLL_END", "SCROLL_BACK", "SIZED", "END_SEEN",
    "PAINTED", "RESIZED", "SET_STATE", "SET_THEME", "TO_VIEWPORT", "ACTIONABLE", "LIST_ACTIONS", "LOCATE", "FOCUS",
    "SELECT_LAST", "HAS_COLOR_SCHEME", "FRAME", "MAX_ITEMS", "MAX_CHARS", "HOST_SCRIPT", "FRAME_SCRIPT",
]
