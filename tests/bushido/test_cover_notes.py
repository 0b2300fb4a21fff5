"""Bushido: obscuring terrain near the target that gives no cover is named in the plan, with its distance and the
clause that denies it [BU-5.7]; a line between the centres that is blocked while another line sees is said too
[BU-2.1]. For people (``check``) and in the JSON.

The set-up of ``test_rules``: shooter S (30 mm) at the origin, target T (40 mm) whose near edge is at y = 8 + R30,
up the line x = 0. Cover needs obscuring terrain within 1 in of the target's base on *every* line of sight, and
"within" is inclusive here (the rules' "within 1 in", unlike Dress on the Colors' strict reach).
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
import yaml

from rangefire.core import Attack
from tests.bushido.test_rules import BOW, BU, R30, S, T, battle, box, check, model
from tests.commands import run

EDGE = 8 + R30  # y of T's near edge


def hedge(gap: Any) -> dict[str, Any]:
    """An obscuring hedge across the table, 1 in deep, whose far side lies ``gap`` in short of T's near edge."""
    return box("hedge", "obscuring", -4, EDGE - Fraction(gap) - 1, 4, EDGE - Fraction(gap))


#: Solid walls with a slit 1/50 in wide along x = 0: only the lines along x = 0 see through, so the hedge is
#: judged where it is nearest the target's base (every line that sees meets it there).
SLIT = (box("wall-left", "solid", -5, 2, Fraction(-1, 100), 5), box("wall-right", "solid", Fraction(1, 100), 2, 5, 5))


def cover_notes(plan: Any) -> list[tuple[str, str]]:
    return [(n.clause, n.text) for n in plan.notes if n.clause == "BU-5.7"]


def test_exactly_at_the_reach_gives_cover_and_just_beyond_is_named_bu_5_7():
    """BU-5.7: on the only lines that see, a hedge exactly 1 in from the base gives cover (no note); a thousandth
    farther it gives none, and the plan names it, its distance and the clause."""
    at = check(battle(S(), T(), terrain=(hedge(1), *SLIT))).plan
    assert at.in_cover and at.cover_by == ("hedge",) and cover_notes(at) == []
    beyond = check(battle(S(), T(), terrain=(hedge(Fraction(1001, 1000)), *SLIT))).plan
    assert not beyond.in_cover
    assert cover_notes(beyond) == [
        ("BU-5.7", "hedge is just over 1 in from T's base on the line of sight from (0.00, 0.00) to (0.00, 9.38): "
                   "cover needs obscuring terrain within 1 in of T on every line of sight")]


def test_a_hedge_beyond_the_reach_is_named_with_its_distance_bu_5_7():
    """BU-5.7: 1.5 in out the hedge gives no cover: named with the distance on the line that decides it."""
    plan = check(battle(S(), T(), terrain=(hedge("1.5"),))).plan
    assert not plan.in_cover
    assert cover_notes(plan) == [
        ("BU-5.7", "hedge is 1.50 in from T's base on the line of sight from (0.00, 0.00) to (0.00, 9.38): cover "
                   "needs obscuring terrain within 1 in of T on every line of sight")]


def test_a_hedge_exactly_one_inch_out_on_the_centre_line_misses_on_a_slanting_line_bu_5_7():
    """BU-5.7: with nothing else in the way, a straight hedge exactly 1 in from the base's nearest point is
    farther from the round base on a slanting line of sight: no cover, and the note names that line."""
    plan = check(battle(S(), T(), terrain=(hedge(1),))).plan
    assert not plan.in_cover
    [(clause, text)] = cover_notes(plan)
    assert clause == "BU-5.7" and text.startswith("hedge is 1.01 in from T's base on the line of sight from (0.00, "
                                                  "0.59) to (-0.20, 8.62)")


def test_terrain_within_the_reach_that_a_line_of_sight_passes_by_is_named_bu_5_7():
    """BU-5.7: a bush 0.5 in in front of the target, narrower than the base: a line of sight passes beside it."""
    bush = box("bush", "obscuring", Fraction(-1, 5), EDGE - 1, Fraction(1, 5), EDGE - Fraction(1, 2))
    plan = check(battle(S(), T(), terrain=(bush,))).plan
    assert not plan.in_cover
    [(clause, text)] = cover_notes(plan)
    assert clause == "BU-5.7" and text.startswith("bush lies within 1 in of T's base, but the line of sight from ")
    assert text.endswith("does not pass through it: cover needs obscuring terrain within 1 in of T on every line of "
                         "sight")


def test_terrain_far_from_the_target_is_not_named_bu_5_7():
    """BU-5.7: woods around the shooter, 7 in from the target, are not what a player asks about."""
    woods = box("woods", "obscuring", -4, -1, 4, 1)
    plan = check(battle(S(), T(), terrain=(woods,))).plan
    assert not plan.in_cover and cover_notes(plan) == []


def test_a_blocked_centre_line_is_named_when_another_line_sees_bu_2_1():
    """BU-2.1: a post on the centre line blocks it, but a line past the post sees: the plan says what blocks the
    centre line and that one clear line is enough."""
    post = box("post", "solid", Fraction(-1, 5), 3, Fraction(1, 5), 4)
    plan = check(battle(S(), T(), terrain=(post,))).plan
    assert ("BU-2.1", "the line between the centres crosses solid post, but S sees T along another: one clear line "
                      "base to base is enough") in [(n.clause, n.text) for n in plan.notes]


