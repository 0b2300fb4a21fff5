"""Bad input to the turn and table commands (replay, resolve --log, end-turn, targets, show): each a clean
one-line error in the project's own words, or a correct result; never a traceback, a hang or a half-written file.

Each test is named after a defect a fuzzing run found in these commands.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from rangefire.analysis.targets import MAX_PAIRS, targets
from rangefire.core import Attack, LimitError, SeededSource
from rangefire.demo import example_path
from rangefire.draw import MAX_PNG_SIDE, draw_battle, write_drawing
from rangefire.record import LogError, append_action, attack_action, check_appendable, read_log, replay
from rangefire.rulesets import battle_from_mapping, load_battle
from tests.commands import run

#: The validation library's phrases: never shown to a user.
NOT_OURS = re.compile(r"input should|instance of|valid dictionary|valid tuple|valid string|pydantic", re.I)


def first_attack_line() -> dict[str, Any]:
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    resolution, _ = ruleset.play(battle, Attack("20th-maine"), SeededSource(1))
    return attack_action(ruleset, Attack("20th-maine"), resolution).model_dump(mode="json")


def write_lines(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def replayed(path: Path) -> Any:
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    return replay(ruleset, battle, read_log(path))


# -- the log: every key of the wrong shape, in our own words ---------------------------------------------------------
WRONG = [("attacker", 5, "attacker"), ("attacker", None, "attacker"), ("target", [], "target"),
         ("choices", [1], "choices"), ("dice", "hit", "dice"), ("dice", {"hit": "6"}, "dice.hit"),
         ("dice", {"hit": [-1, 2]}, "dice.hit[0]"), ("dice", {"hit": [True]}, "dice.hit[0]"),
         ("outcome", 3, "outcome"), ("log", {}, "log"), ("log", [5], "log[0]"),
         ("log", [{"clause": 1}], "log[0].clause"),
         ("ruleset", {"a": 1}, "ruleset"), ("ruleset", "", "ruleset"), ("attacker", "x" * 100, "attacker"),
         ("dice", {"hit": [1] * 10_001}, "dice.hit"), ("extra", 1, "extra")]


@pytest.mark.parametrize(("key", "value", "where"), WRONG, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(WRONG)])
def test_a_log_line_of_the_wrong_shape_is_refused_in_our_own_words_not_the_validators(tmp_path, key, value, where):
    log = write_lines(tmp_path / "turn.jsonl", {**first_attack_line(), key: value})
    with pytest.raises(LogError) as caught:
        read_log(log)
    message = str(caught.value)
    assert "line 1" in message and f": {where}:" in message, message
    assert not NOT_OURS.search(message), message
    assert "\n" not in message


@pytest.mark.parametrize("value", [True, 1.0, "1"])
def test_a_log_format_of_true_or_one_point_zero_is_not_format_1(tmp_path, value):
    log = write_lines(tmp_path / "turn.jsonl", {**first_attack_line(), "format": value})
    with pytest.raises(LogError, match="line 1: format: must be 1"):
        read_log(log)


@pytest.mark.parametrize("value", ["yes", 1, "true", None])
def test_an_end_turn_activation_that_is_not_true_or_false_is_refused(tmp_path, value):
    log = write_lines(tmp_path / "turn.jsonl", {"format": 1, "action": "end-turn", "activation": value, "log": []})
    with pytest.raises(LogError, match="line 1: activation: must be true or false") as caught:
        read_log(log)
    assert not NOT_OURS.search(str(caught.value))


def test_recorded_dice_of_a_stage_the_game_lacks_name_the_line(tmp_path):
    record = first_attack_line()
    log = write_lines(tmp_path / "turn.jsonl", {**record, "dice": {**record["dice"], "nope": [1]}})
    with pytest.raises(LogError, match=r"^line 1: the recorded dice do not fit the attack: .*'nope'"):
        replayed(log)


# -- appending -------------------------------------------------------------------------------------------------------
def test_a_read_only_log_is_not_appended_to_even_by_the_superuser(tmp_path):
    """As ``--out`` refuses to replace a read-only file, a log marked read-only is not appended to."""
    log = write_lines(tmp_path / "turn.jsonl", first_attack_line())
    log.chmod(0o444)
    before = log.read_bytes()
    with pytest.raises(LogError, match=r"turn\.jsonl.*read-only"):
        check_appendable(log)
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    resolution, _ = ruleset.play(battle, Attack("20th-maine"), SeededSource(1))
    with pytest.raises(LogError, match="read-only"):
        append_action(log, attack_action(ruleset, Attack("20th-maine"), resolution))
    assert log.read_bytes() == before
    proc = run("resolve", str(example_path("wheatfield.yaml")), "-a", "20th-maine", "--seed", "1", "--log", str(log),
               ok=2)
    assert proc.stderr.startswith("rangefire: ") and "read-only" in proc.stderr
    assert log.read_bytes() == before and stat.S_IMODE(log.stat().st_mode) == 0o444


def _append_many(args: tuple[str, int]) -> str:
    path, count = args
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    resolution, _ = ruleset.play(battle, Attack("20th-maine"), SeededSource(1))
    action = attack_action(ruleset, Attack("20th-maine"), resolution)
    try:
        for _ in range(count):
            append_action(path, action)
    except LogError as exc:
        return str(exc)
    return ""


def test_concurrent_appends_are_never_refused_as_a_torn_line_and_never_interleave(tmp_path):
    """Several processes appending to one log at once: each line whole, none refused because another writer's
    line was being written as it looked at the end of the file."""
    log = tmp_path / "turn.jsonl"
    with multiprocessing.get_context("fork").Pool(4) as pool:
        errors = pool.map(_append_many, [(str(log), 150)] * 4)
    assert errors == [""] * 4
    lines = log.read_bytes().split(b"\n")
    assert lines.pop() == b"" and len(lines) == 600
    assert all(json.loads(line)["attacker"] == "20th-maine" for line in lines)
    assert len(read_log(log)) == 600


# -- targets: a large battle answers in seconds or is refused clearly --------------------------------------------------
def many_units(count: int) -> dict[str, Any]:
    units = []
    for i in range(count):
        union = i % 2 == 0
        units.append({"id": f"u{i}", "side": "union" if union else "confederate", "stands": 4,
                      "weapon": "rifled-musket", "formation": "line", "position": [(i // 2) * 3, 0 if union else 12],
                      "facing": 0 if union else 180})
    return {"ruleset": "dress-on-the-colors", "units": units}


def test_targets_of_more_pairs_than_answer_in_seconds_are_refused_at_once_naming_side_and_attacker():
    """The library says the way out in its own words (one side, one unit's targets), a command line's or a
    program's to map onto its own options: no flag in the text a web page shows too."""
    ruleset, battle = battle_from_mapping(many_units(2 * (int(MAX_PAIRS**0.5) + 1)))
    with pytest.raises(LimitError, match=r"ask for one side or one unit's targets$"):
        targets(ruleset, battle)
    # one unit's targets stay within the bound and are answered
    rows = targets(ruleset, battle, attacker="u0")
    assert len(rows) == len(ruleset.enemies(battle, "u0"))


def test_targets_of_a_side_too_many_pairs_asks_for_one_unit_not_for_the_side_given():
    """A side named and still past the bound: the way out is one unit's targets; asking for one side told the
    user to give what they had given."""
    ruleset, battle = battle_from_mapping(many_units(2 * (int(MAX_PAIRS**0.5) + 1)))
    with pytest.raises(LimitError, match=r"side union has \d+ attacker and enemy pairs") as refused:
        targets(ruleset, battle, side="union")
    said = str(refused.value)
    assert "one side" not in said and said.endswith("ask for one unit's targets")


def test_targets_of_many_units_through_the_cli_refused_in_one_line_or_answered_by_side(tmp_path):
    side = next(k for k in range(1, 1000) if 2 * k * k > MAX_PAIRS)  # both sides past the bound, one within it
    scenario = tmp_path / "many.json"
    scenario.write_text(json.dumps(many_units(2 * side)), encoding="utf-8")
    proc = run("targets", str(scenario), ok=2)
    assert proc.stderr.startswith("rangefire: ") and proc.stderr.count("\n") == 1
    assert "--side" in proc.stderr and "--attacker" in proc.stderr
    run("targets", str(scenario), "--side", "union", "--json")


# -- show: a huge table -----------------------------------------------------------------------------------------------
def test_a_png_of_a_table_a_million_inches_wide_is_drawn_scaled_down_not_a_cairo_traceback(tmp_path):
    pytest.importorskip("cairosvg")
    data = json.loads(json.dumps(many_units(4)))
    data["units"][-1]["position"] = [1_000_000, 1_000_000]
    ruleset, battle = battle_from_mapping(data)
    out = tmp_path / "huge.png"
    write_drawing(draw_battle(ruleset, battle, "u0"), out)
    head = out.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    assert 0 < width <= MAX_PNG_SIDE and 0 < height <= MAX_PNG_SIDE
    scenario = tmp_path / "huge.json"
    scenario.write_text(json.dumps(data), encoding="utf-8")
    run("show", str(scenario), "--out", str(tmp_path / "cli.png"))


# -- a log that is the battle's own file ------------------------------------------------------------------------------
@pytest.mark.parametrize("verb", ["resolve", "end-turn"])
@pytest.mark.parametrize("which", ["scenario", "out"])
def test_a_log_naming_the_scenario_or_out_file_is_refused_and_no_scenario_is_spoilt(tmp_path, verb, which):
    """``--log`` naming the scenario (or the ``--out`` file) appended a JSON line to the battle's YAML, leaving a
    file no command could read again."""
    scenario = tmp_path / "battle.yaml"
    scenario.write_bytes(example_path("wheatfield.yaml").read_bytes())
    out = tmp_path / "after.yaml"
    log = scenario if which == "scenario" else out
    args = ["-a", "20th-maine", "--seed", "1"] if verb == "resolve" else []
    proc = run(verb, str(scenario), *args, "--out", str(out), "--log", str(log), ok=2)
    assert proc.stderr.startswith("rangefire: ") and proc.stderr.count("\n") == 1 and "--log" in proc.stderr
    assert scenario.read_bytes() == example_path("wheatfield.yaml").read_bytes()
    assert not out.exists()


def test_a_file_that_is_not_a_log_is_not_appended_to(tmp_path):
    """A scenario (YAML or one-line JSON) named as a log: its first line is no action, so nothing is appended."""
    for name, text in (("battle.yaml", example_path("wheatfield.yaml").read_text(encoding="utf-8")),
                       ("battle.json", json.dumps({"ruleset": "dress-on-the-colors", "units": []}) + "\n")):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(LogError, match="not a log"):
            check_appendable(path)
        assert path.read_text(encoding="utf-8") == text


# -- end-turn at the last turn a battle file records ------------------------------------------------------------------
LAST_TURN = {"wheatfield.yaml": "turn: {number: 100000, side: confederate}\n",
             "ford.yaml": "turn: {number: 100000, side: horde}\n",
             "temple.yaml": "turn: {number: 100000}\n",
             "ambush.yaml": "turn: {number: 100000, side: tyler}\n"}


@pytest.mark.parametrize("example", sorted(LAST_TURN))
def test_ending_turn_100000_is_refused_in_one_line_not_a_validation_traceback(tmp_path, example):
    """The turn after the last one a battle file can record (turn.number at most 100000): a clean refusal, the
    battle not written, rather than the model's own traceback."""
    scenario = tmp_path / example
    scenario.write_text(example_path(example).read_text(encoding="utf-8") + LAST_TURN[example], encoding="utf-8")
    out = tmp_path / "after.yaml"
    proc = run("end-turn", str(scenario), "--out", str(out), ok=2)
    assert proc.stderr.startswith(f"rangefire: {scenario}: ") and proc.stderr.count("\n") == 1
    assert "100000" in proc.stderr and not out.exists()
