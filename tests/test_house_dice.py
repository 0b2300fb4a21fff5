"""House rules that change the dice, each against an oracle that enumerates every die face (the dice rolled again
and the dice added included), and icepool where it says the mechanic plainly; each named in the plan and the log
as a house rule with its clause; entered dice asked for it as a stage of its own; and a whole table set with one
``--set``.

- Dress on the Colors: ``options.reroll_to_hit`` (none | ones | misses) rolls those to-hit dice once more
  [DC-3.4]; ``options.sixes_ignore_cover`` leaves a hit on a natural 6 unsaved [DC-4.1].
- Bushido: ``options.reroll_failed_attack`` rolls the attack dice that fail (1s) once more; ``options.exploding_sixes``
  adds an attack die for each 6, an added 6 another, at most that many [BU-6.2].
- Arcane Legions: ``options.reroll_attack_at_most`` / ``reroll_defense_at_most`` give every unit the reroll
  abilities [AL-6.3]; ``options.critical.sixes`` sets the critical on any 6 or on two 6s for every unit [AL-6.2].
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import icepool
import numpy as np
import pytest

from rangefire.analysis.montecarlo import sample_volleys
from rangefire.core import Attack, DiceError, EnteredSource, SeededSource
from rangefire.core.options import house_rules
from rangefire.demo import example_path
from rangefire.rulesets import battle_from_mapping
from rangefire.rulesets.bushido.dice import (
    AttackRoll,
    attack_odds,
    attack_side_dist,
    sampled_attack,
    side_result,
)
from rangefire.rulesets.dress_on_the_colors.volley import VolleyOutcome, VolleyPlan, to_hit, volley_distribution
from rangefire.scenario.paths import parse_setting
from tests.arcane_legions.test_rules import AL, BLUE, WHITE
from tests.arcane_legions.test_rules import A as al_A
from tests.arcane_legions.test_rules import T as al_T
from tests.arcane_legions.test_rules import battle as al_battle
from tests.bushido.test_rules import BU, S, T, battle
from tests.commands import assert_setting_refused, run
from tests.conftest import dc_battle, square, unit
from tests.oracles import brute_lineup, chi_square

WHEATFIELD = str(example_path("wheatfield.yaml"))
P_MIN = 1e-3


def rejected(seen: Counter[Any], exact: dict[Any, Fraction], n: int) -> bool:
    """Whether the samples are rejected as drawn from ``exact``: an outcome it gives no chance of, or a p-value
    below the threshold."""
    try:
        return chi_square(seen, exact, n) < P_MIN
    except AssertionError:
        return True


# == Dress on the Colors ==========================================================================================
def dc_plan(dice: int, need: int, save: int | None, reroll: str, sixes: bool, stands: int = 2,
            micro: int = 0) -> VolleyPlan:
    """A volley's numbers, set directly: ``dice`` to-hit dice needing a natural ``need``, saves on ``save``, a
    one-die discipline check passing on 4 (so that disorder has odds of its own)."""
    return VolleyPlan(ruleset="dress-on-the-colors", attacker="F", target="T", stands_firing=dice, need=need,
                      save=save, target_stands=stands, target_micro_hits=micro, discipline_dice=1,
                      discipline_pass=4, reroll_to_hit=reroll, sixes_ignore_cover=sixes)


def die_rolls(need: int, reroll: str) -> list[tuple[int, int]]:
    """Every way one to-hit die can fall, with its weight out of 36: a face rolled again under the house rule
    lists its six second faces (the second stands), any other its face six times over. Written from the text:
    ``ones`` rolls again a natural 1 that does not hit, ``misses`` every die that does not hit but a 6."""
    out = []
    for first in range(1, 7):
        hits = need <= 6 and first >= need
        again = (reroll == "ones" and first == 1 and not hits) or (reroll == "misses" and not hits and first != 6)
        out += [(second, 1) for second in range(1, 7)] if again else [(first, 6)]
    return out


def brute_volley(plan: VolleyPlan) -> dict[VolleyOutcome, Fraction]:
    """Every to-hit die (its second roll too), every save die and every discipline die, enumerated."""
    rolls: Counter[tuple[int, int, bool]] = Counter()  # the to-hit dice gathered first: (hits, unsaveable, a 6)
    for rolled in itertools.product(die_rolls(plan.need, plan.reroll_to_hit), repeat=plan.dice):
        weight = 1
        for _, w in rolled:
            weight *= w
        faces = [face for face, _ in rolled]
        hit = [plan.need <= 6 and f >= plan.need for f in faces]
        unsaveable = sum(1 for f, h in zip(faces, hit, strict=True) if h and f == 6) if plan.sixes_ignore_cover else 0
        rolls[(sum(hit), unsaveable, 6 in faces)] += weight
    counts: Counter[VolleyOutcome] = Counter()
    for (hits, unsaveable, suppression), weight in rolls.items():
        for saves in itertools.product(range(1, 7), repeat=hits - unsaveable if plan.save is not None else 0):
            unsaved = hits if plan.save is None else unsaveable + sum(1 for s in saves if s < plan.save)
            lost = min((plan.target_micro_hits + unsaved) // 2, plan.target_stands)
            for check in range(1, 7):  # the one discipline die: fails below 4 [DC-5.2]
                disorder = suppression and lost < plan.target_stands and check < plan.discipline_pass
                share = 6 ** (plan.dice - len(saves))  # each save die rolled weighs a sixth
                counts[VolleyOutcome(hits, unsaved, lost, suppression, disorder)] += weight * share
    total = sum(counts.values())
    return {k: Fraction(v, total) for k, v in counts.items()}


DC_CASES = [(dice, need, save, reroll, sixes)
            for dice in (1, 2) for need in (1, 4, 6, 7) for save in (None, 4)
            for reroll in ("none", "ones", "misses") for sixes in (False, True)]
DC_CASES += [(3, 5, 5, "misses", True), (3, 3, 6, "ones", True), (3, 2, None, "misses", False)]


@pytest.mark.parametrize(("dice", "need", "save", "reroll", "sixes"), DC_CASES)
def test_the_volley_with_house_dice_equals_every_face_enumerated_dc_3_4_dc_4_1(dice, need, save, reroll, sixes):
    """DC-3.4, DC-4.1, DC-5.1: to-hit dice rolled again and 6s unsaved, the joint outcome of the volley (hits,
    unsaved hits, stands lost, suppression, disorder) equals the enumeration of every die; a need of 1 (lowest_hit
    1) and one above 6 (no die can hit, a 6 still suppresses) included."""
    plan = dc_plan(dice, need, save, reroll, sixes)
    exact = volley_distribution(plan).probabilities()
    assert exact == brute_volley(plan)


def test_the_oracle_can_tell_the_house_rules_apart_dc_3_4():
    """The enumeration is no echo of the code: each house rule changes what it gives."""
    base = brute_volley(dc_plan(2, 4, 4, "none", False))
    assert brute_volley(dc_plan(2, 4, 4, "ones", False)) != base
    assert brute_volley(dc_plan(2, 4, 4, "misses", False)) != brute_volley(dc_plan(2, 4, 4, "ones", False))
    assert brute_volley(dc_plan(2, 4, 4, "none", True)) != base
    assert volley_distribution(dc_plan(2, 4, 4, "ones", False)).probabilities() != base


@pytest.mark.parametrize("reroll", ["ones", "misses"])
@pytest.mark.parametrize(("dice", "need"), [(5, 4), (8, 5), (6, 7), (4, 2)])
def test_to_hit_rerolled_equals_icepool_dc_3_4(dice, need, reroll):
    """DC-3.4: hits and natural 6s of the to-hit dice, each die rolled once more as the house rule says, by
    icepool's own reroll (depth 1)."""
    misses = [f for f in range(1, 6) if not (need <= 6 and f >= need)]
    die = icepool.d6.reroll([1] if reroll == "ones" else misses, depth=1)
    both = dice @ die.map(lambda f: 100 * (need <= 6 and f >= need) + (f == 6))  # hits * 100 + sixes, summed
    expected: dict[tuple[int, bool], Fraction] = Counter()
    for code, q in both.items():
        hits, sixes = divmod(code, 100)
        expected[(hits, sixes > 0)] += Fraction(q, both.denominator())
    assert to_hit(dice, need, reroll).probabilities() == dict(sorted(expected.items()))


