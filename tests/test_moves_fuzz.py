"""Hostile input to the move, set-up and undo commands: refused in our words, naming the file, nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rangefire.demo import example_path
from tests.test_moves_cli import play_through, run


def test_undo_of_a_hand_edited_log_names_the_log_and_its_line_writes_nothing(tmp_path: Path) -> None:
    """A log line whose move no longer replays is refused by undo as by replay: the log's file and line named
    (exit 2), neither the log nor --out touched."""
    scenario, _now, log = play_through(tmp_path, "wheatfield.yaml", [("move", "20th-maine", "--by", "0,1")])
    record = json.loads(log.read_text())
    record["move"]["by"] = [0, 3]
    log.write_text(json.dumps(record) + "\n")
    before, out = log.read_bytes(), tmp_path / "undone.yaml"
    for verb in (("replay", scenario, log), ("undo", scenario, "--log", log, "--out", out)):
        proc = run(*verb, ok=2)
        assert proc.stderr.startswith(f"rangefire: {log}: line 1: "), proc.stderr
        assert "Traceback" not in proc.stderr
    assert log.read_bytes() == before and not out.exists()


def test_a_move_is_not_appended_to_the_log_of_another_game(tmp_path: Path) -> None:
    """A Bushido game's log given to a Dress on the Colors move is refused before anything is written: appended,
    the move would stop every later replay of that log at its line."""
    _, _, log = play_through(tmp_path, "temple.yaml", [("mark", "yoichi", "prone")])
    before, out = log.read_bytes(), tmp_path / "moved.yaml"
    field = tmp_path / "wheatfield.yaml"
    field.write_bytes(example_path("wheatfield.yaml").read_bytes())
    proc = run("move", field, "20th-maine", "--by", "0,1", "--log", log, "--out", out, ok=2)
    assert proc.stderr.startswith(f"rangefire: --log {log}: the log is of a game of bushido"), proc.stderr
    assert log.read_bytes() == before and not out.exists()


@pytest.mark.parametrize(("field", "value", "needle"), [
    ("what", "[bold]another action", "line 2: what: the undo takes back"),
    ("dice", {}, "line 2: dice: the action taken back (line 1) had"),
])
def test_an_undo_line_edited_by_hand_does_not_replay(tmp_path: Path, field: str, value: Any, needle: str) -> None:
    """An undo records what it took back and that action's dice; a record that says otherwise is refused by replay
    and undo (exit 2, the file and line named) rather than replayed as "every step as recorded"."""
    scenario, _now, log = play_through(tmp_path, "wheatfield.yaml", [("resolve", "-a", "20th-maine", "--seed", "4")])
    run("undo", scenario, "--log", log, "--out", tmp_path / "now.yaml")
    attack, undo = (json.loads(x) for x in log.read_text().splitlines())
    assert undo["dice"] == attack["dice"]
    undo[field] = value
    log.write_text(json.dumps(attack) + "\n" + json.dumps(undo) + "\n")
    proc = run("replay", scenario, log, ok=2)
    assert proc.stderr.startswith(f"rangefire: {log}: {needle}"), proc.stderr
    proc = run("undo", scenario, "--log", log, "--out", tmp_path / "x.yaml", ok=2)
    assert needle in proc.stderr and not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize("verb", [("end-turn",), ("resolve", "-a", "20th-maine", "--seed", "1")])
def test_an_end_of_turn_or_an_attack_is_not_appended_to_the_log_of_another_game(tmp_path: Path, verb: Any) -> None:
    """As for moves: resolve and end-turn refuse a log of another game before writing anything."""
    _, _, log = play_through(tmp_path, "temple.yaml", [("mark", "yoichi", "prone")])
    before, out = log.read_bytes(), tmp_path / "after.yaml"
    field = tmp_path / "wheatfield.yaml"
    field.write_bytes(example_path("wheatfield.yaml").read_bytes())
    proc = run(verb[0], field, *verb[1:], "--log", log, "--out", out, ok=2)
    assert "the log is of a game of bushido" in proc.stderr, proc.stderr
    assert log.read_bytes() == before and not out.exists()


def test_a_replayed_line_must_give_the_battle_it_records_after_it(tmp_path: Path) -> None:
    """A line whose log lines still match but whose recorded battle_after is another battle's (a log played on
    another battle, or edited) is refused by replay at its line."""
    scenario, _now, log = play_through(tmp_path, "wheatfield.yaml", [("move", "20th-maine", "--by", "0,1"),
                                                                     ("move", "83rd-pennsylvania", "--by", "0,1")])
    first, second = (json.loads(x) for x in log.read_text().splitlines())
    first["battle_after"] = second["battle_after"]
    log.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    proc = run("replay", scenario, log, ok=2)
    assert "line 1: the battle after 20th-maine's move is not the one the record holds" in proc.stderr, proc.stderr


def test_a_facing_past_a_whole_turn_is_written_within_it_dc_10_1(tmp_path: Path) -> None:
    """DC-10.1, AL-10.1: --facing 720 faces as 0 does, and is written so (it was written 720, logged 0° to 720°)."""
    for example, unit in (("wheatfield.yaml", "20th-maine"), ("ford.yaml", "archers")):
        now = tmp_path / example
        now.write_bytes(example_path(example).read_bytes())
        data = json.loads(run("move", now, unit, "--facing", "750", "--json").stdout)
        moved = next(u for u in data["battle"]["units"] if u["id"] == unit)
        assert moved["facing"] == 30, moved
