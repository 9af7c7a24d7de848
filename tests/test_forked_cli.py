"""The warm interpreter of tests/forked_cli.py: each run's status is read, however fast the child ends."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.forked_cli import ForkedCli


def test_a_status_that_comes_with_the_pid_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A reader slower than the child (a loaded machine) finds the pid and the status in the pipe
    together: both must be read, not the second taken into a buffer while select() waits for it."""
    cli = ForkedCli()
    read = ForkedCli._read

    def slow(self: ForkedCli, timeout: float) -> str | None:
        time.sleep(0.3)  # the child has ended and its status is in the pipe
        return read(self, timeout)

    monkeypatch.setattr(ForkedCli, "_read", slow)
    try:
        codes = [cli.run(["frobnicate"], cwd=tmp_path, stdin=None, env={}, timeout=5).returncode for _ in range(3)]
    finally:
        cli.close()
    assert codes == [2, 2, 2]
