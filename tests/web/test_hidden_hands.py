"""Hidden hands over HTTP [SW-1.4]: a side's token sees its own hand and, of every other hand, its size only;
nothing a side receives (the state, a check, odds, targets, advice, the drawing, the actions, a pending attack,
an error) names a card in a hand it cannot see, until that card is played; a spectator sees no hand; a battle
created with open hands shows all. The odds a side is shown are worked out on what it can see, and say so."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("fastapi")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rangefire.rulesets import battle_from_mapping
from tests.web.conftest import Battle, error_of

JASON, TYLER = "jason", "tyler"
UNITS_JASON = "sawblade-launcher, road-warrior, zq-steady-aim, zq-overdrive"

LAUNCHER = {"id": "sawblade-launcher", "owner": JASON, "type": "weapon", "name": "Sawblade Launcher",
            "mission": "canyon", "timing": "main", "ranged": {"accuracy": 30, "damage": 1, "cost": "swerve-self",
                                                              "targets": ["unit"]}}
WARRIOR = {"id": "road-warrior", "owner": TYLER, "type": "unit", "name": "Road Warrior", "speed": 30, "swerved": True,
           "toughness": 2, "mission": "canyon"}
#: Tactics each player may hold: an id no other text of the battle contains, so that finding it is a leak.
TACTICS = {
    JASON: [{"id": "zq-steady-aim", "owner": JASON, "type": "tactic", "name": "Steady Aim", "timing": "combat",
             "effect": {"accuracy": 10}},
            {"id": "zq-overdrive", "owner": JASON, "type": "tactic", "name": "Overdrive", "timing": "ranged-combat",
             "effect": {"accuracy": 5}}],
    TYLER: [{"id": "xk-smoke-screen", "owner": TYLER, "type": "tactic", "name": "Smoke Screen", "timing": "combat",
             "effect": {"speed": 10}},
            {"id": "xk-jink", "owner": TYLER, "type": "tactic", "name": "Jink", "timing": "ranged-combat",
             "effect": {"speed": 5}},
            {"id": "xk-reserve", "owner": TYLER, "type": "unit", "name": "Reserve", "speed": 10, "toughness": 1}],
}


def scenario(held: dict[str, list[int]]) -> dict[str, Any]:
    """The rules' example with each player holding the tactics (by index) ``held`` names."""
    hands = {player: [TACTICS[player][i]["id"] for i in indexes] for player, indexes in held.items()}
    cards = [LAUNCHER, WARRIOR] + [TACTICS[p][i] for p, indexes in held.items() for i in indexes]
    return {"ruleset": "swerve", "name": "hands", "players": {JASON: {"deck": [5, 10, 0, 15], "deck_order": "known"},
                                                               TYLER: {"deck": [10, 0], "deck_order": "known"}},
            "cards": cards, "hands": hands, "turn": {"number": 1, "side": JASON}}


def secrets_of(held: dict[str, list[int]], player: str) -> set[str]:
    return {TACTICS[player][i]["id"] for i in held.get(player, [])}


class Reader:
    """Every answer one token receives, kept as text."""

    def __init__(self, battle: Battle, token: str) -> None:
        self.battle, self.token, self.seen = battle, token, []

    def get(self, rest: str = "") -> Any:
        response = self.battle.get(rest, token=self.token)
        self.seen.append(response.text)
        return response

    def post(self, rest: str, body: dict[str, Any]) -> Any:
        response = self.battle.client.post(self.battle.url(rest), json=body,
                                           headers={"Authorization": f"Bearer {self.token}"})
        self.seen.append(response.text)
        return response

    def everything(self, side: str | None) -> None:
        """Every read route a page uses."""
        self.get()
        self.get("/actions")
        self.get("/targets")
        self.get("/targets?attacker=sawblade-launcher")
        self.get("/drawing.svg?attacker=sawblade-launcher&target=road-warrior")
        for advised in (JASON, TYLER):
            self.get(f"/advice?side={advised}")
        attack = {"attacker": "sawblade-launcher", "target": "road-warrior"}
        self.post("/check", attack)
        self.post("/odds", attack)
        self.post("/check", {**attack, "choices": {"actions": ["attacker:pass"]}})
        self.post("/move", {"unit": "road-warrior", "mission": "mesa", "check": True})

    def names_none_of(self, ids: set[str]) -> None:
        for text in self.seen:
            found = sorted(i for i in ids if i in text)
            assert not found, f"{found} named in {text[:300]}"


