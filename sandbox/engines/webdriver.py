"""The W3C WebDriver driver: WebKitGTK's MiniBrowser through ``WebKitWebDriver`` (Selenium), on
an Xvfb display started when there is none. One MiniBrowser is one page; the session pools them.
WebDriver takes one call at a time and reports no events (docs/ENGINES.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import Recovered
from .base import HOLDER_ATTRIBUTE, Capability, DocumentReplaced, Engine, EngineError, Frame, Page, ScriptTimeout, Session

T = TypeVar("T")

#: Debian's WebKitGTK WebDriver (package webkit2gtk-driver).
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
#: Seconds a new MiniBrowser window's WebDriver session may take to start. Selenium waits on
#: that answer with no timeout of its own: a WebKitWebDriver whose MiniBrowser never came up
#: held its thread for good (measured once under load; it then kept asyncio.run from returning).
START_TIMEOUT = 60.0
#: WebDriver's page load strategy for every MiniBrowser: "none", so no command waits on
#: WebKitGTK's own record of a page's loads. That record can miss a load's end (a script call
#: right after a navigation then waited the whole page load timeout for a load already over,
#: and the next navigation hung: seen once in CI, 2.50.6): navigations wait for the new
#: document here instead (:func:`navigate`), and a script runs in the document it finds.
PAGE_LOAD_STRATEGY = "none"
#: Seconds one HTTP call to a WebDriver server may take. Selenium's default is no limit: a call
#: the server never answered held its thread for good. Longer than any script's time limit.
HTTP_TIMEOUT = 120.0


class CallStalled(ScriptTimeout):
    """A WebDriver call that did not come back within its time limit (the message says what it
    was waiting on); the thread that made it ends with the call's HTTP limit (:data:`HTTP_TIMEOUT`)."""


