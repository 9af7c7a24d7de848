"""Who the review's pages look like: a desktop browser in a time zone and on a screen drawn per
run, never the automation defaults a block can test for (UTC, an 800x600 screen, a
``HeadlessChrome`` user agent). docs/REVIEW-BROWSER.md, "What a block can tell", says per engine
what the drivers let the review hide and what stays visible.
"""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass
from typing import Any

from ...engines import Capability

#: Time zones a desktop user is in (never UTC, a server's and a CI machine's).
TIME_ZONES = ("Europe/Berlin", "Europe/Paris", "Europe/Madrid", "Europe/Warsaw", "America/New_York",
              "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Toronto", "America/Sao_Paulo",
              "Asia/Tokyo", "Asia/Singapore", "Asia/Kolkata", "Australia/Sydney")
#: The screen of the WebDriver engines' virtual display (sandbox/engines/webdriver.py's Xvfb).
XVFB_SCREEN = (1280, 1024)
#: The language of the WebDriver engines' browser, by its environment. WebKitGTK takes its languages
#: from the environment: under a machine's C locale a block reads ``navigator.languages`` ``['C']``
#: and ICU's ``en-US-u-va-posix``, which no person's browser shows (measured); Playwright's browsers
#: say ``en-US`` already. (glibc need not have the locale: the names are read from the variables.)
LOCALE_ENV = {"LANG": "en_US.UTF-8", "LANGUAGE": "en_US:en"}
#: Firefox's pointer preferences for a mouse (bits: 2 fine, 4 hover).
FIREFOX_POINTER = {"ui.primaryPointerCapabilities": 6, "ui.allPointerCapabilities": 6}
#: The screen's edge a desktop's bars take and their height (CSS px): a task bar at the bottom
#: (Windows: 40, 48), a menu or top bar (macOS: 25, GNOME: 32). A headless screen has none: its
#: ``availHeight`` equals its ``height``, which no desktop shows.
BARS = (("Bottom", 40), ("Bottom", 48), ("Top", 25), ("Top", 32))
#: Common desktop screens (CSS px), none of them a headless browser's 800x600.
SCREENS = ((1920, 1080), (1536, 864), (1440, 900), (1366, 768), (1680, 1050), (2560, 1440), (1600, 900), (1280, 800))


