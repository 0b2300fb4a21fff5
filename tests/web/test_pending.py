"""A side's secret acts only for that side: an attack whose next choice is another player's waits for that
player's own token [BU-4.2: the target's player nominates; SW-3.1: the attacker acts first, then the players
alternate]. Each attack played this way is recorded as the one action a single request with every choice would
record, checked here against the library's own play of that attack with the recorded dice, and against the
command line's ``rangefire replay``."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from rangefire.core import Attack, EnteredSource
from rangefire.record import AttackAction, EndTurnAction, action_line, attack_action
from rangefire.rulesets import battle_from_mapping
from rangefire.web import create_app
from rangefire.web.store import ConflictError
from tests.commands import run
from tests.web.conftest import Battle, bearer, error_of

#: The temple yard: prefecture's yoichi fires at ito's takeda; ito may nominate yojimbo [BU-4.2].
PREFECTURE, ITO = "prefecture", "ito"
YOICHI_AT_TAKEDA = {"attacker": "yoichi", "target": "takeda"}
#: The canyon: jason's sawblade launcher fires at tyler's road warrior.
JASON, TYLER = "jason", "tyler"
SAWBLADE = {"attacker": "sawblade-launcher", "target": "road-warrior"}


def scenario_of(client: TestClient, battle: Battle) -> Any:
    return battle_from_mapping(client.app.state.store.battle(battle.id).scenario)


def one_request(client: TestClient, battle: Battle, record: dict[str, Any]) -> dict[str, Any]:
    """What a single resolve of the attack with every choice records, played by the library on the battle as
    created, with the dice the server recorded: the record the answers must have left."""
    ruleset, start = scenario_of(client, battle)
    attack = ruleset.attack(record["attacker"], record["target"], record["choices"])
    resolution, _ = ruleset.play(start, attack, EnteredSource({k: list(v) for k, v in record["dice"].items()},
                                                             ruleset.stages))
    return attack_action(ruleset, attack, resolution, dice_source=record["dice_source"]).model_dump(mode="json")


def replayed(client: TestClient, battle: Battle, tmp_path: Path) -> dict[str, Any]:
    scenario = tmp_path / f"{battle.id}.json"
    scenario.write_text(json.dumps(client.app.state.store.battle(battle.id).scenario))
    log = tmp_path / f"{battle.id}.log"
    with log.open("wb") as out:
        for record in battle.get("/actions").json()["actions"]:
            data = {k: v for k, v in record.items() if k not in ("number", "by")}
            model = AttackAction if data["action"] == "attack" else EndTurnAction
            out.write(action_line(model.model_validate(data)))
    result: dict[str, Any] = json.loads(run("replay", str(scenario), str(log), "--json").stdout)
    return result


def only_action(battle: Battle) -> dict[str, Any]:
    [record] = battle.get("/actions").json()["actions"]
    return {k: v for k, v in record.items() if k not in ("number", "by")}


def test_the_attacker_s_token_cannot_nominate_for_the_target_bu_4_2(new_battle):
    battle = new_battle("temple")
    for given in ("yojimbo", ""):  # a nomination or keeping the target: both the target's player's
        error = error_of(battle.post("/resolve", PREFECTURE, {**YOICHI_AT_TAKEDA, "choices": {"redirect_to": given}}),
                         403, "forbidden")
        assert error["path"] == "choices.redirect_to" and error["clause"] == "BU-4.2" and error["awaiting"] == ITO
        assert "ito (the target's player)" in error["message"]
    state = battle.state()
    assert state["actions"] == 0 and state["pending"] is None


def test_a_nomination_answered_by_the_target_s_side_bu_4_2(new_battle, client, tmp_path):
    battle = new_battle("temple")
    seen: list[dict[str, Any]] = []
    client.app.state.battles.publish = lambda battle_id, event: seen.append(event)
    waiting = battle.post("/resolve", PREFECTURE, YOICHI_AT_TAKEDA)
    assert waiting.status_code == 202, waiting.text
    pending = waiting.json()["pending"]
    ruleset, start = scenario_of(client, battle)
    question = ruleset.next_choice(start, Attack("yoichi", "takeda"))
    shown = {k: v for k, v in pending["awaiting"].items() if k not in ("options", "options_left")}
    assert shown == {"kind": "choice", **question.to_dict()} and pending["awaiting"]["side"] == ITO
    assert [o["answer"] for o in pending["awaiting"]["options"]] == list(question.allowed)
    assert pending["by"] == PREFECTURE and pending["choices"] == {} and pending["withdrawable"] is True
    assert seen == [{"actions": 0, "kind": "pending", "by": PREFECTURE, "awaiting": ITO}]
    assert battle.state()["pending"] == pending  # every token sees what is awaited
    assert battle.get(token=battle.sides[ITO]).json()["pending"] == pending

    # only ito answers; nothing else acts while the attack waits
    error = error_of(battle.post("/answer", PREFECTURE, {"answer": "nominate yojimbo"}), 403, "forbidden")
    assert error["clause"] == "BU-4.2" and "ito" in error["message"]
    spectator = battle.client.post(battle.url("/answer"), headers=bearer(battle.spectator),
                                   json={"answer": "nominate yojimbo"})
    error_of(spectator, 403, "forbidden")
    error = error_of(battle.post("/answer", ITO, {"answer": "nominate scout"}), 422, "invalid_choice")
    assert error["path"] == "answer" and error["allowed"] == list(question.allowed)
    error_of(battle.post("/answer", ITO, {"answer": "x" * 201}), 422, "invalid_request")
    error_of(battle.post("/answer", ITO, {"answer": "keep takeda", "extra": 1}), 422, "invalid_request")
    for route, body in (("/undo", {}), ("/end-turn", {}), ("/resolve", {"attacker": "kenji", "target": "takeda"})):
        error = error_of(battle.post(route, PREFECTURE, body), 409, "pending")
        assert "waiting for ito (the target's player) to choose redirect_to [BU-4.2]" in error["message"], error
    error_of(battle.post("/withdraw", ITO), 403, "forbidden")
    assert battle.state()["actions"] == 0

    played = battle.post("/answer", ITO, {"answer": "nominate yojimbo"})
    assert played.status_code == 200, played.text
    assert played.json()["action"] == 1 and played.json()["target"] == "yojimbo"
    assert seen[-1] == {"actions": 1, "kind": "attack", "by": PREFECTURE}
    state = battle.state()
    assert state["pending"] is None and state["actions"] == 1
    [record] = battle.get("/actions").json()["actions"]
    assert record["by"] == PREFECTURE and record["choices"] == {"redirect_to": "yojimbo"}
    assert only_action(battle) == one_request(client, battle, only_action(battle))
    assert replayed(client, battle, tmp_path)["battle"] == state["battle"]
    error_of(battle.post("/answer", ITO, {"answer": "keep takeda"}), 409, "conflict")  # nothing waits now


def test_a_swerve_exchange_played_by_the_two_tokens_sw_3_1(new_battle, client, tmp_path):
    battle = new_battle("sawblade")
    line = ["attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass"]
    error = error_of(battle.post("/resolve", JASON, {**SAWBLADE, "choices": {"actions": line}}), 403, "forbidden")
    assert error["path"] == "choices.actions" and error["clause"] == "SW-3.1" and error["awaiting"] == TYLER
    assert "'defender:swerve-target'" in error["message"]
    assert battle.state()["pending"] is None

    waiting = battle.post("/resolve", JASON, {**SAWBLADE, "choices": {"actions": line[:1]}})  # jason's own first
    assert waiting.status_code == 202, waiting.text
    whose = [JASON, TYLER, JASON, TYLER]
    for i, action in enumerate(line[1:], start=1):
        pending = battle.state()["pending"]
        assert pending["awaiting"]["side"] == whose[i] and pending["choices"] == {"actions": line[:i]}
        assert pending["withdrawable"] is (i == 1)  # until tyler has answered
        other = JASON if whose[i] == TYLER else TYLER
        error_of(battle.post("/answer", other, {"answer": action}), 403, "forbidden")
        answered = battle.post("/answer", whose[i], {"answer": action})
        assert answered.status_code == (200 if i == len(line) - 1 else 202), answered.text
        if i == 1:
            error_of(battle.post("/withdraw", JASON), 409, "pending")  # tyler's answer is given
    record = only_action(battle)
    assert record["choices"] == {"actions": line} and battle.get("/actions").json()["actions"][0]["by"] == JASON
    assert record == one_request(client, battle, record)
    assert replayed(client, battle, tmp_path)["battle"] == battle.state()["battle"]


def test_an_attack_waiting_survives_a_new_server_over_the_same_file(new_battle, db_path, tmp_path):
    battle = new_battle("temple")
    assert battle.post("/resolve", PREFECTURE, YOICHI_AT_TAKEDA).status_code == 202
    before = battle.state()["pending"]
    with TestClient(create_app(db_path, static_dir=tmp_path)) as fresh:  # a killed server's successor
        again = Battle(fresh, battle.created)
        assert again.state()["pending"] == before
        error_of(again.post("/end-turn", PREFECTURE), 409, "pending")
        played = again.post("/answer", ITO, {"answer": "keep takeda"})
        assert played.status_code == 200, played.text
        assert only_action(again)["choices"] == {"redirect_to": ""} and again.state()["pending"] is None


def test_the_attacker_withdraws_before_any_answer(new_battle, client):
    battle = new_battle("temple")
    seen: list[dict[str, Any]] = []
    client.app.state.battles.publish = lambda battle_id, event: seen.append(event)
    error_of(battle.post("/withdraw", PREFECTURE), 409, "conflict")  # nothing waits
    assert battle.post("/resolve", PREFECTURE, YOICHI_AT_TAKEDA).status_code == 202
    withdrawn = battle.post("/withdraw", PREFECTURE)
    assert withdrawn.status_code == 200 and withdrawn.json()["pending"] is None and withdrawn.json()["actions"] == 0
    assert seen[-1] == {"actions": 0, "kind": "withdrawn", "by": PREFECTURE}
    assert battle.post("/end-turn", PREFECTURE).status_code == 200  # the battle goes on
    error_of(battle.post("/answer", ITO, {"answer": "keep takeda"}), 409, "conflict")


def test_the_attacker_s_own_moves_leave_its_attack_withdrawable_sw_3_1(new_battle):
    """Jason's launcher fires with no line given: the attack waits for jason's own first move [SW-3.1], which he
    answers with his own token. Only another side's answer holds the attack (a secret acted on); his own does
    not, so it stays withdrawable until tyler answers, and jason withdraws it."""
    battle = new_battle("sawblade")
    assert battle.post("/resolve", JASON, SAWBLADE).status_code == 202
    pending = battle.state()["pending"]
    assert pending["awaiting"]["side"] == JASON and pending["withdrawable"] is True
    answered = battle.post("/answer", JASON, {"answer": "attacker:pass"})
    assert answered.status_code == 202, answered.text
    pending = battle.state()["pending"]
    assert pending["awaiting"]["side"] == TYLER and pending["choices"] == {"actions": ["attacker:pass"]}
    assert pending["withdrawable"] is True  # jason's own move holds nothing of tyler's
    withdrawn = battle.post("/withdraw", JASON)
    assert withdrawn.status_code == 200, withdrawn.text
    assert withdrawn.json()["pending"] is None and withdrawn.json()["actions"] == 0


def test_entered_dice_are_asked_of_the_attacker_once_ito_has_chosen(new_battle, client, tmp_path):
    battle = new_battle("temple", entered_dice=True)
    waiting = battle.post("/resolve", PREFECTURE, {**YOICHI_AT_TAKEDA, "ask": True})
    assert waiting.status_code == 202 and waiting.json()["pending"]["dice"] == "entered"
    ready = battle.post("/answer", ITO, {"answer": "nominate yojimbo"})
    assert ready.status_code == 202
    assert ready.json()["pending"]["awaiting"] == {"kind": "dice", "name": "dice", "who": PREFECTURE,
                                                   "side": PREFECTURE, "allowed": [], "labels": [],
                                                   "clause": None}
    error_of(battle.post("/answer", ITO, {"answer": "nominate yojimbo"}), 409, "pending")
    error_of(battle.post("/resolve", ITO, {"attacker": "takeda", "target": "yoichi"}), 409, "pending")
    error_of(battle.post("/resolve", PREFECTURE, {"attacker": "kenji", "target": "takeda"}), 409, "pending")
    error_of(battle.post("/resolve", PREFECTURE, {**YOICHI_AT_TAKEDA, "choices": {"redirect_to": "scout"}}),
             409, "pending")
    dice: dict[str, list[int]] = {}
    for _ in range(10):  # stage by stage, as the page asks a player
        answer = battle.post("/resolve", PREFECTURE, {**YOICHI_AT_TAKEDA, "dice": dice, "ask": True})
        assert answer.status_code == 200, answer.text
        if "next" not in answer.json():
            break
        question = answer.json()["next"]
        dice[question["stage"]] = [question["faces"][-1]] * question["count"]
    assert answer.status_code == 200, answer.text
    record = only_action(battle)
    assert record["choices"] == {"redirect_to": "yojimbo"} and record["dice"] == dice
    assert record == one_request(client, battle, record)
    assert replayed(client, battle, tmp_path)["battle"] == battle.state()["battle"]


def test_own_choices_are_still_sent_with_the_attack(new_battle):
    """Arcane Legions' side to fire from is the attacker's own [AL-3.1]: played in one request as before."""
    battle = new_battle("ford")
    side = battle.state()["side_to_act"]
    played = battle.post("/resolve", side, {"attacker": "archers", "target": "orc-band",
                                            "choices": {"to_side": "front"}})
    assert played.status_code == 200, played.text
    assert battle.state()["pending"] is None and only_action(battle)["choices"] == {"to_side": "front"}


def test_the_answer_body_is_described(client):
    schema = client.get("/openapi.json").json()
    body = schema["paths"]["/api/battles/{battle_id}/answer"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"] == {"$ref": "#/components/schemas/AnswerBody"}
    assert schema["components"]["schemas"]["AnswerBody"]["properties"]["answer"]["maxLength"] == 200
    assert "202" in schema["paths"]["/api/battles/{battle_id}/resolve"]["post"]["responses"]


def test_the_store_lets_nothing_else_write_while_an_attack_waits(new_battle, client):
    """Each write checks the pending attack in its own transaction: two answers racing, an action or an undo
    landing beside it, a withdrawal of a step already answered, all refused (409 conflict)."""
    battle = new_battle("temple")
    assert battle.post("/end-turn", PREFECTURE).status_code == 200  # an action to undo
    store = client.app.state.store
    version = store.version(battle.id)
    row = store.open_pending(battle.id, version, PREFECTURE, {"attacker": "yoichi", "target": "takeda",
                                                              "choices": {}}, False)
    with pytest.raises(ConflictError):
        store.open_pending(battle.id, version, PREFECTURE, {"attacker": "kenji", "target": "takeda",
                                                            "choices": {}}, False)
    answered = store.answer_pending(battle.id, row.step, {"attacker": "yoichi", "target": "takeda",
                                                          "choices": {"redirect_to": ""}}, 1)
    assert answered.step == row.step + 1 and store.pending(battle.id) == answered
    with pytest.raises(ConflictError):  # the same step answered twice: the later one finds it changed
        store.answer_pending(battle.id, row.step, {"attacker": "yoichi", "target": "takeda", "choices": {}}, 1)
    with pytest.raises(ConflictError):
        store.append(battle.id, version, "end-turn", PREFECTURE, {"action": "end-turn"})
    with pytest.raises(ConflictError):
        store.append(battle.id, version, "attack", PREFECTURE, {"action": "attack"}, closing=row.step)
    with pytest.raises(ConflictError):
        store.append(battle.id, version, "undo", PREFECTURE, {"action": "undo"})
    with pytest.raises(ConflictError):
        store.withdraw_pending(battle.id, row.step)
    assert store.version(battle.id) == version and store.pending(battle.id) == answered
    store.withdraw_pending(battle.id, answered.step)
    assert store.pending(battle.id) is None


def test_an_answer_read_before_a_withdrawal_never_plays_the_attack_withdrawn(new_battle, client, monkeypatch):
    """Ito's answer is read; before it is written prefecture withdraws and makes another attack (threads racing):
    the answer finds the attack it answered gone (409 conflict), and neither attack is played by it [BU-4.2]."""
    battle = new_battle("temple")
    assert battle.post("/resolve", PREFECTURE, YOICHI_AT_TAKEDA).status_code == 202
    battles, store = client.app.state.battles, client.app.state.store
    source = battles.attacks._source
    other = {"attacker": "kenji", "target": "takeda", "choices": {}}

    def swapped(*args: Any) -> Any:  # between the answer's read of the pending attack and its write
        monkeypatch.setattr(battles.attacks, "_source", source)
        store.withdraw_pending(battle.id, store.pending(battle.id).step)
        store.open_pending(battle.id, store.version(battle.id), PREFECTURE, other, False)
        return source(*args)

    monkeypatch.setattr(battles.attacks, "_source", swapped)
    error_of(battle.post("/answer", ITO, {"answer": "nominate yojimbo"}), 409, "conflict")
    assert battle.state()["actions"] == 0 and store.pending(battle.id).attack == other


def test_an_answer_naming_its_step_never_lands_on_another_attack_bu_4_2(new_battle):
    """An answer sent with the ``step`` of the pending attack it answers is refused once that attack is gone, even
    when its side made the same attack again: ito answers what ito saw."""
    battle = new_battle("temple")
    seen = battle.post("/resolve", PREFECTURE, YOICHI_AT_TAKEDA).json()["pending"]
    assert battle.post("/withdraw", PREFECTURE).status_code == 200
    again = battle.post("/resolve", PREFECTURE, YOICHI_AT_TAKEDA).json()["pending"]
    assert again["step"] != seen["step"]
    error = error_of(battle.post("/answer", ITO, {"answer": "nominate yojimbo", "step": seen["step"]}), 409, "conflict")
    assert "step" in error["message"] and error["path"] == "step"
    assert battle.state()["actions"] == 0 and battle.state()["pending"] == again
    error_of(battle.post("/answer", ITO, {"answer": "keep takeda", "step": "1"}), 422, "invalid_request")
    played = battle.post("/answer", ITO, {"answer": "nominate yojimbo", "step": again["step"]})
    assert played.status_code == 200, played.text


def test_an_attack_holding_another_side_s_answer_is_not_undone_by_its_attacker(new_battle, client):
    """Undo would take back what withdraw may not: an attack once another player has chosen in it [BU-4.2,
    SW-3.1]; an attack of the acting side's own choices only is undone as before."""
    battle = new_battle("temple")
    battle.post("/resolve", PREFECTURE, YOICHI_AT_TAKEDA)
    assert battle.post("/answer", ITO, {"answer": "keep takeda"}).status_code == 200
    client.app.state.battles.ledger._states.clear()  # as after a restart: the state before it is replayed
    error = error_of(battle.post("/undo", PREFECTURE), 403, "forbidden")
    assert error["clause"] == "BU-4.2" and error["awaiting"] == ITO and "ito" in error["message"]
    assert battle.state()["actions"] == 1
    # the state says so before anyone asks (a page disables its Undo), to every token alike
    stands = battle.state()["last_action_stands"]
    assert stands == {"message": error["message"], "clause": "BU-4.2"}

    swerve = new_battle("sawblade")
    swerve.post("/resolve", JASON, {**SAWBLADE, "choices": {"actions": ["attacker:pass"]}})
    assert swerve.post("/answer", TYLER, {"answer": "defender:swerve-target"}).status_code == 202
    assert swerve.post("/answer", JASON, {"answer": "attacker:pass"}).status_code == 202
    assert swerve.post("/answer", TYLER, {"answer": "defender:pass"}).status_code == 200
    error = error_of(swerve.post("/undo", JASON), 403, "forbidden")
    assert error["clause"] == "SW-3.1" and error["awaiting"] == TYLER
    assert swerve.post("/end-turn", JASON).status_code == 200 and swerve.post("/undo", JASON).status_code == 200

    own = new_battle("ford", undo="any")  # friendly play: an attack the server rolled may be taken back
    side = own.state()["side_to_act"]
    own.post("/resolve", side, {"attacker": "archers", "target": "orc-band", "choices": {"to_side": "front"}})
    assert own.state()["last_action_stands"] is None
    assert own.post("/undo", side).status_code == 200


