"""The wire around a Flow UI document: what goes down to a client and what comes up.

The seed's runtime (docs/DOCUMENT.md, "The wire"): the agent sends a Task's
artifacts down, the client sends one A2A Message up.

* **Down**: a ``TaskArtifactUpdateEvent`` (``{taskId, contextId, artifact: {artifactId,
  name?, parts}, append?, lastChunk?}``) whose parts are a state snapshot
  (``{"data": {...}, "mediaType": "application/json"}``), a state patch
  (``application/json-patch+json``: add/replace/remove only), a ui event
  (``application/vnd.platform.ui+json``: ``{"kind": "render", "slot_id", "blocks"}`` or
  ``{"kind": "navigate", "page_id"}``) or text (``{"text": ...}``). Any other
  ``kind`` or ``mediaType`` is a protocol error.
* **Up**: one ``Message`` with ``role: "ROLE_USER"``, ``contextId``, optionally
  ``taskId`` (and ``messageId``, ``metadata``), and either one text part plus file
  parts (``raw`` or ``url``), or exactly one ui-action data part
  (``application/vnd.platform.ui-action+json``).

:func:`check_down` and :func:`check_up` read JSON and return the models, or raise
:class:`WireError` listing every problem, each located (``artifact.parts[1].data.kind:
...``, ``parts[0].mediaType: ...``).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictBool, StrictStr, ValidationError

from flowui_sandbox.bridge.protocol import UI_ACTION_MEDIA_TYPE, UiAction, json_chars

from ..block.jsonjs import MAX_DEPTH
from ..errors import UsageError
from .patch import MAX_JSON_NODES, PatchError, check_json, json_nodes_over, parse_pointer
from .pattern import surrogate_at

#: mediaType of a state snapshot part (the client's whole projection).
SNAPSHOT_MEDIA_TYPE = "application/json"
#: mediaType of a state patch part (RFC 6902, add/replace/remove only).
PATCH_MEDIA_TYPE = "application/json-patch+json"
#: mediaType of a ui event part (render, navigate).
UI_MEDIA_TYPE = "application/vnd.platform.ui+json"
#: The two system artifacts (seed: state and ui are told apart by artifactId; text streams by name).
STATE_ARTIFACT = "state"
UI_ARTIFACT = "ui"
#: The role of the one upward Message (A2A 1.0).
USER_ROLE = "ROLE_USER"
#: The largest message or event accepted, in characters of compact JSON (UTF-16 units).
MAX_WIRE_CHARS = 16 * 1024 * 1024
#: Most parts in an upward message (one text and its files, or the one ui-action): 300,000
#: parts fit in MAX_WIRE_CHARS and took 4 s to check, with megabytes of problems.
MAX_UP_PARTS = 100
#: Most JSON values (objects, arrays, scalars, keys) in an upward message: 2,000,000 empty
#: objects in its metadata fit in MAX_WIRE_CHARS and took 9 s to check. Files travel as one
#: base64 string each, so the limit is on the structure, not the bytes.
MAX_UP_NODES = MAX_JSON_NODES

DOWN_MEDIA_TYPES = (SNAPSHOT_MEDIA_TYPE, PATCH_MEDIA_TYPE, UI_MEDIA_TYPE)
UI_KINDS = ("render", "navigate")

_ID = Annotated[str, Field(min_length=1, max_length=256)]


class WireError(UsageError):
    """A protocol error: :attr:`problems` lists each as ``where: message``."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = list(problems)
        super().__init__("\n".join(f"{where}: {message}" if where else message for where, message in self.problems))

    @property
    def wheres(self) -> list[str]:
        return [where for where, _ in self.problems]


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# ------------------------------------------------------------------------ parts


class TextPart(_Wire):
    text: StrictStr
    mediaType: StrictStr | None = None  # a text part's own type (text/plain, text/markdown): free
    metadata: dict[str, JsonValue] | None = None


class SnapshotPart(_Wire):
    """The client's whole projection of the state."""

    data: dict[str, JsonValue]
    mediaType: Literal["application/json"]
    metadata: dict[str, JsonValue] | None = None


class PatchOp(_Wire):
    op: Literal["add", "replace", "remove"]
    path: StrictStr
    value: JsonValue = None


class PatchPart(_Wire):
    data: list[PatchOp]
    mediaType: Literal["application/json-patch+json"]
    metadata: dict[str, JsonValue] | None = None


class RenderEvent(_Wire):
    kind: Literal["render"]
    slot_id: StrictStr
    blocks: list[dict[str, JsonValue]]


