"""Moves, marks and set-up edits over HTTP: each checked by the rules, recorded as one action, replayed into the
state, undone; who may make each."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import Battle, error_of

pytest.importorskip("fastapi")

from rangefire.record import KINDS, replay
from rangefire.rulesets import battle_from_mapping

UNION, CONFEDERATE = "union", "confederate"
MAINE, PENNSYLVANIA, ALABAMA = "20th-maine", "83rd-pennsylvania", "15th-alabama"
PREFECTURE, ITO = "prefecture", "ito"


def replayed_state(battle: Battle) -> dict[str, Any]:
    """The battle's scenario (its dump before any action) with its stored actions replayed by the library."""
    created = battle.client.app.state.store.battle(battle.id)  # type: ignore[attr-defined]
    ruleset, start = battle_from_mapping(created.scenario, source="stored")
    actions = [KINDS[a["action"]].model_validate({k: v for k, v in a.items() if k not in ("number", "by")})
               for a in battle.get("/actions").json()["actions"]]
    result: dict[str, Any] = ruleset.dump(replay(ruleset, start, actions))  # type: ignore[arg-type]
    return result


def unit_of(state: dict[str, Any], uid: str) -> dict[str, Any]:
    found: dict[str, Any] = next(u for u in state["battle"]["units"] if u["id"] == uid)
    return found


# -- moves ------------------------------------------------------------------------------------------------
def test_a_move_checked_records_nothing(new_battle):
    battle = new_battle("wheatfield")
    answer = battle.post("/move", UNION, {"unit": PENNSYLVANIA, "by": [0, 2], "check": True})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["format"] == 1 and data["legal"] is True and data["unit"] == PENNSYLVANIA
    assert data["distance"] == 2 and data["unit_of_distance"] == "in" and data["refusals"] == []
    assert any(line["clause"] == "DC-10.1" for line in data["log"])
    assert "action" not in data and battle.state()["actions"] == 0
    spectator = battle.client.post(battle.url("/move"), headers={"Authorization": f"Bearer {battle.spectator}"},
                                   json={"unit": PENNSYLVANIA, "by": [0, 2], "check": True})
    assert spectator.status_code == 200 and spectator.json()["legal"] is True  # a question: any token asks it


def test_a_move_is_recorded_the_state_follows_and_replays(new_battle):
    battle = new_battle("wheatfield")
    answer = battle.post("/move", UNION, {"unit": PENNSYLVANIA, "by": [0, 2], "facing": 0})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["action"] == 1 and data["legal"] is True and data["distance"] == 2
    assert data["unit_of_distance"] == "in" and data["side_to_act"] == UNION
    assert unit_of(data, PENNSYLVANIA)["position"] == [22, 2]
    state = battle.state()
    assert state["actions"] == 1 and unit_of(state, PENNSYLVANIA)["position"] == [22, 2]
    [record] = battle.get("/actions").json()["actions"]
    assert record["action"] == "move" and record["by"] == UNION and record["number"] == 1
    assert record["move"] == {"unit": PENNSYLVANIA, "by": [0, 2], "facing": 0} and record["distance"] == 2
    assert replayed_state(battle) == state["battle"]


def test_a_move_the_rules_refuse_is_409_with_its_clause(new_battle):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/move", UNION, {"unit": PENNSYLVANIA, "to": [12, 0]}), 409, "illegal_move")
    assert error["clause"] == "DC-10.2" and error["refusals"][0]["clause"] == error["clause"]
    assert all({"clause", "reason"} == set(r) for r in error["refusals"])
    checked = battle.post("/move", UNION, {"unit": PENNSYLVANIA, "to": [12, 0], "check": True}).json()
    assert checked["legal"] is False and checked["refusals"][0]["clause"] == error["clause"]
    assert battle.state()["actions"] == 0


def test_a_move_in_another_sides_turn_is_refused_by_its_clause(new_battle):
    battle = new_battle("wheatfield")
    assert battle.state()["side_to_act"] == UNION
    error = error_of(battle.post("/move", CONFEDERATE, {"unit": ALABAMA, "by": [0, -1]}), 409, "illegal_move")
    assert error["clause"] is not None and error["clause"].startswith("DC-")
    assert battle.state()["actions"] == 0


