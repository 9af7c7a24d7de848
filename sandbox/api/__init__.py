"""flowui_sandbox: run untrusted Flow UI html blocks in a sandboxed iframe, and prove it.

This folder is the distribution's one top-level import name. pyproject.toml maps it
(``flowui_sandbox``) and the repository's part folders under it:
``flowui_sandbox.sandbox`` → ``sandbox/``, ``flowui_sandbox.bridge`` → ``bridge/``,
``flowui_sandbox.theme`` → ``theme/``; the probe catalogue and the examples ship as
package data. The public API is re-exported here::

    >>> from flowui_sandbox import extract_paths, SANDBOX
    >>> SANDBOX
    'allow-scripts'
    >>> sorted(extract_paths('<span data-bind="order.total"></span>'))
    ['order.total']

See README.md and docs/ for the contract.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from flowui_sandbox.sandbox.block.policy import CSP, SANDBOX
from flowui_sandbox.sandbox.errors import SandboxError, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from flowui_sandbox.bridge.protocol import UiAction, parse_block_message, parse_host_message, user_message
    from flowui_sandbox.sandbox.block.extract import ExtractionError, extract_paths
    from flowui_sandbox.sandbox.block.srcdoc import build_iframe, build_page, build_srcdoc
    from flowui_sandbox.sandbox.review import ReviewReport, review
    from flowui_sandbox.theme import Theme, ThemeError

#: Each public name and the module it lives in, imported on first use so that
#: ``import flowui_sandbox`` stays cheap (no pydantic, no parser) until a name is touched.
_LAZY = {
    "extract_paths": "flowui_sandbox.sandbox.block.extract",
    "ExtractionError": "flowui_sandbox.sandbox.block.extract",
    "build_srcdoc": "flowui_sandbox.sandbox.block.srcdoc",
    "build_iframe": "flowui_sandbox.sandbox.block.srcdoc",
    "build_page": "flowui_sandbox.sandbox.block.srcdoc",
    "review": "flowui_sandbox.sandbox.review",
    "ReviewReport": "flowui_sandbox.sandbox.review",
    "Theme": "flowui_sandbox.theme",
    "ThemeError": "flowui_sandbox.theme",
    "parse_block_message": "flowui_sandbox.bridge.protocol",
    "parse_host_message": "flowui_sandbox.bridge.protocol",
    "user_message": "flowui_sandbox.bridge.protocol",
    "UiAction": "flowui_sandbox.bridge.protocol",
}

__all__ = [
    "CSP", "SANDBOX", "SandboxError", "UsageError", "extract_paths", "ExtractionError", "build_srcdoc", "build_iframe",
    "build_page", "review", "ReviewReport", "Theme", "ThemeError", "parse_block_message", "parse_host_message",
    "user_message", "UiAction",
]
assert set(__all__) == {"CSP", "SANDBOX", "SandboxError", "UsageError", *_LAZY}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'flowui_sandbox' has no attribute {name!r}")
