"""The review rules, loaded from ``rules.toml`` (the one catalogue) and validated.

Everything that names a rule (the layers, the reports, SARIF's ``tool.driver.rules``,
docs/REVIEW.md) reads it here. :func:`load_rules` honours ``FLOWUI_REVIEW_DISABLE``
(comma-separated rule ids left out), which the corpus tests use to prove that
disabling a rule loses findings.
"""

from __future__ import annotations

import functools
import os
import re
import time
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import UsageError

Severity = Literal["high", "medium", "low", "info"]
#: Most severe first; ``SEVERITY_RANK[s]`` grows with severity.
SEVERITIES: tuple[str, ...] = ("high", "medium", "low", "info")
SEVERITY_RANK = {"info": 0, "low": 1, "medium": 2, "high": 3}

RULES_FILE = Path(__file__).with_name("rules.toml")
_ID = re.compile(r"[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+\Z")


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    severity: Severity
    title: str = Field(min_length=1)
    meaning: str = Field(min_length=1)
    fix: str = Field(min_length=1)
    #: A probe id (fixtures/probes/ID.json) or a docs/THREATS.md section title / doc file.
    basis: str = Field(min_length=1)
    layer: Literal["static", "browser", "both"]

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(f"rule id {value!r} is not dotted lowercase words (e.g. exfil.state-to-url)")
        return value


class CatalogueError(UsageError):
    pass


@functools.cache
def _load(text: str, disabled: frozenset[str]) -> dict[str, Rule]:
    data = tomllib.loads(text)
    rules: dict[str, Rule] = {}
    for index, raw in enumerate(data.get("rule", [])):
        try:
            item = Rule.model_validate(raw)
        except Exception as exc:  # pydantic's message names the field
            raise CatalogueError(f"{RULES_FILE}: rule #{index + 1}: {exc}") from None
        if item.id in rules:
            raise CatalogueError(f"{RULES_FILE}: rule {item.id!r} appears twice")
        if item.id not in disabled:
            rules[item.id] = item
    return rules


@functools.cache
def _catalogue_text(mtime_ns: int) -> str:
    return RULES_FILE.read_text(encoding="utf-8")


@functools.cache
def _disabled(value: str) -> frozenset[str]:
    return frozenset(x.strip() for x in value.split(",") if x.strip())


_checked = [0.0, 0]  # when rules.toml's mtime was last looked at, and what it was


def load_rules() -> dict[str, Rule]:
    """Every enabled rule by id, in catalogue order (rules.toml is re-read when it changes;
    its mtime is looked at once a second at most: the static layer calls this per finding)."""
    disabled = _disabled(os.environ.get("FLOWUI_REVIEW_DISABLE", ""))
    now = time.monotonic()
    if now - _checked[0] > 1.0:
        _checked[0], _checked[1] = now, RULES_FILE.stat().st_mtime_ns
    return _load(_catalogue_text(_checked[1]), disabled)


def rule(rule_id: str) -> Rule:
    """The rule ``rule_id``; KeyError when it is not in the catalogue (or disabled)."""
    return load_rules()[rule_id]


def enabled(rule_id: str) -> bool:
    return rule_id in load_rules()


__all__ = ["Rule", "Severity", "SEVERITIES", "SEVERITY_RANK", "load_rules", "rule", "enabled", "CatalogueError"]
