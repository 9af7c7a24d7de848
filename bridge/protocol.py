"""The bridge's wire format: pydantic models of every message, both ways, and the ui-action.

This module is the single source of truth for the message limits (size,
nesting depth, rate, action-name grammar, auto-height bounds). JavaScript
reads them through the generated ``bridge/contract.js`` and through the
generated constants block of ``bridge/flow-ui-runtime.js`` (both written by
``flowui-sandbox generate``). ``bridge/PROTOCOL.md`` describes the
format in prose; ``bridge/protocol.schema.json`` is exported from these models.

:data:`MESSAGES` is the one list of message models. The unions (:data:`BlockMessage`,
:data:`HostMessage`), the schema's groups, ``__all__`` and the message table the host module
validates and dispatches with (:func:`message_table`, ``MESSAGES`` in ``bridge/contract.js``)
are all derived from it: a new message is one model here, one entry in :data:`MESSAGES` and
one handler in the host module (PROTOCOL.md, "Adding a message").

Two channels exist (see PROTOCOL.md):

* ``window.postMessage``: only :class:`Hello` (block -> host) and
  :class:`Connect` (host -> block, carrying the private ``MessagePort``);
* the ``MessagePort``: everything else.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Final, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, field_validator, model_validator

from .grammar import path_problem

#: Version of this protocol; ``hello`` and ``connect`` carry it.
PROTOCOL_VERSION: Final = 1

#: The name the host module gives a block's frame when it holds it in its own neutral frame (the
#: block's parent), so that the block's base URL is never the host page's (PROTOCOL.md, "The
#: block's frame"); the runtime then takes the connect message from that frame's parent.
WRAPPED_FRAME_NAME: Final = "flow-ui:block"

#: Largest message accepted, as the length of its JSON text in UTF-16 code units
#: (what ``JSON.stringify(message).length`` gives in JavaScript).
MAX_MESSAGE_CHARS = 65_536
#: Deepest nesting of objects and arrays in one message (the message object is depth 1).
MAX_MESSAGE_DEPTH = 32
#: The author's budget, a token bucket per block: at most RATE_BURST requests (``send``,
#: ``setValue``, ``openUrl``) at once, refilled at RATE_PER_SECOND. Only requests take from it.
RATE_BURST = 60
RATE_PER_SECOND = 30
#: A second, separate bucket per block for everything else on the port (``height``, ``error``,
#: ``csp`` and messages of no known type): the runtime's own reports never cost the author a
#: request, and a flood of reports cannot starve the requests (see PROTOCOL.md, "Limits").
REPORT_BURST = 60
REPORT_PER_SECOND = 30
#: After each ``load`` event of the block's frame the host pings the block over its port; a
#: document that navigated away cannot answer. No ``pong`` within this many milliseconds of the
#: host's own event loop running (a stalled loop does not count) means the block navigated away.
ALIVE_CHECK_MS = 3000
#: An action name: snake_case, like a path segment.
ACTION_PATTERN = r"[a-z][a-z0-9_]*"
ACTION_MAX_LENGTH = 64
#: Longest URL openUrl accepts.
URL_MAX_LENGTH = 2048
#: What the runtime refuses in the block before it posts (its core's size, depth and JSON check):
#: on the port such a message comes only from code past the runtime, and the host closes the bridge.
RUNTIME_REFUSALS = ("too-large", "too-deep", "not-json")
#: Messages the runtime keeps while it waits for the host's port (beyond: dropped, reported).
QUEUE_LIMIT = 32
#: Auto-height: the iframe's height in CSS pixels stays within these bounds.
HEIGHT_MIN = 24
HEIGHT_MAX = 4096
#: Height changes of at most this many pixels that shrink the frame are ignored (1 px jitter).
HEIGHT_JITTER = 1
#: After this many consecutive growths by the same amount right after the host resized the
#: frame (content that grows with its frame, e.g. height: 100vh), the height is frozen.
HEIGHT_LOOP_LIMIT = 3
#: The runtime reports its height at most once per this many milliseconds (trailing edge).
HEIGHT_REPORT_MS = 50
#: After the frame is resized, the runtime holds its report until the frame's resize event has
#: run (author code refits there), at most this many milliseconds: a report in between would pair
#: the new viewport with the old content and read as a change of direction.
HEIGHT_RESIZE_WAIT_MS = 500
#: Changes of direction are not counted for this many milliseconds after the host saw its frame's
#: width change (a drag): the block's reports measured before the change can arrive after it, in a
#: burst on a loaded machine.
HEIGHT_SETTLE_MS = 2000

#: The mediaType of the ui-action data part (SPEC §3).
UI_ACTION_MEDIA_TYPE = "application/vnd.platform.ui-action+json"

#: Reason codes a refused request's Promise rejects with (``error.reason`` in the block).
REASONS: dict[str, str] = {
    "bad-message": "the message does not have the protocol's shape",
    "too-large": f"the message is longer than {MAX_MESSAGE_CHARS} characters of JSON",
    "too-deep": f"the message nests deeper than {MAX_MESSAGE_DEPTH} levels",
    "not-json": "a value is not JSON (objects, arrays, strings, finite numbers, booleans, null)",
    "rate-limited": f"more than {RATE_BURST} messages at once or {RATE_PER_SECOND} per second",
    "bad-action": f"the action name must match {ACTION_PATTERN} (at most {ACTION_MAX_LENGTH} characters)",
    "not-a-field": "setValue is allowed only on the block's fields",
    "bad-url": "the URL does not parse",
    "not-https": "only https: URLs can be opened",
    "user-info": "URLs with a user name or password (https://name@host/) are refused",
    "same-site": "the URL is on the host's own site; the host opens only the own-site URLs it allows",
    "popup-blocked": "the browser's popup blocker refused to open the window",
    "bad-path": "the path cannot be written in the host's state (an index past the end of an array, or a value that is not an object or array on the way)",
    "no-gesture": "openUrl needs a user gesture (a click or key press) in the block",
    "refused": "the host refused the request",
    "failed": "the host's handler failed",
    "navigated": "the block navigated away from its document; the bridge is closed",
    "destroyed": "the block was destroyed",
    "queue-full": f"more than {QUEUE_LIMIT} requests before the host connected",
    "state-too-large": "the value would make the block's state longer than its frame can be built with (the generator's limit)",
}
Reason = Literal[tuple(REASONS)]  # type: ignore[valid-type]

_ACTION = re.compile(rf"(?:{ACTION_PATTERN})\Z")


def limits() -> dict[str, Any]:
    """Every limit and grammar JavaScript needs, as JSON (written into contract.js and the runtime)."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "maxMessageChars": MAX_MESSAGE_CHARS,
        "maxMessageDepth": MAX_MESSAGE_DEPTH,
        "rateBurst": RATE_BURST,
        "ratePerSecond": RATE_PER_SECOND,
        "reportBurst": REPORT_BURST,
        "reportPerSecond": REPORT_PER_SECOND,
        "aliveCheckMs": ALIVE_CHECK_MS,
        "actionPattern": ACTION_PATTERN,
        "actionMaxLength": ACTION_MAX_LENGTH,
        "urlMaxLength": URL_MAX_LENGTH,
        "queueLimit": QUEUE_LIMIT,
        "heightMin": HEIGHT_MIN,
        "heightMax": HEIGHT_MAX,
        "heightJitter": HEIGHT_JITTER,
        "heightLoopLimit": HEIGHT_LOOP_LIMIT,
        "heightReportMs": HEIGHT_REPORT_MS,
        "heightResizeWaitMs": HEIGHT_RESIZE_WAIT_MS,
        "heightSettleMs": HEIGHT_SETTLE_MS,
        "runtimeRefusals": list(RUNTIME_REFUSALS),
        "uiActionMediaType": UI_ACTION_MEDIA_TYPE,
        "wrappedFrameName": WRAPPED_FRAME_NAME,
        "reasons": REASONS,
    }


