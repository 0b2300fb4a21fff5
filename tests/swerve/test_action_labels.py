"""A swerve action as a player reads it (``Combat.label``, the labels of a question's answers): the card's name and
what the action adds on the acting role's side, never the engine's ``defender:play:smoke-screen``. Checked against
the rules' own play of each action (the totals ``Combat.after`` changes, SW-3.4, SW-3.5) in every position reached
from crowded random ones, and in the examples' questions."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings

from rangefire.core import Attack
from rangefire.demo import example_path
from rangefire.rulesets import load_battle
from rangefire.rulesets.swerve.combat import Action, Combat, State
from tests.swerve.test_best_play import combat_of, mixed_positions

TOTALS = ("accuracy", "speed", "damage")
LABEL = re.compile(r"^(?P<kind>pass|swerve|play|use)(?: (?P<name>.+?): (?P<said>.+))?$")


def reachable(combat: Combat, limit: int = 300) -> list[State]:
    """The positions reached from the start by legal actions, breadth first, at most ``limit``."""
    seen, queue = [combat.start()], [combat.start()]
    while queue and len(seen) < limit:
        state = queue.pop(0)
        for action in combat.legal(state):
            nxt, _ = combat.after(state, action)
            seen.append(nxt)
            queue.append(nxt)
    return seen[:limit]


def said(label: str) -> tuple[str, str | None, dict[str, int], bool]:
    """A label read back: its verb, the card named, the totals it says change and by how much, and whether it
    says the card pays by being swerved."""
    match = LABEL.match(label)
    assert match, label
    changes: dict[str, int] = {}
    swerving = False
    for part in (match["said"] or "").split(", "):
        if not part or re.fullmatch(r"nothing on the (attacker|defender) side", part):
            continue
        if part == "swerving it":
            swerving = True
            continue
        number, total = part.split(" ")
        assert re.fullmatch(r"[+-]\d+", number) and total in TOTALS, label
        changes[total] = int(number)
    return match["kind"], match["name"], changes, swerving


def check_labels(combat: Combat) -> int:
    checked = 0
    for state in reachable(combat):
        for action in combat.legal(state):
            label = combat.label(action)
            assert not re.search(r"\w:\w", label), label  # never the engine's own spelling
            kind, name, changes, swerving = said(label)
            nxt, _ = combat.after(state, action)
            for total in TOTALS:  # each total it says changes, by that much; every other stays
                assert changes.get(total, 0) == getattr(nxt, total) - getattr(state, total), (action, label)
            if action.kind == "pass":
                assert label == "pass"
            elif action.kind == "swerve-target":
                assert (kind, name) == ("swerve", combat.target.name or combat.target.id)
            else:
                card = combat.cards[action.card or ""]
                assert (kind, name) == (action.kind, card.name or card.id), (action, label)
                # the cost said is the one paid: the card is spent by a use that swerves it [SW-1.6]
                assert swerving == (action.kind == "use" and card.id in nxt.spent - state.spent), (action, label)
            checked += 1
    return checked


@settings(max_examples=60, deadline=None)
@given(mixed_positions())
def test_a_label_says_what_the_action_adds_sw_3_5(data: dict[str, Any]) -> None:
    check_labels(combat_of(data))


def test_the_examples_questions_are_labelled_by_their_cards_sw_3_1() -> None:
    ruleset, battle = load_battle(example_path("ambush.yaml"))
    combat = ruleset.plan(battle, Attack("rail-gun", "dune-buggy")).combat
    assert combat is not None and check_labels(combat) > 10
    question = ruleset.next_choice(battle, Attack("rail-gun", "dune-buggy", (("actions", ("attacker:pass",)),)))
    assert question is not None
    assert dict(zip(question.allowed, question.labels, strict=True)) == {
        "defender:pass": "pass", "defender:swerve-target": "swerve Dune Buggy: +25 speed",
        "defender:play:smoke-screen": "play Smoke Screen: +10 speed"}
    assert question.to_dict()["labels"] == list(question.labels)
    # a card without a printed name is named by its id; a question's labels follow its answers one for one
    first = ruleset.next_choice(battle, Attack("rail-gun", "dune-buggy"))
    assert first is not None and first.labels == ("pass", "play Overcharge: +1 damage",
                                                  "use Spotter: +10 accuracy, swerving it")
    assert str(Action.parse("attacker:use:spotter")) == first.allowed[2]
