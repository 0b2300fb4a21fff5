"""A battle written with its log, and every other output, safely (issue 20 §2).

- ``--log`` with ``--out``: the log line is written first (synced), then the battle. A run stopped at any point
  (Ctrl-C, a failure, SIGKILL) leaves either nothing changed (and says so), both written (and says so), or the
  log one action ahead of the battle: said by the run itself where it can, and by the next command that reads
  the battle with its log (``--log``, ``replay``), with the command that finishes the write.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import rangefire.cli.commands
import rangefire.cli.turns
import rangefire.record
from rangefire.cli import app
from rangefire.core.errors import ScenarioError
from rangefire.demo import example_path
from rangefire.record import read_log
from rangefire.rulesets import load_battle

RUNNER = CliRunner()
ATTACK = ("-a", "20th-maine", "--seed", "1")


def invoke(*args: object) -> Any:
    """The real command in this process (so that a write can be made to fail), at a width that keeps each
    message on one line."""
    result = RUNNER.invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def run(*args: object, ok: int | None = 0, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line in a process of its own, never at a terminal."""
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, cwd=cwd, env={**os.environ, "COLUMNS": "400"})
    if ok is not None:
        assert proc.returncode == ok, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    return proc


@pytest.fixture
def battle(tmp_path: Path) -> Path:
    """The Wheatfield, as a battle file of its own."""
    path = tmp_path / "turn.yaml"
    path.write_bytes(example_path("wheatfield.yaml").read_bytes())
    return path


def dump(path: Path) -> Any:
    ruleset, loaded = load_battle(path)
    return ruleset.dump(loaded)


def raising(error: BaseException) -> Callable[..., None]:
    def fail(*_: Any, **__: Any) -> None:
        raise error

    return fail


def finishing_command(message: str) -> list[str]:
    """The command a message says to run to finish a write, as arguments after ``rangefire``."""
    said = message.split("Finish the write: ", 1)[1] if "Finish the write: " in message else \
        message.split("Finish that write: ", 1)[1].split(";", 1)[0]
    words = shlex.split(said.strip())
    assert words[:2] == ["rangefire", "replay"], said
    return words[1:]


# -- the order of the two writes, and every point a run can stop at ------------------------------------------
def test_the_log_line_is_written_before_the_battle(battle, tmp_path, monkeypatch):
    """When the battle is written, the log already holds the attack (the battle is never ahead of its log)."""
    log = tmp_path / "turn.jsonl"
    seen: list[int] = []
    real = rangefire.cli.commands.write_scenario

    def write(*args: Any, **kwargs: Any) -> None:
        seen.append(len(read_log(log)) if log.exists() else 0)
        real(*args, **kwargs)

    monkeypatch.setattr(rangefire.cli.commands, "write_scenario", write)
    assert invoke("resolve", battle, *ATTACK, "--log", log, "--out", battle).exit_code == 0
    assert seen == [1]


def test_stopped_before_the_log_line_nothing_changed(battle, tmp_path, monkeypatch):
    log = tmp_path / "turn.jsonl"
    before = battle.read_bytes()
    monkeypatch.setattr(rangefire.record, "append_action", raising(KeyboardInterrupt()))
    result = invoke("resolve", battle, *ATTACK, "--log", log, "--out", battle)
    assert result.exit_code == 130 and "interrupted; nothing changed" in result.stderr
    assert battle.read_bytes() == before and not log.exists()


def test_stopped_between_the_writes_says_so_and_the_command_that_finishes(battle, tmp_path, monkeypatch):
    """Ctrl-C after the log line, before the battle: not 'nothing changed' but what was written, and the replay
    that finishes the write; the retried command is refused (it would play the attack twice), the finishing one
    gives the battle the log ends at."""
    log = tmp_path / "turn.jsonl"
    before = battle.read_bytes()
    monkeypatch.setattr(rangefire.cli.commands, "write_scenario", raising(KeyboardInterrupt()))
    result = invoke("resolve", battle, *ATTACK, "--log", log, "--out", battle)
    message = result.stderr
    assert result.exit_code == 130 and "nothing changed" not in message, message
    assert f"the attack is logged in {log} (line 1), but the battle after it is not written to {battle}" in message
    assert battle.read_bytes() == before and len(read_log(log)) == 1
    monkeypatch.undo()
    retried = run("resolve", battle, *ATTACK, "--log", log, "--out", battle, ok=2)
    assert f"--log {log}: the log is one action ahead of {battle}" in retried.stderr
    assert "line (1, 20th-maine's attack)" in retried.stderr and "Nothing was played now" in retried.stderr
    assert battle.read_bytes() == before and len(read_log(log)) == 1  # the retry wrote nothing
    assert finishing_command(retried.stderr) == finishing_command(message)
    run(*finishing_command(message))
    assert dump(battle) == dump_replayed(tmp_path, log)
    run("resolve", battle, "-a", "battery-d", "--seed", "2", "--log", log, "--out", battle)  # the play goes on
    assert len(read_log(log)) == 2 and dump(battle) == dump_replayed(tmp_path, log)


