"""Start a browser that other machines drive: what each browser machine runs (docs/SCALE.md).

* chromium, firefox: a Playwright browser server (``playwright launch-server``,
  shipped with the Python package), with the executables and flags of
  docs/ENGINES.md; its ``ws://`` endpoint is printed on the first line;
* webkit: ``WebKitWebDriver --port=P`` (a W3C WebDriver endpoint; one session at a
  time), on an Xvfb display when there is none.

Each server's browser looks like a desktop user's, as a review's local browser does
(``sandbox/review/browser/persona.py``): a time zone drawn when the server starts (``TZ``), and
for Chromium a desktop screen and its own version's desktop Chrome user agent (launch flags).
These are the browser's for the server's life: a client cannot set them (docs/REVIEW-BROWSER.md,
"Remote browsers").

``flowui-sandbox browser-server ENGINE [--host H] [--port P]`` prints the endpoint
as ``ENGINE=URL``, ready for ``verify --remote``, and serves until interrupted.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass

from ..editor.command import MAX_PORT
from ..engines import CHROMIUM_ARGS, ENGINE_NAMES, FIREFOX_PREFS, EngineError, find_engines, kill_tree
from ..engines.webdriver import WEBKIT_DRIVER, Xvfb
from ..errors import OptionError


@dataclass
class BrowserServer:
    """A running browser server (a child process) and its endpoint."""

    engine: str
    url: str
    process: subprocess.Popen

    @property
    def spec(self) -> str:
        return f"{self.engine}={self.url}"

    def stop(self) -> None:
        """End the server and its browser (the whole process group: the Playwright server is Python, then Node, then the browser)."""
        self._signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self.process.wait(5)

    def kill(self) -> None:
        """End the server and its browser at once, as a lost machine would. The process tree, not
        only the group: Playwright starts a browser in a group of its own, and a Firefox whose
        driver died unannounced keeps running (its BiDi socket does not tell it)."""
        kill_tree(self.process.pid)
        self._signal(signal.SIGKILL)
        self.process.wait(10)

    def _signal(self, sig: int) -> None:
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            pass


def _free_port(host: str, port: int = 0) -> int:
    """``port`` (0: a free one) once a socket could listen on ``host`` at it; the address
    family is the host's (``::1`` is IPv6), a name that does not resolve or a port that is
    taken or out of range is an :class:`OptionError` naming the option."""
    if not 0 <= port <= MAX_PORT:
        raise OptionError(f"--port {port}: not a port number (0 to {MAX_PORT}; 0 for a free one)")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as s:
            s.bind(address)
            return s.getsockname()[1]
    except socket.gaierror as exc:
        raise OptionError(f"--host {host}: not an address or a name this machine resolves ({exc.strerror})") from None
    except OSError as exc:
        where = f"--host {host} --port {port}" if port else f"--host {host}"
        raise OptionError(f"{where}: cannot listen there ({exc.strerror or exc})") from None


def _persona():
    from ..review.browser.persona import Persona

    return Persona.draw()


def _playwright_config(engine: str, host: str, port: int, launch_args: list[str] | None = None) -> dict:
    found = {e.name: e for e in find_engines()}
    if engine not in found:
        raise EngineError(f"{engine}: not installed here (run `make setup`, see README)")
    config: dict = {"host": host, "port": port}
    executable = found[engine].executable
    if engine == "chromium":
        config["args"] = [*CHROMIUM_ARGS, *(launch_args or [])]
        if executable:
            config["executablePath"] = executable
    elif engine == "firefox" and executable:
        # Debian's Firefox ESR over WebDriver BiDi, as sandbox.engines launches it.
        config.update(executablePath=executable, channel="moz-firefox")
    return config


def start(engine: str, host: str = "127.0.0.1", port: int = 0, timeout: float = 60) -> BrowserServer:
    """Start a browser server for ``engine`` and wait until its endpoint answers."""
    if engine not in ENGINE_NAMES:
        raise OptionError(f"ENGINE {engine!r}: unknown engine; choose from {', '.join(ENGINE_NAMES)}")
    if engine == "webkit":
        return _start_webkit(host, port or _free_port(host), timeout)
    from ..review.browser.persona import browser_version

    persona = _persona()
    executable = next((e.executable for e in find_engines() if e.name == engine), None)
    version = browser_version(executable) if engine == "chromium" else ""
    config = _playwright_config(engine, host, port, persona.launch_args(engine, version))
    if engine == "firefox":
        config["firefoxUserPrefs"] = {**FIREFOX_PREFS, **persona.launch_prefs(engine)}
    folder = tempfile.mkdtemp(prefix="flowui-browser-server-")
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    log = open(os.path.join(folder, "stderr.log"), "w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "playwright", "launch-server", "--browser", engine, "--config", path],
        stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True, env={**os.environ, **persona.launch_env(engine)},
    )
    line = _first_line(process, timeout)
    if not line.startswith("ws://"):
        BrowserServer(engine, "", process).kill()
        log.seek(0)
        err = log.read().strip().splitlines()
        raise EngineError(f"{engine}: the Playwright browser server did not start: {line or (err[-1] if err else 'no output')}")
    return BrowserServer(engine, line, process)


def start_many(engines: list[str], host: str = "127.0.0.1", timeout: float = 120) -> list[BrowserServer]:
    """Start a server per name in ``engines`` (repeats make several), all at once; all or none."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, len(engines))) as pool:
        futures = [pool.submit(start, name, host, 0, timeout) for name in engines]
    started = [f.result() for f in futures if f.exception() is None]
    failures = [error for f in futures if (error := f.exception()) is not None]
    if failures:
        for server in started:
            server.stop()
        raise failures[0]
    return started


