"""The fixed isolation policy of an html block: the single source of truth.

Everything that needs the Content-Security-Policy or the iframe's sandbox
value (generator, host module, review, verify) reads it from here. The
JavaScript reads these values from `bridge/contract.js`, which is generated
from this module (`flowui-sandbox generate`) and checked by a test.

>>> SANDBOX
'allow-scripts'
>>> CSP.split("; ")[:2]       # nothing loads unless a directive below allows it
["default-src 'none'", "script-src 'unsafe-inline'"]
>>> any(token in SANDBOX.split() for token in FORBIDDEN_SANDBOX_TOKENS)
False
"""

from __future__ import annotations

#: The Content-Security-Policy put first in every block document's <head>.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: https:; font-src data: https:; media-src https:"
)

#: The iframe's sandbox attribute: scripts, and nothing else (opaque origin).
SANDBOX = "allow-scripts"

#: Sandbox tokens that must never appear on a block's iframe.
FORBIDDEN_SANDBOX_TOKENS = (
    "allow-same-origin",
    "allow-popups",
    "allow-popups-to-escape-sandbox",
    "allow-top-navigation",
    "allow-top-navigation-by-user-activation",
    "allow-top-navigation-to-custom-protocols",
    "allow-forms",
    "allow-modals",
    "allow-downloads",
    "allow-pointer-lock",
    "allow-presentation",
    "allow-orientation-lock",
    "allow-storage-access-by-user-activation",
)

#: The iframe's referrer policy: the block learns nothing of the host's URL.
REFERRER_POLICY = "no-referrer"

