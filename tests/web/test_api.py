"""The HTTP API (issue 11): every endpoint, every error status, against the command line's own answers.

Each test builds its battles through the API on a fresh database (``conftest.py``); answers that the command
line also gives (check, odds, targets, replay) are compared with what ``rangefire ... --json`` prints for the
same battle, so the server adds nothing of its own to the engine's answers.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from rangefire.core import Attack
from rangefire.record import AttackAction, EndTurnAction, action_line
from rangefire.rulesets import RULESETS, battle_from_mapping, find_ruleset
from rangefire.web.bodies import MAX_BODY_BYTES
from rangefire.web.service import examples
from tests.commands import run
from tests.web.conftest import Battle, bearer, error_of

UNION, CONFEDERATE = "union", "confederate"
#: Wheatfield: union fires first (the battle records no turn: served, it begins with the first side).
MAINE, ALABAMA, TEXAS = "20th-maine", "15th-alabama", "4th-texas"


def without_format(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in ("format", "next_choice")}


def battle_file(tmp_path: Path, battle: Battle) -> Path:
    """The battle as it stands now, as a scenario file the command line reads."""
    path = tmp_path / f"now-{battle.id}.json"
    path.write_text(json.dumps(battle.state()["battle"]))
    return path


# -- rulesets and examples ---------------------------------------------------------------------------
def test_rulesets_list_every_game_with_its_choices(client):
    data = client.get("/api/rulesets").json()
    assert data["format"] == 1
    assert [r["key"] for r in data["rulesets"]] == [r.key for r in RULESETS]
    by_key = {r["key"]: r for r in data["rulesets"]}
    assert {c["name"] for c in by_key["arcane-legions"]["choices"]} == {"from_side", "to_side", "order"}
    assert [c["name"] for c in by_key["bushido"]["choices"]] == ["redirect_to"]
    assert by_key["dress-on-the-colors"]["options"] == find_ruleset("dress-on-the-colors").default_options()
    for entry in data["rulesets"]:
        assert {"key", "name", "aliases", "options", "choices"} <= set(entry)
        for choice in entry["choices"]:
            assert {"name", "kind", "allowed", "help", "clause"} <= set(choice)


@pytest.mark.parametrize("key", [r.key for r in RULESETS])
def test_schema_of_each_game_describes_its_scenario(client, key):
    schema = client.get(f"/api/rulesets/{key}/schema").json()
    assert "units" in schema["properties"] or "cards" in schema["properties"]


def test_schema_by_alias_and_unknown_game(client):
    assert client.get("/api/rulesets/doc/schema").status_code == 200
    error = error_of(client.get("/api/rulesets/chess/schema"), 404, "unknown_ruleset")
    assert "chess" in error["message"]


def test_examples_are_the_built_in_files(client):
    listed = client.get("/api/examples").json()["examples"]
    files = sorted(p.stem for p in (Path(__file__).parents[2] / "src/rangefire/examples").glob("*.yaml"))
    assert sorted(e["name"] for e in listed) == files
    assert {"name": "wheatfield", "ruleset": "dress-on-the-colors",
            "title": "The Wheatfield, late afternoon"} in listed


# -- creating battles --------------------------------------------------------------------------------
def test_create_gives_one_secret_link_per_side_and_one_for_spectators(new_battle):
    battle = new_battle("wheatfield")
    created = battle.created
    assert created["ruleset"] == "dress-on-the-colors"
    assert set(battle.sides) == {UNION, CONFEDERATE}
    tokens = [*battle.sides.values(), battle.spectator]
    assert len(set(tokens)) == 3 and all(len(t) >= 43 for t in tokens)  # token_urlsafe(32): 256 random bits
    assert created["links"][UNION] == f"/battle/{battle.id}#token={battle.sides[UNION]}"
    assert created["links"]["spectator"] == f"/battle/{battle.id}#token={battle.spectator}"


@pytest.mark.parametrize("example", [e.name for e in examples()])
def test_every_example_is_served_in_turns_from_its_first_side(new_battle, example):
    battle = new_battle(example)
    state = battle.state()
    assert state["side_to_act"] == state["sides"][0]
    assert state["you"] == {"role": "spectator", "side": None}
    assert state["actions"] == 0 and state["entered_dice"] is False
    ruleset = find_ruleset(state["ruleset"])
    assert [u["id"] for u in state["units"]] == list(ruleset.unit_ids(battle_from_mapping(state["battle"])[1]))


def test_tokens_are_stored_hashed_never_in_clear(new_battle, db_path):
    battle = new_battle("wheatfield")
    stored = b"".join(p.read_bytes() for p in db_path.parent.glob(db_path.name + "*"))
    for token in [*battle.sides.values(), battle.spectator]:
        assert token.encode() not in stored


def test_create_from_a_scenario_body(client):
    scenario = {"ruleset": "dress-on-the-colors", "units": [
        {"id": "a", "side": "blue", "stands": 4, "weapon": "rifled-musket", "formation": "line",
         "position": [0, 0], "facing": 0},
        {"id": "b", "side": "grey", "stands": 4, "weapon": "rifled-musket", "formation": "line",
         "position": [0, 10.5], "facing": 180}]}
    response = client.post("/api/battles", json={"scenario": scenario, "entered_dice": True})
    assert response.status_code == 201, response.text
    battle = Battle(client, response.json())
    state = battle.state()
    assert state["entered_dice"] is True and state["battle"]["units"][1]["position"] == [0, 10.5]


def test_create_refusals(client):
    error = error_of(client.post("/api/battles", json={"example": "atlantis"}), 404, "not_found")
    assert "wheatfield" in error["message"] and error["path"] == "example"
    error_of(client.post("/api/battles", json={}), 422, "invalid_request")
    error_of(client.post("/api/battles", json={"example": "ford", "scenario": {"ruleset": "swerve"}}), 422,
             "invalid_request")
    error = error_of(client.post("/api/battles", json={"example": "ford", "colour": "red"}), 422, "invalid_request")
    assert error["path"] == "colour"
    error = error_of(client.post("/api/battles", json={"example": "ford", "entered_dice": "yes"}), 422,
                     "invalid_request")
    assert error["path"] == "entered_dice"
    error = error_of(client.post("/api/battles", json={"example": "ford", "format": 2}), 422, "invalid_request")
    assert error["path"] == "format"


def test_a_bad_scenario_is_named_by_its_path(client):
    scenario = {"ruleset": "dress-on-the-colors", "units": [
        {"id": "a", "side": "blue", "stands": -3, "weapon": "rifled-musket", "formation": "line",
         "position": [0, 0], "facing": 0}]}
    error = error_of(client.post("/api/battles", json={"scenario": scenario}), 422, "invalid_scenario")
    assert "units[0].stands" in error["message"]
    error = error_of(client.post("/api/battles", json={"scenario": {"ruleset": "chess"}}), 422, "invalid_scenario")
    assert "chess" in error["message"]


def test_a_body_that_is_not_json_is_a_bad_request(client):
    headers = {"Content-Type": "application/json"}
    error_of(client.post("/api/battles", content=b"{not json", headers=headers), 400, "invalid_input")
    error_of(client.post("/api/battles", content=b"\xff\xfe", headers=headers), 400, "invalid_input")
    error_of(client.post("/api/battles", content=b"[1, 2]", headers=headers), 400, "invalid_input")
    error = error_of(client.post("/api/battles", content=b'{"example": "ford", "example": "temple"}',
                                 headers=headers), 400, "invalid_input")
    assert "duplicate key" in error["message"]
    error_of(client.post("/api/battles", content=b"[" * 10_000 + b"]" * 10_000, headers=headers), 422, "too_large")


def test_a_body_too_large_is_refused_before_it_is_read(new_battle, client):
    battle = new_battle("wheatfield")
    large = b'{"attacker": "' + b"x" * MAX_BODY_BYTES + b'"}'
    typed = {**battle.as_side(UNION), "Content-Type": "application/json"}
    error = error_of(client.post(battle.url("/check"), content=large, headers=typed), 413,
                     "too_large")
    assert str(MAX_BODY_BYTES) in error["message"]

    def chunks():  # no Content-Length (the test client buffers it: the real server's test counts what it reads)
        for _ in range(10):
            yield b" " * 8192

    error_of(client.post(battle.url("/check"), content=chunks(), headers=typed), 413,
             "too_large")
    error_of(client.post("/api/battles", content=b" " * (2 << 20), headers={"Content-Type": "application/json"}),
             413, "too_large")


# -- tokens ------------------------------------------------------------------------------------------
def test_no_token_or_a_guessed_one_gets_401(new_battle, client):
    import secrets

    battle = new_battle("wheatfield")
    other = new_battle("ford")
    for headers in ({}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer "},
                    bearer(secrets.token_urlsafe(32)), bearer(other.spectator), bearer(other.sides["legion"]),
                    bearer(battle.sides[UNION][:-1]), bearer("x" * 10_000)):
        response = client.get(battle.url(), headers=headers)
        error_of(response, 401, "unauthorized")
        assert response.headers["www-authenticate"] == "Bearer"
        error_of(client.post(battle.url("/resolve"), headers=headers, json={"attacker": MAINE}), 401,
                 "unauthorized")
    assert battle.state()["actions"] == 0


def test_a_token_in_the_query_is_taken_only_by_the_event_stream(new_battle, client):
    battle = new_battle("wheatfield")
    error_of(client.get(battle.url() + f"?token={battle.spectator}"), 401, "unauthorized")
    error_of(client.get(battle.url("/events") + "?token=guessed"), 401, "unauthorized")
    error_of(client.get(battle.url("/events")), 401, "unauthorized")


def test_unknown_battle_is_404(client, new_battle):
    battle = new_battle("wheatfield")
    error_of(client.get("/api/battles/nosuchbattle", headers=bearer(battle.spectator)), 404, "not_found")
    error_of(client.get("/api/battles/no.such/actions", headers=bearer(battle.spectator)), 422, "invalid_request")
    error_of(client.get("/api/nothing-here"), 404, "not_found")
    error_of(client.delete(battle.url(), headers=bearer(battle.spectator)), 405, "method_not_allowed")


def test_each_token_knows_its_role(new_battle):
    battle = new_battle("wheatfield")
    assert battle.state()["you"] == {"role": "spectator", "side": None}
    assert battle.get(token=battle.sides[CONFEDERATE]).json()["you"] == {"role": "side", "side": CONFEDERATE}


# -- reading -----------------------------------------------------------------------------------------
def test_check_is_the_command_lines(new_battle, tmp_path):
    battle = new_battle("wheatfield")
    path = battle_file(tmp_path, battle)
    for target in (ALABAMA, TEXAS):
        answer = battle.post("/check", UNION, {"attacker": MAINE, "target": target})
        assert answer.status_code == 200  # a refusal is an answer to the question, not an error
        cli = json.loads(run("check", str(path), "--attacker", MAINE, "--target", target, "--json",
                             ok=None).stdout)
        assert without_format(answer.json()) == without_format(cli)
    refused = battle.post("/check", UNION, {"attacker": MAINE, "target": TEXAS}).json()
    assert refused["legal"] is False and refused["refusals"][0]["clause"] == "DC-2.1"


def test_spectators_may_ask_questions(new_battle, client):
    battle = new_battle("wheatfield")
    response = client.post(battle.url("/odds"), headers=bearer(battle.spectator), json={"attacker": MAINE})
    assert response.status_code == 200 and response.json()["target"] == ALABAMA


def test_odds_are_the_engines_exact_fractions(new_battle):
    battle = new_battle("wheatfield")
    answer = battle.post("/odds", UNION, {"attacker": MAINE, "target": ALABAMA}).json()
    ruleset = find_ruleset("dress-on-the-colors")
    state = battle_from_mapping(battle.state()["battle"])[1]
    expected = ruleset.odds(ruleset.plan(state, Attack(MAINE, ALABAMA))).to_dict()
    assert without_format(answer) == {**json.loads(json.dumps(expected)), "house_rules": []}
    assert answer["exact"] is True and "/" in answer["outcomes"]["stands_lost"]["mean"]


def test_odds_of_a_refused_attack_is_409_with_the_clause(new_battle):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/odds", UNION, {"attacker": MAINE, "target": TEXAS}), 409, "illegal_attack")
    assert error["clause"] == "DC-2.1" and error["refusals"][0]["clause"] == "DC-2.1"


def test_odds_beyond_the_engines_limit_are_refused_at_once(client):
    gun = {"id": "gun", "owner": "jason", "type": "weapon", "mission": "canyon",
           "ranged": {"accuracy": 20, "damage": 1}}
    target = {"id": "unit", "owner": "tyler", "type": "unit", "speed": 20, "mission": "canyon"}
    cards: list[dict[str, Any]] = [gun, target]
    hands: dict[str, list[str]] = {"jason": [], "tyler": []}
    for i in range(399):  # 400 actions open to the players: beyond what best play searches within seconds
        owner, stat = (("jason", "accuracy"), ("tyler", "speed"))[i % 2]
        cards.append({"id": f"t{i}", "owner": owner, "type": "tactic", "timing": "combat", "effect": {stat: i + 1}})
        hands[owner].append(f"t{i}")
    scenario = {"ruleset": "swerve", "players": {"jason": {"deck": [0, 5, 10, 15], "deck_order": "unknown"},
                                                 "tyler": {"deck": [0]}}, "cards": cards, "hands": hands}
    # both hands open (a battle of open hands): best play searches both players' 400 actions
    battle = Battle(client, client.post("/api/battles", json={"scenario": scenario, "open_hands": True}).json())
    error = error_of(battle.post("/odds", "jason", {"attacker": "gun", "target": "unit"}), 422, "too_large")
    assert "best play" in error["message"]
    # played over HTTP, each player chooses their own actions [SW-3.1]: no best play is searched, the attack waits
    waiting = battle.post("/resolve", "jason", {"attacker": "gun", "target": "unit"})
    assert waiting.status_code == 202 and waiting.json()["pending"]["awaiting"]["side"] == "jason"
    assert battle.state()["actions"] == 0


def test_unknown_units_and_choices(new_battle):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/odds", UNION, {"attacker": "1st-minnesota"}), 404, "unknown_unit")
    assert "1st-minnesota" in error["message"]
    error = error_of(battle.post("/check", UNION, {"attacker": MAINE, "choices": {"order": "close"}}), 422,
                     "invalid_choice")
    assert error["path"] == "choices.order"
    error = error_of(battle.post("/check", UNION, {"attacker": MAINE, "choices": {"order": ["x"] * 101}}), 422,
                     "invalid_request")
    assert error["path"].startswith("choices")
    ford = new_battle("ford")
    error = error_of(ford.post("/check", "legion", {"attacker": "archers", "target": "orc-band",
                                                   "choices": {"order": "clse"}}), 422, "invalid_choice")
    assert error["path"] == "choices.order" and "ranged, close" in error["message"]
    assert ford.post("/check", "legion", {"attacker": "archers", "target": "orc-band",
                                          "choices": {"order": "ranged"}}).json()["legal"] is True
    error_of(battle.post("/check", UNION, {"target": ALABAMA}), 422, "invalid_request")
    error_of(battle.post("/check", UNION, {"attacker": ""}), 422, "invalid_request")
    # a value neither text nor a list of texts: said as one message at its place in the body, never with the
    # names pydantic gives a union's members
    error = error_of(battle.post("/check", UNION, {"attacker": MAINE, "choices": {"order": None}}), 422,
                     "invalid_request")
    assert error["path"] == "choices.order" and "constrained" not in error["message"], error
    assert error["message"].startswith("body: choices.order: must be ") and error["message"].endswith("got null")


def test_next_choice_of_a_bushido_nomination(new_battle):
    battle = new_battle("temple")
    side = battle.state()["side_to_act"]
    answer = battle.post("/check", side, {"attacker": "yoichi", "target": "takeda"}).json()
    choice = answer["next_choice"]
    assert choice["name"] == "redirect_to" and "(the target's player)" in choice["who"]
    units = {u["id"]: u["side"] for u in battle.state()["units"]}
    assert choice["side"] == units["takeda"] != side and choice["clause"] == "BU-4.2"  # the target's side chooses
    assert choice["allowed"][0] == "keep takeda" and "nominate yojimbo" in choice["allowed"]
    assert choice["choices"][0] == {"redirect_to": ""}
    assert choice["choices"][choice["allowed"].index("nominate yojimbo")] == {"redirect_to": "yojimbo"}
    chosen = battle.post("/check", side, {"attacker": "yoichi", "target": "takeda",
                                          "choices": {"redirect_to": "yojimbo"}}).json()
    assert chosen["next_choice"] is None


def test_next_choice_of_a_swerve_line_of_play(new_battle):
    battle = new_battle("sawblade")
    answer = battle.post("/check", "jason", {"attacker": "sawblade-launcher", "target": "road-warrior"}).json()
    choice = answer["next_choice"]
    assert choice["name"] == "actions" and choice["who"].startswith("jason")
    assert choice["side"] == "jason" and choice["clause"] == "SW-3.1"  # the attacker acts first
    for allowed, choices in zip(choice["allowed"], choice["choices"], strict=True):
        assert choices == {"actions": [allowed]}
    # the defender's actions are tyler's to choose: never taken from jason's token (tests/web/test_pending.py)
    line = ["attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass"]
    error = error_of(battle.post("/resolve", "jason", {"attacker": "sawblade-launcher", "target": "road-warrior",
                                                       "choices": {"actions": line}}), 403, "forbidden")
    assert error["path"] == "choices.actions" and error["awaiting"] == "tyler"


def test_targets_are_the_command_lines(new_battle, tmp_path):
    battle = new_battle("wheatfield")
    path = battle_file(tmp_path, battle)
    for query, flags in (("?attacker=" + MAINE, ["--attacker", MAINE]), ("?side=" + CONFEDERATE,
                                                                         ["--side", CONFEDERATE]), ("", [])):
        answer = battle.get("/targets" + query).json()
        cli = json.loads(run("targets", str(path), *flags, "--json").stdout)
        assert answer["targets"] == (cli["targets"] if isinstance(cli, dict) else cli)
    error_of(battle.get(f"/targets?attacker={MAINE}&side={UNION}"), 400, "invalid_input")
    error_of(battle.get("/targets?side=martians"), 400, "invalid_input")
    error_of(battle.get("/targets?attacker=" + "x" * 65), 422, "invalid_request")


def test_drawing_is_the_show_commands_svg(new_battle, tmp_path):
    battle = new_battle("wheatfield")
    response = battle.get("/drawing.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert "default-src 'none'" in response.headers["content-security-policy"]
    svg = response.text
    for unit in battle.state()["units"]:
        assert f'data-unit="{unit["id"]}"' in svg and f'data-side="{unit["side"]}"' in svg
    path = battle_file(tmp_path, battle)
    run("show", str(path), "--attacker", MAINE, "--target", ALABAMA, "--out", str(tmp_path / "cli.svg"))
    drawn = battle.get(f"/drawing.svg?attacker={MAINE}&target={ALABAMA}").text
    assert drawn == (tmp_path / "cli.svg").read_text()
    assert 'class="line-of-fire' in drawn
    error_of(battle.get("/drawing.svg?target=" + ALABAMA), 400, "invalid_input")
    error_of(battle.get("/drawing.svg?attacker=nobody"), 404, "unknown_unit")


def test_drawing_makes_the_players_choices_as_show_does(new_battle, tmp_path):
    """An Arcane Legions attack from the side the player chose is drawn from that side [AL-3.1]: from the
    right side, the line to the orc band runs into the crag and is drawn blocked; unchosen, the engine's side
    sees it. The same picture ``show --from-side right`` draws."""
    battle = new_battle("ford")
    query = "/drawing.svg?attacker=archers&target=orc-band"
    unchosen = battle.get(query).text
    chosen = battle.get(query + "&choices=" + quote(json.dumps({"from_side": "right"}))).text
    assert 'class="line-of-fire blocked' in chosen and 'class="line-of-fire blocked' not in unchosen
    # the chosen target marked as the attack chosen is checked: refused from that side, legal unchosen
    assert 'class="refused-target refused side-1" data-id="orc-band"' in chosen
    assert 'class="legal-target legal side-1" data-id="orc-band"' in unchosen
    path = battle_file(tmp_path, battle)
    run("show", str(path), "-a", "archers", "-t", "orc-band", "--from-side", "right", "--out", str(tmp_path / "c.svg"))
    assert chosen == (tmp_path / "c.svg").read_text()
    assert battle.get(query + "&choices=").text == unchosen  # an empty parameter is no choice
    error = error_of(battle.get(query + "&choices=" + quote('{"from_side": "up"}')), 422, "invalid_choice")
    assert "'up' is not one of front, right, back, left" in error["message"]
    error_of(battle.get(query + "&choices=" + quote('{"colour": "red"}')), 422, "invalid_choice")
    error_of(battle.get(query + "&choices=not-json"), 400, "invalid_input")
    error_of(battle.get(query + "&choices=" + quote('{"from_side": ["a"]}')), 422, "invalid_choice")
    error_of(battle.get(query + "&choices=" + quote('{"from_side": {"a": 1}}')), 422, "invalid_request")
    error = error_of(battle.get(query + "&choices=" + "x" * 5000), 400, "invalid_input")
    assert error["message"] == "choices: 5,000 characters; at most 4,096"
    error = error_of(battle.get("/drawing.svg?choices=" + quote('{"from_side": "right"}')), 422, "invalid_choice")
    assert "a choice is made for an attack: name the attacker too" in error["message"]
    error = error_of(battle.get("/drawing.svg?attacker=archers&choices=" + quote('{"from_side": "right"}')), 422,
                     "invalid_choice")
    assert error["message"] == "from_side: a choice is made for an attack on a target: name the target too"


# -- acting ------------------------------------------------------------------------------------------
def test_resolve_records_the_action_and_the_state_follows(new_battle):
    battle = new_battle("wheatfield")
    before = battle.state()
    answer = battle.post("/resolve", UNION, {"attacker": MAINE})
    assert answer.status_code == 200, answer.text
    played = answer.json()
    assert played["action"] == 1 and played["target"] == ALABAMA
    assert set(played["dice"]) <= {"hit", "save", "discipline"} and played["log"]
    after = battle.state()
    assert after["actions"] == 1 and after["battle"] == played["battle"] != before["battle"]
    [record] = battle.get("/actions").json()["actions"]
    assert record["number"] == 1 and record["by"] == UNION
    action = AttackAction.model_validate({k: v for k, v in record.items() if k not in ("number", "by")})
    assert action.attacker == MAINE and action.target == ALABAMA
    assert {k: list(v) for k, v in action.dice.items()} == played["dice"]


def test_one_side_cannot_act_for_the_other(new_battle):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/resolve", UNION, {"attacker": ALABAMA}), 403, "forbidden")
    assert "confederate" in error["message"] and error["path"] == "attacker"
    assert battle.state()["actions"] == 0


def test_a_side_acts_only_in_its_turn(new_battle):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/resolve", CONFEDERATE, {"attacker": ALABAMA}), 403, "forbidden")
    assert "union's turn" in error["message"]
    error_of(battle.post("/end-turn", CONFEDERATE), 403, "forbidden")
    assert battle.post("/end-turn", UNION).status_code == 200
    assert battle.post("/resolve", CONFEDERATE, {"attacker": ALABAMA}).status_code == 200
    error_of(battle.post("/resolve", UNION, {"attacker": MAINE}), 403, "forbidden")
    assert battle.state()["actions"] == 2


def test_a_spectator_never_acts(new_battle, client):
    battle = new_battle("wheatfield")
    spectator = bearer(battle.spectator)
    for rest, body in (("/resolve", {"attacker": MAINE}), ("/end-turn", {}), ("/undo", {})):
        error = error_of(client.post(battle.url(rest), headers=spectator, json=body), 403, "forbidden")
        assert "spectator" in error["message"]
    battle.post("/resolve", UNION, {"attacker": MAINE})
    error_of(client.post(battle.url("/undo"), headers=spectator, json={}), 403, "forbidden")
    assert battle.state()["actions"] == 1


def test_a_refused_attack_records_nothing(new_battle):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/resolve", UNION, {"attacker": MAINE, "target": TEXAS}), 409, "illegal_attack")
    assert error["clause"] == "DC-2.1"
    assert battle.post("/resolve", UNION, {"attacker": MAINE}).status_code == 200
    error = error_of(battle.post("/resolve", UNION, {"attacker": MAINE}), 409, "illegal_attack")
    assert error["clause"] == "DC-9.1"  # one volley a turn
    assert battle.state()["actions"] == 1


def test_entered_dice_only_where_the_creator_allowed_them(new_battle):
    battle = new_battle("wheatfield")
    body = {"attacker": MAINE, "dice": {"hit": [1, 1, 1, 1, 1, 1]}}
    error = error_of(battle.post("/resolve", UNION, body), 403, "forbidden")
    assert error["path"] == "dice"
    error_of(battle.post("/resolve", UNION, {"attacker": MAINE, "ask": True}), 403, "forbidden")
    allowed = new_battle("wheatfield", entered_dice=True)
    played = allowed.post("/resolve", UNION, body)
    assert played.status_code == 200, played.text
    assert played.json()["dice"] == {"hit": [1, 1, 1, 1, 1, 1]} and played.json()["outcome"]["hits"] == 0


def test_entered_dice_that_do_not_fit(new_battle):
    battle = new_battle("wheatfield", entered_dice=True)
    for dice, words in (({"hit": [7, 1, 1, 1, 1, 1]}, "not a face"), ({"hit": [1, 1]}, "6 needed"),
                        ({"hits": [1]}, "unknown dice stage")):
        error = error_of(battle.post("/resolve", UNION, {"attacker": MAINE, "dice": dice}), 400, "invalid_dice")
        assert words in error["message"]
    error_of(battle.post("/resolve", UNION, {"attacker": MAINE, "dice": {"hit": [-1]}}), 422, "invalid_request")
    error_of(battle.post("/resolve", UNION, {"attacker": MAINE, "dice": {"hit": ["6"]}}), 422, "invalid_request")
    assert battle.state()["actions"] == 0


def asked(response: Any) -> dict[str, Any]:
    """The dice a resolve with ``"ask": true`` asks for next: a normal answer (200), nothing recorded."""
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"format", "next"} and body["format"] == 1, body
    question: dict[str, Any] = body["next"]
    return question


def test_entered_dice_asked_stage_by_stage(new_battle):
    """The next stage to enter is a state of the attack, answered 200 (``next``), not an error."""
    battle = new_battle("wheatfield", entered_dice=True)
    question = asked(battle.post("/resolve", UNION, {"attacker": MAINE, "ask": True}))
    assert question["stage"] == "hit" and question["count"] == 6 and question["faces"] == [1, 2, 3, 4, 5, 6]
    assert question["prompt"].startswith("hit: roll 6 dice") and question["problem"] is None
    dice: dict[str, list[int]] = {"hit": [6] * question["count"]}
    question = asked(battle.post("/resolve", UNION, {"attacker": MAINE, "ask": True, "dice": dice}))
    assert question["stage"] == "save" and question["count"] == 6  # every 6 hits
    wrong = asked(battle.post("/resolve", UNION, {"attacker": MAINE, "ask": True, "dice": {**dice, "save": [1]}}))
    assert wrong["stage"] == "save" and "1 die entered, 6 needed" in wrong["problem"]
    assert battle.state()["actions"] == 0
    dice["save"] = [1] * 6
    for _ in range(5):  # each stage asked for in turn, until the attack is played
        answer = battle.post("/resolve", UNION, {"attacker": MAINE, "ask": True, "dice": dice})
        if "next" not in answer.json():
            break
        question = asked(answer)
        dice[question["stage"]] = [question["faces"][0]] * question["count"]
    assert answer.status_code == 200 and answer.json()["action"] == 1, answer.text
    assert answer.json()["dice"] == dice and battle.state()["actions"] == 1


def test_end_turn_passes_the_turn(new_battle):
    battle = new_battle("wheatfield")
    answer = battle.post("/end-turn", UNION, {"activation": False}).json()
    assert answer["side_to_act"] == CONFEDERATE and answer["action"] == 1
    assert answer["turn"] == {"number": 1, "side": CONFEDERATE, "order": [UNION, CONFEDERATE]}  # DC-9.4
    assert all(line["clause"].startswith("DC-9") for line in answer["log"])
    error = error_of(battle.post("/end-turn", CONFEDERATE, {"activation": True}), 400, "invalid_input")
    assert error["path"] == "activation"
    error_of(battle.post("/end-turn", CONFEDERATE, {"activation": 1}), 422, "invalid_request")
    [record] = battle.get("/actions").json()["actions"]
    assert EndTurnAction.model_validate({k: v for k, v in record.items() if k not in ("number", "by")})


def test_end_of_an_activation(new_battle):
    battle = new_battle("temple")
    first, second = battle.state()["sides"]
    answer = battle.post("/end-turn", first, {"activation": True}).json()
    assert answer["side_to_act"] == second
    error_of(battle.post("/end-turn", first, {"activation": True}), 403, "forbidden")


def test_undo_takes_back_the_last_action_of_its_own_side(new_battle):
    """In friendly play (``undo: any``) an attack the server rolled is taken back by its side: the undo is one
    more action, naming it and its dice; the battle is the one before the attack."""
    battle = new_battle("wheatfield", undo="any")
    error = error_of(battle.post("/undo", UNION), 409, "conflict")
    assert "nothing to undo" in error["message"]
    before = battle.state()
    battle.post("/resolve", UNION, {"attacker": MAINE})
    error = error_of(battle.post("/undo", CONFEDERATE), 403, "forbidden")
    assert "union" in error["message"]
    undone = battle.post("/undo", UNION)
    assert undone.status_code == 200
    assert undone.json()["actions"] == 2 and undone.json()["battle"] == before["battle"]
    attack, taken = battle.get("/actions").json()["actions"]
    assert taken == {"format": 1, "action": "undo", "takes_back": 1, "what": f"{MAINE}'s attack",
                     "dice": attack["dice"], "number": 2, "by": UNION}
    assert battle.state()["last_standing"] is None and battle.state()["battle"] == before["battle"]
    error = error_of(battle.post("/undo", UNION), 409, "conflict")
    assert "taken back already" in error["message"]
    error_of(battle.post("/undo", UNION, {"extra": 1}), 422, "invalid_request")


def test_a_write_on_a_stale_state_is_a_conflict(new_battle, client):
    """Two writes racing: the one that read the battle before the other landed is refused, nothing written."""
    from rangefire.web.errors import from_library
    from rangefire.web.store import ConflictError

    battle = new_battle("wheatfield")
    battles = client.app.state.battles
    stale = battles.load(battles.row(battle.id))
    role = client.app.state.store.role(battle.id, battle.sides[UNION])
    assert battle.post("/end-turn", UNION).status_code == 200
    with pytest.raises(ConflictError) as raised:
        battles.end_turn(stale, role, False)
    assert from_library(raised.value).status == 409 and from_library(raised.value).kind == "conflict"
    assert battle.state()["actions"] == 1


# -- the record ----------------------------------------------------------------------------------------
def test_the_state_is_the_command_lines_replay(new_battle, client, tmp_path):
    battle = new_battle("wheatfield")
    battle.post("/resolve", UNION, {"attacker": MAINE})
    battle.post("/end-turn", UNION)
    battle.post("/resolve", CONFEDERATE, {"attacker": ALABAMA})
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(client.app.state.store.battle(battle.id).scenario))
    log = tmp_path / "battle.log"
    with log.open("wb") as out:
        for record in battle.get("/actions").json()["actions"]:
            data = {k: v for k, v in record.items() if k not in ("number", "by")}
            model = AttackAction if data["action"] == "attack" else EndTurnAction
            out.write(action_line(model.model_validate(data)))
    replayed = json.loads(run("replay", str(scenario), str(log), "--json").stdout)
    assert replayed["battle"] == battle.state()["battle"]
    assert [step["action"] for step in replayed["steps"]] == ["attack", "end-turn", "attack"]


def test_a_stored_action_that_no_longer_replays_is_said(new_battle, db_path, tmp_path):
    from fastapi.testclient import TestClient

    from rangefire.web import create_app

    battle = new_battle("wheatfield", entered_dice=True)
    battle.post("/resolve", UNION, {"attacker": MAINE, "dice": {"hit": [1, 1, 1, 1, 1, 1]}})
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE actions SET record = json_set(record, '$.outcome.hits', 3)")
    with TestClient(create_app(db_path, static_dir=tmp_path)) as fresh:  # a restart: nothing kept in memory
        response = fresh.get(battle.url(), headers=bearer(battle.spectator))
        error = error_of(response, 500, "internal")
        assert "outcome.hits" in error["message"]


# -- events and pages ----------------------------------------------------------------------------------
def test_too_many_event_streams_is_503(db_path, tmp_path):
    from fastapi.testclient import TestClient

    from rangefire.web import create_app

    with TestClient(create_app(db_path, static_dir=tmp_path, max_streams=0)) as client:
        created = client.post("/api/battles", json={"example": "ford"}).json()
        response = client.get(f"/api/battles/{created['id']}/events?token={created['tokens']['spectator']}")
        error_of(response, 503, "unavailable")


def test_pages_are_the_static_files_and_nothing_else(client, tmp_path, new_battle):
    error_of(client.get("/"), 404, "not_found")
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>index</title>")
    (static / "battle.html").write_text("<!doctype html><title>battle</title>")
    (static / "page.js").write_text("// the page")
    (tmp_path / "secret.txt").write_text("not served")
    battle = new_battle("wheatfield")
    index = client.get("/")
    assert index.status_code == 200 and "index" in index.text
    assert "script-src" not in index.headers["content-security-policy"]  # default-src 'self': files only
    assert index.headers["referrer-policy"] == "no-referrer"
    assert "battle" in client.get(f"/battle/{battle.id}").text
    assert client.get("/static/page.js").status_code == 200
    for path in ("/static/../secret.txt", "/static/%2e%2e/secret.txt", "/static/..%2fsecret.txt"):
        response = client.get(path)
        assert response.status_code == 404 and "not served" not in response.text


def test_openapi_documents_every_route(client):
    spec = client.get("/openapi.json").json()
    paths = set(spec["paths"])
    for route in ("/api/rulesets", "/api/rulesets/{key}/schema", "/api/examples", "/api/battles",
                  "/api/battles/{battle_id}", "/api/battles/{battle_id}/drawing.svg",
                  "/api/battles/{battle_id}/targets", "/api/battles/{battle_id}/check",
                  "/api/battles/{battle_id}/odds", "/api/battles/{battle_id}/resolve",
                  "/api/battles/{battle_id}/end-turn", "/api/battles/{battle_id}/undo",
                  "/api/battles/{battle_id}/actions", "/api/battles/{battle_id}/events"):
        assert route in paths, route
    body = spec["paths"]["/api/battles/{battle_id}/resolve"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ResolveBody"}
    assert "attacker" in spec["components"]["schemas"]["ResolveBody"]["properties"]
    assert client.get("/docs").status_code == 200


def test_house_rules_are_named_in_the_answers_and_every_option_listed(client):
    """A battle created with an option away from the rules' value: check, odds and resolve name it with its
    clause and the rules' value; ``/api/rulesets`` lists every option by path, as ``rangefire rulesets GAME``."""
    scenario = {"ruleset": "dress-on-the-colors", "options": {"discipline_dice": 3}, "units": [
        {"id": "a", "side": "blue", "stands": 4, "weapon": "rifled-musket", "formation": "line",
         "position": [0, 0], "facing": 0},
        {"id": "b", "side": "grey", "stands": 4, "weapon": "rifled-musket", "formation": "line",
         "position": [0, 10.5], "facing": 180}]}
    battle = Battle(client, client.post("/api/battles", json={"scenario": scenario}).json())
    named = [{"path": "options.discipline_dice", "value": 3, "default": 2, "clause": "DC-5.2"}]
    for rest in ("/check", "/odds", "/resolve"):
        answer = battle.post(rest, "blue", {"attacker": "a", "target": "b"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["house_rules"] == named, rest
    listed = {r["key"]: r for r in client.get("/api/rulesets").json()["rulesets"]}
    doc = {o["path"]: o for o in listed["dress-on-the-colors"]["option_list"]}
    assert (doc["options.discipline_dice"]["default"], doc["options.discipline_dice"]["clause"]) == (2, "DC-5.2")