def test_the_notes_are_the_same_checked_alone_or_with_every_pair_bu_5_7():
    """BU-5.7: check_many (the table's answers screened for every pair) gives the same notes word for word."""
    bush = box("bush", "obscuring", 2, 8, "2.4", "8.4")
    b = battle(S(), T(), model("U", "ito", (3, 9)), terrain=(hedge("1.5"), bush))
    attacks = [Attack("S", "T"), Attack("S", "U")]
    many = BU.check_many(b, attacks)
    for attack, checked in zip(attacks, many, strict=True):
        alone = BU.check(b, attack)
        assert alone.plan is not None and checked.plan is not None
        assert alone.plan.notes == checked.plan.notes
    assert cover_notes(many[0].plan) and cover_notes(many[1].plan)


@pytest.mark.parametrize("columns", [60, 120])
def test_check_shows_the_note_for_people_and_in_json_bu_5_7(tmp_path, columns):
    """BU-5.7: ``check`` prints the note with its clause at a narrow and a wide terminal; ``check --json`` and
    ``odds --json`` carry it in the plan's notes."""
    scenario = tmp_path / "hedge.yaml"
    data = {"ruleset": "bushido", "units": [S(), T()], "terrain": [hedge("1.5")]}
    scenario.write_text(yaml.safe_dump(json.loads(json.dumps(data, default=str))))
    shown = run("check", str(scenario), "--attacker", "S", "--target", "T", columns=columns).stdout
    assert all(len(line) <= columns for line in shown.splitlines())
    assert "BU-5.7" in shown and "hedge is 1.50 in from T's base" in " ".join(shown.split())
    for verb in ("check", "odds"):
        data = json.loads(run(verb, str(scenario), "--attacker", "S", "--target", "T", "--json").stdout)
        notes = data["plan"]["notes"]
        assert any(n["clause"] == "BU-5.7" and n["text"].startswith("hedge is 1.50 in from T's base") for n in notes)


def test_the_table_is_read_once_for_the_same_bases_terrain_and_reaches_bu_5_7(monkeypatch):
    """BU-2.1, BU-2.2, BU-5.7: sight, zones of control and cover read the two bases, the terrain and the reaches
    only, so no line between two models is drawn again for another state of their wounds and Ammo (a duel asks in
    each one); other terrain or another cover reach is worked out afresh, and answers as it should."""
    from rangefire.rulesets.bushido import table

    drawn: list[str] = []
    for name in ("first_clear", "lines_between"):
        real = getattr(table, name)
        monkeypatch.setattr(table, name, lambda *args, _real=real, _name=name: drawn.append(_name) or _real(*args))
    monkeypatch.setattr(table, "_KEPT", {})
    at = battle(S(), T(), terrain=(hedge(1), *SLIT))
    first = check(at).plan
    lines = len(drawn)
    later = battle(S(weapon={**BOW, "ammo": 3}), T(wounds={"boxes": 5, "marked": 3}))  # the same models, later
    wounded = check(at.model_copy(update={"units": later.units})).plan  # as a duel's next state is made
    assert first.in_cover and wounded.in_cover and lines > 0 and len(drawn) == lines
    assert (wounded.target_wounds_left, first.target_wounds_left) == (2, 5)
    farther = battle(S(), T(), terrain=(hedge(Fraction(1001, 1000)), *SLIT))
    beyond = check(farther).plan
    reach = farther.options.model_copy(update={"cover_reach": Fraction(1001, 1000)})
    reached = check(farther.model_copy(update={"options": reach})).plan  # the same terrain, a longer reach
    assert not beyond.in_cover and reached.in_cover


def test_the_table_keeps_the_answers_of_a_few_terrains_only_bu_2_1(monkeypatch):
    """BU-2.1: each battle read afresh (a server's question, a state sent to its worker) brings its terrain anew;
    the answers kept hold their terrain, some 10 MB for the 4,000 corners a battle may have, so the answers of a
    few terrains only are kept, never of thousands: a long-running server's memory stays bounded.
    The latest terrain's answers are still kept (no line drawn again)."""
    from rangefire.rulesets.bushido import table

    monkeypatch.setattr(table, "_KEPT", {})
    at = battle(S(), T(), terrain=(hedge(1), *SLIT))
    for _ in range(table.MAX_TERRAINS + 5):
        fresh = at.model_copy(update={"terrain": tuple(list(at.terrain))})  # the same pieces, another terrain
        assert table.cover(fresh, fresh.units[0], fresh.units[1]).covered
    held = {id(terrain) for terrain, _ in table._KEPT.values()}
    assert 1 <= len(held) <= table.MAX_TERRAINS
    drawn: list[str] = []
    real = table.lines_between
    monkeypatch.setattr(table, "lines_between", lambda *args: drawn.append("drawn") or real(*args))
    assert table.cover(fresh, fresh.units[0], fresh.units[1]).covered and drawn == []
