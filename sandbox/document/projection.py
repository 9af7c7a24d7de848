"""The server's projection of a document: which state paths its clients get.

The projection holds only the paths the document refers to (SPEC §5): ``{path}``
in templates, input ``field``s, ``visible_when.path``, html ``fields`` and their
markup's ``data-bind``/``data-show``, data blocks' ``path`` (this project's
decision, docs/DOCUMENT.md) and the paths of blocks rendered at run time into the
conversation or a slot (pass them as ``rendered``). Each html block gets only its
own projection (:func:`html_paths`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..block.projection import project
from .model import Document
from .validate import DocumentError, PathRef, Report, check_blocks, load_document


def report_of(document: Any, *, frozen: Iterable[str] = ()) -> Report:
    """A valid document's :class:`Report` (a :class:`Document`, its JSON, or a report);
    :class:`DocumentError` when it has problems."""
    if isinstance(document, Report):
        if document.problems:
            raise DocumentError(document.problems)
        return document
    if isinstance(document, Document):
        document = document.model_dump(mode="json", exclude_unset=True)
    return load_document(document, frozen=frozen)


def document_paths(document: Any, *, frozen: Iterable[str] = ()) -> list[PathRef]:
    """Every path reference of the document, in document order, with where it is."""
    return list(report_of(document, frozen=frozen).refs)


def rendered_paths(blocks: Any, *, frozen: Iterable[str] = ()) -> list[PathRef]:
    """The path references of blocks rendered at run time (a ui ``render`` event's blocks),
    checked like a document's blocks (:class:`DocumentError` when they have problems)."""
    report = check_blocks(blocks, frozen=frozen)
    if report.problems:
        raise DocumentError(report.problems)
    return list(report.refs)


def projection_paths(document: Any, *, frozen: Iterable[str] = (), rendered: Iterable[Any] = ()) -> list[str]:
    """The document's projection paths, each once, first occurrence first; ``rendered``:
    lists of blocks rendered at run time (each a render event's ``blocks``)."""
    paths = [ref.path for ref in document_paths(document, frozen=frozen)]
    for blocks in rendered:
        paths.extend(ref.path for ref in rendered_paths(blocks, frozen=frozen))
    return list(dict.fromkeys(paths))


def html_paths(document: Any, *, frozen: Iterable[str] = ()) -> dict[str, list[str]]:
    """Each html block's own projection paths: its ``fields``, then its markup's paths."""
    return dict(report_of(document, frozen=frozen).html)


def project_document(document: Any, state: Any, *, frozen: Iterable[str] = (), rendered: Iterable[Any] = ()) -> dict:
    """The projected state a client of the document gets."""
    return project(state, projection_paths(document, frozen=frozen, rendered=rendered))


__all__ = ["document_paths", "rendered_paths", "projection_paths", "html_paths", "project_document", "report_of"]
