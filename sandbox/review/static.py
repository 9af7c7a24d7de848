"""The static layer: what a block's source does, read without a browser.

:func:`review_static` is pure and fast (docs/REVIEW.md: about 1 ms for a typical 5 KB
block), so the editor calls it as the author types. :func:`analyse` also returns the
projection (paths received, read, unread, unprojected, sensitive) for the report.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..block.extract import MAX_SOURCE_BYTES, ExtractionError, extract_paths
from . import css as csslib
from .catalogue import load_rules
from .flow import Flow
from .inspector import Inspector
from .js import Script, TooComplex, _css_ident, parse
from .model import Finding, Projection
from .source import SVG_ANIMATION_VALUES, Attr, Document, Element, Mapper, Positions
from .urls import classify, javascript_code, private_network

#: Words that make a path look sensitive (a whole snake_case word of a segment).
SENSITIVE_WORDS = ("token", "secret", "password", "passwd", "passcode", "pin", "otp", "email", "phone", "mobile",
                   "card", "cvv", "cvc", "iban", "bic", "ssn", "tax_id", "passport", "credential", "credentials",
                   "api_key", "apikey", "auth", "session", "cookie", "private_key", "salary", "dob", "birthdate")

_JS_TYPES = frozenset(("", "text/javascript", "application/javascript", "module", "text/ecmascript",
                       "application/ecmascript", "javascript"))
_LINK_HINTS = frozenset(("prefetch", "preload", "preconnect", "dns-prefetch", "prerender", "modulepreload"))


@dataclass
class StaticResult:
    findings: list[Finding]
    projection: Projection
    markup_paths: list[str] = field(default_factory=list)


#: Per-block time limit of the static layer (seconds): a typical block takes about 2 ms.
STATIC_TIME_LIMIT = 5.0


def review_static(source: str, *, file: str = "<block>", fields: Sequence[str] = (),
                  sensitive: Sequence[str] | None = None, time_limit: float = STATIC_TIME_LIMIT) -> list[Finding]:
    """The static findings of one block source, ordered by position.

    A script deeper than the analysis follows, or a block that takes longer than
    ``time_limit`` seconds, gives a ``source.too-complex`` finding instead of its script findings."""
    return analyse(source, file=file, fields=fields, sensitive=sensitive, time_limit=time_limit).findings


def analyse(source: str, *, file: str = "<block>", fields: Sequence[str] = (),
            sensitive: Sequence[str] | None = None, time_limit: float = STATIC_TIME_LIMIT) -> StaticResult:
    analysis = _Analysis(source, file, list(dict.fromkeys(fields)), tuple(sensitive if sensitive is not None else SENSITIVE_WORDS))
    analysis.time_limit = time_limit
    analysis.deadline = time.monotonic() + time_limit
    return analysis.run()


class _Analysis:
    time_limit: float  # set by analyse(), with the deadline it gives
    deadline: float

    def __init__(self, source: str, file: str, fields: list[str], sensitive: tuple[str, ...]):
        self.source = source
        self.file = file
        self.fields = fields
        self.sensitive = tuple(w.lower() for w in sensitive)
        self.findings: list[Finding] = []
        self.rules = load_rules()
        self._selector_loads: list[tuple[csslib.CssSelectorLoad, tuple[int, int]]] = []
        self._fonts: list[tuple[csslib.FontFace, tuple[int, int]]] = []

    def add(self, rule: str, message: str, offset_or_pos, *, context: str = "", **extra) -> None:
        if rule not in self.rules:  # disabled (FLOWUI_REVIEW_DISABLE)
            return
        line, column = offset_or_pos if isinstance(offset_or_pos, tuple) else self.doc.at(offset_or_pos)
        self.findings.append(Finding.make(rule, message, file=self.file, line=line, column=column,
                                          context=context or message, **extra))

    def run(self) -> StaticResult:
        size = len(self.source.encode("utf-8", "surrogatepass"))
        if size > MAX_SOURCE_BYTES or "\0" in self.source:
            reason = (f"the source is {size:,} bytes of UTF-8; at most {MAX_SOURCE_BYTES:,} (4 MiB) are accepted"
                      if size > MAX_SOURCE_BYTES else "the source contains a NUL character: a block cannot contain one")
            finding = Finding.make("source.refused", reason, file=self.file, line=1, column=1, context="refused")
            return StaticResult([finding], Projection(fields=self.fields, received=self.fields))
        try:
            markup = extract_paths(self.source)
        except ExtractionError as exc:
            markup = []
            for problem in exc.problems:
                self.findings.append(Finding.make("source.refused", problem.reason, file=self.file,
                                                  line=problem.line or 1, column=problem.column or 1,
                                                  context=str(problem)))
            if any(p.element is None for p in exc.problems):  # the source itself is refused
                return StaticResult(self.findings, Projection(fields=self.fields, received=self.fields))
        self.markup = markup
        try:
            self.doc = Document(self.source, self.deadline)
        except TimeoutError:
            finding = Finding.make("source.too-complex", f"the static review ran out of its {self.time_limit:g} s time limit "
                                   f"reading {len(self.source):,} characters of markup: nothing in it is reported",
                                   file=self.file, line=1, column=1, context="too complex")
            return StaticResult([*self.findings, finding], Projection(fields=self.fields, markup=markup,
                                                                        received=list(dict.fromkeys(self.fields + markup))), markup)
        scripts: list[Script] = []
        for element in self.doc.elements:
            self._element(element, scripts)
        parsed: dict = {}
        stopped = None
        events = []
        try:
            flow = Flow([parse(s, parsed, self.deadline) for s in scripts], self._select, markup, deadline=self.deadline,
                        controls=self._controls, forms=self._form_fields, named=self._named())
            inspector = Inspector(flow, self.fields)
            events = inspector.events
            self._css_keylogger(inspector.mirrors)
        except (TooComplex, RecursionError) as exc:
            stopped = ("the scripts nest deeper than the data flow follows" if isinstance(exc, RecursionError) else
                       f"the static review ran out of its {self.time_limit:g} s time limit")
            inspector = None
        if stopped:
            self.add("source.too-complex", f"{stopped} ({len(scripts)} scripts, {sum(len(s.code) for s in scripts):,} "
                     "characters): the scripts' findings are not reported", (1, 1), context="too complex")
            self.findings.sort(key=lambda f: (f.line, f.column, f.rule))
            return StaticResult(self.findings, Projection(fields=self.fields, markup=markup,
                                                          received=list(dict.fromkeys(self.fields + markup))), markup)
        for event in events:
            line, column = event.script.position(event.node)
            self.add(event.rule, event.message, (line, column), context=event.context, paths=event.paths,
                     hosts=event.hosts, evidence=event.evidence)
        written = {p for e in events if e.rule == "bridge.set-value" for p in e.paths}
        projection = self._projection(flow, written)
        self.findings.sort(key=lambda f: (f.line, f.column, f.rule))
        return StaticResult(self.findings, projection, markup)

    # -- markup ------------------------------------------------------------------------
    def _nodes(self, selector: str) -> list:
        """The elements ``selector`` matches: a CSS selector run against the block's lexbor tree,
        or the key of a handler's element (``\\0element:N``)."""
        owners = self.__dict__.setdefault("_owners", {})
        if selector in owners:
            return [owners[selector]]
        cache = self.__dict__.setdefault("_matched", {})
        if selector not in cache:
            try:
                cache[selector] = list(self.doc.tree.css(selector))
            except Exception:  # not a selector lexbor accepts: the browser would throw too
                cache[selector] = []
        return cache[selector]

    def _owner(self, node) -> str:
        """A key :meth:`_nodes` resolves to ``node`` (the element an event-handler attribute is on)."""
        owners = self.__dict__.setdefault("_owners", {})
        key = f"\0element:{len(owners)}"
        owners[key] = node
        return key

    def _select(self, selector: str) -> list[str]:
        """data-bind paths of the elements ``selector`` matches (and of their descendants)."""
        cache = self.__dict__.setdefault("_selected", {})
        if selector not in cache:
            cache[selector] = self._select_uncached(selector)
        return cache[selector]

    def _controls(self, selector: str) -> list[str]:
        """Names of the form controls and contenteditable elements ``selector`` matches (and
        inside them): ``input:#id``, ``input:[name=n]`` or ``input:tag``."""
        cache = self.__dict__.setdefault("_controlled", {})
        if selector not in cache:
            cache[selector] = list(dict.fromkeys(_control_name(inner) for node in self._nodes(selector)
                                                 for inner in node.traverse(include_text=False) if _is_control(inner)))
        return cache[selector]

    def _form_fields(self, selector: str) -> dict[str, list[str]]:
        """The forms ``selector`` matches, as their named controls: the id or name a control is
        read by (``form.q``, ``form.elements.q``) -> the names of the controls it gives, and
        ``""`` -> every control of the forms. Empty when ``selector`` matches no form."""
        cache = self.__dict__.setdefault("_forms", {})
        if selector not in cache:
            fields: dict[str, list[str]] = {}
            for node in self._nodes(selector):
                if node.tag != "form":
                    continue
                fields.setdefault("", [])
                for inner in node.traverse(include_text=False):
                    if not _is_control(inner) or inner.tag not in _LISTED:
                        continue
                    name = _control_name(inner)
                    fields[""].append(name)
                    for key in {inner.attributes.get("id") or "", inner.attributes.get("name") or ""} - {""}:
                        fields.setdefault(key, []).append(name)
            cache[selector] = fields
        return cache[selector]

    def _named(self) -> dict[str, str]:
        """The window's named access (HTML: an element's id, a form's name, is a global): each
        such name -> a selector of its elements. Not the names the window itself defines."""
        named: dict[str, list[str]] = {}
        for node in self.doc.tree.css("[id], form[name]"):
            for attribute, selector in (("id", "#"), ("name", "form[name=")):
                value = node.attributes.get(attribute) or ""
                if not value or value in _WINDOW_OWN or value.startswith("on") or attribute == "name" and node.tag != "form":
                    continue
                ident = _css_ident(value)
                named.setdefault(value, []).append(f"#{ident}" if selector == "#" else f"form[name={ident}]")
        return {name: ", ".join(dict.fromkeys(selectors)) for name, selectors in named.items()}

    def _css_keylogger(self, mirrors: dict[str, set[str]]) -> None:
        """What the user types, read by CSS: attribute selectors on an attribute a script mirrors
        typed text into, or @font-face rules per character (unicode-range) applied to typed text."""
        loads = [(sel, pos) for sel, pos in self._selector_loads if sel.attributes & set(mirrors)
                 and any(classify(u, "img").status == "external" for u in sel.urls)]
        if loads:
            names = sorted({n for sel, _ in loads for a in sel.attributes & set(mirrors) for n in mirrors[a]})
            hosts = sorted({classify(u, "img").host for sel, _ in loads for u in sel.urls} - {""})
            attrs = sorted({a for sel, _ in loads for a in sel.attributes & set(mirrors)})
            self.add("exfil.css-keylogger", f"a script copies what the user types ({', '.join(names)}) into the "
                     f"{', '.join(attrs)} attribute and {len(loads)} attribute selector(s) on it load URLs from "
                     f"{', '.join(hosts)}: one request per typed character", loads[0][1],
                     context=f"css keylogger {' '.join(attrs)}", paths=names, hosts=hosts)
        families: dict[str, list] = {}
        for font, pos in self._fonts:
            if font.unicode_range and any(classify(u, "font").status == "external" for u in font.urls):
                families.setdefault(font.family, []).append((font, pos))
        controls = sorted({_control_name(n) for n in self.doc.tree.css("input, textarea, [contenteditable]") if _is_control(n)})
        for family, fonts in families.items():
            if len({f.unicode_range for f, _ in fonts}) < 2 or not controls:
                continue
            hosts = sorted({classify(u, "font").host for f, _ in fonts for u in f.urls} - {""})
            self.add("exfil.css-keylogger", f"{len(fonts)} @font-face rules of {family!r}, one per unicode-range, load from "
                     f"{', '.join(hosts)}: text typed into {', '.join(controls)} is rendered with it, so each character "
                     "typed requests its font", fonts[0][1], context=f"font keylogger {family}", paths=controls, hosts=hosts)

    def _select_uncached(self, selector: str) -> list[str]:
        out = []
        for node in self._nodes(selector):
            for inner in node.traverse(include_text=False):
                value = inner.attributes.get("data-bind")
                if value:
                    out.append(value)
        return list(dict.fromkeys(out))

    def _url(self, url: str, use: str, offset_or_pos, where: str, context: str) -> None:
        verdict = classify(url, use)
        shown = url if len(url) <= 60 else url[:57] + "..."
        if verdict.status == "external":
            self.add("url.external", f"{verdict.host} contacted by {where} ({shown})", offset_or_pos,
                     context=context, hosts=[verdict.host], evidence={"url": url, "use": use})
            if network := private_network(verdict.host):
                self.add("url.private-network", f"{where} requests {verdict.host}: {network} ({shown})", offset_or_pos,
                         context=context, hosts=[verdict.host], evidence={"url": url, "use": use, "network": network})
        elif verdict.status == "blocked":
            self.add("url.blocked-scheme", f"{where} uses {shown}: the policy blocks {verdict.scheme or 'this'}: URLs for "
                     f"{use}; it never loads", offset_or_pos, context=context,
                     hosts=[verdict.host] if verdict.host else [], evidence={"url": url, "use": use})
        elif verdict.status == "relative" and use in ("img", "font", "media"):
            self.add("url.relative", f"{where} uses the relative URL {shown}: it is requested from the host page's own origin",
                     offset_or_pos, context=context, evidence={"url": url, "use": use})

    def _css(self, css: str, mapper: Mapper, where: str, *, attribute: bool = False) -> None:
        selectors: list[csslib.CssSelectorLoad] = []
        fonts: list[csslib.FontFace] = []
        if attribute:
            urls = csslib.declarations(css)
        else:
            urls, selectors = csslib.stylesheet(css, fonts)
        if fonts:
            starts = _line_starts(css)
            self._fonts.extend((f, mapper.at(starts[f.line - 1] + f.column - 1)) for f in fonts)
        lines = None
        for item in urls:
            lines = lines or _line_starts(css)
            pos = mapper.at(lines[item.line - 1] + item.column - 1)
            if item.use == "style":
                self.add("blocked.stylesheet", f"@import {item.url}: style-src allows inline styles only; it never applies",
                         pos, context=item.context)
                continue
            self._url(item.url, item.use, pos, f"CSS {'@font-face ' if item.use == 'font' else ''}{where}", item.context)
        for sel in selectors:
            lines = lines or _line_starts(css)
            pos = mapper.at(lines[sel.line - 1] + sel.column - 1)
            hosts = sorted({classify(u, 'img').host for u in sel.urls} - {""})
            if sel.attributes:
                self._selector_loads.append((sel, pos))
                self.add("exfil.css-attribute-selector", f"{sel.selector} loads {', '.join(sel.urls)[:80]}: a request per matching "
                         "attribute value", pos, context=sel.selector, hosts=hosts)
            paths = self._bound_in(sel.subject) if sel.subject else list(self.markup)
            if sel.state and paths and hosts:  # a data: image leaves nothing behind
                self.add("exfil.css-state-selector", f"{sel.selector} loads {', '.join(sel.urls)[:80]} only with some state "
                         f"({sel.state} over {', '.join(paths[:4])}): the request tells its host", pos,
                         context=sel.selector, hosts=hosts, paths=paths)

    def _bound_in(self, selector: str) -> list[str]:
        """The state paths bound (data-bind, data-show) on the elements ``selector`` matches and in
        them: none when it matches only unbound elements; every bound path when it matches no
        element of the markup (one a script adds, or a selector lexbor does not take)."""
        nodes = self._nodes(selector or "*")
        if not nodes:
            return list(self.markup)
        paths: list[str] = []
        for node in nodes:
            for inner in node.traverse(include_text=False):  # the node itself first
                for name in ("data-bind", "data-show"):
                    value = (inner.attributes.get(name) or "").strip()
                    if value in self.markup and value not in paths:
                        paths.append(value)
        return paths

    def _element(self, element: Element, scripts: list[Script]) -> None:
        tag = element.tag
        attrs = element.attrs
        at = element.offset if element.offset >= 0 else 0
        node = element.node
        for name, attr in attrs.items():
            if name.startswith("on") and len(name) > 2:
                mapper = Mapper(self.doc, attr.offset, attr.value, attr.raw)
                scripts.append(Script(attr.value, mapper.at, f"handler:{name}", owner=self._owner(node),
                                      control=_control_name(node) if _is_control(node) else ""))
            elif name == "style":
                self._css(attr.value, Mapper(self.doc, attr.offset, attr.value, attr.raw), f"<{tag} style>", attribute=True)
        value = lambda n: attrs[n].value if n in attrs else None  # noqa: E731
        pos = lambda n: attrs[n].offset if n in attrs else at  # noqa: E731
        # A javascript: URL the engines run (measured: WebKitGTK a link's on click, Chromium a frame's
        # src at load; the policy's 'unsafe-inline' allows them): its code is the block's script.
        url_attr = ("href" if "href" in attrs else "xlink:href") if tag in ("a", "area") else "src" if tag in ("iframe", "frame") else ""
        code = javascript_code(attrs[url_attr].value) if url_attr in attrs else None
        js_url = code is not None
        if code is not None:
            attr = attrs[url_attr]
            start = attr.value.find(":") + 1  # the scheme's colon: the first one
            mapper = Mapper(self.doc, attr.offset + start if attr.offset >= 0 else -1, code)
            scripts.append(Script(code, mapper.at, f"javascript-url:{tag}", owner=self._owner(node)))
        if tag == "script":
            if "src" in attrs:
                self.add("blocked.script-src", f"<script src={value('src')}>: script-src allows inline scripts only; it never runs",
                         at, context=f"script src {value('src')}")
            elif (value("type") or "").strip().lower() in _JS_TYPES:
                code = node.text(deep=True)
                scripts.append(Script(code, Mapper(self.doc, element.content_offset, code).at, "script"))
            return
        if tag == "style":
            code = node.text(deep=True)
            self._css(code, Mapper(self.doc, element.content_offset, code), "<style>")
            return
        if tag == "link":
            rels = set((value("rel") or "").lower().split())
            href = value("href") or ""
            if "stylesheet" in rels:
                self.add("blocked.stylesheet", f"<link rel=stylesheet href={href}>: style-src allows inline styles only",
                         at, context=f"link stylesheet {href}")
            hints = rels & _LINK_HINTS
            if hints:
                verdict = classify(href, "prefetch")
                self.add("network.link-hint", f"<link rel={' '.join(sorted(hints))}> to {verdict.host or href}: "
                         "Chromium fetches prefetch and WebKitGTK connects for preconnect despite the policy",
                         at, context=f"link {' '.join(sorted(hints))} {href}", hosts=[verdict.host] if verdict.host else [])
            return
        if tag == "base":
            self.add("blocked.base", f"<base href={value('href')}>: relative URLs now resolve against it", at,
                     context=f"base {value('href')}")
            return
        if tag == "meta" and (value("http-equiv") or "").lower() == "refresh":
            content = value("content") or ""
            target = content.split(";", 1)[1].strip() if ";" in content else ""
            if target.lower().startswith("url"):
                target = target[3:].lstrip(" =").strip("'\"")
            refresh = classify(target, "navigation") if target else None
            self.add("navigation.self", f"<meta http-equiv=refresh content={content!r}>: the block navigates itself"
                     + (f" to {refresh.host}" if refresh and refresh.host else ""), at, context=f"meta refresh {content}",
                     hosts=[refresh.host] if refresh and refresh.host else [])
            return
        if tag == "iframe" and "srcdoc" in attrs:
            self._nested(attrs["srcdoc"], scripts)
            return
        if js_url and tag in ("iframe", "frame"):
            return  # its code is the block's script (above); what it writes into the frame, the browsers see
        if tag in ("iframe", "frame", "object", "embed", "frameset", "portal", "fencedframe"):
            self.add("blocked.nested-frame", f"<{tag}>: frame-src and object-src are 'none'; nothing it names loads"
                     + (" (a srcdoc set by a script would: the review follows it as markup)" if tag == "iframe" else ""), at,
                     context=f"{tag} {value('src') or value('data') or ''}")
            return
        if tag == "form":
            self.add("blocked.form", "<form>: the sandbox has no allow-forms; submitting does nothing", at,
                     context=f"form {value('action') or ''}")
        if tag in ("a", "area"):
            target = (value("target") or "").lower()
            link = value("href")
            if target in ("_top", "_parent"):
                self.add("blocked.top-navigation", f"<{tag} target={target}>: navigating the host page; the sandbox blocks it",
                         at, context=f"{tag} {target} {link}")
            elif target == "_blank" or target and target != "_self":
                self.add("blocked.popup", f"<{tag} target={target}>: the sandbox has no allow-popups; nothing opens",
                         at, context=f"{tag} {target} {link}")
            if link and not js_url:  # a javascript: link's code is the block's script (above), no URL to load
                self._url(link, "navigation", pos("href"), f"<{tag} href> (on click)", f"{tag} href {link}")
            ping = value("ping")
            if ping:
                self._url(ping, "connect", pos("ping"), f"<{tag} ping>", f"ping {ping}")
            return
        if tag in ("set", "animate"):
            # SVG animation of an href (<image><set attributeName=href to=URL>): Chromium and Firefox load the URL.
            animated = next((a.value for n, a in attrs.items() if n.lower() == "attributename"), "").strip().lower()
            if animated in ("href", "xlink:href"):
                for name in SVG_ANIMATION_VALUES:
                    for url in (attrs[name].value.split(";") if name == "values" else [attrs[name].value]) if name in attrs else ():
                        if url.strip():
                            self._url(url.strip(), "img", attrs[name].offset, f"<{tag} {name}> (animating {animated})",
                                      f"{tag} {name} {url.strip()}")
            return
        use = "img"
        if tag in ("video", "audio", "track") or tag == "source" and node.parent is not None and node.parent.tag in ("video", "audio"):
            use = "media"
        for name in ("src", "href", "xlink:href", "poster", "background", "lowsrc"):
            if name in attrs and (name not in ("href", "xlink:href") or tag in ("image", "feimage")):
                if name == "src" and tag == "input" and (value("type") or "").lower() != "image":
                    continue
                the_use = "img" if name == "poster" else use
                self._url(attrs[name].value, the_use, attrs[name].offset, f"<{tag} {name}>", f"{tag} {name} {attrs[name].value}")
        if "srcset" in attrs:
            for url in _srcset(attrs["srcset"].value):
                self._url(url, use, attrs["srcset"].offset, f"<{tag} srcset>", f"{tag} srcset {url}")
        if tag == "button" and "formaction" in attrs:
            self.add("blocked.form", "<button formaction>: the sandbox has no allow-forms", at, context="button formaction")

    def _nested(self, srcdoc: Attr, scripts: list[Script]) -> None:
        """An <iframe srcdoc>: its document loads under the block's own policy and sandbox (frame-src
        governs no srcdoc), so what it loads is the block's. Its markup is reviewed as a block's (no
        bridge in it: no fields), its findings placed in the attribute's value; its scripts join the
        block's, so data the block posts to it is followed into what it sends."""
        nested = _Analysis(srcdoc.value, self.file, [], self.sensitive)
        nested.time_limit, nested.deadline, nested.markup = self.time_limit, self.deadline, []
        mapper = Mapper(self.doc, srcdoc.offset, srcdoc.value, srcdoc.raw)
        starts = Positions(srcdoc.value)

        def outer(position: tuple[int, int]) -> tuple[int, int]:
            return mapper.at(starts.offset(*position))

        try:
            nested.doc = Document(srcdoc.value, self.deadline)
        except TimeoutError:
            self.add("source.too-complex", f"the static review ran out of its {self.time_limit:g} s time limit reading an "
                     "<iframe srcdoc> document: nothing in it is reported", mapper.at(0), context="srcdoc too complex")
            return
        inner: list[Script] = []
        for element in nested.doc.elements:
            nested._element(element, inner)
        for f in nested.findings:
            if f.rule.startswith("projection."):
                continue
            self.findings.append(Finding.make(f.rule, f"in an <iframe srcdoc>: {f.message}", file=self.file,
                                              line=(at := outer((f.line, f.column)))[0], column=at[1],
                                              context=f"srcdoc {f.fingerprint}", paths=f.paths, hosts=f.hosts,
                                              evidence=f.evidence))
        for script in inner:
            scripts.append(Script(script.code, _composed(outer, script.at), f"srcdoc {script.kind}",
                                  owner=script.owner, control=script.control))
        # Its CSS rules that load only when an element matches: the block's keylogger check reads them too.
        self._selector_loads += [(load, outer(position)) for load, position in nested._selector_loads]
        self._fonts += [(font, outer(position)) for font, position in nested._fonts]

    # -- projection --------------------------------------------------------------------
    def _projection(self, flow: Flow, written: set[str]) -> Projection:
        fields, markup = self.fields, self.markup
        received = list(dict.fromkeys(fields + markup))
        reads = {p: n for p, n in flow.reads.items() if p != "?"}
        read = sorted(set(reads) | set(markup))
        whole = "" in reads
        unread = [f for f in fields if not whole and not any(_related(f, r) for r in [*read, *written])]
        unprojected = sorted(r for r in reads if r and not any(r == p or r.startswith(p + ".") or p.startswith(r + ".")
                                                                 for p in received))
        sensitive = sorted(p for p in set(received) | {r for r in reads if r} if self._sensitive(p))
        for f in unread:
            self.add("projection.unread-field", f"field {f} is projected into the block but never read (over-broad projection)",
                     (1, 1), context=f"unread {f}", paths=[f])
        for r in unprojected:
            line, column = self._script_position(flow, reads[r])
            self.add("projection.unprojected-read", f"reads {r}, which is neither in fields nor bound in the markup: "
                     "it is always undefined", (line, column), context=f"unprojected {r}", paths=[r])
        for p in sensitive:
            pos = self._script_position(flow, reads[p]) if p in reads else (1, 1)
            self.add("projection.sensitive-path", f"{p} looks sensitive and reaches the block: whatever the block receives "
                     "it can send out", pos, context=f"sensitive {p}", paths=[p])
        return Projection(fields=fields, markup=markup, received=received, read=[r or "(the whole state)" for r in read],
                          unread_fields=unread, unprojected_reads=unprojected, sensitive=sensitive)

    def _script_position(self, flow: Flow, node) -> tuple[int, int]:
        for script in flow.scripts:
            if node.id in script.parents:
                return script.position(node)
        return 1, 1

    def _sensitive(self, path: str) -> bool:
        return _is_sensitive(path, self.sensitive)


