"""``python -m flowui_sandbox`` as a real process, forked from a warm interpreter.

Most of a bad-input case's time as a fresh process is the interpreter starting and importing the
package (0.3 to 0.6 s here), not the command. :class:`ForkedCli` starts one interpreter that
imports the whole package once, then forks it for each command: the child is a real process with
its own working folder, standard streams opened from files, environment and exit status, and runs
``flowui_sandbox/__main__.py`` as ``python -m`` does. What it cannot show, a fresh interpreter's
start and its flush of the streams at exit, the tests that use it leave to cases run as fresh
processes (``tests/test_cli_bad_input.py`` compares the two on a sample of cases).

Run as a script, this file is that interpreter: one JSON request per line on its standard input,
the child's pid and then its exit status, one line each, on its standard output.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path


class ForkedCli:
    """One warm interpreter; :meth:`run` forks it for one command."""

    def __init__(self) -> None:
        # Unbuffered: a buffered reader could take the status line in with the pid's, and select()
        # would then wait for a line already read.
        self._proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, bufsize=0)
        self._files = Path(tempfile.mkdtemp(prefix="forked-cli-"))
        ready = self._read(120)
        if ready != "ready":
            raise RuntimeError(f"the warm interpreter did not start: {ready!r}")

    def _read(self, timeout: float) -> str | None:
        assert self._proc.stdout is not None
        if not select.select([self._proc.stdout], [], [], timeout)[0]:
            return None
        return self._proc.stdout.readline().decode().strip()

    def run(self, argv: list[str], *, cwd: Path, stdin: str | None, env: dict[str, str],
            timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
        """``python -m flowui_sandbox ARGV`` in ``cwd``, standard input from the file ``stdin`` (None:
        /dev/null), ``env`` added to the environment; stdout and stderr captured."""
        out, err = self._files / "stdout", self._files / "stderr"
        request = {"argv": argv, "cwd": str(cwd), "stdin": stdin or os.devnull, "stdout": str(out), "stderr": str(err),
                   "env": env}
        assert self._proc.stdin is not None
        data = memoryview(json.dumps(request).encode() + b"\n")
        while data:  # unbuffered: a write may take only part of it
            data = data[self._proc.stdin.write(data) or 0:]
        pid = self._read(30)
        if not pid:  # never os.kill(0): that is this whole process group
            raise RuntimeError(f"the warm interpreter stopped (exit status {self._proc.poll()})")
        status = self._read(timeout)
        if status is None:  # a command that hangs: the child goes, the test fails
            os.kill(int(pid), signal.SIGKILL)
            self._read(30)
            raise subprocess.TimeoutExpired(["flowui_sandbox", *argv], timeout)
        if not status:
            raise RuntimeError(f"the warm interpreter stopped (exit status {self._proc.poll()})")
        return subprocess.CompletedProcess(argv, int(status), out.read_bytes(), err.read_bytes())

    def close(self) -> None:
        self._proc.kill()
        self._proc.wait()
        for f in self._files.iterdir():
            f.unlink()
        self._files.rmdir()


def _child(request: dict) -> int:
    """In the forked child: the request's folder, streams and environment, then the package's
    ``__main__`` with the exit status ``python -m`` would give."""
    import runpy

    os.chdir(request["cwd"])
    for fd, path, flags in ((0, request["stdin"], os.O_RDONLY), (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                            (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        opened = os.open(path, flags, 0o600)
        os.dup2(opened, fd)
        os.close(opened)
    os.environ.update(request["env"])
    sys.argv = ["flowui_sandbox", *request["argv"]]
    try:
        runpy.run_module("flowui_sandbox", run_name="__main__", alter_sys=True)
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # as the interpreter does with an uncaught exception
        import traceback

        traceback.print_exc()
        code = 1
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        code = 120  # the interpreter's status when the flush at exit fails
    return code


def _serve() -> None:
    import importlib
    import threading

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.test_import_graph import modules

    for name in modules():  # every module the commands may load, loaded once here
        if not name.endswith("__main__"):
            importlib.import_module(name)
    # A fork copies only the calling thread: an import that started a thread would leave its locks held.
    assert threading.active_count() == 1, threading.enumerate()
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the children's stdin is the request's file, never the request pipe
    os.dup2(null, 1)
    os.close(null)
    replies.write(b"ready\n")
    for line in requests:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            requests.close()
            replies.close()
            os._exit(_child(request))
        replies.write(f"{pid}\n".encode())
        _, status = os.waitpid(pid, 0)
        replies.write(f"{os.waitstatus_to_exitcode(status)}\n".encode())


if __name__ == "__main__":
    _serve()