# -- what each answer makes of the attack: the player asked does not choose blind ---------------------------------
def _line_state(ruleset: Any, battle: Any, attacker: str, target: str) -> str:
    """The line of fire as the drawing of that attack, made at that target, shows it (an oracle of its own: the
    whole drawing, every enemy checked)."""
    from rangefire.core.scene import Group, Segment
    from rangefire.draw import battle_scene

    def walk(items: Any) -> Any:
        for item in items:
            yield item
            if isinstance(item, Group):
                yield from walk(item.items)

    [line] = [s for s in walk(battle_scene(ruleset, battle, attacker, target).items)
              if isinstance(s, Segment) and s.kind == "line-of-fire"]
    return line.state


def _least_one(odds: Any, outcome: str) -> Fraction:
    dist = odds.to_dict()["outcomes"][outcome]["distribution"]
    return sum((Fraction(p) for k, p in dist.items() if int(k) >= 1), Fraction(0))


def test_the_nominator_sees_each_answer_s_target_range_line_and_odds_bu_4_2(new_battle, client):
    """ito, asked to keep takeda or nominate yojimbo, is shown for each answer the attack it makes: its target,
    range, line of fire and exact odds, as the library works that attack out."""
    battle = new_battle("temple")
    pending = battle.post("/resolve", PREFECTURE, YOICHI_AT_TAKEDA).json()["pending"]
    ruleset, start = scenario_of(client, battle)
    options = {o["answer"]: o for o in pending["awaiting"]["options"]}
    assert list(options) == ["keep takeda", "nominate yojimbo"] and pending["awaiting"]["options_left"] == 0
    for answer, target in (("keep takeda", "takeda"), ("nominate yojimbo", "yojimbo")):
        option = options[answer]
        chosen = ruleset.with_choice(Attack("yoichi", "takeda"), answer)
        plan = ruleset.check(start, chosen).plan
        odds = ruleset.odds(plan)
        assert option["legal"] is True and option["target"] == target == plan.target
        assert option["label"] == answer and option["then"] is False
        assert option["range"] == plan.details()["range"]
        assert option["line"]["state"] == _line_state(ruleset, start, "yoichi", target)
        assert "[BU-2.1]" in option["line"]["text"]
        assert Fraction(option["odds"]["at_least_one"]) == _least_one(odds, "wounds")
        assert {k: Fraction(v) for k, v in option["odds"]["events"].items()} == dict(odds.events)
        assert Fraction(option["odds"]["mean"]) == Fraction(odds.to_dict()["outcomes"]["wounds"]["mean"])
    # the nominee is nearer and in the open: a nomination changes the odds, which is why it is shown
    assert options["nominate yojimbo"]["range"]["inches"] < options["keep takeda"]["range"]["inches"]
    assert options["keep takeda"]["line"]["state"] == "hindered"
    assert options["nominate yojimbo"]["line"]["state"] == "clear"
    assert Fraction(options["nominate yojimbo"]["odds"]["at_least_one"]) > \
        Fraction(options["keep takeda"]["odds"]["at_least_one"])


