"""Advice at any size (Bushido): a side's checks worked out together read cover off the all-pairs sight screen
and ask each shooter's eligibility once, and say word for word what each check alone says.

Cover [BU-5.7] needs obscuring terrain within the reach of the target's base on every line of sight; the first
clear line of the family settles "no cover" where it passes through none there, as ``table.cover`` settles it on
the same line. Random tables (Hypothesis) put obscuring terrain near the targets, across the lines and beside
them, so that the screen's line settles some covers and others are judged line by line. 40 against 40 (the
budget's size, timed by the bench) is answered within one ask, and its answers are those of the checks alone.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from rangefire.analysis.advise import advise
from rangefire.analysis.targets import MAX_PAIRS, targets
from rangefire.core import Attack, LimitError, ScenarioError
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.bushido.lookups import Screened
from rangefire.rulesets.bushido.table import Cover, cover
from tests.bushido.test_check_many import answer, one_by_one

BU = find_ruleset("bushido")
BOW = {"name": "bow", "short": 6, "medium": 12, "long": 18}
quarter = st.integers(-48, 48).map(lambda n: Fraction(n, 4))


def fr(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def box(pid: str, kind: str, x0: Fraction, y0: Fraction, w: Fraction, h: Fraction) -> dict[str, Any]:
    return {"id": pid, "kind": kind, "polygon": [[fr(x0), fr(y0)], [fr(x0 + w), fr(y0)], [fr(x0 + w), fr(y0 + h)],
                                                 [fr(x0), fr(y0 + h)]]}


@st.composite
def battles(draw: st.DrawFn) -> dict[str, Any]:
    """Shooters on one side and targets on the other, with obscuring terrain beside or across some targets (within
    the cover reach of the base, a little beyond it, or on only some of the lines), and solid terrain strewn."""
    units: list[dict[str, Any]] = []
    terrain: list[dict[str, Any]] = []
    for n in range(draw(st.integers(3, 8))):
        side = "prefecture" if n % 2 == 0 else "ito"
        x, y = draw(quarter), draw(quarter) + (0 if side == "prefecture" else 10)
        unit: dict[str, Any] = {"id": f"m{n}", "side": side, "base": draw(st.sampled_from([30, 40, 50])),
                                "position": [fr(x), fr(y)], "wounds": {"boxes": 3}}
        if draw(st.integers(0, 5)):
            unit["rcp"], unit["weapon"] = draw(st.integers(1, 4)), BOW
        units.append(unit)
        if side == "ito" and draw(st.booleans()):  # obscuring terrain at the target, in front of it or beside it
            gap = draw(st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(1), Fraction(5, 4), Fraction(2)]))
            w = draw(st.sampled_from([Fraction(1, 2), Fraction(2), Fraction(6)]))
            dx = draw(st.sampled_from([-w / 2, -w - gap - 1, gap + 1]))
            terrain.append(box(f"o{n}", "obscuring", x + dx, y - gap - 2, w, draw(st.sampled_from(
                [Fraction(1, 4), Fraction(1), Fraction(3)]))))
    for k in range(draw(st.integers(0, 4))):
        terrain.append(box(f"t{k}", draw(st.sampled_from(["solid", "obscuring"])), draw(quarter),
                           draw(quarter) + 5, Fraction(draw(st.integers(1, 12)), 4), Fraction(draw(st.integers(1, 8)),
                                                                                              4)))
    options = {"cover_reach": draw(st.sampled_from(["1", "1", "0.5", "2"]))}
    return {"ruleset": "bushido", "units": units, "terrain": terrain, "options": options}


def load(data: dict[str, Any]) -> Any:
    try:
        return battle_from_mapping(data)[1]
    except ScenarioError:  # overlapping bases: not a battle
        assume(False)
        raise


def said(found: Cover) -> Any:
    """What a cover says: in cover or not, by what, the sight and its line, the line that denies it and the line
    between the centres (what the plan's notes read of them)."""
    def line(x: Any) -> Any:
        return None if x is None else (x.segment, x.solid, x.obscuring, round(x.obscured, 9))

    return (found.covered, found.by, found.sight.describe(), found.sight.to_dict(), line(found.denied),
            line(found.centre))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(battles())
def test_cover_read_off_the_screen_is_covers_own_bu_5_7(data):
    """BU-5.7, BU-2.1: for every pair that sees, the cover the screen gives is the one ``table.cover`` judges line
    by line; and the checks together say what each check alone says."""
    battle = load(data)
    shooters = [u for u in battle.units if u.side == "prefecture"]
    enemies = [u for u in battle.units if u.side == "ito"]
    pairs = [(s, t) for s in shooters for t in enemies]
    look = Screened(battle)
    look.screen_sights(pairs)
    for s, t in pairs:
        if look.sight(s, t).is_clear:
            screened = look.cover(s, t)
            assert said(screened) == said(cover(battle, s, t))
            event("in cover" if screened.covered else "not in cover")
    attacks = [Attack(s.id, t.id) for s, t in pairs]
    assert [answer(c) for c in BU.check_many(battle, attacks)] == [answer(BU.check(battle, a)) for a in attacks]


def test_the_screen_can_be_wrong_about_cover_and_the_test_would_say_so():
    """The comparison can fail: a target behind a strip of obscuring terrain within the reach on every line is in
    cover; a cover that read only the centre line of a clear sight would say it is not."""
    units = [{"id": "S", "side": "prefecture", "base": 30, "position": ["0", "0"], "wounds": {"boxes": 3}, "rcp": 3,
              "weapon": BOW},
             {"id": "T", "side": "ito", "base": 40, "position": ["0", "10"], "wounds": {"boxes": 3}}]
    strip = box("mist", "obscuring", Fraction(-10), Fraction(9), Fraction(20), Fraction(1, 4))
    battle = battle_from_mapping({"ruleset": "bushido", "units": units, "terrain": [strip]})[1]
    s, t = battle.unit("S"), battle.unit("T")
    look = Screened(battle)
    look.screen_sights([(s, t)])
    assert look.cover(s, t).covered and cover(battle, s, t).covered
    seen = look.sight(s, t)
    wrong = Cover(False, seen, (), seen.line, seen.line)
    assert said(wrong) != said(cover(battle, s, t))


def forty_against_forty() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.run import skirmish  # the bench's battle: two lines, 30 pieces of terrain between

    return skirmish(80, 30, seed=3, first=40)


def test_forty_against_forty_is_one_ask_and_says_what_the_checks_alone_say_bu_3_2_bu_5_7():
    """40 models against 40 (the budget's size) are advised in one ask; a sample of their pairs checked together
    (every attack of every seventh shooter) says word for word what each check alone says, and the ranking holds
    every legal attack of the side."""
    battle = forty_against_forty()
    advised = advise(BU, battle, "prefecture")
    assert advised.pairs == 1600 <= MAX_PAIRS
    shooters = [u for u in battle.units if u.side == "prefecture"][::7]
    attacks = [Attack(s.id, t.id) for s in shooters for t in battle.units if t.side != s.side]
    together = [answer(c) for c in BU.check_many(battle, attacks)]
    assert together == [answer(BU.check(battle, a)) for a in attacks]
    legal = {(a.attacker, a.target) for a, c in zip(attacks, together, strict=True) if c[0] == "legal"}
    assert legal and legal <= {(a.attacker, a.target) for a in advised.ranked}


def test_a_side_of_fifteen_is_advised_and_tabled_as_pair_by_pair(monkeypatch):
    """The ranking and the table of a 15 v 15 battle, worked out together, are those of checking each pair alone."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.run import skirmish

    battle = skirmish(30, 20, seed=7, first=15)
    together = (advise(BU, battle, "prefecture").to_dict(), [r.to_dict() for r in targets(BU, battle, "prefecture")])
    one_by_one(monkeypatch)
    assert together == (advise(BU, battle, "prefecture").to_dict(),
                        [r.to_dict() for r in targets(BU, battle, "prefecture")])


def test_beyond_fifty_against_fifty_advice_is_refused_before_the_work():
    """A side whose pairs pass the bound is refused at once, naming the bound."""
    units = [{"id": f"m{i}", "side": "prefecture" if i < 51 else "ito", "base": 30, "wounds": {"boxes": 1},
              "position": [str(i * 2), "0" if i < 51 else "30"]} for i in range(101)]
    battle = battle_from_mapping({"ruleset": "bushido", "units": units})[1]
    assert 51 * 50 > MAX_PAIRS >= 50 * 50
    with pytest.raises(LimitError, match=f"advice weighs at most {MAX_PAIRS}"):
        advise(BU, battle, "prefecture")


HAIRS = [Fraction(0), *(Fraction(sign, 10**k) for k in (6, 7, 12, 16) for sign in (1, -1))]


# a million inches out the floats round by some 10^-10: a hair of 10^-12 is below it (10^-16 there is a number longer
# than a scenario holds)
@pytest.mark.parametrize(("far", "hair"), [(Fraction(0), h) for h in HAIRS]
                         + [(Fraction(999_990), h) for h in HAIRS if abs(h) != Fraction(1, 10**16)])
def test_bases_a_hair_apart_or_over_are_told_apart_exactly_when_read_bu_2_3(hair, far):
    """BU-2.3: reading a battle of many models screens its bases' overlaps in floats and settles exactly what the
    floats cannot: bases touching (or a hair apart) are read, bases overlapping by a hair are refused, near the
    origin and near a million inches out (where the floats round most)."""
    r30, r40 = Fraction(30, 254) * 10 / 2, Fraction(40, 254) * 10 / 2
    x = far + r30 + r40 + hair
    units = [{"id": "a", "side": "prefecture", "base": 30, "position": [fr(far), "0"], "wounds": {"boxes": 1}},
             {"id": "b", "side": "ito", "base": 40, "position": [fr(x), "0"], "wounds": {"boxes": 1}}]
    data = {"ruleset": "bushido", "units": units}
    if hair < 0:
        with pytest.raises(ScenarioError, match=r"units\[1\].position: its base overlaps the base of units\[0\]"):
            battle_from_mapping(data)
    else:
        battle_from_mapping(data)
