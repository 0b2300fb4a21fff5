"""The best-line search (SW-6.2) against exhaustive enumeration, and sampled reveals against exact odds
(SW-6.1, SW-4.1)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from rangefire.core import Attack, SeededSource
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.swerve.combat import Combat

SW = find_ruleset("swerve")


def build(deck: list[int], tactics: list[tuple[str, str, str, int]], ties: bool, speed: int) -> Any:
    cards: list[dict[str, Any]] = [
        {"id": "gun", "owner": "a", "type": "weapon", "ranged": {"accuracy": 20, "damage": 2}},
        {"id": "car", "owner": "d", "type": "vehicle", "speed": speed, "toughness": 3}]
    hands: dict[str, list[str]] = {"a": [], "d": []}
    for i, (owner, timing, stat, n) in enumerate(tactics):
        cards.append({"id": f"t{i}", "owner": owner, "type": "tactic", "timing": timing, "effect": {stat: n}})
        hands[owner].append(f"t{i}")
    return battle_from_mapping({"ruleset": "swerve", "options": {"attacker_wins_ties": ties},
                                "players": {"a": {"deck": deck, "deck_order": "unknown"}, "d": {"deck": []}},
                                "cards": cards, "hands": hands})[1]


def exhaustive(combat: Combat, deck: list[int], ties: bool) -> tuple[tuple[Fraction, Fraction], tuple[str, ...]]:
    """Minimax over the explicit tree of every line of play, each leaf judged card by card."""
    lines, cut = combat.lines(combat.start(), limit=10**6)
    assert not cut

    def leaf(state: Any) -> tuple[Fraction, Fraction]:
        if not deck:
            wins = [state.accuracy > state.speed or (ties and state.accuracy == state.speed)]
        else:
            wins = [state.accuracy + b > state.speed or (ties and state.accuracy + b == state.speed) for b in deck]
        p = Fraction(sum(wins), len(wins))
        return p, p * max(0, state.damage)

    tree: dict[tuple[str, ...], Any] = {tuple(str(a) for a in line): leaf(end) for line, end in lines}

    def best(prefix: tuple[str, ...], mover: str) -> tuple[tuple[Fraction, Fraction], tuple[str, ...]]:
        if prefix in tree:
            return tree[prefix], prefix
        children = sorted({line[len(prefix)] for line in tree if line[: len(prefix)] == prefix and
                           len(line) > len(prefix)}, key=lambda a: order.index(a))
        results = [best((*prefix, a), "defender" if mover == "attacker" else "attacker") for a in children]
        pick = results[0]
        for r in results[1:]:
            if (r[0] > pick[0]) if mover == "attacker" else (r[0] < pick[0]):
                pick = r
        return pick

    order = [str(a) for role in ("attacker", "defender") for a in combat.candidates(role)]  # type: ignore[arg-type]
    score, line = best((), "attacker")
    return score, line


tactic = st.tuples(st.sampled_from(["a", "d"]), st.sampled_from(["combat", "ranged-combat", "close-combat"]),
                   st.sampled_from(["accuracy", "speed", "damage"]), st.integers(-5, 15))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), max_size=6), st.lists(tactic, max_size=4), st.booleans(), st.integers(5, 30))
def test_best_line_equals_exhaustive_minimax(deck, tactics, ties, speed):
    """The memoised search and exhaustive enumeration agree on the value and on the line itself."""
    battle = build(deck, tactics, ties, speed)
    plan = SW.plan(battle, Attack("gun", "car"))
    odds = SW.odds(plan)
    value, line = exhaustive(plan.combat, deck, ties)
    assert odds.events["attacker_wins"] == value[0]
    assert odds.outcomes["damage"].mean() == value[1]
    assert tuple(odds.extra["best_line"]) == line


def test_seeded_reveals_agree_with_exact_odds():
    """6,000 seeded resolutions of a fixed line: wins and bonuses match the exact odds (chi-square)."""
    battle = build([0, 5, 5, 10, 15, 20], [], False, 15)
    plan = SW.plan(battle, Attack("gun", "car", (("actions", ("a:pass", "d:swerve-target", "a:pass", "d:pass")),)))
    exact = SW.odds(plan).outcomes["damage"].probabilities()  # speed 30 against 20 + bonus: wins on 15, 20
    source = SeededSource(5)
    seen = Counter(SW.resolve(plan, source).outcome["damage"] for _ in range(6000))
    assert set(seen) == set(exact)
    observed = [seen[k] for k in exact]
    expected = [float(p) * 6000 for p in exact.values()]
    assert chisquare(observed, expected).pvalue > 1e-3
    assert exact == {0: Fraction(2, 3), 2: Fraction(1, 3)}
