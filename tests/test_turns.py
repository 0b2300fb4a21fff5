"""A turn's record (rangefire.record) and the turn commands: resolve --log, end-turn, replay.

The log is one JSON line per action; a replay rebuilds the battle from the scenario and the log, checking every
step, and must give the battle that ``--out`` wrote along the way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rangefire.core import Attack, SeededSource
from rangefire.demo import example_path
from rangefire.record import (
    MAX_LINE_BYTES,
    AttackAction,
    EndTurnAction,
    LogError,
    append_action,
    attack_action,
    end_turn_action,
    read_log,
    replay,
)
from rangefire.rulesets import load_battle
from tests.commands import run_here


def run(*args: Any, ok: int | None = 0) -> subprocess.CompletedProcess[str]:
    """The real command line, never at a terminal (nothing is asked)."""
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "200"})
    if ok is not None:
        assert proc.returncode == ok, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    return proc


def logged_turn(tmp_path: Path, example: str, steps: list[tuple[str, ...]]) -> tuple[Path, Path, Path]:
    """Play ``steps`` through the command line, each on the battle the last one wrote, logging every action:
    ``("resolve", args...)`` or ``("end-turn", args...)``. Returns the scenario, the log and the last --out.
    Each step runs through the command's entry point in this process (the tests' own commands in one of their
    own, as ``run``)."""
    scenario = tmp_path / example
    scenario.write_bytes(example_path(example).read_bytes())
    log, out = tmp_path / "turn.jsonl", tmp_path / "after.yaml"
    current = scenario
    for verb, *args in steps:
        run_here(*map(str, (verb, current, *args, "--log", log, "--out", out)))
        current = out
    return scenario, log, out


def replay_equals_out(tmp_path: Path, scenario: Path, log: Path, out: Path) -> dict[str, Any]:
    """Replay the log through the command line: the rebuilt battle equals the one --out wrote (as mappings)."""
    replayed = tmp_path / "replayed.yaml"
    data = json.loads(run_here(*map(str, ("replay", scenario, log, "--out", replayed, "--json"))).stdout)
    ruleset, written = load_battle(out)
    _, rebuilt = load_battle(replayed)
    assert ruleset.dump(rebuilt) == ruleset.dump(written)
    assert data["battle"] == ruleset.dump(written)
    return data


# -- the whole turn of Dress on the Colors through the command line ----------------------------------------
WHEATFIELD_TURN = [("resolve", "-a", "20th-maine", "--seed", "1"), ("resolve", "-a", "battery-d", "--seed", "2"),
                   ("end-turn",), ("resolve", "-a", "15th-alabama", "--seed", "3"),
                   ("resolve", "-a", "47th-alabama", "--seed", "4")]


def test_a_logged_turn_replays_to_the_battle_written_by_out_dc_9_1_dc_9_2_dc_9_3(tmp_path):
    """DC-9.1, DC-9.2, DC-9.3: two union volleys, the end of the turn, two confederate volleys, each logged;
    the replay checks every step and gives the battle the last --out wrote."""
    scenario, log, out = logged_turn(tmp_path, "wheatfield.yaml", WHEATFIELD_TURN)
    lines = log.read_text().splitlines()
    assert [json.loads(x)["action"] for x in lines] == ["attack", "attack", "end-turn", "attack", "attack"]
    first = json.loads(lines[0])
    assert set(first) == {"format", "action", "ruleset", "attacker", "target", "choices", "dice", "outcome", "log",
                          "battle_before", "battle_after", "dice_source"}  # the digests, where the dice came from
    assert first["format"] == 1 and first["ruleset"] == "dress-on-the-colors" and first["dice"]["hit"]
    assert first["dice_source"] == "seeded"
    assert all(set(entry) == {"clause", "text"} for entry in first["log"])
    third = json.loads(lines[2])
    assert third == {"format": 1, "action": "end-turn", "activation": False, "log": third["log"],
                     "battle_before": json.loads(lines[1])["battle_after"], "battle_after": third["battle_after"]}
    data = replay_equals_out(tmp_path, scenario, log, out)
    assert [s["line"] for s in data["steps"]] == [1, 2, 3, 4, 5]
    assert data["side_to_act"] == "confederate" and data["battle"]["turn"] == {"number": 1, "side": "confederate",
                                                                            "order": ["union", "confederate"]}
    text = run("replay", scenario, log).stdout
    assert "line 3" in text and "end of the turn: confederate to act" in text


def test_second_volley_refused_through_the_cli_and_nothing_written_dc_9_1(tmp_path):
    """DC-9.1: resolve refuses a unit that has fired this turn (exit 1, the clause), and neither --out nor
    --log is touched."""
    _, log, out = logged_turn(tmp_path, "wheatfield.yaml", WHEATFIELD_TURN[:1])
    before_out, before_log = out.read_bytes(), log.read_bytes()
    proc = run("resolve", out, "-a", "20th-maine", "--seed", "9", "--log", log, "--out", out, ok=1)
    assert "[DC-9.1]" in proc.stderr and "already fired" in proc.stderr
    assert out.read_bytes() == before_out and log.read_bytes() == before_log
    proc = run("check", out, "-a", "20th-maine", "--json", ok=1)
    assert json.loads(proc.stdout)["refusals"][0]["clause"] == "DC-9.1"


def test_end_turn_prints_its_clauses_and_json(tmp_path):
    """DC-9.2, DC-9.3: end-turn logs each step by clause; --json gives the log and the battle after it."""
    _, _, out = logged_turn(tmp_path, "wheatfield.yaml", WHEATFIELD_TURN[:1])
    text = run("end-turn", out, "--out", tmp_path / "t2.yaml").stdout
    assert "DC-9.3" in text and "the battle recorded no turn" in text and "now turn 1, confederate to act" in text
    data = json.loads(run("end-turn", out, "--out", tmp_path / "t2.yaml", "--json").stdout)
    assert data["log"][0]["clause"] == "DC-9.2" and data["battle"]["turn"] == {
        "number": 1, "side": "confederate", "order": ["union", "confederate"]}
    assert data["side_to_act"] == "confederate"


def test_end_turn_activation_is_refused_where_turns_end_whole(tmp_path):
    """BU-8.2 is Bushido's: --activation on another game is bad input, in our own words (exit 2)."""
    scenario = tmp_path / "w.yaml"
    scenario.write_bytes(example_path("wheatfield.yaml").read_bytes())
    proc = run("end-turn", scenario, "--activation", "--out", tmp_path / "o.yaml", ok=2)
    assert "dress-on-the-colors has no activations" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not (tmp_path / "o.yaml").exists()