def _first_line(process: subprocess.Popen, timeout: float) -> str:
    import selectors

    stdout = process.stdout
    assert stdout is not None  # started with stdout=PIPE
    sel = selectors.DefaultSelector()
    sel.register(stdout, selectors.EVENT_READ)
    if not sel.select(timeout):
        return ""
    return (stdout.readline() or "").strip()


def _start_webkit(host: str, port: int, timeout: float) -> BrowserServer:
    if not os.access(WEBKIT_DRIVER, os.X_OK):
        raise EngineError(f"webkit: {WEBKIT_DRIVER} is missing (Debian package webkit2gtk-driver)")
    # MiniBrowser keeps its profile in $HOME: one home per driver keeps the drivers apart.
    env = {**os.environ, "DISPLAY": Xvfb.display(), "HOME": tempfile.mkdtemp(prefix="flowui-webkit-server-"),
           **_persona().webdriver_env()}  # the MiniBrowsers it starts inherit its time zone and language
    where = "all" if host == "0.0.0.0" else host
    process = subprocess.Popen(
        [WEBKIT_DRIVER, f"--port={port}", f"--host={where}"], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    url = f"http://{'127.0.0.1' if host == '0.0.0.0' else f'[{host}]' if ':' in host else host}:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise EngineError(f"webkit: WebKitWebDriver exited with status {process.returncode} (port {port} taken?)")
        try:
            with urllib.request.urlopen(url + "/status", timeout=2):
                return BrowserServer("webkit", url, process)
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise EngineError(f"webkit: WebKitWebDriver did not answer on {url} within {timeout:.0f} s")


# ------------------------------------------------- serving (what `browser-server` does)


def serve(engine: str, *, host: str = "127.0.0.1", port: int = 0) -> int:
    """What ``browser-server`` does: start the server, print ``ENGINE=URL`` and serve until
    it exits (its status) or Ctrl-C (0)."""
    _free_port(host, port)  # a bad --host or --port: one line now, not a browser's failure later
    try:
        server = start(engine, host, port)
    except EngineError as exc:
        raise OptionError(f"{engine}: {exc}") from None
    print(server.spec, flush=True)
    try:
        return server.process.wait()
    except KeyboardInterrupt:
        server.stop()
        return 0


__all__ = ["BrowserServer", "start", "start_many", "serve"]
