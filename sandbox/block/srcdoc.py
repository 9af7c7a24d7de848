"""The block document (srcdoc), its iframe, a host page, and :func:`build_file` (what ``build`` does).

:func:`build_srcdoc` writes the document of docs/DESIGN.md, with no newline
between the parts::

    <!DOCTYPE html><html><head>
    <meta http-equiv="Content-Security-Policy" content="{policy.CSP}">
    <meta name="referrer" content="{policy.REFERRER_POLICY}">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <style id="flow-ui-theme">{Theme.to_css()}</style>
    <style id="flow-ui-base">[data-show]:not([data-flow-ui-shown]){display:none!important}</style>
    <script type="application/json" id="flow-ui-init">{init}</script>
    <script id="flow-ui-runtime">{bridge/flow-ui-runtime.js, verbatim}</script>
    </head><body>{source, verbatim}

``init`` is ``{"blockId", "paths", "fields", "state", "theme"}`` in that order,
serialised by :func:`flowui_sandbox.sandbox.block.jsonjs.script_json` (JSON.stringify, then
``< > & U+2028 U+2029`` as ``\\u`` escapes): ``paths`` are the markup paths
(extracted from the source unless given), ``fields`` the block's fields (in
the given order, duplicates dropped), ``state`` the projection of the state on
fields ∪ paths (:func:`flowui_sandbox.sandbox.block.projection.project`), ``theme`` the flat theme
(``Theme.to_json()``).

Inputs are checked first; a bad one raises a :class:`flowui_sandbox.sandbox.errors.UsageError`
subclass naming what and where (``theme.ThemeError`` for the theme):

* ``block_id`` matches :data:`BLOCK_ID_PATTERN`;
* ``source`` is a string without NUL (an attribute cannot carry it) or surrogate
  code points (not text), at most ``flowui_sandbox.sandbox.block.extract.MAX_SOURCE_BYTES`` of UTF-8;
* ``fields`` and ``paths`` are lists of valid paths (:mod:`flowui_sandbox.sandbox.block.paths`), none frozen;
* ``state`` is ``None`` or a JSON object by the rules of :mod:`flowui_sandbox.sandbox.block.jsonjs`
  (at most ``MAX_DEPTH`` levels deep), and the init JSON is at most
  :data:`MAX_INIT_CHARS` characters (code points);
* ``theme`` is ``None``, a flat theme object or a :class:`theme.Theme`; it is
  always re-validated, so no value can reach the CSS unchecked.

:func:`build_iframe` wraps the document in
``<iframe sandbox="allow-scripts" referrerpolicy="no-referrer" title="…" data-block-id="…" srcdoc="…"></iframe>``.
Attribute values are escaped as the HTML standard serialises them (``&`` ``&amp;``,
``"`` ``&quot;``, ``<`` ``&lt;``, ``>`` ``&gt;``, U+00A0 ``&nbsp;``) plus CR as
``&#13;``: the parser would turn a literal CR or CRLF into LF, and the escape
keeps the srcdoc exactly the document that was built.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from flowui_sandbox.bridge import runtime_source
from flowui_sandbox.bridge.grammar import BLOCK_ID_PATTERN
from flowui_sandbox.theme import Theme

from ..errors import OptionError, UsageError
from ..files import display_name, member_positions, parse_json, read_text, top_position, writable_output, write_output
from .extract import MAX_SOURCE_BYTES, ExtractionError, extract_paths
from .jsonjs import check_json, script_json
from .paths import parse_path_list, path_problem
from .policy import CSP, REFERRER_POLICY, SANDBOX
from .projection import project

#: Longest init JSON (the projection, paths, fields and theme) in characters (Unicode
#: code points; the host module counts the same way, not in UTF-16 units).
MAX_INIT_CHARS = 1_000_000
#: Hides ``data-show`` elements until the runtime has judged them (no flash before the first projection).
BASE_CSS = "[data-show]:not([data-flow-ui-shown]){display:none!important}"

_BLOCK_ID = re.compile(rf"(?:{BLOCK_ID_PATTERN})\Z")
_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")
_RUNTIME_UNSAFE = re.compile(r"</script|<script|<!--", re.IGNORECASE)
_ATTR_ESCAPES = str.maketrans({"&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;", "\u00a0": "&nbsp;", "\r": "&#13;"})


class GeneratorError(UsageError):
    """A bad input to the generator; the message names it."""


def escape_attribute(value: str) -> str:
    """An attribute value as the HTML standard serialises it (plus CR as ``&#13;``, see module doc)."""
    return value.translate(_ATTR_ESCAPES)


def check_block_id(block_id: object) -> str:
    if not isinstance(block_id, str) or not _BLOCK_ID.match(block_id):
        raise GeneratorError(
            f"block id {block_id!r} must be a letter followed by at most 63 letters, digits, '_' or '-' "
            f"({BLOCK_ID_PATTERN})"
        )
    return block_id


def check_text(text: object, what: str) -> str:
    """``text`` if it is a string an HTML document can carry, else :class:`GeneratorError` with line:column."""
    if not isinstance(text, str):
        raise GeneratorError(f"{what}: expected a string, got {type(text).__name__}")
    if (bad := _NOT_TEXT.search(text)) is not None:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        char = f"U+{ord(bad.group()):04X}"
        why = "a NUL character cannot be carried in an HTML attribute" if bad.group() == "\x00" else "a surrogate code point is not text"
        raise GeneratorError(f"{what} line {line} column {column}: {char}: {why}")
    return text


def check_paths(paths: object, what: str, frozen: Iterable[str] = ()) -> list[str]:
    """The valid paths of ``paths`` in order without duplicates; all problems in one :class:`GeneratorError`."""
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Iterable):
        raise GeneratorError(f"{what}: expected a list of paths, got {type(paths).__name__}")
    frozen = tuple(frozen)
    seen: dict[str, None] = {}
    problems = []
    for i, path in enumerate(paths):
        why = path_problem(path, frozen)
        if why is not None:
            problems.append(f"{what}[{i}] {path!r}: {why}")
        else:
            seen.setdefault(path)
    if problems:
        raise GeneratorError("; ".join(problems))
    return list(seen)