class NavigateEvent(_Wire):
    kind: Literal["navigate"]
    page_id: StrictStr


UiEvent = Annotated[RenderEvent | NavigateEvent, Field(discriminator="kind")]


class UiPart(_Wire):
    data: UiEvent
    mediaType: Literal["application/vnd.platform.ui+json"]
    metadata: dict[str, JsonValue] | None = None


class FilePart(_Wire):
    """A file beside a text part: its bytes (``raw``, base64) or a ``url``."""

    raw: StrictStr | None = None
    url: StrictStr | None = None
    mediaType: StrictStr | None = None
    filename: StrictStr | None = None
    metadata: dict[str, JsonValue] | None = None


class UiActionPart(_Wire):
    data: UiAction
    mediaType: Literal["application/vnd.platform.ui-action+json"]
    metadata: dict[str, JsonValue] | None = None


DownPart = SnapshotPart | PatchPart | UiPart | TextPart
UpPart = TextPart | FilePart | UiActionPart


class Artifact(_Wire):
    artifactId: _ID
    name: StrictStr | None = None
    description: StrictStr | None = None
    parts: list[Any]  # checked part by part (check_down), then the models
    metadata: dict[str, JsonValue] | None = None


class ArtifactUpdate(_Wire):
    """A2A's ``TaskArtifactUpdateEvent``: one artifact's new parts for a Task."""

    taskId: _ID
    contextId: _ID
    artifact: Artifact
    append: StrictBool | None = None
    lastChunk: StrictBool | None = None
    metadata: dict[str, JsonValue] | None = None

    @property
    def parts(self) -> list[DownPart]:
        return self.artifact.parts


class Message(_Wire):
    """The one upward Message: text (plus files), or exactly one ui-action."""

    role: Literal["ROLE_USER"]
    contextId: _ID
    taskId: _ID | None = None
    messageId: _ID | None = None
    parts: list[Any]
    metadata: dict[str, JsonValue] | None = None

    @property
    def ui_action(self) -> UiAction | None:
        first = self.parts[0]
        return first.data if isinstance(first, UiActionPart) else None

    @property
    def text(self) -> str | None:
        return next((p.text for p in self.parts if isinstance(p, TextPart)), None)


# ------------------------------------------------------------------------ checks


def _where(base: str, loc: tuple) -> str:
    out = base
    for segment in loc:
        if isinstance(segment, int):
            out += f"[{segment}]"
        else:
            out += f".{segment}" if out else str(segment)
    return out


def _model(model: type[BaseModel], value: Any, base: str, problems: list[tuple[str, str]]) -> Any:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            loc = tuple(s for s in error["loc"] if s not in UI_KINDS)  # the discriminator's tag is no place
            if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
                loc = (*loc, "kind")
            problems.append((_where(base, loc), _message(error)))
        return None


def _message(error: Any) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown property"
    if error["type"] == "union_tag_invalid":
        return f"kind must be one of {', '.join(UI_KINDS)}, not {error['input'].get('kind')!r}" if isinstance(error.get("input"), dict) else error["msg"]
    if error["type"] == "union_tag_not_found":
        return f"a ui event has a kind ({', '.join(UI_KINDS)})"
    return str(error["msg"])


def _size(value: Any, where: str, *, safe_integers: bool = False) -> list[tuple[str, str]]:
    try:
        check_json(value, where or "value", MAX_DEPTH, safe_integers=safe_integers)
        size = json_chars(value)
    except (PatchError, ValueError) as exc:
        return [(where, str(exc))]
    if size > MAX_WIRE_CHARS:
        return [(where, f"{size:,} characters of JSON; at most {MAX_WIRE_CHARS:,}")]
    return []


def down_part(part: Any, where: str, problems: list[tuple[str, str]]) -> DownPart | None:
    """One downlink part, told apart by its keys and ``mediaType`` (None, with problems, if bad)."""
    if not isinstance(part, dict):
        problems.append((where, "a part is an object"))
        return None
    if "text" in part:
        return _model(TextPart, part, where, problems)
    if "data" not in part:
        problems.append((where, "a downlink part is text or data (state snapshot, state patch, ui event); "
                                f"keys: {', '.join(sorted(part)) or 'none'}"))
        return None
    media = part.get("mediaType")
    if media == SNAPSHOT_MEDIA_TYPE:
        return _model(SnapshotPart, part, where, problems)
    if media == PATCH_MEDIA_TYPE:
        model = _model(PatchPart, part, where, problems)
        if model is not None:
            for i, op in enumerate(model.data):
                try:
                    parse_pointer(op.path)
                except PatchError as exc:
                    problems.append((f"{where}.data[{i}].path", str(exc)))
                if op.op != "remove" and "value" not in part["data"][i]:
                    problems.append((f"{where}.data[{i}].value", f"{op.op} needs a value"))
        return model
    if media == UI_MEDIA_TYPE:
        return _model(UiPart, part, where, problems)
    problems.append((f"{where}.mediaType", f"{media!r} is not a downlink mediaType ({', '.join(DOWN_MEDIA_TYPES)})"))
    return None


