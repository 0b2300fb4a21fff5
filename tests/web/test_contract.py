"""The API's typed contract (issue 23): every route declares a typed answer for every status it answers in
``/openapi.json``, and the real answers of every route, for every game, validate against the model declared for
their route and status (the tests of whole games, pending attacks, moves and set-up run again here through a
client that checks each answer); errors name a kind of their status, read from the code, as docs/http.md lists
them; the token is a security scheme; the examples shown are real answers about the built-in examples.

``RANGEFIRE_WRITE_EXAMPLES=1`` writes the examples again (``web/swagger/examples.json``) from the built-in
examples: the test that checks them then reads what it wrote.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from rangefire.record import KINDS
from rangefire.rulesets import RULESETS
from rangefire.web import contract, create_app
from rangefire.web.docs import SWAGGER
from rangefire.web.events import catch_up
from tests.web.conftest import Battle, error_of

# The tests of whole games (every game), of attacks that wait (Bushido, swerve), of moves, marks and set-up, and of
# hidden hands: run again here, each answer checked against its route's declared model (the `client` below).
from tests.web.test_hidden_hands import *  # noqa: F403
from tests.web.test_moves_api import *  # noqa: F403
from tests.web.test_pending import *  # noqa: F403
from tests.web.test_whole_game_api import *  # noqa: F403

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = SWAGGER / "examples.json"


@functools.cache
def adapter(model: Any) -> TypeAdapter[Any]:
    return TypeAdapter(model)


def declared(app: FastAPI, method: str, path: str, status: int) -> Any:
    """The model the route answering ``method path`` declares for ``status`` (None for a path no route serves;
    a status the route does not declare fails)."""
    routes = [r for r in app.routes if isinstance(r, APIRoute) and r.path_regex.match(path)]
    for route in sorted(routes, key=lambda r: method not in r.methods):  # a method it does not take: 405
        responses = route.responses or {}
        assert status in responses, f"{method} {route.path} answered {status}, which it does not declare"
        return responses[status].get("model")
    return None


class CheckedClient(TestClient):
    """A test client that validates every JSON answer of a route against the model its route declares for the
    answer's status: an answer that does not hold to its declared type (a key missing or unknown, a value of
    another type, an error's kind not among its status's) fails the test that made it."""

    checked: list[tuple[str, str, int]]

    def request(self, method: str, url: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        response = super().request(method, url, *args, **kwargs)
        path = response.request.url.path
        assert isinstance(self.app, FastAPI)
        model = declared(self.app, method.upper(), path, response.status_code)
        if model is not None and response.headers.get("content-type", "").startswith("application/json"):
            adapter(model).validate_json(response.content)
            self.checked.append((method.upper(), path, response.status_code))
        return response


def checked_events(app: FastAPI) -> list[dict[str, Any]]:
    """Every event the battles publish, validated as a :class:`~rangefire.web.contract.BattleEvent` on its way."""
    battles = app.state.battles
    publish = battles.publish
    seen: list[dict[str, Any]] = []

    def checked(battle_id: str, event: dict[str, Any]) -> None:
        contract.BattleEvent.model_validate(event)
        seen.append(event)
        publish(battle_id, event)

    battles.publish = checked
    return seen


@pytest.fixture
def client(tmp_path: Path) -> Iterator[CheckedClient]:
    app = create_app(tmp_path / "battles.sqlite3", static_dir=tmp_path / "static")
    checked_events(app)
    with CheckedClient(app) as test_client:
        test_client.checked = []
        yield test_client


def spec_of(client: TestClient) -> dict[str, Any]:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    found: dict[str, Any] = response.json()
    return found


def resolved(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def typed(spec: dict[str, Any], schema: dict[str, Any]) -> bool:
    """Whether a schema is typed: an object with its properties, each member of a union typed, or a string."""
    schema = resolved(spec, schema)
    for union in ("oneOf", "anyOf"):
        if union in schema:
            return all(typed(spec, member) for member in schema[union])
    if schema.get("type") == "object":
        return bool(schema.get("properties"))
    return schema.get("type") == "string"


# -- the description ------------------------------------------------------------------------------------------------
def test_every_route_declares_a_typed_answer_for_every_status(client):
    spec = spec_of(client)
    routes = [(path, method, op) for path, ops in spec["paths"].items() for method, op in ops.items()]
    assert len(routes) >= 21
    for path, method, operation in routes:
        statuses = set(operation["responses"])
        assert {"200", "201"} & statuses, (method, path)
        assert not {"4XX", "5XX", "default"} & statuses, (method, path)  # each status its own
        for status, response in operation["responses"].items():
            content = response.get("content")
            assert content, (method, path, status)
            for media, described in content.items():
                if media == "text/event-stream":  # each event's data typed
                    data = described["itemSchema"]["properties"]["data"]["contentSchema"]
                    assert typed(spec, data) and data["$ref"].endswith("/BattleEvent"), (path, status)
                elif media == "image/svg+xml":
                    assert described["schema"]["type"] == "string"
                else:
                    assert media == "application/json", (method, path, status, media)
                    assert typed(spec, described["schema"]), (method, path, status)
    assert "HTTPValidationError" not in spec["components"]["schemas"]


def test_attacks_and_states_are_one_model_per_game_told_apart_by_ruleset(client):
    """check, odds, resolve (and answer) and the state: a union of each game's model, the discriminator
    ``ruleset`` mapping each game's key to its own; each game's plan typed by its own plan model."""
    spec = spec_of(client)
    keys = {r.key for r in RULESETS}
    for path, method in (("/api/battles/{battle_id}/check", "post"), ("/api/battles/{battle_id}/odds", "post"),
                         ("/api/battles/{battle_id}", "get"), ("/api/battles/{battle_id}/answer", "post")):
        schema = spec["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]
        assert set(schema["discriminator"]["mapping"]) == keys, path
        assert len(schema["oneOf"]) == len(keys)
    resolve = spec["paths"]["/api/battles/{battle_id}/resolve"]["post"]["responses"]
    played, asked = resolve["200"]["content"]["application/json"]["schema"]["anyOf"]
    assert set(played["discriminator"]["mapping"]) == keys and asked["$ref"].endswith("/DiceAsked")
    assert resolve["202"]["content"]["application/json"]["schema"]["$ref"].endswith("/PendingAnswer")
    schemas = spec["components"]["schemas"]
    plan = schemas["BushidoOddsOutput"]["properties"]["plan"]
    assert {"$ref": "#/components/schemas/BushidoPlan"} in plan["anyOf"]
    assert set(schemas["DressPlan"]["properties"]) >= {"range", "line_of_fire", "dice", "cover", "save"}
    battle = schemas["SwerveBattleState"]["properties"]["battle"]
    assert battle == {"$ref": "#/components/schemas/SwerveBattle"}


def test_each_error_status_enumerates_the_kinds_the_code_answers_with(client):
    spec = spec_of(client)
    kinds = contract.error_kinds()
    schemas = spec["components"]["schemas"]
    for status, named in kinds.items():
        detail = resolved(spec, schemas[f"Error{status}"]["properties"]["error"])
        kind = detail["properties"]["kind"]
        assert tuple(kind["enum"]) if "enum" in kind else (kind["const"],) == named, status
    state = spec["paths"]["/api/battles/{battle_id}"]["get"]["responses"]
    assert {int(s) for s in state if int(s) >= 400} == set(kinds)
    listed = spec["paths"]["/api/rulesets"]["get"]["responses"]
    assert {int(s) for s in listed if int(s) >= 400} == set(kinds) - set(contract.TOKEN_ONLY)
    # read from the code: the server's own refusals, the library's by status, the router's
    assert "unauthorized" in kinds[401] and "stale" in kinds[409] and "illegal_attack" in kinds[409]
    assert "invalid_scenario" in kinds[422] and "method_not_allowed" in kinds[405]
    assert "dice_needed" not in json.dumps(spec) and "dice-needed" not in json.dumps(spec)


def test_docs_list_every_error_kind_by_status_as_the_code_answers_them():
    """docs/http.md's table of errors holds exactly the (status, kind) pairs of the code: neither says a kind the
    other does not (a kind is written as the code writes it)."""
    text = (ROOT / "docs" / "http.md").read_text()
    table = text[text.index("\n## Errors\n"):text.index("\n## Endpoints\n")]
    said = {(int(status), kind) for status, kinds in re.findall(r"^\| (\d{3}) \| ([^|]+) \|", table, re.M)
            for kind in re.findall(r"`([a-z_-]+)`", kinds)}
    code = {(status, kind) for status, kinds in contract.error_kinds().items() for kind in kinds}
    assert said == code, (sorted(said - code), sorted(code - said))


def test_the_token_is_a_bearer_scheme_on_every_battle_route(client):
    spec = spec_of(client)
    schemes = spec["components"]["securitySchemes"]
    assert schemes["battleToken"] == {**schemes["battleToken"], "type": "http", "scheme": "bearer"}
    assert schemes["eventStreamToken"] == {**schemes["eventStreamToken"], "type": "apiKey", "in": "query",
                                           "name": "token"}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if path.startswith("/api/battles/"):
                expected = [{"battleToken": []}]
                if path.endswith("/events"):
                    expected.append({"eventStreamToken": []})
                assert operation["security"] == expected, (method, path)
            else:  # the games, the examples, a new battle: no token
                assert "security" not in operation, (method, path)


def test_a_generated_client_needs_no_local_refs(client):
    """Each request body is a named schema, its models among the schemas: no ``#/$defs/`` reference (which a
    generator cannot follow) anywhere."""
    spec = spec_of(client)
    assert "#/$defs/" not in json.dumps(spec)
    body = spec["paths"]["/api/battles"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/CreateBody"}
    titles = [schema["title"] for schema in spec["components"]["schemas"].values() if schema]
    assert len(titles) == len(set(titles))  # a generator names its classes by title


# -- the answers, against their models ------------------------------------------------------------------------------
def test_every_answer_of_these_tests_was_checked(client, new_battle):
    """The checking client checks: a route's answer in every game (and an error) goes through it."""
    for example in ("wheatfield", "ford", "temple", "sawblade"):
        battle = new_battle(example)
        side = battle.state()["side_to_act"]
        unit = next(u["id"] for u in battle.state()["units"] if u["side"] == side)
        battle.post("/check", side, {"attacker": unit})
        battle.get("/targets")
        battle.get("/actions")
    error_of(client.get("/api/battles/nothing-here", headers={"Authorization": "Bearer x"}), 404, "not_found")
    routes = {(method, re.sub(r"/api/battles/[^/]+", "/api/battles/ID", path), status)
              for method, path, status in client.checked}
    assert ("POST", "/api/battles", 201) in routes and ("GET", "/api/battles/ID", 404) in routes
    assert ("POST", "/api/battles/ID/check", 200) in routes and ("GET", "/api/battles/ID/actions", 200) in routes


