"""Bushido dice: pools, the opposed test, success levels and the wound chart, against independent oracles
[BU-5.2, BU-5.6, BU-6.1, BU-6.2, BU-6.3, BU-6.4, BU-7.1, BU-7.2]."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from rangefire.rulesets.bushido.dice import (
    WOUND_CHART,
    attack_odds,
    contest,
    opposed_dist,
    pools,
    side_dist,
    side_result,
    wound_roll,
    wounds_for,
)
from tests.oracles import icepool_bushido_side, icepool_bushido_test

RULES = Path(__file__).resolve().parents[3] / "shared" / "rules" / "bushido.md"

# The chart as printed in the rules (BU-7.2), typed in again here rather than read from the module.
CHART_TEXT = """
| 1 | 0 | 1 | 1 | 1 | 1 | 2 | 3 |
| 2 | 0 | 1 | 1 | 1 | 2 | 3 | 4 |
| 3 | 0 | 1 | 1 | 2 | 3 | 4 | 5 |
| 4 | 1 | 1 | 2 | 3 | 4 | 5 | 6 |
| 5 | 1 | 2 | 3 | 4 | 5 | 6 | 7 |
| 6 | 2 | 3 | 4 | 5 | 6 | 7 | 8 |
| 7 | 3 | 4 | 5 | 6 | 7 | 8 | 9 |
| 8 | 4 | 5 | 6 | 7 | 8 | 9 | 10 |
| 9 | 5 | 6 | 7 | 8 | 9 | 10 | 11 |
| 10 | 6 | 7 | 8 | 9 | 10 | 11 | 12 |
"""


def _chart_rows(text: str) -> dict[int, list[int]]:
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and all(re.fullmatch(r"\d+", c) for c in cells):
            rows[int(cells[0])] = [int(c) for c in cells[1:]]
    return rows


def test_wound_chart_is_the_rules_table_bu_7_2():
    """BU-7.2: every entry of the literal table, and the rules file's own copy when it is beside the checkout."""
    expected = _chart_rows(CHART_TEXT)
    if RULES.exists():
        assert _chart_rows(RULES.read_text(encoding="utf-8")) == expected
    assert {roll: list(WOUND_CHART[roll - 1]) for roll in range(1, 11)} == expected
    for roll, row in expected.items():
        for sl, wounds in enumerate(row):
            assert wounds_for(roll, sl) == wounds
        assert wounds_for(roll, 9) == row[6]  # SL above 6 counts as 6


def test_wound_roll_is_clamped_bu_7_2():
    """BU-7.2: the die plus the modifier, clamped to 1..10."""
    assert [wound_roll(d, -3) for d in range(1, 7)] == [1, 1, 1, 1, 2, 3]
    assert [wound_roll(d, 5) for d in range(1, 7)] == [6, 7, 8, 9, 10, 10]
    assert wound_roll(6, 0) == 6


@pytest.mark.parametrize(("attack", "defense", "expected"), [
    (3, 2, (3, 2, 0, 0)),      # nothing below 1: each rolls its pool
    (0, 2, (1, 3, 0, 1)),      # 0 rolls 1; the other side gains 1
    (-2, 3, (1, 6, 0, 3)),     # the rules' own example: pool -2 rolls 1, opponent +3
    (4, -1, (6, 1, 2, 0)),     # the defender is below 1 by 2
    (0, -1, (1, 1, 0, 0)),     # both below 1: each rolls 1, neither gains
    (1, 1, (1, 1, 0, 0)),
])
def test_zero_pool_compensation_bu_5_6(attack, defense, expected):
    """BU-5.6, with the clause's own example (pool -2: roll 1, opponent +3)."""
    assert pools(attack, defense) == expected


def test_side_result_bu_6_2():
    """BU-6.2: 1s discarded; highest plus one per other remaining die; all 1s is 0; the cap option."""
    assert side_result((6, 4, 1, 1)) == (7, 2)
    assert side_result((1, 1, 1)) == (0, 0)
    assert side_result((2,)) == (2, 1)
    assert side_result((5, 5, 5, 5, 5)) == (9, 5)
    assert side_result((5, 5, 5, 5, 5), cap=2) == (7, 5)
    assert side_result((5, 3), cap=2) == (6, 2)
    assert side_result((5, 3), cap=0) == (5, 2)


def test_contest_bu_6_3_and_bu_6_4():
    """BU-6.3: higher result wins by the difference; ties go to more remaining dice, then the attacker;
    a result of 0 never wins. BU-6.4: a defender's win is a miss."""
    assert contest((8, 2), (5, 1)) == (True, 3)
    assert contest((5, 1), (8, 3)) == (False, 3)      # the defender wins: a miss
    assert contest((7, 1), (7, 2)) == (False, 0)      # equal results, the defender kept more dice
    assert contest((7, 2), (7, 2)) == (True, 0)       # still equal: the attacker
    assert contest((0, 0), (0, 0)) == (False, 0)      # a result of 0 never wins
    assert contest((2, 1), (0, 0)) == (True, 2)


