"""Bushido's checks of many attacks of one battle at once (``check_many``, the table's answers screened for every
pair together) against checking each attack alone: the same plans, notes and refusals, word for word; and so
the same ranked advice and the same table of targets.

Battles are random (Hypothesis, and seeded skirmishes), with models put on purpose where floats are least sure:
edges exactly at a range band's bound or a zone of control's reach and a hair either side [BU-1.5, BU-2.2,
BU-3.4], bases touching [BU-2.3], centre lines tangent to a zone of control or crossing it by a hair [BU-4.3,
BU-4.4], a wall between an enemy and a model within its zone's reach [BU-2.2], and solid and obscuring terrain
strewn between them [BU-2.1]. The hairs run from well beyond the floats' rounding to below it.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from rangefire.analysis.advise import advise
from rangefire.analysis.targets import targets
from rangefire.core import Attack, Check, Ruleset, ScenarioError
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.bushido import Bushido

BU = find_ruleset("bushido")
RADIUS = {mm: Fraction(mm, 254 * 2) * 10 for mm in (30, 40, 50, 60)}  # mm / 25.4 / 2 inches
HAIR = Fraction(1, 10**7)
#: Hairs from well beyond the floats' rounding to below it (a coordinate near 10 is rounded by some 10^-15).
HAIRS = [Fraction(0), *(Fraction(sign, 10**k) for k in (7, 12, 16) for sign in (1, -1))]
HALF = Fraction(4, 5)
BOW = {"name": "bow", "short": 6, "medium": 12, "long": 18}


def fr(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def answer(checked: Check) -> Any:
    """Everything a check says, in words and numbers: the plan's data, notes, modifiers and summary, and each
    nomination's plan; or the refusals with their clauses and text."""
    plan = checked.plan
    if plan is None:
        return ("refused", checked.attacker, checked.target, [(r.clause, r.reason) for r in checked.refusals])
    alternatives = [(a.to_dict(), a.notes, a.summary()) for a in getattr(plan, "alternatives", ())]
    return ("legal", checked.attacker, checked.target, plan.to_dict(), plan.notes, plan.modifiers, plan.summary(),
            plan.dice_text(), alternatives)


def one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bushido made to check many attacks as the base class does: each alone, with the table's own functions."""
    monkeypatch.setattr(Bushido, "_check_many", Ruleset._check_many)


# -- random tables, with models put at the boundaries on purpose -------------------------------------------------
quarter = st.integers(-60, 60).map(lambda n: Fraction(n, 4))
hair = st.sampled_from(HAIRS)