def check_down(event: Any) -> ArtifactUpdate:
    """A downlink event (a ``TaskArtifactUpdateEvent`` as JSON), or :class:`WireError`.

    The ``state`` artifact carries snapshots and patches only, the ``ui`` artifact ui
    events only, every other artifact text only.
    """
    problems = _size(event, "")
    if problems:
        raise WireError(problems)
    if not isinstance(event, dict):
        raise WireError([("", "a downlink event is a TaskArtifactUpdateEvent object")])
    update = _model(ArtifactUpdate, event, "", problems)
    if update is None:
        raise WireError(problems)
    artifact = update.artifact
    parts: list[DownPart] = []
    if not artifact.parts:
        problems.append(("artifact.parts", "an artifact has at least one part"))
    for i, raw in enumerate(artifact.parts):
        where = f"artifact.parts[{i}]"
        part = down_part(raw, where, problems)
        if part is None:
            continue
        wanted: tuple[type, ...]
        if artifact.artifactId == STATE_ARTIFACT:
            wanted, what = (SnapshotPart, PatchPart), "state snapshots and patches"
        elif artifact.artifactId == UI_ARTIFACT:
            wanted, what = (UiPart,), "ui events"
        else:
            wanted, what = (TextPart,), "text"
        if not isinstance(part, wanted):
            problems.append((where, f"artifact {artifact.artifactId!r} carries {what} only"))
        parts.append(part)
    if problems:
        raise WireError(problems)
    return update.model_copy(update={"artifact": artifact.model_copy(update={"parts": parts})})


# A JSON string token (the lexeme the standard library's own decoder scans strings with).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def text_over_nodes(text: str, limit: int = MAX_UP_NODES) -> bool:
    """Whether the JSON ``text`` certainly holds more than ``limit`` values, told before parsing
    it (parsing 2,000,000 empty arrays took 5 s): each ``,`` outside a string comes before a
    value or a key, so more of them than ``limit`` is more values than :func:`check_up` takes
    (a deep nest without commas is the parser's own refusal, at once). Counted in C; the strings
    are taken out only when the first count (commas inside strings too) is past the limit."""
    return text.count(",") > limit and _STRING.sub("", text).count(",") > limit


def _surrogate(value: Any) -> list[tuple[str, str]]:
    """The unpaired surrogate in ``value``, as one problem (it has no UTF-8: the server could pass it to no one)."""
    found = surrogate_at(value)
    return [] if found is None else [(found[0], f"a {found[1]} holds an unpaired surrogate (it is not Unicode text)")]


_STANDARD_BASE64 = re.compile(r"[A-Za-z0-9+/]*")
_URL_SAFE_BASE64 = re.compile(r"[A-Za-z0-9_-]*")


def _is_base64(text: str) -> bool:
    """Whether ``text`` is base64 as the protobuf JSON mapping of ``bytes`` (A2A's ``raw``)
    accepts it: one alphabet, the standard or the URL-safe one, with its padding (to a multiple
    of four characters, at most two ``=``) or without it, and no character after the padding."""
    body = text.rstrip("=")
    padding = len(text) - len(body)
    if not (_STANDARD_BASE64.fullmatch(body) or _URL_SAFE_BASE64.fullmatch(body)):
        return False
    if len(body) % 4 == 1:  # one character is six bits: no whole byte
        return False
    return not padding or (padding <= 2 and len(text) % 4 == 0)