def test_who_may_move(new_battle, client):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/move", UNION, {"unit": ALABAMA, "by": [0, -1]}), 403, "forbidden")
    assert error["path"] == "unit" and "confederate" in error["message"]
    spectator = client.post(battle.url("/move"), headers={"Authorization": f"Bearer {battle.spectator}"},
                            json={"unit": MAINE, "by": [0, 1]})
    error_of(spectator, 403, "forbidden")
    error_of(client.post(battle.url("/move"), json={"unit": MAINE, "by": [0, 1]}), 401, "unauthorized")
    assert battle.state()["actions"] == 0


@pytest.mark.parametrize(("body", "path"), [
    ({"unit": MAINE, "to": ["NaN", 1]}, "to[0]"),
    ({"unit": MAINE, "by": [0, 1e300]}, "by[1]"),
    ({"unit": MAINE, "to": ["0.00000000000000000000000000000000000000001", 1]}, "to[0]"),
    ({"unit": MAINE, "to": [1, "1e-41"]}, "to[1]"),
    ({"unit": MAINE, "to": [1, 2, 3]}, "to"),
    ({"unit": MAINE, "facing": "north"}, "facing"),
    ({"unit": MAINE, "to": [1, 1], "by": [0, 1]}, "by"),
    ({"unit": MAINE, "run": "yes"}, "run"),
    ({"unit": "", "by": [0, 1]}, "unit"),
    ({"by": [0, 1]}, "unit"),
    ({"unit": "x" * 65, "by": [0, 1]}, "unit"),
])
def test_bad_input_is_422_naming_the_field(new_battle, body, path):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/move", UNION, body), 422, "invalid_input")
    assert error["path"] == path, error
    assert battle.state()["actions"] == 0


def test_a_nan_number_in_the_json_is_named(new_battle, client):
    battle = new_battle("wheatfield")
    response = client.post(battle.url("/move"), headers={**battle.as_side(UNION), "Content-Type": "application/json"},
                           content=b'{"unit": "20th-maine", "to": [NaN, 1]}')
    assert response.status_code in (400, 422), response.text
    assert battle.state()["actions"] == 0


def test_unknown_and_removed_units(new_battle):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/move", UNION, {"unit": "1st-minnesota", "by": [0, 1]}), 404, "unknown_unit")
    assert error["path"] == "unit" and "1st-minnesota" in error["message"]
    error_of(battle.post("/move", UNION, {"unit": MAINE, "by": [0, 1], "extra": 1}), 422, "invalid_request")


def test_a_move_waits_while_an_attack_is_pending(new_battle):
    battle = new_battle("temple")
    waiting = battle.post("/resolve", PREFECTURE, {"attacker": "yoichi", "target": "takeda"})
    assert waiting.status_code == 202, waiting.text
    error_of(battle.post("/move", PREFECTURE, {"unit": "yoichi", "by": [0, 1]}), 409, "pending")
    error_of(battle.post("/mark", PREFECTURE, {"unit": "yoichi", "state": "aimed", "on": True}), 409, "pending")


def test_undo_takes_back_a_move(new_battle):
    battle = new_battle("wheatfield")
    before = battle.state()
    assert battle.post("/move", UNION, {"unit": PENNSYLVANIA, "by": [0, 2]}).status_code == 200
    error_of(battle.post("/undo", CONFEDERATE), 403, "forbidden")
    undone = battle.post("/undo", UNION)
    assert undone.status_code == 200, undone.text
    assert undone.json()["actions"] == 2 and undone.json()["battle"] == before["battle"]  # the move and its undo
    assert undone.json()["last_standing"] is None