def check_state(state: object) -> dict:
    """The state as a dict (``None`` is ``{}``), or :class:`flowui_sandbox.sandbox.block.jsonjs.JSONValueError` naming where."""
    if state is None:
        return {}
    if not isinstance(state, dict):
        raise GeneratorError(f"state: expected a JSON object at the top, got {type(state).__name__}")
    check_json(state, "state")
    return state


def check_theme(theme: Mapping[str, Any] | Theme | None) -> Theme:
    """A validated :class:`Theme`; a ``Theme`` given is validated again (it may be built unchecked)."""
    if isinstance(theme, Theme):
        theme = theme.to_json()
    return Theme.parse(theme)


def _runtime() -> str:
    js = runtime_source()
    if (bad := _RUNTIME_UNSAFE.search(js)) or "\x00" in js:
        found = bad.group() if bad else "NUL"
        raise GeneratorError(f"bridge/flow-ui-runtime.js contains {found!r}, which would end its inline <script>")
    return js


def build_srcdoc(
    source: str,
    *,
    block_id: str,
    fields: Iterable[str] = (),
    state: Mapping[str, Any] | None = None,
    theme: Mapping[str, Any] | Theme | None = None,
    paths: Iterable[str] | None = None,
    frozen: Iterable[str] = (),
) -> str:
    """The block document (see the module doc). ``paths=None`` extracts them from ``source``."""
    check_block_id(block_id)
    check_text(source, "source")
    if (size := len(source.encode("utf-8"))) > MAX_SOURCE_BYTES:
        raise GeneratorError(f"source: {size} bytes of UTF-8; at most {MAX_SOURCE_BYTES} are accepted")
    frozen = tuple(frozen)
    fields = check_paths(fields, "fields", frozen)
    paths = extract_paths(source, frozen=frozen) if paths is None else check_paths(paths, "paths", frozen)
    state = check_state(state)
    theme = check_theme(theme)
    init = {
        "blockId": block_id,
        "paths": paths,
        "fields": fields,
        "state": project(state, [*fields, *paths]),
        "theme": theme.to_json(),
    }
    init_json = script_json(init, "init")
    if len(init_json) > MAX_INIT_CHARS:
        raise GeneratorError(
            f"state: the block's projection makes {len(init_json)} characters of JSON; at most {MAX_INIT_CHARS} are allowed"
        )
    return (
        "<!DOCTYPE html><html><head>"
        f'<meta http-equiv="Content-Security-Policy" content="{escape_attribute(CSP)}">'
        f'<meta name="referrer" content="{escape_attribute(REFERRER_POLICY)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<style id="flow-ui-theme">{theme.to_css()}</style>'
        f'<style id="flow-ui-base">{BASE_CSS}</style>'
        f'<script type="application/json" id="flow-ui-init">{init_json}</script>'
        f'<script id="flow-ui-runtime">{_runtime()}</script>'
        "</head><body>" + source
    )


