"""A battle written with its log, and every other output, safely (issue 20 §2).

- ``--log`` with ``--out``: the log line is written first (synced), then the battle. A run stopped at any point
  (Ctrl-C, a failure, SIGKILL) leaves either nothing changed (and says so), both written (and says so), or the
  log one action ahead of the battle: said by the run itself where it can, and by the next command that reads
  the battle with its log (``--log``, ``replay``), with the command that finishes the write.
- ``--csv``, ``--parquet``, ``--plot`` and ``show --out`` are written as a battle is (a temporary file, synced,
  renamed), and every output path is checked before any work, as ``--out`` is.
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
import rangefire.record.log
from rangefire.cli import app
from rangefire.core.errors import ScenarioError
from rangefire.demo import example_path
from rangefire.record import read_log
from rangefire.rulesets import load_battle
from tests.commands import run_here

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

    monkeypatch.setattr(rangefire.record.log.os, "fsync", fsync)
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
    assert "--from 0: must be a line of the log" in run("replay", battle, log, "--from", "0", ok=2).stderr
    assert "--from 'x': must be a whole number" in run("replay", battle, log, "--from", "x", ok=2).stderr
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


# -- CSV, Parquet and charts written as a battle is --------------------------------------------------------------
TABLE = ("table", str(example_path("wheatfield.yaml")), "-a", "15th-alabama", "--vary",
         "units.15th-alabama.stands=2,4")


@pytest.mark.parametrize(("option", "name"), [("--csv", "rows.csv"), ("--parquet", "rows.parquet"),
                                              ("--plot", "rows.png")])
def test_a_write_that_fails_leaves_the_old_file_whole(tmp_path, monkeypatch, option, name):
    """Each output is written beside its target and renamed over it: a failure (or a kill) before the rename
    leaves the old file as it was, never empty."""
    import rangefire.scenario.files as files

    target = tmp_path / name
    assert invoke(*TABLE, option, target).exit_code == 0
    old = target.read_bytes()
    assert old
    monkeypatch.setattr(files.os, "replace", raising(OSError(28, "No space left on device")))
    result = invoke(*TABLE, "--set", "options.discipline_pass=7", option, target)
    assert result.exit_code == 2 and f"{option} {target}: cannot write: no space left" in result.stderr
    assert target.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left


# -- every output path checked before any work ---------------------------------------------------------------------
def refusals(tmp: Path) -> list[tuple[str, list[str], str]]:
    """(name, command line, fragment): bad outputs of every command that writes; each refused before any work
    (where a unit is not in the battle, its refusal would be said instead if the output were checked late)."""
    wheat = str(example_path("wheatfield.yaml"))
    (tmp / "folder.csv").mkdir()
    (tmp / "folder.png").mkdir()
    (tmp / "read-only.csv").write_text("a,b\n1,2\n")
    (tmp / "read-only.csv").chmod(0o444)
    (tmp / "scenario.csv").write_bytes(example_path("wheatfield.yaml").read_bytes())  # YAML, named .csv
    (tmp / "text.parquet").write_text("not parquet\n")
    (tmp / "not-a-chart.png").write_text("ruleset: dress-on-the-colors\n")
    missing = tmp / "no-such-folder"
    table = ["table", wheat, "-a", "15th-alabama", "--vary", "units.15th-alabama.stands=2,4"]
    compare = ["compare", wheat, "-a", "15th-alabama", "--variant", "v:units.15th-alabama.stands=3"]
    odds = ["odds", wheat, "-a", "nobody"]  # work would refuse the unit; the output is said first
    cases = [
        ("csv-missing-folder", [*table, "--csv", f"{missing}/t.csv"], f"--csv {missing}/t.csv: cannot write: "
                                                                       "the folder"),
        ("csv-folder", [*table, "--csv", f"{tmp}/folder.csv"], f"--csv {tmp}/folder.csv: cannot write: it is a "
                                                               "folder"),
        ("csv-folder-no-suffix", [*table, "--csv", str(tmp)], f"--csv {tmp}: is a folder"),
        ("csv-read-only", [*compare, "--csv", f"{tmp}/read-only.csv"], f"--csv {tmp}/read-only.csv: cannot write: "
                                                                        "it is read-only"),
        ("csv-over-the-scenario", [*table, "--csv", wheat], f"--csv {wheat}: CSV is written to a .csv file"),
        ("csv-over-a-scenario", [*compare, "--csv", f"{tmp}/scenario.csv"], f"--csv {tmp}/scenario.csv: exists "
                                                                             "and is not a CSV file"),
        ("csv-dash-with-json", [*table, "--csv", "-", "--json"], "--csv - with --json"),
        ("parquet-dash", [*table, "--parquet", "-"], "--parquet -: Parquet is written to a file"),
        ("parquet-missing-folder", [*table, "--parquet", f"{missing}/t.parquet"], f"--parquet {missing}/t.parquet: "
                                                                                   "cannot write"),
        ("parquet-over-text", [*table, "--parquet", f"{tmp}/text.parquet"], f"--parquet {tmp}/text.parquet: exists "
                                                                             "and is not a Parquet file"),
        ("plot-missing-folder", [*odds, "--plot", f"{missing}/o.png"], f"--plot {missing}/o.png: cannot write: the "
                                                                        "folder"),
        ("plot-folder", [*odds, "--plot", f"{tmp}/folder.png"], f"--plot {tmp}/folder.png: cannot write: it is a "
                                                                "folder"),
        ("plot-over-the-scenario", [*odds, "--plot", wheat], f"--plot {wheat}: a chart is written as .png"),
        ("plot-over-another-kind", [*odds, "--plot", f"{tmp}/not-a-chart.png"], f"--plot {tmp}/not-a-chart.png: "
                                                                                 "exists and is not a chart file"),
        ("plot-dash", [*odds, "--plot", "-"], "--plot -: cannot write chart output to '-'"),
        ("compare-plot-missing-folder", [*compare, "--plot", f"{missing}/c.png"], f"--plot {missing}/c.png"),
        ("table-plot-folder", [*table, "--plot", f"{tmp}/folder.png"], f"--plot {tmp}/folder.png"),
        ("duel-plot-missing-folder", ["duel", wheat, "nobody", "15th-alabama", "--plot", f"{missing}/d.png"],
         f"--plot {missing}/d.png: cannot write"),
        ("show-out-folder", ["show", wheat, "-a", "15th-alabama", "--out", f"{tmp}/folder.png"],
         f"--out {tmp}/folder.png: cannot write: it is a folder"),
        ("resolve-out-missing-folder", ["resolve", wheat, "-a", "nobody", "--seed", "1", "--out",
                                        f"{missing}/a.yaml"], f"--out {missing}/a.yaml: cannot write: the folder"),
        ("resolve-out-dash", ["resolve", wheat, "-a", "nobody", "--seed", "1", "--out", "-"],
         "--out -: cannot write a battle to '-'"),
        ("resolve-log-dash", ["resolve", wheat, "-a", "nobody", "--seed", "1", "--log", "-"],
         "--log -: a log is appended to its file"),
        ("end-turn-out-missing-folder", ["end-turn", wheat, "--out", f"{missing}/a.yaml"],  # its clauses' first
         f"--out {missing}/a.yaml: cannot write"),
        ("end-turn-log-dash", ["end-turn", wheat, "--out", f"{tmp}/a.yaml", "--log", "-"], "--log -"),
        ("replay-out-wrong-kind", ["replay", wheat, f"{tmp}/none.jsonl", "--out", f"{tmp}/rows.csv"],
         f"--out {tmp}/rows.csv: a battle is written as .yaml, .yml, .toml or .json, not .csv"),
        ("replay-out-over-its-log", ["replay", wheat, f"{tmp}/log.yaml", "--out", f"{tmp}/log.yaml"],
         f"--out {tmp}/log.yaml: that is {tmp}/log.yaml, which this command reads"),
    ]
    return cases


#: The refusals also run in a process of their own (the others through the same entry point in this one).
IN_A_PROCESS = ("csv-missing-folder", "csv-dash-with-json", "resolve-log-dash")


def test_every_bad_output_is_refused_before_any_work_naming_the_option_and_the_path(tmp_path):
    cases = refusals(tmp_path)
    before = {p.name: (p.read_bytes() if p.is_file() else None) for p in tmp_path.iterdir()}
    assert set(IN_A_PROCESS) <= {name for name, _, _ in cases}
    runs = [(name, args, fragment, run_here(*args, ok=None, columns=400)) for name, args, fragment in cases]
    runs += [(name, args, fragment, run(*args, ok=None)) for name, args, fragment in cases if name in IN_A_PROCESS]
    for name, args, fragment, proc in runs:
        assert proc.returncode == 2, (name, proc.stdout, proc.stderr)
        if "--json" in args:  # the error as JSON, alone on standard output
            said = json.loads(proc.stdout)["error"]["message"]
            assert fragment in said and proc.stderr == "", (name, proc.stdout, proc.stderr)
            continue
        assert fragment in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, (name, proc.stderr)
        assert proc.stdout == "", (name, proc.stdout)
    after = {p.name: (p.read_bytes() if p.is_file() else None) for p in tmp_path.iterdir()}
    assert after == before  # nothing written, nothing left behind
    assert not (tmp_path / "-").exists()


def test_csv_to_standard_output_alone_and_a_log_named_dot_slash_dash(tmp_path):
    """``--csv -`` without --json is the CSV alone; ``--log ./-`` is a file named ``-`` (``--log -`` is refused)."""
    proc = run(*TABLE, "--csv", "-")
    assert proc.stdout.startswith("units.15th-alabama.stands,")
    run("resolve", example_path("wheatfield.yaml"), *ATTACK, "--log", "./-", cwd=tmp_path)
    assert (tmp_path / "-").is_file()


TABLE_ON = ["table", "{w}", *TABLE[2:]]  # the table of TABLE, on the scenario filled in for {w}
WORK = [("odds", "rangefire.core.ruleset.Ruleset.odds", ["odds", "{w}", "-a", "15th-alabama"], "--plot"),
        ("table", "rangefire.analysis.odds_table.odds_table", TABLE_ON, "--plot"),
        ("table", "rangefire.analysis.odds_table.odds_table", TABLE_ON, "--csv"),
        ("table", "rangefire.analysis.odds_table.odds_table", TABLE_ON, "--parquet"),
        ("compare", "rangefire.analysis.compare.compare",
         ["compare", "{w}", "-a", "15th-alabama", "--variant", "v:units.15th-alabama.stands=3"], "--csv"),
        ("duel", "rangefire.analysis.duel.duel", ["duel", "{w}", "20th-maine", "15th-alabama"], "--plot"),
        ("resolve", "rangefire.core.ruleset.Ruleset.play", ["resolve", "{w}", *ATTACK], "--out"),
        ("show", "rangefire.draw.svg_to_png", ["show", "{w}"], "--out")]


@pytest.mark.parametrize(("command", "work", "args", "option"), WORK, ids=[f"{c}-{o}" for c, _, _, o in WORK])
def test_an_output_in_a_missing_folder_is_refused_before_the_work(tmp_path, monkeypatch, command, work, args,
                                                                    option):
    """The work (odds, a table, a duel, an attack played, a PNG drawn) is never begun for an output that cannot
    be written: here it would fail loudly if it were."""
    suffix = {"--plot": ".png", "--csv": ".csv", "--parquet": ".parquet", "--out": ".yaml"}[option]
    if command == "show":
        suffix = ".png"
    where, name = work.rsplit(".", 1)
    if where.endswith(("Ruleset",)):
        import rangefire.core.ruleset

        monkeypatch.setattr(rangefire.core.ruleset.Ruleset, name, raising(AssertionError("the work was begun")))
    else:
        import importlib

        monkeypatch.setattr(importlib.import_module(where), name, raising(AssertionError("the work was begun")))
    target = tmp_path / "no-such-folder" / f"out{suffix}"
    filled = [a.replace("{w}", str(example_path("wheatfield.yaml"))) for a in args]
    result = invoke(*filled, option, target)
    assert result.exit_code == 2 and f"{option} {target}: cannot write: the folder" in result.stderr, result.stderr


def test_a_link_into_a_missing_folder_names_the_folder_it_leads_to(tmp_path):
    """A link whose target's folder is missing: the folder missing is the link's target's, not the link's own
    (which exists: saying it did not was the message)."""
    from rangefire.scenario.files import check_writable

    link = tmp_path / "chart.png"
    link.symlink_to(tmp_path / "gone" / "chart.png")
    with pytest.raises(ScenarioError) as refused:
        check_writable(link)
    assert str(refused.value).endswith(f"cannot write: the folder {tmp_path / 'gone'} does not exist (where the link "
                                       f"{link} leads)"), str(refused.value)