# -- marks ------------------------------------------------------------------------------------------------
def test_a_mark_is_checked_recorded_and_refused(new_battle):
    battle = new_battle("temple")
    side = battle.state()["side_to_act"]
    own = next(u for u in battle.state()["units"] if u["side"] == side)["id"]
    other = next(u for u in battle.state()["units"] if u["side"] != side)
    checked = battle.post("/mark", side, {"unit": own, "state": "aimed", "on": True, "check": True}).json()
    assert checked["legal"] is True and checked["unit_of_distance"] == "in" and battle.state()["actions"] == 0
    made = battle.post("/mark", side, {"unit": own, "state": "aimed", "on": True})
    assert made.status_code == 200, made.text
    assert made.json()["action"] == 1 and "aimed" in unit_of(made.json(), own)["states"]
    assert "aimed" in unit_of(battle.state(), own)["states"]
    [record] = battle.get("/actions").json()["actions"]
    assert record["action"] == "mark" and record["state"] == "aimed" and record["on"] is True
    assert replayed_state(battle) == battle.state()["battle"]
    error = error_of(battle.post("/mark", side, {"unit": own, "state": "asleep"}), 422, "invalid_input")
    assert error["path"] == "state"
    error_of(battle.post("/mark", side, {"unit": own, "state": "aimed", "on": "no"}), 422, "invalid_input")
    error_of(battle.post("/mark", side, {"unit": other["id"], "state": "aimed"}), 403, "forbidden")
    error = error_of(battle.post("/mark", other["side"], {"unit": other["id"], "state": "aimed"}), 409,
                     "illegal_move")
    assert error["clause"].startswith("BU-")


# -- set-up edits -------------------------------------------------------------------------------------------
def test_an_edit_once_the_battle_is_under_way_is_refused_by_the_setup_clause(new_battle):
    battle = new_battle("wheatfield")
    error = error_of(battle.post("/edit", UNION, {"op": "remove", "section": "units", "id": MAINE}), 409,
                     "illegal_move")
    assert error["clause"] == "DC-10.4"
    error = error_of(battle.post("/edit", UNION, {"op": "remove", "section": "units", "id": ALABAMA}), 403,
                     "forbidden")
    error = error_of(battle.post("/edit", UNION, {"op": "paint", "section": "units", "id": MAINE}), 422,
                     "invalid_input")
    assert error["path"] == "op"
    error = error_of(battle.post("/edit", UNION, {"op": "place", "section": "units", "id": "x"}), 422,
                     "invalid_input")
    assert error["path"] == "data"


# -- a battle set up from empty by its sides ---------------------------------------------------------------
def regiment(uid: str, side: str, x: int, y: int, facing: int) -> dict[str, Any]:
    return {"side": side, "stands": 4, "weapon": "rifled-musket", "formation": "line", "position": [x, y],
            "facing": facing}


def set_up(client: Any) -> Battle:
    """An empty Dress on the Colors battle, each side placing its own regiment, terrain by either side."""
    created = client.post("/api/battles", json={"game": "dress-on-the-colors", "sides": [UNION, CONFEDERATE],
                                                "table": {"width": 72, "depth": 48}})
    assert created.status_code == 201, created.text
    battle = Battle(client, created.json())
    assert set(battle.sides) == {UNION, CONFEDERATE}
    state = battle.state()
    assert state["sides"] == [UNION, CONFEDERATE] and state["side_to_act"] is None and state["ready"] == []
    assert state["battle"]["units"] == [] and state["battle"]["turn"]["order"] == [UNION, CONFEDERATE]
    for side, uid, y, facing in ((CONFEDERATE, "reb", 20, 180), (UNION, "yank", 10, 0)):
        placed = battle.post("/edit", side, {"op": "place", "section": "units", "id": uid,
                                             "data": regiment(uid, side, 30, y, facing)})
        assert placed.status_code == 200, placed.text
        assert placed.json()["log"][0]["clause"] == "DC-10.4"
    wood = {"kind": "light", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]}
    assert battle.post("/edit", CONFEDERATE, {"op": "place", "section": "terrain", "id": "wood",
                                              "data": wood}).status_code == 200
    assert battle.post("/edit", UNION, {"op": "change", "section": "terrain", "id": "wood",
                                        "data": {"kind": "heavy"}}).status_code == 200
    return battle


def test_a_side_sets_up_only_its_own_units(client):
    battle = set_up(client)
    error = error_of(battle.post("/edit", UNION, {"op": "place", "section": "units", "id": "spy",
                                                  "data": regiment("spy", CONFEDERATE, 50, 30, 0)}), 403, "forbidden")
    assert error["path"] == "data.side"
    error_of(battle.post("/edit", UNION, {"op": "remove", "section": "units", "id": "reb"}), 403, "forbidden")
    error_of(battle.post("/edit", UNION, {"op": "change", "section": "units", "id": "yank",
                                          "data": {"side": CONFEDERATE}}), 403, "forbidden")
    error = error_of(battle.post("/edit", UNION, {"op": "change", "section": "units", "id": "ghost",
                                                  "data": {"stands": 3}}), 422, "invalid_input")
    assert "ghost" in error["message"]
    assert battle.post("/edit", UNION, {"op": "change", "section": "units", "id": "yank",
                                        "data": {"stands": 5}, "check": True}).json()["legal"] is True
    assert battle.state()["actions"] == 4


