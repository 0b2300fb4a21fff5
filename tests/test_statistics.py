"""The statistics beside every distribution (issue 24): the variance and standard deviation, the median and the
90th percentile, and the odds of at most N beside exactly N and at least N; each held to an independent oracle:
icepool where it has the statistic, and a brute force over the dice rolled one by one."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core.schemas import OddsOutput
from rangefire.dice import Dist
from rangefire.dice.dist import distribution_dict, quantile
from rangefire.rulesets import load_battle

EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples"


def _rolled(dice: int, faces: int, hit: int) -> list[int]:
    """Every roll of ``dice`` dice, each counted by its successes (a face of ``hit`` or more): the sample space
    itself, one entry per equally likely roll."""
    return [sum(1 for face in roll if face >= hit) for roll in itertools.product(range(1, faces + 1), repeat=dice)]


def _brute(sample: list[int]) -> dict[str, object]:
    """The statistics of equally likely outcomes by their definitions, with no distribution at all: the mean
    and variance as sums over the sample, the median and 90th percentile as the sorted sample's entries at
    the first place where half (nine tenths) of it is reached."""
    n = len(sample)
    mean = Fraction(sum(sample), n)
    ordered = sorted(sample)
    return {"mean": mean, "variance": sum((Fraction(v) - mean) ** 2 for v in sample) / n,
            "median": ordered[math.ceil(n / 2) - 1], "percentile_90": ordered[math.ceil(9 * n / 10) - 1],
            "at_most": {k: Fraction(sum(1 for v in sample if v <= k), n) for k in set(sample)},
            "at_least": {k: Fraction(sum(1 for v in sample if v >= k), n) for k in set(sample)}}


@pytest.mark.parametrize(("dice", "hit"), [(1, 4), (3, 5), (4, 2), (5, 6), (6, 4), (7, 3)])
def test_the_statistics_of_a_pool_equal_the_brute_force_over_its_rolls(dice, hit):
    dist = Dist.binomial(dice, 7 - hit, 6)
    want = _brute(_rolled(dice, 6, hit))
    assert dist.mean() == want["mean"]
    assert dist.variance() == want["variance"]
    assert dist.median() == want["median"]
    assert dist.quantile(Fraction(9, 10)) == want["percentile_90"]
    for k in dist:
        assert dist.at_most(k) == want["at_most"][k]
        assert dist.at_least(k) == want["at_least"][k]
    data = dist.to_dict()
    assert Fraction(data["variance"]) == want["variance"]
    assert data["median"] == str(want["median"]) and data["percentile_90"] == str(want["percentile_90"])
    assert {int(k): Fraction(v) for k, v in data["at_most"].items()} == want["at_most"]
    assert {int(k): Fraction(v) for k, v in data["at_least"].items()} == want["at_least"]
    assert data["sd"] == pytest.approx(math.sqrt(want["variance"]), rel=1e-15)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(-5, 30), st.integers(1, 50), min_size=1, max_size=12))
def test_the_statistics_equal_icepool(weights):
    """icepool's variance, and its quantile taking the lesser outcome at a tie (the least outcome reached)."""
    dist = Dist(weights)
    die = icepool.Die(weights)
    assert dist.variance() == Fraction(die.variance())
    assert dist.mean() == Fraction(die.mean())
    assert dist.median() == die.median_low() == die.quantile_low(50)
    assert dist.quantile(Fraction(9, 10)) == die.quantile_low(90)
    for k in dist:
        assert dist.at_most(k) == Fraction(die.probability("<=", k))
        assert dist.at_least(k) == Fraction(die.probability(">=", k))
    assert dist.sd() == pytest.approx(die.standard_deviation(), rel=1e-12)


def test_a_tie_at_exactly_one_half_takes_the_lesser_value():
    """Half the weight on 0 and half on 1: the median is 0 (a value the outcome takes, not 0.5), as nine
    tenths on 0 make the 90th percentile 0; a hair above nine tenths needed makes it 1."""
    assert Dist({0: 1, 1: 1}).median() == 0
    assert Dist({0: 9, 1: 1}).quantile(Fraction(9, 10)) == 0
    assert Dist({0: 8, 1: 1}).quantile(Fraction(9, 10)) == 1
    assert quantile({3: Fraction(1)}, Fraction(1)) == 3
    with pytest.raises(ValueError, match="more than 0"):
        Dist({0: 1}).quantile(Fraction(0))


