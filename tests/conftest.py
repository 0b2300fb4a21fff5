"""Shared helpers: small battles built in code, so each test shows the geometry it relies on."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from rangefire.rulesets import battle_from_mapping

# The suite runs on both cores beside other work: how long Hypothesis takes to make an example, or to run one, says
# how busy the machine is, not whether the code is right; every property is still checked on every example.
settings.register_profile("shared-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("shared-machine")


def unit(uid: str, side: str, position: tuple[Any, Any], facing: Any = 0, **extra: Any) -> dict[str, Any]:
    """A Dress on the Colors unit: 4 stands of rifled muskets in line unless told otherwise."""
    return {"id": uid, "side": side, "stands": 4, "weapon": "rifled-musket", "formation": "line",
            "position": list(position), "facing": facing, **extra}


def dc_battle(*units: dict[str, Any], terrain: tuple[dict[str, Any], ...] = (), **options: Any) -> Any:
    data: dict[str, Any] = {"ruleset": "dress-on-the-colors", "units": list(units), "terrain": list(terrain)}
    if options:
        data["options"] = options
    return battle_from_mapping(data)[1]


def square(x0: Any, y0: Any, x1: Any, y1: Any) -> list[list[Any]]:
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


@pytest.fixture
def doc() -> Any:
    from rangefire.rulesets import find_ruleset

    return find_ruleset("dress-on-the-colors")


def gone(pid: int) -> bool:
    """Whether no process of that id is left (ended and reaped)."""
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False