def test_a_battle_set_up_is_held_to_the_size_of_a_battle_served_here(client, monkeypatch):
    """The bounds a scenario is held to when its battle is created (units, corners of terrain) hold for a battle
    set up from empty too, at each edit that places or changes (else a side grew it past them one edit at a time);
    an edit past them is refused (422 too_large) and nothing is recorded."""
    from rangefire.web import moves

    monkeypatch.setattr(moves, "MAX_PIECES", 2)
    monkeypatch.setattr(moves, "MAX_TERRAIN_CORNERS", 9)
    battle = set_up(client)  # two units, a wood of four corners
    third = battle.post("/edit", UNION, {"op": "place", "section": "units", "id": "yank2",
                                         "data": regiment("yank2", UNION, 40, 10, 0)})
    error = error_of(third, 422, "too_large")
    assert error["path"] == "data" and "3 units" in error["message"] and "at most 2" in error["message"]
    five = [[10, 10], [14, 10], [14, 14], [12, 16], [10, 14]]
    ten = [[10, 10], [12, 9], [14, 10], [15, 12], [14, 14], [12, 15], [10, 14], [9, 13], [8, 12], [9, 11]]
    error = error_of(battle.post("/edit", CONFEDERATE, {"op": "place", "section": "terrain", "id": "copse",
                                                        "data": {"kind": "light", "polygon": [*five, [9, 12]]}}),
                     422, "too_large")
    assert "10 corners" in error["message"] and "at most 9" in error["message"]
    assert battle.state()["actions"] == 4
    error = error_of(battle.post("/edit", UNION, {"op": "change", "section": "terrain", "id": "wood",
                                                  "data": {"polygon": ten}}), 422, "too_large")
    assert "10 corners" in error["message"]
    changed = battle.post("/edit", UNION, {"op": "change", "section": "terrain", "id": "wood",
                                           "data": {"polygon": [*five, [9, 12]]}})
    assert changed.status_code == 200, changed.text  # six corners in all: within
    assert battle.post("/edit", UNION, {"op": "remove", "section": "units", "id": "yank"}).status_code == 200
    placed = battle.post("/edit", UNION, {"op": "place", "section": "units", "id": "yank2",
                                          "data": regiment("yank2", UNION, 40, 10, 0)})
    assert placed.status_code == 200, placed.text


def test_a_battle_set_up_from_empty_is_started_when_both_sides_are_ready_and_played(client):
    battle = set_up(client)
    ready = battle.post("/ready", UNION)
    assert ready.status_code == 200, ready.text
    assert ready.json()["ready"] == [UNION] and ready.json()["side_to_act"] is None
    assert battle.post("/ready", UNION).json()["ready"] == [UNION]  # said again: nothing changes
    started = battle.post("/ready", CONFEDERATE)
    assert started.status_code == 200, started.text
    state = started.json()
    assert state["ready"] == [UNION, CONFEDERATE] and state["side_to_act"] == UNION
    assert state["turn"] == {"number": 1, "side": UNION, "order": [UNION, CONFEDERATE]}
    start = battle.get("/actions").json()["actions"][-1]
    assert start["action"] == "start" and start["order"] == [UNION, CONFEDERATE]
    assert start["log"][0]["clause"] == "DC-10.4"
    error = error_of(battle.post("/edit", UNION, {"op": "remove", "section": "units", "id": "yank"}), 409,
                     "illegal_move")
    assert error["clause"] == "DC-10.4"
    # a turn played through the API: a move, an attack, the end of the turn; the other side moves then
    error_of(battle.post("/move", CONFEDERATE, {"unit": "reb", "by": [0, -1]}), 409, "illegal_move")
    assert battle.post("/move", UNION, {"unit": "yank", "by": [0, 1]}).status_code == 200
    fired = battle.post("/resolve", UNION, {"attacker": "yank", "target": "reb"})
    assert fired.status_code == 200, fired.text
    ended = battle.post("/end-turn", UNION)
    assert ended.status_code == 200 and ended.json()["side_to_act"] == CONFEDERATE
    moved = battle.post("/move", CONFEDERATE, {"unit": "reb", "by": [0, 1]})
    assert moved.status_code == 200, moved.text
    state = battle.state()
    assert unit_of(state, "yank")["position"] == [30, 11] and unit_of(state, "reb")["position"] == [30, 21]
    kinds = [a["action"] for a in battle.get("/actions").json()["actions"]]
    assert kinds == ["edit"] * 4 + ["start", "move", "attack", "end-turn", "move"]
    assert replayed_state(battle) == state["battle"]