def test_each_side_sees_its_own_hand_and_the_size_of_the_other(new_battle):
    held = {JASON: [0, 1], TYLER: [0, 1, 2]}
    battle = new_battle(scenario=scenario(held))
    jason, tyler = Reader(battle, battle.sides[JASON]), Reader(battle, battle.sides[TYLER])
    spectator = Reader(battle, battle.spectator)
    mine = jason.get().json()
    assert mine["battle"]["hands"] == {JASON: ["zq-steady-aim", "zq-overdrive"]}
    assert mine["hidden"]["hands"] == {TYLER: 3} and "unknown to you" in mine["hidden"]["note"]
    assert tyler.get().json()["hidden"]["hands"] == {JASON: 2}
    watched = spectator.get().json()
    assert watched["battle"]["hands"] == {} and watched["hidden"]["hands"] == {JASON: 2, TYLER: 3}
    odds = jason.post("/odds", {"attacker": "sawblade-launcher", "target": "road-warrior"}).json()
    assert "no tactic from them assumed" in odds["hidden"]["note"]
    for reader, side in ((jason, JASON), (tyler, TYLER), (spectator, None)):
        reader.everything(side)
    jason.names_none_of(secrets_of(held, TYLER))
    tyler.names_none_of(secrets_of(held, JASON))
    spectator.names_none_of(secrets_of(held, TYLER) | secrets_of(held, JASON))
    # a card of tyler's hand named by jason is as unknown to him as a card that is nowhere
    for unit in ("xk-reserve", "no-such-card"):
        answer = battle.client.post(battle.url("/move"), json={"unit": unit, "mission": "canyon", "check": True},
                                    headers=battle.as_side(JASON))
        error = answer.json()["error"]
        assert (answer.status_code, error["kind"]) == (404, "unknown_unit"), answer.text
        assert error["message"].replace(unit, "X") == f"unit: 'X' is not in this battle (units: {UNITS_JASON})"


@pytest.mark.parametrize("edit", [
    {"op": "remove", "section": "cards", "id": "CARD"},
    {"op": "change", "section": "cards", "id": "CARD", "data": {"name": "Mine"}},
    {"op": "change", "section": "cards", "id": "CARD", "data": {"owner": JASON}},
    {"op": "remove", "section": "cards", "id": "CARD", "check": True},
    {"op": "change", "section": "cards", "id": "CARD", "data": {"name": "Mine"}, "check": True},
])
def test_an_edit_naming_a_card_of_the_other_hand_is_answered_as_for_a_card_nowhere_sw_1_4(new_battle, edit):
    """SW-1.4: jason editing a card of tyler's hand (by a guessed id) is answered word for word as for an id that
    is nowhere in the battle; told "its owner is 'tyler'" instead, he would learn tyler's hand one guess at a time.
    Nothing is written either way."""
    held = {JASON: [0], TYLER: [0, 1, 2]}
    battle = new_battle(scenario=scenario(held))
    jason = Reader(battle, battle.sides[JASON])
    said = {}
    for card in ("xk-jink", "xk-no-such-card"):
        answer = jason.post("/edit", {key: (card if value == "CARD" else value) for key, value in edit.items()})
        assert answer.status_code < 500, answer.text
        said[card] = (answer.status_code, answer.text.replace(card, "CARD"))
    assert said["xk-jink"] == said["xk-no-such-card"]
    assert said["xk-jink"][0] == (200 if edit.get("check") else 409)
    jason.names_none_of(secrets_of(held, TYLER) - {"xk-jink"})  # the card guessed is named back, as sent
    assert battle.state()["actions"] == 0


