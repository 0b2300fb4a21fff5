"""Moves, marks, set-up edits and undo at the command line (DC-10, AL-10, BU-9, SW-9): each a line of one log,
and a whole game of three turns, written step by step, rebuilt exactly by ``replay``.

Each step below is run as a user runs it, on the battle the step before wrote (``--out`` onto one file, ``--log``
onto one log); the replay of the log on the example it began from gives the battle written last.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rangefire.core import Move
from rangefire.demo import example_path
from rangefire.record import move_action, read_log, take_back
from rangefire.rulesets import load_battle
from tests.commands import run as run_text


def run(*args: Any, ok: int | None = 0) -> Any:
    return run_text(*map(str, args), ok=ok)


def start(tmp_path: Path, example: str | Path) -> tuple[Path, Path, Path]:
    """The example (a name in examples/, or a scenario file a test wrote) copied to begin a game from."""
    source = example if isinstance(example, Path) else example_path(example)
    scenario = tmp_path / source.name
    shutil.copy(source, scenario)
    now = tmp_path / "now.yaml"
    shutil.copy(scenario, now)
    return scenario, now, tmp_path / "game.jsonl"


def play_through(tmp_path: Path, example: str | Path, steps: list[tuple[Any, ...]]) -> tuple[Path, Path, Path]:
    """Run each step on the battle now (``undo`` on the scenario the log starts from), logging every action."""
    scenario, now, log = start(tmp_path, example)
    for verb, *args in steps:
        on = scenario if verb == "undo" else now
        run(verb, on, *args, "--log", log, "--out", now)
    return scenario, now, log


def rebuilt_equals_written(tmp_path: Path, scenario: Path, now: Path, log: Path) -> dict[str, Any]:
    rebuilt = tmp_path / "rebuilt.yaml"
    data = json.loads(run("replay", scenario, log, "--out", rebuilt, "--json").stdout)
    ruleset, written = load_battle(now)
    _, again = load_battle(rebuilt)
    assert ruleset.dump(again) == ruleset.dump(written)
    return data


def kinds(log: Path) -> list[str]:
    return [json.loads(x)["action"] for x in log.read_text().splitlines()]


# -- a whole game, three turns, each game -----------------------------------------------------------------
def test_dress_on_the_colors_three_turns_with_moves_replay_exactly_dc_10_1_dc_10_3(tmp_path):
    """DC-10.1, DC-10.3, DC-9.2: three turns of the Wheatfield with moves, volleys, an undo and ends of turn, one
    log; the replay rebuilds the battle written step by step; a moved unit's volley leaves no gunsmoke (DC-7.1)."""
    scenario, now, log = play_through(tmp_path, "wheatfield.yaml", [
        ("move", "20th-maine", "--by", "0,1"),
        ("resolve", "-a", "20th-maine", "--seed", "4"),
        ("undo",),
        ("resolve", "-a", "83rd-pennsylvania", "--seed", "5"),
        ("end-turn",),
        ("move", "15th-alabama", "--turn", "-10"),
        ("resolve", "-a", "47th-alabama", "--seed", "6"),
        ("end-turn",),
        ("move", "battery-d", "--by", "1,0"),
        ("resolve", "-a", "battery-d", "--seed", "7"),
        ("end-turn",),
        ("move", "4th-texas", "--by", "0,-1"),
        ("end-turn",),
        ("resolve", "-a", "20th-maine", "--seed", "8"),
    ])
    assert kinds(log).count("move") == 4 and kinds(log).count("undo") == 1 and kinds(log).count("end-turn") == 4
    data = rebuilt_equals_written(tmp_path, scenario, now, log)
    assert data["battle"]["turn"]["number"] == 3
    battery = next(u for u in data["battle"]["units"] if u["id"] == "battery-d")
    assert not battery.get("gunsmoke", False)  # it moved, then fired: no marker [DC-7.1]
    assert [s["summary"] for s in data["steps"]][2] == "undo of line 2: 20th-maine's attack taken back"


