"""The ``edit`` command: ``flowui-sandbox edit [FILE] [--state F] [--fields a,b] [--theme F] [--port N] [--no-open]``.

Starts the editor server (:mod:`sandbox.editor.server`) on 127.0.0.1, prints the editor's
URL (with its token) as the first line, opens it in the user's browser unless ``--no-open``,
and serves until Ctrl-C (or SIGTERM), then closes cleanly with status 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import webbrowser
from pathlib import Path

from sandbox.errors import UsageError

# The server (and aiohttp) is imported only when the editor starts: every other command's start-up,
# and a refused `edit`, stay fast.

#: The starter block and its companions (README's demo uses the same fields).
STARTER_FILE = Path(__file__).resolve().parent.parent.parent / "examples" / "starter.html"
STARTER_STATE = STARTER_FILE.with_name("starter.state.json")
STARTER_FIELDS = ["order.items", "draft.email", "draft.agree"]


def add_cli(sub: argparse._SubParsersAction, command) -> None:
    p = sub.add_parser("edit", help="edit a block in the browser with a live sandboxed preview, bridge log and cheat sheet")
    p.add_argument("file", metavar="FILE", nargs="?", default="block.html",
                   help="the block's source (UTF-8 HTML); a file that does not exist starts from the starter (default: block.html)")
    p.add_argument("--state", metavar="F", help="a JSON file holding the test state (an object); default: FILE's NAME.state.json beside it, if any")
    p.add_argument("--fields", metavar="a,b", default=None, help="comma-separated paths the block's script reads or writes (default: none; the starter's for the starter)")
    p.add_argument("--theme", metavar="F", help="a JSON file holding a flat theme (color-scheme and token overrides)")
    p.add_argument("--block-id", metavar="ID", default="block", help="the block's id (default: block)")
    p.add_argument("--port", metavar="N", type=int, default=0, help="the port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-open", action="store_true", help="print the URL only; do not open a browser")
    command("edit")(_edit_command)


def _session(args: argparse.Namespace):
    from sandbox.extract import MAX_SOURCE_BYTES
    from sandbox.files import read_text
    from sandbox.generator import GeneratorError, _read_json, check_block_id, check_paths, check_state, check_theme
    from theme import ThemeError

    problems: list[str] = []
    file = Path(args.file)
    if file.is_dir():
        problems.append(f"{args.file}: is a directory, not a file")
    elif file.exists():
        try:
            read_text(args.file, limit=MAX_SOURCE_BYTES)
        except UsageError as exc:
            problems.append(str(exc))
    starting = not file.exists()

    def json_file(name: str | None, check, what: str):
        if name is None:
            return None
        try:
            value = _read_json(name)
            check(value)
            return value
        except UsageError as exc:
            problems.append(str(exc))
        except (GeneratorError, ThemeError, ValueError) as exc:
            problems.append(f"{name}:1:1: {what}: {exc}")
        return None

    state = json_file(args.state, check_state, "state")
    theme = json_file(args.theme, check_theme, "theme")
    is_starter = starting or (file.exists() and file.resolve() == STARTER_FILE.resolve())
    if args.fields is None:
        fields = list(STARTER_FIELDS) if is_starter else []
    else:
        fields = [] if args.fields.strip() == "" else [f.strip() for f in args.fields.split(",")]
        try:
            fields = check_paths(fields, "fields")
        except GeneratorError as exc:
            problems.append(f"--fields:1:1: {exc}")
    try:
        check_block_id(args.block_id)
    except GeneratorError as exc:
        problems.append(f"--block-id:1:1: {exc}")
    if not 0 <= args.port <= 65535:
        problems.append(f"--port:1:1: {args.port} is not a port (0 to 65535)")
    starter = ""
    if starting:
        try:
            starter = read_text(str(STARTER_FILE), limit=MAX_SOURCE_BYTES)
        except UsageError as exc:
            problems.append(str(exc))
    if args.state is None and not problems:
        # The state beside the file (block.html -> block.state.json), else the starter's for a new file.
        beside = file.with_name(file.stem + ".state.json")
        if beside.is_file():
            state = json_file(str(beside), check_state, "state")
        elif starting and STARTER_STATE.exists():
            state = json.loads(STARTER_STATE.read_text(encoding="utf-8"))
    if problems:
        raise UsageError("\n".join(problems))
    from .server import EditorSession

    return EditorSession(file=file.resolve(), state=state, fields=fields, theme=theme, block_id=args.block_id, starter=starter)


def _edit_command(args: argparse.Namespace) -> int:
    session = _session(args)
    return asyncio.run(_serve(session, port=args.port, open_browser=not args.no_open))


async def _serve(session, *, port: int, open_browser: bool) -> int:
    from .server import EditorServer

    server = EditorServer(session, port=port)
    try:
        await server.start()
    except OSError as exc:
        raise UsageError(f"--port:1:1: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    print(server.url, flush=True)
    print(f"editing {session.file}{' (new: the starter source until you save)' if not session.file.exists() else ''}; Ctrl-C stops", flush=True)
    if open_browser:
        webbrowser.open(server.url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - not on this platform
            pass
    try:
        await stop.wait()
    finally:
        await server.stop()
    print("editor stopped", file=sys.stderr, flush=True)
    return 0
