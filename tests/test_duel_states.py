"""Dress on the Colors' duel states (``rangefire.rulesets.dress_on_the_colors.duel_states``): every volley the
chain is built from, with the plans, dice, frames and target outcomes kept and shared between states, equals the
same volley worked out afresh from the battle the state stands for by the game's own exchanges and end of turn
[DC-4.3, DC-5.3, DC-7.1, DC-9.3], state by state, whatever was worked out before it."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rangefire.analysis.duel_chain import build
from rangefire.core import Attack
from rangefire.rulesets import find_ruleset
from rangefire.rulesets.dress_on_the_colors.duel_states import States
from tests.conftest import dc_battle, unit

WOOD = ({"id": "wood", "kind": "light", "polygon": [[-4, 7.5], [4, 7.5], [4, 10], [-4, 10]]},)


def _battles() -> dict[str, Any]:
    f = unit("F", "blue", (0, 0), 0, stands=3, disordered=True, gunsmoke=True)
    return {
        # a third unit out of the way, woods, a disordered firer with a gunsmoke marker, a target with a marker
        "third-unit": dc_battle(f, unit("T", "grey", (0, 7), 180, stands=3, micro_hits=1),
                                unit("P", "grey", (30, 0), 0), terrain=WOOD, discipline_dice=1),
        # 10 in apart: the gunsmoke marker each volley places is read by the next [DC-7.1, DC-7.2]
        "gunsmoke": dc_battle(unit("F", "blue", (0, 0), 0, stands=3),
                              unit("T", "grey", (0, 10), 180, stands=4, weapon="smoothbore"), discipline_dice=1),
    }


def afresh(doc: Any, states: States, state: int, shooter: str, target: str, then: str) -> dict[int, Fraction]:
    """The volley from ``state`` worked out from its battle alone, no table of the duel's read: the game's
    exchanges, and where both units stand the turn passed to ``then`` (round to it again where it fired last) by
    the game's end of turn; each state's probability."""
    out: dict[int, Fraction] = {}
    for p, after in doc.exchanges(states.battle_of(state), Attack(shooter, target)):
        if doc.duel_left(after, shooter) and doc.duel_left(after, target):
            if then == shooter:
                after = doc.duel_pass(after, target)
            after = doc.duel_pass(after, then)
        k = states.state_of(after)
        out[k] = out.get(k, Fraction(0)) + p
    return out


@pytest.mark.parametrize("name", ["third-unit", "gunsmoke"])
def test_every_volley_of_the_chain_equals_the_game_worked_out_afresh_dc_4_3_dc_9_3(name):
    """One model asked for the chain of each order of fire in turn (so that what the first kept is read by the
    next), then every node's volley checked against :func:`afresh`: the states and their probabilities, what
    ``transitions`` splits off as ends, and the stands it says are left."""
    doc = find_ruleset("dress-on-the-colors")
    battle = _battles()[name]
    states = States(doc, battle)
    checked = 0
    for first in ("a", "alternate", "b"):
        graph = build(states, "F", "T", first)
        for state, phase in graph.keys:
            role = graph.pattern[phase]
            shooter, target = ("F", "T") if role == "a" else ("T", "F")
            then = "F" if graph.pattern[(phase + 1) % len(graph.pattern)] == "a" else "T"
            expected = afresh(doc, states, state, shooter, target, then)
            den, found = states.fire(state, shooter, target, then)
            assert sum(w for w, _ in found) == den
            assert {k: Fraction(w, den) for w, k in found} == expected
            den, weights, afters, lefts, ends = states.transitions(state, shooter, target, then)
            both = {k: p for k, p in expected.items() if states.left(k, "F") and states.left(k, "T")}
            assert dict(zip(afters, (Fraction(w, den) for w in weights), strict=True)) == both
            assert list(afters) == [k for _, k in found if k in both]  # fire's order, each state once
            for k, (ls, lt) in zip(afters, lefts, strict=True):
                after = states.battle_of(k)
                assert (ls, lt) == (doc.duel_left(after, shooter), doc.duel_left(after, target))
            gone = {(states.left(k, shooter), states.left(k, target)): p for k, p in expected.items()
                    if k not in both}
            assert {(ls, lt): Fraction(w, den) for w, ls, lt in ends} == gone
            checked += 1
    assert checked > 100


def test_a_state_key_stands_for_its_battle():
    """A state's integer names the turn and every unit (0 where destroyed): it goes to its battle and back."""
    doc = find_ruleset("dress-on-the-colors")
    states = States(doc, _battles()["third-unit"])
    start = states.start("F")
    battle = states.battle_of(start)
    assert states.state_of(battle) == start
    assert [u.id for u in battle.units] == ["F", "T", "P"]
    assert (states.left(start, "F"), states.left(start, "T")) == (3, 3)
    turn, units = states.state(start)
    assert states.key((turn, (units[0], -1, units[2]))) != start
    assert states.left(states.key((turn, (units[0], -1, units[2]))), "T") == 0


def test_the_states_of_a_duel_are_freed_as_soon_as_it_lets_them_go():
    """Nothing of a duel's states refers back to them in a cycle: with Python's collector paused (as a duel runs),
    they go the moment the last reference does, not at the collector's next pass over every object they hold."""
    import gc
    import weakref

    doc = find_ruleset("dress-on-the-colors")
    paused = gc.isenabled()
    gc.disable()
    try:
        states = States(doc, _battles()["gunsmoke"])
        build(states, "F", "T", "alternate")
        assert states._codes  # the target's fields were made: the tables that once referred back
        gone = weakref.ref(states)
        del states
        assert gone() is None
    finally:
        if paused:
            gc.enable()
