"""The order of the sides (DC-9.4, AL-9.3, BU-8.4) and the active side (BU-8.3).

The order is fixed when a scenario is first read and recorded in the battle (``turn.order``); a destroyed unit
never changes it; a side with no unit left is passed over, and the turn number grows only after the last side of
the order. Each game is played here as it is at a table: a side's first unit destroyed in the other side's turn
(the engine deletes a destroyed unit), a side wiped out in its own turn, three sides; through the library, the
command line (``resolve --log`` and ``replay``) and the HTTP API.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rangefire.core import Attack, ScenarioError, SeededSource
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.scenario import write_scenario
from tests.commands import run as run_text
from tests.conftest import unit as dc_unit
from tests.test_turns import replay_equals_out

DC, AL, BU = (find_ruleset(k) for k in ("dress-on-the-colors", "arcane-legions", "bushido"))


# -- small battles of each game whose first-listed unit of a side dies to one attack ----------------------
def dc(*units: dict[str, Any], turn: Any = None) -> dict[str, Any]:
    data: dict[str, Any] = {"ruleset": "dress-on-the-colors", "units": list(units)}
    if turn is not None:
        data["turn"] = turn
    return data


def dc_weak(uid: str, side: str, x: int) -> dict[str, Any]:
    """One stand, 6 in in front of the blue line: the closest enemy of a blue unit at x [DC-2.3]."""
    return dc_unit(uid, side, (x, 6), 180, stands=1)


def al_unit(uid: str, side: str, x: int, y: int = 0, facing: int = 0, weak: bool = False) -> dict[str, Any]:
    slots = [{"icons": ["white"], "hp": 1}] if weak else [{"icons": ["blue"]}] * 6
    return {"id": uid, "side": side, "base": "sortie", "position": [x, y], "facing": facing,
            "sides": {"front": "blue", "right": "blue", "back": "blue", "left": "blue"}, "slots": slots}


def al(*units: dict[str, Any], players: tuple[str, ...], turn: Any = None) -> dict[str, Any]:
    data: dict[str, Any] = {"ruleset": "arcane-legions", "units": list(units),
                            "players": {p: {"order_points": 8} for p in players}}
    if turn is not None:
        data["turn"] = turn
    return data


def bu_model(uid: str, side: str, x: int, y: int = 0, weak: bool = False) -> dict[str, Any]:
    return {"id": uid, "side": side, "position": [x, y], "base": 30, "rcp": 4,
            "wounds": {"boxes": 1 if weak else 5},
            "weapon": {"name": "bow", "short": 6, "medium": 12, "long": 18}}


def bu(*units: dict[str, Any], active: str | None = None, turn: Any = None) -> dict[str, Any]:
    data: dict[str, Any] = {"ruleset": "bushido", "units": list(units)}
    if active is not None:
        data["active_side"] = active
    if turn is not None:
        data["turn"] = turn
    return data


def run(*args: Any) -> Any:
    return run_text(*map(str, args), ok=None)


def read(data: dict[str, Any]) -> Any:
    return battle_from_mapping(data)[1]


def destroy(ruleset: Any, battle: Any, attacker: str, target: str) -> tuple[int, Any, Any]:
    """The first seed whose attack destroys ``target`` (the engine then deletes it): the seed, its resolution and
    the battle after it."""
    for seed in range(400):
        resolution, after = ruleset.play(battle, Attack(attacker, target), SeededSource(seed))
        if target not in ruleset.unit_ids(after):
            return seed, resolution, after
    raise AssertionError(f"no seed below 400 destroys {target}")


# -- the order is recorded on first reading, from the rulings' source --------------------------------------
def test_the_order_is_recorded_as_the_units_first_name_their_sides_dc_9_4_bu_8_4():
    """DC-9.4, BU-8.4: a scenario with no order records the order in which its units first name their sides,
    also where it records no turn (then no side is limited, DC-9.2)."""
    battle = read(dc(dc_unit("g1", "grey", (0, 10), 180), dc_unit("b1", "blue", (0, 0)),
                     dc_unit("g2", "grey", (5, 10), 180)))
    assert battle.turn.order == ("grey", "blue") and battle.turn.side is None and DC.side_to_act(battle) is None
    assert DC.dump(battle)["turn"] == {"number": 1, "order": ["grey", "blue"]}
    model = read(bu(bu_model("i1", "ito", 0, 10), bu_model("p1", "prefecture", 0, 0)))
    assert model.turn.order == ("ito", "prefecture")


def test_arcane_legions_takes_the_order_of_its_players_block_al_9_3():
    """AL-9.3: the order is that of the players block, not of the units (here the units name legion first)."""
    battle = read(al(al_unit("l1", "legion", 0), al_unit("h1", "horde", 0, 4, 180), players=("horde", "legion")))
    assert battle.turn.order == ("horde", "legion")
    assert AL.sides(battle) == ["horde", "legion"]
    after, log = AL.end_turn(battle)
    assert after.turn.side == "legion" and "turn 1 of horde" in log[0].text


def test_a_recorded_order_is_kept_over_the_units_dc_9_4():
    """DC-9.4: an order written in the file is the one played, whatever the order of the units."""
    battle = read(dc(dc_unit("b1", "blue", (0, 0)), dc_unit("g1", "grey", (0, 10), 180),
                     turn={"number": 2, "side": "grey", "order": ["grey", "blue"]}))
    after, _log = DC.end_turn(battle)
    assert (after.turn.number, after.turn.side) == (2, "blue")
    assert DC.end_turn(after)[0].turn.model_dump() == {"number": 3, "side": "grey", "order": ("grey", "blue")}


@pytest.mark.parametrize(("data", "needle"), [
    (dc(dc_unit("b1", "blue", (0, 0)), dc_unit("g1", "grey", (0, 10), 180), turn={"order": ["blue"]}),
     r"units\[1\]\.side: 'grey' is not in turn\.order \(blue\): the order names every side \[DC-9\.4\]"),
    (dc(dc_unit("b1", "blue", (0, 0)), turn={"order": ["blue", "blue"]}),
     r"turn\.order\[1\]: 'blue' is named twice; each side takes its place once \[DC-9\.4\]"),
    (dc(dc_unit("b1", "blue", (0, 0)), turn={"order": []}), r"turn\.order"),
    (al(al_unit("l1", "legion", 0), al_unit("h1", "horde", 0, 4), players=("legion", "horde"),
        turn={"side": "legion", "order": ["legion"]}),
     r"units\[1\]\.side: 'horde' is not in turn\.order \(legion\).*\[AL-9\.3\]"),
    (bu(bu_model("p1", "prefecture", 0), bu_model("i1", "ito", 0, 10), active="ito", turn={"order": ["prefecture"]}),
     r"active_side: 'ito' is not in turn\.order \(prefecture\) \[BU-8\.4\]"),
])
def test_an_order_that_cannot_be_played_is_bad_input_dc_9_4_al_9_3_bu_8_4(data, needle):
    with pytest.raises(ScenarioError, match=needle):
        read(data)


# -- a side's first unit destroyed in the other side's turn -----------------------------------------------
def test_dc_a_sides_first_unit_destroyed_changes_no_turn_dc_9_4():
    """DC-9.4: grey's first-listed unit (and the first unit of the file) dies in blue's turn; grey keeps its
    place: blue's turn ends into grey's turn 2, not a second grey turn 1."""
    data = dc(dc_weak("g1", "grey", 0), dc_unit("b1", "blue", (0, 0)), dc_unit("g2", "grey", (30, 40), 180),
              turn={"number": 1, "side": "blue"})
    battle = read(data)
    assert battle.turn.order == ("grey", "blue")
    _, _, after = destroy(DC, battle, "b1", "g1")
    assert DC.unit_ids(after) == ["b1", "g2"] and after.turn.order == ("grey", "blue")
    passed, log = DC.end_turn(after)
    assert (passed.turn.number, passed.turn.side) == (2, "grey")
    assert str(log[-1]) == "[DC-9.2] turn 1: blue's turn ends; the turn passes to grey, turn 2 begins"


def test_al_a_sides_first_unit_destroyed_changes_no_turn_al_9_3():
    """AL-9.3: the same in Arcane Legions, the order from the players block (horde, legion)."""
    battle = read(al(al_unit("h1", "horde", 0, 4, 180, weak=True), al_unit("l1", "legion", 0),
                     al_unit("h2", "horde", 20, 20, 180), players=("horde", "legion"),
                     turn={"number": 1, "side": "legion"}))
    _, _, after = destroy(AL, battle, "l1", "h1")
    assert after.turn.order == ("horde", "legion") and "h1" not in AL.unit_ids(after)
    passed, _ = AL.end_turn(after)
    assert (passed.turn.number, passed.turn.side) == (2, "horde")


def test_bu_three_sides_the_activation_passes_in_the_recorded_order_bu_8_4():
    """BU-8.4: order (akai, kuro, shiro) as the models first name them; kuro's first model is the file's second
    and dies in akai's activation: the activation still passes to kuro, then shiro, then akai."""
    battle = read(bu(bu_model("a1", "akai", 0, 0), bu_model("k1", "kuro", 0, 5, weak=True),
                     bu_model("s1", "shiro", 30, 30), bu_model("k2", "kuro", -30, 30), active="akai"))
    assert BU.sides(battle) == ["akai", "kuro", "shiro"]
    _, _, after = destroy(BU, battle, "a1", "k1")
    assert BU.sides(after) == ["akai", "kuro", "shiro"]  # from the units left it would be akai, shiro, kuro
    sides = []
    for _ in range(3):
        after, _log = BU.end_activation(after)
        sides.append(after.active_side)
    assert sides == ["kuro", "shiro", "akai"]


