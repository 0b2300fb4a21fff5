"""The lines of play ``odds`` lists (SW-6.1, SW-6.2): worked out once for each distinct end, they equal those
worked out line by line, to the byte of their JSON, on the issue's case (2000 lines listed, 55 distinct ends)
and on crowded positions; and each line's odds equal the rules oracle's."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core import LineOfPlay
from rangefire.dice import Dist
from rangefire.rulesets import battle_from_mapping
from rangefire.rulesets.swerve.combat import MAX_LINES, Combat, State
from tests.swerve.test_best_play import SW, combat_of, issue_case, mixed_positions
from tests.swerve.test_search import rules_odds


def line_by_line(combat: Combat, state: State, limit: int = MAX_LINES) -> tuple[list[dict[str, Any]], bool]:
    """The lines as JSON, each worked out on its own: the lines enumerated by the rules (legal actions, one
    after another, a state for each), each end judged against every card the reveal may show [SW-4.3, SW-5.1]."""
    found, cut = combat._lines_by_rules(state, limit)
    bonuses = list(combat.bonus_options()) or [combat.known_bonus()]
    listed = []
    for line, end in found:
        wins = [combat.attacker_wins(end, b) for b in bonuses]
        damage = Dist(Counter(combat.damage_dealt(end, w) for w in wins))
        listed.append(LineOfPlay(tuple(str(a) for a in line), Fraction(sum(wins), len(bonuses)), damage).to_dict())
    return listed, cut


def listed(data: dict[str, Any], attacker: str = "gun", target: str = "car",
           actions: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], bool]:
    battle = battle_from_mapping(data)[1]
    odds = SW.odds(SW.plan(battle, SW.attack(attacker, target, {"actions": actions})))
    assert odds.lines is not None
    return [line.to_dict() for line in odds.lines.lines], odds.lines.cut


def test_the_issues_case_line_by_line():
    """The issue's case: 2000 lines listed (cut), ending on 55 distinct totals; the same JSON, byte for byte, as
    the lines worked out one by one."""
    combat = combat_of(issue_case(6), "launcher", "rider")
    ours, cut = listed(issue_case(6), "launcher", "rider")
    theirs, their_cut = line_by_line(combat, combat.start())
    assert cut and their_cut and len(ours) == MAX_LINES
    assert json.dumps(ours) == json.dumps(theirs)
    ends = {totals for _, totals in combat.line_totals(combat.start())[0]}
    assert len(ends) == 55  # the case this is for: far fewer ends than lines


def test_every_line_of_a_smaller_case_against_the_rules_oracle():
    """Two tactics a hand: every line listed (326, none cut, ending on 32 totals), each line's chance the rules
    oracle's."""
    data = issue_case(2)
    ours, cut = listed(data, "launcher", "rider")
    _, _, by_line = rules_odds(data, "launcher", "rider")
    assert not cut and len(ours) == 326
    assert {tuple(x["actions"]): Fraction(x["attacker_wins"]) for x in ours} == by_line
    combat = combat_of(data, "launcher", "rider")
    assert json.dumps(ours) == json.dumps(line_by_line(combat, combat.start())[0])


@settings(max_examples=80, deadline=None)
@given(mixed_positions(), st.data())
def test_lines_equal_those_worked_out_line_by_line(data, steps):
    """From the start and part way along a line of play: the same lines, the same odds, the same JSON; and the
    totals :meth:`Combat.line_totals` gives are those of the states :meth:`Combat.lines` reaches, at any cut."""
    combat = combat_of(data)
    state, given_actions = combat.start(), []
    for _ in range(steps.draw(st.integers(0, 4))):
        legal = combat.legal(state)
        if not legal:
            break
        action = steps.draw(st.sampled_from(legal))
        state, _ = combat.after(state, action)
        given_actions.append(str(action))
    if state.is_over:
        return  # odds of a finished line list no lines to compare
    ours, cut = listed(data, actions=tuple(given_actions))
    theirs, their_cut = line_by_line(combat, state)
    assert (json.dumps(ours), cut) == (json.dumps(theirs), their_cut)
    for limit in (1, 7, MAX_LINES):
        found, cut = combat.lines(state, limit)
        assert combat.line_totals(state, limit) == (
            [(tuple(a.text for a in line), (s.accuracy, s.speed, s.damage)) for line, s in found], cut)