def woods_battle(**options: Any) -> Any:
    """F (4 stands) 10 in from T, which stands in light woods (saves on 5+)."""
    woods = {"id": "woods", "kind": "light", "polygon": square(-10, 9.5, 10, 12)}
    return dc_battle(unit("F", "blue", (0, 0), 0), unit("T", "grey", (0, 10), 180), terrain=(woods,), **options)


def test_the_plan_and_the_log_name_the_house_rules_dc_3_4_dc_4_1(doc):
    """DC-3.4, DC-4.1: the plan says each house rule with its clause, the summary marks it, the rules' way
    beside it; the log shows the dice rolled again (stage hit-reroll) and the 6s that no save meets."""
    plan = doc.plan(woods_battle(reroll_to_hit="misses", sixes_ignore_cover=True), Attack("F", "T"))
    notes = {n.clause: n.text for n in plan.notes if n.text.startswith("house rule")}
    assert "misses are rolled once more" in notes["DC-3.4"] and "the rules roll each die once" in notes["DC-3.4"]
    assert "a hit on a natural 6 cannot be saved" in notes["DC-4.1"]
    assert plan.dice_text() == "4 dice, natural 4+, saves 5+, misses rolled again, 6s unsaved"
    summary = dict(plan.summary())
    assert "misses rolled once more (house rule)" in summary["to hit"]
    assert "a natural 6 cannot be saved (house rule)" in summary["cover"]
    # 6 5 2 1: the 2 and 1 rolled again, 6 and 3; hits 6 5 6; two 6s beyond the save, one save die for the 5
    res = doc.resolve(plan, EnteredSource({"hit": [6, 5, 2, 1], "hit-reroll": [6, 3], "save": [2],
                                           "discipline": [6, 6]}, doc.stages))
    said = [(line.clause, line.text) for line in res.log]
    assert ("DC-3.4", "house rule: misses are rolled once more (options.reroll_to_hit = misses; the rules roll "
                      "once): 2 1 rolled again: 6 3; the dice now 6 5 6 3") in said
    assert any(c == "DC-4.1" and "2 hits on a natural 6 cannot be saved" in t for c, t in said)
    assert res.dice["hit-reroll"] == (6, 3) and res.dice["save"] == (2,)
    assert (res.outcome.hits, res.outcome.unsaved_hits) == (3, 3)
    # the dice rolled again are asked for by count, named by the stage
    with pytest.raises(DiceError, match="hit-reroll: 2 needed"):
        doc.resolve(plan, EnteredSource({"hit": [6, 5, 2, 1], "save": [2]}, doc.stages))
    # under the rules: no house rule said, no stage asked
    rules = doc.plan(woods_battle(), Attack("F", "T"))
    assert "house rule" not in " ".join(n.text for n in rules.notes) and rules.dice_text().endswith("saves 5+")


