"""Run the probe catalogue against my generator in every engine (docs/PYTEST.md)."""

import shlex
import sys
from pathlib import Path

import pytest

# The command verify runs for each block of each probe (docs/GENERATORS.md).
MY_GENERATOR = shlex.join([sys.executable, str(Path(__file__).with_name("my_generator.py"))])

# A few probes of each kind keep this example quick; leave `probes` out to run all of them.
PROBES = ["host.dom_read", "network.fetch", "breakout.state_value", "breakout.theme_value",
          "bridge.setvalue_outside_fields"]


@pytest.mark.timeout(900)
def test_my_generator_holds_the_probes(flowui_verify):
    results = flowui_verify(MY_GENERATOR, protocol="json", probes=PROBES)
    assert sorted(results) == sorted(PROBES)
    assert not results.unexpected(), "\n".join(results.unexpected())
    assert all(r.verdict == "held" for r in results.values()), {p: r.verdict for p, r in results.items()}
