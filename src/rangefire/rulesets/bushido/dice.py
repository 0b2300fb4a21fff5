"""Bushido dice: the pools after the zero-pool rule, the opposed test, success levels and the wound chart
[BU-5.6, BU-6, BU-7].

Exact odds never enumerate rolls. One side's result depends only on how many of its dice are not 1s (``k``,
a binomial count) and the highest of those (``m``: ``(m-1)^k - (m-2)^k`` ways over the faces 2 to 6), so a pool
of n dice has at most 5n + 1 outcomes, and the opposed test is a product of two such tables.

>>> side_result((6, 4, 1, 1))            # the 1s are discarded; 6 plus 1 for the other remaining die
(7, 2)
>>> side_result((6, 5, 4, 3, 2), cap=2)  # the later edition counts at most 2 supporting dice
(8, 5)
>>> contest((7, 2), (7, 1))              # equal results: more remaining dice wins at SL 0
(True, 0)
>>> wounds_for(6, 2)                     # the chart: roll 6 at SL 2
4
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from rangefire.dice import Dist
from rangefire.rulesets.bushido.scenario import RULES_WOUND_CHART

if TYPE_CHECKING:  # numpy is loaded only where dice are sampled
    import numpy as np
    from numpy.typing import NDArray

#: A wound chart: ``chart[roll - 1][sl]`` [BU-7.2].
Chart = tuple[tuple[int, ...], ...]

FACES = 6
#: The rules' wound chart [BU-7.2], row by row: roll 1 to 10, columns SL 0 to 6 (a battle's chart is its option
#: ``wound_chart``, ``battle.options.chart``; this is its default).
WOUND_CHART: Chart = RULES_WOUND_CHART
MAX_CHART_SL = 6

#: A side's result: (result, dice remaining after the 1s are discarded).
Side = tuple[int, int]


class AttackRoll(NamedTuple):
    """House rules of the attack dice [BU-6.2]: ``reroll_failed``, each die that fails (a 1) is rolled once
    more and the second roll stands; ``exploding``, each 6 then adds a die (an added 6 adds another), at most
    this many added dice in all (0: none). Added dice are rolled once. The rules: neither."""

    reroll_failed: bool = False
    exploding: int = 0


#: The attack dice as the rules roll them.
RULES_ROLL = AttackRoll()


def pools(attack: int, defense: int) -> tuple[int, int, int, int]:
    """Dice rolled by each side after the zero-pool rule [BU-5.6], and the dice each gained from the other.

    >>> pools(-2, 3)     # attack pool -2: roll 1, the defender gains 3
    (1, 6, 0, 3)
    >>> pools(0, -1)     # both below 1: each rolls 1, neither gains
    (1, 1, 0, 0)
    """
    if attack < 1 and defense < 1:
        return 1, 1, 0, 0
    gain_d = 1 - attack if attack < 1 else 0
    gain_a = 1 - defense if defense < 1 else 0
    return max(attack, 1) + gain_a, max(defense, 1) + gain_d, gain_a, gain_d


def side_result(dice: Sequence[int], cap: int | None = None) -> Side:
    """One side's result [BU-6.2]: discard the 1s; the highest remaining die plus 1 for each other remaining
    die (at most ``cap`` of them); 0 when every die is a 1."""
    kept = sorted((d for d in dice if d != 1), reverse=True)
    if not kept:
        return 0, 0
    support = len(kept) - 1 if cap is None else min(len(kept) - 1, cap)
    return kept[0] + support, len(kept)


def contest(attacker: Side, defender: Side, attacker_wins_ties: bool = True) -> tuple[bool, int]:
    """Whether the attacker wins the opposed test, and the winner's success level [BU-6.3].

    The higher result wins by the difference; on equal results the side with more remaining dice wins at SL 0,
    and if that is equal too the attacker does (the defender, with ``attacker_wins_ties`` false); a result of 0
    never wins.

    >>> contest((5, 2), (5, 2)), contest((5, 2), (5, 2), attacker_wins_ties=False)
    ((True, 0), (False, 0))
    """
    (ra, ka), (rd, kd) = attacker, defender
    if ra != rd:
        return ra > rd, abs(ra - rd)
    if ra == 0:
        return False, 0  # two results of 0: neither wins, so the attack does not hit
    return (ka >= kd if attacker_wins_ties else ka > kd), 0


def _defender_wins_ties(attacker: Side, defender: Side) -> tuple[bool, int]:
    return contest(attacker, defender, attacker_wins_ties=False)


def wound_roll(die: int, modifier: int) -> int:
    """The roll on the wound chart: the die plus the modifier, clamped to 1..10 [BU-7.2]."""
    return min(10, max(1, die + modifier))


def wounds_for(roll: int, sl: int, chart: Chart = WOUND_CHART) -> int:
    """The chart's entry for a roll (1..10) and a success level (above 6 counts as 6) [BU-7.2]."""
    return chart[roll - 1][min(sl, MAX_CHART_SL)]