def test_sampled_volleys_agree_with_the_exact_odds_dc_3_4(doc):
    """The numpy sampler with the house rules (misses rolled again, 6s unsaved) against the exact joint
    distribution; and against the rules' odds it fails (the test can fail)."""
    plan = dc_plan(6, 5, 4, "misses", True, stands=3, micro=1)
    exact = volley_distribution(plan).probabilities()
    n = 200_000
    s = sample_volleys(plan, n, seed=24)
    seen = Counter(VolleyOutcome(*row) for row in zip(s.hits.tolist(), s.unsaved_hits.tolist(),
                                                         s.stands_lost.tolist(), s.suppression.tolist(),
                                                         s.disorder.tolist(), strict=True))
    assert chi_square(seen, exact, n) > P_MIN
    seen_rules = Counter(VolleyOutcome(*row) for row in zip(
        *(getattr(sample_volleys(dc_plan(6, 5, 4, "none", False, 3, 1), n, 24), f).tolist() for f in (
            "hits", "unsaved_hits", "stands_lost", "suppression", "disorder")), strict=True))
    assert rejected(seen_rules, exact, n)


def test_seeded_resolutions_agree_with_the_exact_odds_dc_3_4(doc):
    """Resolutions one by one (the second roll asked as its own stage) against the exact odds."""
    plan = doc.plan(woods_battle(reroll_to_hit="ones", sixes_ignore_cover=True), Attack("F", "T"))
    exact = volley_distribution(plan).probabilities()
    source, n = SeededSource(2024), 20_000
    seen: Counter[VolleyOutcome] = Counter()
    for _ in range(n):
        o = doc.resolve(plan, source).outcome
        seen[VolleyOutcome(o.hits, o.unsaved_hits, o.stands_lost, o.suppression, o.disorder)] += 1
    assert chi_square(seen, exact, n) > P_MIN


