"""Pydantic models of a Flow UI document: pages of typed blocks (seed: "Грамматика блоков").

The models check the *shape* of a document (types, required and unknown
properties, value ranges). What needs the whole document or a parser (unique
ids, link targets, templates, paths, html sources) is checked by
:mod:`flowui_sandbox.sandbox.document.validate`, which also reports every problem at once.

Each block class says which of its properties are what, so one walker
(:mod:`flowui_sandbox.sandbox.document.walk`) finds the templates, paths and child blocks
of any document, valid or not:

* ``TEMPLATES``: text properties that are templates over state (SPEC §5);
* ``TEMPLATE_LISTS``: lists of templates;
* ``PATHS`` / ``PATH_LISTS``: properties that are state paths;
* ``NESTED``: lists of small objects with their own properties (options, tabs);
* ``CHILDREN``: lists of child blocks (layout blocks).

Properties the seed does not list are the obvious minimal set; docs/DOCUMENT.md
marks each of them.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Union, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    model_serializer,
    model_validator,
)

from flowui_sandbox.bridge.grammar import BLOCK_ID_PATTERN
from flowui_sandbox.bridge.protocol import ACTION_MAX_LENGTH, ACTION_PATTERN

#: The system fields of the execution state (SPEC §2) are configuration: the server
#: passes its own list (``frozen=``); the default is none. They are published in the
#: schema as ``x-flow-ui-frozen-state-fields``.
DEFAULT_FROZEN_STATE_FIELDS: tuple[str, ...] = ()

#: Where the server writes the action of a ui-action message (seed: ``state.ui_action``).
#: No input ``field`` and no html ``fields`` entry may be it or lie under it.
UI_ACTION_FIELD = "ui_action"

#: Longest ``pattern`` of a text input (a regular expression the server runs on user input).
PATTERN_MAX_LENGTH = 1000
#: Longest text value accepted for a text input without a ``max_length`` of its own.
TEXT_MAX_LENGTH = 10_000

BlockId = Annotated[str, Field(pattern=rf"^(?:{BLOCK_ID_PATTERN})$", description="unique in the document")]
PageId = Annotated[str, Field(pattern=rf"^(?:{BLOCK_ID_PATTERN})$")]
ActionName = Annotated[str, Field(max_length=ACTION_MAX_LENGTH, pattern=rf"^(?:{ACTION_PATTERN})$")]
#: A template over state (SPEC §5); checked by the template parser, not here.
Template = Annotated[str, Field(json_schema_extra={"x-flow-ui-template": True})]
#: A state path (SPEC §2); checked against the grammar and the frozen fields, not here.
StatePath = Annotated[str, Field(json_schema_extra={"x-flow-ui-path": True})]
Tone = Literal["neutral", "info", "success", "warning", "danger"]
Number = int | float
#: A number above 0 (each arm of the union bounded, so the schema says it as exclusiveMinimum).
PositiveNumber = Annotated[int, Field(gt=0)] | Annotated[float, Field(gt=0)]


def _integral(value: Any) -> Any:
    """``2.0`` is the integer 2: JSON has one kind of number (JavaScript, and the JSON
    Schema's ``integer``, agree); ``2.5`` and ``true`` stay refused."""
    return int(value) if type(value) is float and value.is_integer() and abs(value) < 2**53 else value


def integer(**bounds: int) -> Any:
    """An integer as JSON has it (the models are strict, but 2.0 is 2), within ``bounds``
    (``ge``, ``le``). The bounds come before the validator so that the schema says them as
    ``minimum``/``maximum``."""
    return Annotated[int, Field(**bounds), BeforeValidator(_integral)]  # type: ignore[call-overload]
#: A link's url: https only (the check is the model's; the schema says it with this pattern).
HTTPS_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]://"


class _Model(BaseModel):
    # strict: a document is JSON as written; "1" is not 1 and "yes" is not true.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    TEMPLATES: ClassVar[tuple[str, ...]] = ()
    TEMPLATE_LISTS: ClassVar[tuple[str, ...]] = ()
    PATHS: ClassVar[tuple[str, ...]] = ()
    PATH_LISTS: ClassVar[tuple[str, ...]] = ()
    NESTED: ClassVar[dict[str, type[_Model]]] = {}
    CHILDREN: ClassVar[tuple[str, ...]] = ()


