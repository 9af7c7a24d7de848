"""One client's session on the server: what it is told, and what it may send back.

A :class:`Session` holds what one client was shown: the document, the page it is on
(``start_page_id``, then each ``navigate``), the blocks rendered into the document's slots
and conversation, and the projection of the state it was told. Each call returns the
``TaskArtifactUpdateEvent``s (JSON) that client gets, in the seed's order: the ui events of
the step, then the state difference.

* :meth:`Session.start` is a snapshot of the client's projection (the first state part);
* :meth:`Session.update` is a patch of the client's projection only (nothing when it did not
  change);
* :meth:`Session.render` / :meth:`Session.navigate` are the ui event, then the patch their
  change of projection makes;
* :meth:`Session.receive` checks an upward Message (:func:`.wire.check_up`, its
  ``contextId`` and ``taskId``) and a ui-action against what the client was shown
  (:func:`.action.validate_ui_action` on the document and the render events shown, on the
  client's current page, with the current state: a block rendered into a hidden slot is hidden).

**The client's projection** is the paths of the blocks of its current page, the blocks
rendered into that page's slots and conversation included (docs/DOCUMENT.md, "The wire").
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..block.projection import project
from .action import ActionResult, check_action
from .patch import apply_patch, diff
from .projection import rendered_paths, report_of
from .validate import DocumentError, Report, load_document
from .walk import walk_blocks
from .wire import (
    STATE_ARTIFACT,
    UI_ARTIFACT,
    Message,
    PatchPart,
    SnapshotPart,
    UiPart,
    WireError,
    artifact_update,
    check_down,
    check_up,
    navigate_part,
    patch_part,
    render_part,
    snapshot_part,
)

#: Blocks a ``render`` event may target: a slot (its content is replaced) or the conversation (a card is added).
RENDER_TARGETS = ("slot", "conversation")


class SessionError(WireError):
    """A call the session cannot make (a render into no slot, a navigate to no page, …)."""


@dataclass(frozen=True)
class Received:
    """An accepted upward Message: the model, and for a ui-action its :class:`ActionResult`
    (``result.writes`` is the JSON Patch of the state); ``result`` is None for text."""

    message: Message
    result: ActionResult | None


class Session:
    """What one client of ``document`` is shown. ``context_id`` / ``task_id``: the A2A ids its
    events carry and its messages must carry. ``page_id``: the client's page (``start_page_id`` by
    default); ``rendered``: blocks already rendered, by slot or conversation block id (the client
    holds them; no render event is sent for them). ``leak=True`` is for tests only: the client is
    told the whole state, not its projection (the end-to-end test shows it detects that)."""

    def __init__(self, document: Any, *, context_id: str, task_id: str, page_id: str | None = None,
                 rendered: Mapping[str, list[dict[str, Any]]] | None = None, frozen: Iterable[str] = (), leak: bool = False):
        self.frozen = tuple(frozen)
        report = report_of(document, frozen=self.frozen)
        self.document: dict[str, Any] = report.document.model_dump(mode="json", exclude_unset=True)  # type: ignore[union-attr]
        self.context_id, self.task_id, self.leak = context_id, task_id, leak
        self.pages = {page["page_id"]: page for page in self.document["pages"]}
        self.page_id = page_id if page_id is not None else self.document["start_page_id"]
        if self.page_id not in self.pages:
            raise SessionError([("page_id", f"{self.page_id!r} is not a page of the document ({', '.join(self.pages)})")])
        # slot/conversation block id -> (its page, its type)
        self.targets: dict[str, tuple[str, str]] = {}
        self.block_ids: set[str] = set()
        for page in self.document["pages"]:
            for item in walk_blocks(page["blocks"]):
                block = item.value
                if item.kind == "block":
                    self.block_ids.add(block["block_id"])
                    if block["type"] in RENDER_TARGETS:
                        self.targets[block["block_id"]] = (page["page_id"], block["type"])
        self.rendered: dict[str, list[dict[str, Any]]] = {}  # target block id -> the blocks shown in it
        # the renders shown, in the order made: (target, blocks); a slot's replace the earlier ones
        self._renders: list[tuple[str, list[dict[str, Any]]]] = []
        self._report = report
        self.state: dict[str, Any] | None = None  # the latest state
        self.told: dict[str, Any] | None = None  # the projection the client holds
        self._shown: Report | None = report
        self._paths: dict[str, list[str]] = {}
        for target, blocks in (rendered or {}).items():  # what the client was shown before this session
            self._show(target, blocks)

    # ---------------------------------------------------------------- what is shown

    def shown_document(self) -> dict[str, Any]:
        """The document as this client sees it: each target's rendered blocks appended to its page."""
        pages = []
        for page in self.document["pages"]:
            extra = [b for target, blocks in self.rendered.items() if self.targets[target][0] == page["page_id"] for b in blocks]
            pages.append({**page, "blocks": [*page["blocks"], *extra]} if extra else page)
        return {**self.document, "pages": pages}

    def _shown_report(self) -> Report:
        if self._shown is None:
            self._shown = load_document(self.shown_document(), frozen=self.frozen)
        return self._shown

    def paths(self, page_id: str | None = None) -> list[str]:
        """The projection paths of the client on ``page_id`` (its current page by default)."""
        page_id = self.page_id if page_id is None else page_id
        if page_id not in self._paths:
            page = next(p for p in self.shown_document()["pages"] if p["page_id"] == page_id)
            self._paths[page_id] = list(dict.fromkeys(ref.path for ref in rendered_paths(page["blocks"], frozen=self.frozen)))
        return self._paths[page_id]

    def projection(self, state: dict[str, Any]) -> dict[str, Any]:
        """What this client may hold of ``state``."""
        if self.leak:
            return copy.deepcopy(state)
        return project(state, self.paths())

    # ---------------------------------------------------------------- down

    def _event(self, artifact_id: str, part: dict[str, Any]) -> dict[str, Any]:
        return artifact_update(self.task_id, self.context_id, artifact_id, [part])

    def _state_events(self) -> list[dict[str, Any]]:
        assert self.state is not None and self.told is not None
        new = self.projection(self.state)
        ops = diff(self.told, new)
        self.told = new
        return [self._event(STATE_ARTIFACT, patch_part(ops))] if ops else []

    def start(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """The first events: the snapshot of the client's projection of ``state``."""
        if not isinstance(state, dict):
            raise SessionError([("state", "the state is a JSON object")])
        self.state = copy.deepcopy(state)
        self.told = self.projection(self.state)
        return [self._event(STATE_ARTIFACT, snapshot_part(copy.deepcopy(self.told)))]

    def _started(self) -> None:
        if self.told is None:
            raise SessionError([("", "the session has not started: call start(state) first (a snapshot comes first)")])

    def update(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """A new state: the patch of the client's projection (no event when it did not change)."""
        self._started()
        if not isinstance(state, dict):
            raise SessionError([("state", "the state is a JSON object")])
        self.state = copy.deepcopy(state)
        return self._state_events()

    def apply(self, writes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Apply an accepted action's writes (``Received.result.writes``) to the state: :meth:`update`."""
        self._started()
        assert self.state is not None
        return self.update(apply_patch(self.state, writes))

    def render(self, slot_id: str, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A ``render`` event into ``slot_id`` (a slot's content is replaced, the conversation gets
        the blocks added), then the patch of the client's projection it changes."""
        self._started()
        self._show(slot_id, blocks)
        return [self._event(UI_ARTIFACT, render_part(slot_id, copy.deepcopy(blocks))), *self._state_events()]

    def _show(self, slot_id: str, blocks: list[dict[str, Any]]) -> None:
        if slot_id not in self.targets:
            raise SessionError([("slot_id", f"{slot_id!r} is not a slot or conversation block of the document "
                                            f"({', '.join(self.targets) or 'it has none'})")])
        try:
            rendered_paths(blocks, frozen=self.frozen)
        except DocumentError as exc:
            raise SessionError([(f"blocks{p.where[len('blocks'):]}" if p.where.startswith("blocks") else p.where, p.message)
                                for p in exc.problems]) from None
        kept = [] if self.targets[slot_id][1] == "slot" else self.rendered.get(slot_id, [])
        taken = self.block_ids | {b["block_id"] for t, bs in self.rendered.items() if t != slot_id for b in bs} | {b["block_id"] for b in kept}
        clash = [(f"blocks[{i}].block_id", f"block_id {b['block_id']!r} is already shown") for i, b in enumerate(blocks) if b["block_id"] in taken]
        if clash:
            raise SessionError(clash)
        before = self.rendered.get(slot_id)
        shown = copy.deepcopy(blocks)
        self.rendered[slot_id] = [*kept, *shown]
        self._shown, self._paths = None, {}
        try:
            self._shown_report()
        except DocumentError as exc:
            if before is None:
                del self.rendered[slot_id]
            else:
                self.rendered[slot_id] = before
            self._shown, self._paths = None, {}
            raise SessionError([(p.where, p.message) for p in exc.problems]) from None
        if self.targets[slot_id][1] == "slot":
            self._renders = [(target, shown_blocks) for target, shown_blocks in self._renders if target != slot_id]
        self._renders.append((slot_id, shown))

    def navigate(self, page_id: str) -> list[dict[str, Any]]:
        """A ``navigate`` event, then the patch of the new page's projection."""
        self._started()
        if page_id not in self.pages:
            raise SessionError([("page_id", f"{page_id!r} is not a page of the document ({', '.join(self.pages)})")])
        self.page_id = page_id
        return [self._event(UI_ARTIFACT, navigate_part(page_id)), *self._state_events()]

    # ---------------------------------------------------------------- up

    def receive(self, message: Any) -> Received:
        """Check an upward Message. Raises :class:`.wire.WireError` (its shape, its ids) or
        :class:`.action.UiActionRefused` (a ui-action the client was not shown, or its fields)."""
        self._started()
        model = check_up(message)
        problems = []
        if model.contextId != self.context_id:
            problems.append(("contextId", f"{model.contextId!r} is not this session's context"))
        if model.taskId is not None and model.taskId != self.task_id:
            problems.append(("taskId", f"{model.taskId!r} is not this session's task"))
        if problems:
            raise WireError(problems)
        if model.ui_action is None:
            return Received(model, None)
        # each render as the event it was (its own form, hidden with its slot), checked when it was made
        renders = [{"kind": "render", "slot_id": target, "blocks": blocks} for target, blocks in self._renders]
        result = check_action(self._report, self.page_id, message, state=self.state, frozen=self.frozen,
                              rendered=renders, rendered_checked=True)
        return Received(model, result)


def replay(events: Iterable[dict[str, Any]]) -> tuple[dict[str, Any] | None, str | None, dict[str, list[dict[str, Any]]]]:
    """What a client makes of ``events``: its state (snapshot, then patches), its page (the last
    navigate) and its rendered blocks by target; every event checked (:func:`.wire.check_down`)."""
    state: dict[str, Any] | None = None
    page: str | None = None
    rendered: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        for part in check_down(event).parts:
            if isinstance(part, SnapshotPart):
                state = part.model_dump(mode="json")["data"]
            elif isinstance(part, PatchPart):
                if state is None:
                    raise WireError([("artifact.parts[0]", "a patch before the snapshot")])
                state = apply_patch(state, [op.model_dump(mode="json", exclude_unset=True) for op in part.data])
            elif isinstance(part, UiPart):
                data = part.data
                if data.kind == "navigate":
                    page = data.page_id
                else:
                    rendered[data.slot_id] = [*rendered.get(data.slot_id, []), *data.blocks]
    return state, page, rendered


__all__ = ["Session", "SessionError", "Received", "RENDER_TARGETS", "replay"]