def dump_replayed(tmp_path: Path, log: Path) -> Any:
    """The battle the whole log gives, from the scenario it started from."""
    rebuilt = tmp_path / "rebuilt.yaml"
    run("replay", example_path("wheatfield.yaml"), log, "--out", rebuilt)
    return dump(rebuilt)


def test_a_failure_between_the_writes_says_what_was_written(battle, tmp_path, monkeypatch):
    log = tmp_path / "turn.jsonl"
    full = ScenarioError(["cannot write: no space left on the device"], source=str(battle))
    monkeypatch.setattr(rangefire.cli.commands, "write_scenario", raising(full))
    result = invoke("resolve", battle, *ATTACK, "--log", log, "--out", battle, "--json")
    error = json.loads(result.stdout)["error"]
    assert result.exit_code == 2 and error["message"].startswith(f"{battle}: cannot write: no space left")
    assert f"the attack is logged in {log} (line 1), but the battle after it is not written" in error["message"]
    assert "Finish the write: rangefire replay" in error["message"]


def test_stopped_inside_the_append_after_its_line_is_written(battle, tmp_path, monkeypatch):
    """Ctrl-C after the line reached the file but before the append returned: the log is read to tell."""
    log = tmp_path / "turn.jsonl"
    real = os.fsync
    calls = []

    def fsync(fd: int) -> None:
        real(fd)
        calls.append(fd)
        if len(calls) == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(rangefire.record.os, "fsync", fsync)
    result = invoke("resolve", battle, *ATTACK, "--log", log, "--out", battle)
    assert result.exit_code == 130 and f"logged in {log} (line 1), but the battle" in result.stderr
    assert len(read_log(log)) == 1


def test_stopped_inside_the_battle_write_after_its_rename(battle, tmp_path, monkeypatch):
    """Ctrl-C after the battle file was replaced but before the write returned: the file is read to tell."""
    import rangefire.scenario.files as files

    log = tmp_path / "turn.jsonl"
    real = files._sync_folder
    calls = []

    def sync(folder: Path) -> None:
        real(folder)
        calls.append(folder)
        if len(calls) == 2:  # after the rename
            raise KeyboardInterrupt

    monkeypatch.setattr(files, "_sync_folder", sync)
    result = invoke("resolve", battle, *ATTACK, "--log", log, "--out", battle)
    assert result.exit_code == 130, result.stderr
    assert f"the attack is logged in {log} (line 1) and the battle after it written to {battle}" in result.stderr


def test_stopped_after_both_writes_says_both_not_nothing_changed(battle, tmp_path, monkeypatch):
    import rangefire.cli.render

    log = tmp_path / "turn.jsonl"
    monkeypatch.setattr(rangefire.cli.render, "render_resolution", raising(KeyboardInterrupt()))
    result = invoke("resolve", battle, *ATTACK, "--log", log, "--out", battle)
    assert result.exit_code == 130 and "nothing changed" not in result.stderr
    assert f"interrupted: the attack is logged in {log} (line 1) and the battle after it written to {battle}" in \
        result.stderr
    run("resolve", battle, "-a", "battery-d", "--seed", "2", "--log", log, "--out", battle)  # no disagreement


def test_stopped_after_the_battle_alone_is_written(battle, monkeypatch):
    import rangefire.cli.render

    monkeypatch.setattr(rangefire.cli.render, "render_resolution", raising(KeyboardInterrupt()))
    result = invoke("resolve", battle, *ATTACK, "--out", battle)
    assert result.exit_code == 130 and "nothing changed" not in result.stderr
    assert f"interrupted: the battle after the attack is written to {battle}" in result.stderr


