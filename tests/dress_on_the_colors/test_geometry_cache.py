"""The geometry a check shares between battles (arc, range, line of fire, gunsmoke, cover, enfilade) is kept
under exactly what it depends on: a cached verdict equals a fresh one after a unit moves, turns, changes
formation, stands or stand size, after the terrain changes, and after an option that enters the geometry
changes [DC-1.2, DC-2.1, DC-2.2, DC-2.4, DC-4.2, DC-6.1, DC-7.2, DC-7.3]."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rangefire.core import Attack
from rangefire.rulesets import load_battle
from rangefire.rulesets.dress_on_the_colors.table import clear_caches
from rangefire.scenario.paths import Setting

WHEATFIELD = Path(__file__).resolve().parents[2] / "src/rangefire/examples/wheatfield.yaml"
WALL = [[4.5, 0.25], [15.5, 0.25], [15.5, 0.75], [4.5, 0.75]]

#: (path, value) changed from the Wheatfield as written, or (path, value, (path, value), ...) from the
#: Wheatfield with those other changes made first.
CHANGES: list[tuple[Any, ...]] = [
    ("units.20th-maine.position", [10, 3]),  # DC-2.2: the range and the line of fire
    ("units.20th-maine.position", [13, 0]),
    ("units.15th-alabama.position", [10, 9]),
    ("units.20th-maine.facing", 20),  # DC-2.1: the arc
    ("units.15th-alabama.facing", 160),
    ("units.20th-maine.formation", "march-column"),  # DC-1.2: the footprint
    ("units.15th-alabama.formation", "skirmish"),
    ("units.15th-alabama.stands", 3),
    ("units.20th-maine.stands", 2),
    ("units.20th-maine.stand_width", 2),
    ("units.20th-maine.stand_depth", 3, ("units.20th-maine.formation", "march-column")),
    ("units.47th-alabama.start_position", [-4, 3]),  # DC-6.1: enfilade from the start of the turn
    ("units.47th-alabama.start_facing", 0, ("units.47th-alabama.start_position", [-4, -2.5])),
    ("units.20th-maine.gunsmoke", False),  # DC-7.1: a unit's own marker
    ("units.83rd-pennsylvania.moved", False),
    ("options.arc", "centre"),  # DC-2.1
    ("options.bands.long", 11, ("options.bands.medium", 10)),  # DC-2.3, DC-2.4: how far a unit looks
    # battery-d's box is 7.6 in from 4th-texas's, its front 9.5 in: the range is sought within the long edge
    ("options.bands.long", 9, ("options.bands.medium", 8), ("units.4th-texas.facing", 210)),
    ("options.cover_reach", 3, ("terrain.stone-wall.polygon", [[x, y + 2] for x, y in WALL])),  # DC-4.2
    ("options.gunsmoke_beyond", 30),  # DC-7.2
    ("terrain.stone-wall.polygon", [[x, y + 11] for x, y in WALL]),  # DC-4.2
    ("terrain.rose-woods.kind", "heavy"),
    ("terrain.old-smoke.polygon", [[8, 5], [12, 5], [12, 6], [8, 6]]),  # DC-7.2
]


def verdicts(ruleset: Any, battle: Any) -> list[str]:
    """Every unit's check at its own choice of target and at every enemy, as the user would read it."""
    out = []
    for firer in battle.units:
        for target in (None, *(u.id for u in battle.units if u.side != firer.side)):
            out.append(repr(ruleset.check(battle, Attack(firer.id, target))))
    return out


@pytest.mark.parametrize("change", CHANGES, ids=[f"{c[0]}={c[1]}" for c in CHANGES])
def test_cached_verdict_equals_a_fresh_one_after_a_change(change: tuple[Any, ...]) -> None:
    """Warm the caches on the Wheatfield as written, change one thing, and the cached verdicts of the changed
    battle equal those worked out with nothing cached; the change does change some verdict (else this would
    test nothing)."""
    base = [Setting(*c) for c in change[2:]]
    ruleset, battle = load_battle(WHEATFIELD, base)
    clear_caches()
    before = verdicts(ruleset, battle)
    _, read = load_battle(WHEATFIELD, [*base, Setting(change[0], change[1])])
    # the terrain as the battle before holds it where it is unchanged, as in a duel or a table of variants:
    # a key that took it by identity alone would then miss a changed option
    changed = battle.model_copy(update={"options": read.options, "units": read.units,
                                        "terrain": battle.terrain if read.terrain == battle.terrain else read.terrain})
    cached = verdicts(ruleset, changed)
    clear_caches()
    fresh = verdicts(ruleset, changed)
    assert cached == fresh
    assert fresh != before


def test_a_duel_shares_the_geometry_between_battles() -> None:
    """The battles a volley leaves behind differ in stands, disorder and markers: the line of fire is worked out
    once for each placement of stands, not for each battle [DC-2.2]."""
    from rangefire.rulesets.dress_on_the_colors.table import line_between
    ruleset, battle = load_battle(WHEATFIELD)
    clear_caches()
    ruleset.check(battle, Attack("20th-maine", "15th-alabama"))  # the duel's first volley: its line is kept
    misses = line_between.cache_info().misses
    placements, checks = set(), 0
    for q, after in ruleset.exchanges(battle, Attack("20th-maine", "15th-alabama")):
        assert q > 0
        # 20th-maine has fired this turn [DC-9.1]: the 15th fires back, from as many stands as it has left
        assert ruleset.check(after, Attack("15th-alabama", "20th-maine")).plan is not None
        placements.add(after.unit("15th-alabama").stands)
        checks += 1
    assert line_between.cache_info().misses - misses == len(placements) < checks
