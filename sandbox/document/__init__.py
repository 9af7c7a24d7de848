"""The server's side of a Flow UI document: the model, save-time validation, projection
paths, state diffs as JSON Patch with their fan-out to html blocks, and ui-action checks.

See docs/DOCUMENT.md. One module per job:

* :mod:`.model`: pydantic models of the document and its JSON Schema;
* :mod:`.validate`: every problem of a document at once, located;
* :mod:`.projection`: the projection paths and the projected state;
* :mod:`.patch`: ``diff``, ``apply_patch``, ``fan_out``;
* :mod:`.action`: ui-action messages against the document and the page;
* :mod:`.pattern`: text input patterns, the ECMAScript subset both sides run (RE2 here);
* :mod:`.wire`: the A2A Parts both ways (downlink events, the upward Message), located errors;
* :mod:`.session`: one client's session: the Parts it gets, the Messages it may send;
* :mod:`.live`: a page server streaming one session to a browser (the end-to-end proof);
* :mod:`.command`: what the ``document`` and ``diff`` commands do (files in, report out).
"""

from .action import REASONS, ActionResult, Refusal, UiActionRefused, validate_ui_action
from .model import BLOCK_TYPES, DEFAULT_FROZEN_STATE_FIELDS, Document, document_schema
from .patch import PatchError, apply_patch, diff, fan_out
from .projection import document_paths, html_paths, project_document, projection_paths, rendered_paths
from .validate import DocumentError, PathRef, Problem, Report, check_blocks, check_document, load_document

__all__ = [
    "Document", "BLOCK_TYPES", "DEFAULT_FROZEN_STATE_FIELDS", "document_schema",
    "check_document", "check_blocks", "load_document", "Report", "Problem", "PathRef", "DocumentError",
    "document_paths", "rendered_paths", "projection_paths", "html_paths", "project_document",
    "diff", "apply_patch", "fan_out", "PatchError",
    "validate_ui_action", "ActionResult", "Refusal", "UiActionRefused", "REASONS",
]