@functools.lru_cache(maxsize=4096)
def _is_sensitive(path: str, words: tuple[str, ...]) -> bool:
    """A segment is sensitive when it is one of ``words`` or has one as a whole snake_case
    word (``card_number``: card); a word with ``_`` (``api_key``) matches inside a segment."""
    for segment in path.lower().split("."):
        parts = segment.split("_")
        for word in words:
            if word == segment or ("_" in word and word in segment) or word in parts:
                return True
    return False


#: Form controls a form's named access gives (HTML's listed elements that hold typed text).
_LISTED = frozenset(("input", "select", "textarea"))
#: Names the window itself defines, which an element's id does not replace as a global
#: (``<input id=name>``: ``name`` is still the window's name).
_WINDOW_OWN = frozenset(("name", "status", "length", "top", "parent", "self", "window", "frames", "opener", "closed",
                         "location", "history", "navigator", "screen", "document", "origin", "event", "external",
                         "content", "performance", "crypto", "print", "close", "open", "stop", "focus", "blur", "find",
                         "scroll", "alert", "confirm", "prompt", "fetch", "console", "globalThis", "frameElement",
                         "menubar", "toolbar", "statusbar", "scrollbars", "personalbar", "locationbar", "localStorage",
                         "sessionStorage", "indexedDB", "caches", "customElements", "visualViewport", "screenX",
                         "screenY", "scrollX", "scrollY", "innerWidth", "innerHeight", "outerWidth", "outerHeight",
                         "devicePixelRatio", "isSecureContext", "crossOriginIsolated", "speechSynthesis", "flowUi",
                         "undefined", "NaN", "Infinity", "Image", "Audio", "Option", "Object", "Array", "String",
                         "Number", "Boolean", "Symbol", "Math", "JSON", "Date", "RegExp", "Error", "Promise", "Reflect",
                         "Proxy", "Map", "Set", "URL", "eval", "atob", "btoa", "setTimeout", "setInterval"))
