"""Fair play over HTTP: an undo is an action every side sees, naming what it took back and the dice it had; an
attack whose dice the server rolled stands once they are shown (unless the battle was created for friendly play,
``undo: any``); dice entered by hand are recorded as entered; an acting request that names the count of actions
it was made on acts only on that battle (a retried one never acts twice); no side takes a role's name."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from rangefire.demo import example_path
from rangefire.web import create_app
from tests.commands import run
from tests.web.conftest import Battle, bearer, error_of

UNION, CONFEDERATE = "union", "confederate"
MAINE, PENNSYLVANIA = "20th-maine", "83rd-pennsylvania"


def actions(battle: Battle) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = battle.get("/actions").json()["actions"]
    return found


# -- undo as an action ----------------------------------------------------------------------------------
def test_an_attack_the_server_rolled_stands_once_its_dice_are_shown(new_battle):
    battle = new_battle("wheatfield")
    assert battle.state()["settings"] == {"undo": "fair", "open_hands": False}
    played = battle.post("/resolve", UNION, {"attacker": MAINE})
    assert played.status_code == 200, played.text
    state = battle.state()
    assert state["last_standing"] == {"number": 1, "by": UNION, "what": f"{MAINE}'s attack"}
    stands = state["last_action_stands"]
    assert stands is not None and "rolled by the server" in stands["message"]
    error = error_of(battle.post("/undo", UNION), 403, "forbidden")
    assert "rolled by the server" in error["message"] and "undo: any" in error["message"]
    assert battle.state()["actions"] == 1 and battle.state()["battle"] == state["battle"]
    [attack] = actions(battle)
    assert attack["dice_source"] == "rolled" and attack["by"] == UNION


def test_a_move_and_an_attack_of_entered_dice_are_taken_back_and_seen_taken_back(new_battle):
    battle = new_battle("wheatfield", entered_dice=True)
    before = battle.state()
    assert battle.post("/move", UNION, {"unit": PENNSYLVANIA, "by": [0, 1]}).status_code == 200
    after_move = battle.state()
    dice = {"hit": [5, 5, 5, 5, 5, 5], "save": [1, 1, 1, 1, 1, 1]}
    played = battle.post("/resolve", UNION, {"attacker": MAINE, "dice": dice})
    assert played.status_code == 200, played.text
    assert actions(battle)[-1]["dice_source"] == "entered"
    assert battle.state()["last_action_stands"] is None  # the player's own dice: theirs to take back
    undone = battle.post("/undo", UNION).json()
    assert undone["battle"] == after_move["battle"] and undone["last_standing"]["what"] == f"{PENNSYLVANIA}'s move"
    recorded = actions(battle)[-1]
    assert (recorded["action"], recorded["takes_back"], recorded["dice"]) == ("undo", 2, actions(battle)[1]["dice"])
    seen_by_other = battle.get("/actions", token=battle.sides[CONFEDERATE]).json()["actions"]
    assert seen_by_other[-1] == recorded  # the other side's log shows the undo, dice and all
    again = battle.post("/undo", UNION).json()  # the move, the last action still standing
    assert again["battle"] == before["battle"] and again["actions"] == 4 and again["last_standing"] is None
    assert [a["takes_back"] for a in actions(battle) if a["action"] == "undo"] == [2, 1]


def test_the_stored_actions_with_their_undos_replay_at_the_command_line(new_battle, client, tmp_path):
    """The actions a battle stores, undos and all, are a log ``rangefire replay`` plays to the state served."""
    battle = new_battle("wheatfield", undo="any")
    battle.post("/move", UNION, {"unit": PENNSYLVANIA, "by": [0, 1]})
    battle.post("/resolve", UNION, {"attacker": MAINE})
    battle.post("/undo", UNION)
    battle.post("/resolve", UNION, {"attacker": PENNSYLVANIA})
    battle.post("/end-turn", UNION)
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(client.app.state.store.battle(battle.id).scenario))
    log = tmp_path / "battle.log"
    log.write_text("".join(json.dumps({k: v for k, v in a.items() if k not in ("number", "by")}) + "\n"
                           for a in actions(battle)))
    result = run("replay", str(scenario), str(log), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["battle"] == battle.state()["battle"]
    text = run("replay", str(scenario), str(log))
    assert "undo of line 2" in text.stdout


def test_an_undo_edited_in_the_store_to_name_other_dice_is_refused_on_replay(new_battle, client, db_path):
    battle = new_battle("wheatfield", undo="any")
    battle.post("/resolve", UNION, {"attacker": MAINE})
    battle.post("/undo", UNION)
    with sqlite3.connect(db_path) as db:
        record = json.loads(db.execute("SELECT record FROM actions WHERE kind = 'undo'").fetchone()[0])
        record["dice"] = {"to_hit": [1]}
        db.execute("UPDATE actions SET record = ? WHERE kind = 'undo'", (json.dumps(record),))
    with TestClient(create_app(db_path)) as fresh:  # a restart: nothing of the battle kept in memory
        error = error_of(fresh.get(battle.url(), headers=bearer(battle.spectator)), 500, "internal")
    assert "dice" in error["message"]


# -- dice entered by hand ------------------------------------------------------------------------------
def test_dice_entered_are_recorded_as_entered_and_replay_says_so(tmp_path):
    """At the command line too: dice rolled by hand are recorded as entered, a seed's as seeded, and ``replay``
    says which attacks' dice were entered."""
    scenario = tmp_path / "wheatfield.yaml"
    shutil.copy(example_path("wheatfield.yaml"), scenario)
    log, now = tmp_path / "game.log", tmp_path / "now.yaml"
    run("resolve", str(scenario), "-a", MAINE, "--dice", "hit=5,5,5,5,5,5", "--dice", "save=1,1,1,1,1,1",
        "--log", str(log), "--out", str(now), "--json")
    run("resolve", str(now), "-a", PENNSYLVANIA, "--seed", "3", "--log", str(log), "--out", str(now), "--json")
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["dice_source"] for line in lines] == ["entered", "seeded"]
    replayed = run("replay", str(scenario), str(log)).stdout
    assert replayed.count("(dice entered)") == 1 and f"{MAINE} at" in replayed