def test_an_edit_takes_back_every_sides_readiness_dc_10_4(client):
    """DC-10.4: a side says it is ready to start on the table as it is; an edit of it by either side (a unit
    placed, terrain changed) takes back the readiness of every side, so the battle never starts on a table a side
    has not seen. A check of an edit changes nothing."""
    battle = set_up(client)
    assert battle.post("/ready", UNION).json()["ready"] == [UNION]
    checked = battle.post("/edit", CONFEDERATE, {"op": "remove", "section": "units", "id": "reb", "check": True})
    assert checked.status_code == 200, checked.text
    assert battle.state()["ready"] == [UNION]
    moved = battle.post("/edit", CONFEDERATE, {"op": "change", "section": "units", "id": "reb",
                                               "data": {"position": [31, 20]}})
    assert moved.status_code == 200, moved.text
    assert battle.state()["ready"] == []
    assert battle.post("/ready", CONFEDERATE).json()["ready"] == [CONFEDERATE]  # not started: union says it again
    assert battle.state()["side_to_act"] is None
    assert battle.post("/edit", CONFEDERATE, {"op": "change", "section": "units", "id": "reb",
                                              "data": {"position": [30, 20]}}).status_code == 200
    assert battle.state()["ready"] == []  # its own edit too: the table it said ready to is not this one
    battle.post("/ready", UNION)
    started = battle.post("/ready", CONFEDERATE).json()
    assert started["side_to_act"] == UNION and unit_of(started, "reb")["position"] == [30, 20]


def test_two_sides_ready_at_the_same_moment_start_the_battle_dc_10_4(client, monkeypatch):
    """DC-10.4: the last two sides saying they are ready at one moment start the battle, once. Each waits, after
    any read of who is ready, for the other to read too: a side's readiness read apart from its writing would let
    each find the other not yet ready, and the battle would never start."""
    import threading

    battle = set_up(client)
    store = client.app.state.store  # type: ignore[attr-defined]
    for name in ("ready", "set_ready"):
        barrier, real = threading.Barrier(2, timeout=20), getattr(store, name)

        def after_both(*args: Any, _real: Any = real, _barrier: Any = barrier) -> Any:
            found = _real(*args)
            _barrier.wait()
            return found

        monkeypatch.setattr(store, name, after_both)
    answers: dict[str, Any] = {}
    sides = [threading.Thread(target=lambda side=side: answers.update({side: battle.post("/ready", side)}))
             for side in (UNION, CONFEDERATE)]
    for thread in sides:
        thread.start()
    for thread in sides:
        thread.join(60)
    monkeypatch.undo()
    assert {side: answer.status_code for side, answer in answers.items()} == {UNION: 200, CONFEDERATE: 200}
    kinds = [a["action"] for a in battle.get("/actions").json()["actions"]]
    assert kinds == ["edit"] * 4 + ["start"]
    state = battle.state()
    assert state["ready"] == [UNION, CONFEDERATE] and state["side_to_act"] == UNION


