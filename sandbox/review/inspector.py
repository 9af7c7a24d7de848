"""The rules read off a block's scripts with the labels of a :class:`~.flow.Flow`: sinks
(exfil.state-to-url, exfil.input-to-url, url.from-state, url.relative, channel.webrtc),
bridge calls, blocked APIs, obfuscation, busy loops, and exfil.possible-flow where a block
reads data and can reach another host with no flow proved."""

from __future__ import annotations

import time

from tree_sitter import Node

from .flow import CSS_TEXT, FLOWUI, INPUT, RTC, STATE, URL, Flow, _named, property_key
from .js import (
    _FUNCTIONS,
    _WEBRTC,
    Event,
    Script,
    TooComplex,
    _css_loads,
    _declares,
    _starts_with_literal,
    _static_value,
    bound_locally,
    callee_name,
    enclosing_with,
    literal_fragments,
    parent_of,
    string_value,
    text,
    urls_in_text,
    walk,
)
from .pieces import urls as fold_urls
from .source import SVG_ANIMATION_VALUES
from .urls import UrlVerdict, absolute_url, allowed_schemes, classify, host_of, private_network

#: Properties whose assignment loads (or navigates to) a URL, by element use.
URL_PROPS = {"src": "img", "srcset": "img", "href": "navigation", "poster": "img", "data": "object",
             "action": "navigation", "formAction": "navigation", "background": "img", "ping": "connect",
             "content": "navigation"}  # a <meta>'s content: a refresh's target (no other element's content is a string to set)
#: style properties that may hold url().
STYLE_PROPS = frozenset(("background", "backgroundImage", "cssText", "listStyle", "listStyleImage", "content",
                         "borderImage", "borderImageSource", "cursor", "mask", "maskImage", "webkitMaskImage",
                         "shapeOutside", "filter"))
URL_ATTRS = {"src": "img", "srcset": "img", "href": "navigation", "xlink:href": "img", "poster": "img",
             "data": "object", "style": "img", "background": "img", "action": "navigation", "ping": "connect",
             "formaction": "navigation", "content": "navigation"}
#: Properties (and attributes, lower-cased) whose value is markup made into nodes: an <iframe srcdoc>
#: document loads under the block's own policy and sandbox (frame-src does not govern it).
HTML_SINK_PROPS = frozenset(("innerHTML", "outerHTML", "srcdoc"))
#: Methods whose first argument is markup made into nodes.
_HTML_SINK_CALLS = frozenset(("createContextualFragment", "parseFromString", "setHTMLUnsafe", "parseHTMLUnsafe", "setHTML"))

# ------------------------------------------------------------------------ inspection

_STORAGE = frozenset(("localStorage", "sessionStorage", "indexedDB", "caches", "BroadcastChannel", "openDatabase"))
_DIALOGS = frozenset(("alert", "confirm", "prompt", "print"))
_NETWORK_CALLS = frozenset(("fetch", "navigator.sendBeacon"))
_NETWORK_NEW = frozenset(("XMLHttpRequest", "WebSocket", "EventSource", "WebTransport"))
_WORKERS = frozenset(("Worker", "SharedWorker"))
_DECODERS = frozenset(("atob", "String.fromCharCode", "String.fromCodePoint", "unescape"))
_COMPUTED_ROOTS = frozenset(("window", "document", "globalThis", "self", "top", "parent", "frames", "navigator", "location"))
_TRUE = frozenset(("true", "1", "!0", "!false"))
#: What a block reads only to tell an automated browser (the review's) from a person's, or one
#: person's machine from another's: nothing a block shows needs it (docs/REVIEW-BROWSER.md, the tells).
#: Not the language, the time zone or the user agent string: blocks format and adapt by those.
_ENVIRONMENT_TELLS = frozenset((
    "navigator.webdriver", "navigator.hardwareConcurrency", "navigator.deviceMemory", "navigator.plugins",
    "navigator.mimeTypes", "navigator.userAgentData", "navigator.getBattery", "speechSynthesis.getVoices",
    "performance.memory", "screen.width", "screen.height", "screen.availWidth", "screen.availHeight",
    "screen.colorDepth", "screen.pixelDepth", "outerWidth", "outerHeight", "Notification.permission",
    "history.length"))  # the tab's joint history: the host's navigations, 1 in a fresh automated tab (host.history_length)
#: WebGL's names of the real graphics card (a software renderer marks a headless browser): one finding for all.
_GPU_TELLS = frozenset(("WEBGL_debug_renderer_info", "UNMASKED_RENDERER_WEBGL", "UNMASKED_VENDOR_WEBGL"))
#: The two constants' values (``gl.getParameter(0x9246)`` needs no extension object in Chromium and WebKit).
_GPU_PARAMETERS = frozenset((0x9245, 0x9246))
#: Names no block uses for anything but a tell, as strings too (``k === 'webdriver'`` over the
#: keys of ``navigator``, ``Object.getOwnPropertyDescriptors(Navigator.prototype)['webdriver']``).
_TELL_NAMES = {**{t.rpartition(".")[2]: t for t in ("navigator.webdriver", "navigator.hardwareConcurrency",
                                                     "navigator.deviceMemory", "navigator.userAgentData",
                                                     "navigator.getBattery", "speechSynthesis.getVoices")},
               **{t: t for t in _GPU_TELLS}}
#: Other names of the objects the tells are read from: Chromium's and WebKit's alias of navigator,
#: and the interfaces whose prototypes hold the getters (``Navigator.prototype.webdriver``).
_TELL_HOLDERS = {"clientInformation": "navigator", "Navigator.prototype": "navigator", "Screen.prototype": "screen",
                 "Performance.prototype": "performance", "SpeechSynthesis.prototype": "speechSynthesis"}
#: Globals automation tools leave in a page (PhantomJS, Selenium's drivers, Watir, Nightmare,
#: Playwright, Puppeteer, Cypress), and the prefixes of those whose names vary (ChromeDriver's
#: ``cdc_...`` arrays): a block looks for them only to hide from an automated browser.
_AUTOMATION_GLOBALS = frozenset((
    "callPhantom", "_phantom", "phantom", "__phantomas", "domAutomation", "domAutomationController", "_Selenium_IDE_Recorder",
    "_selenium", "callSelenium", "calledSelenium", "__webdriverFunc", "__lastWatirAlert", "__lastWatirConfirm",
    "__lastWatirPrompt", "__nightmare", "Cypress", "awesomium", "__playwright__binding__", "__pwInitScripts",
    "__puppeteer_evaluation_script__", "__webdriver_script_fn"))
#: Of those, the ones that are also words a block may show ('Cypress', a city): a tell as a global, not as a string.
_AUTOMATION_WORDS_TOO = frozenset(("phantom", "Cypress", "awesomium"))
_AUTOMATION_PREFIXES = ("cdc_", "$cdc_", "$wdc_", "__webdriver_", "__selenium_", "__fxdriver_", "__driver_", "__playwright",
                        "__pw_", "__puppeteer")
#: The globals' holders (a bare name reads the window's own).
_GLOBAL_HOLDERS = frozenset(("", "window", "self", "globalThis", "top", "parent", "frames", "document",
                             "document.documentElement"))