# -- safe retries ------------------------------------------------------------------------------------
def test_a_retried_undo_never_takes_back_a_second_action(new_battle):
    battle = new_battle("wheatfield", undo="any")
    battle.post("/move", UNION, {"unit": PENNSYLVANIA, "by": [0, 1]})
    battle.post("/move", UNION, {"unit": MAINE, "by": [0, 1]})
    seen = battle.state()["actions"]
    assert battle.post("/undo", UNION, {"expected_actions": seen}).status_code == 200
    error = error_of(battle.post("/undo", UNION, {"expected_actions": seen}), 409, "stale")
    assert error["actions"] == seen + 1 and error["path"] == "expected_actions"
    assert [a["action"] for a in actions(battle)] == ["move", "move", "undo"]


@pytest.mark.parametrize(("route", "body"), [
    ("/resolve", {"attacker": MAINE}), ("/end-turn", {}), ("/move", {"unit": MAINE, "by": [0, 1]}),
    ("/undo", {}),
])
def test_every_acting_request_on_a_stale_count_is_refused_without_acting(new_battle, route, body):
    battle = new_battle("wheatfield", undo="any")
    battle.post("/move", UNION, {"unit": PENNSYLVANIA, "by": [0, 1]})
    state = battle.state()
    error_of(battle.post(route, UNION, {**body, "expected_actions": 0}), 409, "stale")
    assert battle.state() == state
    assert battle.post(route, UNION, {**body, "expected_actions": 1}).status_code == 200


def test_if_match_on_the_state_s_etag(new_battle, client):
    battle = new_battle("wheatfield")
    read = battle.get()
    assert read.headers["etag"] == '"0"'
    headers = {**bearer(battle.sides[UNION]), "If-Match": read.headers["etag"]}
    assert client.post(battle.url("/end-turn"), headers=headers, json={}).status_code == 200
    error_of(client.post(battle.url("/end-turn"), headers=headers, json={}), 409, "stale")
    assert battle.get().headers["etag"] == '"1"'
    bad = {**bearer(battle.sides[CONFEDERATE]), "If-Match": "yesterday"}
    error = error_of(client.post(battle.url("/end-turn"), headers=bad, json={}), 400, "invalid_input")
    assert error["path"] == "If-Match"
    error_of(battle.post("/end-turn", CONFEDERATE, {"expected_actions": -1}), 422, "invalid_request")
    assert battle.state()["actions"] == 1


# -- settings and names -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["spectator", "spectators", "side"])
def test_a_side_named_as_a_role_is_refused(client, name):
    response = client.post("/api/battles", json={"game": "dress-on-the-colors", "sides": [name, "union"]})
    error = error_of(response, 422, "invalid_request")
    assert error["path"] == "sides" and repr(name) in error["message"]


def test_settings_are_validated_and_kept(client):
    error_of(client.post("/api/battles", json={"example": "wheatfield", "undo": "sometimes"}), 422,
             "invalid_request")
    error_of(client.post("/api/battles", json={"example": "wheatfield", "open_hands": "yes"}), 422,
             "invalid_request")
    created = client.post("/api/battles", json={"example": "wheatfield", "undo": "any"}).json()
    assert created["settings"] == {"undo": "any", "open_hands": False}


def test_a_database_written_before_settings_gains_them(tmp_path: Path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript("""
            CREATE TABLE battles (id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, scenario TEXT NOT NULL,
                                  sides TEXT NOT NULL, entered_dice INTEGER NOT NULL, created TEXT);
        """)
    with TestClient(create_app(path, static_dir=tmp_path / "static")) as client:
        created = client.post("/api/battles", json={"example": "wheatfield"})
        assert created.status_code == 201, created.text
        state = client.get(f"/api/battles/{created.json()['id']}",
                           headers=bearer(created.json()["tokens"]["spectator"])).json()
        assert state["settings"] == {"undo": "fair", "open_hands": False}