@pytest.mark.parametrize("written_first", ["readiness written anew", "readiness said again"])
def test_a_side_saying_ready_twice_at_one_moment_starts_the_battle_once_dc_10_4(client, monkeypatch, written_first):
    """DC-10.4: the other side ready, one side's Ready sent twice at one moment (two tabs, a double press) starts
    the battle once and both answers are the battle started, never a 409 for the one whose start came second,
    and the side stays ready. Each request waits, after its readiness is written and read, for the other (both
    find every side ready); then the start of the one named ``written_first`` is written first."""
    import threading

    battle = set_up(client)
    assert battle.post("/ready", UNION).status_code == 200
    store = client.app.state.store  # type: ignore[attr-defined]
    barrier, first_done = threading.Barrier(2, timeout=20), threading.Event()
    real_ready, real_append = store.set_ready, store.append
    anew_of: dict[int, bool] = {}

    def after_both(*args: Any) -> Any:
        found = real_ready(*args)
        anew_of[threading.get_ident()] = found[0]
        barrier.wait()
        return found

    def in_order(battle_id: str, expected: Any, kind: str, *rest: Any) -> Any:
        first = anew_of.get(threading.get_ident()) == (written_first == "readiness written anew")
        if kind == "start" and not first:
            assert first_done.wait(20)
        try:
            return real_append(battle_id, expected, kind, *rest)
        finally:
            if kind == "start" and first:
                first_done.set()

    monkeypatch.setattr(store, "set_ready", after_both)
    monkeypatch.setattr(store, "append", in_order)
    answers: list[Any] = []
    presses = [threading.Thread(target=lambda: answers.append(battle.post("/ready", CONFEDERATE)))
               for _ in range(2)]
    for thread in presses:
        thread.start()
    for thread in presses:
        thread.join(60)
    monkeypatch.undo()
    assert sorted(anew_of.values()) == [False, True]
    assert [answer.status_code for answer in answers] == [200, 200], [answer.text for answer in answers]
    assert all(answer.json()["side_to_act"] == UNION for answer in answers)
    kinds = [a["action"] for a in battle.get("/actions").json()["actions"]]
    assert kinds == ["edit"] * 4 + ["start"]
    state = battle.state()
    assert state["ready"] == [UNION, CONFEDERATE] and state["side_to_act"] == UNION and state["actions"] == 5


def test_a_start_not_written_keeps_no_readiness_of_the_last_side_dc_10_4(client, monkeypatch):
    """DC-10.4: should the start not be written (the battle changed meanwhile: 409), the last side's readiness is
    not kept either; kept, every side would be shown ready, its Ready button off, and the battle never start."""
    from rangefire.web.store import ConflictError

    battle = set_up(client)
    assert battle.post("/ready", UNION).status_code == 200
    store = client.app.state.store  # type: ignore[attr-defined]
    real = store.append

    def changed(battle_id: str, expected: Any, kind: str, *rest: Any) -> Any:
        if kind == "start":
            raise ConflictError("the battle changed while this action was played")
        return real(battle_id, expected, kind, *rest)

    monkeypatch.setattr(store, "append", changed)
    error_of(battle.post("/ready", CONFEDERATE), 409, "conflict")
    monkeypatch.undo()
    state = battle.state()
    assert state["ready"] == [UNION] and state["side_to_act"] is None
    started = battle.post("/ready", CONFEDERATE)  # said again: the battle starts
    assert started.status_code == 200 and started.json()["side_to_act"] == UNION


def test_a_start_taken_back_takes_back_the_readiness_of_its_side_dc_10_4(client):
    """DC-10.4: the start undone, the battle is in set-up again and the side that took it back is no longer ready
    (kept, every side would be shown ready, its Ready button off, and the battle never start again); said again,
    the battle starts."""
    battle = set_up(client)
    assert battle.post("/ready", UNION).status_code == 200
    assert battle.post("/ready", CONFEDERATE).json()["side_to_act"] == UNION
    undone = battle.post("/undo", CONFEDERATE)
    assert undone.status_code == 200, undone.text
    assert undone.json()["ready"] == [UNION] and undone.json()["side_to_act"] is None
    started = battle.post("/ready", CONFEDERATE)
    assert started.status_code == 200 and started.json()["side_to_act"] == UNION


def test_a_battle_does_not_start_while_a_side_has_placed_nothing(client):
    created = client.post("/api/battles", json={"game": "dress-on-the-colors", "sides": [UNION, CONFEDERATE]})
    battle = Battle(client, created.json())
    assert battle.post("/edit", UNION, {"op": "place", "section": "units", "id": "yank",
                                        "data": regiment("yank", UNION, 30, 10, 0)}).status_code == 200
    assert battle.post("/ready", UNION).status_code == 200
    error = error_of(battle.post("/ready", CONFEDERATE), 409, "illegal_move")
    assert error["clause"] == "DC-10.4" and "confederate has placed nothing" in error["message"]
    state = battle.state()
    assert state["ready"] == [UNION] and state["side_to_act"] is None and state["actions"] == 1