class VisibleWhen(_Model):
    """Shown when the value at ``path`` equals ``equals``; without ``equals``, when it is not
    empty (not null, "", false, 0 or an empty array). ``equals: null`` and no ``equals`` mean
    different things, so a dump leaves ``equals`` out unless it was given."""

    PATHS = ("path",)
    path: StatePath
    equals: JsonValue = None

    @model_serializer(mode="wrap")
    def _without_unset_equals(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        if "equals" not in self.model_fields_set:
            data.pop("equals", None)
        return data


class Action(_Model):
    name: ActionName
    payload: JsonValue = None


class _Block(_Model):
    block_id: BlockId
    visible_when: VisibleWhen | None = None
    #: what the block can send: "action" (its action.name), "any" (html), or None
    ACTS: ClassVar[str | None] = None


# ------------------------------------------------------------------------ layout


class Section(_Block):
    TEMPLATES = ("title",)
    CHILDREN = ("blocks",)
    type: Literal["section"]
    title: Template | None = None
    blocks: list[Block] = []


class Column(_Model):
    CHILDREN = ("blocks",)
    blocks: list[Block] = []


class Columns(_Block):
    NESTED = {"columns": Column}
    type: Literal["columns"]
    columns: Annotated[list[Column], Field(min_length=1)]


class Tab(_Model):
    TEMPLATES = ("label",)
    CHILDREN = ("blocks",)
    label: Template
    blocks: list[Block] = []


class Tabs(_Block):
    NESTED = {"tabs": Tab}
    type: Literal["tabs"]
    tabs: Annotated[list[Tab], Field(min_length=1)]


# ------------------------------------------------------------------------ content


class Heading(_Block):
    TEMPLATES = ("text",)
    type: Literal["heading"]
    text: Template
    level: integer(ge=1, le=6) = 2  # type: ignore[valid-type]


class Text(_Block):
    TEMPLATES = ("markdown",)
    type: Literal["text"]
    markdown: Template


class Image(_Block):
    TEMPLATES = ("url", "alt")
    type: Literal["image"]
    url: Template
    alt: Template | None = None


class Video(_Block):
    TEMPLATES = ("url", "title")
    type: Literal["video"]
    url: Template
    title: Template | None = None


class Audio(_Block):
    TEMPLATES = ("url", "title")
    type: Literal["audio"]
    url: Template
    title: Template | None = None


class Code(_Block):
    TEMPLATES = ("code",)
    type: Literal["code"]
    code: Template
    language: Annotated[str, Field(max_length=40)] | None = None


class Badge(_Block):
    TEMPLATES = ("text",)
    type: Literal["badge"]
    text: Template
    tone: Tone = "neutral"


class Alert(_Block):
    TEMPLATES = ("title", "text")
    type: Literal["alert"]
    title: Template | None = None
    text: Template
    tone: Tone = "info"


class Metric(_Block):
    TEMPLATES = ("label", "value", "hint")
    type: Literal["metric"]
    label: Template
    value: Template
    hint: Template | None = None


class Progress(_Block):
    """``value`` renders to a number between 0 and ``max``."""

    TEMPLATES = ("label", "value")
    type: Literal["progress"]
    label: Template | None = None
    value: Template
    max: PositiveNumber = 100


class Status(_Block):
    TEMPLATES = ("text",)
    type: Literal["status"]
    text: Template
    tone: Tone = "neutral"


class EmptyState(_Block):
    TEMPLATES = ("title", "text")
    type: Literal["empty_state"]
    title: Template
    text: Template | None = None


class Divider(_Block):
    type: Literal["divider"]


# ------------------------------------------------------------------------ input


class _Input(_Block):
    """Every input block: ``field`` (a state path), ``required``, ``error_message``, ``action``."""

    TEMPLATES: ClassVar[tuple[str, ...]] = ("label", "error_message")
    PATHS = ("field",)
    ACTS = "action"
    field: StatePath
    label: Template | None = None
    required: bool = False
    error_message: Template | None = None
    action: Action | None = None


class TextInput(_Input):
    TEMPLATES = ("label", "placeholder", "error_message")
    type: Literal["text_input"]
    placeholder: Template | None = None
    pattern: Annotated[str, Field(max_length=PATTERN_MAX_LENGTH)] | None = None
    min_length: integer(ge=0) | None = None  # type: ignore[valid-type]
    max_length: integer(ge=1, le=TEXT_MAX_LENGTH) | None = None  # type: ignore[valid-type]
    multiline: bool = False


class _Range(_Input):
    """An input with ``min`` and ``max``; ``min`` above ``max`` is refused by check_document
    (a JSON Schema cannot compare two properties, and the models say what the schema says)."""


class NumberInput(_Range):
    type: Literal["number_input"]
    min: Number | None = None
    max: Number | None = None
    step: PositiveNumber | None = None
    integer: bool = False


class Option(_Model):
    TEMPLATES = ("label",)
    value: str | int | float | bool
    label: Template


class Select(_Input):
    NESTED = {"options": Option}
    type: Literal["select"]
    options: Annotated[list[Option], Field(min_length=1)]
    multiple: bool = False


class Checkbox(_Input):
    type: Literal["checkbox"]


class Switch(_Input):
    type: Literal["switch"]


class Slider(_Range):
    type: Literal["slider"]
    min: Number
    max: Number
    step: PositiveNumber | None = None


DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
DATETIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2})?$"