@st.composite
def battles(draw: st.DrawFn) -> dict[str, Any]:
    """A battle of 4 to 9 models on two sides: some strewn on a quarter-inch grid, others put beside an earlier
    model with their edges exactly at 0, the zone's reach, or a band's bound, give or take a hair; or beside the
    centre line of two earlier models, at the zone's reach from it give or take a hair; with terrain between."""
    zone = draw(st.sampled_from([Fraction(1), Fraction(1), Fraction(2), Fraction(1, 2)]))
    walls: list[dict[str, Any]] = []
    units: list[dict[str, Any]] = []
    centres: list[tuple[Fraction, Fraction]] = []
    bases: list[int] = []
    for n in range(draw(st.integers(4, 9))):
        side = "prefecture" if n % 2 == 0 else draw(st.sampled_from(["ito", "ito", "prefecture"]))
        base = draw(st.sampled_from([30, 40, 50, 60]))
        r = RADIUS[base]
        how = draw(st.sampled_from(["free", "edge", "tangent", "walled"])) if n >= 2 else "free"
        lines = [(i, j) for i in range(n) for j in range(i + 1, n) if centres[i][0] == centres[j][0]]
        if how in ("edge", "walled"):
            k = draw(st.integers(0, n - 1))
            gap = draw(st.sampled_from([Fraction(0), zone, Fraction(6), Fraction(12), Fraction(18)])) + draw(hair)
            if how == "walled":  # within the zone's reach, a wall between: not in the zone, it sees nothing [BU-2.2]
                gap = zone * draw(st.sampled_from([Fraction(1, 2), Fraction(1)]))
            assume(gap >= 0)
            dx, dy = draw(st.sampled_from([(1, 0), (-1, 0), (0, 1), (0, -1)]))
            d = gap + r + RADIUS[bases[k]]
            centre = (centres[k][0] + dx * d, centres[k][1] + dy * d)
            if how == "walled" and gap > 0:
                near, far = RADIUS[bases[k]] + gap / 4, RADIUS[bases[k]] + gap * 3 / 4  # the middle of the gap
                across = (Fraction(-3), Fraction(3))
                (x0, x1), (y0, y1) = ((near, far), across) if dx else (across, (near, far))
                if dx < 0 or dy < 0:  # mirrored to the side the model was put on
                    x0, x1, y0, y1 = (-x1, -x0, y0, y1) if dx else (x0, x1, -y1, -y0)
                cx, cy = centres[k]
                walls.append({"id": f"w{n}", "kind": draw(st.sampled_from(["solid", "obscuring"])),
                              "polygon": [[fr(cx + x0), fr(cy + y0)], [fr(cx + x1), fr(cy + y0)],
                                          [fr(cx + x1), fr(cy + y1)], [fr(cx + x0), fr(cy + y1)]]})
        elif how == "tangent" and lines:
            # beside the line from model i to model j (which share an x), at the zone's reach from it
            i, j = draw(st.sampled_from(lines))
            lo, hi = sorted((centres[i][1], centres[j][1]))
            y = lo + (hi - lo) * draw(st.sampled_from([Fraction(1, 2), Fraction(1, 3)]))
            away = (r + zone + draw(hair)) * draw(st.sampled_from([1, -1]))
            centre = (centres[i][0] + away, y)
        else:
            centre = (draw(quarter), draw(quarter))
            if n >= 1 and draw(st.booleans()):  # on another model's x: lines a later model can lie along
                centre = (centres[draw(st.integers(0, n - 1))][0], centre[1])
        unit: dict[str, Any] = {"id": f"m{n}", "side": side, "base": base, "position": [fr(c) for c in centre],
                                "wounds": {"boxes": draw(st.integers(1, 5))}}
        if draw(st.integers(0, 9)) > 0:
            unit["rcp"] = draw(st.integers(1, 4))
            unit["weapon"] = {**BOW, "ammo": draw(st.sampled_from([None, None, 1, 0]))}
        unit["states"] = draw(st.lists(st.sampled_from(["aimed", "moved", "prone", "ran"]), max_size=2, unique=True))
        unit["attacked"] = draw(st.integers(0, 9)) == 0
        units.append(unit)
        centres.append(centre)
        bases.append(base)
    terrain = []
    for k in range(draw(st.integers(0, 4))):
        x0, y0 = draw(quarter), draw(quarter)
        w, h = Fraction(draw(st.integers(1, 16)), 4), Fraction(draw(st.integers(1, 16)), 4)
        terrain.append({"id": f"t{k}", "kind": draw(st.sampled_from(["solid", "obscuring", "obscuring", "clear"])),
                        "polygon": [[fr(x0), fr(y0)], [fr(x0 + w), fr(y0)], [fr(x0 + w), fr(y0 + h)],
                                    [fr(x0), fr(y0 + h)]]})
    options = {"zone_of_control": fr(zone), "obscuring_sight": draw(st.sampled_from(["3", "3", "0"]))}
    return {"ruleset": "bushido", "units": units, "terrain": walls + terrain, "options": options}


def load(data: dict[str, Any]) -> Any:
    try:
        return battle_from_mapping(data)[1]
    except ScenarioError:  # overlapping bases, a side with no model: not a battle
        assume(False)
        raise


def every_attack(battle: Any) -> list[Attack]:
    """Every ordered pair (friends too), every attacker naming no target, and for each pair every
    nomination the target's side could name (legal ones and not) [BU-3.2, BU-4.2]."""
    ids = [u.id for u in battle.units]
    out = [Attack(a, b) for a in ids for b in ids if a != b]
    out += [Attack(a) for a in ids]
    for a in ids[:3]:
        for b in ids:
            if b != a:
                out += [Attack(a, b, (("redirect_to", c),)) for c in ids if c not in (a, b)]
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(battles())
def test_check_many_says_what_each_check_says_bu_2_1_bu_2_2_bu_3_3_bu_3_4_bu_4_2(data):
    battle = load(data)
    attacks = every_attack(battle)
    many = [answer(c) for c in BU.check_many(battle, attacks)]
    assert many == [answer(BU.check(battle, a)) for a in attacks]
    for kind, _, _, said, *_ in many:  # what the examples held (shown by --hypothesis-show-statistics)
        if kind == "legal":
            event(f"legal, {said['range']['band']} range" + (", nominees" if said["nominees"] else ""))
        else:
            event("refused: " + ", ".join(sorted({r[0] for r in said})))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(battles())