def test_the_start_is_undone_as_any_action(client):
    battle = set_up(client)
    battle.post("/ready", CONFEDERATE)
    assert battle.post("/ready", UNION).json()["side_to_act"] == UNION
    error_of(battle.post("/undo", CONFEDERATE), 403, "forbidden")
    undone = battle.post("/undo", UNION)
    assert undone.status_code == 200, undone.text
    assert undone.json()["side_to_act"] is None and undone.json()["actions"] == 6  # the start and its undo
    assert battle.post("/edit", UNION, {"op": "remove", "section": "terrain", "id": "wood"}).status_code == 200


def test_create_empty_refusals(client):
    for body, path in (({"game": "dress-on-the-colors", "sides": [UNION]}, "sides"),
                       ({"game": "dress-on-the-colors", "sides": [UNION, UNION]}, "sides"),
                       ({"game": "swerve", "sides": ["a", "b"], "table": {"width": 1, "depth": 1}}, "table"),
                       ({"game": "dress-on-the-colors", "sides": [UNION, CONFEDERATE], "example": "ford"}, "game"),
                       ({"example": "ford", "sides": [UNION, CONFEDERATE]}, "sides")):
        error = error_of(client.post("/api/battles", json=body), 422, "invalid_request")
        assert error["path"] == path, (body, error)
    error_of(client.post("/api/battles", json={"game": "chess", "sides": ["w", "b"]}), 404, "unknown_ruleset")
    infinite = b'{"game": "dress-on-the-colors", "sides": ["union", "b"], "table": {"width": 1e400, "depth": 1}}'
    error = error_of(client.post("/api/battles", content=infinite, headers={"Content-Type": "application/json"}), 422,
                     "invalid_request")
    assert error["path"] == "table.width"
    for game in ("arcane-legions", "bushido", "swerve"):
        made = client.post("/api/battles", json={"game": game, "sides": ["north", "south"]})
        assert made.status_code == 201, (game, made.text)


def test_an_empty_dress_on_the_colors_file_needs_its_sides_named():
    from rangefire.core import ScenarioError

    ruleset, battle = battle_from_mapping({"ruleset": "dress-on-the-colors", "units": [],
                                           "turn": {"order": [UNION, CONFEDERATE]}}, source="t")
    assert ruleset.sides(battle) == [UNION, CONFEDERATE] and ruleset.side_to_act(battle) is None
    with pytest.raises(ScenarioError, match="at least one unit"):
        battle_from_mapping({"ruleset": "dress-on-the-colors", "units": []}, source="t")


def test_a_removed_unit_is_unknown_and_a_long_decimal_number_is_named(client):
    battle = set_up(client)
    assert battle.post("/edit", UNION, {"op": "remove", "section": "units", "id": "yank"}).status_code == 200
    error = error_of(battle.post("/move", UNION, {"unit": "yank", "by": [0, 1]}), 404, "unknown_unit")
    assert error["path"] == "unit"
    error_of(battle.post("/mark", UNION, {"unit": "yank", "state": "aimed"}), 404, "unknown_unit")
    raw = b'{"unit": "reb", "to": [30, 0.00000000000000000000000000000000000000001], "check": true}'
    typed = {**battle.as_side(CONFEDERATE), "Content-Type": "application/json"}
    error = error_of(client.post(battle.url("/move"), headers=typed, content=raw), 422, "invalid_input")
    assert error["path"] == "to[1]"
    assert battle.state()["actions"] == 5