def iframe_for(srcdoc: str, *, block_id: str, title: str | None = None) -> str:
    """The iframe element for a document already built."""
    check_block_id(block_id)
    check_text(srcdoc, "srcdoc")
    title = check_text(f"html block {block_id}" if title is None else title, "title")
    return (
        f'<iframe sandbox="{SANDBOX}" referrerpolicy="{REFERRER_POLICY}" title="{escape_attribute(title)}" '
        f'data-block-id="{block_id}" srcdoc="{escape_attribute(srcdoc)}"></iframe>'
    )


def build_iframe(source: str, *, block_id: str, title: str | None = None, **options: Any) -> str:
    """The ``<iframe>`` element showing the block; ``options`` are those of :func:`build_srcdoc`."""
    return iframe_for(build_srcdoc(source, block_id=block_id, **options), block_id=block_id, title=title)


def build_page(source: str, *, block_id: str, title: str | None = None, **options: Any) -> str:
    """A whole host page that mounts the block with the bridge's host module, and shows the bridge log.

    The page is one self-contained file (it works from ``file://``): the host module and every
    module it imports (``bridge/host/*.js``, ``contract.js``) are inlined as ``data:`` modules
    through an import map, so nothing is loaded from the network. Actions, value writes and URL requests are accepted and
    logged on the page, so an author can try every bridge call.

    The page has no CSP of its own on purpose: a srcdoc iframe inherits its
    parent's policy, and the block's fixed policy must be the one that applies.
    """
    theme = check_theme(options.get("theme"))
    srcdoc = build_srcdoc(source, block_id=block_id, **options)
    title = check_text(f"html block {block_id}" if title is None else title, "title")
    t = theme.tokens
    css = (
        f"html{{color-scheme:{theme.color_scheme}}}"
        f"body{{margin:0;padding:24px;background:{t['page-background']};color:{t['text']};font:16px system-ui,sans-serif}}"
        f"#block{{border:1px solid {t['border']};border-radius:{t['radius-md']};background:{t['surface']};overflow:hidden}}"
        f"h2{{font-size:14px;color:{t['muted']};margin:24px 0 8px}}"
        f"#log{{font:12px ui-monospace,monospace;margin:0;padding-left:20px;color:{t['muted']}}}"
    )
    config = {"srcdoc": srcdoc, "title": title}
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape_attribute(title)}</title><style>{css}</style>"
        f'<script type="importmap">{script_json({"imports": _inlined_host_modules()}, "import map")}</script>'
        f'<script type="application/json" id="flow-ui-page">{script_json(config, "page")}</script>'
        f"</head><body><main><div id=\"block\"></div><h2>Bridge log</h2><ol id=\"log\"></ol></main>"
        f'<script type="module">{_PAGE_SCRIPT}</script></body></html>'
    )


