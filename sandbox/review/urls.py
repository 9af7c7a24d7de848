"""What the block's Content-Security-Policy (sandbox/block/policy.py) lets a URL do.

The policy is read, not restated: :data:`DIRECTIVES` is parsed from ``policy.CSP``.
"""

from __future__ import annotations

import functools
import ipaddress
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

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


#: What the URL standard strips around a URL: C0 controls and space.
_C0_AND_SPACE = "".join(map(chr, range(0x21)))


def javascript_code(url: str) -> str | None:
    """The code of a ``javascript:`` URL as the URL standard reads it (C0 controls and spaces around
    it stripped, tabs and newlines anywhere removed, the scheme in any case: ``java&#9;script:`` is
    one), percent-decoded; None for any other URL."""
    scheme, colon, rest = url.strip(_C0_AND_SPACE).translate({9: None, 10: None, 13: None}).partition(":")
    return unquote(rest) if colon and scheme.lower() == "javascript" else None


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


#: Names that never leave the viewer's network: this machine (RFC 6761 ``localhost``), mDNS
#: (``.local``), the home network (RFC 8375 ``home.arpa``) and the names ICANN keeps for private use.
_PRIVATE_SUFFIXES = {"localhost": "this machine", "local": "the local network (mDNS)", "home.arpa": "the home network",
                     "internal": "a private network", "lan": "a private network", "intranet": "a private network"}
#: Public names whose every subdomain resolves to 127.0.0.1 (development conveniences): a block
#: reaches this machine through them without writing an address.
_LOOPBACK_DOMAINS = frozenset({"localtest.me", "lvh.me", "localhost.direct", "vcap.me"})
#: Public DNS services that answer a name with the address written in it (``10.0.0.1.nip.io``,
#: ``app-192-168-1-1.sslip.io``, ``0a000001.nip.io``, ``--1.sslip.io`` for ``::1``).
_ADDRESS_DOMAINS = frozenset({"nip.io", "sslip.io", "xip.io", "traefik.me"})


def _address_in_name(labels: list[str]) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a wildcard-DNS name carries in its labels (before the service's domain), as
    those services read it: the last four labels as a dotted quad, else the last label's dashed
    quad (after any prefix), IPv6 with dashes for colons, or eight hex digits."""
    if len(labels) >= 4:
        try:
            return ipaddress.IPv4Address(".".join(labels[-4:]))
        except ValueError:
            pass
    if not labels:
        return None
    last = labels[-1]
    parts = last.split("-")
    if len(parts) >= 4:
        try:
            return ipaddress.IPv4Address(".".join(parts[-4:]))
        except ValueError:
            pass
    if "--" in last:
        try:
            return ipaddress.IPv6Address(last.replace("-", ":"))
        except ValueError:
            pass
    if len(last) == 8:
        try:
            return ipaddress.IPv4Address(int(last, 16))
        except ValueError:
            pass
    return None


def _ipv4(host: str) -> ipaddress.IPv4Address | None:
    """``host`` as the URL standard reads an IPv4 host: up to four dot-separated numbers, each
    decimal, ``0x`` hex or ``0``-led octal, the last filling the bytes left (``2130706433``,
    ``0x7f.1``, ``127.1`` are all 127.0.0.1 to a browser); None when it is a name."""
    parts = host.split(".")
    if parts and parts[-1] == "":
        parts.pop()
    if not 1 <= len(parts) <= 4:
        return None
    numbers = []
    for part in parts:
        base, digits = (16, part[2:]) if part[:2].lower() == "0x" else (8, part[1:]) if len(part) > 1 and part[0] == "0" else (10, part)
        try:
            numbers.append(int(digits, base) if digits else 0)
        except ValueError:
            return None
    last = numbers.pop()
    if any(n > 255 for n in numbers) or last >= 256 ** (4 - len(numbers)):
        return None
    value = last
    for i, n in enumerate(numbers):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def private_network(host: str) -> str | None:
    """Where a request to ``host`` (a URL's host, a Host header with or without its port) goes when
    it is not the public internet: "this machine", "a private network", "the link-local network",
    ... ; None for a public host. A block that reaches these reaches services that trust their
    network (a router, a printer, a development server) from inside the viewer's."""
    # As the URL standard reads a host before anything else: percent-decoded, then mapped to
    # ASCII (full-width digits and dots, the ideographic full stop): %31%32%37.0.0.1 and
    # １２７。０。０。１ are 127.0.0.1 to a browser.
    name = unicodedata.normalize("NFKC", unquote(host.strip())).replace("\u3002", ".").lower()
    if name.startswith("[") or name.count(":") < 2:  # a bare IPv6 address (a URL's hostname) has no port
        name = without_port(name)
    name = name.rstrip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        address = _ipv4(name) if name and all(c in "0123456789abcdefx." for c in name) else None
    if address is None:
        labels = name.split(".")
        suffix = ".".join(labels[-2:])
        if suffix in _LOOPBACK_DOMAINS:
            return "this machine"
        if suffix in _ADDRESS_DOMAINS:
            address = _address_in_name(labels[:-2])
        else:
            for n in (2, 1):
                if len(labels) >= n and ".".join(labels[-n:]) in _PRIVATE_SUFFIXES:
                    return _PRIVATE_SUFFIXES[".".join(labels[-n:])]
        if address is None:
            return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    if address.is_loopback or address.is_unspecified:  # 0.0.0.0 reaches this machine on Linux and macOS
        return "this machine"
    if address.is_link_local:
        return "the link-local network"
    if address.is_private or (isinstance(address, ipaddress.IPv4Address) and address in _SHARED):
        return "a private network"
    return None


_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT: private to the provider's network
