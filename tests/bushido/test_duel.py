"""Bushido duels: two models exchanging ranged attacks activation by activation, turn by turn [BU-4.1, BU-7.3,
BU-8]. The exact transitions and the whole chain are checked against a brute force that shares none of their
code: every dice sequence fed to the game's own ``resolve`` and ``apply`` through the scripted dice source, the
turn passed by the game's own clauses, recursively; the Monte Carlo (every die rolled) against the exact chain by
chi-square at a fixed seed."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import pytest
from scipy.stats import chisquare

from rangefire.analysis.duel import duel, sample_duel
from rangefire.core import Attack, DiceError, ScriptedSource
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.bushido import duel as bushido_duel
from tests.duel_oracle import assert_chain_is, assert_sample_agrees, marginals, nonzero

BU = find_ruleset("bushido")
BOW = {"name": "bow", "short": 6, "medium": 12, "long": 18}


def model(uid: str, side: str, y: Any, rcp: int | None = 1, boxes: int = 2, **kw: Any) -> dict[str, Any]:
    """A 40 mm model on the y axis (Medium: no defence modifier [BU-5.4]), with a bow unless told otherwise."""
    kw.setdefault("weapon", BOW)
    out = {"id": uid, "side": side, "position": [0, y], "base": 40, "wounds": {"boxes": boxes}, **kw}
    if rcp is not None:
        out["rcp"] = rcp
    return out


def battle(*units: dict[str, Any], **kw: Any) -> Any:
    return battle_from_mapping({"ruleset": "bushido", "units": list(units), **kw})[1]


def small() -> Any:
    """A aimed (+1 attack die in turn 1 only [BU-5.3, BU-8.2]) with 2 Ammo markers [BU-4.1]; B with unlimited
    Ammo. Centres 5 in apart, about 3.4 in edge to edge: SHORT, 1 defence die [BU-5.1]."""
    return battle(model("A", "east", 0, weapon={**BOW, "ammo": 2}, states=["aimed"]), model("B", "west", 5))


# -- the brute force: every dice sequence through resolve and apply ------------------------------------------
def brute_exchanges(b: Any, attack: Attack) -> dict[Any, Fraction]:
    """Every sequence of d6 faces the attack can ask for, fed to the game's own resolve through the scripted dice
    source (a sequence too short raises DiceError and is extended by one die of each face), each applied by the
    game's own apply; a refused attack leaves the battle as it is."""
    checked = BU.check(b, attack)
    if not checked.is_legal:
        return {b: Fraction(1)}
    plan = checked.plan
    out: dict[Any, Fraction] = {}

    def go(faces: list[int]) -> None:
        try:
            resolution = BU.resolve(plan, ScriptedSource(faces))
        except DiceError:
            for face in range(1, 7):
                go([*faces, face])
            return
        after = BU.apply(b, resolution)
        out[after] = out.get(after, Fraction(0)) + Fraction(1, 6 ** len(faces))

    go([])
    return out


def wounds_left(b: Any, uid: str) -> int:
    return next((u.wounds.boxes - u.wounds.marked for u in b.units if u.id == uid), 0)


def brute_duel(start: Any, turns: int) -> dict[tuple[str, int, int, int], Fraction]:
    """(winner, turns taken, A's boxes left, B's boxes left) by recursion over the brute force's battles: in each
    turn A (whose side is active and first) shoots at B, the activation ends, B shoots at A, the activation ends
    and the turn ends [BU-8.2]; a model with every box marked is gone [BU-7.3] and the duel ends."""

    @cache
    def from_(b: Any, turn: int, shooter: str) -> tuple[tuple[tuple[str, int, int, int], Fraction], ...]:
        target = "B" if shooter == "A" else "A"
        out: dict[tuple[str, int, int, int], Fraction] = {}
        for after, p in brute_exchanges(b, Attack(shooter, target)).items():
            if all(u.id != target for u in after.units):
                ends = [((shooter.lower(), turn, wounds_left(after, "A"), wounds_left(after, "B")), Fraction(1))]
            else:
                passed, _ = BU.end_activation(after)
                if shooter == "A":
                    ends = list(from_(passed, turn, "B"))
                elif turn == turns:
                    ends = [(("neither", turn, wounds_left(after, "A"), wounds_left(after, "B")), Fraction(1))]
                else:
                    ends = list(from_(BU.end_turn(passed)[0], turn + 1, "A"))
            for key, q in ends:
                out[key] = out.get(key, Fraction(0)) + p * q
        return tuple(out.items())

    return dict(from_(start, 1, "A"))




