"""The bridge's wire format: pydantic models of every message, both ways, and the ui-action.

This module is the single source of truth for the message limits (size,
nesting depth, rate, action-name grammar, auto-height bounds). JavaScript
reads them through the generated ``bridge/contract.js`` and through the
generated constants block of ``bridge/flow-ui-runtime.js`` (both written by
``flowui-sandbox generate``). ``bridge/PROTOCOL.md`` describes the
format in prose; ``bridge/protocol.schema.json`` is exported from these models.

Two channels exist (see PROTOCOL.md):

* ``window.postMessage``: only :class:`Hello` (block -> host) and
  :class:`Connect` (host -> block, carrying the private ``MessagePort``);
* the ``MessagePort``: everything else.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, field_validator, model_validator

from sandbox.paths import path_problem

#: Version of this protocol; ``hello`` and ``connect`` carry it.
PROTOCOL_VERSION: Final = 1

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
}
if TYPE_CHECKING:  # a Literal built at run time from the table; a type checker sees a string
    Reason = str
else:
    Reason = Literal[tuple(REASONS)]

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
        "uiActionMediaType": UI_ACTION_MEDIA_TYPE,
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


class _Message(BaseModel):
    # strict: a message is JSON as sent, nothing is coerced ("1" is not 1, "yes" is not true).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

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

    type: Literal["flow-ui:hello"]
    v: Literal[1] = PROTOCOL_VERSION


class Connect(_Message):
    """Host -> block, through ``iframe.contentWindow.postMessage(msg, '*', [port])``, once.

    The transferred port is the block's only channel from then on.
    """

    type: Literal["flow-ui:connect"]
    v: Literal[1] = PROTOCOL_VERSION


# ------------------------------------------------------------------ block -> host (port)


class Send(_Message):
    """``flowUi.send(action, payload)``: the host makes a ui-action of it and replies."""

    type: Literal["send"]
    id: RequestId
    action: Annotated[str, Field(max_length=ACTION_MAX_LENGTH, pattern=rf"^(?:{ACTION_PATTERN})$")]
    payload: JsonValue = None


class SetValue(_Message):
    """``flowUi.setValue(path, value)``: only a path listed in the block's ``fields``."""

    type: Literal["setValue"]
    id: RequestId
    path: str
    value: JsonValue

    _check_path = field_validator("path")(classmethod(lambda cls, v: _path(v)))


class OpenUrl(_Message):
    """``flowUi.openUrl(url)``: an https URL, with the block's user-activation state."""

    type: Literal["openUrl"]
    id: RequestId
    url: Annotated[str, Field(max_length=URL_MAX_LENGTH)]
    gesture: bool

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
    viewport: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = Field(
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

    type: Literal["pong"]
    n: RequestId


BlockMessage = Annotated[
    Send | SetValue | OpenUrl | Height | BlockError | CspViolation | Pong, Field(discriminator="type")
]


# ------------------------------------------------------------------ host -> block (port)


class State(_Message):
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


class ThemeMessage(_Message):
    """A validated theme (flat form) and the ``:root`` rule that applies it."""

    type: Literal["theme"]
    theme: dict[str, str]
    css: str

    @field_validator("theme")
    @classmethod
    def _valid(cls, theme: dict[str, str]) -> dict[str, str]:
        from theme import Theme

        Theme.parse(theme)
        return theme


class Ping(_Message):
    """Sent after each ``load`` event of the block's frame; the runtime answers :class:`Pong` at once.

    The port belongs to the document the host connected; a frame that navigated away (however
    early, e.g. before that document's own ``load``) has no document left to answer.
    """

    type: Literal["ping"]
    n: RequestId


class ReplyOk(_Message):
    type: Literal["reply"]
    id: RequestId
    ok: Literal[True]
    value: JsonValue = None


class ReplyRefused(_Message):
    type: Literal["reply"]
    id: RequestId
    ok: Literal[False]
    reason: Reason
    message: str


Reply = Annotated[ReplyOk | ReplyRefused, Field(discriminator="ok")]

HostMessage = Annotated[State | ThemeMessage | Ping | ReplyOk | ReplyRefused, Field(union_mode="left_to_right")]


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

    #: ``ROLE_USER`` is the A2A 1.0 wire form (the seed's); ``user`` is the form of A2A 0.x, still accepted.
    role: Literal["ROLE_USER", "user"]
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

    models: list[type[BaseModel]] = [Hello, Connect, Send, SetValue, OpenUrl, Height, BlockError, CspViolation, Pong,
              State, ThemeMessage, Ping, ReplyOk, ReplyRefused, UiAction, UiActionPart, UserMessage]
    refs, top = models_json_schema([(m, "validation") for m in models], ref_template="#/$defs/{model}")
    ref = {m.__name__: refs[(m, "validation")] for m in models}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Flow UI html-block bridge protocol",
        "description": "Messages between an html block's runtime and its host (see bridge/PROTOCOL.md).",
        "$defs": {
            **top["$defs"],
            "WindowMessage": {"oneOf": [ref["Hello"], ref["Connect"]]},
            "BlockMessage": {"oneOf": [ref[n] for n in ("Send", "SetValue", "OpenUrl", "Height", "BlockError", "CspViolation", "Pong")]},
            "HostMessage": {"oneOf": [ref[n] for n in ("State", "ThemeMessage", "Ping", "ReplyOk", "ReplyRefused")]},
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


__all__ = [
    "PROTOCOL_VERSION", "MAX_MESSAGE_CHARS", "MAX_MESSAGE_DEPTH", "RATE_BURST", "RATE_PER_SECOND",
    "REPORT_BURST", "REPORT_PER_SECOND", "ALIVE_CHECK_MS",
    "ACTION_PATTERN", "ACTION_MAX_LENGTH", "URL_MAX_LENGTH", "REASONS", "UI_ACTION_MEDIA_TYPE",
    "Hello", "Connect", "Send", "SetValue", "OpenUrl", "Height", "BlockError", "CspViolation", "Pong",
    "State", "ThemeMessage", "Ping", "ReplyOk", "ReplyRefused", "UiAction", "UiActionPart", "UserMessage",
    "limits", "json_schema", "schema_text", "parse_block_message", "parse_host_message", "user_message",
]