def test_the_odds_shown_to_the_attacker_assume_nothing_of_the_hidden_hand(new_battle, client):
    """Jason's odds are the odds of the battle without tyler's hand; tyler's own (or an open game's) count it."""
    from rangefire.core import Attack
    from rangefire.rulesets import find_ruleset

    held = {TYLER: [0]}
    data = scenario(held)
    hidden = new_battle(scenario=data)
    open_game = new_battle(scenario=data, open_hands=True)
    attack = {"attacker": "sawblade-launcher", "target": "road-warrior"}
    shown = hidden.client.post(hidden.url("/odds"), json=attack, headers=hidden.as_side(JASON)).json()
    whole = open_game.client.post(open_game.url("/odds"), json=attack, headers=open_game.as_side(JASON)).json()
    ruleset = find_ruleset("swerve")
    without = {**data, "cards": [c for c in data["cards"] if c["id"] != "xk-smoke-screen"], "hands": {TYLER: []}}
    _, blind = battle_from_mapping(without)
    _, full = battle_from_mapping(data)
    plan_blind = ruleset.check(blind, Attack("sawblade-launcher", "road-warrior")).plan
    plan_full = ruleset.check(full, Attack("sawblade-launcher", "road-warrior")).plan
    assert shown["events"] == ruleset.odds(plan_blind).to_dict()["events"]
    assert whole["events"] == ruleset.odds(plan_full).to_dict()["events"]
    assert shown["events"] != whole["events"]  # the smoke screen in tyler's hand changes the odds
    assert "hidden" not in whole


def test_an_exchange_never_shows_the_other_hand_until_a_card_is_played(new_battle):
    held = {JASON: [0], TYLER: [0, 2]}
    battle = new_battle(scenario=scenario(held))
    jason, tyler = Reader(battle, battle.sides[JASON]), Reader(battle, battle.sides[TYLER])
    waiting = jason.post("/resolve", {"attacker": "sawblade-launcher", "target": "road-warrior",
                                      "choices": {"actions": ["attacker:pass"]}})
    assert waiting.status_code == 202, waiting.text
    awaiting = waiting.json()["pending"]["awaiting"]
    assert awaiting["side"] == TYLER and "allowed" not in awaiting and "cannot see" in awaiting["hidden"]
    answers = tyler.get().json()["pending"]["awaiting"]
    assert "defender:play:xk-smoke-screen" in answers["allowed"]  # tyler sees his own
    jason.get()
    error_of(jason.post("/end-turn", {}), 409, "pending")  # the error's pending attack: as jason sees it
    jason.names_none_of(secrets_of(held, TYLER))
    played = tyler.post("/answer", {"answer": "defender:pass"})
    assert played.status_code in (200, 202), played.text
    jason.everything(JASON)
    jason.names_none_of(secrets_of(held, TYLER))
    tyler.names_none_of(secrets_of(held, JASON))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(jason=st.lists(st.integers(0, 1), unique=True), tyler=st.lists(st.integers(0, 2), unique=True),
       answers=st.lists(st.integers(0, 5), max_size=6))
def test_no_answer_to_a_side_names_a_card_of_another_hand(new_battle, jason, tyler, answers):
    """Random hands and random lines of play: for every route each side reads, and every answer it gets while
    the exchange goes on, no card of the other hand is named unless it was played (then it is public)."""
    held = {JASON: jason, TYLER: tyler}
    battle = new_battle(scenario=scenario(held))
    readers = {JASON: Reader(battle, battle.sides[JASON]), TYLER: Reader(battle, battle.sides[TYLER])}
    readers[JASON].everything(JASON)
    readers[TYLER].everything(TYLER)
    response = readers[JASON].post("/resolve", {"attacker": "sawblade-launcher", "target": "road-warrior",
                                                 "choices": {"actions": ["attacker:pass"]}})
    picks = list(answers)
    while response.status_code == 202:
        awaiting = response.json()["pending"]["awaiting"]
        side = awaiting["side"]
        allowed = readers[side].get().json()["pending"]["awaiting"]["allowed"]
        for reader in readers.values():
            reader.get()
            reader.post("/end-turn", {})  # refused while the attack waits: its error shows the pending attack
        choice = allowed[picks.pop(0) % len(allowed)] if picks else allowed[-1]
        response = readers[side].post("/answer", {"answer": choice})
    assert response.status_code == 200, response.text
    played = json.dumps(battle.get("/actions").json())
    for side, other in ((JASON, TYLER), (TYLER, JASON)):
        readers[side].everything(side)
        unplayed = {cid for cid in secrets_of(held, other) if cid not in played}
        readers[side].names_none_of(unplayed)