def check_up(message: Any) -> Message:
    """The upward Message as JSON, or :class:`WireError`: text (plus file parts) or
    exactly one ui-action part and nothing else. A client's integers are JavaScript's: one
    beyond ±2^53 - 1 is refused, as the ui-action check refuses it."""
    if isinstance(message, dict) and isinstance(message.get("parts"), list) and len(message["parts"]) > MAX_UP_PARTS:
        raise WireError([("parts", f"{len(message['parts']):,} parts; an upward message has at most {MAX_UP_PARTS}")])  # before any work per part
    if json_nodes_over(message, MAX_UP_NODES) is not None:  # before any work per value
        raise WireError([("", f"more than {MAX_UP_NODES:,} JSON values; an upward message has at most that many")])
    problems = _size(message, "", safe_integers=True) or _surrogate(message)
    if problems:
        raise WireError(problems)
    if not isinstance(message, dict):
        raise WireError([("", "an upward message is an A2A Message object")])
    model = _model(Message, message, "", problems)
    if model is None:
        raise WireError(problems)
    parts: list[Any] = []
    actions, texts = [], []
    for i, raw in enumerate(model.parts):
        where = f"parts[{i}]"
        if not isinstance(raw, dict):
            problems.append((where, "a part is an object"))
            continue
        if "text" in raw:
            part = _model(TextPart, raw, where, problems)
            texts.append(i)
        elif "data" in raw:
            if raw.get("mediaType") != UI_ACTION_MEDIA_TYPE:
                problems.append((f"{where}.mediaType", f"{raw.get('mediaType')!r}: the only data part of an upward message "
                                                       f"is the ui-action ({UI_ACTION_MEDIA_TYPE})"))
                continue
            part = _model(UiActionPart, raw, where, problems)
            actions.append(i)
        elif "raw" in raw or "url" in raw:
            part = _model(FilePart, raw, where, problems)
            if part is not None and (part.raw is None) == (part.url is None):
                problems.append((where, "a file part has exactly one of raw and url"))
            elif part is not None and part.raw is not None and not _is_base64(part.raw):
                problems.append((f"{where}.raw", "a file's raw bytes are base64 (the standard or the URL-safe alphabet, padded or not)"))
        else:
            problems.append((where, f"a part is text, a file (raw or url) or the ui-action data; keys: {', '.join(sorted(raw)) or 'none'}"))
            continue
        parts.append(part)
    if not model.parts:
        problems.append(("parts", "a message has at least one part"))
    elif actions:
        if len(actions) > 1:
            problems.append((f"parts[{actions[1]}]", f"parts {actions} are all ui-actions; a message carries one"))
        elif len(model.parts) > 1:
            other = next(i for i in range(len(model.parts)) if i != actions[0])
            problems.append((f"parts[{other}]", "a ui-action message carries exactly one part, the ui-action"))
    elif len(texts) != 1 and not problems:
        problems.append(("parts", "a text message carries one text part (and any file parts)"
                         if not texts else f"parts {texts} are all text; a message carries one"))
    if problems:
        raise WireError(problems)
    return model.model_copy(update={"parts": parts})


# ------------------------------------------------------------------------ building


def snapshot_part(state: dict) -> dict[str, Any]:
    return {"data": state, "mediaType": SNAPSHOT_MEDIA_TYPE}


def patch_part(ops: list[dict[str, Any]]) -> dict[str, Any]:
    return {"data": ops, "mediaType": PATCH_MEDIA_TYPE}


def render_part(slot_id: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"data": {"kind": "render", "slot_id": slot_id, "blocks": blocks}, "mediaType": UI_MEDIA_TYPE}


def navigate_part(page_id: str) -> dict[str, Any]:
    return {"data": {"kind": "navigate", "page_id": page_id}, "mediaType": UI_MEDIA_TYPE}


def artifact_update(task_id: str, context_id: str, artifact_id: str, parts: list[dict[str, Any]], *, name: str | None = None) -> dict[str, Any]:
    """A ``TaskArtifactUpdateEvent`` as JSON (``append``: the parts continue the artifact)."""
    artifact: dict[str, Any] = {"artifactId": artifact_id, "parts": parts}
    if name is not None:
        artifact["name"] = name
    return {"taskId": task_id, "contextId": context_id, "artifact": artifact, "append": True}


__all__ = [
    "SNAPSHOT_MEDIA_TYPE", "PATCH_MEDIA_TYPE", "UI_MEDIA_TYPE", "STATE_ARTIFACT", "UI_ARTIFACT", "USER_ROLE", "MAX_WIRE_CHARS", "MAX_UP_PARTS", "MAX_UP_NODES", "text_over_nodes",
    "WireError", "TextPart", "SnapshotPart", "PatchOp", "PatchPart", "RenderEvent", "NavigateEvent", "UiPart",
    "FilePart", "UiActionPart", "Artifact", "ArtifactUpdate", "Message",
    "check_down", "check_up", "down_part", "snapshot_part", "patch_part", "render_part", "navigate_part", "artifact_update",
]
