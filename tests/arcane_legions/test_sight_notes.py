"""Arcane Legions: hindering or blocking terrain the line of sight passes near but does not meet is named in the
plan, with its distance and the clause, so that a player sees why it neither hinders nor blocks [AL-4.2, AL-4.3].
For people (``check``) and in the JSON.

The set-up of ``test_rules``: archer sortie A at the origin facing +y, target sortie T 7 steps up facing back.
Their front notches are exactly 6 steps apart along x = -0.5, 0 and 0.5 only: the engine takes x = -0.5 where
nothing is in the way (the first in the sides' and notches' order [AL-3.5]), and avoids a hindrance where it can.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from tests.arcane_legions.test_rules import AL, A, T, attack, battle, plan_of, square
from tests.commands import run


def woods(x0: Any, kind: str = "hindering", pid: str = "woods") -> dict[str, Any]:
    """Terrain to the right of the lines of sight, its left edge at x = ``x0``."""
    return {"id": pid, "kind": kind, "polygon": square(x0, 2, 3, 3)}


def sight_notes(plan: Any) -> list[tuple[str, str]]:
    return [(n.clause, n.text) for n in plan.notes if n.clause.startswith("AL-4")]


def test_hindering_terrain_near_the_line_is_named_with_its_distance_al_4_3():
    """AL-4.3: woods a quarter step from the line of sight do not hinder it: the plan says so."""
    p = plan_of(A(), T(7), terrain=(woods("-0.25"),))
    assert (p.sight, p.hindered_by, p.from_notch[0], p.to_notch[0]) == ("clear", (), -0.5, -0.5)
    assert sight_notes(p) == [
        ("AL-4.1", "line of sight clear"),
        ("AL-4.3", "woods (hindering) is 0.25 steps from the line of sight, which does not pass through it: it does "
                   "not hinder")]


def test_blocking_terrain_near_the_line_is_named_al_4_2():
    """AL-4.2: a crag half a step from the line of sight does not block it."""
    crag = {"id": "crag", "kind": "blocking", "polygon": square(-3, 2, -1, 3)}
    assert ("AL-4.2", "crag (blocking) is 0.50 steps from the line of sight, which does not pass through it: it does "
                      "not block") in sight_notes(plan_of(A(), T(7), terrain=(crag,)))


@pytest.mark.parametrize(("x0", "said"), [
    ("-0.49", ("AL-4.3", "woods (hindering) is 0.01 steps from the line of sight, which does not pass through it: "
                         "it does not hinder")),
    ("-0.4999", ("AL-4.3", "woods (hindering) is less than 0.01 steps from the line of sight, which does not pass "
                           "through it: it does not hinder")),
    ("-0.5", ("AL-4.4", "line of sight touching; touching woods")),
    ("-0.51", ("AL-4.3", "line of sight hindered by woods"))])
def test_near_touching_and_crossing_at_the_boundary_al_4_3_and_al_4_4(x0, said):
    """AL-4.3, AL-4.4: a hair clear of the line, the woods are named as near; exactly on it, touching (no
    hindrance); a hair across every line, they hinder."""
    p = plan_of(A(), T(7), terrain=(woods(x0),))
    assert said in sight_notes(p)
    assert p.hindered_by == (("woods",) if x0 == "-0.51" else ())


def test_terrain_a_step_away_is_named_and_farther_is_not_al_4_3():
    """AL-4.3: named up to a step from the line (inclusive); beyond it nobody asks."""
    assert len(sight_notes(plan_of(A(), T(7), terrain=(woods("0.5"),)))) == 2
    assert sight_notes(plan_of(A(), T(7), terrain=(woods("0.51"),))) == [("AL-4.1", "line of sight clear")]


def test_the_note_is_the_same_checked_alone_or_with_others_al_4_3():
    """AL-4.3: the note is the same whether the attack is checked alone or among others (check_many)."""
    b = battle(A(), T(7), terrain=(woods("-0.25"),))
    alone = AL.check(b, attack())
    many = AL.check_many(b, [attack("T", "A"), attack()])
    assert alone.plan is not None and many[1].plan is not None and alone.plan.notes == many[1].plan.notes


@pytest.mark.parametrize("columns", [60, 120])
def test_check_shows_the_note_for_people_and_in_json_al_4_3(tmp_path, columns):
    """AL-4.3: ``check`` prints the note with its clause at a narrow and a wide terminal; ``check --json`` and
    ``odds --json`` carry it in the plan's notes."""
    scenario = tmp_path / "woods.yaml"
    scenario.write_text(yaml.safe_dump({"ruleset": "arcane-legions", "players": {"red": {"order_points": 8},
                                                                                 "blue": {"order_points": 8}},
                                        "units": [A(), T(7)], "terrain": [woods("-0.25")]}))
    shown = run("check", str(scenario), "--attacker", "A", "--target", "T", columns=columns).stdout
    assert all(len(line) <= columns for line in shown.splitlines())
    assert "AL-4.3" in shown and "woods (hindering) is 0.25 steps from the line of sight" in " ".join(shown.split())
    for verb in ("check", "odds"):
        notes = json.loads(run(verb, str(scenario), "--attacker", "A", "--target", "T", "--json").stdout)
        assert {"clause": "AL-4.3", "text": "woods (hindering) is 0.25 steps from the line of sight, which does not "
                                            "pass through it: it does not hinder"} in notes["plan"]["notes"]
