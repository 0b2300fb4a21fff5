"""Sampled play agrees with the exact odds: a chi-square test at a fixed seed (DC-8.1, DC-3.1, DC-4.1,
DC-4.3, DC-5.1, DC-5.2). Fixed seeds make these deterministic; the threshold is a 1-in-1000 p-value."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from rangefire.analysis.montecarlo import estimate, sample_volleys, wilson
from rangefire.core import Attack, SeededSource
from rangefire.rulesets.dress_on_the_colors.volley import VolleyOutcome, volley_distribution
from tests.conftest import dc_battle, square, unit
from tests.oracles import chi_square

P_MIN = 1e-3


def _plan(doc):
    """An enfilading volley into light woods (5+ worsened to 6+) at a unit with a micro-hit: every stage."""
    woods = {"id": "woods", "kind": "light", "polygon": square(-4, -3, 4, 1)}
    b = dc_battle(unit("F", "blue", (-12, -8), 90, stands=5), unit("T", "grey", (0, 0), 0, stands=3,
                  micro_hits=1), terrain=(woods,))
    return doc.plan(b, Attack("F", "T"))


def test_seeded_resolutions_agree_with_exact_odds(doc):
    """100,000 resolutions from one seeded source against the exact joint distribution."""
    plan = _plan(doc)
    assert plan.enfilade and plan.save == 6 and plan.dice == 7
    exact = volley_distribution(plan).probabilities()
    source = SeededSource(20261129)
    n = 100_000
    seen: Counter = Counter()
    for _ in range(n):
        o = doc.resolve(plan, source).outcome
        seen[VolleyOutcome(o.hits, o.unsaved_hits, o.stands_lost, o.suppression, o.disorder)] += 1
    assert chi_square(seen, exact, n) > P_MIN


def test_chi_square_detects_a_wrong_distribution(doc):
    """The same test rejects sampled play against the odds of a slightly different plan (it can fail):
    a target one point steadier [DC-5.2], same outcomes possible, only disorder less likely."""
    plan = _plan(doc)
    wrong = volley_distribution(replace(plan, target_discipline=plan.target_discipline + 1)).probabilities()
    source = SeededSource(7)
    seen: Counter = Counter()
    for _ in range(20_000):
        o = doc.resolve(plan, source).outcome
        seen[VolleyOutcome(o.hits, o.unsaved_hits, o.stands_lost, o.suppression, o.disorder)] += 1
    assert chi_square(seen, wrong, 20_000) < P_MIN


def test_numpy_monte_carlo_agrees_with_exact_odds(doc):
    """The vectorised sampler (numpy) against the exact joint distribution, 400,000 volleys."""
    plan = _plan(doc)
    exact = volley_distribution(plan).probabilities()
    n = 400_000
    s = sample_volleys(plan, n, seed=11)
    keys = zip(s.hits.tolist(), s.unsaved_hits.tolist(), s.stands_lost.tolist(), s.suppression.tolist(),
               s.disorder.tolist(), strict=True)
    seen = Counter(VolleyOutcome(*k) for k in keys)
    assert chi_square(seen, exact, n) > P_MIN


def test_same_seed_same_samples(doc):
    """A seed reproduces the sample; the estimate is labelled as one, with its interval."""
    plan = _plan(doc)
    a, b = sample_volleys(plan, 1000, seed=3), sample_volleys(plan, 1000, seed=3)
    assert np.array_equal(a.hits, b.hits) and np.array_equal(a.disorder, b.disorder)
    est = estimate(plan, 20_000, seed=5)
    exact = volley_distribution(plan).p(lambda o: o.suppression)
    low, high = est["events"]["suppression"]["ci95"]
    assert est["exact"] is False and low <= float(exact) <= high
    assert wilson(50, 100)[0] < 0.5 < wilson(50, 100)[1]