# -- one attack -------------------------------------------------------------------------------------------------
CASES: dict[str, Callable[[], Any]] = {
    "aimed, 2 v 1 dice, Ammo spent [BU-4.1, BU-5.3]": small,
    "armour 1 and a wound modifier [BU-7.2]": lambda: battle(
        model("A", "east", 0, rcp=2, weapon={**BOW, "wound_modifier": 2}),
        model("B", "west", 5, armour=1, boxes=3)),
    "pool 0: the defender gains a die [BU-5.6]": lambda: battle(
        model("A", "east", 0, rcp=1, states=["moved"]), model("B", "west", 9, boxes=1)),
    "house rules: a harsher wound chart, ties to the defender [BU-6.3, BU-7.2]": lambda: battle(
        model("A", "east", 0, rcp=2), model("B", "west", 5, boxes=3),
        options={"attacker_wins_ties": False, "wound_chart": {"roll_1": {"sl_0": 2, "sl_1": 3},
                                                              "roll_3": {"sl_0": 1}}}),
    "prone target at long range, 3 boxes left of 5 [BU-5.4, BU-7.3]": lambda: battle(
        model("A", "east", 0, rcp=2), model("B", "west", 14, boxes=5, states=["prone"]) | {
            "wounds": {"boxes": 5, "marked": 2}}),
}


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_exchanges_equal_every_dice_sequence_through_resolve_and_apply_bu_6_bu_7(make: Callable[[], Any]):
    """The exact transitions [BU-6, BU-7.2, BU-7.3, BU-4.1] are the brute force's, battle for battle, and sum to 1."""
    b = make()
    exact = bushido_duel.exchanges(BU, b, Attack("A", "B"))
    assert sum(p for p, _ in exact) == 1
    assert len({after for _, after in exact}) == len(exact)  # equal battles merged
    assert {after: p for p, after in exact} == brute_exchanges(b, Attack("A", "B"))


def test_a_refused_attack_leaves_the_battle_as_it_is_bu_3_5_bu_3_4():
    """Out of Ammo [BU-3.5], or beyond long range [BU-3.4]: one battle, the same, with probability 1."""
    dry = battle(model("A", "east", 0, weapon={**BOW, "ammo": 0}), model("B", "west", 5))
    assert [r.clause for r in BU.check(dry, Attack("A", "B")).refusals] == ["BU-3.5"]
    assert bushido_duel.exchanges(BU, dry, Attack("A", "B")) == [(1, dry)]
    far = battle(model("A", "east", 0), model("B", "west", 30))
    assert [r.clause for r in BU.check(far, Attack("A", "B")).refusals] == ["BU-3.4"]
    assert bushido_duel.exchanges(BU, far, Attack("A", "B")) == [(1, far)]
    assert bushido_duel.sampled_exchanges(BU, far, Attack("A", "B"), 7, np.random.default_rng(0)) == [(7, far)]


def test_sampled_exchanges_roll_the_dice_and_agree_with_the_exact_ones_bu_6():
    """Every die rolled, 20,000 times from one battle: the battles left behind agree with the exact transitions
    (chi-square at a fixed seed), and the counts sum to the trials."""
    b = CASES["armour 1 and a wound modifier [BU-7.2]"]()
    exact = {after: p for p, after in bushido_duel.exchanges(BU, b, Attack("A", "B"))}
    n = 20_000
    sampled = {after: c for c, after in bushido_duel.sampled_exchanges(BU, b, Attack("A", "B"), n,
                                                                       np.random.default_rng(12))}
    assert sum(sampled.values()) == n and set(sampled) <= set(exact)
    keys = list(exact)
    assert chisquare([sampled.get(k, 0) for k in keys], [float(exact[k]) * n for k in keys]).pvalue > 0.001


# -- the turn ---------------------------------------------------------------------------------------------------
def test_the_activation_passes_and_the_turn_ends_after_the_last_side_bu_8_2():
    """BU-8.2: passing to B ends A's activation only; passing back to A (the first side) ends the turn too:
    aimed, surprised and the attack marks are cleared, prone and wounds stay, the number grows by one."""
    b = battle(model("A", "east", 0, states=["aimed"]), model("B", "west", 5, states=["prone", "surprised"]))
    start = BU.duel_begin(b, "A")
    assert start.active_side == "east"  # no active side recorded: the duel begins with A's [BU-8.2]
    shot = next(after for _, after in BU.exchanges(start, Attack("A", "B")) if after.unit("B").wounds.marked)
    mid = BU.duel_pass(shot, "B")
    assert mid.active_side == "west" and mid.turn.number == 1 and mid.unit("A").states == ("aimed",)
    assert mid.unit("A").attacked  # one ranged attack a turn [BU-8.1]
    back = BU.duel_pass(mid, "A")
    assert back.active_side == "east" and back.turn.number == 2
    assert back.unit("A").states == () and not back.unit("A").attacked
    assert back.unit("B").states == ("prone",) and back.unit("B").wounds.marked == shot.unit("B").wounds.marked


def test_a_duel_begins_with_the_turn_passed_to_the_first_shooter_bu_8_2():
    """A battle whose active side is B's: the activation passes to A's side first (A's is first in the scenario,
    so that pass also ends the turn [BU-8.2])."""
    b = battle(model("A", "east", 0, states=["aimed"]), model("B", "west", 5), active_side="west")
    start = BU.duel_begin(b, "A")
    assert start.active_side == "east" and start.turn.number == 2 and start.unit("A").states == ()
    assert BU.duel_begin(start, "A") == start


