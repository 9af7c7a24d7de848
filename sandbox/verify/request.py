"""What ``verify --generator CMD`` hands an external generator, and how it answers (docs/GENERATORS.md).

Protocol ``source`` (the default): stdin is the block's author source (UTF-8), nothing
else. Protocol ``json``: stdin is one JSON object, :func:`generator_request`, so the
probes that need fields, a state, a theme or the bridge run against the command too.
Either way the command prints the block's ``<iframe>`` HTML on stdout and exits 0, or
exits :data:`REFUSED_STATUS` to refuse the input (its last stderr line is the reason).
"""

from __future__ import annotations

from typing import Any

#: The values of ``--generator-protocol``.
GENERATOR_PROTOCOLS = ("source", "json")
#: ``"version"`` of the JSON request; a change a generator must notice bumps it.
REQUEST_VERSION = 1
#: The exit status with which a command refuses its input (a bad state, theme or source), as
#: flowui-sandbox itself does: the attack never reaches a browser, so the probe counts as blocked.
REFUSED_STATUS = 2


def generator_request(source: str, *, block_id: str, fields: list[str], state: Any, theme: Any) -> dict[str, Any]:
    """The JSON request: ``version``, the author ``source``, ``block_id``, ``fields`` (the paths the
    block's script reads), ``state`` (an object or null: the whole state, the generator projects
    it) and ``theme`` (a flat theme object or null), in that order."""
    return {"version": REQUEST_VERSION, "source": source, "block_id": block_id, "fields": list(fields), "state": state, "theme": theme}