def test_arcane_legions_three_turns_with_moves_replay_exactly_al_10_1_al_10_2(tmp_path):
    scenario, now, log = play_through(tmp_path, "ford.yaml", [
        ("move", "spearmen", "--by", "0,-1"),
        ("resolve", "-a", "archers", "-t", "orc-band", "--seed", "1"),
        ("end-turn",),
        ("move", "orc-band", "--turn", "90"),
        ("end-turn",),
        ("move", "archers", "--by", "-1,0"),
        ("undo",),
        ("move", "archers", "--by", "-0.5,0"),
        ("end-turn",),
        ("end-turn",),
        ("resolve", "-a", "archers", "-t", "orc-band", "--seed", "3"),
    ])
    data = rebuilt_equals_written(tmp_path, scenario, now, log)
    assert data["battle"]["turn"]["number"] == 3
    archers = next(u for u in data["battle"]["units"] if u["id"] == "archers")
    assert archers["position"] == [-0.5, 0]  # the undone move taken back, the second made


def test_bushido_three_turns_with_moves_marks_and_undo_replay_exactly_bu_9_1_bu_9_2(tmp_path):
    scenario, now, log = play_through(tmp_path, "temple.yaml", [
        ("mark", "kenji", "aimed"),
        ("move", "yoichi", "--by", "-1,0"),
        ("undo",),
        ("resolve", "-a", "yoichi", "-t", "takeda", "--seed", "2"),
        ("end-turn", "--activation"),
        ("move", "scout", "--by", "-2,0", "--run"),
        ("end-turn", "--activation"),
        ("end-turn",),
        ("mark", "yoichi", "prone"),
        ("end-turn", "--activation"),
        ("end-turn", "--activation"),
        ("end-turn",),
        ("mark", "yoichi", "prone", "--off"),
    ])
    data = rebuilt_equals_written(tmp_path, scenario, now, log)
    assert data["battle"]["turn"]["number"] == 3
    yoichi = next(u for u in data["battle"]["units"] if u["id"] == "yoichi")
    assert yoichi["position"] == [0, 0] and "prone" not in yoichi.get("states", [])
    assert kinds(log).count("mark") == 3


# -- what a user sees, and what is refused ---------------------------------------------------------------
def test_move_json_says_the_distance_and_the_clauses_dc_10_3(tmp_path):
    _, now, _ = start(tmp_path, "wheatfield.yaml")
    data = json.loads(run("move", now, "20th-maine", "--by", "3,4", "--json").stdout)
    assert data["action"] == "move" and data["legal"] is True and data["distance"] == 5
    assert {"DC-10.1", "DC-10.3", "DC-7.1"} <= {x["clause"] for x in data["log"]}
    assert now.read_text() == example_path("wheatfield.yaml").read_text()  # no --out: nothing written


def test_a_refused_move_exits_1_with_its_clause_and_writes_nothing_dc_10_1(tmp_path):
    """DC-10.1: a unit of the side not to act is refused (exit 1, the clause); neither the battle nor the log is
    touched."""
    _scenario, now, log = play_through(tmp_path, "wheatfield.yaml", [("end-turn",)])
    before = (now.read_bytes(), log.read_bytes())
    proc = run("move", now, "20th-maine", "--by", "0,1", "--out", now, "--log", log, ok=1)
    assert "[DC-10.1]" in proc.stderr and "confederate's turn" in proc.stderr
    assert (now.read_bytes(), log.read_bytes()) == before


@pytest.mark.parametrize(("args", "needle"), [
    (("20th-maine", "--to", "nan,1"), "--to 'nan,1'"),
    (("20th-maine", "--to", "1e400,0"), "--to '1e400,0'"),
    (("20th-maine", "--by", "0." + "1" * 41 + ",0"), "--by"),
    (("20th-maine", "--to", "1,2,3"), "give two numbers X,Y"),
    (("20th-maine", "--to", "1,2", "--by", "1,1"), "not both"),
    (("ghost", "--by", "0,1"), "'ghost' is not in this battle"),
    (("20th-maine", "--by", "0,1", "--log", "{log}"), "--log without --out"),
    (("20th-maine", "--formation", "wedge"), "wedge"),
])
def test_bad_moves_are_refused_in_our_words_exit_2_nothing_written(tmp_path, args, needle):
    _, now, log = start(tmp_path, "wheatfield.yaml")
    before = now.read_bytes()
    proc = run("move", now, *(a.replace("{log}", str(log)) for a in args), ok=2)
    assert needle in proc.stderr and proc.stderr.startswith("rangefire:"), proc.stderr
    assert now.read_bytes() == before and not log.exists()