# -- the whole chain ------------------------------------------------------------------------------------------
def test_the_exact_chain_equals_the_brute_force_bu_8():
    """Three turns of A (aimed in turn 1 only, 2 Ammo: refused in turn 3 [BU-3.5]) against B: the winner, the
    turns taken and what is left of each, exactly as the brute force finds them; each sums to 1."""
    b = small()
    result = duel(BU, b, "A", "B", turns=3)
    brute = brute_duel(b, 3)
    assert_chain_is(result, brute)


def test_a_model_that_cannot_shoot_back_loses_by_its_clause_bu_3_1_bu_3_5():
    """B has no RCP [BU-3.1]; A has one Ammo marker [BU-4.1, BU-3.5]: A wins only in turn 1, with the chance of
    one attack removing B; the refusal is reported with its clause."""
    b = battle(model("A", "east", 0, rcp=2, weapon={**BOW, "ammo": 1}), model("B", "west", 5, rcp=None))
    result = duel(BU, b, "A", "B", turns=4)
    kill = sum(p for p, after in BU.exchanges(b, Attack("A", "B")) if all(u.id != "B" for u in after.units))
    assert 0 < kill < 1
    assert result.winner == {"a": kill, "b": 0, "both": 0, "neither": 1 - kill}
    assert nonzero(result.turns) == {1: kill, 4: 1 - kill}
    assert [r.clause for r in result.refusals["b"]] == ["BU-3.1"]


def test_the_monte_carlo_agrees_with_the_exact_chain_bu_6_bu_7():
    """Every die rolled (numpy) in 60,000 duels of four turns with armour, Ammo and an aimed first shot: the
    winner, the turns and what is left of each agree with the exact chain (chi-square at a fixed seed)."""
    b = battle(model("A", "east", 0, rcp=3, boxes=4, weapon={**BOW, "ammo": 3}, states=["aimed"]),
               model("B", "west", 8, rcp=2, boxes=3, armour=1, weapon={**BOW, "wound_modifier": 1}))
    exact = duel(BU, b, "A", "B", turns=4)
    n = 60_000
    sampled = sample_duel(BU, b, "A", "B", turns=4, samples=n, seed=2024)
    assert_sample_agrees(exact, sampled, n)


def test_the_duel_keeps_the_declared_target_bu_4_2():
    """In the temple yard the yojimbo may be nominated in Takeda's place [BU-4.2]; a duel is between the two
    models named, so every battle Yoichi's attack leaves behind marks Takeda or nothing, never the yojimbo."""
    from rangefire.rulesets import load_battle

    ruleset, b = load_battle("src/rangefire/examples/temple.yaml")
    assert [n.id for n in ruleset.plan(b, Attack("yoichi", "takeda")).nominees] == ["yojimbo"]
    after = bushido_duel.exchanges(ruleset, b, Attack("yoichi", "takeda"))
    assert all(s.unit("yojimbo") == b.unit("yojimbo") for _, s in after)
    assert {5 - wounds_left(s, "takeda") for _, s in after} == {0, 1, 2, 3, 4, 5}  # 1 of 6 marked: 5 left


def test_battles_equal_but_for_states_built_apart_share_a_key_bu_8_2():
    """Ending a turn builds a model's states anew [BU-8.2]: battles equal but for that have one key (the chain
    merges them), and a battle with one more box marked has another."""
    b = battle(model("A", "east", 0, states=["prone", "aimed"]), model("B", "west", 5))
    rebuilt = b.model_copy(update={"units": tuple(u.model_copy(update={"states": tuple(list(u.states))})
                                                  for u in b.units)})
    assert rebuilt.unit("A").states is not b.unit("A").states
    assert BU.duel_key(rebuilt) == BU.duel_key(b)
    hurt = b.model_copy(update={"units": (b.unit("A"), b.unit("B").model_copy(
        update={"wounds": b.unit("B").wounds.model_copy(update={"marked": 1})}))})
    assert BU.duel_key(hurt) != BU.duel_key(b)


def test_house_rules_carry_through_the_chain_and_the_monte_carlo_bu_6_3_bu_7_2():
    """With the tie rule turned to the defender and a harsher wound chart the exact chain still equals the brute
    force (which rolls through resolve, reading the battle's options), differs from the rules' duel, and the
    Monte Carlo (rolling its own dice by the battle's chart and tie rule) agrees with it."""
    house = {"attacker_wins_ties": False, "wound_chart": {"roll_1": {"sl_0": 2}, "roll_2": {"sl_0": 2},
                                                          "roll_3": {"sl_0": 2}}}
    b = battle(model("A", "east", 0, weapon={**BOW, "ammo": 2}, states=["aimed"]), model("B", "west", 5),
               options=house)
    result = duel(BU, b, "A", "B", turns=3)
    brute = brute_duel(b, 3)
    assert nonzero(result.winner) == marginals(brute)["winner"] and nonzero(result.turns) == marginals(brute)["turns"]
    assert nonzero(result.left["b"]) == marginals(brute)["b"]
    assert result.winner != duel(BU, small(), "A", "B", turns=3).winner
    n = 40_000
    sampled = sample_duel(BU, b, "A", "B", turns=3, samples=n, seed=99)
    assert_sample_agrees(result, sampled, n, parts=("winner", "b"))
