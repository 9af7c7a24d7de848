"""One walk over a document as JSON (valid or not): its pages, blocks, templates, paths and sources.

Validation, path collection and ui-action checks all read a document through
:func:`walk`, so they agree on what a document refers to. The walk reads the
raw JSON (so a document with a bad block still has its other blocks checked),
in document order (pages, blocks, and each object's properties in its model's order,
whatever the order of the JSON's keys), and trusts nothing: a property of the wrong type is simply
not yielded (the model's shape check reports it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .jsontext import cut
from .model import BLOCK_TYPES, Document, Page, VisibleWhen, _Block, _Model

Loc = tuple  # ("pages", 0, "blocks", 3, "text")

def where(loc: Loc) -> str:
    """``pages[0].blocks[3].text`` for ``("pages", 0, "blocks", 3, "text")``; a long key cut (:func:`cut`)."""
    text = "".join([f"[{step}]" if type(step) is int else "." + cut(step) for step in loc])
    return text[1:] if text.startswith(".") else text or "(document)"


@dataclass(frozen=True)
class Item:
    """One thing the walk found.

    ``kind``: ``page``, ``block``, ``template``, ``path`` or ``source``. ``role`` for a
    path: ``field`` (an input's), ``visible_when``, ``fields`` (an html block's) or
    ``data`` (a data block's); for a template or source: the property name.
    ``block``: the raw block the item belongs to (None for pages and page titles);
    ``page``: the index of its page.
    """

    kind: str
    loc: Loc
    value: Any
    role: str = ""
    block: dict | None = None
    page: int | None = None

    @property
    def where(self) -> str:
        return where(self.loc)


def walk(document: Any) -> Iterator[Item]:
    if not isinstance(document, dict):
        return
    pages = document.get("pages")
    if not isinstance(pages, list):
        return
    for index, page in enumerate(pages):
        if not isinstance(page, dict):
            continue
        loc = ("pages", index)
        yield Item("page", loc, page, page=index)
        yield from _model(Page, page, loc, None, index)


def walk_blocks(blocks: Any, loc: Loc = (), page: int | None = None) -> Iterator[Item]:
    """The walk of a list of blocks (e.g. blocks rendered at run time)."""
    if isinstance(blocks, list):
        for index, block in enumerate(blocks):
            yield from _block(block, (*loc, index), page)


def _block(block: Any, loc: Loc, page: int | None) -> Iterator[Item]:
    if not isinstance(block, dict):
        return
    yield Item("block", loc, block, block=block, page=page)
    kind = block.get("type")
    cls = BLOCK_TYPES.get(kind) if isinstance(kind, str) else None  # (a list or object is no type, and unhashable)
    if cls is not None:
        yield from _model(cls, block, loc, block, page)


def _model(cls: type[_Model], data: dict, loc: Loc, block: dict | None, page: int | None) -> Iterator[Item]:
    # the model's order of properties, not the JSON's: what a document refers to, and in what
    # order, does not depend on how its objects order their keys (a round trip keeps it)
    for name in cls.model_fields:
        if name not in data:
            continue
        value = data[name]
        at = (*loc, name)
        if name in cls.TEMPLATES:
            if isinstance(value, str):
                yield Item("template", at, value, name, block, page)
        elif name in cls.TEMPLATE_LISTS:
            if isinstance(value, list):
                for i, text in enumerate(value):
                    if isinstance(text, str):
                        yield Item("template", (*at, i), text, name, block, page)
        elif name in cls.PATHS:
            if isinstance(value, str):
                role = "visible_when" if cls is VisibleWhen else "field" if name == "field" else "data"
                yield Item("path", at, value, role, block, page)
        elif name in cls.PATH_LISTS:
            if isinstance(value, list):
                for i, path in enumerate(value):
                    if isinstance(path, str):
                        yield Item("path", (*at, i), path, name, block, page)
        elif name in cls.NESTED:
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, dict):
                        yield from _model(cls.NESTED[name], item, (*at, i), block, page)
        elif name in cls.CHILDREN:
            if isinstance(value, list):
                for i, child in enumerate(value):
                    yield from _block(child, (*at, i), page)
        elif name == "visible_when" and issubclass(cls, _Block):
            if isinstance(value, dict):
                yield from _model(VisibleWhen, value, at, block, page)
        elif name == "source" and block is not None and block.get("type") == "html":
            if isinstance(value, str):
                yield Item("source", at, value, name, block, page)


def each_block(blocks: Any, loc: Loc = ()) -> Iterator[tuple[Loc, dict]]:
    """Every block of a list of blocks and of the layout blocks inside it, with its location,
    in the walk's order, entering nothing that cannot hold a block: what a ui-action needs of a
    page. (The whole walk enters every option: 0.25 s a message for a select of 30,000.)"""
    if isinstance(blocks, list):
        for index, block in enumerate(blocks):
            if isinstance(block, dict):
                at = (*loc, index)
                yield at, block
                kind = block.get("type")
                cls = BLOCK_TYPES.get(kind) if isinstance(kind, str) else None
                if cls is not None:
                    yield from _blocks_in(cls, block, at)


def _blocks_in(cls: type[_Model], data: dict, loc: Loc) -> Iterator[tuple[Loc, dict]]:
    for name in cls.model_fields:
        value = data.get(name)
        if name in cls.CHILDREN:
            yield from each_block(value, (*loc, name))
        elif name in cls.NESTED and _holds_blocks(cls.NESTED[name]) and isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    yield from _blocks_in(cls.NESTED[name], item, (*loc, name, i))


def _holds_blocks(cls: type[_Model]) -> bool:
    """Whether objects of ``cls`` (a tab, a column, an option) can hold blocks."""
    return bool(cls.CHILDREN) or any(_holds_blocks(nested) for nested in cls.NESTED.values())


__all__ = ["Item", "each_block", "walk", "walk_blocks", "where", "Document"]
