"""The JSON outputs of ``check``, ``odds`` and ``resolve`` as the command line prints them and the HTTP API
answers them, each with its ``format``. Their shapes, as pydantic models and JSON Schemas, are in
:mod:`rangefire.core.schemas` (kept apart: building a model costs more at start-up than these plain functions).
"""

from __future__ import annotations

from typing import Any

from rangefire.core.types import FORMAT, Check, Odds, Resolution


def check_output(ruleset: str, check: Check, candidates: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What ``check --json`` prints (:class:`~rangefire.core.schemas.CheckOutput`)."""
    out = {"format": FORMAT, **check.to_dict(ruleset)}
    if candidates is not None:
        out["candidates"] = candidates
    return out


def odds_output(odds: Odds) -> dict[str, Any]:
    """What ``odds --json`` prints for a legal attack (:class:`~rangefire.core.schemas.OddsOutput`)."""
    return {"format": FORMAT, **odds.to_dict()}


def refused_odds_output(ruleset: str, check: Check) -> dict[str, Any]:
    """What ``odds --json`` prints for an attack the rules refuse: the refusals, and nothing to distribute."""
    return {**check_output(ruleset, check), "outcomes": {}, "events": {}, "exact": True}


def resolve_output(resolution: Resolution, seed: int | None, battle: dict[str, Any]) -> dict[str, Any]:
    """What ``resolve --json`` prints (:class:`~rangefire.core.schemas.ResolveOutput`); ``seed`` is None for
    entered dice."""
    return {"format": FORMAT, **resolution.to_dict(), "seed": seed, "battle": battle}

