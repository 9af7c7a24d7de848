"""The theme token list (SPEC §4): the single source of truth.

Each token becomes the CSS custom property ``--flow-ui-<token>`` on the
block's ``:root``. The kind says which grammar validates its value.
"""

from __future__ import annotations

from typing import Literal

TokenKind = Literal["color", "length"]

#: Token name -> kind, in the order they are rendered.
TOKENS: dict[str, TokenKind] = {
    "text": "color",
    "heading": "color",
    "muted": "color",
    "border": "color",
    "panel": "color",
    "surface": "color",
    "input": "color",
    "accent": "color",
    "accent-hover": "color",
    "on-accent": "color",
    "accent-muted": "color",
    "radius": "length",
    "radius-md": "length",
    "page-background": "color",
}

#: The prefix of every custom property a theme sets.
CSS_PREFIX = "--flow-ui-"

#: The schemes a theme can declare; ``color-scheme`` on :root follows it.
COLOR_SCHEMES = ("light", "dark")