def test_a_constant_has_no_spread_and_its_tails_are_certain():
    data = distribution_dict({2: Fraction(1)})
    assert data == {"distribution": {"2": "1"}, "distribution_float": {"2": 1.0}, "mean": "2", "mean_float": 2.0,
                    "variance": "0", "variance_float": 0.0, "sd": 0.0, "median": "2", "median_float": 2.0,
                    "percentile_90": "2", "percentile_90_float": 2.0, "at_least": {"2": "1"},
                    "at_least_float": {"2": 1.0}, "at_most": {"2": "1"}, "at_most_float": {"2": 1.0}}


def test_the_sd_is_the_nearest_float_to_the_exact_root():
    """The root is taken of the exact variance's digits, not of its rounded float: the nearest float to it."""
    var = Fraction(10**40 + 1, 10**20)  # a float would lose the +1
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        exact = (Decimal(var.numerator) / Decimal(var.denominator)).sqrt()
    assert distribution_dict({0: Fraction(1, 2), 2: Fraction(1, 2)})["sd"] == 1.0
    from rangefire.dice.dist import square_root

    assert square_root(var) == float(exact)


@pytest.mark.parametrize(("example", "attacker", "target"), [
    ("wheatfield.yaml", "15th-alabama", None), ("temple.yaml", "yoichi", "takeda"),
    ("ford.yaml", "archers", "orc-band"), ("sawblade.yaml", None, None)])
def test_every_games_odds_carry_the_statistics_and_validate(example, attacker, target):
    """Each game's odds JSON: every outcome's statistics from its own distribution, and the output schema holds
    them (the contract's keys unchanged, first, each with its float beside it)."""
    ruleset, battle = load_battle(EXAMPLES / example)
    if attacker is None:
        attacker = next(a for a in ruleset.unit_ids(battle) for t in ruleset.enemies(battle, a)
                        if ruleset.check(battle, ruleset.attack(a, t)).plan is not None)
        target = next(t for t in ruleset.enemies(battle, attacker)
                      if ruleset.check(battle, ruleset.attack(attacker, t)).plan is not None)
    odds = ruleset.odds(ruleset.plan(battle, ruleset.attack(attacker, target)))
    from rangefire.core.outputs import odds_output

    data = odds_output(odds)
    OddsOutput.model_validate(data)
    for name in odds.outcomes:
        shown = data["outcomes"][name]
        assert list(shown)[:4] == ["distribution", "distribution_float", "mean", "mean_float"]  # each float beside
        probabilities = {int(k): Fraction(v) for k, v in shown["distribution"].items()}
        want = _brute_weighted(probabilities)
        assert Fraction(shown["variance"]) == want["variance"]
        assert int(shown["median"]) == want["median"] and int(shown["percentile_90"]) == want["percentile_90"]
        for k in probabilities:
            assert Fraction(shown["at_most"][str(k)]) == want["at_most"][k]


def _brute_weighted(probabilities: dict[int, Fraction]) -> dict[str, object]:
    """:func:`_brute` over a sample in which each value is repeated by its weight over the common denominator."""
    common = math.lcm(*(p.denominator for p in probabilities.values()))
    if common > 200_000:  # too large a sample: the same sums over the values, by definition
        mean = sum(k * p for k, p in probabilities.items())
        ordered = sorted(probabilities)
        cumulative = list(itertools.accumulate(probabilities[k] for k in ordered))
        return {"variance": sum((k - mean) ** 2 * p for k, p in probabilities.items()),
                "median": next(k for k, c in zip(ordered, cumulative, strict=True) if c >= Fraction(1, 2)),
                "percentile_90": next(k for k, c in zip(ordered, cumulative, strict=True) if c >= Fraction(9, 10)),
                "at_most": {k: c for k, c in zip(ordered, cumulative, strict=True)}}
    sample = [k for k, p in probabilities.items() for _ in range(int(p * common))]
    return _brute(sample)