# The page's own script: mount the block, accept what it asks, log every bridge event with its
# data (a ui-action's fields and payload, the value written, the URL and the verdict), since
# that data is what an author previews the block for.
_PAGE_SCRIPT = (
    "import { mountHtmlBlock } from 'flowui-host';"
    "const config = JSON.parse(document.getElementById('flow-ui-page').textContent);"
    "const list = document.getElementById('log');"
    "const json = (v) => { const s = JSON.stringify(v === undefined ? null : v);"
    " return s.length > 4000 ? s.slice(0, 4000) + ` … (${s.length - 4000} more characters)` : s; };"
    "const data = (e) => { const d = e.detail; if (d === undefined) return '';"
    " if (e.code === 'action') return ` from ${d.source}: fields ${json(d.fields)}, payload ${json(d.payload)}`;"
    " if (e.code === 'value') return ` to ${json(d.value)}`;"
    " if (e.code === 'open-url') return ' (allowed by this page: a new tab, noopener, noreferrer)';"
    " return ` ${json(d)}`; };"
    "const show = (entry) => { const li = document.createElement('li');"
    " li.dataset.code = entry.code;"
    " li.textContent = `${entry.level} ${entry.code}: ${entry.message}${data(entry)}`; list.append(li); };"
    "window.flowUiHandle = mountHtmlBlock(document.getElementById('block'), {"
    " srcdoc: config.srcdoc, title: config.title, onLog: show,"
    " onAction: (action) => ({ received: action.action }), onValue: () => true, onOpenUrl: () => true });"
)


def _inlined_host_modules() -> dict[str, str]:
    """The import map entries: the host module and every module it imports, as data: URLs.

    A module loaded from a data: URL cannot resolve a relative import, so each module's relative
    specifiers (found by tree-sitter, never by pattern) are rewritten to the bare names the map
    gives the modules: ``flowui-host`` for ``bridge/flow-ui-host.js``, ``flowui-bridge/<path>``
    for the others (``bridge/contract.js``, ``bridge/host/*.js``).
    """
    import base64

    from flowui_sandbox.bridge import BRIDGE_DIR, HOST_MODULE_FILE

    def name(path) -> str:
        return "flowui-host" if path == HOST_MODULE_FILE else f"flowui-bridge/{path.relative_to(BRIDGE_DIR).as_posix()}"

    def data_url(js: str) -> str:
        return "data:text/javascript;base64," + base64.b64encode(js.encode("utf-8")).decode("ascii")

    entries: dict[str, str] = {}
    todo = [HOST_MODULE_FILE.resolve()]
    while todo:
        path = todo.pop()
        if name(path) in entries:
            continue
        code = path.read_bytes()
        out = bytearray(code)
        for start, end, specifier in sorted(_module_specifiers(code, path), reverse=True):
            target = (path.parent / specifier).resolve()
            if not specifier.startswith(("./", "../")) or not target.is_relative_to(BRIDGE_DIR) or not target.is_file():
                raise GeneratorError(f"{path}: the host page inlines only relative imports of bridge/ files, not {specifier!r}")
            out[start:end] = script_json(name(target), "import specifier").encode("utf-8")
            todo.append(target)
        entries[name(path)] = data_url(out.decode("utf-8"))
    return entries


