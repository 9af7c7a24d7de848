"""The attack-probe harness: servers, the probe catalogue, the runner, the report and `flowui-sandbox verify`.

See docs/THREATS.md for what the probes found and fixtures/probes/ for the catalogue.
"""