class DateInput(_Range):
    type: Literal["date_input"]
    min: Annotated[str, Field(pattern=DATE)] | None = None
    max: Annotated[str, Field(pattern=DATE)] | None = None


class DatetimeInput(_Range):
    """A local date and time as ``<input type=datetime-local>`` gives it (no zone)."""

    type: Literal["datetime_input"]
    min: Annotated[str, Field(pattern=DATETIME)] | None = None
    max: Annotated[str, Field(pattern=DATETIME)] | None = None


class FileUpload(_Input):
    """The value is a file reference ``{name, media_type, size?, uri?}`` (a list when ``multiple``)."""

    type: Literal["file_upload"]
    accept: list[Annotated[str, Field(min_length=1, max_length=100)]] | None = None
    multiple: bool = False
    max_bytes: integer(ge=1) | None = None  # type: ignore[valid-type]


class VoiceInput(_Input):
    """The value is the transcript (a string)."""

    type: Literal["voice_input"]


# ------------------------------------------------------------------------ actions


class Button(_Block):
    """``novalidate``: true for an action that does not wait for the page's required inputs
    (Cancel, Back: HTML's ``formnovalidate``); the values it carries are checked all the same."""

    TEMPLATES = ("label",)
    ACTS = "action"
    type: Literal["button"]
    label: Template
    action: Action
    novalidate: bool = False


def _link_schema(schema: dict[str, Any]) -> None:
    """What the model's check says, in the schema: exactly one of page_id and url, url https."""
    schema["oneOf"] = [
        {"required": ["page_id"], "properties": {"page_id": {"type": "string"}, "url": {"type": "null"}}},
        {"required": ["url"], "properties": {"url": {"type": "string", "pattern": HTTPS_PATTERN}, "page_id": {"type": "null"}}},
    ]


class Link(_Block):
    """Goes to a page of the document (``page_id``) or opens an https ``url``: exactly one."""

    model_config = ConfigDict(json_schema_extra=_link_schema)
    TEMPLATES = ("label", "url")
    type: Literal["link"]
    label: Template
    page_id: PageId | None = None
    url: Template | None = None

    @model_validator(mode="after")
    def _one_target(self) -> Link:
        if (self.page_id is None) == (self.url is None):
            raise ValueError("a link has exactly one of page_id and url")
        if self.url is not None and not self.url.lower().startswith("https://"):
            raise ValueError(f"url must start with https:// (got {self.url[:40]!r})")
        return self


# ------------------------------------------------------------------------ data


class TableColumn(_Model):
    TEMPLATES = ("label",)
    key: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
    label: Template


class DataTable(_Block):
    """``path``: an array of row objects in state; ``columns``: which keys to show."""

    TEMPLATES = ("title",)
    PATHS = ("path",)
    NESTED = {"columns": TableColumn}
    type: Literal["data_table"]
    path: StatePath
    title: Template | None = None
    columns: list[TableColumn] | None = None


class Chart(_Block):
    TEMPLATES = ("title",)
    PATHS = ("path",)
    type: Literal["chart"]
    path: StatePath
    kind: Literal["line", "bar", "area", "pie"] = "line"
    x: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")] | None = None
    y: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")] | None = None
    title: Template | None = None


class _DataView(_Block):
    TEMPLATES = ("title",)
    PATHS = ("path",)
    path: StatePath
    title: Template | None = None


class JsonView(_DataView):
    type: Literal["json_view"]


class FileCard(_DataView):
    type: Literal["file_card"]


class FileList(_DataView):
    type: Literal["file_list"]