# -- an oracle that enumerates every die, written from the rules' text with numpy -----------------------
def brute_force(attack: int, defense: int, modifier: int, cap: int | None) -> tuple[dict, dict, Fraction]:
    """Every roll of every attack, defense and wound die; results computed from BU-6.2/6.3/7.2 afresh."""
    n = attack + defense
    grid = np.indices((6,) * n, dtype=np.int64).reshape(n, -1).T + 1  # every roll, one per row

    def result(dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        kept = dice != 1
        k = kept.sum(axis=1)
        top = np.where(kept, dice, 0).max(axis=1)
        support = np.maximum(k - 1, 0) if cap is None else np.minimum(np.maximum(k - 1, 0), cap)
        return np.where(k > 0, top + support, 0), k

    ra, ka = result(grid[:, :attack])
    rd, kd = result(grid[:, attack:])
    hit = (ra > rd) | ((ra == rd) & (ra > 0) & (ka >= kd))
    sl = np.where(hit, ra - rd, 0)
    wounds: Counter[int] = Counter()
    chart = _chart_rows(CHART_TEXT)
    table = np.array([chart[r] for r in range(1, 11)])
    for die in range(1, 7):  # the wound die, every face
        roll = np.clip(die + modifier, 1, 10)
        w = np.where(hit, table[roll - 1, np.minimum(sl, 6)], 0)
        wounds.update(Counter(w.tolist()))
    total = 6 ** (attack + defense + 1)
    levels = Counter(sl[hit].tolist())
    n_hit = int(hit.sum())
    return ({k: Fraction(v, total) for k, v in wounds.items()},
            {k: Fraction(v, n_hit) for k, v in levels.items()} if n_hit else {0: Fraction(1)},
            Fraction(n_hit, 6 ** (attack + defense)))


@pytest.mark.parametrize("cap", [None, 2])
@pytest.mark.parametrize(("attack", "defense"), [(a, d) for a in range(1, 5) for d in range(1, 5)])
def test_exact_odds_equal_brute_force_bu_6_1(attack, defense, cap):
    """BU-6.1, BU-6.2, BU-6.3, BU-7.2: the algorithm over faces equals enumeration of every die, up to 4 v 4 plus
    the wound die, for both supporting-dice options and a range of wound modifiers."""
    for modifier in (-4, 0, 3):
        wounds, sl, hit = attack_odds(attack, defense, modifier, cap)
        b_wounds, b_sl, b_hit = brute_force(attack, defense, modifier, cap)
        assert hit == b_hit
        assert wounds.probabilities() == dict(sorted(b_wounds.items()))
        assert sl.probabilities() == dict(sorted(b_sl.items()))


def contest_as_written(attacker: tuple[int, int], defender: tuple[int, int]) -> tuple[bool, int]:
    """BU-6.3 read afresh, for the oracle (not the module's ``contest``): find the winner step by step, then
    apply the exception; (the attacker wins?, the winner's SL), with SL 0 when nobody wins."""
    (ra, ka), (rd, kd) = attacker, defender
    if ra != rd:
        winner = "attacker" if ra > rd else "defender"  # the higher result wins
    elif ka != kd:
        winner = "attacker" if ka > kd else "defender"  # equal results: more remaining dice
    else:
        winner = "attacker"  # still equal: the attacker
    if (ra if winner == "attacker" else rd) == 0:
        return False, 0  # a result of 0 never wins: nobody does
    return winner == "attacker", abs(ra - rd)


def test_contest_as_written_bu_6_3():
    """The oracle's own reading of BU-6.3, on the cases the clause names."""
    assert contest_as_written((8, 2), (5, 1)) == (True, 3)
    assert contest_as_written((5, 1), (8, 3)) == (False, 3)
    assert contest_as_written((7, 1), (7, 2)) == (False, 0)
    assert contest_as_written((7, 2), (7, 2)) == (True, 0)
    assert contest_as_written((0, 0), (0, 0)) == (False, 0)


@pytest.mark.parametrize("cap", [None, 2])
@pytest.mark.parametrize(("attack", "defense"), [(1, 1), (3, 2), (2, 5), (6, 6), (8, 3), (12, 12)])
def test_opposed_test_equals_icepool_bu_6_3(attack, defense, cap):
    """BU-6.1 to BU-6.3 through icepool's multisets: one side's (result, remaining) and the whole test, the two
    sides compared by the oracle's own reading of BU-6.3 (not the module's)."""
    ours = side_dist(attack, cap)
    theirs = icepool_bushido_side(attack, cap)
    assert {k: Fraction(w, ours.total) for k, w in ours.weights().items()} == \
        {tuple(k): Fraction(w, theirs.denominator()) for k, w in theirs.items()}
    assert opposed_dist(attack, defense, cap).probabilities() == \
        icepool_bushido_test(attack, defense, cap, contest_as_written)


def test_more_attack_dice_never_hurt_bu_5_2():
    """BU-5.2: attack dice are the RCP; one more die can only raise the chance to hit and the mean wounds."""
    hits = [attack_odds(n, 12, 0)[2] for n in range(1, 13)]
    assert hits == sorted(hits) and len(set(hits)) == len(hits)
    means = [attack_odds(n, 2, 0)[0].mean() for n in range(1, 13)]
    assert means == sorted(means)