# -- the log itself ------------------------------------------------------------------------------------------
def _wheatfield_log(tmp_path: Path) -> tuple[Any, Any, Path, Any]:
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    path = tmp_path / "turn.jsonl"
    after = battle
    for i, who in enumerate(("20th-maine", "battery-d")):
        attack = Attack(who)
        resolution, after = ruleset.play(after, attack, SeededSource(i + 1))
        append_action(path, attack_action(ruleset, attack, resolution))
    after, log = ruleset.end_turn(after)
    append_action(path, end_turn_action(log))
    return ruleset, battle, path, after


def test_append_and_read_back_as_typed_records(tmp_path):
    ruleset, battle, path, after = _wheatfield_log(tmp_path)
    actions = read_log(path)
    assert [type(a) for a in actions] == [AttackAction, AttackAction, EndTurnAction]
    assert actions[0].attacker == "20th-maine" and actions[0].target == "15th-alabama"
    assert ruleset.dump(replay(ruleset, battle, actions)) == ruleset.dump(after)
    assert path.read_bytes().endswith(b"\n") and path.read_bytes().count(b"\n") == 3


def _tamper(path: Path, number: int, change: Any) -> None:
    lines = path.read_text().splitlines(keepends=True)
    record = json.loads(lines[number - 1])
    change(record)
    lines[number - 1] = json.dumps(record) + "\n"
    path.write_text("".join(lines))


