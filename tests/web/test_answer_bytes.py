"""The API's answers are written straight from the service's values (:class:`rangefire.web.app.JsonAnswer`), not
walked first by FastAPI's ``jsonable_encoder``: the bytes of each answer are those FastAPI writes from the same
value (compact JSON, UTF-8 as it is, keys in their order, floats beside fractions), worked out here from the
service's own calls; a side whose name starts with ``_sa`` (which that walk drops as a key) keeps its token and
link."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse

from rangefire.web.answer import JsonAnswer
from rangefire.web.service import AttackAsk
from tests.web.conftest import bearer


def as_fastapi_writes(value: Any, status: int = 200) -> bytes:
    """What FastAPI answers for a route returning ``value`` (no response model): its walk, then its JSON."""
    return bytes(JSONResponse(jsonable_encoder(value), status_code=status).body)


def loaded_as(client: Any, battle_id: str, token: str) -> tuple[Any, Any, Any]:
    battles = client.app.state.battles
    role = battles.store.role(battle_id, token)
    return battles, battles.for_role(battles.load(battles.row(battle_id)), role), role


@pytest.mark.parametrize("example", ["wheatfield", "ford", "temple", "mist-bridge", "sawblade", "ambush"])
def test_each_reading_answer_is_what_fastapi_writes_from_the_service_value(client, new_battle, example):
    """The state (every role's), the actions, and the check and odds of an attack of the side to act: the bytes
    on the wire against the same value as the service gives it, written as FastAPI would."""
    battle = new_battle(example)
    for token in (battle.spectator, *battle.sides.values()):
        response = battle.get("", token=token)
        battles, loaded, role = loaded_as(battle.client, battle.id, token)
        assert response.headers["content-type"] == "application/json"
        assert response.headers["etag"] == f'"{loaded.actions}"'
        assert response.content == as_fastapi_writes(battles.state(loaded, role))
    state = battle.state()
    side = state["side_to_act"]
    battles, loaded, role = loaded_as(battle.client, battle.id, battle.sides[side])
    attacker = next(u["id"] for u in state["units"] if u["side"] == side)
    for route, work in (("/check", battles.check), ("/odds", battles.odds)):
        response = battle.post(route, side, {"attacker": attacker})
        if response.status_code == 200:
            assert response.content == as_fastapi_writes(work(loaded, AttackAsk(attacker)))
            again = battle.post(route, side, {"attacker": attacker})  # the answer the engine keeps, as written
            assert again.content == response.content and again.headers["content-type"] == "application/json"
    assert battle.get("/actions").content == as_fastapi_writes(battles.actions(battle.id))


def test_played_undone_and_created_answers_are_what_fastapi_writes(client, new_battle):
    """An attack played (its dice are the server's: the answer is compared with the battle it recorded), the
    undo that takes it back (the state as read after), and a new battle (201)."""
    battle = new_battle("wheatfield", undo="any")
    played = battle.post("/resolve", "union", {"attacker": "20th-maine"})
    assert played.status_code == 200
    answer = played.json()
    assert played.content == as_fastapi_writes(answer)
    assert [line for line in answer["log"] if isinstance(line, dict)], "a played attack's log is written"
    assert answer["action"] == 1 and battle.get("/actions").json()["actions"][0]["action"] == "attack"
    undone = battle.post("/undo", "union")
    battles, loaded, role = loaded_as(battle.client, battle.id, battle.sides["union"])
    assert undone.status_code == 200
    assert undone.content == as_fastapi_writes(battles.state(loaded, role))
    created = client.post("/api/battles", json={"example": "ford"})
    assert created.status_code == 201 and created.headers["content-type"] == "application/json"
    assert created.content == as_fastapi_writes(created.json(), 201)


def test_a_value_json_has_no_way_to_write_is_written_as_fastapi_writes_it():
    """A model or a set inside an answer (the service gives none, but a value of another kind may come) is
    written as FastAPI's walk writes it, not refused."""
    from rangefire.web.contract import SettingsOut

    value = {"settings": SettingsOut(undo="any", open_hands=False), "sides": ("a", "b"), "é": 0.1, "n": None}
    assert JsonAnswer(value).body == as_fastapi_writes(value)
    assert JsonAnswer(value).body.decode("utf-8") == ('{"settings":{"undo":"any","open_hands":false},'
                                                      '"sides":["a","b"],"é":0.1,"n":null}')


def test_a_side_named_like_the_walks_hidden_keys_keeps_its_token_and_link(client):
    """FastAPI's walk leaves out every key starting with ``_sa`` (an old allowance for another library's
    objects): a side so named was created with no token or link to play it by."""
    created = client.post("/api/battles", json={"game": "dress-on-the-colors", "sides": ["_sauron", "gondor"]})
    assert created.status_code == 201, created.text
    body = created.json()
    assert set(body["tokens"]["sides"]) == {"_sauron", "gondor"}
    assert set(body["links"]) == {"_sauron", "gondor", "spectator"}
    token = body["tokens"]["sides"]["_sauron"]
    assert body["links"]["_sauron"].endswith(f"#token={token}")
    state = client.get(f"/api/battles/{body['id']}", headers=bearer(token))
    assert state.status_code == 200 and state.json()["you"] == {"role": "side", "side": "_sauron"}
