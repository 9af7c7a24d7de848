"""The ``edit`` command: ``flowui-sandbox edit [FILE] [--state F] [--fields a,b] [--theme F] [--port N] [--no-open]``.

Starts the editor server (:mod:`sandbox.editor.server`) on 127.0.0.1, prints the editor's
URL (with its token) as the first line, opens it in the user's browser unless ``--no-open``,
and serves until Ctrl-C (or SIGTERM), then closes cleanly with status 0.
"""

from __future__ import annotations

import argparse
import asyncio
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
    """The session of the command line, every input checked first: options (OptionError, one
    line each), then files (UsageError, one ``FILE:LINE:COL: message`` line per problem)."""
    from sandbox.errors import OptionError
    from sandbox.extract import MAX_SOURCE_BYTES
    from sandbox.files import read_text
    from sandbox.generator import GeneratorError, check_block_id, read_state, read_theme
    from sandbox.paths import parse_path_list

    file = Path(args.file)
    starting = not file.exists()
    is_starter = starting or file.resolve() == STARTER_FILE.resolve()
    options: list[str] = []
    try:
        check_block_id(args.block_id)
    except GeneratorError as exc:
        options.append(f"--block-id: {exc}")
    if not 0 <= args.port <= 65535:
        options.append(f"--port: {args.port} is not a port (0 to 65535)")
    if args.fields is None:
        fields = list(STARTER_FIELDS) if is_starter else []
    else:
        fields, more = parse_path_list(args.fields, "--fields")
        options += more
    if options:
        raise OptionError("\n".join(options))

    problems: list[str] = []

    def read(reader, name: str):
        try:
            return reader(name)
        except UsageError as exc:
            problems.append(str(exc))
            return None

    if file.is_dir():
        problems.append(f"{args.file}: is a directory, not a file")
    elif not starting:
        read(lambda name: read_text(name, limit=MAX_SOURCE_BYTES), args.file)
    if args.state:
        state = read(read_state, args.state)
    else:
        # The state beside the file (block.html -> block.state.json), else the starter's for a new file.
        beside = file.with_name(file.stem + ".state.json")
        state = read(read_state, str(beside)) if beside.is_file() else (
            read(read_state, str(STARTER_STATE)) if starting and STARTER_STATE.is_file() else None)
    theme = read(read_theme, args.theme) if args.theme else None
    starter = read(lambda name: read_text(name, limit=MAX_SOURCE_BYTES), str(STARTER_FILE)) if starting else ""
    if problems:
        raise UsageError("\n".join(problems))
    from .server import EditorSession

    return EditorSession(file=file.resolve(), state=state, fields=fields, theme=theme.to_json() if theme is not None else None,
                         block_id=args.block_id, starter=starter or "")


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
