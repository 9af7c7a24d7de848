"""What the block's Content-Security-Policy (sandbox/block/policy.py) lets a URL do.

The policy is read, not restated: :data:`DIRECTIVES` is parsed from ``policy.CSP``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..block.policy import CSP

#: directive -> its source expressions, from the one policy string.
DIRECTIVES: dict[str, tuple[str, ...]] = {
    part.split()[0]: tuple(part.split()[1:]) for part in CSP.split(";") if part.strip()
}

#: What a use of a URL is governed by (navigation and openUrl are not CSP matters:
#: the review treats https as the only scheme that leaves, as the issue and the
#: host's openUrl check do).
KIND_DIRECTIVE = {
    "img": "img-src", "font": "font-src", "media": "media-src", "style": "style-src",
    "script": "script-src", "frame": "frame-src", "object": "object-src", "connect": "connect-src",
    "prefetch": "default-src", "manifest": "manifest-src",
}


@dataclass(frozen=True)
class UrlVerdict:
    #: "external" (leaves, allowed), "blocked" (the policy refuses it), "relative"
    #: (resolves against the host page), "local" (data:, blob:, a fragment: no host), "empty".
    status: str
    scheme: str
    host: str


def allowed_schemes(kind: str) -> tuple[str, ...]:
    if kind not in KIND_DIRECTIVE:
        return ("https",)
    sources = DIRECTIVES.get(KIND_DIRECTIVE[kind], DIRECTIVES.get("default-src", ()))
    return tuple(s[:-1] for s in sources if s.endswith(":"))


def classify(url: str, kind: str) -> UrlVerdict:
    """The verdict on ``url`` used as ``kind`` (img, font, media, style, script, frame,
    object, connect, prefetch, navigation, open, string)."""
    text = url.strip()
    if not text:
        return UrlVerdict("empty", "", "")
    if text.startswith("#"):
        return UrlVerdict("local", "", "")
    if text.startswith("//"):
        text = "https:" + text  # protocol-relative: the host page is served over https
    try:
        parts = urlsplit(text)
    except ValueError:
        return UrlVerdict("blocked", "", "")
    scheme = parts.scheme.lower()
    if not scheme or len(scheme) == 1:  # "c:/x" is a Windows path, i.e. relative
        return UrlVerdict("relative", "", "")
    host = (parts.hostname or "").lower()
    allowed = allowed_schemes(kind)
    if scheme in ("data", "blob", "about", "javascript", "mailto", "tel"):
        if scheme in allowed or scheme in ("about", "mailto", "tel") or kind == "string":
            return UrlVerdict("local", scheme, "")
        return UrlVerdict("blocked", scheme, "")
    if scheme in allowed and host:
        return UrlVerdict("external", scheme, host)
    return UrlVerdict("blocked", scheme, host)


def absolute_url(text: str) -> bool:
    """Whether a string literal is an absolute network URL (what the review lists)."""
    head = text[:12].lower()
    return head.startswith(("https://", "http://", "ws://", "wss://", "ftp://")) or (
        head.startswith("//") and len(text) > 2 and text[2] not in "/ ")


def without_port(authority: str) -> str:
    """The host of ``host[:port]`` as a request names it (a Host header, a CONNECT target), an
    IPv6 address in its brackets: ``[::1]:9443`` -> ``[::1]``, so ``https://HOST/`` is a URL again."""
    if authority.startswith("["):
        end = authority.find("]")
        return authority[:end + 1] if end != -1 else authority
    return authority.rsplit(":", 1)[0] if ":" in authority else authority


@functools.lru_cache(maxsize=4096)
def host_of(url: str) -> str:
    """A URL's host name, lower case; "" when it has none or does not parse (never raises)."""
    try:
        return (urlsplit("https:" + url if url.startswith("//") else url).hostname or "").lower()
    except ValueError:
        return ""
