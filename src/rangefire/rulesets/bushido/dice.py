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

from rangefire.dice import Dist
from rangefire.rulesets.bushido.scenario import RULES_WOUND_CHART

#: A wound chart: ``chart[roll - 1][sl]`` [BU-7.2].
Chart = tuple[tuple[int, ...], ...]

FACES = 6
#: The rules' wound chart [BU-7.2], row by row: roll 1 to 10, columns SL 0 to 6 (a battle's chart is its option
#: ``wound_chart``, ``battle.options.chart``; this is its default).
WOUND_CHART: Chart = RULES_WOUND_CHART
MAX_CHART_SL = 6

#: A side's result: (result, dice remaining after the 1s are discarded).
Side = tuple[int, int]


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


def opposed_dist(attack_dice: int, defense_dice: int, cap: int | None = None,
                 attacker_wins_ties: bool = True) -> Dist[tuple[bool, int]]:
    """The opposed test [BU-6]: (attacker hits, success level of the winner)."""
    rule = contest if attacker_wins_ties else _defender_wins_ties
    return side_dist(attack_dice, cap).combine(side_dist(defense_dice, cap), rule)


def wound_dist(modifier: int) -> Dist[int]:
    """The wound roll's distribution on the chart (1..10) [BU-7.2]."""
    return Dist.die(FACES).map(lambda d: wound_roll(d, modifier))


@lru_cache(maxsize=4096)
def attack_odds(attack_dice: int, defense_dice: int, wound_modifier: int, cap: int | None = None,
                chart: Chart = WOUND_CHART, attacker_wins_ties: bool = True) -> tuple[Dist[int], Dist[int], Fraction]:
    """Wounds (0 on a miss), the attacker's SL given a hit, and the chance of a hit [BU-6, BU-7], on ``chart``
    (the battle's wound chart) and with equal results and dice going as ``attacker_wins_ties`` says [BU-6.3].
    Kept (the distributions are immutable): a side's attacks, ranked or tabled, meet the same dice again and
    again."""
    test = opposed_dist(attack_dice, defense_dice, cap, attacker_wins_ties)
    hit = test.p(lambda o: o[0])
    rolls = wound_dist(wound_modifier)
    wounds = test.bind(lambda o: rolls.map(lambda r: wounds_for(r, o[1], chart)) if o[0] else Dist.constant(0))
    hits = {sl: w for (won, sl), w in test.weights().items() if won}
    sl = Dist(hits) if hits else Dist.constant(0)
    return wounds, sl, hit
