"""What ``flowui-sandbox edit [FILE] [--state F] [--fields a,b] [--theme F] [--port N] [--no-open]`` does.

:func:`edit` starts the editor server (:mod:`flowui_sandbox.sandbox.editor.server`) on 127.0.0.1, prints the editor's
URL (with its token) as the first line, opens it in the user's browser unless ``--no-open``
(through a private file, never the URL on the browser's command line:
:func:`~flowui_sandbox.sandbox.editor.private.write_opener`), and serves until Ctrl-C (or
SIGTERM), then closes cleanly with status 0.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import sys
import threading
import webbrowser
from pathlib import Path

from flowui_sandbox.sandbox.data import EXAMPLES_DIR
from flowui_sandbox.sandbox.errors import OptionError, UsageError

# The server (and aiohttp) is imported only when the editor starts: every other command's start-up,
# and a refused `edit`, stay fast.

#: The starter block and its companions (README's demo uses the same fields).
STARTER_FILE = EXAMPLES_DIR / "starter.html"
STARTER_STATE = STARTER_FILE.with_name("starter.state.json")
STARTER_FIELDS = ["order.items", "draft.email", "draft.agree"]
#: The largest TCP port number (``--port`` here and of ``browser-server``).
MAX_PORT = 65535


def editor_session(file: str = "block.html", *, state: str | None = None, fields: str | None = None, theme: str | None = None,
                   block_id: str = "block", port: int = 0):
    """The :class:`~flowui_sandbox.sandbox.editor.server.EditorSession` of these options, every input checked
    first: options (OptionError, one line each), then files (UsageError, one
    ``FILE:LINE:COL: message`` line per problem). ``fields`` (comma-separated) defaults to
    none, or the starter's for the starter; ``state`` to FILE's NAME.state.json beside it."""
    from flowui_sandbox.sandbox.block.extract import MAX_SOURCE_BYTES
    from flowui_sandbox.sandbox.block.paths import parse_path_list
    from flowui_sandbox.sandbox.block.srcdoc import GeneratorError, check_block_id, read_state, read_theme, state_beside
    from flowui_sandbox.sandbox.files import read_text

    path = Path(file)
    mode: int | None = None
    unreadable = None
    try:
        mode = os.stat(path).st_mode  # stat, never open: opening a FIFO waits for a writer
    except FileNotFoundError:
        pass
    except OSError as exc:
        unreadable = f"{file}: cannot read: {exc.strerror or exc}"
    starting = mode is None and unreadable is None
    is_starter = starting or path.resolve() == STARTER_FILE.resolve()
    options: list[str] = []
    try:
        check_block_id(block_id)
    except GeneratorError as exc:
        options.append(f"--block-id: {exc}")
    if not 0 <= port <= MAX_PORT:
        options.append(f"--port: {port} is not a port (0 to {MAX_PORT})")
    if fields is None:
        field_paths = list(STARTER_FIELDS) if is_starter else []
    else:
        field_paths, more = parse_path_list(fields, "--fields")
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

    if unreadable:
        problems.append(unreadable)
    elif mode is not None and stat.S_ISDIR(mode):
        problems.append(f"{file}: is a directory, not a file")
    elif mode is not None and not stat.S_ISREG(mode):
        # A FIFO or a pipe (edit <(cat block.html)) is read once; the editor reads its file again
        # and again, and saves to it.
        from .disk import not_a_file

        problems.append(f"{file}: {not_a_file(mode)}")
    elif not starting:
        read(lambda name: read_text(name, limit=MAX_SOURCE_BYTES), file)
    if state:
        state_value = read(read_state, state)
    else:
        # The state beside the file (block.html -> block.state.json), else the starter's for a new file.
        beside = state_beside(str(path))
        state_value = read(read_state, str(beside)) if beside.is_file() else (
            read(read_state, str(STARTER_STATE)) if starting and STARTER_STATE.is_file() else None)
    theme_value = read(read_theme, theme) if theme else None
    starter = read(lambda name: read_text(name, limit=MAX_SOURCE_BYTES), str(STARTER_FILE)) if starting else ""
    if problems:
        raise UsageError("\n".join(problems))
    from .server import EditorSession

    return EditorSession(file=path.resolve(), state=state_value, fields=field_paths,
                         theme=theme_value.to_json() if theme_value is not None else None, block_id=block_id, starter=starter or "")


def edit(file: str = "block.html", *, state: str | None = None, fields: str | None = None, theme: str | None = None,
         block_id: str = "block", port: int = 0, open_browser: bool = True) -> int:
    """Serve the editor on FILE until Ctrl-C or SIGTERM (then 0); the options as :func:`editor_session`'s."""
    session = editor_session(file, state=state, fields=fields, theme=theme, block_id=block_id, port=port)
    return asyncio.run(_serve(session, port=port, open_browser=open_browser))


async def _serve(session, *, port: int, open_browser: bool) -> int:
    from .private import write_opener
    from .server import CannotListen, EditorServer

    server = EditorServer(session, port=port)
    try:
        await server.start()
    except CannotListen as exc:
        raise OptionError(f"--port {port}: {exc}") from None
    except OSError as exc:  # an option's problem (the port is taken), not a file's: no FILE:LINE:COL
        raise OptionError(f"--port {port}: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    print(server.url, flush=True)
    print(f"editing {session.file}{' (new: the starter source until you save)' if not session.file.exists() else ''}; Ctrl-C stops", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - not on this platform
            pass
    opener: Path | None = None
    try:
        if open_browser:
            # The browser gets a file of the user's that sends it on to the URL: a browser's command
            # line (and xdg-open's) is readable by every local user, the token with it.
            try:
                opener = write_opener(server.url)
            except OSError as exc:
                print(f"not opened in a browser: no private folder for the page that opens it ({exc}); open the URL above",
                      file=sys.stderr, flush=True)
            else:
                # In a thread of its own, never waited for: a browser command may not return until
                # the browser exits.
                threading.Thread(target=webbrowser.open, args=(opener.as_uri(),), daemon=True).start()
        await stop.wait()
    finally:
        await server.stop()
        if opener is not None:
            opener.unlink(missing_ok=True)
    print("editor stopped", file=sys.stderr, flush=True)
    return 0
