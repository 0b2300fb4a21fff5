"""``Ruleset.check_many``: the checks of many attacks of one battle, in order, with the answers of ``check`` asked
for each alone. The base class checks one by one; a game may share the work (Bushido does: its own tests are in
tests/bushido/test_check_many.py). Here: every game's examples, a random Arcane Legions battle with choices
[AL-3.1, AL-3.4], and bad input raised before anything is checked."""

from __future__ import annotations

from typing import Any

import pytest

from rangefire.core import Attack, ChoiceError, Ruleset, UnknownUnitError
from rangefire.demo import example_path
from rangefire.rulesets import RULESETS, find_ruleset, load_battle
from rangefire.rulesets.bushido import Bushido
from tests.battles import arcane_lines

EXAMPLES = ("wheatfield.yaml", "ford.yaml", "temple.yaml", "mist-bridge.yaml", "sawblade.yaml", "ambush.yaml")


def answer(checked: Any) -> Any:
    plan = checked.plan
    if plan is None:
        return ("refused", checked.attacker, checked.target, [(r.clause, r.reason) for r in checked.refusals])
    return ("legal", checked.attacker, checked.target, plan.to_dict(), plan.notes, plan.modifiers, plan.summary())


def every_pair(ruleset: Ruleset[Any, Any], battle: Any) -> list[Attack]:
    ids = list(ruleset.unit_ids(battle))
    return [Attack(a, b) for a in ids for b in ids if a != b] + [Attack(a) for a in ids]


def test_only_bushido_overrides_the_default():
    """The other games check many attacks with the base class's default: one by one (the tests below of
    those games are tests of the default)."""
    overriding = {r.key for r in RULESETS if type(r)._check_many is not Ruleset._check_many}
    assert overriding == {"bushido"}
    assert Bushido._check_many is not Ruleset._check_many


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_checks_many_as_one_by_one(name):
    ruleset, battle = load_battle(example_path(name))
    attacks = every_pair(ruleset, battle)
    assert [answer(c) for c in ruleset.check_many(battle, attacks)] == [answer(ruleset.check(battle, a))
                                                                         for a in attacks]


def arcane_battle(seed: int) -> Any:
    """Ten units in two lines with hindering and blocking terrain between (as bench/run.py's 40-unit battle)."""
    return arcane_lines(seed, 10, 6, spacing=1.6, rows=((0, 1.5), (3.5, 5)), field=(0, 8, 1.5, 3.5), piece=(0.5, 0.3))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_default_with_choices_is_one_by_one_al_3_1_al_3_4(seed):
    """Arcane Legions with its choices given (each order, each pair of sides): the default's answers are
    those of check, in order; the battle holds legal and refused attacks both."""
    ruleset = find_ruleset("arcane-legions")
    battle = arcane_battle(seed)
    attacks = every_pair(ruleset, battle)
    enemies = [a for a in attacks if a.target and a.target in ruleset.enemies(battle, a.attacker)]
    for choice in ruleset.choices:
        if choice.allowed:
            attacks += [Attack(a.attacker, a.target, ((choice.name, value),))
                        for a in enemies[::3] for value in choice.allowed]
    many = [answer(c) for c in ruleset.check_many(battle, attacks)]
    assert many == [answer(ruleset.check(battle, a)) for a in attacks]
    assert {kind for kind, *_ in many} == {"legal", "refused"}


def test_bad_input_is_raised_before_anything_is_checked(monkeypatch):
    """An unknown id or choice anywhere among the attacks is bad input, named as check names it, and raised
    before any attack is checked (nothing is half done)."""
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    checked: list[Attack] = []
    original = type(ruleset)._check
    monkeypatch.setattr(type(ruleset), "_check", lambda self, b, a: checked.append(a) or original(self, b, a))
    good = every_pair(ruleset, battle)[0]
    with pytest.raises(UnknownUnitError, match="target 'nobody' is not in this battle"):
        ruleset.check_many(battle, [good, Attack(good.attacker, "nobody")])
    with pytest.raises(ChoiceError):
        ruleset.check_many(battle, [good, Attack(good.attacker, good.target, (("no_such_choice", "x"),))])
    assert checked == []
    assert ruleset.check_many(battle, []) == []
    assert [answer(c) for c in ruleset.check_many(battle, [good])] == [answer(ruleset.check(battle, good))]
    assert checked  # the hook was the one asked
