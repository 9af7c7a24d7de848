"""flowui-sandbox: run untrusted Flow UI html blocks in a sandboxed iframe.

Public API::

    from flowui_sandbox.sandbox import extract_paths, build_srcdoc, build_iframe, CSP, SANDBOX

See README.md and docs/ for the contract.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .block.policy import CSP, SANDBOX
from .errors import SandboxError, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from .block.extract import ExtractionError, extract_paths
    from .block.srcdoc import build_iframe, build_page, build_srcdoc

__all__ = [
    "CSP", "SANDBOX", "SandboxError", "UsageError",
    "extract_paths", "ExtractionError", "build_srcdoc", "build_iframe", "build_page",
]

_LAZY = {
    "extract_paths": "block.extract", "ExtractionError": "block.extract",
    "build_srcdoc": "block.srcdoc", "build_iframe": "block.srcdoc", "build_page": "block.srcdoc",
}


def __getattr__(name: str) -> Any:  # lazy, so `import sandbox` stays cheap
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
