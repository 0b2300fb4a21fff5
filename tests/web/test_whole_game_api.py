"""A whole game of three turns through the HTTP API, for each game (DC-10, AL-10, BU-9, SW-9): moves, marks,
attacks (entered dice where the battle was created with them, the server's otherwise; a choice the rules give the
other player answered with that player's token), an undo and ends of turn; the actions the API stored, replayed by
the library on the battle's scenario, give the state the API serves."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi")

from tests.web.conftest import Battle, error_of
from tests.web.test_moves_api import replayed_state, unit_of


def to_act(battle: Battle) -> str:
    side: str = battle.state()["side_to_act"]
    return side


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def move(battle: Battle, **body: Any) -> dict[str, Any]:
    return ok(battle.post("/move", to_act(battle), body))


def mark(battle: Battle, unit: str, state: str, on: bool = True) -> dict[str, Any]:
    return ok(battle.post("/mark", to_act(battle), {"unit": unit, "state": state, "on": on}))


def end_turn(battle: Battle, activation: bool = False) -> dict[str, Any]:
    return ok(battle.post("/end-turn", to_act(battle), {"activation": activation} if activation else {}))


def undo(battle: Battle) -> dict[str, Any]:
    """The last action still standing taken back by the side that made it: recorded as one more action, naming
    what it took back, seen by every side."""
    state = battle.state()
    last = state["last_standing"]
    undone = ok(battle.post("/undo", last["by"]))
    assert undone["actions"] == state["actions"] + 1
    assert undone["last_standing"] != last
    recorded = battle.get("/actions").json()["actions"][-1]
    assert (recorded["action"], recorded["takes_back"], recorded["by"]) == ("undo", last["number"], last["by"])
    assert recorded["what"] == last["what"]
    return undone


def attack(battle: Battle, attacker: str, target: str | None = None, answers: tuple[str, ...] = (),
           **choices: Any) -> dict[str, Any]:
    """An attack of the side to act: each choice it waits for answered, in turn, by the side it waits for; in a
    battle of entered dice its dice entered stage by stage, as the page asks for them (the highest face)."""
    side = to_act(battle)
    body: dict[str, Any] = {"attacker": attacker, "target": target, "choices": choices}
    entered = battle.state()["entered_dice"]
    answer = battle.post("/resolve", side, {**body, "ask": True, "dice": {}} if entered else body)
    left = list(answers)
    while answer.status_code == 202:
        awaiting = answer.json()["pending"]["awaiting"]
        if awaiting["kind"] == "dice":
            break
        assert awaiting["allowed"] and left, answer.text
        answer = battle.post("/answer", awaiting["side"], {"answer": left.pop(0)})
    assert not left, f"answers not asked for: {left}"
    if entered:
        dice: dict[str, list[int]] = {}
        for _ in range(10):
            if answer.status_code != 202 and "next" not in answer.json():
                break
            if answer.status_code == 200:  # the next stage to enter, asked as the page asks it
                question = answer.json()["next"]
                dice[question["stage"]] = [question["faces"][-1]] * question["count"]
            answer = battle.post("/resolve", side, {**body, "dice": dice, "ask": True})
        played = ok(answer)
        assert played["dice"] == dice
        return played
    return ok(answer)


def kinds(battle: Battle) -> list[str]:
    """The kinds of the actions standing (each undo taking back the last one before it)."""
    standing: list[str] = []
    for action in battle.get("/actions").json()["actions"]:
        if action["action"] == "undo":
            standing.pop()
        else:
            standing.append(action["action"])
    return standing


def replays_to_the_state(battle: Battle) -> dict[str, Any]:
    state = battle.state()
    assert state["pending"] is None
    assert replayed_state(battle) == state["battle"]
    return state


# -- each game ----------------------------------------------------------------------------------------------
def test_dress_on_the_colors_three_turns_entered_dice_dc_10_1_dc_10_3(new_battle):
    """DC-10.1, DC-10.3: the Wheatfield over HTTP, its dice entered: three turns of moves, volleys, an undo of a
    volley and ends of turn; the stored actions replay to the state."""
    battle = new_battle("wheatfield", entered_dice=True)
    move(battle, unit="20th-maine", by=[0, 1])
    attack(battle, "20th-maine")
    undo(battle)
    attack(battle, "83rd-pennsylvania")
    end_turn(battle)
    move(battle, unit="15th-alabama", turn=-10)
    attack(battle, "47th-alabama")
    end_turn(battle)
    move(battle, unit="battery-d", by=[1, 0])
    attack(battle, "battery-d")
    end_turn(battle)
    move(battle, unit="4th-texas", by=[0, -1])
    end_turn(battle)
    attack(battle, "20th-maine")
    assert kinds(battle) == ["move", "attack", "end-turn", "move", "attack", "end-turn", "move", "attack",
                             "end-turn", "move", "end-turn", "attack"]
    state = replays_to_the_state(battle)
    assert state["turn"]["number"] == 3 and state["entered_dice"] is True
    assert not unit_of(state, "battery-d").get("gunsmoke", False)  # it moved, then fired [DC-7.1]


def test_arcane_legions_three_turns_server_dice_al_10_1_al_10_2(new_battle):
    """AL-10.1, AL-10.2: the ford over HTTP, the server's dice: moves (one undone and made shorter), volleys,
    ends of turn; the stored actions replay to the state."""
    battle = new_battle("ford")
    move(battle, unit="spearmen", by=[0, -1])
    attack(battle, "archers", "orc-band")
    end_turn(battle)
    move(battle, unit="orc-band", turn=90)
    end_turn(battle)
    move(battle, unit="archers", by=[-1, 0])
    undo(battle)
    move(battle, unit="archers", by=[-0.5, 0])
    end_turn(battle)
    end_turn(battle)
    attack(battle, "archers", "orc-band")
    assert kinds(battle) == ["move", "attack", "end-turn", "move", "end-turn", "move", "end-turn", "end-turn",
                             "attack"]
    state = replays_to_the_state(battle)
    assert state["turn"]["number"] == 3
    assert unit_of(state, "archers")["position"] == [-0.5, 0]  # the undone move taken back, the second made


def test_bushido_three_turns_marks_moves_and_a_nomination_entered_dice_bu_9_1_bu_9_2(new_battle):
    """BU-9.1, BU-9.2, BU-4.2: the temple yard over HTTP, its dice entered: marks set and cleared, moves (one
    undone, one a run), yoichi's shot at takeda with ito nominating yojimbo by ito's own token, ends of activations
    and of turns; the stored actions replay to the state."""
    battle = new_battle("temple", entered_dice=True)
    mark(battle, "kenji", "aimed")
    move(battle, unit="yoichi", by=[-1, 0])
    undo(battle)
    played = attack(battle, "yoichi", "takeda", answers=("nominate yojimbo",))
    assert played["action"] == 4  # a mark, a move, its undo, then the attack
    end_turn(battle, activation=True)
    move(battle, unit="scout", by=[-2, 0], run=True)
    end_turn(battle, activation=True)
    end_turn(battle)
    mark(battle, "yoichi", "prone")
    end_turn(battle, activation=True)
    end_turn(battle, activation=True)
    end_turn(battle)
    mark(battle, "yoichi", "prone", on=False)
    assert kinds(battle).count("mark") == 3 and kinds(battle).count("attack") == 1
    [shot] = [a for a in battle.get("/actions").json()["actions"] if a["action"] == "attack"]
    assert shot["choices"] == {"redirect_to": "yojimbo"} and shot["by"] == "prefecture"
    state = replays_to_the_state(battle)
    assert state["turn"]["number"] == 3
    yoichi = unit_of(state, "yoichi")
    assert yoichi["position"] == [0, 0] and "prone" not in yoichi.get("states", [])


#: Two missions, a card of each player at each, so that a card moves to another mission (SW-9.1).
TWO_MISSIONS: dict[str, Any] = {
    "ruleset": "swerve", "name": "two missions",
    "players": {"jason": {"deck": [5, 10, 0, 15, 5, 10], "deck_order": "known"},
                "tyler": {"deck": [10, 0, 5, 5, 10, 0], "deck_order": "known"}},
    "cards": [
        {"id": "launcher", "owner": "jason", "type": "weapon", "name": "Sawblade Launcher", "mission": "canyon",
         "timing": "main", "ranged": {"accuracy": 30, "damage": 1, "cost": "swerve-self",
                                      "targets": ["unit", "vehicle"]}},
        {"id": "buggy", "owner": "jason", "type": "vehicle", "name": "Buggy", "speed": 10, "toughness": 2,
         "mission": "mesa"},
        {"id": "road-warrior", "owner": "tyler", "type": "unit", "name": "Road Warrior", "speed": 20,
         "toughness": 4, "mission": "canyon"},
        {"id": "truck", "owner": "tyler", "type": "vehicle", "name": "Truck", "speed": 5, "mission": "mesa"},
        {"id": "cannon", "owner": "tyler", "type": "weapon", "name": "Cannon", "mission": "mesa",
         "timing": "main", "ranged": {"accuracy": 25, "damage": 1, "cost": "swerve-self",
                                      "targets": ["unit", "vehicle"]}},
    ],
    "turn": {"number": 1, "side": "jason"},
}


def card_of(state: dict[str, Any], cid: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in state["battle"]["cards"] if c["id"] == cid)
    return found


def test_swerve_three_turns_moves_between_missions_and_exchanges_by_both_tokens_sw_9_1_sw_8_1(new_battle):
    """SW-9.1, SW-8.1, SW-3.1: three turns at two missions over HTTP: cards moved to another mission (one move
    undone), each attack's exchange answered by the defender's own token, ends of turn unswerving the player's
    cards; the stored actions replay to the state; a moved card keeps its swerved state and counters."""
    battle = new_battle(scenario=TWO_MISSIONS)
    assert battle.state()["sides"] == ["jason", "tyler"]
    attack(battle, "launcher", "road-warrior", answers=("defender:pass",), actions=["attacker:pass"])
    moved = move(battle, unit="launcher", mission="mesa")
    assert card_of(moved, "launcher")["swerved"] is True  # it keeps its swerved state [SW-9.1]
    assert any(line["clause"] == "SW-9.1" for line in moved["log"])
    undo(battle)
    move(battle, unit="buggy", mission="canyon")
    error_of(battle.post("/move", "jason", {"unit": "truck", "mission": "canyon"}), 403, "forbidden")
    end_turn(battle)
    move(battle, unit="cannon", mission="canyon")
    attack(battle, "cannon", "buggy", answers=("defender:pass",), actions=["attacker:pass"])
    ended = end_turn(battle)
    assert ended["turn"] == {"number": 2, "side": "jason"}
    assert card_of(battle.state(), "launcher")["swerved"] is False  # unswerved at the start of his turn [SW-8.1]
    attack(battle, "launcher", "road-warrior", answers=("defender:pass",), actions=["attacker:pass"])
    move(battle, unit="launcher", mission="mesa")
    end_turn(battle)
    moved = move(battle, unit="road-warrior", mission="mesa")
    assert card_of(moved, "road-warrior")["counters"] == 2  # its damage counters go with it [SW-9.1]
    end_turn(battle)
    attack(battle, "launcher", "road-warrior",
           answers=("defender:swerve-target", "attacker:pass", "defender:pass"), actions=["attacker:pass"])
    assert kinds(battle).count("move") == 4 and kinds(battle).count("attack") == 4  # the undone move is gone
    assert kinds(battle).count("end-turn") == 4
    state = replays_to_the_state(battle)
    assert state["turn"] == {"number": 3, "side": "jason"}
    assert [card_of(state, c)["mission"] for c in ("launcher", "buggy", "road-warrior", "truck", "cannon")] == [
        "mesa", "canyon", "mesa", "mesa", "canyon"]
    assert card_of(state, "road-warrior")["counters"] == 2 and card_of(state, "buggy")["counters"] == 1
