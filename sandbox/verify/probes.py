"""The attack-probe catalogue: the format (pydantic models) and the loader.

A probe is a pair of files under ``fixtures/probes/`` (wpt's model: one behaviour per
real ``.html`` file; DOMPurify's: payloads free of plumbing):

- ``<id>.html``: the probe's block, the attack and nothing else;
- ``<id>.json``: its metadata, what it detects and requires, and the expected outcome per engine;
  ``block`` holds only the block's options (``fields``, ``state``, ``theme``, ``block_id``);
- ``<id>.sibling-<n>.html`` (n = 1, 2, …): the source of ``siblings[n-1]``, blocks mounted beside it.

The loader puts :data:`HELPER_FILE` (``probe-helper.js``: ``send``, ``raw``, ``alive``,
``probe``; the code every probe shared) as an inline ``<script>`` at the start of the probe's
block, so it runs under the block's CSP exactly as the inline prelude it replaces did; siblings
are mounted verbatim. A single final newline of an ``.html`` file is not part of the block.
A JSON without its ``.html``, a block source given in the JSON, and an ``.html`` no probe claims
are errors. The format is documented in ``fixtures/probes/README.md``.

The sources and the host-side scripts are templates: ``{{name}}`` is replaced at run
time by one of :data:`TEMPLATE_VARS` (the servers' URLs, the run's token, the
secrets the host page holds).

A probe says what it *detects*: observations made from outside the block (server
logs, host-page checks, browser events). If any fires, the attack got through
("allowed"); if none fires, it was "blocked". Its *requirements* (by default: the
block's ``alive`` beacon reached the canary) prove the probe actually ran; a run
that misses one is "invalid", never a pass. ``expect`` gives the expected
outcome per engine; ``allowed`` and ``timeout`` need a ``why``.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..block.extract import MAX_SOURCE_BYTES
from ..block.jsonjs import MAX_DEPTH
from ..data import PROBES_DIR  # the built-in catalogue, in a checkout or installed
from ..engines import ENGINE_NAMES
from ..errors import UsageError
from ..files import member_positions, parse_json, position, read_text, top_position

#: A probe file nests a block's state (itself at most jsonjs.MAX_DEPTH deep) a few levels down.
MAX_PROBE_DEPTH = MAX_DEPTH + 8


#: The code every probe block shares (reporting, the bridge's raw port, the alive beacon); a template.
HELPER_FILE = Path(__file__).resolve().parent / "probe-helper.js"

#: Secrets the host page holds during a run (each unique to the run).
#: (``location`` is the query parameter of the host page's URL, ``path`` a segment of its path, ``fragment`` its fragment.)
SECRETS = ("cookie", "local_storage", "session_storage", "dom", "title", "location", "path", "fragment", "hidden_state", "host_origin")

#: Names a template may use.
TEMPLATE_VARS = frozenset(
    {"token", "canary", "canary_http", "host", "host_http", "tap", "tap_host", "udp_port", "host_nonce", "alive"}
    | {f"secret_{s}" for s in SECRETS}
)

CATEGORIES = (
    "host", "storage", "network", "loading", "forms", "navigation", "ui", "exfiltration",
    "dns", "webrtc", "base", "credentials", "messaging", "bridge", "leakage", "breakout", "host-csp", "dos",
)

_TEMPLATE = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
_ID = re.compile(r"[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+\Z")


class ProbeError(UsageError):
    """A probe file is not valid; the message names the file and the problem."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ------------------------------------------------------------------------- observations


class RequestSeen(_Model):
    """A server logged a request whose path or query contains ``path`` (and, if given, carried one of ``cookies``)."""

    kind: Literal["request"]
    server: Literal["any", "canary", "canary_http", "host", "host_http"] = "any"
    path: str = "{{token}}/"
    cookies: list[str] = []


class Leak(_Model):
    """A host secret appeared in any logged request (path, query, body or headers other than Cookie)."""

    kind: Literal["leak"]
    secrets: list[Literal[SECRETS]]  # type: ignore[valid-type]


class HostCheck(_Model):
    """A JavaScript function run in the host page after the observation window; truthy = reached."""

    kind: Literal["host"]
    script: str
    what: str