# ----------------------------------------------------------------------------- helpers


def json_chars(value: Any) -> int:
    """Length of ``value``'s compact JSON text in UTF-16 code units (JavaScript's ``.length``)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def json_depth(value: Any) -> int:
    """Nesting depth of objects and arrays (a scalar is 0, ``{}`` is 1)."""
    depth, level = 0, [value]
    while level:
        containers = [v for v in level if isinstance(v, (dict, list))]
        if not containers:
            break
        depth += 1
        level = [c for v in containers for c in (v.values() if isinstance(v, dict) else v)]
    return depth


@dataclass(frozen=True)
class KeyRule:
    """How the host refuses a bad value of one key of a block message (metadata in ``Annotated``).

    ``reason``: the reason code of a value of the wrong type or beyond the key's limits (without
    a rule: ``bad-message``). ``check``: the name of a host check beyond type and limits
    (``CHECKS`` in ``bridge/host/messages.js``, e.g. that a path is one of the block's fields);
    ``reasons``: any other reason codes that check refuses with.
    """

    reason: str
    check: str | None = None
    reasons: tuple[str, ...] = ()


class _Message(BaseModel):
    # strict: a message is JSON as sent, nothing is coerced ("1" is not 1, "yes" is not true).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    #: ``window``: through ``window.postMessage`` (the handshake); ``port``: the private MessagePort.
    channel: ClassVar[Literal["window", "port"]] = "port"
    #: Who sends it. A block message with an ``id`` is a request: the host answers it with a reply.
    sender: ClassVar[Literal["block", "host"]] = "block"
    #: The host's rate budget a block message that is not a request takes from (requests take from
    #: ``requests``); None: it costs nothing, and the host drops it silently when it is malformed.
    budget: ClassVar[Literal["reports"] | None] = "reports"
    #: Reason codes the host's handling of this request may reply with, beyond the table's checks.
    refusals: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _limits(cls, data: Any) -> Any:
        if isinstance(data, dict):
            depth = json_depth(data)
            if depth > MAX_MESSAGE_DEPTH:
                raise ValueError(f"too-deep: the message nests {depth} levels; at most {MAX_MESSAGE_DEPTH}")
            try:
                size = json_chars(data)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"not-json: {exc}") from None
            if size > MAX_MESSAGE_CHARS:
                raise ValueError(f"too-large: the message is {size} characters of JSON; at most {MAX_MESSAGE_CHARS}")
        return data


RequestId = Annotated[int, Field(ge=1, le=2**53 - 1, strict=True, description="chosen by the block; the reply carries it")]


def _path(value: str) -> str:
    problem = path_problem(value)
    if problem:
        raise ValueError(f"bad path {value!r}: {problem}")
    return value


# ------------------------------------------------------------------ window.postMessage


class Hello(_Message):
    """Block -> host, through ``window.parent.postMessage(msg, '*')`` as the runtime starts.

    The host accepts it only when ``event.source`` is its own iframe's window,
    and only once; it answers with :class:`Connect`.
    """

    channel = "window"
    type: Literal["flow-ui:hello"]
    v: Literal[1] = PROTOCOL_VERSION


class Connect(_Message):
    """Host -> block, through ``iframe.contentWindow.postMessage(msg, '*', [port])``, once.

    The transferred port is the block's only channel from then on.
    """

    channel = "window"
    sender = "host"
    type: Literal["flow-ui:connect"]
    v: Literal[1] = PROTOCOL_VERSION


# ------------------------------------------------------------------ block -> host (port)


class Send(_Message):
    """``flowUi.send(action, payload)``: the host makes a ui-action of it and replies."""

    refusals = ("refused", "failed")
    type: Literal["send"]
    id: RequestId
    action: Annotated[str, Field(max_length=ACTION_MAX_LENGTH, pattern=rf"^(?:{ACTION_PATTERN})$"), KeyRule("bad-action", "action")]
    payload: JsonValue = None


class SetValue(_Message):
    """``flowUi.setValue(path, value)``: only a path listed in the block's ``fields``."""

    refusals = ("too-deep", "bad-path", "state-too-large", "refused", "failed")
    type: Literal["setValue"]
    id: RequestId
    path: Annotated[str, KeyRule("not-a-field", "field")]
    value: JsonValue

    _check_path = field_validator("path")(classmethod(lambda cls, v: _path(v)))


class OpenUrl(_Message):
    """``flowUi.openUrl(url)``: an https URL, with the block's user-activation state."""

    refusals = ("no-gesture", "refused", "failed", "popup-blocked")
    type: Literal["openUrl"]
    id: RequestId
    url: Annotated[str, Field(max_length=URL_MAX_LENGTH), KeyRule("bad-url", "url", ("not-https", "user-info", "same-site"))]
    gesture: Annotated[bool, KeyRule("no-gesture", "gesture")]

    @field_validator("url")
    @classmethod
    def _https(cls, url: str) -> str:
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(url)
        except ValueError as exc:
            raise ValueError(f"bad-url: {exc}") from None
        if parts.scheme.lower() != "https" or not parts.hostname:
            raise ValueError("not-https: only https: URLs with a host can be opened")
        if "@" in parts.netloc:
            raise ValueError("user-info: URLs with a user name or password are refused")
        return url


class Height(_Message):
    """The block's content height in CSS pixels (auto-height)."""

    type: Literal["height"]
    height: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    # Absent or a number (never null): the host's heightController tells "not measured" by absence.
    viewport: Annotated[float, Field(ge=0, allow_inf_nan=False)] = Field(  # type: ignore[assignment]
        None, description="the frame's inner height when measured (tells content that follows its frame)")


class BlockError(_Message):
    """An uncaught error or unhandled rejection inside the block, relayed to the host's log."""

    type: Literal["error"]
    kind: Literal["error", "rejection"] = "error"
    message: Annotated[str, Field(max_length=2000)]
    source: Annotated[str, Field(max_length=2000)] = ""
    line: Annotated[int, Field(ge=0)] = 0
    column: Annotated[int, Field(ge=0)] = 0


class CspViolation(_Message):
    """A ``securitypolicyviolation`` event inside the block, relayed to the host's log."""

    type: Literal["csp"]
    directive: Annotated[str, Field(max_length=200)]
    blockedUri: Annotated[str, Field(max_length=2000)] = ""
    sample: Annotated[str, Field(max_length=200)] = ""


class Pong(_Message):
    """The runtime's answer to :class:`Ping`, carrying its ``n``: proof the connected document still lives."""

    budget = None  # liveness answers cost no token: a flood of reports must not make a live block look gone
    type: Literal["pong"]
    n: RequestId


# ------------------------------------------------------------------ host -> block (port)


class _HostMessage(_Message):
    sender = "host"


class State(_HostMessage):
    """A change of the projection: new values of top-level keys (``set``) and keys gone (``unset``).

    Sent only when at least one projection path changed; the runtime works out which.
    """

    type: Literal["state"]
    set: dict[str, JsonValue]
    unset: list[str]

    @field_validator("set", "unset")
    @classmethod
    def _keys(cls, keys: Any) -> Any:
        for key in keys:
            if "." in key or path_problem(key):
                raise ValueError(f"{key!r} is not a top-level key of a projection")
        return keys


class ThemeMessage(_HostMessage):
    """A validated theme (flat form) and the ``:root`` rule that applies it."""

    type: Literal["theme"]
    theme: dict[str, str]
    css: str

    @field_validator("theme")
    @classmethod
    def _valid(cls, theme: dict[str, str]) -> dict[str, str]:
        from flowui_sandbox.theme import Theme

        Theme.parse(theme)
        return theme


class Ping(_HostMessage):
    """Sent after each ``load`` event of the block's frame; the runtime answers :class:`Pong` at once.

    The port belongs to the document the host connected; a frame that navigated away (however
    early, e.g. before that document's own ``load``) has no document left to answer.
    """

    type: Literal["ping"]
    n: RequestId


class ReplyOk(_HostMessage):
    type: Literal["reply"]
    id: RequestId
    ok: Literal[True]
    value: JsonValue = None


class ReplyRefused(_HostMessage):
    type: Literal["reply"]
    id: RequestId
    ok: Literal[False]
    reason: Reason  # type: ignore[valid-type]  # a Literal of REASONS, built at import
    message: str


# ------------------------------------------------------------------------ the list

#: Every message of the protocol, the one list the rest derives from.
MESSAGES: tuple[type[_Message], ...] = (
    Hello, Connect,
    Send, SetValue, OpenUrl, Height, BlockError, CspViolation, Pong,
    State, ThemeMessage, Ping, ReplyOk, ReplyRefused,
)
WINDOW_MESSAGES = tuple(m for m in MESSAGES if m.channel == "window")
BLOCK_MESSAGES = tuple(m for m in MESSAGES if m.channel == "port" and m.sender == "block")
HOST_MESSAGES = tuple(m for m in MESSAGES if m.channel == "port" and m.sender == "host")

# Union[tuple] unpacks the tuple of models into a union; `X | Y` cannot (hence the noqa: UP007).
BlockMessage = Annotated[Union[BLOCK_MESSAGES], Field(discriminator="type")]  # type: ignore[valid-type]  # noqa: UP007
Reply = Annotated[ReplyOk | ReplyRefused, Field(discriminator="ok")]
HostMessage = Annotated[Union[HOST_MESSAGES], Field(union_mode="left_to_right")]  # type: ignore[valid-type]  # noqa: UP007


# ------------------------------------------------------------------------- ui-action


class UiAction(BaseModel):
    """What the host's ``onAction`` receives when a block calls ``send`` (SPEC §3)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Annotated[str, Field(max_length=ACTION_MAX_LENGTH, pattern=rf"^(?:{ACTION_PATTERN})$")]
    source: Annotated[str, Field(min_length=1, description="the block id")]
    fields: dict[str, JsonValue] = Field(description="values of the page's input fields, by field path")
    payload: JsonValue = None

    @model_validator(mode="after")
    def _json(self) -> UiAction:
        try:
            json_chars({"fields": self.fields, "payload": self.payload})
        except ValueError as exc:
            raise ValueError(f"not-json: {exc}") from None
        return self


class UiActionPart(BaseModel):
    """The A2A data part that carries a ui-action."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data: UiAction
    mediaType: Literal["application/vnd.platform.ui-action+json"]


class TextPart(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)
    text: str


class OtherPart(BaseModel):
    """Any other A2A part (a data part of another media type, a file)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    mediaType: str | None = None


class UserMessage(BaseModel):
    """A user message sent for a ui-action: exactly one ui-action part and no text beside it."""

    model_config = ConfigDict(extra="allow", frozen=True)

    #: ``ROLE_USER``: the A2A 1.0 wire form, the seed's (the document's ui-action check takes only it).
    role: Literal["ROLE_USER"]
    parts: list[dict[str, Any]]

    @model_validator(mode="after")
    def _one_ui_action(self) -> UserMessage:
        texts = [i for i, p in enumerate(self.parts) if "text" in p]
        actions = [i for i, p in enumerate(self.parts) if p.get("mediaType") == UI_ACTION_MEDIA_TYPE]
        if texts:
            raise ValueError(f"a ui-action message carries no text, but parts {texts} are text")
        if len(actions) != 1 or len(self.parts) != 1:
            raise ValueError(
                f"a ui-action message carries exactly one part, the ui-action; got {len(self.parts)} "
                f"parts of which {len(actions)} are ui-actions"
            )
        UiActionPart.model_validate(self.parts[0])
        return self

    @property
    def ui_action(self) -> UiAction:
        return UiActionPart.model_validate(self.parts[0]).data


#: The ui-action's models (not messages of the bridge; exported in the schema beside them).
ACTION_MODELS: tuple[type[BaseModel], ...] = (UiAction, UiActionPart, UserMessage)


def user_message(action: UiAction, **extra: Any) -> dict[str, Any]:
    """The A2A user message that carries ``action`` (and ``extra`` fields such as messageId)."""
    part = UiActionPart(data=action, mediaType=UI_ACTION_MEDIA_TYPE).model_dump(mode="json")
    return UserMessage(role="ROLE_USER", parts=[part], **extra).model_dump(mode="json")


# -------------------------------------------------------------------------- parsing

_BLOCK = TypeAdapter(BlockMessage)
_HOST = TypeAdapter(HostMessage)


def parse_block_message(data: Any) -> BaseModel:
    """A message from the block's port, validated (``pydantic.ValidationError`` when refused)."""
    return _BLOCK.validate_python(data)


def parse_host_message(data: Any) -> BaseModel:
    return _HOST.validate_python(data)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the protocol (committed as bridge/protocol.schema.json)."""
    from pydantic.json_schema import models_json_schema

    models: list[type[BaseModel]] = [*MESSAGES, *ACTION_MODELS]
    refs, top = models_json_schema([(m, "validation") for m in models], ref_template="#/$defs/{model}")
    ref = {m.__name__: refs[(m, "validation")] for m in models}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Flow UI html-block bridge protocol",
        "description": "Messages between an html block's runtime and its host (see bridge/PROTOCOL.md).",
        "$defs": {
            **top["$defs"],
            "WindowMessage": {"oneOf": [ref[m.__name__] for m in WINDOW_MESSAGES]},
            "BlockMessage": {"oneOf": [ref[m.__name__] for m in BLOCK_MESSAGES]},
            "HostMessage": {"oneOf": [ref[m.__name__] for m in HOST_MESSAGES]},
        },
        "anyOf": [
            {"$ref": "#/$defs/WindowMessage"},
            {"$ref": "#/$defs/BlockMessage"},
            {"$ref": "#/$defs/HostMessage"},
            ref["UiAction"],
            ref["UserMessage"],
        ],
        "x-limits": limits(),
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------- the message table

#: Reasons any block message can be refused with before its type is known (PROTOCOL.md, "Limits").
SHAPE_REASONS = ("bad-message", *RUNTIME_REFUSALS)
#: The constraints of a key's JSON Schema the host checks (the table's key entries carry them).
_CONSTRAINTS = ("const", "enum", "type", "minimum", "maximum", "minLength", "maxLength", "pattern")
#: What else a key's schema may say: words for people, and the inner types of the host's own
#: messages (the host validates only the block's). Any other constraint stops the generation: a
#: limit the models set and the host would not check is a disagreement, not a detail.
_NOT_CHECKED = ("title", "description", "default")
_HOST_ONLY = ("items", "additionalProperties")


def _key_entry(model: type[_Message], name: str, prop: dict[str, Any], required: bool) -> dict[str, Any]:
    """One key of a message in the table: required, the constraints of its type, how it is refused."""
    if "anyOf" in prop:  # only the host's own messages may have them: the block's must be checkable
        if model.sender == "block":
            raise RuntimeError(f"{model.__name__}.{name}: a block message's key must have one type, not {prop['anyOf']}")
        entry: dict[str, Any] = {"anyOf": [_key_entry(model, name, p, True)["accepts"] for p in prop["anyOf"]]}
    elif "$ref" in prop:
        if not prop["$ref"].endswith("/JsonValue"):
            raise RuntimeError(f"{model.__name__}.{name}: a key of a message is a JSON value or a plain type, not {prop['$ref']}")
        entry = {"type": "json"}
    else:
        allowed = (*_CONSTRAINTS, *_NOT_CHECKED, *(_HOST_ONLY if model.sender == "host" else ()))
        unknown = sorted(set(prop) - set(allowed))
        if unknown:
            raise RuntimeError(f"{model.__name__}.{name}: the message table cannot carry {unknown} (bridge/host/messages.js checks {list(_CONSTRAINTS)})")
        entry = {k: prop[k] for k in _CONSTRAINTS if k in prop}
    key: dict[str, Any] = {"required": required, "accepts": entry}
    rules = [m for m in model.model_fields[name].metadata if isinstance(m, KeyRule)]
    if rules:
        key["reason"] = rules[0].reason
        if rules[0].check:
            key["check"] = rules[0].check
    return key


def _reasons(entry: dict[str, Any], model: type[_Message]) -> list[str]:
    rules = [r for f in model.model_fields.values() for r in f.metadata if isinstance(r, KeyRule)]
    found = {*SHAPE_REASONS, *(["rate-limited"] if entry["request"] else []), *model.refusals}
    found |= {r.reason for r in rules} | {x for r in rules for x in r.reasons}
    unknown = found - set(REASONS)
    if unknown:
        raise RuntimeError(f"{model.__name__}: reasons {sorted(unknown)} are not in REASONS")
    return [r for r in REASONS if r in found]


def message_table() -> dict[str, Any]:
    """The message table JavaScript validates and dispatches with, by message type (from :data:`MESSAGES`).

    Each entry: ``model``, ``channel``, ``from``; ``keys`` in the model's order, each
    ``{required, accepts: {type|const|enum, minimum, maximum, maxLength, pattern}, reason?, check?}``
    (``type: "json"`` is any JSON value); for messages from the block over the port also
    ``request`` (it carries an ``id`` and gets a reply), ``budget`` (``requests``, ``reports``
    or null: free) and ``reasons`` (every reason code it can be refused with). Models that share
    a type (the two replies) make one entry whose keys accept what either accepts.
    """
    table: dict[str, Any] = {}
    for model in MESSAGES:
        schema = model.model_json_schema()
        required = set(schema.get("required", ()))
        keys = {name: _key_entry(model, name, prop, name in required) for name, prop in schema["properties"].items()}
        type_ = keys["type"]["accepts"]["const"]
        entry: dict[str, Any] = {"model": model.__name__, "channel": model.channel, "from": model.sender, "keys": keys}
        if model.channel == "port" and model.sender == "block":
            entry["request"] = "id" in keys
            entry["budget"] = "requests" if entry["request"] else model.budget
            entry["reasons"] = _reasons(entry, model)
        if type_ in table:
            table[type_] = _merged(table[type_], entry)
        else:
            table[type_] = entry
    return table


def _merged(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    if "request" in a or "request" in b or a["channel"] != b["channel"] or a["from"] != b["from"]:
        raise RuntimeError(f"{a['model']} and {b['model']}: only host messages of one channel may share a type")
    keys = {}
    for name in [*a["keys"], *(k for k in b["keys"] if k not in a["keys"])]:
        ka, kb = a["keys"].get(name), b["keys"].get(name)
        if ka is None or kb is None:
            keys[name] = {**(ka or kb), "required": False}
        elif ka["accepts"] == kb["accepts"]:
            keys[name] = {**ka, "required": ka["required"] and kb["required"]}
        else:
            keys[name] = {"required": ka["required"] and kb["required"], "accepts": {"anyOf": [ka["accepts"], kb["accepts"]]}}
    return {**a, "model": f"{a['model']}|{b['model']}", "keys": keys}


#: The constants above, exported by name.
_CONSTANT_NAMES = [
    "PROTOCOL_VERSION", "MAX_MESSAGE_CHARS", "MAX_MESSAGE_DEPTH", "RATE_BURST", "RATE_PER_SECOND",
    "REPORT_BURST", "REPORT_PER_SECOND", "ALIVE_CHECK_MS",
    "ACTION_PATTERN", "ACTION_MAX_LENGTH", "URL_MAX_LENGTH", "REASONS", "UI_ACTION_MEDIA_TYPE",
]

__all__ = [  # noqa: PLE0604 (names derived from the one tuple of models, all strings)
    *_CONSTANT_NAMES,
    "MESSAGES", "WINDOW_MESSAGES", "BLOCK_MESSAGES", "HOST_MESSAGES", "ACTION_MODELS", "KeyRule",
    *(m.__name__ for m in (*MESSAGES, *ACTION_MODELS)),
    "BlockMessage", "HostMessage", "Reply",
    "limits", "message_table", "json_schema", "schema_text", "parse_block_message", "parse_host_message", "user_message",
]