def _module_specifiers(code: bytes, path) -> list[tuple[int, int, str]]:
    """The (start byte, end byte, specifier) of each string an import or export-from statement loads."""
    import tree_sitter_javascript
    from tree_sitter import Language, Parser

    tree = Parser(Language(tree_sitter_javascript.language())).parse(code)
    if tree.root_node.has_error:
        raise GeneratorError(f"{path}: does not parse as JavaScript")
    found = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in ("import_statement", "export_statement"):
            source = node.child_by_field_name("source")
            if source is not None:
                text = code[source.start_byte + 1 : source.end_byte - 1].decode("utf-8")
                found.append((source.start_byte, source.end_byte, text))
        elif node.type == "import" and node.parent is not None and node.parent.type != "import_statement":  # import(...), import.meta: nothing a data: URL could resolve
            raise GeneratorError(f"{path}:{node.start_point[0] + 1}: the host page cannot inline a dynamic import or import.meta")
        stack.extend(node.children)
    return found


# --- files (what the `build` command does) ----------------------------------------


def read_state(name: str) -> dict:
    """The state file ``name`` (``-``: standard input): a JSON object, every problem located."""
    text = read_text(name, limit=MAX_SOURCE_BYTES)
    name = display_name(name)
    state = parse_json(text, name)
    if not isinstance(state, dict):
        raise UsageError(f"{name}:{top_position(text)}: the state must be a JSON object, not {_json_type(state)}")
    return state


def state_beside(source: str) -> Path:
    """``NAME.state.json`` beside the block file ``NAME.html``: the state `review`, `edit` and the
    review corpus mount a block with when none is given."""
    path = Path(source)
    return path.with_name(path.stem + ".state.json")


def read_theme(name: str) -> Theme:
    """The flat theme file ``name``: each bad token reported on its own line at its key."""
    text = read_text(name, limit=MAX_SOURCE_BYTES)
    name = display_name(name)
    data = parse_json(text, name)
    if not isinstance(data, dict):
        raise UsageError(f"{name}:{top_position(text)}: the theme must be a JSON object, not {_json_type(data)}")
    keys = member_positions(text)
    problems = []
    for key, value in data.items():
        try:  # one key at a time, so each problem is reported at its own key
            Theme.parse({key: value})
        except ValueError as exc:
            problems.append(f"{name}:{keys.get(key, top_position(text))}: {exc}")
    if problems:
        raise UsageError("\n".join(problems))
    return check_theme(data)


def _json_type(value: object) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(type(value), "null")


def build_file(file: str, *, state: str | None = None, theme: str | None = None, fields: str = "", frozen: str = "",
               block_id: str = "block", page: bool = False, output: str | None = None) -> int:
    """What ``build`` does: the iframe element (``page``: a whole host page) of the block in
    ``file``, with the state and theme files, on stdout or in ``output``. ``fields`` and
    ``frozen`` are comma-separated path lists; a bad one is an :class:`OptionError`
    naming its option, a bad file a :class:`UsageError` naming the file."""
    # Each input is checked on its own first, so every error names the right file or option.
    try:
        check_block_id(block_id)
    except GeneratorError as exc:
        raise OptionError(f"--block-id: {exc}") from None
    frozen_paths, problems = parse_path_list(frozen, "--frozen", top_level=True)
    field_paths, more = parse_path_list(fields, "--fields", frozen=frozen_paths)
    if problems or more:
        raise OptionError("\n".join(problems + more))
    out = writable_output(output) if output else None
    state_value = read_state(state) if state else None
    theme_value = read_theme(theme) if theme else None
    source = read_text(file, limit=MAX_SOURCE_BYTES)
    try:
        paths = extract_paths(source, frozen=frozen_paths)
    except ExtractionError as exc:
        raise UsageError(str(ExtractionError(exc.problems, name=display_name(file)))) from None
    build = build_page if page else build_iframe
    try:
        html = build(source, block_id=block_id, fields=field_paths, state=state_value, theme=theme_value, frozen=frozen_paths, paths=paths)
    except ValueError as exc:  # UsageError and the theme's ThemeError are ValueErrors
        # What is left is the whole projection's size: it comes from the state.
        raise UsageError(f"{display_name(state or file)}: {exc}") from None
    if out:
        write_output(out, html + "\n")
    else:
        sys.stdout.write(html + "\n")
    return 0