class FrameCheck(_Model):
    """A JavaScript function run by the harness inside block ``block`` (0 = the probe's block)."""

    kind: Literal["frame"]
    script: str
    what: str
    block: int = 0


class Event(_Model):
    """A browser event: a popup/new window, a dialog, a download, a navigation of the top page."""

    kind: Literal["popup", "dialog", "download", "top_navigated"]


class TapReached(_Model):
    """A bare TCP connection or a UDP datagram reached this run's tap ports."""

    kind: Literal["tap"]
    proto: Literal["tcp", "udp"]


class Unresponsive(_Model):
    """The host page's 50 ms ticker stalled for more than ``max_gap_ms``, or the host stopped answering."""

    kind: Literal["unresponsive"]
    max_gap_ms: int = Field(1500, ge=200)


Observation = Annotated[RequestSeen | Leak | HostCheck | FrameCheck | Event | TapReached | Unresponsive, Field(discriminator="kind")]

ALIVE = RequestSeen(kind="request", server="canary", path="{{token}}/alive")


# ------------------------------------------------------------------------- expectations

Outcome = Literal["blocked", "allowed", "timeout"]


class Expect(_Model):
    outcome: Outcome
    why: str = ""

    @model_validator(mode="after")
    def _why(self) -> Expect:
        if self.outcome != "blocked" and not self.why.strip():
            raise ValueError(f"an expected outcome {self.outcome!r} needs a 'why' (the reason, or the evidence)")
        return self


def _expect(value: Any) -> Any:
    return {"outcome": value} if isinstance(value, str) else value


class Block(_Model):
    """A block of the host page: its source (a template), fields, state, theme."""

    source: str
    block_id: str = "probe"
    fields: list[str] = []
    state: dict[str, Any] | None = None
    theme: dict[str, Any] | None = None