@pytest.mark.parametrize(("number", "change", "needle"), [
    # a die that hits instead of missing: the dice no longer give the recorded log (or need other stages)
    (2, lambda r: r["dice"].update(hit=[6 if v < 6 else 5 for v in r["dice"]["hit"]]), "line 2: "),
    (1, lambda r: r["outcome"].update(stands_lost=r["outcome"]["stands_lost"] + 1),
     "line 1: outcome.stands_lost: the replay gives"),
    (1, lambda r: r["log"][0].update(text="something else"), "line 1: log line 1: the replay gives"),
    (3, lambda r: r["log"].pop(), "line 3: the replay logs"),
    (1, lambda r: r.update(attacker="4th-texas"), "line 1: "),
])
def test_a_tampered_log_is_refused_with_its_line(tmp_path, number, change, needle):
    """A changed die, outcome or log line: the replay stops at that line and says what differs."""
    ruleset, battle, path, _ = _wheatfield_log(tmp_path)
    _tamper(path, number, change)
    with pytest.raises(LogError, match="^" + needle.replace(".", r"\.")):
        replay(ruleset, battle, read_log(path))


def test_a_changed_die_is_refused_through_the_cli_exit_2(tmp_path):
    scenario, log, _ = logged_turn(tmp_path, "wheatfield.yaml", WHEATFIELD_TURN[:2])
    _tamper(log, 2, lambda r: r["dice"].update(hit=[3] * len(r["dice"]["hit"])))
    proc = run("replay", scenario, log, "--out", tmp_path / "r.yaml", ok=2)
    assert "line 2" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not (tmp_path / "r.yaml").exists()
    error = json.loads(run("replay", scenario, log, "--json", ok=2).stdout)["error"]
    assert error["kind"] == "invalid_log" and "line 2" in error["message"]  # a program tells a bad log apart


def test_a_torn_last_line_is_reported_as_such(tmp_path):
    """A writer killed mid-line leaves a last line without its newline: reported as incomplete, never read
    as an action, and nothing is appended after it."""
    path = _wheatfield_log(tmp_path)[2]
    whole = path.read_bytes()
    path.write_bytes(whole[:-1])  # even the whole JSON without its newline is not taken as written
    with pytest.raises(LogError, match="line 3 is incomplete"):
        read_log(path)
    path.write_bytes(whole[: whole.rindex(b"\n", 0, len(whole) - 1) + 20])
    with pytest.raises(LogError, match=r"line 3 is incomplete .* the 2 lines before it are whole"):
        read_log(path)
    with pytest.raises(LogError, match="last line is incomplete"):
        append_action(path, end_turn_action([]))
    proc = run("replay", example_path("wheatfield.yaml"), path, ok=2)
    assert "line 3 is incomplete" in proc.stderr


@pytest.mark.parametrize(("content", "needle"), [
    (b"not json\n", "line 1: not JSON"),
    (b"[1, 2]\n", "line 1: must be a JSON object"),
    (b'{"format": 2, "action": "attack"}\n', "line 1: format: must be 1, got 2"),
    (b'{"format": 1, "action": "dance"}\n',
     'line 1: action: must be one of attack, end-turn, move, mark, edit, start, undo, got "dance"'),
    (b'{"format": 1, "action": "end-turn", "activation": false, "log": []}\n\n', "line 2: empty"),
    (b'{"format": 1, "action": "attack", "ruleset": "x", "attacker": "a", "dice": {"hit": ["six"]}}\n',
     "line 1: dice.hit[0]: "),
    (b'{"format": 1, "action": "end-turn", "extra": 1}\n', "line 1: extra: "),
    (b"\xff\n", "line 1: not UTF-8"),
    (b"[" * 100_000 + b"\n", "line 1: not JSON"),
])
def test_a_bad_log_is_refused_in_one_line_with_its_line_number(tmp_path, content, needle):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(LogError) as caught:
        read_log(path)
    assert needle in str(caught.value) and "\n" not in str(caught.value)