def test_an_answer_that_breaks_its_model_fails(client, new_battle):
    """The check can fail: a state with a key its model does not name, or a wrong type, is refused."""
    state = new_battle("temple").state()
    model = adapter(contract.battle_state())
    model.validate_python(state)
    for broken in ({**state, "surprise": 1}, {**state, "actions": "3"}, {**state, "ruleset": "chess"},
                   {**state, "battle": {**state["battle"], "units": "none"}}):
        with pytest.raises(ValueError):
            model.validate_python(broken)


@pytest.mark.parametrize("example", ["wheatfield", "ford", "temple", "mist-bridge", "sawblade", "ambush"])
def test_every_reading_route_of_every_game(client, new_battle, example):
    """Each game's state, actions, targets, advice (with the refused pairs), check and odds of each of the
    side's attackers (refused ones too), through the checking client; a spectator's and each side's view."""
    battle = new_battle(example)
    state = battle.state()
    side = state["side_to_act"]
    for token in (battle.spectator, *battle.sides.values()):
        assert battle.get("", token=token).status_code == 200
    assert battle.get("/advice?refused=true", token=battle.sides[side]).status_code == 200
    assert battle.get("/targets").status_code == 200
    for unit in [u["id"] for u in state["units"] if u["side"] == side][:3]:
        for enemy in [None, *(u["id"] for u in state["units"] if u["side"] != side)][:3]:
            body = {"attacker": unit, "target": enemy}
            assert battle.post("/check", side, body).status_code == 200
            assert battle.post("/odds", side, body).status_code in (200, 409, 422)
    assert battle.get("/actions").status_code == 200