class Probe(_Model):
    id: str
    title: str
    category: Literal[CATEGORIES]  # type: ignore[valid-type]
    #: What the attack tries and what would be harmed if it worked.
    attack: str
    block: Block
    #: Other blocks mounted beside it (siblings), e.g. the victim of a spoofed message.
    siblings: list[Block] = []
    #: Mount the blocks with the host module bridge/flow-ui-host.js instead of static iframes.
    bridge: bool = False
    host_scheme: Literal["https", "http"] = "https"
    #: Extra HTML in the host page (a template), and headers of the host page (e.g. a CSP).
    host_html: str = ""
    host_headers: dict[str, str] = {}
    #: A JavaScript function ``async (host) => …`` run in the host page once the blocks are up
    #: (``host.handles[i]`` are the bridge handles), e.g. to push a state.
    host_script: str | None = None
    #: A CSS selector inside the block that the harness clicks for real (a user gesture).
    click: str | None = None
    #: Where ``click`` is: 0 the probe's block, N ``siblings[N-1]``, "host" the host page itself.
    click_in: Annotated[int, Field(ge=0)] | Literal["host"] = 0
    #: Seconds to watch after the page is up (and after the click).
    wait: float = Field(1.2, gt=0, le=10)
    #: Grant the host page's context these permissions first (Playwright engines), e.g. geolocation.
    grant: list[str] = []
    #: Run on a new page (a browser context no earlier run used, where the driver makes one) with a
    #: host page of its own, even when a kept one would do (docs/SCALE.md).
    fresh_page: bool = False
    detect: list[Observation] = Field(min_length=1)
    require: list[Observation] = [ALIVE]
    expect: dict[str, Expect]

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(f"id {value!r} must be dotted lower-case words, e.g. 'network.fetch'")
        return value

    @field_validator("expect", mode="before")
    @classmethod
    def _expects(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("expect must be an object: {\"default\": …, \"chromium\": …}")
        unknown = set(value) - {"default", *ENGINE_NAMES}
        if unknown:
            raise ValueError(f"expect: unknown key(s) {sorted(unknown)}; use 'default' or {', '.join(ENGINE_NAMES)}")
        return {k: _expect(v) for k, v in value.items()}

    @model_validator(mode="after")
    def _complete(self) -> Probe:
        missing = [e for e in ENGINE_NAMES if e not in self.expect and "default" not in self.expect]
        if missing:
            raise ValueError(f"expect: no outcome for {', '.join(missing)} (give them or a 'default')")
        if isinstance(self.click_in, int) and self.click_in > len(self.siblings):
            raise ValueError(f"click_in: {self.click_in} names no sibling (the probe has {len(self.siblings)})")
        return self

    def expected(self, engine: str) -> Expect:
        return self.expect.get(engine) or self.expect["default"]

    @property
    def mountable(self) -> bool:
        """Whether the run may mount its blocks in a kept host page instead of loading one:
        not when the host page is its own (headers, HTML, http), nor when the run leaves marks a
        page keeps (a click's user activation, granted permissions, a DoS), nor when it says so."""
        return not (self.fresh_page or self.host_html or self.host_headers or self.host_scheme != "https"
                    or self.click or self.grant or self.category == "dos")

    @property
    def engine_dependent(self) -> bool:
        return len({self.expected(e).outcome for e in ENGINE_NAMES}) > 1

    def templates(self) -> list[str]:
        """Every string of the probe that is a template."""
        texts = [self.host_html, self.host_script or "", *self.host_headers.values()]
        for block in (self.block, *self.siblings):
            texts.append(block.source)
            texts.append(json.dumps(block.state or {}))
        for obs in (*self.detect, *self.require):
            texts += [getattr(obs, "path", ""), getattr(obs, "script", "")]
        return texts


def render(template: str, values: dict[str, str]) -> str:
    """``template`` with every ``{{name}}`` replaced (names were checked at load time)."""
    return _TEMPLATE.sub(lambda m: values[m.group(1)], template)


def render_json(value: Any, values: dict[str, str]) -> Any:
    """A JSON value with templates replaced in every string."""
    if isinstance(value, str):
        return render(value, values)
    if isinstance(value, list):
        return [render_json(v, values) for v in value]
    if isinstance(value, dict):
        return {k: render_json(v, values) for k, v in value.items()}
    return value


def _describe(exc: ValidationError, name: str, keys: dict[str, str], top: str) -> list[str]:
    """One located line per validation error, at the top-level key it is under."""
    lines = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top)"
        at = (keys.get(str(err["loc"][0])) if err["loc"] else None) or top
        lines.append(f"{name}:{at}: {where}: {err['msg']}")
    return lines


@functools.cache
def helper() -> str:
    """The probe helper as the inline script the loader puts before every probe's block."""
    try:
        code = read_text(str(HELPER_FILE), limit=MAX_SOURCE_BYTES)
    except UsageError as exc:
        raise ProbeError(f"{exc} (the probe helper; a broken installation?)") from None
    return f"<script>\n{code}</script>"


def block_files(path: Path, siblings: int) -> list[Path]:
    """The ``.html`` files of probe ``path`` (``<id>.json``): its block, then each sibling's."""
    return [path.with_suffix(".html")] + [path.with_name(f"{path.stem}.sibling-{n}.html") for n in range(1, siblings + 1)]


def _read_block(html: Path, json_name: str, at: str) -> str:
    """The text of a block file without its final newline; a problem is one located line."""
    if not html.exists():
        raise ProbeError(f"{json_name}:{at}: {html.name} is missing; the block's source lives in that file beside the JSON")
    try:
        text = read_text(str(html), limit=MAX_SOURCE_BYTES)
    except UsageError as exc:
        message = str(exc)
        # read_text names the file; its size and permission problems carry no position yet.
        prefix = f"{html}: "
        raise ProbeError(f"{html}:1:1: {message[len(prefix):]}" if message.startswith(prefix) else message) from None
    if "\0" in text:
        raise ProbeError(f"{html}:{position(text, text.index(chr(0)))}: a NUL character; a block is text")
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text


def _unknown_vars(text: str, name: str) -> list[str]:
    return [
        f"{name}:{position(text, m.start())}: unknown template variable {{{{{m.group(1)}}}}}; known: {', '.join(sorted(TEMPLATE_VARS))}"
        for m in _TEMPLATE.finditer(text) if m.group(1) not in TEMPLATE_VARS
    ]