def test_undo_with_nothing_to_take_back_and_of_another_battle(tmp_path):
    """The battle the log starts from is the scenario undo replays on (the battle moved since is refused, nothing
    written); once every action is taken back, nothing is left to take back."""
    scenario, now, log = play_through(tmp_path, "wheatfield.yaml", [("move", "20th-maine", "--by", "0,1")])
    before = log.read_bytes()
    proc = run("undo", now, "--log", log, "--out", tmp_path / "x.yaml", ok=2)
    assert "is not the battle" in proc.stderr and "starts from" in proc.stderr
    assert log.read_bytes() == before and not (tmp_path / "x.yaml").exists()
    run("undo", scenario, "--log", log, "--out", now)
    proc = run("undo", scenario, "--log", log, "--out", now, ok=2)
    assert "nothing to take back" in proc.stderr


def test_set_up_edits_at_the_command_line_dc_10_4(tmp_path):
    """DC-10.4: place, change and remove before the first turn, each logged and replayed; refused (exit 1) once a
    turn is recorded."""
    scenario, now, log = play_through(tmp_path, "wheatfield.yaml", [
        ("place", "units", "2nd-wisconsin",
         "{side: union, stands: 3, weapon: rifled-musket, formation: line, position: [30, 0], facing: 0}"),
        ("change", "units", "2nd-wisconsin", "{stands: 2}"),
        ("place", "terrain", "rail-fence", "{kind: light, polygon: [[28, 2], [34, 2], [34, 2.5], [28, 2.5]]}"),
        ("remove", "units", "battery-d"),
    ])
    data = rebuilt_equals_written(tmp_path, scenario, now, log)
    ids = [u["id"] for u in data["battle"]["units"]]
    assert "battery-d" not in ids and "2nd-wisconsin" in ids
    assert next(u for u in data["battle"]["units"] if u["id"] == "2nd-wisconsin")["stands"] == 2
    run("end-turn", now, "--out", now, "--log", log)
    proc = run("remove", now, "units", "20th-maine", "--out", now, "--log", log, ok=1)
    assert "[DC-10.4]" in proc.stderr
    proc = run("place", now, "units", "x", "[1, 2]", ok=2)
    assert "DATA: must be a mapping" in proc.stderr


# -- the library: a move and its undo ----------------------------------------------------------------------
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dx=st.fractions(min_value=-3, max_value=3, max_denominator=4),
       dy=st.fractions(min_value=-3, max_value=3, max_denominator=4),
       uid=st.sampled_from(["20th-maine", "83rd-pennsylvania", "15th-alabama", "47th-alabama"]))
def test_any_legal_move_then_undo_gives_the_battle_back_exactly_dc_10_1(dx, dy, uid):
    """DC-10.1: a legal move changes no other unit, and taking it back (the record's undo) gives the battle back
    exactly."""
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    move = Move(uid, by=(Fraction(dx), Fraction(dy)))
    checked = ruleset.check_move(battle, move)
    if not checked.is_legal:
        return
    after = checked.after
    assert [u for u in after.units if u.id != uid] == [u for u in battle.units if u.id != uid]
    current, restored, undo = take_back(ruleset, battle, [move_action(ruleset, move, checked)])
    assert ruleset.dump(current) == ruleset.dump(after)
    assert ruleset.dump(restored) == ruleset.dump(battle) and undo.takes_back == 1


def test_the_log_holds_the_undo_with_what_it_took_back(tmp_path):
    _, _, log = play_through(tmp_path, "wheatfield.yaml", [("resolve", "-a", "20th-maine", "--seed", "4"),
                                                           ("undo",)])
    first, undo = read_log(log)
    assert undo.action == "undo" and undo.takes_back == 1 and undo.what == "20th-maine's attack"
    assert undo.dice == first.dice and undo.battle_before == first.battle_after
    assert undo.battle_after == first.battle_before


