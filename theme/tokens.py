"""The theme token table (SPEC §4): the single source of truth.

One row per token: its name, the grammar that validates its value, its light
and dark defaults, and what it is for. Everything else (the token list, the
default themes, the generated ``bridge/contract.js``, the docs' counts) is
derived from :data:`TOKEN_TABLE`. Each token becomes the CSS custom property
``--flow-ui-<token>`` on the block's ``:root``.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

TokenKind = Literal["color", "length"]


class Token(NamedTuple):
    name: str
    kind: TokenKind
    light: str
    dark: str
    purpose: str


#: The tokens, in the order they are rendered.
TOKEN_TABLE: tuple[Token, ...] = (
    Token("text", "color", "#1f2328", "#e6edf3", "body text"),
    Token("heading", "color", "#0d1117", "#f0f6fc", "headings"),
    Token("muted", "color", "#59636e", "#9198a1", "secondary text, hints"),
    Token("border", "color", "#d1d9e0", "#3d444d", "borders and dividers"),
    Token("panel", "color", "#f6f8fa", "#151b23", "background of panels and cards"),
    Token("surface", "color", "#ffffff", "#0d1117", "background of the block"),
    Token("input", "color", "#ffffff", "#0d1117", "background of inputs"),
    Token("accent", "color", "#0969da", "#4493f8", "primary buttons, links, focus"),
    Token("accent-hover", "color", "#0550ae", "#539bf5", "accent under the pointer"),
    Token("on-accent", "color", "#ffffff", "#ffffff", "text on the accent color"),
    Token("accent-muted", "color", "#ddf4ff", "#1f3a5f", "subtle accent backgrounds"),
    Token("radius", "length", "6px", "6px", "corner radius of controls"),
    Token("radius-md", "length", "12px", "12px", "corner radius of panels"),
    Token("page-background", "color", "#ffffff", "#010409", "background of the host page"),
)

#: Token name -> kind, in the order they are rendered.
TOKENS: dict[str, TokenKind] = {t.name: t.kind for t in TOKEN_TABLE}

#: The prefix of every custom property a theme sets.
CSS_PREFIX = "--flow-ui-"

#: The schemes a theme can declare; ``color-scheme`` on :root follows it.
COLOR_SCHEMES = ("light", "dark")