def load_probe(path: Path) -> Probe:
    """One probe from ``path`` (``<id>.json``) and its ``.html`` files; a ProbeError names the file and
    every problem, one ``FILE:LINE:COL: message`` line each."""
    name = str(path)
    try:
        text = read_text(name, limit=MAX_SOURCE_BYTES)
        data = parse_json(text, name, max_depth=MAX_PROBE_DEPTH)
    except UsageError as exc:
        raise ProbeError(str(exc)) from None
    top = top_position(text)
    if not isinstance(data, dict):
        raise ProbeError(f"{name}:{top}: a probe is a JSON object")
    keys = member_positions(text)
    problems = _unknown_vars(text, name)
    block = data.get("block", {})
    siblings = data.get("siblings", [])
    if isinstance(block, dict) and isinstance(siblings, list) and all(isinstance(b, dict) for b in siblings):
        blocks = []
        for n, (options, html) in enumerate(zip([block, *siblings], block_files(path, len(siblings)))):
            at = keys.get("block" if n == 0 else "siblings", top)
            source = ""  # on a problem: so that the JSON's own problems are reported too
            if "source" in options:
                problems.append(f"{name}:{at}: {'block' if n == 0 else f'siblings.{n - 1}'}.source: the source lives in "
                                f"{html.name}, not in the JSON; move it there")
            else:
                try:
                    source = _read_block(html, name, at)
                except ProbeError as exc:
                    problems.append(str(exc))
                problems += _unknown_vars(source, str(html))
            blocks.append({**options, "source": helper() + source if n == 0 else source})
        data = {**data, "block": blocks[0], **({"siblings": blocks[1:]} if siblings else {})}
    try:
        probe = Probe.model_validate(data)
    except ValidationError as exc:
        problems += _describe(exc, name, keys, top)
    if problems:
        raise ProbeError("\n".join(problems))
    if probe.id != path.stem:
        raise ProbeError(f"{name}:{keys['id']}: id {probe.id!r} must equal the file name {path.stem!r}")
    for template in probe.templates():  # what the scans above cannot see (a name spelt with JSON \\u escapes)
        for var in _TEMPLATE.findall(template):
            if var not in TEMPLATE_VARS:
                raise ProbeError(f"{name}:{top}: unknown template variable {{{{{var}}}}}; known: {', '.join(sorted(TEMPLATE_VARS))}")
    return probe


def load_catalogue(directory: Path = PROBES_DIR) -> list[Probe]:
    """Every probe of ``directory``, sorted by id; all bad files (and ``.html`` files no probe claims) are reported at once."""
    if not directory.is_dir():
        raise ProbeError(f"{directory}: no probe directory")
    probes, problems = [], []
    claimed: set[Path] = set()
    for path in sorted(directory.glob("*.json")):
        try:
            probe = load_probe(path)
        except ProbeError as exc:
            problems.append(str(exc))
            # A probe that failed to load still owns its block and any sibling files (one error, not two).
            claimed.add(path.with_suffix(".html"))
            claimed.update(directory.glob(f"{_glob_escape(path.stem)}.sibling-*.html"))
            continue
        probes.append(probe)
        claimed.update(block_files(path, len(probe.siblings)))
    for html in sorted(directory.glob("*.html")):
        if html not in claimed:
            problems.append(f"{html}:1:1: no probe claims this file: a probe's block is <id>.html beside <id>.json, "
                            "its siblings <id>.sibling-<n>.html (n = 1 … the length of its 'siblings')")
    if problems:
        raise ProbeError("\n".join(problems))
    if not probes:
        raise ProbeError(f"{directory}: no probes (*.json)")
    return sorted(probes, key=lambda p: p.id)


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


__all__ = [
    "Probe", "Block", "Expect", "ProbeError", "Observation", "RequestSeen", "Leak", "HostCheck", "FrameCheck",
    "Event", "TapReached", "Unresponsive", "ALIVE", "SECRETS", "TEMPLATE_VARS", "CATEGORIES", "PROBES_DIR",
    "HELPER_FILE", "helper", "block_files", "load_probe", "load_catalogue", "render", "render_json",
]