def test_dice_asked_played_and_errors_of_every_status_the_tests_meet(client, new_battle):
    battle = new_battle("wheatfield", entered_dice=True)
    asked = battle.post("/resolve", "union", {"attacker": "20th-maine", "ask": True})
    assert asked.status_code == 200 and contract.DiceAsked.model_validate(asked.json()).next.stage == "hit"
    error_of(battle.post("/resolve", "union", {"attacker": "20th-maine", "dice": {"hit": [9]}}), 400, "invalid_dice")
    error_of(client.get(battle.url()), 401, "unauthorized")
    error_of(battle.post("/resolve", "confederate", {"attacker": "20th-maine"}), 403, "forbidden")
    error_of(battle.post("/resolve", "union", {"attacker": "nobody"}), 404, "unknown_unit")
    error_of(client.post(battle.url(), headers=battle.as_side("union"), json={}), 405, "method_not_allowed")
    error_of(battle.post("/undo", "union", {"expected_actions": 5}), 409, "stale")
    error_of(battle.post("/resolve", "union", {"attacker": "20th-maine", "target": "4th-texas"}), 409,
             "illegal_attack")
    error_of(battle.post("/check", "union", {"attacker": "20th-maine", "surprise": 1}), 422, "invalid_request")
    error_of(client.post("/api/battles", json={"scenario": {"ruleset": "bushido", "units": 3}}), 422,
             "invalid_scenario")
    error_of(client.post("/api/battles", content=b"{}", headers={"Content-Type": "text/plain"}), 415,
             "unsupported_media_type")
    statuses = {status for _, _, status in client.checked}
    assert {400, 401, 403, 404, 405, 409, 415, 422} <= statuses