def test_end_turn_stopped_between_its_writes_is_not_ended_twice_by_a_retry(battle, tmp_path, monkeypatch):
    """The retried end-turn would end a second turn: it is refused, naming the replay that finishes the first."""
    log = tmp_path / "turn.jsonl"
    monkeypatch.setattr(rangefire.cli.turns, "write_scenario", raising(KeyboardInterrupt()))
    result = invoke("end-turn", battle, "--log", log, "--out", battle)
    assert result.exit_code == 130 and "the end of the turn is logged in" in result.stderr
    monkeypatch.undo()
    retried = run("end-turn", battle, "--log", log, "--out", battle, ok=2)
    assert "the log is one action ahead" in retried.stderr and "the end of the turn" in retried.stderr
    run(*finishing_command(retried.stderr))
    assert len(read_log(log)) == 1 and dump(battle)["turn"]["side"] == "confederate"


# -- SIGKILL: no handler runs; the next command tells ------------------------------------------------------
KILLED = """
import os, signal, sys
import rangefire.cli.turns as turns
import rangefire.record as record
from rangefire.cli import main

def kill(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

where = sys.argv[1]
if where == "before":
    record.append_action = kill
elif where == "between":
    turns.write_scenario = kill
else:
    turns._turn_text = kill  # printing, after both writes
sys.argv = ["rangefire", *sys.argv[2:]]
main()
"""


@pytest.mark.parametrize("where", ["before", "between", "after"])
def test_killed_at_each_point_the_next_command_tells_or_goes_on(battle, tmp_path, where):
    log = tmp_path / "turn.jsonl"
    run("resolve", battle, *ATTACK, "--log", log, "--out", battle)
    before, logged = battle.read_bytes(), log.read_bytes()
    proc = subprocess.run([sys.executable, "-c", KILLED, where, "end-turn", str(battle), "--log", str(log), "--out",
                           str(battle)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL
    if where == "before":
        assert battle.read_bytes() == before and log.read_bytes() == logged  # nothing changed
        run("end-turn", battle, "--log", log, "--out", battle)  # the retry is the first end of the turn
    elif where == "between":
        assert battle.read_bytes() == before and len(read_log(log)) == 2
        told = run("resolve", battle, "-a", "battery-d", "--seed", "2", "--log", log, "--out", battle, ok=2)
        assert "the log is one action ahead" in told.stderr and "(2, the end of the turn)" in told.stderr
        replayed = run("replay", battle, log, ok=2)  # replay from line 1 would play the attack twice
        assert "is the battle before line 2" in replayed.stderr and "--from 2" in replayed.stderr
        run(*finishing_command(told.stderr))
    else:
        assert battle.read_bytes() != before and len(read_log(log)) == 2
    assert len(read_log(log)) == 2 and dump(battle)["turn"]["side"] == "confederate"
    assert dump(battle) == dump_replayed(tmp_path, log)


# -- replay reads a battle with its log too ---------------------------------------------------------------------
def test_replay_refuses_a_battle_the_log_is_already_in(battle, tmp_path):
    log = tmp_path / "turn.jsonl"
    run("resolve", battle, *ATTACK, "--log", log, "--out", battle)
    proc = run("replay", battle, log, ok=2)
    assert f"{battle} is the battle after the last line of {log} (line 1)" in proc.stderr
    assert "nothing to replay" in proc.stderr
    assert "--from 5: " in run("replay", battle, log, "--from", "5", ok=2).stderr
    run("replay", example_path("wheatfield.yaml"), log, "--from", "1")


def test_a_log_of_an_earlier_play_is_not_appended_to_from_its_first_battle(tmp_path):
    """The same scenario with a log that already goes on past it (a tutorial run twice): said, not appended."""
    log = tmp_path / "turn.jsonl"
    out = tmp_path / "after.yaml"
    scenario = example_path("wheatfield.yaml")
    run("resolve", scenario, *ATTACK, "--log", log, "--out", out)
    run("resolve", out, "-a", "battery-d", "--seed", "2", "--log", log, "--out", out)
    proc = run("resolve", scenario, *ATTACK, "--log", log, "--out", out, ok=2)
    assert f"--log {log}: the log goes on past {scenario}: lines 1 to 2" in proc.stderr
    assert "name a new file to start another log" in proc.stderr and len(read_log(log)) == 2


def test_a_log_without_digests_is_not_judged(battle, tmp_path):
    """Lines written before the digests were (or by the HTTP API) carry none: nothing is said of them."""
    log = tmp_path / "turn.jsonl"
    run("resolve", battle, *ATTACK, "--log", log)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    log.write_text("".join(json.dumps({k: v for k, v in x.items() if not k.startswith("battle_")}) + "\n"
                           for x in lines))
    run("resolve", battle, "-a", "battery-d", "--seed", "2", "--log", log)
    assert len(read_log(log)) == 2