class Xvfb:
    """The virtual display every WebDriver browser of this process starts on (one at a time: a
    display that stops answering is replaced, :meth:`replace`)."""

    _lock = threading.Lock()
    _proc: subprocess.Popen | None = None
    _display: str | None = None

    @classmethod
    def display(cls) -> str:
        if os.environ.get("DISPLAY"):
            return os.environ["DISPLAY"]
        with cls._lock:
            if cls._display is None:
                cls._start()
            assert cls._display is not None
            return cls._display

    @classmethod
    def _start(cls) -> None:
        if not shutil.which("Xvfb"):
            raise EngineError("webkit: no DISPLAY and no Xvfb (install the xvfb package)")
        read, write = os.pipe()
        proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            pass_fds=(write,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            cls._stop(proc)
            raise EngineError("webkit: Xvfb did not start")
        import atexit

        atexit.register(cls._stop, proc)
        cls._proc, cls._display = proc, f":{number}"

    @staticmethod
    def _stop(proc: subprocess.Popen) -> None:
        """End an Xvfb and reap it (at exit: the display goes with the process that started it,
        and no process is left running under it, which Python warns of)."""
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    @classmethod
    def replace(cls, stale: str) -> str:
        """A new display in place of ``stale`` when that one is still ours (not the environment's),
        its Xvfb killed: the windows on it answer nothing anyway, and once their display is gone
        they end instead of waiting. The display new windows start on is returned."""
        with cls._lock:
            if cls._display == stale and not os.environ.get("DISPLAY"):
                assert cls._proc is not None
                cls._proc.kill()
                cls._proc.wait()
                cls._start()
            return cls._display or stale

    @classmethod
    def server(cls) -> subprocess.Popen | None:
        """The Xvfb new windows start on (None on the environment's display)."""
        return None if os.environ.get("DISPLAY") else cls._proc

    @classmethod
    def is_current(cls, server: subprocess.Popen | None) -> bool:
        """Whether a window started on ``server`` (:meth:`server`) is on the display new windows
        start on. A replaced display's number can come back, so the Xvfb itself is compared."""
        return server is None or server is cls.server()

    @classmethod
    def state(cls) -> str:
        """Whether this process's Xvfb answers an X connection's set-up, and what it does (an
        environment's display is not ours to judge)."""
        if os.environ.get("DISPLAY"):
            return f"display {os.environ['DISPLAY']} (the environment's)"
        if cls._display is None or cls._proc is None:
            return "no display started"
        answer = "answers" if x_display_answers(cls._display) else "does not answer"
        return f"display {cls._display} {answer}, {process_states(cls._proc.pid)}"


#: Seconds an X server may take to answer a connection's set-up before it counts as not answering.
X_ANSWER_TIMEOUT = 2.0


def x_display_answers(display: str, timeout: float = X_ANSWER_TIMEOUT) -> bool:
    """Whether the X server of a local ``display`` (":N") answers a connection's set-up in time:
    the 12-byte request of the X11 protocol, no authorisation (Xvfb's local clients need none),
    and the first byte of its reply (1 accepted, 0 refused, 2 asks for authorisation: either way
    it answered). A server that holds a grab for a stuck client, or is stuck, sends nothing."""
    import socket
    import struct

    number = display.lstrip(":").split(".")[0]
    if not number.isdigit():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(f"/tmp/.X11-unix/X{number}")
            conn.sendall(struct.pack("<BxHHHHxx", ord("l"), 11, 0, 0, 0))
            return len(conn.recv(8)) > 0
    except OSError:  # no such socket, refused, or no answer within the timeout (socket.timeout is an OSError)
        return False


def url_answers(url: str, timeout: float = X_ANSWER_TIMEOUT, proxy: str | None = None) -> str:
    """Whether the server of an http(s) ``url`` answers a GET of it within ``timeout`` s, asked as
    the window asks: through its ``proxy`` when it has one (the review's host names resolve only
    there). Said in words for a stall report (its status, or how it failed)."""
    import urllib.error
    import urllib.request

    if not url.startswith(("http://", "https://")):
        return f"{url[:40]}: not an http URL"
    import ssl

    # The harness's servers have certificates of their own (verify's, the review's host): whether
    # the server answers is the question, not whether its certificate is trusted.
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    proxies = {"http": proxy, "https": proxy} if proxy else {}
    opener = urllib.request.build_opener(urllib.request.ProxyHandler(proxies), urllib.request.HTTPSHandler(context=context))
    started = time.monotonic()
    try:
        with opener.open(url, timeout=timeout) as answer:
            return f"the page's server answers (HTTP {answer.status} in {time.monotonic() - started:.1f}s)"
    except urllib.error.HTTPError as exc:
        return f"the page's server answers (HTTP {exc.code} in {time.monotonic() - started:.1f}s)"
    except (OSError, ValueError) as exc:  # refused, reset, or no answer in time (a timeout is an OSError)
        return f"the page's server does not answer: {type(exc).__name__}: {str(exc)[:80]}"


def _in_own_thread(fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """``fn(*args)`` in a thread of its own, not the loop's executor (whose threads a stall may hold)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def run() -> None:
        try:
            result = fn(*args)
        except BaseException as exc:  # handed to the awaiting coroutine, which reports it
            loop.call_soon_threadsafe(future.set_exception, exc)
        else:
            loop.call_soon_threadsafe(future.set_result, result)

    threading.Thread(target=run, name="flowui-probe", daemon=True).start()
    return future


_WD_WRAPPER = """
const done = arguments[arguments.length - 1];
const arg = JSON.parse(arguments[0]);
let fn;
try { fn = (%s); } catch (e) { done({__err: 'SyntaxError: ' + e.message}); }
Promise.resolve().then(() => fn(arg)).then(
  (v) => { try { done({__ok: v === undefined ? null : JSON.parse(JSON.stringify(v === undefined ? null : v))}); } catch (e) { done({__err: 'unserialisable result: ' + e}); } },
  (e) => done({__err: (e && e.name ? e.name + ': ' : '') + (e && e.message !== undefined ? e.message : String(e))}));
"""


#: What the WebDriver driver can do: no events (a page looks after the fact), one call at a time,
#: no script before the page's own, no clock, no launch flags, the window's size and state.
CAPABILITIES = frozenset({Capability.TYPING, Capability.SCREENSHOT, Capability.RESIZE, Capability.WINDOW_STATE,
                          Capability.WEBDRIVER_ACTIONS})

#: ``Page.press``'s key names as WebDriver's key codes (selenium's ``Keys`` attribute names).
_KEYS = {"Tab": "TAB", "Enter": "ENTER", "Escape": "ESCAPE", "Space": "SPACE", "End": "END", "Home": "HOME",
         "Backspace": "BACKSPACE", "Delete": "DELETE", "ArrowLeft": "ARROW_LEFT", "ArrowRight": "ARROW_RIGHT",
         "ArrowUp": "ARROW_UP", "ArrowDown": "ARROW_DOWN", "Control": "CONTROL", "Shift": "SHIFT", "Alt": "ALT", "Meta": "META"}


class WebDriverPage(Page):
    """A WebDriver session is one window: one page per session, so pages never share state."""

    capabilities = CAPABILITIES
    _session: WebDriverSession  # the pool the page returns to; set by the session that made it

    def __init__(self, engine: Engine, driver: Any):
        self.engine = engine
        self.capabilities = WebDriverSession.capabilities_for(engine)
        self.raw = driver
        self._lock = asyncio.Lock()
        self.visited = False  # a navigation done: from then on the window holds the caller's state
        self.window_size: tuple[int, int] | None = None  # new_page's options["window"], for a fresh window

    async def _call(self, fn, *args, timeout: float):
        async with self._lock:
            started: list[float] = []

            def run():
                started.append(time.monotonic())
                return fn(*args)

            try:
                return await asyncio.wait_for(asyncio.to_thread(run), timeout + 5)
            except TimeoutError:
                raise CallStalled(f"{self.engine.name}: WebDriver call timed out after {timeout}s "
                                  f"({stall_report(self.raw, started)})") from None

    async def goto(self, url: str, timeout: float = 15) -> None:
        try:
            self._asked_again(url, await self._call(navigate, self.raw, url, timeout, timeout=timeout))
        except ScriptTimeout as first:
            if self.visited:
                raise
            # A page's first navigation whose WebDriver call never came back, or whose window stayed
            # on about:blank (WebKitGTK, the editor's tests, in full CI runs only): the window holds
            # nothing of its caller's yet, so once more in a fresh one.
            # Whether the page's server answers, asked from a thread of its own (the loop's may all be
            # taken): a window waits on its page's server as much as on WebKit's processes.
            served = await _in_own_thread(url_answers, url, X_ANSWER_TIMEOUT, getattr(self.raw, "flowui_proxy", None))
            try:
                where = await self._fresh_window()
                await self._call(navigate, self.raw, url, timeout, timeout=timeout)
            except EngineError as again:
                raise type(first)(f"{first}; {served}; in a fresh window: {again}") from None
            warnings.warn(Recovered(f"{first}; {served}; done again in a fresh window, {where}"), stacklevel=1)
        self.visited = True

    def _asked_again(self, url: str, asked: Asked) -> None:
        """Say (:class:`Recovered`) that a navigation to ``url`` got there by asking again (``asked``)."""
        if asked.reads:
            warnings.warn(Recovered(f"{self.engine.name}: {url[:200]}: {asked.reads} read(s) of the document during its "
                                    f"navigation went unanswered for {NAVIGATE_READ_ANSWER:g}s; asked again, answered"),
                          stacklevel=2)
        if asked.navigations:
            warnings.warn(Recovered(f"{self.engine.name}: {url[:200]}: the window kept the old document "
                                    f"{NAVIGATE_ASK_AGAIN:g}s after the navigation; asked for again, it came"),
                          stacklevel=2)

    async def _fresh_window(self) -> str:
        """Replace this page's MiniBrowser by a new one started as it was (proxy, environment, size),
        on a new display when its own no longer answers (then every window on that one goes).
        Returns which display the new window is on, and why."""
        proxy, env = getattr(self.raw, "flowui_proxy", None), getattr(self.raw, "flowui_env", {})
        display, server = getattr(self.raw, "flowui_display", None), getattr(self.raw, "flowui_xvfb", None)
        await self.abandon()
        where = f"on the same display {display} (it answers)" if display else "on the display the session was given"
        if display and server is not None and not await asyncio.to_thread(x_display_answers, display):
            where = f"on a new display {await asyncio.to_thread(Xvfb.replace, display)} ({display} did not answer)"
        self.raw = await self._session._new_window(proxy, env, self.window_size)
        return where

    def _in_frame(self, frame: Frame | None, action):
        from selenium.common.exceptions import NoSuchElementException, NoSuchFrameException, NoSuchWindowException, WebDriverException

        if frame is None:
            return action()
        try:
            webdriver_enter_frame(self.raw, frame)
        except (NoSuchElementException, NoSuchFrameException, NoSuchWindowException):
            # A frame discarded under an earlier call can leave WebKitWebDriver's context dangling
            # (default_content then leads nowhere): from the window, once more.
            self._to_window()
            webdriver_enter_frame(self.raw, frame)
        try:
            return action()
        except Exception:
            with contextlib.suppress(WebDriverException):  # the action's error is the one to report
                self._to_window()
            raise
        finally:
            # Not the window as well: in WebKitGTK that takes the focus from the frame just clicked.
            self._to_top()

    def _to_top(self) -> None:
        from selenium.common.exceptions import WebDriverException

        try:
            self.raw.switch_to.default_content()
        except WebDriverException:  # the frame was discarded under the call: the window is reachable
            self._to_window()

    def _to_window(self) -> None:
        self.raw.switch_to.window(self.raw.current_window_handle)

    async def evaluate(self, script: str, arg: Any = None, *, frame: Frame | None = None, timeout: float = 10) -> Any:
        def run():
            self.raw.set_script_timeout(timeout)
            return self._in_frame(frame, lambda: self.raw.execute_async_script(_WD_WRAPPER % script, json.dumps(arg)))

        try:
            result = await self._call(run, timeout=timeout)
        except EngineError:
            raise
        except Exception as exc:
            # WebKitWebDriver's words for a document replaced under the script: a navigation of the
            # top document ("... before the unload event") or of the frame it ran in.
            if any(words in str(exc) for words in ("Could not parse script result", "Callback was not called before the unload event")):
                raise DocumentReplaced(f"{self.engine.name}: the document the script ran in was replaced before it finished "
                                       f"(a navigation): {script[:120]!r}") from None
            raise EngineError(f"{self.engine.name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from exc
        if isinstance(result, dict) and "__err" in result:
            raise EngineError(f"{self.engine.name}: script failed: {result['__err']}")
        return result.get("__ok") if isinstance(result, dict) else result

    async def click(self, selector: str, *, frame: Frame | None = None, timeout: float = 10) -> None:
        from selenium.webdriver.common.by import By

        def run():
            return self._in_frame(frame, lambda: self.raw.find_element(By.CSS_SELECTOR, selector).click())

        await self._call(run, timeout=timeout)

    async def press(self, key: str, *, timeout: float = 10) -> None:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        *modifiers, last = key.split("+") if len(key) > 1 else [key]
        code = [getattr(Keys, _KEYS.get(k, ""), k) for k in (*modifiers, last)]
        if not modifiers:
            await self._call(lambda: ActionChains(self.raw).send_keys(code[0]).perform(), timeout=timeout)
            return
        # A chord as element input, its modifiers released by NULL (see _focused).
        await self._call(lambda: self._focused().send_keys("".join(code) + Keys.NULL), timeout=timeout)

    def _focused(self) -> Any:
        """The top document's focused element, for element input. Not key actions: WebKitGTK sends
        those to the frame the driver last entered, and switch_to.default_content alone leaves them
        there (a preview frame the editor dropped meanwhile: nowhere); the window switch brings them
        back (and takes the focus from a frame, so a single key still goes by actions)."""
        self._to_window()
        return self.raw.switch_to.active_element

    async def leave(self, url: str, timeout: float = 15) -> None:
        from selenium.common.exceptions import NoAlertPresentException, UnexpectedAlertPresentException

        driver = self.raw

        def run() -> Asked:
            asked = Asked()
            try:
                asked += navigate(driver, url, timeout)
            except UnexpectedAlertPresentException:  # the page asked: answered below
                pass
            try:
                driver.switch_to.alert.accept()
            except NoAlertPresentException:
                pass
            if driver.current_url != url:
                asked += navigate(driver, url, timeout)
            return asked

        self._asked_again(url, await self._call(run, timeout=timeout * 2))

    async def type_text(self, text: str) -> None:
        await self._call(lambda: self._focused().send_keys(text), timeout=10 + len(text) / 10)

    reports_downloads = False

    # ------------------------------------------------------------------ capabilities

    async def screenshot(self, clip: dict[str, float] | None = None, *, timeout: float = 10) -> bytes:
        # WebDriver shoots the window (its viewport): no clip.
        return await self._call(self.raw.get_screenshot_as_png, timeout=timeout)

    async def resize(self, width: int, height: int, *, timeout: float = 10) -> None:
        await self._call(self.raw.set_window_size, width, height, timeout=timeout)

    async def minimise(self, *, timeout: float = 10) -> None:
        await self._call(self.raw.minimize_window, timeout=timeout)

    async def restore(self, width: int, height: int, *, timeout: float = 10) -> None:
        await self._call(lambda: self.raw.set_window_rect(x=0, y=0, width=width, height=height), timeout=timeout)

    async def driver_call(self, fn: Callable[[Any], T], *, timeout: float) -> T:
        return await self._call(fn, self.raw, timeout=timeout)

    async def look(self, url: str) -> None:
        watch = self.watching if hasattr(self, "watching") else self.watch()
        driver = self.raw

        def look() -> None:
            try:
                alert = driver.switch_to.alert
                watch.dialogs.append(f"alert: {alert.text[:200]}")
                alert.dismiss()
            except Exception:  # no alert open (NoAlertPresentException), or one gone meanwhile
                pass
            handles = driver.window_handles
            if len(handles) > 1:
                watch.popups.append(f"{len(handles) - 1} new window(s)")
            try:
                current = driver.current_url
            except Exception as exc:
                current = f"(unreadable: {type(exc).__name__})"
            if current.split("#")[0] != url.split("#")[0]:
                watch.navigations.append(f"top: {current[:300]}")

        await asyncio.to_thread(look)

    async def close(self) -> None:
        await self._session._release(self)

    async def abandon(self) -> None:
        # A hung MiniBrowser answers no WebDriver call: kill its WebKitWebDriver, the browser and
        # their children by process id, and drop it from the pool.
        driver = self.raw
        if driver in self._session._all:
            self._session._all.remove(driver)
        process = getattr(getattr(driver, "service", None), "process", None)
        if process is not None:
            await asyncio.to_thread(kill_tree, process.pid)
            try:
                await asyncio.to_thread(process.wait, 5)  # reap it: no zombie left behind
            except Exception:  # killed but not reaped within 5 s: the process table keeps it, nothing else
                pass


#: The top document's identity and state: a new document has another time origin.
_DOCUMENT = "return [performance.timeOrigin, document.readyState, location.href]"
#: Seconds one read of the document may take while a navigation waits (scripts set their own after).
NAVIGATE_READ_TIMEOUT = 2
#: A read of the document that got no answer (:data:`NAVIGATE_READ_ANSWER`).
_UNANSWERED = object()
#: Seconds the answer to one such read may take to come back over HTTP. WebKitWebDriver sometimes
#: never answers a script call made while a new document commits, whatever the script's own time
#: limit: the call then held the navigation until its page's time was up (6 of 295 navigations
#: between the editor's page and another site, under load; 0 of 300 with this bound asking again:
#: ``bench/webkit_navigations.py``, docs/ENGINES.md). Longer than :data:`NAVIGATE_READ_TIMEOUT`,
#: so a script that ran out of its time still comes back as an answer.
NAVIGATE_READ_ANSWER = 4.0
#: Seconds a window may keep showing the old document, loaded, its reads answered, before the
#: navigation is asked for once more. WebKitGTK sometimes drops a navigation so (the window still
#: on the old document 15 s later: 1 of 119 navigations of ``bench/webkit_navigations.py``, under load).
NAVIGATE_ASK_AGAIN = 5.0


@dataclass(frozen=True)
class Asked:
    """What a navigation (:func:`navigate`) had to ask again to get there: reads of the document
    that got no answer, and the navigation itself when the window kept the old document."""

    reads: int = 0
    navigations: int = 0

    def __add__(self, other: Asked) -> Asked:
        return Asked(self.reads + other.reads, self.navigations + other.navigations)


def navigate(driver: Any, url: str, timeout: float) -> Asked:
    """``driver.get(url)``, then wait until a new top document has loaded (readyState
    ``complete``): what WebDriver's "normal" strategy waits for, read from the page itself
    (:data:`PAGE_LOAD_STRATEGY`). A fragment-only change of the URL keeps its document. A dialog
    that holds the load ends the wait (as WebDriver's own does); the next call meets the dialog.
    Blocking: runs in a thread. Past ``timeout``: :class:`ScriptTimeout`. Returns what was asked
    again (:class:`Asked`): reads that went unanswered (:data:`NAVIGATE_READ_ANSWER`), the
    navigation when the window kept the old document (:data:`NAVIGATE_ASK_AGAIN`), for the caller to say."""
    from selenium.common.exceptions import UnexpectedAlertPresentException, WebDriverException

    deadline = time.monotonic() + timeout
    unanswered = 0

    def read() -> Any:
        """The document's :data:`_DOCUMENT`; None: no document to read; :data:`_UNANSWERED`: no
        answer in time."""
        nonlocal unanswered
        from urllib3.exceptions import ReadTimeoutError

        config = driver.command_executor.client_config
        bound, config.timeout = config.timeout, NAVIGATE_READ_ANSWER  # this driver's own; one call at a time (the page's lock)
        try:
            return driver.execute_script(_DOCUMENT)
        except UnexpectedAlertPresentException:
            raise
        except WebDriverException:  # the old document went while the script ran (or none yet): ask the new one
            return None
        except ReadTimeoutError:
            unanswered += 1
            return _UNANSWERED
        finally:
            config.timeout = bound

    # Each read bounded by its script's time limit too: a script that meets the new document's
    # commit may wait on it; past the bound it is asked again.
    driver.set_script_timeout(NAVIGATE_READ_TIMEOUT)
    # Asked until answered: without a reading from before, any loaded document but about:blank
    # would pass for the new one, the old one included.
    before = read()
    while before is _UNANSWERED and time.monotonic() < deadline:
        before = read()
    if before is _UNANSWERED:
        raise ScriptTimeout(f"webkit: {url[:200]}: the window's document was not read within {timeout:g}s ({unanswered} reads unanswered)")
    driver.get(url)
    asked_at, navigations = time.monotonic(), 0
    same_document = before is not None and "#" in url and url.split("#")[0] == str(before[2]).split("#")[0]
    while True:
        try:
            now = read()
        except UnexpectedAlertPresentException:
            return Asked(unanswered, navigations)
        if now is _UNANSWERED:
            now = None
        if now is not None and now[1] == "complete" and (same_document or _new_document(before, now, url)):
            return Asked(unanswered, navigations)
        if (not navigations and not same_document and before is not None and now is not None and now[0] == before[0]
                and time.monotonic() - asked_at >= NAVIGATE_ASK_AGAIN and deadline - time.monotonic() > 1):
            # The window still shows the old document, loaded and answering: the navigation was dropped.
            # Once: a page whose server is slow to answer also keeps the old document meanwhile.
            navigations += 1
            try:
                driver.get(url)
            except UnexpectedAlertPresentException:  # the old document opened a dialog since: as a read that meets one
                return Asked(unanswered, navigations)
        if time.monotonic() >= deadline:
            notes = (f"; {unanswered} reads unanswered" if unanswered else "") + ("; asked for again" if navigations else "")
            raise ScriptTimeout(f"webkit: {url[:200]} did not load within {timeout:g}s (last seen {now!r}{notes})")
        time.sleep(0.05)


def _new_document(before: Any, now: Any, url: str) -> bool:
    """Whether ``now`` (:data:`_DOCUMENT`) is the document a navigation to ``url`` brought: another
    document than ``before`` (None: that read failed), and not an ``about:blank`` unless that was
    asked for. A pooled window waits on ``about:blank``, and WebKitGTK can show a new, complete
    ``about:blank`` (another time origin) before the page asked for commits: CI saw a test's
    script run in such a document, the editor's page not yet come, with and without a reading
    from before."""
    if str(now[2]) == "about:blank" and url != "about:blank":
        return False
    return before is None or now[0] != before[0]


def webdriver_enter_frame(driver: Any, frame: Frame) -> None:
    """Switch a WebDriver session into the frame ``frame`` names (from the top document); into the
    block's frame where a selector names a host module's holder frame (:data:`HOLDER_ATTRIBUTE`)."""
    from selenium.webdriver.common.by import By

    if not frame:
        raise EngineError("an empty frame path names no frame")
    for selector in (frame,) if isinstance(frame, str) else frame:
        element = driver.find_element(By.CSS_SELECTOR, selector)
        holder = element.get_attribute(HOLDER_ATTRIBUTE)
        driver.switch_to.frame(element)
        if holder:
            # By index: WebKitWebDriver finds no element in a frame's about:blank or srcdoc document.
            driver.switch_to.frame(0)


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (read from /proc), parents before their children."""

    def children(p: int) -> list[int]:
        found: list[int] = []
        for task in glob.glob(f"/proc/{p}/task/*/children"):
            try:
                with open(task) as f:
                    found += [int(c) for c in f.read().split()]
            except OSError:  # the process ended meanwhile: no children
                pass
        return found

    order: list[int] = []
    stack = [pid]
    while stack:
        p = stack.pop()
        order.append(p)
        stack += children(p)
    return order


def process_states(pid: int) -> str:
    """What ``pid`` and its descendants are doing, from /proc: ``name state cpu-seconds`` each
    (state R runs, S sleeps, D waits on a device, Z ended), for a report of a stalled browser."""
    tick = os.sysconf("SC_CLK_TCK")
    seen = []
    for p in process_tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        seen.append(f"{name} {rest[0]} {(int(rest[11]) + int(rest[12])) / tick:.1f}s")
    return ", ".join(seen) or f"process {pid} gone"


def stall_report(driver: Any, started: list[float]) -> str:
    """Why a WebDriver call did not come back: it never started (no thread free), or the command
    its driver still waits on, and what the driver's processes are doing."""
    if not started:
        return "it never started: no thread of the loop was free"
    command = getattr(driver, "flowui_command", None)
    report = [f"{command[0]} unanswered for {time.monotonic() - command[1]:.1f}s" if command else "no WebDriver command in flight"]
    process = getattr(getattr(driver, "service", None), "process", None)
    if process is not None:
        report.append(process_states(process.pid))
    if getattr(driver, "flowui_display", None):  # its windows wait on the X server: does it answer?
        report.append(Xvfb.state())
    return "; ".join(report)


def prepare_driver(driver: Any, *, display: str | None = None) -> Any:
    """Bound each HTTP call of ``driver`` (:data:`HTTP_TIMEOUT`) and keep the command in flight
    (``driver.flowui_command``: name, start) and the X display its browser is on (a local one:
    ``driver.flowui_display``) for :func:`stall_report`."""
    driver.command_executor.client_config.timeout = HTTP_TIMEOUT
    driver.flowui_display = display
    execute = driver.execute

    def tracked(command: str, params: dict | None = None) -> Any:
        driver.flowui_command = (command, time.monotonic())
        try:
            return execute(command, params)
        finally:
            driver.flowui_command = None

    driver.execute = tracked
    return driver


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and its descendants (read from /proc), children first."""
    import signal

    order = process_tree(pid)
    for p in reversed(order):
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


class WebDriverSession(Session):
    """A pool of MiniBrowser windows: a closed page goes back to the pool after about:blank,
    since starting a MiniBrowser costs a second or two."""

    driver = "webdriver"
    capabilities = CAPABILITIES
    fresh_pages = False

    @classmethod
    async def start(cls, engine: Engine, *, args: list[str] | None = None, env: dict[str, str] | None = None,
                    prefs: dict[str, object] | None = None) -> Session:
        # No LAUNCH_OPTIONS: a MiniBrowser starts per page, with new_page's options.
        return cls(engine)

    def __init__(self, engine: Engine):
        self.engine = engine
        self._all: list[Any] = []
        self._idle: list[Any] = []

    async def warm(self, count: int) -> list[Page]:
        # One MiniBrowser at a time (starting them together thrashes 2 cores), straight back to the
        # pool: every run takes a window from it and gives it back (a WebDriver page is never reused).
        pages: list[Page] = []
        for _ in range(count):
            pages.append(await self.new_page())
        for page in pages:
            await page.close()
        return []

    #: The page class of this session's windows.
    page_class: type[WebDriverPage] = WebDriverPage

    def _environment(self, options: dict[str, Any] | None) -> dict[str, str]:
        """The environment a new MiniBrowser gets (``options["env"]``)."""
        return dict((options or {}).get("env") or {})

    def _start_window(self, proxy: str | None, env: dict[str, str]) -> Any:
        """A new MiniBrowser window (blocking: runs in a thread)."""
        return start_webkit_driver(self.engine, proxy, env)

    async def _unmatched(self, drivers: list[Any]) -> None:
        """Idle windows started with another proxy or environment: kept for a later page that asks for theirs."""

    async def new_page(self, *, proxy: str | None = None, options: dict[str, Any] | None = None) -> Page:
        # A MiniBrowser's proxy and environment are fixed when it starts: only one started with the same is reused.
        env = self._environment(options)
        await self._drop_replaced()
        idle = [d for d in self._idle if getattr(d, "flowui_proxy", None) == proxy and getattr(d, "flowui_env", {}) == env]
        await self._unmatched([d for d in self._idle if d not in idle])
        window = (options or {}).get("window")
        if idle:
            driver = idle[-1]
            self._idle.remove(driver)
            if window:
                await asyncio.to_thread(driver.set_window_size, *window)
        else:
            driver = await self._new_window(proxy, env, window)
        page = self.page_class(self.engine, driver)
        page._session = self
        page.window_size = tuple(window) if window else None
        return page

    async def _new_window(self, proxy: str | None, env: dict[str, str], window: Any) -> Any:
        """A MiniBrowser started with ``proxy`` and ``env``, in the pool, sized to ``window`` when given."""
        driver = await asyncio.wait_for(asyncio.to_thread(self._start_window, proxy, env), START_TIMEOUT + 5)
        driver.flowui_proxy, driver.flowui_env = proxy, env
        self._all.append(driver)
        if window:
            await asyncio.to_thread(driver.set_window_size, *window)
        return driver

    async def _release(self, page: WebDriverPage) -> None:
        driver = page.raw

        def blank() -> None:
            driver.switch_to.default_content()
            navigate(driver, "about:blank", 10)
            handles = driver.window_handles
            for extra in handles[1:]:  # windows a test opened
                driver.switch_to.window(extra)
                driver.close()
            driver.switch_to.window(handles[0])

        try:
            await page._call(blank, timeout=10)
        except Exception:  # a window that cannot go back to blank is not reused: whatever went wrong, it goes
            await page.abandon()
            return
        self._idle.append(driver)

    async def _drop_replaced(self) -> None:
        """Abandon the idle windows on a display replaced since (:meth:`Xvfb.replace`): they are gone with it."""
        for driver in [d for d in self._idle if not Xvfb.is_current(getattr(d, "flowui_xvfb", None))]:
            self._idle.remove(driver)
            page = self.page_class(self.engine, driver)
            page._session = self
            await page.abandon()

    async def close(self) -> None:
        for driver in self._all:
            await asyncio.to_thread(quit_quietly, driver)
        self._all.clear()
        self._idle.clear()


def quit_quietly(driver: Any) -> None:
    try:
        driver.quit()
    except Exception:  # a browser already gone: quitting it has nothing left to do
        pass


def start_webkit_driver(engine: Engine, proxy: str | None = None, environment: dict[str, str] | None = None):
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    display, server = Xvfb.display(), Xvfb.server()
    options = Options()
    assert engine.executable is not None  # WebKitGTK is found by its MiniBrowser's path
    options.binary_location = engine.executable
    options.add_argument("--automation")
    options.page_load_strategy = PAGE_LOAD_STRATEGY
    # As Playwright's ignore_https_errors: verify's HTTPS origins use a CA made at run time.
    options.accept_insecure_certs = True
    # MiniBrowser keeps its profile in $HOME; a fresh one per page keeps pages apart.
    env = {**os.environ, "DISPLAY": display, "HOME": tempfile.mkdtemp(prefix="flowui-webkit-")}
    if proxy:
        # MiniBrowser's own flag (WebKitGTK takes no proxy from WebDriver's capability): it proxies
        # loopback too. The environment's http_proxy would also reach WebKitWebDriver's own
        # connection to the browser, and no_proxy cannot spare that one alone.
        options.add_argument(f"--proxy={proxy}")
    env.update(environment or {})
    service = Service(executable_path=WEBKIT_DRIVER, env=env)
    # The session's start, bounded: past START_TIMEOUT the driver and whatever it started are
    # killed, and selenium's wait ends with the connection.
    late = threading.Event()

    def give_up() -> None:
        process = getattr(service, "process", None)
        if process is not None and process.poll() is None:
            late.set()
            kill_tree(process.pid)

    timer = threading.Timer(START_TIMEOUT, give_up)
    timer.daemon = True
    timer.start()
    try:
        driver = prepare_driver(webdriver.WebKitGTK(options=options, service=service), display=display)
        driver.flowui_xvfb = server
        return driver
    except Exception as exc:
        if late.is_set():
            raise EngineError(f"webkit: WebKitWebDriver did not start a session within {START_TIMEOUT:.0f} s") from exc
        raise EngineError(f"webkit: could not start WebKitWebDriver ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from exc
    finally:
        timer.cancel()