def side_dist(n: int, cap: int | None = None) -> Dist[Side]:
    """The exact distribution of one side's (result, remaining dice) for ``n`` dice, over die faces.

    >>> side_dist(1)
    Dist({(0, 0): 1, (2, 1): 1, (3, 1): 1, (4, 1): 1, (5, 1): 1, (6, 1): 1})
    """
    weights: dict[Side, int] = {(0, 0): 1}  # every die a 1
    for k in range(1, n + 1):
        ways = math.comb(n, k)  # which dice are not 1s (the others show the one face 1)
        support = k - 1 if cap is None else min(k - 1, cap)
        for m in range(2, FACES + 1):
            highest = (m - 1) ** k - (m - 2) ** k  # k dice over faces 2..m with at least one m
            if highest:
                key = (m + support, k)
                weights[key] = weights.get(key, 0) + ways * highest
    return Dist(weights)


@lru_cache(maxsize=1024)
def added_kept(pending: int, budget: int) -> Dist[int]:
    """How many added attack dice remain (are not 1s), with ``pending`` 6s yet to add a die each and ``budget``
    dice left to add [BU-6.2, house rule ``exploding_sixes``]: each added die is rolled once; a 6 on it adds
    another. One die at a time, exactly (the dice added in a round are the same dice, taken in turn).

    >>> added_kept(1, 1).probabilities()
    {0: Fraction(1, 6), 1: Fraction(5, 6)}
    >>> added_kept(1, 2).probability(2)  # a 6, then anything but a 1
    Fraction(5, 36)
    """
    if pending == 0 or budget == 0:
        return Dist.constant(0)
    after = {"one": added_kept(pending - 1, budget - 1),  # a 1: discarded, and it adds nothing
             "kept": added_kept(pending - 1, budget - 1).map(lambda more: more + 1),  # 2 to 5: kept
             "six": added_kept(pending, budget - 1).map(lambda more: more + 1)}  # a 6: kept, and adds another die
    return Dist({"one": 1, "kept": FACES - 2, "six": 1}).bind(after.__getitem__)


@lru_cache(maxsize=1024)
def attack_side_dist(n: int, cap: int | None = None, roll: AttackRoll = RULES_ROLL) -> Dist[Side]:
    """The attacker's (result, remaining dice) for ``n`` dice under the house rules of ``roll`` [BU-6.2]: with a
    second roll of the 1s, a die ends a 1 in 1 way of 36 and on each other face in 7 (its first roll, or a 1
    then that face); the 6s among them then add dice (:func:`added_kept`), which can only add remaining dice,
    the highest being 6 already. Under the rules, :func:`side_dist`.

    >>> attack_side_dist(1, roll=AttackRoll(reroll_failed=True)).probability((0, 0))
    Fraction(1, 36)
    >>> attack_side_dist(1, roll=AttackRoll(exploding=1)).probability((7, 2))  # a 6, then a kept die
    Fraction(5, 36)
    """
    if roll == RULES_ROLL:
        return side_dist(n, cap)
    w1, w = (1, 7) if roll.reroll_failed else (1, 1)  # a final 1, each other final face
    states: dict[tuple[int, int, int], int] = {}  # (remaining, highest, sixes)
    for k in range(n + 1):
        ways = math.comb(n, k) * w1 ** (n - k) * w**k
        if k == 0:
            states[(0, 0, 0)] = ways
            continue
        for m in range(2, FACES):
            highest = (m - 1) ** k - (m - 2) ** k  # k dice over faces 2..m with at least one m
            if highest:
                states[(k, m, 0)] = ways * highest
        for sixes in range(1, k + 1):
            states[(k, FACES, sixes)] = ways * math.comb(k, sixes) * (FACES - 2) ** (k - sixes)

    def result(kept: int, highest: int) -> Side:
        if kept == 0:
            return 0, 0
        support = kept - 1 if cap is None else min(kept - 1, cap)
        return highest + support, kept

    def after(state: tuple[int, int, int]) -> Dist[Side]:
        kept, highest, sixes = state
        if not sixes or not roll.exploding:
            return Dist.constant(result(kept, highest))
        return added_kept(sixes, roll.exploding).map(lambda more: result(kept + more, highest))

    return Dist(states).bind(after)