# -- swerve: cards move between missions -------------------------------------------------------------------
TWO_MISSIONS = """\
# two missions, a card of each player at each, so that a card moves to another mission (SW-9.1)
ruleset: swerve
name: two missions
players:
  jason: {deck: [5, 10, 0, 15, 5, 10], deck_order: known}
  tyler: {deck: [10, 0, 5, 5, 10, 0], deck_order: known}
cards:
  - {id: launcher, owner: jason, type: weapon, name: Sawblade Launcher, mission: canyon,
     timing: main, ranged: {accuracy: 30, damage: 1, cost: swerve-self, targets: [unit, vehicle]}}
  - {id: buggy, owner: jason, type: vehicle, name: Buggy, speed: 10, toughness: 2, mission: mesa}
  - {id: road-warrior, owner: tyler, type: unit, name: Road Warrior, speed: 20, toughness: 4, mission: canyon}
  - {id: truck, owner: tyler, type: vehicle, name: Truck, speed: 5, mission: mesa}
  - {id: cannon, owner: tyler, type: weapon, name: Cannon, mission: mesa,
     timing: main, ranged: {accuracy: 25, damage: 1, cost: swerve-self, targets: [unit, vehicle]}}
turn: {number: 1, side: jason}
"""


def test_swerve_three_turns_with_moves_between_missions_replay_exactly_sw_9_1_sw_8_1(tmp_path):
    """SW-9.1, SW-8.1: three turns at two missions, one log: jason's launcher fires at the canyon and moves to the
    mesa (the move taken back, the buggy moved instead), tyler's cannon moves to the canyon and fires at the buggy
    there, jason's launcher, unswerved at the start of his turn (SW-8.1), fires again; the replay rebuilds the
    battle written step by step; a moved card keeps its swerved state and damage counters (SW-9.1)."""
    written = tmp_path / "written" / "missions.yaml"
    written.parent.mkdir()
    written.write_text(TWO_MISSIONS)
    passes = ("--actions", "attacker:pass,defender:pass")
    scenario, now, log = play_through(tmp_path, written, [
        ("resolve", "-a", "launcher", "-t", "road-warrior", "--seed", "1", *passes),
        ("move", "launcher", "--mission", "mesa"),
        ("undo",),
        ("move", "buggy", "--mission", "canyon"),
        ("end-turn",),
        ("move", "cannon", "--mission", "canyon"),
        ("resolve", "-a", "cannon", "-t", "buggy", "--seed", "2", *passes),
        ("end-turn",),
        ("resolve", "-a", "launcher", "-t", "road-warrior", "--seed", "3", *passes),
        ("move", "launcher", "--mission", "mesa"),
        ("end-turn",),
        ("move", "road-warrior", "--mission", "mesa"),
        ("end-turn",),
        ("resolve", "-a", "launcher", "-t", "road-warrior", "--seed", "4", "--actions", "attacker:pass"),
    ])
    assert kinds(log).count("move") == 5 and kinds(log).count("undo") == 1
    assert kinds(log).count("end-turn") == 4 and kinds(log).count("attack") == 4
    data = rebuilt_equals_written(tmp_path, scenario, now, log)
    assert data["battle"]["turn"] == {"number": 3, "side": "jason"}
    cards = {c["id"]: c for c in data["battle"]["cards"]}
    assert [s["summary"] for s in data["steps"]][2].startswith("undo of line 2")
    assert [cards[c]["mission"] for c in ("buggy", "cannon", "truck")] == ["canyon", "canyon", "mesa"]
    assert cards["launcher"]["mission"] == cards["road-warrior"]["mission"] == "mesa"
    assert cards["launcher"]["swerved"] is True  # swerved to fire in turn 3, after it was unswerved [SW-8.1]
    # road-warrior moved with its 2 counters (SW-9.1); in the last attack tyler, playing his best, swerves it
    assert cards["road-warrior"]["counters"] == 2 and cards["road-warrior"]["swerved"] is True
    assert cards["buggy"]["counters"] == 1