def test_a_killed_server_loses_no_set_up_start_or_move(tmp_path):
    httpx = pytest.importorskip("httpx")
    pytest.importorskip("uvicorn")
    from tests.web.server import Server

    db = tmp_path / "battles.sqlite3"
    with Server(db) as first, httpx.Client(base_url=first.address, timeout=60) as http:
        created = http.post("/api/battles", json={"game": "dress-on-the-colors", "sides": [UNION, CONFEDERATE]})
        assert created.status_code == 201, created.text
        battle_id, tokens = created.json()["id"], created.json()["tokens"]

        def post(route: str, side: str, body: dict[str, Any]) -> Any:
            answer = http.post(f"/api/battles/{battle_id}/{route}", json=body,
                               headers={"Authorization": f"Bearer {tokens['sides'][side]}"})
            assert answer.status_code == 200, answer.text
            return answer.json()

        for side, uid, y, facing in ((UNION, "yank", 10, 0), (CONFEDERATE, "reb", 20, 180)):
            post("edit", side, {"op": "place", "section": "units", "id": uid,
                                "data": regiment(uid, side, 30, y, facing)})
        post("ready", CONFEDERATE, {})
        post("ready", UNION, {})
        answered = post("move", UNION, {"unit": "yank", "by": [0, 2]})
        first.kill()
    with Server(db) as second, httpx.Client(base_url=second.address, timeout=60) as http:
        spectator = {"Authorization": f"Bearer {tokens['spectator']}"}
        state = http.get(f"/api/battles/{battle_id}", headers=spectator).json()
        assert state["actions"] == answered["action"] == 4 and state["ready"] == [UNION, CONFEDERATE]
        assert state["battle"] == answered["battle"] and state["side_to_act"] == UNION
        kinds = [a["action"] for a in http.get(f"/api/battles/{battle_id}/actions", headers=spectator)
                 .json()["actions"]]
        assert kinds == ["edit", "edit", "start", "move"]


@pytest.mark.parametrize("example", ["ford", "temple"])
def test_each_game_with_a_table_is_set_up_from_empty_and_started(client, new_battle, example):
    """The units of an example placed by their own sides on an empty battle; both ready, turn 1 of the first side
    (Arcane Legions' turn.side, Bushido's active_side), and the actions replay to the state."""
    source = new_battle(example).state()
    sides = source["sides"]
    created = client.post("/api/battles", json={"game": source["ruleset"], "sides": sides})
    assert created.status_code == 201, created.text
    battle = Battle(client, created.json())
    for unit in source["battle"]["units"]:
        data = {k: v for k, v in unit.items() if k != "id"}
        placed = battle.post("/edit", unit["side"], {"op": "place", "section": "units", "id": unit["id"],
                                                     "data": data})
        assert placed.status_code == 200, placed.text
    for side in sides:
        assert battle.post("/ready", side).status_code == 200
    state = battle.state()
    assert state["side_to_act"] == sides[0] and state["ready"] == sides
    assert state["battle"]["turn"]["order"] == sides
    assert replayed_state(battle) == state["battle"]


def test_a_swerve_battle_is_set_up_from_empty_by_its_players(client, new_battle):
    """swerve's cards placed by their owners (another owner's refused), both ready: turn 1 of the first player."""
    source = new_battle("sawblade").state()
    players = source["sides"]
    created = client.post("/api/battles", json={"game": "swerve", "sides": players})
    battle = Battle(client, created.json())
    for card in source["battle"]["cards"]:
        data = {k: v for k, v in card.items() if k != "id"}
        other = next(p for p in players if p != card["owner"])
        error = error_of(battle.post("/edit", other, {"op": "place", "section": "cards", "id": card["id"],
                                                      "data": data}), 403, "forbidden")
        assert error["path"] == "data.owner"
        assert battle.post("/edit", card["owner"], {"op": "place", "section": "cards", "id": card["id"],
                                                    "data": data}).status_code == 200
    for player in players:
        assert battle.post("/ready", player).status_code == 200
    state = battle.state()
    assert state["side_to_act"] == players[0] and state["turn"]["number"] == 1
    assert replayed_state(battle) == state["battle"]


def test_every_page_is_told_of_each_move_mark_edit_ready_and_start(client):
    told: list[dict[str, Any]] = []
    client.app.state.battles.publish = lambda battle_id, event: told.append(event)
    battle = set_up(client)
    battle.post("/ready", UNION)
    battle.post("/ready", CONFEDERATE)
    battle.post("/move", UNION, {"unit": "yank", "by": [0, 1]})
    battle.post("/move", UNION, {"unit": "yank", "by": [0, 1], "check": True})  # a question: nobody is told
    assert [(e["kind"], e["by"], e["actions"]) for e in told] == [
        ("edit", CONFEDERATE, 1), ("edit", UNION, 2), ("edit", CONFEDERATE, 3), ("edit", UNION, 4),
        ("ready", UNION, 4), ("start", CONFEDERATE, 5), ("move", UNION, 6)]