def test_log_limits(tmp_path, monkeypatch):
    """Line length, number of lines and size are bounded, and a log that is not a regular file is refused."""
    path = tmp_path / "long.jsonl"
    path.write_bytes(b" " * (MAX_LINE_BYTES + 1) + b"\n")
    with pytest.raises(LogError, match=r"line 1: .* a log line may be at most"):
        read_log(path)
    monkeypatch.setattr("rangefire.record.log.MAX_ACTIONS", 2)
    path.write_bytes(b'{"format": 1, "action": "end-turn"}\n' * 3)
    with pytest.raises(LogError, match="more than 2 lines"):
        read_log(path)
    monkeypatch.setattr("rangefire.record.log.MAX_LOG_BYTES", 10)
    with pytest.raises(LogError, match="a log may be at most 10 bytes"):
        read_log(path)
    with pytest.raises(LogError, match="not a regular file"):
        read_log(tmp_path)
    with pytest.raises(LogError, match="cannot read"):
        read_log(tmp_path / "missing.jsonl")


def test_a_log_of_another_game_is_refused(tmp_path):
    _, _, path, _ = _wheatfield_log(tmp_path)
    ruleset, battle = load_battle(example_path("temple.yaml"))
    with pytest.raises(LogError, match="line 1: an attack of dress-on-the-colors, but the scenario is bushido"):
        replay(ruleset, battle, read_log(path))


def test_resolve_refuses_a_torn_log_before_playing_or_writing(tmp_path):
    """An action appended after an incomplete line would join it: resolve --log refuses first (exit 2), and
    --out is not written."""
    scenario = tmp_path / "w.yaml"
    scenario.write_bytes(example_path("wheatfield.yaml").read_bytes())
    log = tmp_path / "turn.jsonl"
    log.write_bytes(b'{"format": 1, "action": "end-tu')
    proc = run("resolve", scenario, "-a", "20th-maine", "--seed", "1", "--log", log, "--out", tmp_path / "o.yaml",
               ok=2)
    assert "the last line is incomplete" in proc.stderr and not (tmp_path / "o.yaml").exists()
    assert log.read_bytes() == b'{"format": 1, "action": "end-tu'


@pytest.mark.parametrize("scenario", ["-", str(example_path("wheatfield.yaml"))])
def test_a_log_is_never_read_from_standard_input(scenario):
    """``replay SCENARIO -``: a log is the file --log appended to; the message says so, before standard input is
    read for a scenario (``replay - -`` used to say that standard input held no scenario)."""
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", "replay", scenario, "-"], input="",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "a log is read from its file" in proc.stderr and "standard input" in proc.stderr


def test_a_log_named_minus_replays_as_dot_slash_minus(tmp_path):
    scenario = tmp_path / "wheatfield.yaml"
    scenario.write_bytes(example_path("wheatfield.yaml").read_bytes())
    common = {"capture_output": True, "text": True, "timeout": 60, "cwd": tmp_path, "stdin": subprocess.DEVNULL}
    played = subprocess.run([sys.executable, "-m", "rangefire.cli", "resolve", "wheatfield.yaml", "-a", "20th-maine",
                             "--seed", "1", "--log", "./-", "--out", "after.yaml"], **common)
    assert played.returncode == 0 and (tmp_path / "-").is_file(), played.stderr
    replayed = subprocess.run([sys.executable, "-m", "rangefire.cli", "replay", "wheatfield.yaml", "./-"], **common)
    assert replayed.returncode == 0 and "line 1  20th-maine at 15th-alabama" in replayed.stdout, replayed.stderr