def test_the_events_of_a_pending_attack_and_a_stream_reopened(client, new_battle):
    """Every event published is a BattleEvent (checked on its way: the fixture); so are those a reopened stream
    sends first."""
    battle = new_battle("temple")
    assert battle.post("/resolve", "prefecture", {"attacker": "yoichi", "target": "takeda"}).status_code == 202
    battles = client.app.state.battles
    loaded = battles.load(battles.row(battle.id))
    for since in (None, -1, 0):
        _, first = catch_up(battles.store, loaded, since)
        for event in first:
            contract.BattleEvent.model_validate(event)
    assert {e["kind"] for e in catch_up(battles.store, loaded, -1)[1]} == {"pending"}
    assert set(KINDS) <= set(contract.BattleEvent.model_fields["kind"].annotation.__args__)


# -- examples -------------------------------------------------------------------------------------------------------
def _example(summary: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"summary": summary, "value": value}


def produce_examples(client: TestClient) -> dict[str, dict[str, Any]]:
    """Real answers about the built-in examples, as the description shows them: a battle created, its state, a
    check (and one awaiting a nomination), the odds of three games, an attack played with entered dice and the
    dice asked for, and an answer to a nomination."""
    def created(example: str, **body: Any) -> tuple[Battle, dict[str, Any]]:
        response = client.post("/api/battles", json={"example": example, **body})
        assert response.status_code == 201, response.text
        return Battle(client, response.json()), response.json()

    def ok(response: Any, status: int = 200) -> dict[str, Any]:
        assert response.status_code == status, response.text
        data: dict[str, Any] = response.json()
        return data

    wheatfield, made = created("wheatfield", entered_dice=True)
    temple, _ = created("temple")
    ford, _ = created("ford")
    maine = {"attacker": "20th-maine"}
    dice = {"hit": [5, 5, 2, 1, 4, 3], "save": [5, 1]}
    found = {
        "create": {"wheatfield": _example("The Wheatfield (Dress on the Colors), dice entered by hand", made)},
        "state": {"wheatfield": _example("The Wheatfield before its first action, as a spectator sees it",
                                         ok(wheatfield.get())),
                  "temple": _example("The temple yard (Bushido), as ito sees it", ok(temple.get(
                      token=temple.sides["ito"])))},
        "check": {"wheatfield": _example("May 20th-maine fire? (the rules choose its target)",
                                         ok(wheatfield.post("/check", "union", maine))),
                  "temple": _example("yoichi at takeda: ito's player may nominate another model",
                                     ok(temple.post("/check", "prefecture", {"attacker": "yoichi",
                                                                             "target": "takeda"})))},
        "odds": {"wheatfield": _example("The exact odds of 20th-maine's volley",
                                        ok(wheatfield.post("/odds", "union", maine))),
                 "ford": _example("The archers' order at the orc band (Arcane Legions)",
                                  ok(ford.post("/odds", "legion", {"attacker": "archers", "target": "orc-band",
                                                                    "choices": {"to_side": "front"}})))},
        "resolve": {"asked": _example("With \"ask\": true and no dice yet: the stage to enter next",
                                      ok(wheatfield.post("/resolve", "union", {**maine, "ask": True}))),
                    "played": _example("20th-maine's volley played with the dice entered",
                                       ok(wheatfield.post("/resolve", "union", {**maine, "dice": dice})))},
    }
    waiting = ok(temple.post("/resolve", "prefecture", {"attacker": "yoichi", "target": "takeda"}), 202)
    step = waiting["pending"]["step"]
    found["answer"] = {"nominated": _example("ito nominates yojimbo in takeda's place [BU-4.2]: the attack played",
                                             ok(temple.post("/answer", "ito", {"answer": "nominate yojimbo",
                                                                               "step": step})))}
    return found