@dataclass(frozen=True)
class Persona:
    """One run's browser: its time zone, screen and window (viewport) size."""

    time_zone: str
    screen: tuple[int, int]
    viewport: tuple[int, int]
    bar: tuple[str, int] = ("Bottom", 48)

    @classmethod
    def draw(cls, rng: random.Random | None = None) -> Persona:
        rng = rng or random.SystemRandom()
        width, height = rng.choice(SCREENS)
        # A maximised window: the screen less the task bar and the browser's own bars.
        return cls(rng.choice(TIME_ZONES), (width, height), (width - 8, height - rng.randrange(100, 150)), rng.choice(BARS))

    def launch_args(self, engine: str, version: str = "") -> list[str]:
        """Command-line flags of a Playwright-launched browser. Chromium's screen and user agent are
        set for the whole browser: a sandboxed block's frame runs out of process, and the context's
        emulation (``screen``, ``user_agent``) reached only the first such frame of a renderer
        (measured: the next blocks mounted in the same page read ``HeadlessChrome`` and 800x600). The
        screen has the persona's bar, so its ``availHeight`` (or ``availWidth``) is less than its size."""
        if engine != "chromium":
            return []
        edge, size = self.bar
        args = [f"--screen-info={{{self.screen[0]}x{self.screen[1]} workArea{edge}={size}}}"]
        if version:
            args.append(f"--user-agent={chrome_user_agent(version)}")
        return args

    def launch_env(self, engine: str) -> dict[str, str]:
        """The environment of a Playwright-launched browser: ``TZ``, which every renderer process
        reads (the context's ``timezone_id`` reached the block's frame only now and then in Chromium)."""
        return {"TZ": self.time_zone}

    def launch_prefs(self, engine: str) -> dict[str, object]:
        """Preferences of a Playwright-launched Firefox: its pointer is a mouse, fine and able to
        hover, as a desktop's (headless Firefox matches ``(pointer: none)`` and ``(hover: none)``,
        measured in a sandboxed frame; Chromium and WebKitGTK match ``fine`` and ``hover`` already)."""
        return dict(FIREFOX_POINTER) if engine == "firefox" else {}

    def webdriver_env(self) -> dict[str, str]:
        """The environment of a WebDriver engine's browser (a MiniBrowser): its time zone and language."""
        return {"TZ": self.time_zone, **LOCALE_ENV}

    def page_options(self, engine: str, capabilities: frozenset[Capability], version: str = "") -> dict[str, Any]:
        """:meth:`flowui_sandbox.sandbox.engines.Session.new_page`'s ``options`` for this persona, for a
        driver with ``capabilities``: the context's emulation where it has CONTEXT_EMULATION."""
        if Capability.CONTEXT_EMULATION not in capabilities:
            # WebKitGTK: the MiniBrowser's ICU reads TZ, its languages LANG; the window is sized by WebDriver
            # to fit the screen, which is Xvfb's (1280x1024, the same every run: sandbox/engines/webdriver.py starts it).
            return {"env": self.webdriver_env(), "window": (XVFB_SCREEN[0], XVFB_SCREEN[1] - (self.screen[1] - self.viewport[1]))}
        options: dict[str, Any] = {
            "timezone_id": self.time_zone,
            "viewport": {"width": self.viewport[0], "height": self.viewport[1]},
            "screen": {"width": self.screen[0], "height": self.screen[1]},
        }
        if engine == "chromium" and version:
            options["user_agent"] = chrome_user_agent(version)  # the host page's, as the flag's
        return options


def browser_version(executable: str | None) -> str:
    """``chromium --version``'s version number (``156.0.8078.114``), or "" when it cannot be read."""
    if not executable:
        return ""
    try:
        out = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return next((w for w in out.split() if w[:1].isdigit() and "." in w), "")


#: Parts of the host name a review's host page is served under (``https://crm.brightline-group.com/``).
_SUBDOMAINS = ("app", "portal", "crm", "ops", "desk", "my", "dashboard", "console", "hub", "work")
_FIRST = ("north", "bright", "blue", "silver", "oak", "harbor", "summit", "clear", "green", "red", "river", "stone")
_SECOND = ("wind", "line", "field", "gate", "point", "bridge", "path", "lake", "wave", "peak", "works", "ridge")
_SUFFIX = ("", "-group", "-labs", "-trading", "-systems", "-partners", "-logistics", "hq")
_TLDS = ("com", "io", "net", "de", "co.uk", "fr", "nl", "app", "eu", "com.au")
#: Paths of the host page (what ``location`` of an application page looks like, not "review").
PAGE_NAMES = ("orders", "inbox", "dashboard", "customers", "tickets", "home", "workspace", "reports")


def host_name(rng: random.Random | None = None) -> str:
    """A company application's host name, drawn per run: the review's host page is served under
    it (through the slot's proxy), so the origin the block can read (``location.ancestorOrigins``)
    is no loopback address."""
    rng = rng or random.SystemRandom()
    return f"{rng.choice(_SUBDOMAINS)}.{rng.choice(_FIRST)}{rng.choice(_SECOND)}{rng.choice(_SUFFIX)}.{rng.choice(_TLDS)}"


def chrome_user_agent(version: str) -> str:
    """The user agent of a desktop Chrome of ``version``'s major release on Linux, as Chrome sends it
    (minor parts reduced to zeros): headless Chromium says ``HeadlessChrome`` instead."""
    major = version.split(".")[0]
    return f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{major}.0.0.0 Safari/537.36"


__all__ = ["Persona", "chrome_user_agent", "browser_version", "host_name", "PAGE_NAMES", "TIME_ZONES", "SCREENS"]