# -- a side wiped out in its own turn; a side with no unit passed over -------------------------------------
def test_dc_a_side_wiped_out_in_its_own_turn_passes_to_the_next_without_a_new_turn_dc_9_4(tmp_path):
    """DC-9.4: blue lost its last unit in its own turn (the battle file says so: turn 1, blue, no blue unit): the
    file still reads, and the end of blue's turn passes to green in turn 1, not to grey in turn 2."""
    data = dc(dc_unit("g1", "grey", (0, 10), 180), dc_unit("n1", "green", (30, 10), 180),
              turn={"number": 1, "side": "blue", "order": ["grey", "blue", "green"]})
    path = tmp_path / "after.yaml"
    write_scenario(path, data)
    battle = read(data)
    passed, _log = DC.end_turn(battle)
    assert (passed.turn.number, passed.turn.side) == (1, "green")
    proc = run("end-turn", path, "--out", tmp_path / "next.yaml", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["battle"]["turn"] == {"number": 1, "side": "green",
                                                        "order": ["grey", "blue", "green"]}


@pytest.mark.parametrize(("ruleset", "data", "clause"), [
    (DC, dc(dc_unit("a1", "amber", (0, 0)), dc_unit("c1", "cyan", (30, 10), 180),
            turn={"number": 4, "side": "amber", "order": ["amber", "blue", "cyan"]}), "DC-9.4"),
    (AL, al(al_unit("a1", "amber", 0), al_unit("c1", "cyan", 20, 20), players=("amber", "blue", "cyan"),
            turn={"number": 4, "side": "amber"}), "AL-9.3"),
])
def test_three_sides_one_with_no_unit_is_passed_over_dc_9_4_al_9_3(ruleset, data, clause):
    """DC-9.4, AL-9.3: amber, blue, cyan; blue has no unit left: amber's turn passes to cyan (blue passed over,
    said with the clause), cyan's to amber in turn 5."""
    battle = read(data)
    after, log = ruleset.end_turn(battle)
    assert (after.turn.number, after.turn.side) == (4, "cyan")
    assert f"[{clause}] blue has no unit left: its turn is passed over" in [str(x) for x in log]
    again, log = ruleset.end_turn(after)
    assert (again.turn.number, again.turn.side) == (5, "amber")
    assert not any("passed over" in x.text for x in log)


def test_bu_a_side_with_no_model_is_passed_over_bu_8_4():
    battle = read(bu(bu_model("a1", "akai", 0, 0), bu_model("s1", "shiro", 30, 30), active="akai",
                     turn={"number": 1, "order": ["akai", "kuro", "shiro"]}))
    after, log = BU.end_activation(battle)
    assert after.active_side == "shiro"
    assert [str(x) for x in log] == ["[BU-8.4] kuro has no model left: its activation is passed over",
                                     "[BU-8.2] akai's activation ends; the activation passes to shiro"]


# -- BU-8.3: the active side attacks -----------------------------------------------------------------------
def test_only_the_active_side_attacks_bu_8_3():
    """BU-8.3: a model of a side that is not active is refused under BU-8.3, with the clause; the active side's
    model is not."""
    battle = read(bu(bu_model("p1", "prefecture", 0), bu_model("i1", "ito", 0, 8), active="ito"))
    refused = BU.check(battle, Attack("p1", "i1"))
    assert [(r.clause, r.reason) for r in refused.refusals] == [
        ("BU-8.3", "it is ito's activation; p1 is on prefecture's side: only the active side attacks")]
    assert BU.check(battle, Attack("i1", "p1")).is_legal


# -- through the command line: resolve --log, end-turn, replay -----------------------------------------------
def test_the_order_survives_a_logged_game_and_its_replay_dc_9_4(tmp_path):
    """DC-9.4: grey's first unit destroyed by a logged volley; the ends of turn after it follow the recorded
    order, and replay rebuilds the same battle."""
    data = dc(dc_weak("g1", "grey", 0), dc_unit("b1", "blue", (0, 0)), dc_unit("g2", "grey", (30, 40), 180),
              turn={"number": 1, "side": "blue"})
    seed, _, _ = destroy(DC, read(data), "b1", "g1")
    scenario, log, out = tmp_path / "start.yaml", tmp_path / "game.jsonl", tmp_path / "now.yaml"
    write_scenario(scenario, data)
    for args in (("resolve", scenario, "-a", "b1", "--seed", seed), ("end-turn", out), ("end-turn", out)):
        proc = run(*args, "--log", log, "--out", out)
        assert proc.returncode == 0, proc.stderr
    rebuilt = replay_equals_out(tmp_path, scenario, log, out)
    assert rebuilt["battle"]["turn"] == {"number": 2, "side": "blue", "order": ["grey", "blue"]}


def test_the_order_survives_a_logged_game_and_its_replay_bu_8_4(tmp_path):
    data = bu(bu_model("a1", "akai", 0, 0), bu_model("k1", "kuro", 0, 5, weak=True), bu_model("s1", "shiro", 30, 30),
              bu_model("k2", "kuro", -30, 30), active="akai")
    seed, _, _ = destroy(BU, read(data), "a1", "k1")
    scenario, log, out = tmp_path / "start.yaml", tmp_path / "game.jsonl", tmp_path / "now.yaml"
    write_scenario(scenario, data)
    steps = [("resolve", scenario, "-a", "a1", "-t", "k1", "--seed", seed)]
    steps += [("end-turn", out, "--activation")] * 2
    for args in steps:
        proc = run(*args, "--log", log, "--out", out)
        assert proc.returncode == 0, proc.stderr
    rebuilt = replay_equals_out(tmp_path, scenario, log, out)
    assert rebuilt["battle"]["active_side"] == "shiro"


# -- through the HTTP API ----------------------------------------------------------------------------------
def _killing_dice(ruleset: Any, data: dict[str, Any], attacker: str, target: str) -> dict[str, list[int]]:
    _, resolution, _ = destroy(ruleset, read(data), attacker, target)
    return {stage: list(values) for stage, values in resolution.dice.items()}


@pytest.mark.parametrize(("ruleset", "data", "attacker", "target", "then"), [
    (DC, dc(dc_weak("g1", "grey", 0), dc_unit("b1", "blue", (0, 0)), dc_unit("g2", "grey", (30, 40), 180),
            turn={"number": 1, "side": "blue"}), "b1", "g1", [("blue", 2, "grey")]),
    (AL, al(al_unit("h1", "horde", 0, 4, 180, weak=True), al_unit("l1", "legion", 0),
            al_unit("h2", "horde", 20, 20, 180), players=("horde", "legion"), turn={"number": 1, "side": "legion"}),
     "l1", "h1", [("legion", 2, "horde")]),
    (BU, bu(bu_model("a1", "akai", 0, 0), bu_model("k1", "kuro", 0, 5, weak=True), bu_model("s1", "shiro", 30, 30),
            bu_model("k2", "kuro", -30, 30), active="akai"), "a1", "k1", [("akai", 1, "kuro"), ("kuro", 1, "shiro")]),
])
def test_the_order_holds_over_http_dc_9_4_al_9_3_bu_8_4(client, ruleset, data, attacker, target, then):
    """DC-9.4, AL-9.3, BU-8.4 over HTTP: the first unit of a side destroyed with dice entered by hand; each end of
    turn (or activation) after it goes to the side the recorded order names, with the number it says."""
    from tests.web.conftest import Battle

    created = client.post("/api/battles", json={"scenario": data, "entered_dice": True})
    assert created.status_code == 201, created.text
    battle = Battle(client, created.json())
    dice = _killing_dice(ruleset, data, attacker, target)
    played = battle.post("/resolve", ruleset.side_of(read(data), attacker),
                         {"attacker": attacker, "target": target, "dice": dice})
    assert played.status_code == 200, played.text
    assert target not in [u["id"] for u in battle.state()["units"]]
    for side, number, following in then:
        ended = battle.post("/end-turn", side, {"activation": ruleset is BU})
        assert ended.status_code == 200, ended.text
        state = battle.state()
        assert state["side_to_act"] == following and state["battle"]["turn"]["number"] == number


@pytest.fixture
def client(tmp_path: Path) -> Any:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from rangefire.web import create_app

    with TestClient(create_app(tmp_path / "battles.sqlite3", static_dir=tmp_path / "static")) as test_client:
        yield test_client
