"""``flowui-sandbox review``: what an html block does with what the policy allows.

Public API::

    from flowui_sandbox.sandbox.review import review, review_static, load_rules
    report = review(["block.html"], fields=["order.total"], static_only=True)   # ReviewReport
    findings = review_static(source, file="block.html", fields=["order.total"])  # list[Finding]

Layers: :mod:`.static` (HTML, JavaScript and CSS parsed, no browser) and :mod:`.browser`
(the block mounted in real engines). docs/REVIEW.md lists the rules and what the data
flow follows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .api import review
    from .catalogue import Rule, load_rules, rule
    from .model import BlockInput, BlockReport, BrowserResult, Finding, ReviewReport
    from .static import review_static

__all__ = ["review", "review_static", "load_rules", "rule", "Rule", "Finding", "BlockInput", "BlockReport",
           "BrowserResult", "ReviewReport"]

# Each name and its module, imported on first use: the editor imports review_static without the
# browser layer, and the command line reads the review's options without the catalogue.
_LAZY = {
    "review": "api", "review_static": "static", "Rule": "catalogue", "load_rules": "catalogue", "rule": "catalogue",
    **dict.fromkeys(["BlockInput", "BlockReport", "BrowserResult", "Finding", "ReviewReport"], "model"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'flowui_sandbox.sandbox.review' has no attribute {name!r}")
