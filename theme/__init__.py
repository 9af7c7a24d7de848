"""Theme tokens for html blocks: the token set, validation and CSS rendering.

>>> from flowui_sandbox.theme import Theme, LIGHT
>>> Theme.parse({"color-scheme": "dark", "accent": "#ff6600"}).tokens["accent"]
'#ff6600'

A theme is given as a flat JSON object: ``color-scheme`` (``light`` or
``dark``) and any of the tokens of :data:`TOKENS`. Tokens left out come
from the default theme of that scheme. Unknown keys and bad values are
refused with :class:`ThemeError`, naming the token and the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from ..sandbox.errors import UsageError
from .grammar import color_problem, length_problem
from .tokens import COLOR_SCHEMES, CSS_PREFIX, TOKEN_TABLE, TOKENS, Token

__all__ = ["Theme", "ThemeError", "TOKENS", "TOKEN_TABLE", "Token", "CSS_PREFIX", "LIGHT", "DARK", "default_theme"]


class ThemeError(UsageError):
    """A theme value or key was refused; the message names it."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def token_problem(token: str, value: object) -> str | None:
    """Why ``value`` is refused for ``token``, or ``None``."""
    kind = TOKENS.get(token)
    if kind is None:
        known = ", ".join(TOKENS)
        return f"theme: unknown token {_shown(token)} (known tokens: {known}, and color-scheme)"
    if not isinstance(value, str):
        return f"theme token {token!r}: value {_shown(value)} must be a string"
    why = color_problem(value) if kind == "color" else length_problem(value)
    return None if why is None else f"theme token {token!r}: value {_shown(value)} {why}"


class Theme(BaseModel):
    """A complete, validated theme: every token of :data:`TOKENS` has a value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    color_scheme: Literal["light", "dark"] = "light"
    tokens: dict[str, str]

    @field_validator("tokens")
    @classmethod
    def _check_tokens(cls, tokens: dict[str, str]) -> dict[str, str]:
        problems = [p for t, v in tokens.items() if (p := token_problem(t, v))]
        missing = [t for t in TOKENS if t not in tokens]
        if missing:
            problems.append("theme: missing tokens " + ", ".join(missing))
        if problems:
            raise ValueError("; ".join(problems))
        return {t: tokens[t] for t in TOKENS}

    @classmethod
    def parse(cls, data: Mapping[str, Any] | Theme | None) -> Theme:
        """A theme from its flat JSON form; missing tokens come from the scheme's default.

        All problems are reported at once in one :class:`ThemeError`.
        """
        if data is None:
            return LIGHT
        if isinstance(data, Theme):
            return data
        if not isinstance(data, Mapping):
            raise ThemeError(f"theme: expected a JSON object, got {type(data).__name__}")
        scheme = data.get("color-scheme", "light")
        if scheme not in COLOR_SCHEMES:
            raise ThemeError(f"theme: color-scheme {_shown(scheme)} must be 'light' or 'dark'")
        problems = [p for k, v in data.items() if k != "color-scheme" and (p := token_problem(k, v))]
        if problems:
            raise ThemeError("; ".join(problems))
        base = default_theme(scheme)
        tokens = {**base.tokens, **{k: v for k, v in data.items() if k != "color-scheme"}}
        return cls(color_scheme=scheme, tokens=tokens)

    def to_json(self) -> dict[str, str]:
        """The flat JSON form: ``color-scheme`` then every token."""
        return {"color-scheme": self.color_scheme, **self.tokens}

    def css_variables(self) -> dict[str, str]:
        return {CSS_PREFIX + t: v for t, v in self.tokens.items()}

    def to_css(self) -> str:
        """The ``:root`` rule the block document inlines (one line, no trailing newline)."""
        body = "".join(f"{name}:{value};" for name, value in self.css_variables().items())
        return f":root{{color-scheme:{self.color_scheme};{body}}}"


LIGHT = Theme(color_scheme="light", tokens={t.name: t.light for t in TOKEN_TABLE})
DARK = Theme(color_scheme="dark", tokens={t.name: t.dark for t in TOKEN_TABLE})


def default_theme(scheme: str = "light") -> Theme:
    return DARK if scheme == "dark" else LIGHT