@pytest.mark.skipif(os.environ.get("RANGEFIRE_WRITE_EXAMPLES") != "1", reason="writes the examples when asked")
def test_write_the_examples(tmp_path):
    with TestClient(create_app(tmp_path / "examples.sqlite3", static_dir=tmp_path / "static")) as fresh:
        found = produce_examples(fresh)
    EXAMPLES.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    contract.examples.cache_clear()


ROUTE_OF_EXAMPLE = {"create": ("/api/battles", "post", "201"), "state": ("/api/battles/{battle_id}", "get", "200"),
                    "check": ("/api/battles/{battle_id}/check", "post", "200"),
                    "odds": ("/api/battles/{battle_id}/odds", "post", "200"),
                    "resolve": ("/api/battles/{battle_id}/resolve", "post", "200"),
                    "answer": ("/api/battles/{battle_id}/answer", "post", "200")}


def test_the_main_routes_show_real_examples_that_still_validate(client):
    """The examples the description shows (each a real answer about a built-in example) validate against the
    model of their route and status today: a change to an answer's shape that leaves them behind fails here
    (``RANGEFIRE_WRITE_EXAMPLES=1`` writes them again)."""
    kept = json.loads(EXAMPLES.read_text(encoding="utf-8"))
    assert set(kept) == set(ROUTE_OF_EXAMPLE)
    spec = spec_of(client)
    app = client.app
    assert isinstance(app, FastAPI)
    for name, (path, method, status) in ROUTE_OF_EXAMPLE.items():
        shown = spec["paths"][path][method]["responses"][status]["content"]["application/json"]["examples"]
        assert shown == kept[name], name
        model = declared(app, method.upper(), path.replace("{battle_id}", "x"), int(status))
        for example in shown.values():
            adapter(model).validate_python(example["value"])
    assert kept["resolve"]["asked"]["value"]["next"]["stage"] == "hit"
    assert kept["answer"]["nominated"]["value"]["target"] == "yojimbo"


def test_the_examples_are_made_as_the_server_answers_now(client):
    """The examples are produced by the same requests today (new ids, tokens and rolled dice aside): a state, a
    check and the odds equal the ones shown but for the battle's id."""
    kept = json.loads(EXAMPLES.read_text(encoding="utf-8"))
    made = produce_examples(client)

    def same(data: Any) -> Any:
        text = json.dumps(data)
        for battle_id in {kept["state"]["wheatfield"]["value"]["id"], made["state"]["wheatfield"]["value"]["id"]}:
            text = text.replace(battle_id, "ID")
        return json.loads(text)

    assert same(made["state"]["wheatfield"]) == same(kept["state"]["wheatfield"])
    assert made["check"] == kept["check"] and made["odds"] == kept["odds"]
    assert made["resolve"]["asked"] == kept["resolve"]["asked"]
    assert same(made["resolve"]["played"])["value"]["outcome"] == same(kept["resolve"]["played"])["value"]["outcome"]