# ------------------------------------------------------------------------ platform


class Conversation(_Block):
    TEMPLATES = ("placeholder",)
    type: Literal["conversation"]
    placeholder: Template | None = None


class Slot(_Block):
    TEMPLATES = ("title",)
    type: Literal["slot"]
    title: Template | None = None


class AgentIdentity(_Block):
    TEMPLATES = ("name", "description")
    type: Literal["agent_identity"]
    name: Template | None = None
    description: Template | None = None


class Avatar(_Block):
    TEMPLATES = ("name", "url")
    type: Literal["avatar"]
    name: Template | None = None
    url: Template | None = None


class _Panel(_Block):
    """Platform panels that show the run itself; the platform fills them, the author titles them."""

    TEMPLATES = ("title",)
    title: Template | None = None


class RunTrace(_Panel):
    type: Literal["run_trace"]


class ToolActivity(_Panel):
    type: Literal["tool_activity"]


class BrowserPreview(_Panel):
    type: Literal["browser_preview"]


class SkillActivity(_Panel):
    type: Literal["skill_activity"]


class ActionPreview(_Panel):
    type: Literal["action_preview"]


class ActionResult(_Panel):
    type: Literal["action_result"]


class Reflection(_Panel):
    type: Literal["reflection"]


class Activity(_Panel):
    type: Literal["activity"]


class SuggestedPrompts(_Block):
    """Prompts the user can click; a click sends the prompt's text as an ordinary text message."""

    TEMPLATE_LISTS = ("prompts",)
    type: Literal["suggested_prompts"]
    prompts: Annotated[list[Template], Field(min_length=1, max_length=20)]


# ------------------------------------------------------------------------ own code


class Html(_Block):
    """Author HTML/CSS/JS (SPEC §1); ``fields``: paths its script reads or writes without markup."""

    PATH_LISTS = ("fields",)
    ACTS = "any"
    type: Literal["html"]
    fields: list[StatePath] = []  # before source: the walk (document order) follows this order
    source: str


BLOCK_CLASSES: tuple[type[_Block], ...] = (
    Section, Columns, Tabs,
    Heading, Text, Image, Video, Audio, Code, Badge, Alert, Metric, Progress, Status, EmptyState, Divider,
    TextInput, NumberInput, Select, Checkbox, Switch, Slider, DateInput, DatetimeInput, FileUpload, VoiceInput,
    Button, Link,
    DataTable, Chart, JsonView, FileCard, FileList,
    Conversation, Slot, AgentIdentity, Avatar, RunTrace, ToolActivity, BrowserPreview, SkillActivity,
    ActionPreview, ActionResult, Reflection, Activity, SuggestedPrompts,
    Html,
)
#: block type -> its model
BLOCK_TYPES: dict[str, type[_Block]] = {get_args(cls.model_fields["type"].annotation)[0]: cls for cls in BLOCK_CLASSES}
INPUT_TYPES = frozenset(t for t, cls in BLOCK_TYPES.items() if issubclass(cls, _Input))

# Union over a runtime tuple: `X | Y` cannot spell it (UP007), and mypy sees no type in it.
Block = Annotated[Union[BLOCK_CLASSES], Field(discriminator="type")]  # type: ignore[valid-type]  # noqa: UP007


class Page(_Model):
    TEMPLATES = ("title",)
    CHILDREN = ("blocks",)
    page_id: PageId
    title: Template | None = None
    blocks: list[Block] = []


class Document(_Model):
    NESTED = {"pages": Page}
    start_page_id: PageId
    pages: Annotated[list[Page], Field(min_length=1)]


for _cls in (Section, Column, Tab, Page, Document):
    _cls.model_rebuild()

BLOCK_ADAPTER: TypeAdapter = TypeAdapter(Block)


def document_schema(frozen: tuple[str, ...] | list[str] = DEFAULT_FROZEN_STATE_FIELDS) -> dict[str, Any]:
    """The JSON Schema of a document, with the server's frozen state fields."""
    schema = Document.model_json_schema(ref_template="#/$defs/{model}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Flow UI document",
        **schema,
        "x-flow-ui-frozen-state-fields": list(frozen),
    }


__all__ = [
    "Document", "Page", "Block", "VisibleWhen", "Action", "BLOCK_TYPES", "INPUT_TYPES", "BLOCK_ADAPTER",
    "DEFAULT_FROZEN_STATE_FIELDS", "UI_ACTION_FIELD", "document_schema",
]