def opposed_dist(attack_dice: int, defense_dice: int, cap: int | None = None,
                 attacker_wins_ties: bool = True, roll: AttackRoll = RULES_ROLL) -> Dist[tuple[bool, int]]:
    """The opposed test [BU-6]: (attacker hits, success level of the winner), the attack dice rolled as the
    house rules of ``roll`` say (:func:`attack_side_dist`)."""
    rule = contest if attacker_wins_ties else _defender_wins_ties
    return attack_side_dist(attack_dice, cap, roll).combine(side_dist(defense_dice, cap), rule)


def wound_dist(modifier: int) -> Dist[int]:
    """The wound roll's distribution on the chart (1..10) [BU-7.2]."""
    return Dist.die(FACES).map(lambda d: wound_roll(d, modifier))


@lru_cache(maxsize=4096)
def attack_odds(attack_dice: int, defense_dice: int, wound_modifier: int, cap: int | None = None,
                chart: Chart = WOUND_CHART, attacker_wins_ties: bool = True,
                roll: AttackRoll = RULES_ROLL) -> tuple[Dist[int], Dist[int], Fraction]:
    """Wounds (0 on a miss), the attacker's SL given a hit, and the chance of a hit [BU-6, BU-7], on ``chart``
    (the battle's wound chart), with equal results and dice going as ``attacker_wins_ties`` says [BU-6.3] and
    the attack dice rolled as ``roll`` says (house rules). Kept (the distributions are immutable): a side's
    attacks, ranked or tabled, meet the same dice again and again."""
    test = opposed_dist(attack_dice, defense_dice, cap, attacker_wins_ties, roll)
    hit = test.p(lambda o: o[0])
    rolls = wound_dist(wound_modifier)
    wounds = test.bind(lambda o: rolls.map(lambda r: wounds_for(r, o[1], chart)) if o[0] else Dist.constant(0))
    hits = {sl: w for (won, sl), w in test.weights().items() if won}
    sl = Dist(hits) if hits else Dist.constant(0)
    return wounds, sl, hit


def sampled_attack(n: int, dice: int, roll: AttackRoll, rng: np.random.Generator) -> NDArray[np.int64]:
    """``n`` rolls of ``dice`` attack dice under the house rules of ``roll``, every die rolled (numpy), one row
    each: the 1s rolled once more, then the dice the 6s add, each where it was added and a 1 (discarded, so
    counting for nothing [BU-6.2]) where it was not. Under the rules, the dice alone, drawn as ever."""
    import numpy as np

    attack = rng.integers(1, 7, size=(n, dice), dtype=np.int64)
    if roll.reroll_failed:
        attack = np.where(attack == 1, rng.integers(1, 7, size=(n, dice), dtype=np.int64), attack)
    if not roll.exploding:
        return attack
    added = rng.integers(1, 7, size=(n, roll.exploding), dtype=np.int64)
    # before the j-th added die, the 6s yet to add one: the first roll's, and the added dice's so far, less j
    sixes_before = np.cumsum(added == 6, axis=1) - (added == 6)
    pending = (attack == 6).sum(axis=1)[:, None] + sixes_before - np.arange(roll.exploding)[None, :]
    rolled = np.minimum.accumulate(pending, axis=1) > 0  # added while every step before it still had a 6 to add
    return np.concatenate([attack, np.where(rolled, added, 1)], axis=1)
