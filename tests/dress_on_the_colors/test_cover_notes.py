"""Dress on the Colors: terrain that almost gives cover is named in the plan, with its distance and the clause
that denies it [DC-4.2, DC-4.4], for people (``check``) and in the JSON.

The standard set-up of ``test_rules``: firer F at the origin facing +y, target T facing back at it with its
front edge 10 in up the table; the line of fire runs up x = 0.
"""

from __future__ import annotations

import json

import pytest
import yaml

from rangefire.core import Attack
from tests.commands import run
from tests.conftest import dc_battle, square, unit


def F(**kw):
    return unit("F", "blue", (0, 0), 0, **kw)


def T(d=10, **kw):
    return unit("T", "grey", (0, d), 180, **kw)


def fence(near_side, kind="light", pid="rail-fence"):
    """A fence across the table whose side nearest T (front edge y = 10) is at ``near_side``."""
    return {"id": pid, "kind": kind, "polygon": square(-5, "7.5", 5, near_side)}


def plan_of(doc, *terrain, units=None, **options):
    return doc.plan(dc_battle(*(units or (F(), T())), terrain=terrain, **options), Attack("F", "T"))


def notes(plan, clause_prefix="DC-4."):
    return [(n.clause, n.text) for n in plan.notes if n.clause.startswith(clause_prefix)]


def test_a_fence_exactly_at_the_reach_is_named_with_its_distance_and_clause_DC_4_4(doc):
    """DC-4.4: exactly 1 in away gives no cover, and the plan says so: the fence, the distance, the clause."""
    p = plan_of(doc, fence("9"))
    assert p.cover == "open"
    assert notes(p) == [("DC-4.2", "T is in the open: no save"),
                        ("DC-4.4", "rail-fence (light) is exactly 1 in from T on the line of fire: cover needs less "
                                   "than 1 in")]


def test_just_inside_the_reach_the_fence_gives_cover_and_no_note_DC_4_4(doc):
    """DC-4.4: at 0.99 in the fence gives cover; nothing is said of it beyond the cover."""
    p = plan_of(doc, fence("9.01"))
    assert (p.cover, p.cover_from) == ("light", ("rail-fence",))
    assert notes(p) == [("DC-4.2", "T is in light cover (rail-fence): saves on 5+")]


def test_a_fence_beyond_the_reach_is_named_with_its_distance_DC_4_2(doc):
    """DC-4.2: crossed 1.5 in from the target, the fence gives no cover: named with the distance."""
    assert notes(plan_of(doc, fence("8.5"))) == [
        ("DC-4.2", "T is in the open: no save"),
        ("DC-4.2", "rail-fence (light) is 1.50 in from T on the line of fire: cover needs less than 1 in")]


def test_terrain_far_from_the_target_or_no_better_than_the_cover_is_not_named_DC_4_2(doc):
    """DC-4.2: the firer's own wall (9.5 in from the target) is not what a player asks about, nor a light fence
    in front of a target already in heavy cover."""
    wall = {"id": "wall", "kind": "heavy", "polygon": square(-5, "0.25", 5, "0.5")}
    assert notes(plan_of(doc, wall)) == [("DC-4.2", "T is in the open: no save")]
    near_wall = {"id": "near-wall", "kind": "heavy", "polygon": square(-5, "9.5", 5, "9.9")}
    assert notes(plan_of(doc, fence("8.5"), near_wall)) == [("DC-4.2", "T is in heavy cover (near-wall): saves on 4+")]
    # two reaches out is still named; beyond it is not
    assert len(notes(plan_of(doc, {"id": "x", "kind": "light", "polygon": square(-5, 7, 5, "7.99")}))) == 1
    assert len(notes(plan_of(doc, {"id": "x", "kind": "light", "polygon": square(-5, 7, 5, "8.01")}))) == 2


def test_terrain_the_line_only_touches_is_named_DC_4_2(doc):
    """DC-4.2: a hedge whose corner lies on the line of fire 0.5 in from the target only touches it."""
    units = (unit("F", "blue", (0, 0), 0, stands=1), unit("T", "grey", (0, 10), 180, stands=1))
    tip = {"id": "tip", "kind": "heavy", "polygon": [[0, "9.5"], [2, 9], [2, 10]]}
    p = plan_of(doc, tip, units=units)
    assert p.cover == "open"
    assert notes(p)[1:] == [("DC-4.2", "the line of fire only touches tip (heavy), 0.50 in from T: touching is not "
                                       "crossing, so it gives no cover")]
    # a wall the line runs along (its edge on x = 0 from y = 8.5 to 9.5): named where it first touches, 0.5 in out
    along = {"id": "along", "kind": "heavy", "polygon": square(0, "8.5", 2, "9.5")}
    assert notes(plan_of(doc, along, units=units))[1:] == [
        ("DC-4.2", "the line of fire only touches along (heavy), 0.50 in from T: touching is not crossing, so it "
                   "gives no cover")]


def test_a_house_reach_is_named_beside_the_rules_DC_4_2(doc):
    """DC-4.2: under a house reach of 2 in, a fence exactly 2 in out is named with that reach and the rules'."""
    p = plan_of(doc, {"id": "rail-fence", "kind": "light", "polygon": square(-5, 7, 5, 8)}, cover_reach=2)
    assert ("DC-4.4", "rail-fence (light) is exactly 2 in from T on the line of fire: cover needs less than 2 in "
                      "(house rule; the rules say 1 in)") in notes(p)


def test_the_note_is_the_same_from_every_path_DC_4_4(doc):
    """DC-4.4: the note is the same whether the target is named, chosen by the rules, or checked with every
    other pair (check_many)."""
    b = dc_battle(F(), T(), unit("U", "grey", (20, 30), 180), terrain=(fence("9"),))
    named, chosen = doc.plan(b, Attack("F", "T")), doc.plan(b, Attack("F"))
    many = doc.check_many(b, [Attack("F", "U"), Attack("F", "T"), Attack("F")])
    assert named.notes == chosen.notes == many[1].plan.notes == many[2].plan.notes
    assert any(n.clause == "DC-4.4" and "rail-fence" in n.text for n in named.notes)


@pytest.mark.parametrize("columns", [60, 120])
def test_check_shows_the_note_for_people_and_in_json_DC_4_4(tmp_path, columns):
    """DC-4.4: ``check`` prints the note with its clause at a narrow and a wide terminal, and ``check --json`` and
    ``odds --json`` carry it in the plan's notes."""
    scenario = tmp_path / "fence.yaml"
    scenario.write_text(yaml.safe_dump({"ruleset": "dress-on-the-colors", "terrain": [fence("9")],
                                        "units": [F(), T()]}))
    shown = run("check", str(scenario), "--attacker", "F", columns=columns).stdout
    assert all(len(line) <= columns for line in shown.splitlines())
    assert "DC-4.4" in shown and "rail-fence (light) is exactly 1 in from T on the line of fire: cover needs less " \
        "than 1 in" in " ".join(shown.split())
    note = {"clause": "DC-4.4", "text": "rail-fence (light) is exactly 1 in from T on the line of fire: cover needs "
                                        "less than 1 in"}
    for verb in ("check", "odds"):
        data = json.loads(run(verb, str(scenario), "--attacker", "F", "--json").stdout)
        assert note in data["plan"]["notes"], verb
