"""The JSON outputs of ``check``, ``odds`` and ``resolve`` as the command line prints them and the HTTP API
answers them, each with its ``format``. Their shapes, as pydantic models and JSON Schemas, are in
:mod:`rangefire.core.schemas` (kept apart: building a model costs more at start-up than these plain functions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rangefire.core.numbers import with_float
from rangefire.core.options import HouseRule
from rangefire.core.types import FORMAT, Check, Odds, Resolution

# Every output names the house rules in force (options set away from the rules' values, each with its clause):
# a result read without them would be taken for the rules as written.


def _kept(hidden: dict[str, Any] | None) -> dict[str, Any]:
    """``hidden``: what is kept from the side the answer was worked out for (``--side``), where anything is."""
    return {"hidden": hidden} if hidden else {}


def check_output(ruleset: str, check: Check, candidates: list[dict[str, Any]] | None = None,
                 house_rules: Sequence[HouseRule] = (), hidden: dict[str, Any] | None = None) -> dict[str, Any]:
    """What ``check --json`` prints (:class:`~rangefire.core.schemas.CheckOutput`)."""
    out = {"format": FORMAT, **check.to_dict(ruleset), "house_rules": [h.to_dict() for h in house_rules],
           **_kept(hidden)}
    if candidates is not None:
        out["candidates"] = candidates
    return out


def odds_output(odds: Odds, house_rules: Sequence[HouseRule] = (), hidden: dict[str, Any] | None = None,
                ) -> dict[str, Any]:
    """What ``odds --json`` prints for a legal attack (:class:`~rangefire.core.schemas.OddsOutput`)."""
    return {"format": FORMAT, **odds.to_dict(), "house_rules": [h.to_dict() for h in house_rules], **_kept(hidden)}


def refused_odds_output(ruleset: str, check: Check, house_rules: Sequence[HouseRule] = (),
                        hidden: dict[str, Any] | None = None) -> dict[str, Any]:
    """What ``odds --json`` prints for an attack the rules refuse: the refusals, and nothing to distribute."""
    return {**check_output(ruleset, check, house_rules=house_rules, hidden=hidden), "outcomes": {},
            **with_float("events", {}), "exact": True}


def resolve_output(resolution: Resolution, seed: int | None, battle: dict[str, Any],
                   house_rules: Sequence[HouseRule] = ()) -> dict[str, Any]:
    """What ``resolve --json`` prints (:class:`~rangefire.core.schemas.ResolveOutput`); ``seed`` is None for
    entered dice."""
    return {"format": FORMAT, **resolution.to_dict(), "seed": seed, "battle": battle,
            "house_rules": [h.to_dict() for h in house_rules]}

