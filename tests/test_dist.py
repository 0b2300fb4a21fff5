"""Exact distributions: integer weights, Fractions out; checked against enumeration and icepool."""

from __future__ import annotations

import itertools
from fractions import Fraction

import icepool
import pytest

from rangefire.dice import Dist


@pytest.mark.parametrize(("n", "hit"), [(0, 3), (1, 1), (4, 2), (7, 5), (10, 6)])
def test_binomial_equals_enumeration(n, hit):
    counts: dict[int, int] = {}
    if 6**n <= 10**6:  # every face of every die
        for roll in itertools.product(range(6), repeat=n):
            k = sum(1 for v in roll if v < hit)
            counts[k] = counts.get(k, 0) + 1
    else:  # every die's hit or miss, weighed by its faces (6^10 rolls one by one took a minute and a half)
        for hits in itertools.product((True, False), repeat=n):
            k, weight = sum(hits), hit ** sum(hits) * (6 - hit) ** (n - sum(hits))
            if weight:
                counts[k] = counts.get(k, 0) + weight
    assert Dist.binomial(n, hit, 6).probabilities() == {k: Fraction(c, 6**n) for k, c in sorted(counts.items())}


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_repeat_sum_equals_icepool(n):
    expected = n @ icepool.d6
    got = Dist.die(6).repeat_sum(n).probabilities()
    assert got == {k: Fraction(p) for k, p in zip(expected.outcomes(), expected.probabilities(), strict=True)}


def test_bind_chains_stages_exactly():
    # hits on 2 dice at 4+, each hit then saved on 5+: the same as each die hitting unsaved at 1/2 * 2/3
    staged = Dist.binomial(2, 3, 6).bind(lambda h: Dist.binomial(h, 4, 6))
    assert staged.probabilities() == Dist.binomial(2, 1, 3).probabilities()


def test_mean_at_least_and_map():
    d = Dist({0: 1, 1: 2, 3: 1})
    assert d.mean() == Fraction(5, 4)
    assert d.at_least(1) == Fraction(3, 4)
    assert d.map(lambda k: k > 0).probability(True) == Fraction(3, 4)
    data = d.to_dict()
    assert {k: data[k] for k in ("distribution", "mean")} == {"distribution": {"0": "1/4", "1": "1/2", "3": "1/4"},
                                                              "mean": "5/4"}
    assert list(data)[:4] == ["distribution", "distribution_float", "mean", "mean_float"]  # the contract's keys
    # first, each exact one with its float beside it; the statistics added after


def test_repr_round_trips_and_equality_is_by_probability():
    d = Dist({0: 2, 1: 4})
    assert eval(repr(d)) == d == Dist({0: 1, 1: 2})
    assert d != Dist({0: 1, 1: 1})


def test_bad_distributions_are_refused():
    with pytest.raises(ValueError):
        Dist({})
    with pytest.raises(ValueError):
        Dist.binomial(2, 7, 6)
