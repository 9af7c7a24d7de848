"""Find the browser engines on this machine, choose the driver of each, and launch them.

Three engines, each with the best driver available (see docs/ENGINES.md):

* Chromium: Playwright. Playwright's own build when installed, else Debian's
  ``/usr/bin/chromium`` (with the flags that keep it off the network).
* Firefox: Playwright. Playwright's own build when installed, else Debian's
  ``/usr/bin/firefox-esr`` over WebDriver BiDi (``channel="moz-firefox"``).
* WebKit: Playwright's own build when installed, else WebKitGTK's MiniBrowser
  driven by ``WebKitWebDriver`` over W3C WebDriver (Selenium), on an Xvfb
  display that we start when there is none.
"""

from __future__ import annotations

import glob
import json
import os

from .base import ENGINE_NAMES, Engine, EngineError, Session, Unsupported, driver_of
from .webdriver import WEBKIT_DRIVER

DEBIAN_CHROMIUM = "/usr/bin/chromium"
DEBIAN_FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_MINIBROWSER_GLOB = "/usr/lib/*/webkit2gtk-4.*/MiniBrowser"

#: The browser each engine launches from Playwright's folder: headless Chromium is the
#: headless shell (Playwright >= 1.49); older Playwright has no such entry and uses chromium.
_PLAYWRIGHT_BROWSERS = {"chromium": ("chromium-headless-shell", "chromium"), "firefox": ("firefox",), "webkit": ("webkit",)}


def playwright_browsers_dir() -> str:
    """Where Playwright keeps its browsers (``PLAYWRIGHT_BROWSERS_PATH`` as Playwright reads it)."""
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if root == "0":
        return os.path.join(_playwright_package_dir() or "", ".local-browsers")
    return os.path.abspath(root) if root else os.path.expanduser("~/.cache/ms-playwright")


def _playwright_package_dir() -> str | None:
    """The installed Playwright driver package (holding browsers.json), found without importing Playwright."""
    import importlib.util

    spec = importlib.util.find_spec("playwright")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "driver", "package")


def playwright_revisions() -> dict[str, list[str]]:
    """For each browser of the installed Playwright, the folder names it would launch from
    (``chromium_headless_shell-1187``; a platform override adds ``NAME_PLATFORM_special-REV``),
    read from its ``browsers.json``. Empty when Playwright or the file is missing or unreadable."""
    package = _playwright_package_dir()
    try:
        with open(os.path.join(package or "", "browsers.json"), encoding="utf-8") as f:
            browsers = json.load(f)["browsers"]
        folders: dict[str, list[str]] = {}
        for entry in browsers:
            name, prefix = entry["name"], entry["name"].replace("-", "_")
            folders[name] = [f"{prefix}-{entry['revision']}"] + [
                f"{prefix}_{platform}_special-{revision}" for platform, revision in (entry.get("revisionOverrides") or {}).items()
            ]
        return folders
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _playwright_builds() -> dict[str, bool]:
    """Which of Playwright's own browser builds are installed, in the revision the installed
    Playwright launches (no browser is started). A folder of another revision (left by an older
    or newer Playwright, or copied from elsewhere) or one whose download never completed does
    not count: Playwright would not launch it, and the Debian browser is used instead."""
    root = playwright_browsers_dir()
    revisions = playwright_revisions()
    found = {}
    for engine, names in _PLAYWRIGHT_BROWSERS.items():
        name = next((n for n in names if n in revisions), None)
        found[engine] = name is not None and any(
            os.path.isfile(os.path.join(root, folder, "INSTALLATION_COMPLETE")) for folder in revisions[name]
        )
    return found


def find_engines() -> list[Engine]:
    """Every engine found, in the order chromium, firefox, webkit."""
    builds = _playwright_builds()
    engines: list[Engine] = []
    if builds["chromium"]:
        engines.append(Engine("chromium", "playwright", None, "playwright"))
    elif os.access(DEBIAN_CHROMIUM, os.X_OK):
        engines.append(Engine("chromium", "playwright", DEBIAN_CHROMIUM, "debian"))
    if builds["firefox"]:
        engines.append(Engine("firefox", "playwright", None, "playwright"))
    elif os.access(DEBIAN_FIREFOX, os.X_OK):
        engines.append(Engine("firefox", "playwright", DEBIAN_FIREFOX, "debian"))
    minibrowser = sorted(glob.glob(WEBKIT_MINIBROWSER_GLOB))
    if builds["webkit"]:
        engines.append(Engine("webkit", "playwright", None, "playwright"))
    elif minibrowser and os.access(WEBKIT_DRIVER, os.X_OK):
        engines.append(Engine("webkit", "webdriver", minibrowser[-1], "debian"))
    return engines


def select_engines(names: list[str] | None = None) -> list[Engine]:
    """The engines to run: all found, or those named (an unknown or missing name is an error)."""
    found = find_engines()
    if not names:
        return found
    by_name = {e.name: e for e in found}
    chosen = []
    for name in names:
        if name not in ENGINE_NAMES:
            raise EngineError(f"unknown engine {name!r}; choose from {', '.join(ENGINE_NAMES)}")
        if name not in by_name:
            raise EngineError(f"engine {name!r} is not installed here (run `make setup`, see README)")
        chosen.append(by_name[name])
    return chosen


async def launch(engine: Engine, *, args: list[str] | None = None, env: dict[str, str] | None = None,
                 prefs: dict[str, object] | None = None) -> Session:
    """Start the engine's browser; close the returned session when done. ``args``: more command-line
    flags, ``env``: more environment, ``prefs``: Firefox's preferences, for a driver with LAUNCH_OPTIONS
    (the review's user agent, screen, time zone and pointer: what every frame of every renderer then
    has); ignored by the others."""
    from . import playwright, webdriver  # noqa: F401 (each registers its driver)

    driver = driver_of(engine)
    if driver is None:
        raise Unsupported(f"{engine.name}: no driver named {engine.driver!r}")
    return await driver.start(engine, args=args, env=env, prefs=prefs)


def engines_report(engines: list[Engine] | None = None) -> str:
    engines = find_engines() if engines is None else engines
    if not engines:
        return "no browser engine found (run `make setup`, see README)"
    missing = [n for n in ENGINE_NAMES if n not in {e.name for e in engines}]
    lines = [e.describe() for e in engines]
    lines += [f"{n:<9} not found" for n in missing]
    return "\n".join(lines)


__all__ = ["DEBIAN_CHROMIUM", "DEBIAN_FIREFOX", "WEBKIT_DRIVER", "WEBKIT_MINIBROWSER_GLOB", "playwright_browsers_dir",
           "playwright_revisions", "find_engines", "select_engines", "launch", "engines_report"]
