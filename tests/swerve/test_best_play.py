"""Best play (SW-6.2) by the search that weighs completions, against the exhaustive reference search that walks
every set of cards played (``exhaustive=True``), and against the rules oracle of test_search.py: the same exact
Fractions, the same best line (first of equally good actions, pass first) and the same lines of play listed."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core import Attack, LimitError
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.swerve import combat as combat_module
from rangefire.rulesets.swerve import search as search_module
from rangefire.rulesets.swerve.combat import Combat, State
from tests.swerve.test_search import agrees_with_the_rules

SW = find_ruleset("swerve")


def combat_of(data: dict[str, Any], attacker: str = "gun", target: str = "car") -> Combat:
    combat = SW.plan(battle_from_mapping(data)[1], Attack(attacker, target)).combat
    assert combat is not None
    return combat


def issue_case(tactics: int = 6) -> dict[str, Any]:
    """The performance issue's case: accuracy 30 against speed 20, a deck 0, 5, ..., 50 in unknown order,
    ``tactics`` tactics in each hand: the attacker's add 5, 6, ... to accuracy, the defender's as much to speed."""
    cards: list[dict[str, Any]] = [
        {"id": "launcher", "owner": "jason", "type": "weapon", "name": "L", "mission": "pass",
         "ranged": {"accuracy": 30, "damage": 1, "cost": "swerve-self", "targets": ["unit"]}},
        {"id": "rider", "owner": "tyler", "type": "unit", "name": "R", "speed": 20, "mission": "pass"}]
    for i in range(tactics):
        cards += [{"id": f"a{i}", "owner": "jason", "type": "tactic", "name": "x", "timing": "combat",
                   "effect": {"accuracy": 5 + i}},
                  {"id": f"d{i}", "owner": "tyler", "type": "tactic", "name": "x", "timing": "combat",
                   "effect": {"speed": 5 + i}}]
    return {"ruleset": "swerve",
            "players": {"jason": {"deck": list(range(0, 55, 5)), "deck_order": "unknown"}, "tyler": {"deck": [5]}},
            "cards": cards, "hands": {"jason": [f"a{i}" for i in range(tactics)],
                                      "tyler": [f"d{i}" for i in range(tactics)]}}


def same_as_reference(combat: Combat, state: State) -> None:
    """Score, best line and every line of play listed: the search and the reference agree."""
    assert combat._moves_independent  # the search itself answers, not the reference in its place
    assert combat.score(state) == combat.exhaustive_score(state)
    assert combat.best_line(state) == combat.best_line(state, exhaustive=True)
    for limit in (1, 7, 2000):
        assert combat.lines(state, limit) == combat._lines_by_rules(state, limit)


effects = st.dictionaries(st.sampled_from(["accuracy", "speed", "damage"]), st.integers(-6, 12), min_size=1)


@st.composite
def mixed_positions(draw: st.DrawFn) -> dict[str, Any]:
    """Crowded positions: up to 7 cards, most of them usable (tactics in hand, abilities in play, paid or
    free, SW-1.5, SW-1.6), whose effects may add to several totals at once, some up and some down (a card adding
    to accuracy and taking from damage is weighed each way by the search); a launcher and a target with
    abilities of their own (the target's swerve-this ability and swerving the target close each other)."""
    gun: dict[str, Any] = {"id": "gun", "owner": "a", "type": "weapon", "mission": "m",
                           "ranged": {"accuracy": draw(st.integers(0, 30)), "damage": draw(st.integers(0, 3)),
                                      "cost": draw(st.sampled_from(["swerve-self", "none"]))}}
    car: dict[str, Any] = {"id": "car", "owner": "d", "type": "unit", "speed": draw(st.integers(0, 30)),
                           "mission": "m", "swerved": draw(st.booleans())}
    for card in (gun, car):
        if draw(st.booleans()):
            card.update(timing="combat", effect=draw(effects), cost=draw(st.sampled_from(["swerve-self", "none"])))
    cards, hands = [gun, car], {"a": [], "d": []}
    for i in range(draw(st.integers(0, 7))):
        owner = draw(st.sampled_from(["a", "d"]))
        card = {"id": f"c{i}", "owner": owner, "timing": draw(st.sampled_from(["combat", "ranged-combat", "main"])),
                "effect": draw(effects)}
        if draw(st.booleans()):
            card["type"] = "tactic"
            hands[owner].append(card["id"])
        else:
            card.update(type="unit", mission="m", cost=draw(st.sampled_from(["swerve-self", "none"])),
                        swerved=draw(st.booleans()))
        cards.append(card)
    deck = draw(st.lists(st.integers(0, 20), max_size=6))
    order = draw(st.sampled_from(["known", "unknown"]))
    return {"ruleset": "swerve", "options": {"attacker_wins_ties": draw(st.booleans())},
            "players": {"a": {"deck": deck, "deck_order": order}, "d": {"deck": []}}, "cards": cards,
            "hands": hands}


@settings(max_examples=120, deadline=None)
@given(mixed_positions(), st.data())
def test_search_equals_the_exhaustive_reference_from_any_position(data, steps):
    """SW-6.2: from the start and from a position part way along a line of play (a pass pending or not), the
    search and the reference give the same score, the same best line and the same lines of play."""
    combat = combat_of(data)
    state = combat.start()
    same_as_reference(combat, state)
    for _ in range(steps.draw(st.integers(0, 6))):
        legal = combat.legal(state)
        if not legal:
            break
        state, _ = combat.after(state, steps.draw(st.sampled_from(legal)))
        same_as_reference(combat, state)


@settings(max_examples=60, deadline=None)
@given(mixed_positions())
def test_search_with_mixed_effects_agrees_with_the_rules_oracle(data):
    """SW-6.2: the rules oracle (written from the rules alone) agrees on positions whose cards add to several
    totals at once."""
    agrees_with_the_rules(data, "gun", "car")


def test_the_issues_case_8_of_11():
    """SW-6.1, SW-6.2: with every card played the totals are 30 + 45 against 20 + 20 (swerved) + 45: the attacker
    needs a bonus above 10, 8 cards of 11. Neither side can do better: the stage ends only when both pass, so each
    plays what helps it. Best play passes where passing keeps the score: the defender swerves the rider."""
    combat = combat_of(issue_case(6), "launcher", "rider")
    start = combat.start()
    assert combat.value(start) == Fraction(8, 11)
    assert combat.score(start) == (Fraction(8, 11), Fraction(8, 11))
    assert [str(a) for a in combat.best_line(start)] == [
        "attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass"]
    odds = SW.odds(SW.plan(battle_from_mapping(issue_case(6))[1], Attack("launcher", "rider")))
    assert odds.events["attacker_wins"] == Fraction(8, 11) and odds.lines.cut
    assert len(odds.lines.lines) == combat_module.MAX_LINES


def test_the_issues_case_with_four_tactics_equals_the_reference():
    """The same case with 4 tactics a hand (9 actions open), and part way along its best line."""
    combat = combat_of(issue_case(4), "launcher", "rider")
    state = combat.start()
    same_as_reference(combat, state)
    for action in combat.best_line(state)[:-1]:
        state, _ = combat.after(state, action)
        same_as_reference(combat, state)


def test_thirty_tactics_a_hand_are_answered():
    """A hand far beyond what a table sees (30 tactics each, 61 actions open) is answered, not refused: the
    same reasoning as the issue's case gives 8/11, and the best line plays no tactic."""
    combat = combat_of(issue_case(30), "launcher", "rider")
    start = combat.start()
    assert combat.search_size(start) == 61
    assert combat.value(start) == Fraction(8, 11)
    assert len(combat.best_line(start)) == 4


def test_every_card_played_when_each_adds_damage():
    """A long best line: the attacker plays each of its 4 damage cards (after the defender's swerve, a pass
    would let the defender end the stage), one a turn, the defender passing between: 8/11 at damage 5 (the
    defender's accuracy cards count for nothing on its side); the reference agrees."""
    data = issue_case(4)
    for card in data["cards"]:
        if card["id"][0] in "ad" and card["type"] == "tactic":
            card["effect"] = {"damage": 1} if card["owner"] == "jason" else {"accuracy": 1}
    combat = combat_of(data, "launcher", "rider")
    start = combat.start()
    played = "".join(f"attacker:play:a{i},defender:pass," for i in range(4))
    assert ",".join(map(str, combat.best_line(start))) == f"attacker:pass,defender:swerve-target,{played}attacker:pass"
    assert combat.score(start) == (Fraction(8, 11), Fraction(40, 11))
    same_as_reference(combat, start)


def test_the_reference_answers_where_the_search_would_not():
    """Were a side's cards ever to depend on each other's order, the reference answers in the search's place."""
    data = issue_case(3)
    combat = combat_of(data, "launcher", "rider")
    start = combat.start()
    expected = combat.score(start), combat.best_line(start), combat.lines(start)
    plain = combat_of(data, "launcher", "rider")
    plain._moves_independent = False
    assert (plain.score(start), plain.best_line(start), plain.lines(start)) == expected
    assert not plain._scores  # the search was never asked


def test_a_limit_of_zero_refuses_with_the_bound_named(monkeypatch):
    monkeypatch.setattr(search_module, "MAX_SEARCH_WORK", 0)
    combat = combat_of(issue_case(1), "launcher", "rider")
    with pytest.raises(LimitError, match=r"not searched with more than 0 actions open to the players \(here 3\)"):
        combat.value(combat.start())
