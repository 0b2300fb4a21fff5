"""``GET /api/battles/{id}/advice``: a side's legal attacks ranked, as ``rangefire advise --json`` ranks them,
read with any token of the battle (a side's own by default)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")

from tests.commands import run
from tests.web.conftest import bearer, error_of
from tests.web.test_api import battle_file


def test_advice_is_the_command_lines_for_each_side_and_outcome(new_battle, tmp_path):
    battle = new_battle("ford")
    path = battle_file(tmp_path, battle)
    for side, query, flags in (("legion", "", []), ("horde", "&outcome=critical", ["--outcome", "critical"]),
                               ("legion", "&refused=true", ["--all"])):
        answer = battle.get(f"/advice?side={side}{query}")
        assert answer.status_code == 200, answer.text
        cli = run("advise", str(path), "--side", side, *flags, "--json", ok=None)
        assert answer.json() == json.loads(cli.stdout)
    ranked = battle.get("/advice?side=legion").json()["ranked"]
    assert ranked[-1]["choices"] == {"order": "close", "from_side": "front", "to_side": "front"}  # [AL-8.1]
    listed = battle.get("/advice?side=legion&refused=true").json()["refused"]
    assert listed[0]["refusals"][0]["clause"] == "AL-2.1"


def test_a_sides_token_is_advised_for_its_own_side_and_a_spectator_names_one(new_battle, client):
    battle = new_battle("wheatfield")
    own = client.get(battle.url("/advice"), headers=bearer(battle.sides["confederate"]))
    assert own.status_code == 200 and own.json()["side"] == "confederate"
    assert {a["attacker"] for a in own.json()["ranked"]} <= {"15th-alabama", "4th-texas", "47th-alabama"}
    error_of(battle.get("/advice"), 400, "invalid_input")  # the spectator's token: no side of its own
    assert battle.get("/advice?side=union").json()["side"] == "union"


def test_advice_refusals(new_battle, client):
    battle = new_battle("temple")
    none = battle.get("/advice?side=ito").json()  # no legal attack: an answer, not an error
    assert none["ranked"] == [] and none["refused_count"] == 8
    assert "sides: prefecture, ito" in error_of(battle.get("/advice?side=martians"), 400,
                                                "invalid_input")["message"]
    assert "its outcomes are wounds, success_level" in error_of(battle.get("/advice?side=ito&outcome=hits"), 400,
                                                                "invalid_input")["message"]
    error_of(battle.get("/advice?side=" + "x" * 65), 422, "invalid_request")
    error_of(client.get(battle.url("/advice?side=ito")), 401, "unauthorized")
    error_of(client.get(battle.url("/advice?side=ito"), headers=bearer(new_battle("ford").spectator)), 401,
             "unauthorized")
