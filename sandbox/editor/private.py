"""The editor's private files, in folders only the user can enter (mode 0700, owned by the user):

* the page that opens the editor (:func:`write_opener`): the browser is given this file's
  ``file://`` URL, never the editor's URL, whose token a browser's command line would show to
  every local user (``/proc/PID/cmdline``, ``ps``); in ``$XDG_RUNTIME_DIR/flowui-sandbox``
  (else the cache folder), mode 0600, removed when the editor stops;
* the drafts' secret (:func:`draft_seal`): 32 random bytes in ``~/.cache/flowui-sandbox/drafts.key``
  (``$XDG_CACHE_HOME``), mode 0600, from which each edited file gets the key that seals its
  drafts in the browser's storage and the name they are kept under.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import os
import secrets
import stat
import tempfile
from pathlib import Path

#: The folder of the editor's files inside a base folder (the runtime or the cache folder).
FOLDER = "flowui-sandbox"
#: The drafts' secret, in the cache folder's FOLDER.
SECRET_FILE = "drafts.key"
SECRET_BYTES = 32
#: How the secret is opened: never through a link, never waiting (a FIFO in its place).
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)

OPENER = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url={url}">
<title>flowui-sandbox edit</title></head>
<body><p>Opening the editor: <a href="{url}">{url}</a></p></body></html>
"""


def cache_base() -> Path:
    """``$XDG_CACHE_HOME`` when it is an absolute path, else ``~/.cache``."""
    value = os.environ.get("XDG_CACHE_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".cache"


def runtime_base() -> Path:
    """``$XDG_RUNTIME_DIR`` when it is the user's own folder that no one else may enter (as the
    login manager makes it), else :func:`cache_base`."""
    value = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(value):
        try:
            info = os.lstat(value)
        except OSError:
            info = None
        if info and stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077:
            return Path(value)
    return cache_base()


def private_folder(base: Path) -> Path:
    """``base/flowui-sandbox``, made if missing; a folder of the user's, mode 0700 (made so if it
    was more open). ``OSError`` if it is someone else's, or not a folder (a link)."""
    folder = base / FOLDER
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError(f"{folder}: not a folder of this user's")
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)
    return folder


def write_opener(url: str) -> Path:
    """A page that sends the browser on to ``url``, in a new file of mode 0600 in the private
    runtime folder (the caller removes it)."""
    fd, name = tempfile.mkstemp(prefix="edit-", suffix=".html", dir=private_folder(runtime_base()))  # 0600, O_EXCL
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(OPENER.format(url=html.escape(url)))
    return Path(name)


def _secret(path: Path) -> bytes:
    """The secret in ``path``, made (complete, or not at all) if the file is missing."""
    try:
        fd = os.open(path, _READ)
    except FileNotFoundError:
        fd = -1
    if fd < 0:
        made, temp = tempfile.mkstemp(prefix=".drafts.", dir=path.parent)  # 0600
        try:
            with os.fdopen(made, "wb") as out:
                out.write(secrets.token_bytes(SECRET_BYTES))
            try:
                os.link(temp, path)  # only if there is none: two editors starting at once agree on one
            except FileExistsError:
                pass
        finally:
            os.unlink(temp)
        fd = os.open(path, _READ)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        data = handle.read(SECRET_BYTES + 1)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077 or len(data) != SECRET_BYTES:
        raise PermissionError(f"{path}: not a secret of {SECRET_BYTES} bytes that only this user reads")
    return data


def draft_seal(file: Path) -> dict[str, str]:
    """What the page seals ``file``'s drafts with: ``key``, 32 bytes (base64url) for AES-GCM, and
    ``id``, the hex name they are kept under; both derived (HMAC-SHA256) from the user's drafts
    secret and the file's real path, so the same after a restart and apart for each file, and
    ``id`` tells nothing of the path. ``OSError`` when the secret cannot be kept."""
    secret = _secret(private_folder(cache_base()) / SECRET_FILE)
    real = os.fsencode(os.path.realpath(file))
    key = hmac.new(secret, b"draft key\0" + real, hashlib.sha256).digest()
    name = hmac.new(secret, b"draft name\0" + real, hashlib.sha256).hexdigest()
    return {"key": base64.urlsafe_b64encode(key).rstrip(b"=").decode("ascii"), "id": name}