def test_advice_and_targets_are_those_of_checking_pair_by_pair_bu_4_2(data):
    battle = load(data)
    batched = [(advise(BU, battle, side), targets(BU, battle, side=side)) for side in BU.sides(battle)]
    with pytest.MonkeyPatch.context() as patch:
        one_by_one(patch)
        alone = [(advise(BU, battle, side), targets(BU, battle, side=side)) for side in BU.sides(battle)]
    for (advised, rows), (advised_alone, rows_alone) in zip(batched, alone, strict=True):
        assert advised == advised_alone
        assert advised.to_dict() == advised_alone.to_dict()
        assert [r.to_dict() for r in rows] == [r.to_dict() for r in rows_alone]


# -- seeded skirmishes: two lines of models with terrain strewn between ------------------------------------------
def skirmish(first: int, second: int, pieces: int, seed: int) -> Any:
    """``first`` models of prefecture facing ``second`` of ito, solid and obscuring terrain between; some models
    pushed into the other line's zones of control and to the edge of long range."""
    rng = random.Random(seed)
    units = []
    for i in range(first + second):
        side, k = ("prefecture", i) if i < first else ("ito", i - first)
        y = Fraction(rng.randint(0, 16), 4) if side == "prefecture" else Fraction(rng.randint(40, 80), 4)
        units.append({"id": f"m{i}", "side": side, "base": rng.choice([30, 40, 50]), "rcp": 3,
                      "position": [fr(Fraction(31 * k, 10)), fr(y)], "wounds": {"boxes": 4}, "weapon": BOW})
    terrain = []
    for j in range(pieces):
        x, y = Fraction(rng.randint(0, 124 * max(first, second)), 40), Fraction(rng.randint(24, 40), 4)
        terrain.append({"id": f"t{j}", "kind": rng.choice(["solid", "obscuring"]),
                        "polygon": [[fr(x), fr(y)], [fr(x + 2), fr(y)], [fr(x + Fraction(12, 5)), fr(y + 2 * HALF)],
                                    [fr(x), fr(y + Fraction(6, 5))]]})
    # a prefecture model inside the zone of ito's first model, another one at exactly its reach
    ito = units[first]
    ox, oy = (Fraction(c) for c in ito["position"])
    for unit, gap, (dx, dy) in ((units[0], Fraction(1, 2), (0, -1)), (units[1], Fraction(1), (-1, 0))):
        d = gap + RADIUS[unit["base"]] + RADIUS[ito["base"]]
        unit["position"] = [fr(ox + dx * d), fr(oy + dy * d)]
    return battle_from_mapping({"ruleset": "bushido", "units": units, "terrain": terrain})[1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_seeded_skirmishes_advise_target_and_check_as_pair_by_pair(seed, monkeypatch):
    battle = skirmish(7, 8, 10, seed)
    attacks = [Attack(a.id, b.id) for a in battle.units for b in battle.units if a.id != b.id]
    many = [answer(c) for c in BU.check_many(battle, attacks)]
    batched = [(advise(BU, battle, side).to_dict(), [r.to_dict() for r in targets(BU, battle, side=side)])
               for side in BU.sides(battle)]
    one_by_one(monkeypatch)
    assert many == [answer(c) for c in BU.check_many(battle, attacks)]
    assert batched == [(advise(BU, battle, side).to_dict(), [r.to_dict() for r in targets(BU, battle, side=side)])
                       for side in BU.sides(battle)]
    # the cases the skirmish is built to hold are there: refused by a zone, by sight and by range; legal ones
    texts = [t for kind, *rest in many if kind == "refused" for _, t in rest[2]]
    assert any("zone of control of" in t for t in texts)
    assert any("no line of sight" in t for t in texts)
    assert any("beyond the bow's long range" in t for t in texts)
    assert any(kind == "legal" for kind, *_ in many)


def test_boundaries_hand_made_bu_1_5_bu_2_2_bu_4_3_bu_4_4():
    """Edges exactly at long range and a hair beyond; an enemy exactly at the zone's reach (in it), one a hair
    beyond (not), one well within it but behind a wall (not: it sees no point of the base); models beside the
    centre line exactly at the zone's reach (touching, not crossing [BU-4.4]) and a hair inside (crossing
    [BU-4.3]). Checked together, each answer is the one checked alone, and the boundaries fall as the rules
    say."""
    r30, r40 = RADIUS[30], RADIUS[40]
    at = {"S": (0, 0), "T": (0, 18 + r30 + r40),  # T's edge at long range exactly: in range [BU-1.5]
          "U": (3, 18 + HAIR + r30 + r40),  # its edge a hair beyond long range
          "Z": (10, 1 + r30 + r40)}  # an enemy of Z2's exactly at the zone's reach of Z
    y = (18 + r30 + r40) / 2
    at |= {"Z2": (10, 0), "N1": (r40 + 1, y), "N2": (-(r40 + 1 - HAIR), y)}  # N1 touches S-T's zone; N2 crosses it
    at |= {"Z3": (20, 0), "Y": (20, 1 + HAIR + r30 + r40),  # Z3 a hair beyond Y's zone
           "Z4": (30, 0), "W": (30, Fraction(1, 2) + r30 + r40)}  # Z4 within W's reach, a wall between
    low, high = fr(r30 + Fraction(1, 8)), fr(r30 + Fraction(3, 8))  # across the middle of the half-inch gap
    wall = {"id": "wall", "kind": "solid", "polygon": [[28, low], [32, low], [32, high], [28, high]]}
    ours = ("S", "Z2", "Z3", "Z4")
    units = [{"id": uid, "side": "prefecture" if uid in ours else "ito", "base": 30 if uid in ours else 40,
              "position": [fr(Fraction(c)) for c in xy], "wounds": {"boxes": 3}, "rcp": 3, "weapon": BOW}
             for uid, xy in at.items()]
    battle = battle_from_mapping({"ruleset": "bushido", "units": units, "terrain": [wall]})[1]
    attacks = [Attack(a, b) for a in at for b in at if a != b]
    many = {(c.attacker, c.target): answer(c) for c in BU.check_many(battle, attacks)}
    alone = {(a.attacker, a.target): answer(BU.check(battle, a)) for a in attacks}
    assert many == alone
    assert many[("S", "T")][0] == "legal" and many[("S", "U")][0] == "refused"
    assert "beyond the bow's long range" in many[("S", "U")][3][0][1]
    assert any("zone of control of Z" in text for _, text in many[("Z2", "T")][3])  # at the reach: in it [BU-2.2]
    for shooter in ("Z3", "Z4"):  # a hair beyond the reach; behind the wall: in no zone
        assert not any("zone of control" in text for kind, *said in many.values() if kind == "refused"
                       and said[0] == shooter for _, text in said[2])
    nominated = [n["id"] for n in many[("S", "T")][3]["nominees"]]
    assert nominated == ["N2"]  # N1 only touches the zone [BU-4.4]; N2 is crossed by a hair [BU-4.3]


def test_crossings_within_the_floats_rounding_are_worked_out_exactly_bu_4_3_bu_4_4():
    """A centre line along (3, 4) (a rational direction, so a model can stand at an exact distance from it, yet
    the floats round), the zone's reach set to 2 in: N's zone is crossed by 2^-53 in, within the floats'
    rounding (a float test with no margin finds the line clear of it); M is exactly at the reach, touching only.
    Checked together and alone: N may be nominated [BU-4.3], M may not [BU-4.4]."""
    zone = 2 - RADIUS[40]
    n_at = (Fraction(9007199254740993, 11258999068426240), Fraction(198158383604301821, 45035996273704960))
    m_at = (Fraction(38, 5), Fraction(34, 5))  # (6, 8) and 2 in along the normal (4/5, -3/5)
    for at in (n_at, m_at):  # their distances from the line x:y = 3:4, exactly
        assert abs(4 * at[0] - 3 * at[1]) / 5 == (2 - Fraction(1, 2**53) if at is n_at else 2)
    musket = {"name": "musket", "short": 10, "medium": 20, "long": 30}
    units = [{"id": "S", "side": "prefecture", "base": 30, "position": ["0", "0"], "wounds": {"boxes": 3}, "rcp": 3,
              "weapon": musket},
             *({"id": uid, "side": "ito", "base": 40, "position": [fr(x), fr(y)], "wounds": {"boxes": 3}}
               for uid, (x, y) in (("T", (Fraction(12), Fraction(16))), ("N", n_at), ("M", m_at)))]
    battle = battle_from_mapping({"ruleset": "bushido", "units": units, "options": {"zone_of_control": fr(zone)}})[1]
    together = answer(BU.check_many(battle, [Attack("S", "T")])[0])
    assert together == answer(BU.check(battle, Attack("S", "T")))
    assert [n["id"] for n in together[3]["nominees"]] == ["N"]
