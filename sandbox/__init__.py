"""flowui-sandbox: run untrusted Flow UI html blocks in a sandboxed iframe.

Public API::

    from flowui_sandbox.sandbox import extract_paths, build_srcdoc, build_iframe, CSP, SANDBOX

See README.md and docs/ for the contract.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import SandboxError, UsageError
from .policy import CSP, SANDBOX

if TYPE_CHECKING:  # pragma: no cover
    from .extract import ExtractionError, extract_paths
    from .generator import build_iframe, build_page, build_srcdoc

__all__ = [
    "CSP", "SANDBOX", "SandboxError", "UsageError",
    "extract_paths", "ExtractionError", "build_srcdoc", "build_iframe", "build_page",
]

_LAZY = {
    "extract_paths": "extract", "ExtractionError": "extract",
    "build_srcdoc": "generator", "build_iframe": "generator", "build_page": "generator",
}


def __getattr__(name: str) -> Any:  # lazy, so `import sandbox` stays cheap
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