_TEXT_INPUT_TYPES = frozenset(("", "text", "email", "password", "search", "tel", "url", "number"))


def _is_control(node) -> bool:
    tag = node.tag
    if tag in ("textarea", "select"):
        return True
    if tag == "input":
        return (node.attributes.get("type") or "").lower() not in ("hidden", "submit", "button", "reset", "image")
    editable = node.attributes.get("contenteditable")
    return "contenteditable" in node.attributes and (editable or "").lower() != "false"


def _control_name(node) -> str:
    """``input:#id``, ``input:[name=n]`` or ``input:tag`` (what a finding names as the input)."""
    attrs = node.attributes
    if attrs.get("id"):
        return f"input:#{attrs['id']}"
    if attrs.get("name"):
        return f"input:[name={attrs['name']}]"
    return f"input:{node.tag}"


def _related(field: str, read: str) -> bool:
    return field == read or read.startswith(field + ".") or field.startswith(read + ".") or read == ""


def _composed(outer: Callable[[tuple[int, int]], tuple[int, int]],
              inner: Callable[[int], tuple[int, int]]) -> Callable[[int], tuple[int, int]]:
    """An embedded script's offset -> position in the source, through the document it sits in."""
    return lambda offset: outer(inner(offset))


def _line_starts(text: str) -> list[int]:
    """Offsets where each line of a CSS text starts (tinycss2 counts LF, CR LF, CR and FF)."""
    starts = [0]
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\r" and i + 1 < n and text[i + 1] == "\n":
            i += 1
            starts.append(i + 1)
        elif c in "\n\r\f":
            starts.append(i + 1)
        i += 1
    return starts


def _srcset(value: str) -> list[str]:
    """The URLs of a srcset (the HTML standard's candidate parsing, descriptors skipped)."""
    urls = []
    i, n = 0, len(value)
    while i < n:
        while i < n and (value[i].isspace() or value[i] == ","):
            i += 1
        start = i
        while i < n and not value[i].isspace():
            i += 1
        url = value[start:i]
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            depth = 0
            while i < n and (value[i] != "," or depth):  # descriptors, up to the next comma outside parentheses
                depth += {"(": 1, ")": -1}.get(value[i], 0)
                i += 1
        if url:
            urls.append(url)
    return urls