#: Words in a pattern (``/headless/i``) that name an automated browser (its user agent, its tools),
#: and the user agent's own marks in a string (``ua.includes('HeadlessChrome')``).
_AUTOMATION_WORDS = ("headless", "phantomjs", "slimerjs", "puppeteer", "playwright", "selenium", "webdriver", "cdc_")
_AUTOMATION_AGENTS = ("HeadlessChrome", "HeadlessEdg", "PhantomJS", "SlimerJS")
_ENCODED_MIN = 80
#: Namespace names are identifiers, never loaded (createElementNS, setAttributeNS).
XML_NAMESPACES = frozenset(("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xhtml", "http://www.w3.org/1999/xlink",
                            "http://www.w3.org/1998/Math/MathML", "http://www.w3.org/XML/1998/namespace",
                            "http://www.w3.org/2000/xmlns"))
_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
_HEX = frozenset("0123456789abcdefABCDEF")

class Inspector:
    """Reads findings off the parsed scripts, with the labels of a :class:`Flow`."""

    def __init__(self, flow: Flow, fields: list[str]):
        self.flow = flow
        self.fields = fields
        self.events: list[Event] = []
        self._seen: set[tuple[str, str]] = set()
        # Names holding the flowUi object (const f = flowUi; const api = Reflect.get(window, 'flowUi')).
        flow.aliases |= {name for name, labels in flow.vars.items() if FLOWUI in labels and name not in flow.maps}
        #: Attributes a script writes what the user types into (the CSS keylogger's mirror): attr -> input names.
        self.mirrors: dict[str, set[str]] = {}
        #: Where the scripts can reach a host outside the platform (for exfil.possible-flow).
        self.reach: list[tuple[Script, Node, str]] = []
        self._rtc: list[tuple[Script, Node]] = []
        self._with: dict[int, Node | None] = {}  # enclosing_with's answers, by node id
        # Whether the scripts set a <meta>'s http-equiv at all: only then is a `content` written a
        # refresh's URL (a description's or a viewport's content loads nothing).
        self._http_equiv = any(node.type == "property_identifier" and text(node) == "httpEquiv"
                               or node.type == "string" and (string_value(node) or "").lower() == "http-equiv"
                               for script in flow.unique for node in script.nodes)
        self._rtc_refs: list[tuple[Script, Node]] = []  # the constructor reached as a value (not `new X()`)
        copies: dict[str, list[Script]] = {}
        for script in flow.scripts:
            copies.setdefault(script.code, []).append(script)
        for script in flow.unique:
            start = len(self.events)
            self._script(script)
            # A verbatim copy has the same findings at its own position (once-per-block ones excepted).
            found = self.events[start:]
            for other in copies[script.code]:
                if other is not script:
                    self.events.extend(Event(e.rule, other, e.node, e.message, e.paths, e.hosts, e.evidence, e.context)
                                       for e in found if not e.once)
        if flow.pieces.exhausted and flow.unique and flow.unique[0].tree is not None:
            # Strings built from more pieces than the review follows: their URLs are unknown.
            self.reach.append((flow.unique[0], flow.unique[0].tree.root_node, "strings built from more pieces than the review follows"))
        self._webrtc()
        self._possible_flow()

    def _webrtc(self) -> None:
        """One channel.webrtc per peer connection, naming what its configuration, data channels'
        labels and sends carry (every call on a peer connection or a channel of it)."""
        self._webrtc_refs()
        if not self._rtc:
            return
        carried: set = set()
        for script in self.flow.unique:
            for node in script.nodes:
                if node.type in ("call_expression", "new_expression"):
                    holder = node.child_by_field_name("function")
                    if holder is not None and holder.type == "member_expression":
                        receiver = self.flow.labels(holder.child_by_field_name("object"))
                        if RTC not in receiver:
                            continue
                    elif node.type != "new_expression" or callee_name(node.child_by_field_name("constructor")) not in _WEBRTC:
                        continue
                    arguments = node.child_by_field_name("arguments")
                    for arg in arguments.named_children if arguments is not None else ():
                        carried |= self.flow.labels(arg)
                elif node.type == "variable_declarator" and RTC in self.flow.labels(node.child_by_field_name("name")):
                    carried |= self.flow.labels(node.child_by_field_name("name"))
        paths = _named(carried)
        for script, node in self._rtc:
            ctor = callee_name(node.child_by_field_name("constructor"))
            self.emit("channel.webrtc", script, node, f"new {ctor}(): STUN packets leave outside the Content-Security-Policy"
                      + (f", carrying {', '.join(paths)} (server credentials, channel labels or sends)" if paths else ""),
                      paths=paths)

    def _webrtc_refs(self) -> None:
        """A WebRTC constructor reached as a value (an alias, destructuring, ``Reflect.construct``, a
        key string): the peer connection it makes is not followed, so the finding names everything
        the block reads as what it may carry."""
        if not self._rtc_refs:
            return
        reads = {(STATE, p, False) for p in self.flow.reads if p != "?"}
        paths = _named(reads) + (["(what the user types)"] if self.flow.inputs_used else [])
        for script, node in self._rtc_refs:
            name = string_value(node) if node.type == "string" else text(node)
            self.emit("channel.webrtc", script, node,
                      f"{name} used as a value (an alias, destructuring, Reflect.construct), not as `new {name}()`: a peer connection"
                      " sends STUN packets outside the Content-Security-Policy; what it carries is not followed"
                      + (f", and the block reads {', '.join(paths)}" if paths else ""), paths=paths)

    def _possible_flow(self) -> None:
        """A block that reads state or input and can reach another host, with no flow proved:
        at least a manual review (the data flow is an approximation; docs/REVIEW.md)."""
        proved = {"exfil.state-to-url", "exfil.input-to-url", "url.relative", "channel.webrtc"}
        if not self.reach or any(e.rule in proved and e.paths for e in self.events):
            return
        reads = sorted(p or "(the whole state)" for p in self.flow.reads if p != "?")
        if not reads and not self.flow.inputs_used:
            return
        script, node, how = self.reach[0]
        what = ", ".join(reads[:4]) if reads else "what the user types"
        self.once("exfil.possible-flow", "block", script, node,
                  f"reads {what} and can reach another host ({how}); no flow between them is proved: review by hand",
                  paths=reads if reads else [], evidence={"reach": [r[2] for r in self.reach[:5]]})
    def emit(self, rule: str, script: Script, node: Node, message: str, **extra) -> None:
        extra.setdefault("context", text(node)[:200])
        self.events.append(Event(rule, script, node, message, **extra))

    def once(self, rule: str, key: str, script: Script, node: Node, message: str, **extra) -> None:
        """At most one finding of ``rule`` per ``key`` per block (storage, cookies: one is enough)."""
        if (rule, key) in self._seen:
            return
        self._seen.add((rule, key))
        self.emit(rule, script, node, message, once=True, **extra)

    # -- a sink -----------------------------------------------------------------------
    def sink(self, script: Script, node: Node, value: Node | None, sink: str, kind: str, *, html: bool = False) -> None:
        if value is None:
            return
        labels = self.flow.labels(value)
        paths = sorted({label[1] or "(the whole state)" for label in labels if label[0] == STATE})
        inputs = sorted({label[1] for label in labels if label[0] == INPUT})
        if not paths and not inputs:
            if kind == "csstext" and CSS_TEXT not in labels and not any(_css_loads(f) for f in literal_fragments(value)):
                return  # an element's text (a label, a count): it loads something only as CSS with url() or @import in it
            if kind != "open" and not _static_value(value) and self.flow.pieces.literal(value) is None:
                self.reach.append((script, node, f"{sink} set at run time"))
            return
        if not paths:
            return self._input_sink(script, node, value, labels, inputs, sink, kind, html=html)
        if inputs:
            self._input_sink(script, node, value, labels, inputs, sink, kind, html=html)
        fragments, first = self._text_of(value)
        has_url = any(label[0] == URL for label in labels)
        if kind == "csstext":  # text that is CSS only in a <style>: it loads with url(), @import or @font-face in it
            if CSS_TEXT not in labels and not any(_css_loads(f) for f in fragments):
                return
            kind = "css"
        if html and not has_url and not any(("://" in f or "src" in f.lower() or "url(" in f.lower() or "href" in f.lower())
                                            for f in fragments):
            return
        lowered = [f.lower() for f in fragments]
        if kind == "css" and not has_url and not any("url(" in f or "image" in f or "\\" in f for f in lowered):
            return  # a CSS value from the state (a color, a width) loads nothing
        if first.startswith(("mailto:", "tel:", "sms:", "#", "data:", "blob:", "about:")):
            return  # no request leaves
        if not has_url and first and not first.startswith("//") and not urls_in_text(first) \
                and first[:1] in "/.?" + "abcdefghijklmnopqrstuvwxyz0123456789_-" and ":" not in first.split("/")[0]:
            shown = [p if p != "?" else "(a path computed at run time)" for p in paths]
            self.emit("url.relative", script, node, f"state {', '.join(shown)} flows into {sink} with the relative URL "
                      f"{fragments[0].strip()[:40]!r}: requested from the host page's own origin",
                      paths=shown, evidence={"sink": sink, "kind": kind})
            return
        bare = value
        while bare.type == "parenthesized_expression" and bare.named_child_count == 1:
            bare = bare.named_children[0]
        direct = bare.type in ("member_expression", "subscript_expression") or (
            bare.type == "call_expression" and self.flow.name_of(bare.child_by_field_name("function")).rpartition(".")[::2]
            in {(alias, "get") for alias in self.flow.aliases})
        # The value is a state read as it is (no concatenation, no variable that may hold one).
        if direct and not fragments and not any(label[0] == URL for label in labels) and not html:
            shown = [p if p != "?" else "(a path computed at run time)" for p in paths]
            self.emit("url.from-state", script, node, f"{sink} loads the URL held by {', '.join(shown)}: the request goes "
                      "wherever the state points", paths=shown, evidence={"sink": sink, "kind": kind})
            return
        hosts = self._hosts(value, labels, fragments)
        paths = [p if p != "?" else "(a path computed at run time)" for p in paths]
        where = ", ".join(hosts) if hosts else "a host computed at run time, or the host page's own origin"
        self.emit("exfil.state-to-url", script, node,
                  f"state {', '.join(paths)} flows into {sink} (to {where})",
                  paths=paths, hosts=hosts, evidence={"sink": sink, "kind": kind})

    def _hosts(self, value: Node, labels: frozenset, fragments: list[str]) -> list[str]:
        """The hosts a sink's value names: its labels' URLs and those in its text (:meth:`_text_of`),
        but not a host cut short: where the value is built from pieces, a host its folded text
        holds is named only where that text's URLs (:func:`.pieces.urls`) end it, not where a value
        known only at run time, or more text, continues it (``'https://ev' + x + 'il.example/'``,
        ``'https://a' + n + '.example/'``); one the fold does not hold (a ternary's branch) stays."""
        urls = {label[1] for label in labels if label[0] == URL} | {u for f in fragments for u in urls_in_text(f)} \
            | {f.strip() for f in fragments if absolute_url(f.strip())}
        hosts = {host_of(u.strip()) for u in urls} - {""}
        bare = value
        while bare.type == "parenthesized_expression" and bare.named_child_count == 1:
            bare = bare.named_children[0]
        if not hosts or not self.flow.pieces.builds(bare):
            return sorted(hosts)
        fold = self.flow.pieces.fold(bare)
        whole = {host for _, host in fold_urls(fold) if host}
        runs = [run.lower() for run in fold.pieces if run]
        return sorted(h for h in hosts if h in whole or not any("//" + h in run for run in runs))

    def _text_of(self, value: Node) -> tuple[list[str], str]:
        """A sink value's literal text: its fragments (for a string built from pieces, its folded
        runs first: ``['https:', '', 'x.example'].join('/')`` is ``https://x.example``; then every
        literal inside it) and, lower-cased, the literal it starts with (``""`` if it starts with
        a value known only at run time)."""
        fragments = literal_fragments(value)
        bare = value
        while bare.type == "parenthesized_expression" and bare.named_child_count == 1:
            bare = bare.named_children[0]
        pieces = self.flow.pieces
        if pieces.builds(bare):
            fold = pieces.fold(bare).pieces
            head = fold[0] if fold else ""
            return [p for p in fold if p] + fragments, head.lower().lstrip() if head is not None else ""
        return fragments, fragments[0].lower().lstrip() if fragments and _starts_with_literal(value) else ""

    def _input_sink(self, script: Script, node: Node, value: Node, labels: frozenset, inputs: list[str], sink: str,
                    kind: str, *, html: bool = False) -> None:
        """What the user typed reaches a URL sink: exfil.input-to-url, unless no request carries it."""
        fragments, first = self._text_of(value)
        lowered = [f.lower() for f in fragments]
        has_url = any(label[0] == URL for label in labels)
        if kind == "csstext":
            if CSS_TEXT not in labels and not any(_css_loads(f) for f in fragments):
                return
            kind = "css"
        if html and not has_url and not any(("://" in f or "src" in f or "url(" in f or "href" in f) for f in lowered):
            return
        if kind == "css" and not has_url and not any("url(" in f or "image" in f or "\\" in f for f in lowered):
            return
        if first.startswith(("mailto:", "tel:", "sms:", "#", "data:", "blob:", "about:")):
            return
        bare = value
        while bare.type == "parenthesized_expression" and bare.named_child_count == 1:
            bare = bare.named_children[0]
        if not has_url and bare.type in ("member_expression", "subscript_expression", "identifier", "call_expression") \
                and not (bare.type == "call_expression" and self.flow.pieces.builds(bare)
                         and any(self.flow.pieces.fold(bare).pieces)):
            # The user's own URL, loaded as typed (a preview): nothing of the block's leaves with it.
            # A call that joins literal pieces to it (join, concat) adds to it, as `+` does.
            return
        hosts = self._hosts(value, labels, fragments)
        where = ", ".join(hosts) if hosts else "a host computed at run time, or the host page's own origin"
        self.emit("exfil.input-to-url", script, node, f"what the user types ({', '.join(inputs)}) flows into {sink} (to {where})",
                  paths=inputs, hosts=hosts, evidence={"sink": sink, "kind": kind})

    # -- the walk -------------------------------------------------------------------------
    def _script(self, script: Script) -> None:
        if script.tree is None:
            return
        root = script.tree.root_node
        if root.has_error:
            bad = next((n for n in walk(root) if n.is_error or n.is_missing), root)
            self.emit("source.script-syntax", script, bad,
                      f"{'handler ' + script.kind.split(':', 1)[1] if script.kind.startswith('handler') else 'script'}"
                      f" does not parse near {text(bad)[:40]!r}: the browser drops the whole script",
                      context=script.code[:200])
        aliases = self.flow.aliases
        deadline = self.flow.deadline
        for count, node in enumerate(script.nodes):
            if not count & 255 and time.monotonic() > deadline:
                raise TooComplex("time")
            kind = node.type
            if (text(node) if kind in _NAME_NODES else string_value(node) if kind == "string" else None) in _WEBRTC \
                    and not _constructed(node):
                self._rtc_refs.append((script, node))
            if kind in ("binary_expression", "template_string", "call_expression"):
                self._assembled(script, node)
                if (built := self.flow.pieces.literal(node)) is not None:  # k === 'web' + 'driver'
                    self._tell_text(script, node, built)
            if kind == "binary_expression" and (operator := node.child_by_field_name("operator")) is not None \
                    and operator.type == "in":  # 'webdriver' in navigator
                self._environment(script, node, f"{self.flow.name_of(node.child_by_field_name('right'))}."
                                                f"{self.flow.member_key(node.child_by_field_name('left')) or ''}")
            if kind == "assignment_expression" or kind == "augmented_assignment_expression":
                self._assignment(script, node)
            elif kind == "call_expression":
                self._call(script, node)
            elif kind == "new_expression":
                self._new(script, node)
            elif kind == "member_expression":
                name = self.flow.name_of(node)
                if name == "document.cookie":
                    self.once("blocked.cookie", name, script, node, "document.cookie: the block's origin is opaque, so it throws")
                elif name.split(".")[0] in _STORAGE:
                    root_name = name.split(".")[0]
                    self.once("blocked.storage", root_name, script, node, f"{root_name}: the block's origin is opaque; storage throws or holds nothing")
                elif name.split(".")[0] in ("top", "parent", "opener") and name.count(".") == 1 and name.split(".")[1] not in (
                        "postMessage",) and not bound_locally(node, name.split(".")[0]):
                    self.once("blocked.top-navigation", name, script, node, f"{name}: reaches into the host page; the sandbox blocks it")
                elif name.startswith("WebAssembly.") and name.count(".") == 1:
                    self.once("blocked.eval", name, script, node, f"{name}: WebAssembly without 'wasm-unsafe-eval' "
                              "(refused by Chromium and Firefox; WebKitGTK compiles it)")
                elif name in ("history.back", "history.go", "history.forward"):
                    self.once("blocked.top-navigation", name, script, node,
                              f"{name}(): in Firefox and WebKitGTK this moves the host page's history (navigation.history_back)")
                else:
                    self._environment(script, node, name)
            elif kind == "identifier" or kind == "shorthand_property_identifier_pattern":
                name = text(node)
                parent = parent_of(node)
                if name in _STORAGE and not (parent is not None and parent.type == "member_expression"
                                             and parent.child_by_field_name("property") == node):
                    self.once("blocked.storage", name, script, node, f"{name}: the block's origin is opaque; storage throws or holds nothing")
                elif self.flow.members.get(name) == "document.cookie":  # const {cookie} = document
                    self.once("blocked.cookie", "document.cookie", script, node,
                              "document.cookie: the block's origin is opaque, so it throws")
                elif name in self.flow.members:  # const {webdriver} = navigator
                    self._environment(script, node, self.flow.members[name])
                elif (name in _ENVIRONMENT_TELLS or automation_global(name)) and not bound_locally(node, name) and not (
                        parent is not None and parent.type in ("member_expression", "pair")
                        and node in (parent.child_by_field_name("property"), parent.child_by_field_name("key"))):
                    self._environment(script, node, name)  # outerWidth, callPhantom: the global's own
                elif name in _TELL_NAMES and (within := enclosing_with(node, self._with)) is not None:
                    self._environment(script, node, f"{self.flow.name_of(within)}.{name}")  # with (navigator) webdriver
            elif kind == "subscript_expression":
                obj = node.child_by_field_name("object")
                index = node.child_by_field_name("index")
                base = self.flow.name_of(obj)
                if (base in _COMPUTED_ROOTS or base in aliases or base in self.flow.global_aliases
                        or base in self.flow.document_aliases) \
                        and string_value(index) is None and index.type != "number":
                    self.emit("obfuscation.computed-global", script, node,
                              f"{text(obj)}[{text(index)[:40]}]: a member chosen at run time, hidden from review")
                    self.reach.append((script, node, "a member of a global chosen at run time"))
                self._environment(script, node, self.flow.name_of(node))  # navigator['web' + 'driver']
            elif kind in ("string", "template_string"):
                self._string(script, node)
            elif kind == "regex_pattern":  # /HeadlessChrome/.test(navigator.userAgent)
                self._automation_text(script, node, text(node))
            elif kind in ("while_statement", "do_statement", "for_statement"):
                self._loop(script, node)
            elif kind == "import" and (up := parent_of(node)) is not None and up.type == "call_expression":
                self.emit("blocked.eval", script, up, "import(): loads code at run time; script-src refuses it")

    def _assignment(self, script: Script, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None:
            return
        name = self.flow.name_of(left)
        if left.type == "identifier" and text(left) != "location":
            within = enclosing_with(node, self._with)
            if within is not None:  # with (img) { src = ... }
                prop = text(left)
                if prop in URL_PROPS and not self._no_refresh(prop, right):
                    self.sink(script, node, right, f"with ({_short(within)}) {prop}", URL_PROPS[prop])
                elif prop in STYLE_PROPS:
                    self.sink(script, node, right, f"with ({_short(within)}) {prop}", "css")
            return
        parts = name.split(".") if name else []
        if left.type == "identifier" and text(left) == "location" or parts[-2:] in (["document", "location"],) \
                or name in ("location", "location.href", "document.location.href") \
                or len(parts) == 2 and parts[0] in self.flow.location_aliases and parts[1] == "href":
            self.emit("navigation.self", script, node, "assigns location: the block navigates itself away (the bridge closes)")
            self.sink(script, node, right, "location", "navigation")
            return
        if parts[:1] in (["top"], ["parent"]) and "location" in parts and not bound_locally(node, parts[0]):
            self.once("blocked.top-navigation", name, script, node, f"{name} = ...: navigating the host page; the sandbox blocks it")
            return
        if left.type == "subscript_expression":
            key = self.flow.member_key(left.child_by_field_name("index"))
            if key is None:
                obj = left.child_by_field_name("object")
                if not _numeric_index(left.child_by_field_name("index")) and not _static_value(right) and any(label[0] in (URL, STATE, INPUT) for label in self.flow.labels(right)):
                    self.reach.append((script, node, f"{_short(obj)}[{_short(left.child_by_field_name('index'))}] set at run time"))
                return
            prop = key
        elif left.type != "member_expression":
            return
        else:
            prop = text(left.child_by_field_name("property"))
        obj = left.child_by_field_name("object")
        if obj is None:
            return
        if obj.type == "member_expression" and text(obj.child_by_field_name("property")) == "style" \
                or obj.type == "subscript_expression" and self.flow.member_key(obj.child_by_field_name("index")) == "style":
            prop = _camel(prop)  # style['background-image']
            if prop in STYLE_PROPS:
                self.sink(script, node, right, f"style.{prop}", "css")
            return
        if prop == "httpEquiv":
            self._refresh(script, node, right)
        if prop == "defaultValue":  # the value attribute: what CSS attribute selectors see
            self._mirror(script, node, "value", right)
        if prop in ("textContent", "innerText", "nodeValue", "data", "text"):
            self.sink(script, node, right, f"{_short(obj)}.{prop}", "csstext")  # a <style>'s text
            return
        if prop == "style":
            self.sink(script, node, right, "style", "css")
        elif prop in URL_PROPS and not self._no_refresh(prop, right):
            target = "new Image().src" if obj.type == "new_expression" else f"{_short(obj)}.{prop}"
            self.sink(script, node, right, target, URL_PROPS[prop])
        elif prop in HTML_SINK_PROPS:
            self.sink(script, node, right, f"{_short(obj)}.{prop}", "img", html=True)

    def _no_refresh(self, prop: str, value: Node | None) -> bool:
        """``prop`` is a <meta>'s content that is no refresh's URL: no http-equiv set anywhere, no ``url=`` in its text."""
        return prop == "content" and not self._http_equiv and not any("url=" in f.lower() for f in literal_fragments(value))

    def _is_open_url(self, node: Node) -> bool:
        """Whether ``node`` is flowUi.openUrl: by an alias of it, of flowUi, or on any expression holding flowUi."""
        name = self.flow.name_of(node)
        if name in self.flow.openers or name.rpartition(".")[::2] in {(alias, "openUrl") for alias in self.flow.aliases}:
            return True
        return node.type == "member_expression" and text(node.child_by_field_name("property")) == "openUrl" \
            and FLOWUI in self.flow.labels(node.child_by_field_name("object"))

    def _refresh(self, script: Script, node: Node, value: Node | None) -> None:
        """A <meta> made a refresh in script (``m.httpEquiv = 'refresh'``): the browser acts on it
        when it is inserted, as on one in the markup; its ``content`` is the URL (a sink above)."""
        if (self.flow.member_key(value) or "").strip().lower() == "refresh":
            self.emit("navigation.self", script, node, "a <meta http-equiv=refresh> made in script: the block navigates itself away"
                      " (the bridge closes)")

    def _mirror(self, script: Script, node: Node, attr: str, value: Node | None) -> None:
        """A script writes what the user types into an attribute (CSS attribute selectors see it)."""
        inputs = {label[1] for label in self.flow.labels(value) if label[0] == INPUT}
        if inputs and attr:
            self.mirrors.setdefault(attr, set()).update(inputs)

    def _prop_sink(self, script: Script, node: Node, target: str, prop: str, value: Node | None, how: str) -> None:
        """A property written by name through Object.assign / Reflect.set / defineProperty."""
        if value is None:
            return
        if target == "style" and prop in STYLE_PROPS:
            self.sink(script, node, value, f"{how} style.{prop}", "css")
        elif prop in URL_PROPS and not self._no_refresh(prop, value):
            self.sink(script, node, value, f"{how} {prop}", URL_PROPS[prop])
        elif prop in ("href",) or target == "location" and prop in ("href", ""):
            self.sink(script, node, value, f"{how} location", "navigation")

    def _call(self, script: Script, node: Node) -> None:
        args, name, head, method = self.flow.call_parts(node)
        if method == "getParameter" and args and self.flow.pieces.number(args[0]) in _GPU_PARAMETERS:
            self._environment(script, node, "UNMASKED_RENDERER_WEBGL")  # gl.getParameter(37446)
        function = node.child_by_field_name("function")
        aliases = self.flow.aliases
        if method in ("send", "setValue", "openUrl") and (head in aliases or function is not None and function.type
                                                           == "member_expression" and FLOWUI in self.flow.labels(
                                                               function.child_by_field_name("object"))):
            # flowUi by its name, an alias, or any expression holding it ([flowUi][0], ({f: flowUi}).f)
            return self._bridge(script, node, method, args)
        if name in self.flow.openers:  # const o = flowUi.openUrl.bind(flowUi); o(url)
            return self._bridge(script, node, "openUrl", args)
        if method in ("call", "apply") and (head in self.flow.openers or head.rpartition(".")[::2] in
                                            {(alias, "openUrl") for alias in aliases}) and len(args) >= 2:
            given = list(args[1].named_children) if method == "apply" and args[1].type == "array" else args[1:]
            return self._bridge(script, node, "openUrl", given)
        # openUrl handed to the language's own callers: Reflect.apply(f, t, [url]),
        # Function.prototype.call.call(f, t, url), Function.prototype.apply.call(f, t, [url]).
        spread = {"Reflect.apply": True, "Function.prototype.apply.call": True, "Function.prototype.call.call": False}.get(name)
        if spread is not None and len(args) >= 2 and self._is_open_url(args[0]):
            rest = args[2:]
            given = list(rest[0].named_children) if spread and rest and rest[0].type == "array" else rest
            return self._bridge(script, node, "openUrl", given)
        if method in ("setAttribute", "setAttributeNS") and len(args) >= 2:
            if method == "setAttributeNS":
                args = args[1:]
            attr = (self.flow.member_key(args[0]) or "").lower() if len(args) >= 2 else ""
            attr = attr.rpartition(":")[2] if attr.startswith("xlink:") else attr
            if attr == "http-equiv":
                self._refresh(script, node, args[1])
            if attr in URL_ATTRS and not self._no_refresh(attr, args[1]):
                self.sink(script, node, args[1], f"{method}('{attr}')", "css" if attr == "style" else URL_ATTRS[attr])
            elif attr == "srcdoc":
                self.sink(script, node, args[1], f"{method}('{attr}')", "img", html=True)
            elif attr in SVG_ANIMATION_VALUES and (any(label[0] == URL for label in self.flow.labels(args[1]))
                                                or any("://" in f for f in literal_fragments(args[1]))):
                # an SVG <set>/<animate> of an href: its value is a URL the engine loads (Chromium, Firefox)
                self.sink(script, node, args[1], f"{method}('{attr}')", "img")
            elif len(args) >= 2:
                self._mirror(script, node, attr, args[1])
        elif name in ("Object.assign", "Reflect.set", "Object.defineProperty") and len(args) >= 2:
            target = callee_name(args[0]).rpartition(".")[2]
            if name == "Object.assign":
                for source in args[1:]:
                    for pair in source.named_children if source.type == "object" else ():
                        prop = property_key(pair.child_by_field_name("key") if pair.type == "pair" else pair, self.flow.member_key)
                        item = pair.child_by_field_name("value") if pair.type == "pair" else pair
                        self._prop_sink(script, node, target, prop, item, "Object.assign")
            elif len(args) >= 3:
                prop = string_value(args[1]) or ""
                item = args[2]
                if name == "Object.defineProperty" and item.type == "object":
                    item = next((p.child_by_field_name("value") for p in item.named_children if p.type == "pair"
                                 and text(p.child_by_field_name("key")) == "value"), item)
                self._prop_sink(script, node, target, prop, item, name)
        elif method in ("insertRule", "replaceSync", "replace", "appendRule", "createTextNode", "appendData") and args \
                and function is not None and function.type == "member_expression" and not head.endswith("location"):
            # CSSOM rules and text that ends up in a <style> (loads only with url()/@import in it).
            self.sink(script, node, args[0], f"{method}()", "csstext")
        elif method == "setProperty" and head.endswith("style") and len(args) >= 2:
            self.sink(script, node, args[1], "style.setProperty", "css")
        elif method in ("insertAdjacentHTML",) and len(args) >= 2:
            self.sink(script, node, args[1], "insertAdjacentHTML", "img", html=True)
        elif method in _HTML_SINK_CALLS and args and function is not None and function.type == "member_expression":
            # Markup parsed into nodes the block can insert (a DOMParser's, a range's fragment) or inserts.
            self.sink(script, node, args[0], f"{method}()", "img", html=True)
        elif name in ("document.write", "document.writeln") and args:
            self.sink(script, node, args[0], name, "img", html=True)
        elif name.endswith("location.assign") or name.endswith("location.replace") or name in ("location.reload",) \
                or head in self.flow.location_aliases and method in ("assign", "replace"):
            if name.startswith(("top.", "parent.")):
                self.once("blocked.top-navigation", name, script, node, f"{name}(): navigating the host page; the sandbox blocks it")
            else:
                self.emit("navigation.self", script, node, f"{name}(): the block navigates itself away (the bridge closes)")
                if args:
                    self.sink(script, node, args[0], name, "navigation")
        if name in ("Reflect.get", "Reflect.has", "Object.getOwnPropertyDescriptor") and len(args) >= 2:
            # Reflect.get(navigator, 'webdriver'), Object.getOwnPropertyDescriptor(Navigator.prototype, 'webdriver')
            self._environment(script, node, f"{self.flow.name_of(args[0])}.{self.flow.member_key(args[1]) or ''}")
        if name in ("open", "window.open"):
            self.emit("blocked.popup", script, node, f"{name}(): the sandbox has no allow-popups; nothing opens")
        elif name in _DIALOGS:
            self.once("blocked.dialog", name, script, node, f"{name}(): the sandbox has no allow-modals; it returns at once and shows nothing")
        elif name in ("eval", "Function"):
            self.emit("blocked.eval", script, node, f"{name}(): code from a string; script-src has no 'unsafe-eval'")
        elif name in ("setTimeout", "setInterval") and args and (
                args[0].type in ("string", "template_string", "binary_expression")
                or args[0].type == "identifier" and any(label[0] == URL for label in self.flow.labels(args[0]))):
            self.emit("blocked.eval", script, node, f"{name} with a string: code from a string; script-src has no 'unsafe-eval'")
        elif name in _NETWORK_CALLS:
            self.emit("blocked.network-api", script, node, f"{name}(): connect-src is 'none'; nothing is sent")
        elif (name in _DECODERS or method in ("fromCharCode", "fromCodePoint") and head == "String") \
                and _literal_args(args, self.flow.constants):
            # Decoding literals hides a string from review; decoding data (an entity or code-point
            # converter, a base64 tool) is the tool's job and is not reported.
            self.emit("obfuscation.decode", script, node, f"{name}(): builds strings at run time, hidden from review")
            self.reach.append((script, node, f"{name}() on literals"))
        elif name == "navigator.serviceWorker.register":
            self.emit("blocked.worker", script, node, "a service worker: the opaque origin has none")
        elif method in ("submit", "requestSubmit") and head:
            self.emit("blocked.form", script, node, f"{name}(): the sandbox has no allow-forms; nothing is submitted")
        if name == "setInterval" and len(args) >= 2 and args[1].type == "number":
            delay = self.flow.pieces.number(args[1])
            if delay is not None and delay < 50:
                self.emit("cpu.fast-timer", script, node, f"setInterval every {text(args[1])} ms keeps the CPU busy")

    def _new(self, script: Script, node: Node) -> None:
        ctor = callee_name(node.child_by_field_name("constructor"))
        arguments = node.child_by_field_name("arguments")
        args = list(arguments.named_children) if arguments is not None else []
        if ctor in _WORKERS:
            self.emit("blocked.worker", script, node, f"new {ctor}(): the policy loads no worker script")
        elif ctor in _NETWORK_NEW:
            self.emit("blocked.network-api", script, node, f"new {ctor}(): connect-src is 'none'; nothing is sent")
        elif ctor in _WEBRTC:
            self._rtc.append((script, node))  # emitted by _webrtc, with what it carries
        elif ctor == "Function":
            self.emit("blocked.eval", script, node, "new Function(): code from a string; script-src has no 'unsafe-eval'")
        elif ctor == "Audio" and args:
            self.sink(script, node, args[0], "new Audio()", "media")
        elif ctor == "FontFace" and len(args) >= 2:
            self.sink(script, node, args[1], "new FontFace()", "font")

    def _bridge(self, script: Script, node: Node, method: str, args: list[Node]) -> None:
        first = args[0] if args else None
        literal = string_value(first)
        if method == "send":
            labels = self.flow.labels(args[1]) if len(args) > 1 else frozenset()
            paths = sorted({label[1] or "(the whole state)" for label in labels if label[0] == STATE})
            action = literal if literal is not None else "(computed)"
            self.emit("bridge.send", script, node, f"sends action {action!r}" + (f" with {', '.join(paths)}" if paths else ""),
                      paths=paths, evidence={"kind": "send", "target": action, "dynamic": literal is None},
                      context=f"send {action} {' '.join(paths)}")
        elif method == "setValue":
            path = literal if literal is not None else "(computed)"
            outside = literal is not None and self.fields is not None and literal not in self.fields
            self.emit("bridge.set-value", script, node, f"writes {path}", paths=[path] if literal else [],
                      evidence={"kind": "setValue", "target": path, "dynamic": literal is None},
                      context=f"setValue {path}")
            if outside:
                self.emit("bridge.set-value-outside-fields", script, node,
                          f"setValue('{literal}'): not in fields ({', '.join(self.fields) or 'none'}); the host refuses it",
                          paths=[literal], context=f"setValue {path}")
        elif method == "openUrl":
            labels = self.flow.labels(first) if first is not None else frozenset()
            state = any(label[0] in (STATE, INPUT) for label in labels)  # the state or what the user types: a flow
            if literal is None and first is not None and first.type == "identifier":
                literal = self.flow.const_strings.get(text(first))  # const SHARE = 'https://...'; openUrl(SHARE)
            if literal is None and first is not None:
                literal = self.flow.pieces.literal(first)  # literal pieces joined: a literal too
            if literal is not None:
                host = host_of(literal)
                verdict = classify(literal, "open")
                self.emit("bridge.open-url", script, node, f"asks the host to open {literal}" +
                          ("" if verdict.status == "external" else " (the host refuses anything but https)"),
                          hosts=[host] if host else [], evidence={"kind": "openUrl", "target": literal, "dynamic": False},
                          context=f"openUrl {literal}")
            else:
                urls = sorted({label[1] for label in labels if label[0] == URL} | {f for f in literal_fragments(first) if absolute_url(f)})
                hosts = sorted({host_of(u) for u in urls} - {""})
                target = ", ".join(hosts) if hosts else "(computed)"
                if state:
                    self.sink(script, node, first, "flowUi.openUrl", "open")
                else:
                    self.emit("bridge.open-url-dynamic", script, node, f"asks the host to open a URL computed at run time ({target})",
                              hosts=hosts, evidence={"kind": "openUrl", "target": target, "dynamic": True})

    def _environment(self, script: Script, node: Node, name: str) -> None:
        """``obfuscation.environment-probe`` when ``name`` (a dotted name) is a tell of an automated
        browser or of the machine; once per tell."""
        holder, _, member = name.rpartition(".")
        if holder in _GLOBAL_HOLDERS and automation_global(member):
            self.once("obfuscation.environment-probe", member, script, node,
                      f"reads {member}: a global an automation tool leaves in the page, not something the block shows")
            return
        if holder in _TELL_HOLDERS:
            name = f"{_TELL_HOLDERS[holder]}.{member}"
        elif member in _TELL_NAMES:  # x.webdriver, whatever x is (a descriptor map, a copy)
            name = _TELL_NAMES[member]
        if name in _ENVIRONMENT_TELLS:
            self.once("obfuscation.environment-probe", name, script, node,
                      f"reads {name}: a mark of an automated browser or of the machine, not of what the block shows")
        elif name in _GPU_TELLS:
            self.once("obfuscation.environment-probe", "WEBGL_debug_renderer_info", script, node,
                      "asks WebGL for the real graphics card (WEBGL_debug_renderer_info): software rendering marks a headless browser")

    def _string(self, script: Script, node: Node) -> None:
        if node.type == "string":
            value = string_value(node) or ""
            self._tell_text(script, node, value)
            pieces = [(node, value)]
        else:
            pieces = [(c, text(c)) for c in node.children if c.type == "string_fragment"]
        for piece, value in pieces:
            found = [u for u in urls_in_text(value) if u.rstrip("/") not in XML_NAMESPACES
                     and (host_of(u) or not _scheme_text(node, value, u))]
            if value.strip().startswith("//") and absolute_url(value.strip()):
                found.insert(0, value.strip())
            for stripped in found:
                verdict = classify(stripped, "string")
                host = host_of(stripped)
                if not _open_url_argument(node):
                    self.reach.append((script, piece, f"{host or stripped} in a script string"))
                if not host and verdict.scheme in allowed_schemes("string"):
                    continue  # `https://` and a host chosen at run time: a way out, but no host to name
                self._script_url(script, piece, stripped, host, verdict, "a script string")
            if not found and len(value) >= _ENCODED_MIN and " " not in value:
                chars = set(value)
                raw = text(piece)
                escapes = raw.count("\\x") + raw.count("\\u")
                if chars <= _HEX or chars <= _B64 and sum(c.isdigit() for c in value) > len(value) // 20 or escapes * 4 > len(raw) // 2:
                    self.emit("obfuscation.encoded-string", script, piece,
                              f"a {len(value)}-character encoded string literal ({_shorten(value)})")
                    self.reach.append((script, piece, "an encoded string"))

    def _tell_text(self, script: Script, node: Node, value: str) -> None:
        """A string, written whole or built from pieces, that names a tell:
        ``gl.getExtension('WEBGL_debug_renderer_info')``, ``k === 'web' + 'driver'``, ``'cdc_'``."""
        if value in _TELL_NAMES:
            self._environment(script, node, _TELL_NAMES[value])
        else:
            self._automation_text(script, node, value)

    def _automation_text(self, script: Script, node: Node, value: str) -> None:
        """A string or a pattern that names an automated browser: ``'HeadlessChrome'``,
        ``/headless/i`` against the user agent, ``'cdc_'`` against the window's keys."""
        if node.type == "regex_pattern":
            lowered = value.lower()
            word = min(((lowered.find(w), w) for w in _AUTOMATION_WORDS if w in lowered), default=(0, None))[1]
        elif automation_global(value) and value not in _AUTOMATION_WORDS_TOO:
            self._environment(script, node, value)
            return
        else:  # a word in running text ("a headless CMS", "Selenium, 34") is no tell
            word = next((w for w in _AUTOMATION_AGENTS if w in value), None) or \
                ("headless" if value.strip().lower() == "headless" else None)
        if word is not None:
            family = "headless" if "headless" in word.lower() else word.lower()  # 'Headless' + 'Chrome': one finding
            self.once("obfuscation.environment-probe", f"text:{family}", script, node,
                      f"looks for {word!r}: a mark of an automated browser (its user agent or its tools), "
                      "not of what the block shows")

    def _script_url(self, script: Script, node: Node, url: str, host: str, verdict: UrlVerdict, where: str) -> None:
        """``url.external`` or ``url.blocked-scheme`` for a URL a script holds in ``where``."""
        if verdict.status == "external":
            self.emit("url.external", script, node, f"{host} in {where} ({_shorten(url)})",
                      hosts=[host], evidence={"url": url, "use": "script"})
            if network := private_network(host):
                self.emit("url.private-network", script, node, f"{host} in {where} is {network} ({_shorten(url)})",
                          hosts=[host], evidence={"url": url, "use": "script", "network": network})
        else:
            self.emit("url.blocked-scheme", script, node,
                      f"{verdict.scheme}: URL in {where} ({_shorten(url)}): blocked by the policy; only https leaves",
                      hosts=[host] if host else [], evidence={"url": url, "use": "script"})

    def _assembled(self, script: Script, node: Node) -> None:
        """A URL whose host appears only once its pieces are put together (``'https://' + 'x.example'``,
        ``['https:', '', 'x.example'].join('/')``, ``'https://'.concat('x', '.example')``): reported
        as the same URL written as one literal would be; a scheme whose host is left to run time
        is a way out with no host to name."""
        for url, host in self.flow.pieces.assembled(node):
            if url.rstrip("/") in XML_NAMESPACES:
                continue
            if not _open_url_argument(node):
                self.reach.append((script, node, f"{host or 'a host chosen at run time'} in a URL built from pieces"))
            if not host:
                continue
            self._script_url(script, node, url, host, classify(url, "string"), "a string built from pieces")

    def _loop(self, script: Script, node: Node) -> None:
        if node.type == "for_statement":
            condition = node.child_by_field_name("condition")
            if condition is not None and condition.type not in ("empty_statement",) and text(condition).strip("; ") not in _TRUE:
                return
        else:
            condition = node.child_by_field_name("condition")
            inner = condition.named_children[0] if condition is not None and condition.named_child_count else condition
            if inner is None or text(inner).replace(" ", "") not in _TRUE:
                return
        body = node.child_by_field_name("body")
        if body is None or _has_exit(body, node):
            return
        self.emit("cpu.unbounded-loop", script, node, f"{text(node).split('{')[0].strip()[:40]} has no break, return, throw or await:"
                  " it never ends and freezes the block (and the host page in Firefox and WebKitGTK)",
                  context=text(node)[:200])


#: Array methods whose callback's second parameter is the element's index (a number).
_INDEXED_CALLBACKS = frozenset(("forEach", "map", "filter", "some", "every", "find", "findIndex", "findLast",
                                "findLastIndex", "flatMap"))


#: Nodes that name a global or a property: `X`, `window.X`, `{X} = window`, `{X: Y} = window`.
_NAME_NODES = frozenset(("identifier", "property_identifier", "shorthand_property_identifier_pattern",
                         "shorthand_property_identifier"))


def automation_global(name: str) -> bool:
    """Whether ``name`` is a global an automation tool leaves in a page."""
    return name in _AUTOMATION_GLOBALS or name.startswith(_AUTOMATION_PREFIXES)


def _constructed(node: Node) -> bool:
    """Whether ``node`` names the constructor of a ``new`` (``new X()``, ``new window.X()``,
    ``new (window['X'])()``), which :meth:`Inspector._new` follows."""
    chain = node
    while (up := parent_of(chain)) is not None and (
            up.type == "member_expression" and up.child_by_field_name("property") == chain
            or up.type == "subscript_expression" and up.child_by_field_name("index") == chain
            or up.type == "parenthesized_expression"):
        chain = up
    up = parent_of(chain)
    return up is not None and up.type == "new_expression" and up.child_by_field_name("constructor") == chain


def _numeric_index(index: Node | None) -> bool:
    """Whether a computed member's key is a number (``a[2]``, ``a[i]`` for the index parameter of
    a ``forEach``/``map``/... callback that the callback never reassigns, ``a[i - 1]``): an
    array element, never a named property such as ``src``."""
    if index is None:
        return False
    if index.type == "number":
        return True
    if index.type == "parenthesized_expression" and index.named_child_count == 1:
        return _numeric_index(index.named_children[0])
    if index.type == "binary_expression":
        op = index.child_by_field_name("operator")
        sides = (index.child_by_field_name("left"), index.child_by_field_name("right"))
        return op is not None and text(op) in ("-", "*", "/", "%", "+") and all(_numeric_index(n) for n in sides)
    if index.type != "identifier":
        return False
    name = text(index)
    ancestors: set[int] = set()
    up = parent_of(index)
    while up is not None:
        ancestors.add(up.id)
        up = parent_of(up)
    current = parent_of(index)
    while current is not None and current.type not in _FUNCTIONS:
        current = parent_of(current)
    while current is not None:
        params = current.child_by_field_name("parameters")
        names = [text(p) if p.type == "identifier" else "" for p in params.named_children] if params is not None else []
        single = current.child_by_field_name("parameter")
        if name in names or single is not None and text(single) == name or _declares(current, name, ancestors):
            # The nearest function binding the name: it must be a callback's index parameter.
            if current.type not in ("arrow_function", "function_expression", "function") or names[1:2] != [name]:
                return False
            arguments = parent_of(current)
            call = parent_of(arguments) if arguments is not None and arguments.type == "arguments" else None
            if call is None or arguments is None or arguments.named_children[:1] != [current] \
                    or callee_name(call.child_by_field_name("function")).rpartition(".")[2] not in _INDEXED_CALLBACKS:
                return False
            return not any(n.type in ("assignment_expression", "augmented_assignment_expression", "update_expression")
                           and text(n.child_by_field_name("left") or n.child_by_field_name("argument")) == name
                           for n in walk(current))
        current = parent_of(current)
        while current is not None and current.type not in _FUNCTIONS:
            current = parent_of(current)
    return False


#: String methods whose argument is compared with the receiver, never loaded.
_STRING_TESTS = frozenset(("startsWith", "endsWith", "includes", "indexOf", "lastIndexOf"))


def _open_url_argument(node: Node) -> bool:
    """Whether ``node`` is an argument of an ``openUrl`` call (what the host opens, not a way out)."""
    up = parent_of(node)
    call = parent_of(up) if up is not None and up.type == "arguments" else None
    return call is not None and callee_name(call.child_by_field_name("function")).endswith("openUrl")


def _scheme_text(node: Node, value: str, url: str) -> bool:
    """Whether a URL with no host (``https://``) in the string ``node`` only names the scheme:
    followed by prose (``'Use an https:// address'``), or a string the code tests text
    against (``value.startsWith('https://')``, ``scheme === 'https://'``). Alone and
    concatenated, ``'https://' + host`` builds a URL, and stays a reach."""
    if not value.rstrip().endswith(url):
        return True
    up = parent_of(node)
    if up is not None and up.type == "binary_expression":
        op = up.child_by_field_name("operator")
        return op is not None and text(op) in ("===", "!==", "==", "!=")
    call = parent_of(up) if up is not None and up.type == "arguments" else None
    return call is not None and callee_name(call.child_by_field_name("function")).rpartition(".")[2] in _STRING_TESTS


def _literal_args(args: list[Node], constants: set[str]) -> bool:
    """Arguments that are all literals (numbers, strings, an array/spread of them, or a name
    declared with one)."""
    if not args:
        return False
    for arg in args:
        node = arg.named_children[0] if arg.type == "spread_element" and arg.named_child_count else arg
        if node.type == "identifier" and text(node) in constants:
            continue
        if node.type == "array":
            if not all(c.type in ("number", "string") for c in node.named_children):
                return False
        elif node.type not in ("number", "string") and not (node.type == "template_string" and _static_value(node)):
            return False
    return True


def _has_exit(body: Node, loop: Node) -> bool:
    stack = [body]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("return_statement", "throw_statement", "await_expression", "yield_expression"):
            return True
        if kind == "break_statement":
            if node.named_child_count or _nearest_breakable(node) == loop:
                return True
        if kind in _FUNCTIONS:
            continue
        stack.extend(node.children)
    return False


def _nearest_breakable(node: Node) -> Node | None:
    current = parent_of(node)
    while current is not None:
        if current.type in ("while_statement", "do_statement", "for_statement", "for_in_statement", "switch_statement"):
            return current
        current = parent_of(current)
    return None


def _camel(prop: str) -> str:
    """A CSS property name as a style member (``background-image``: ``backgroundImage``)."""
    head, *rest = prop.split("-")
    return head + "".join(part[:1].upper() + part[1:] for part in rest) if rest else prop


def _short(node: Node | None) -> str:
    value = text(node)
    return value if len(value) <= 30 else value[:27] + "..."


def _shorten(value: str) -> str:
    return value if len(value) <= 60 else value[:57] + "..."