# == Bushido ======================================================================================================
def attack_rolls(n: int, roll: AttackRoll) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Every way ``n`` attack dice can fall under the house rules, with its probability, written from the text:
    each 1 rolled once more (the second stands); then for each 6 a die added, one at a time, a 6 on an added die
    owing another, until none is owed or ``exploding`` dice are added."""
    first = [((f,), Fraction(1, 6)) if f != 1 or not roll.reroll_failed else ((g,), Fraction(1, 36))
             for f in range(1, 7) for g in (range(1, 7) if f == 1 and roll.reroll_failed else [f])]
    for dice in itertools.product(first, repeat=n):
        faces = tuple(f for (f,), _ in dice)
        p = Fraction(1)
        for _, q in dice:
            p *= q
        yield from _added(faces, faces.count(6), roll.exploding, p)


def _added(faces: tuple[int, ...], owed: int, left: int, p: Fraction) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    if not owed or not left:
        yield faces, p
        return
    for face in range(1, 7):
        yield from _added((*faces, face), owed - 1 + (face == 6), left - 1, p / 6)


def brute_attack(attack: int, defense: int, modifier: int, roll: AttackRoll) -> tuple[dict, Fraction]:
    """Wounds and the chance of a hit: every attack die (rolled again, added), every defense die, the wound die."""
    wounds: Counter[int] = Counter()
    hit_p = Fraction(0)
    chart = BU_RULES_CHART
    sides: Counter[tuple[int, int]] = Counter()  # each side's results gathered first: the pairs are fewer
    for a_dice, pa in attack_rolls(attack, roll):
        sides[result(a_dice)] += pa
    defenses = Counter(result(d_dice) for d_dice in itertools.product(range(1, 7), repeat=defense))
    for ra, pa in sides.items():
        for rd, ways in defenses.items():
            pd = pa * ways / 6**defense
            won = ra[0] > rd[0] or (ra[0] == rd[0] > 0 and ra[1] >= rd[1])
            if not won:
                wounds[0] += pd
                continue
            hit_p += pd
            sl = min(ra[0] - rd[0], 6)
            for die in range(1, 7):
                wounds[chart[min(10, max(1, die + modifier)) - 1][sl]] += pd / 6
    return {k: v for k, v in sorted(wounds.items()) if v}, hit_p


def result(dice: tuple[int, ...]) -> tuple[int, int]:
    """BU-6.2 from its text: 1s discarded, the highest plus 1 for each other remaining die; all 1s: 0."""
    kept = [d for d in dice if d != 1]
    return (max(kept) + len(kept) - 1, len(kept)) if kept else (0, 0)


BU_RULES_CHART = ((0, 1, 1, 1, 1, 2, 3), (0, 1, 1, 1, 2, 3, 4), (0, 1, 1, 2, 3, 4, 5), (1, 1, 2, 3, 4, 5, 6),
                  (1, 2, 3, 4, 5, 6, 7), (2, 3, 4, 5, 6, 7, 8), (3, 4, 5, 6, 7, 8, 9), (4, 5, 6, 7, 8, 9, 10),
                  (5, 6, 7, 8, 9, 10, 11), (6, 7, 8, 9, 10, 11, 12))


@pytest.mark.parametrize("roll", [AttackRoll(True, 0), AttackRoll(False, 1), AttackRoll(False, 3),
                                  AttackRoll(True, 2)])
@pytest.mark.parametrize(("attack", "defense"), [(1, 1), (2, 1), (1, 3), (3, 2)])
def test_the_attack_with_house_dice_equals_every_face_enumerated_bu_6_2(attack, defense, roll):
    """BU-6.2, BU-6.3, BU-7.2: the 1s rolled again and the dice the 6s add (a chain, at most so many), the
    wounds and the chance of a hit equal the enumeration of every die, the wound die included."""
    wounds, _, hit = attack_odds(attack, defense, 0, None, roll=roll)
    b_wounds, b_hit = brute_attack(attack, defense, 0, roll)
    assert hit == b_hit
    assert wounds.probabilities() == b_wounds


def test_the_house_dice_change_the_attack_bu_6_2():
    """Each house rule makes the attacker stronger, never weaker, and the oracle sees it too."""
    base = brute_attack(2, 2, 0, AttackRoll())[1]
    for roll in (AttackRoll(True, 0), AttackRoll(False, 2)):
        assert brute_attack(2, 2, 0, roll)[1] > base
        assert attack_odds(2, 2, 0, None, roll=roll)[2] == brute_attack(2, 2, 0, roll)[1]


@pytest.mark.parametrize("n", [1, 3, 5])
def test_the_failed_dice_rolled_again_equal_icepool_bu_6_2(n):
    """BU-6.2: the attacker's (result, remaining dice) with each 1 rolled once more, by icepool's reroll of the
    die (depth 1), scored from the text."""
    side = icepool.d6.reroll([1], depth=1).pool(n).expand().map(lambda dice: result(tuple(dice)))
    expected = {tuple(k): Fraction(q, side.denominator()) for k, q in side.items()}
    assert attack_side_dist(n, None, AttackRoll(True, 0)).probabilities() == dict(sorted(expected.items()))


@pytest.mark.parametrize("roll", [AttackRoll(False, 3), AttackRoll(True, 2), AttackRoll(True, 0)])
def test_sampled_attack_dice_agree_with_the_exact_side_bu_6_2(roll):
    """The numpy sampler (the duel's Monte Carlo) of the attack dice, rolled again and added, against the exact
    distribution of the attacker's side; against the rules' side it fails."""
    n = 100_000
    dice = sampled_attack(n, 3, roll, np.random.default_rng(6))
    seen = Counter(side_result(tuple(row)) for row in dice.tolist())
    assert chi_square(seen, attack_side_dist(3, None, roll).probabilities(), n) > P_MIN
    assert rejected(seen, attack_side_dist(3, None, AttackRoll()).probabilities(), n)


def bu_battle(**options: Any) -> Any:
    return battle(S(rcp=3), T(8), options=options)


def test_the_plan_and_the_log_name_the_house_rules_bu_6_2():
    """BU-6.2: the plan says each house rule with its clause; entered dice are asked for as stages
    attack-reroll and attack-extra (a round for each 6, a 6 among the added dice owing another)."""
    plan = BU.plan(bu_battle(reroll_failed_attack=True, exploding_sixes=3), Attack("S", "T"))
    notes = [n.text for n in plan.notes if n.clause == "BU-6.2"]
    assert any("each attack die that fails (a 1) is rolled once more" in t for t in notes)
    assert any("each 6 on the attack dice adds an attack die, an added 6 another, at most 3 dice added" in t
               for t in notes)
    assert plan.dice_text().endswith("attack 1s rolled again, each 6 adds a die (at most 3)")
    dice = {"attack": [6, 1, 3], "defense": [5, 5], "attack-reroll": [6], "attack-extra": [6, 2, 4], "wound": [3]}
    res = BU.resolve(plan, EnteredSource(dice, BU.stages))
    said = [line.text for line in res.log if line.clause == "BU-6.2"]
    assert any(t.endswith("1 die rolled again: 6") for t in said)
    # two 6s: two dice added (6 and 2); the added 6 adds one more (4): three, the most
    assert any(t.endswith("2 sixes: 3 dice added, 6 2 4") for t in said)
    assert any(t.startswith("attack dice 6, 6, 3, 6, 2, 4: 1s discarded, 6 remain, result 11") for t in said)
    assert res.dice["attack-extra"] == (6, 2, 4) and res.outcome.hit
    with pytest.raises(DiceError, match="attack-extra: 2 needed"):
        BU.resolve(plan, EnteredSource({**dice, "attack-extra": [6]}, BU.stages))


def test_the_exact_odds_of_a_battle_are_the_house_dice_odds_bu_6_2():
    """BU-6.2 through the game: the odds of a battle under the house rules are the dice's with them, and differ
    from the rules' odds."""
    house = BU.odds(BU.plan(bu_battle(reroll_failed_attack=True, exploding_sixes=2), Attack("S", "T")))
    rules = BU.odds(BU.plan(bu_battle(), Attack("S", "T")))
    assert house.events["hit"] == brute_attack(3, 2, 0, AttackRoll(True, 2))[1] != rules.events["hit"]


# == Arcane Legions ===============================================================================================
@pytest.mark.parametrize(("house_a", "own_a", "house_d"), [(2, 0, 0), (1, 3, 0), (0, 0, 2), (2, 1, 1)])
def test_every_unit_rerolls_under_the_game_wide_option_al_6_3(house_a, own_a, house_d):
    """AL-6.3: options.reroll_attack_at_most / reroll_defense_at_most give every unit the reroll, a unit's own
    standing where it reaches higher; the hits equal the enumeration of every die and every reroll."""
    b = al_battle(al_A(slots=[BLUE] * 2, abilities={"reroll_attack_at_most": own_a}), al_T(4, slots=[WHITE] * 2),
                  reroll_attack_at_most=house_a, reroll_defense_at_most=house_d)
    plan = AL.plan(b, Attack("A", "T"))
    assert (plan.reroll_attack_at_most, plan.reroll_defense_at_most) == (max(house_a, own_a), house_d)
    expected = brute_lineup(2, 2, reroll_a=max(house_a, own_a), reroll_d=house_d, crit="one")
    assert AL.odds(plan).outcomes["hits"].probabilities() == expected
    notes = [n.text for n in plan.notes if n.clause == "AL-6.3"]
    if house_a > own_a:
        assert any(f"A rerolls once each attack die showing {house_a} or less (house rule: "
                   f"options.reroll_attack_at_most = {house_a}" in t for t in notes)
    else:
        assert not any("house rule" in t and "attack" in t for t in notes)


@pytest.mark.parametrize("sixes", [1, 2])
def test_a_critical_on_any_6_or_two_for_every_unit_al_6_2(sixes):
    """AL-6.2: options.critical.sixes set once for every unit (any 6, or two): the hits with the critical equal
    the enumeration, and the plan names the house rule."""
    b = al_battle(al_A(slots=[BLUE] * 3), al_T(4, slots=[WHITE] * 2), critical={"sixes": sixes})
    plan = AL.plan(b, Attack("A", "T"))
    odds = AL.odds(plan)
    assert odds.outcomes["hits"].probabilities() == brute_lineup(3, 2, crit="one", crit_sixes=sixes)
    assert any(n.clause == "AL-6.2" and f"on {sixes} (house rule; the rules say 3) or more 6s" in n.text
               for n in plan.notes)


def test_the_game_wide_reroll_is_asked_for_as_its_stage_al_6_3():
    """AL-6.3: entered dice for the house rule's reroll are the stage attack-reroll, by count."""
    b = al_battle(al_A(slots=[BLUE] * 3), al_T(4, slots=[WHITE] * 2), reroll_attack_at_most=2)
    plan = AL.plan(b, Attack("A", "T"))
    res = AL.resolve(plan, EnteredSource({"attack": [1, 5, 2], "defense": [4, 4], "attack-reroll": [6, 6]}, AL.stages))
    assert res.dice["attack-reroll"] == (6, 6)
    with pytest.raises(DiceError, match="attack-reroll: 2 needed"):
        AL.resolve(plan, EnteredSource({"attack": [1, 5, 2], "defense": [4, 4]}, AL.stages))


# == a whole table in one --set ===================================================================================
def dc_options(*settings: str) -> Any:
    _, b = battle_from_mapping({"ruleset": "dress-on-the-colors", "units": [unit("F", "blue", (0, 0))],
                                "options": {"to_hit": {"rifled-musket": {"medium": 2}}}},
                               settings=[parse_setting(s) for s in settings])
    return b.options


def test_a_mapping_sets_a_whole_row_dc_3_2():
    """DC-3.2: one --set with a mapping replaces the row the scenario holds; what it leaves out is the rules'."""
    whole = dc_options("options.to_hit.rifled-musket={short: 3, medium: 4, long: 6}")
    assert (whole.to_hit.rifled_musket.short, whole.to_hit.rifled_musket.medium, whole.to_hit.rifled_musket.long) \
        == (3, 4, 6)
    assert whole == dc_options("options.to_hit.rifled-musket.short=3", "options.to_hit.rifled-musket.medium=4",
                               "options.to_hit.rifled-musket.long=6")
    part = dc_options("options.to_hit.rifled-musket={short: 3}")  # the file's medium 2 replaced: the rules' 4
    assert (part.to_hit.rifled_musket.short, part.to_hit.rifled_musket.medium) == (3, 4)
    table = dc_options("options.cover_save={light: 4}")
    assert (table.cover_save.light, table.cover_save.heavy) == (4, 4)
    assert [(r.path, r.value) for r in house_rules(table)] == [("options.to_hit.rifled-musket.medium", 2),
                                                               ("options.cover_save.light", 4)]


@pytest.mark.parametrize(("setting", "says"), [
    ("options.to_hit.rifled-musket={shrt: 3}",
     "options.to_hit.rifled-musket.shrt: no such option; did you mean options.to_hit.rifled-musket.short?"),
    ("options.to_hit.rifled-musket={short: 9}", "options.to_hit.rifled-musket.short: must be 'none' or a whole"),
    ("options.to_hit.rifled-musket={short: {a: 1}}", "options.to_hit.rifled-musket.short is a single value"),
    ("options.lowest_hit={a: 1}", "options.lowest_hit is a single value; it has no 'a'"),
    ("options.to_hit={rifled-musket: 3}", "options.to_hit.rifled-musket: must be a mapping"),
    ("options.to_hit.rifled-musket={1: 3}", "options.to_hit.rifled-musket: a mapping's keys are names, got 1"),
    ("options.reroll_to_hit=twice", "options.reroll_to_hit"),
    ("options.exploding_sixes=3", "options.exploding_sixes: no such option"),
])
def test_a_bad_mapping_is_refused_naming_its_path(setting, says):
    """Bad input in a mapping set whole is refused with exit 2, naming the path within the table, no traceback."""
    assert_setting_refused(WHEATFIELD, ("-a", "15th-alabama"), setting, says)


def test_a_whole_row_reaches_the_odds_at_the_command_line():
    """One --set of a row changes the odds as the three cells set one by one do, and the plan names each cell
    as a house rule."""
    one = json.loads(run("odds", WHEATFIELD, "-a", "15th-alabama", "--json", "--set",
                         "options.to_hit.rifled-musket={short: 3, medium: 3, long: 5}").stdout)
    three = json.loads(run("odds", WHEATFIELD, "-a", "15th-alabama", "--json", "--set",
                           "options.to_hit.rifled-musket.short=3", "--set", "options.to_hit.rifled-musket.medium=3")
                       .stdout)
    assert one["outcomes"] == three["outcomes"] and one["plan"]["need"] == 4
    assert [r["path"] for r in one["house_rules"]] == ["options.to_hit.rifled-musket.short",
                                                      "options.to_hit.rifled-musket.medium"]


# == compare and sweep ============================================================================================
def test_a_sweep_over_the_house_dice_is_the_plain_loop_dc_3_4_dc_4_1(tmp_path):
    """DC-3.4, DC-4.1: a sweep whose axes are the house rules of the dice (with an axis the check copies into the
    plan, so that points share their checks) gives every point the plain loop's numbers, each rule its own."""
    pq = pytest.importorskip("pyarrow.parquet")
    from rangefire.analysis.sweep import load_grid
    from rangefire.analysis.sweep_run import run_sweep
    from tests.test_sweep import grid_file, plain_rows

    grid = load_grid(grid_file(tmp_path, f"""
        scenario: {WHEATFIELD}
        attacker: 15th-alabama
        axes:
          - {{path: options.reroll_to_hit, values: [none, ones, misses]}}
          - {{path: options.sixes_ignore_cover, values: [false, true]}}
          - {{path: options.discipline_pass, values: [5, 6]}}
        """))
    out = tmp_path / "out.parquet"
    run_sweep(grid, out, workers=1, chunk_size=5)
    rows = pq.read_table(out).to_pylist()
    assert rows == plain_rows(grid, range(grid.points))
    assert len({(r["hits_mean"], r["unsaved_hits_mean"]) for r in rows}) == 6  # each rule moves the odds


def test_compare_sets_the_house_dice_side_by_side_dc_3_4_dc_4_1():
    """DC-3.4, DC-4.1: compare's variants under the house rules have the odds of the game under them, and each
    variant's house rule is named with its clause."""
    data = json.loads(run("compare", WHEATFIELD, "-a", "15th-alabama", "--variant", "ones:options.reroll_to_hit=ones",
                          "--variant", "sixes:options.sixes_ignore_cover=true", "--json").stdout)
    means = data["outcomes"]["unsaved_hits"]["mean"]["values"]
    assert means == {"rules": "4/3", "ones": "14/9", "sixes": "2"}  # 8 dice needing 5+, saves on 4+
    named = {v["name"]: [(r["path"], r["clause"]) for r in v["house_rules"]] for v in data["variants"]}
    assert named["ones"] == [("options.reroll_to_hit", "DC-3.4")] and named["sixes"] == [
        ("options.sixes_ignore_cover", "DC-4.1")]


# == duels ========================================================================================================
def test_a_duel_under_the_house_dice_equals_every_die_played_dc_3_4_dc_4_1(doc):
    """DC-3.4, DC-4.1, DC-9.3: two turns of volleys with misses rolled again and 6s unsaved: the exact duel
    equals every dice sequence played through resolve (its second rolls asked as the stage hit-reroll) and
    apply; and differs from the duel under the rules."""
    from rangefire.analysis.duel import duel
    from tests.duel_oracle import assert_chain_is, brute_duel

    wood = {"id": "wood", "kind": "light", "polygon": square(-3, 7.5, 3, 10)}
    house = dc_battle(unit("F", "blue", (0, 0), 0, stands=1), unit("T", "grey", (0, 7), 180, stands=1),
                      terrain=(wood,), discipline_dice=1, reroll_to_hit="misses", sixes_ignore_cover=True)
    result = duel(doc, house, "F", "T", turns=2)
    assert_chain_is(result, brute_duel(doc, house, "F", "T", 2))
    rules = house.model_copy(update={"options": house.options.model_copy(
        update={"reroll_to_hit": "none", "sixes_ignore_cover": False})})
    assert duel(doc, rules, "F", "T", turns=2).winner != result.winner


def test_a_duel_under_the_house_dice_equals_every_die_played_bu_6_2():
    """BU-6.2, BU-8.2: the attack dice that fail rolled again and 6s adding dice, two turns of a duel: the exact
    chain equals every dice sequence played through resolve (stages attack-reroll and attack-extra) and apply."""
    from rangefire.analysis.duel import duel
    from tests.bushido.test_duel import brute_duel, small
    from tests.duel_oracle import assert_chain_is

    start = small()
    house = start.model_copy(update={"options": start.options.model_copy(
        update={"reroll_failed_attack": True, "exploding_sixes": 1})})
    result = duel(BU, house, "A", "B", turns=2)
    assert_chain_is(result, brute_duel(house, 2))
    assert duel(BU, start, "A", "B", turns=2).winner != result.winner


def test_a_duel_under_the_game_wide_reroll_equals_every_die_played_al_6_3():
    """AL-6.3, AL-9.2: every unit rerolling its 1s and 2s (a house rule), two turns: the exact duel equals every
    dice sequence played through resolve (the rerolls asked as their stages) and apply."""
    from rangefire.analysis.duel import duel
    from tests.arcane_legions.test_duel_al import game
    from tests.duel_oracle import assert_chain_is, brute_duel

    start = game()
    house = start.model_copy(update={"options": start.options.model_copy(
        update={"reroll_attack_at_most": 2, "reroll_defense_at_most": 1})})
    result = duel(AL, house, "A", "T", turns=2)
    assert_chain_is(result, brute_duel(AL, house, "A", "T", 2))
    assert duel(AL, start, "A", "T", turns=2).winner != result.winner