def test_each_swerve_answer_reads_as_its_card_with_the_odds_it_leaves_sw_3_1(new_battle, client):
    """tyler's answers read as the cards say them ("play Smoke Screen: +10 speed", SW-3.5; "swerve Dune Buggy:
    +25 speed", SW-3.4), each with the attacker's chance the line then leaves under both players' best play."""
    battle = new_battle("ambush")
    waiting = battle.post("/resolve", JASON, {"attacker": "rail-gun", "target": "dune-buggy",
                                              "choices": {"actions": ["attacker:pass"]}})
    assert waiting.status_code == 202, waiting.text
    awaiting = battle.get(token=battle.sides[TYLER]).json()["pending"]["awaiting"]  # as tyler is asked
    assert awaiting["side"] == TYLER
    assert dict(zip(awaiting["allowed"], awaiting["labels"], strict=True)) == {
        "defender:pass": "pass", "defender:swerve-target": "swerve Dune Buggy: +25 speed",
        "defender:play:smoke-screen": "play Smoke Screen: +10 speed"}
    ruleset, start = scenario_of(client, battle)
    start = ruleset.seen_by(start, TYLER)  # the odds tyler is shown are worked out on what he sees [SW-1.4]
    for option in awaiting["options"]:
        attack = Attack("rail-gun", "dune-buggy", (("actions", ("attacker:pass", option["answer"])),))
        odds = ruleset.odds(ruleset.check(start, attack).plan)
        assert option["label"] == awaiting["labels"][awaiting["allowed"].index(option["answer"])]
        assert Fraction(option["odds"]["events"]["attacker_wins"]) == odds.events["attacker_wins"]
        assert option["range"] is None and option["line"] is None  # a card game measures no line
        assert option["then"] is (option["answer"] != "defender:pass")  # both passed: the line is complete
    assert Fraction(awaiting["options"][0]["odds"]["events"]["attacker_wins"]) == 1  # both pass: 40 v 25


def test_only_the_first_answers_are_worked_out(new_battle, client, monkeypatch):
    """The view works out at most MAX_OPTIONS answers (each is a check and its odds) and says how many it left."""
    from rangefire.web import pending as pending_module

    monkeypatch.setattr(pending_module, "MAX_OPTIONS", 1)
    battle = new_battle("ambush")
    waiting = battle.post("/resolve", JASON, {"attacker": "rail-gun", "target": "dune-buggy",
                                              "choices": {"actions": ["attacker:pass"]}})
    assert waiting.status_code == 202, waiting.text
    awaiting = battle.get(token=battle.sides[TYLER]).json()["pending"]["awaiting"]
    assert [o["answer"] for o in awaiting["options"]] == awaiting["allowed"][:1]
    assert awaiting["options_left"] == len(awaiting["allowed"]) - 1 == 2
