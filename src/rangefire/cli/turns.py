"""The commands of a turn: ``end-turn`` (the game's end-of-turn clauses) and ``replay`` (a battle rebuilt from
its scenario and the log of its actions). The work is the library's (:mod:`rangefire.record`); these map flags."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from rangefire.cli.common import (
    JsonOpt,
    Scenario,
    SetOpt,
    _emit,
    app,
    line,
    load_set,
    no_log_with_set,
    out,
    shown,
    text,
    user_errors,
    whole_number,
)
from rangefire.core import LogLine, RangefireError
from rangefire.scenario import write_scenario

LogOpt = Annotated[Optional[str], typer.Option("--log", metavar="PATH", help="append the action to this log (one JSON line, written before the battle)")]  # noqa: UP045, E501


def _turn_text(ruleset: Any, battle: Any) -> str:
    turn = getattr(battle, "turn", None)
    side = ruleset.side_to_act(battle)
    recorded = turn is not None and (getattr(turn, "side", None) is not None or side is not None)
    parts = [f"turn {turn.number}" if turn is not None and recorded else "no turn recorded"]
    if side is not None:
        parts.append(f"{side} to act")
    return ", ".join(parts)


def _log_rows(log: list[LogLine]) -> None:
    for entry in log:
        out.print(line(entry.clause, entry.text))


@app.command("end-turn")
def end_turn(
    scenario: Scenario,
    out_file: Annotated[Path, typer.Option("--out", help="write the battle after the end of the turn to FILE")],
    activation: Annotated[bool, typer.Option("--activation", help="bushido: end only the activation (the next side "
                                                                   "activates; the turn goes on)")] = False,
    log_name: LogOpt = None,
    as_json: JsonOpt = False,
    settings: SetOpt = None,
) -> None:
    """End the turn of the side to act: the game's end-of-turn clauses, each step logged by clause. With --log
    the end of the turn is logged first, then the battle written: a run stopped between the two says so, and
    the command that finishes the write."""
    from rangefire.cli.writing import BATTLE, Writes, check_log, check_log_name, check_output
    from rangefire.record import battle_digest, check_appendable, end_turn_action

    writes = Writes(scenario, None, out_file, "the end of the activation" if activation else "the end of the turn")
    with user_errors(as_json), writes.guarded():  # the log line first, then the battle
        writes.log = log_file = check_log_name(log_name)
        no_log_with_set(settings, log_file)
        if log_file is not None:
            check_appendable(log_file, apart_from=(scenario, out_file))
        ruleset, battle, as_written = load_set(scenario, settings)
        writes.ruleset = ruleset
        if activation and not ruleset.has_activations:
            raise RangefireError(f"--activation: {ruleset.key} has no activations; its turns end whole (leave "
                                 "--activation out)")
        before_data = as_written or ruleset.dump(battle)
        if log_file is not None:
            from rangefire.record import check_log_game

            check_log_game(log_file, ruleset.key)  # a log of another game: said
            check_log(log_file, scenario, out_file, battle_digest(before_data))  # a log past this battle: said
        try:
            after, log = ruleset.end_activation(battle) if activation else ruleset.end_turn(battle)
        except RangefireError as exc:
            raise _named_by(scenario, exc) from None
        # the battle file checked once what was asked of it is known good (its clauses' refusals said first), and
        # before anything is written
        check_output("--out", out_file, BATTLE)
        after_data = ruleset.dump(after)
        writes.after = battle_digest(after_data)
        if log_file is not None:
            writes.append(end_turn_action(log, activation, battle_digest(before_data), writes.after))
        writes.write(lambda: write_scenario(out_file, after_data, original=scenario, before=before_data))
        if as_json:
            _emit({"ruleset": ruleset.key, "activation": activation, "side_to_act": ruleset.side_to_act(after),
                   "log": [entry.to_dict() for entry in log], "battle": after_data})
            return
        what = "the activation" if activation else "the turn"
        from rich.text import Text

        out.print(Text.assemble(("end of " + what, "bold"), f" ({shown(_turn_text(ruleset, battle))})"))
        _log_rows(log)
        out.print(text(f"now {_turn_text(ruleset, after)}; the battle is written to {out_file}"))
        if log_file is not None:
            out.print(text(f"logged in {log_file}"))


@app.command()
def replay(
    scenario: Scenario,
    log: Annotated[str, typer.Argument(metavar="LOG", help="the log the actions were appended to",
                                       show_default=False)],
    out_file: Annotated[Optional[Path], typer.Option("--out", help="write the rebuilt battle to FILE")] = None,  # noqa: UP045
    from_text: Annotated[Optional[str], typer.Option("--from", metavar="LINE", help="SCENARIO is the battle before this line of the log: replay from it on (to finish a write a run stopped before)", show_default=False)] = None,  # noqa: UP045, E501
    as_json: JsonOpt = False,
    settings: SetOpt = None,
) -> None:
    """Rebuild a battle from its scenario and its log, checking every step against the record (exit 2 at the
    first difference, naming its line). With --from LINE, SCENARIO is the battle before that line (a battle
    file the log went past: the command a stopped run names)."""
    from rangefire.cli.writing import BATTLE, check_output
    from rangefire.record import read_log, replay_steps

    with user_errors(as_json):
        if settings:  # refused before anything is read, as resolve --log --set is (no_log_with_set)
            raise RangefireError("--set with replay: a log replays against the scenario as written (its actions "
                                 "were played on it, never with values set); leave --set out")
        if log == "-":  # said before standard input is read for the scenario, if it is (a file named - is ./-)
            raise RangefireError("LOG: a log is read from its file (the one --log appended the actions to), not "
                                 "from standard input")
        log_path = Path(log)
        from_line = whole_number("--from", from_text)  # read in our words, as --turns is
        if from_line is not None and from_line < 1:
            raise RangefireError(f"--from {from_line}: must be a line of the log, 1 or more")
        if out_file is not None:
            check_output("--out", out_file, BATTLE, reading=(log_path,))
        ruleset, battle, as_written = load_set(scenario, settings)
        actions = read_log(log_path)
        first = _first_line(ruleset.dump(battle), actions, scenario, log_path, from_line, out_file)
        steps = []
        after = battle
        try:
            for step in replay_steps(ruleset, battle, actions[first - 1:], first_line=first):
                steps.append(step)
                after = step.battle
        except RangefireError as exc:
            raise _named_by(log_path, exc) from None
        after_data = ruleset.dump(after)
        if out_file is not None:
            write_scenario(out_file, after_data, original=scenario, before=as_written or ruleset.dump(battle))
        if as_json:
            _emit({"ruleset": ruleset.key, "steps": [{"line": s.line, "action": s.action.action,
                                                      "summary": s.summary} for s in steps],
                   "side_to_act": ruleset.side_to_act(after), "battle": after_data})
            return
        from rich.text import Text

        out.print(Text.assemble(("replay", "bold"), f" of {len(steps)} action{'s' if len(steps) != 1 else ''} "
                                f"from {shown(log_path)}: every step as recorded"))
        for step in steps:
            out.print(line(f"line {step.line}", step.summary))
        out.print(text(f"now {_turn_text(ruleset, after)}"
                       + (f"; the battle is written to {out_file}" if out_file is not None else "")))


def _first_line(before: dict[str, Any], actions: list[Any], scenario: Path, log: Path, from_line: int | None,
                out_file: Path | None) -> int:
    """The line the replay starts from: 1, or ``--from``; refused where the log's digests place the battle
    elsewhere (a battle the log has gone past replayed from line 1 would play its actions twice)."""
    from rangefire.cli.writing import command
    from rangefire.record import battle_digest, battle_positions

    last = len(actions)
    if from_line is not None and from_line > last:
        raise RangefireError(f"--from {from_line}: {log} has {last} line{'s' if last != 1 else ''}")
    start = from_line or 1
    places = battle_positions([(a.battle_before, a.battle_after) for a in actions], battle_digest(before))
    if not places or start in places:
        return start
    if last + 1 in places:
        raise RangefireError(f"{scenario} is the battle after the last line of {log} (line {last}): every action "
                             "of the log is in it already; nothing to replay (to rebuild it, replay the scenario "
                             "the log starts from)")
    found = max(places)
    if out_file is None and found == last and str(scenario) != "-":
        out_file = scenario  # the run that stopped wrote neither: the battle file is finished where it is
    rerun = command("replay", scenario, log, "--from", found, *(("--out", out_file) if out_file is not None else ()))
    ahead = " (the log is one action ahead of it: a run stopped between writing the log and the battle)" \
        if found == last else ""
    expected = "the one the log starts from" if from_line is None else f"before line {start}"
    raise RangefireError(f"{scenario} is the battle before line {found} of {log}{ahead}, not {expected}: replay "
                         f"from there: {rerun}")


def _named_by(where: object, exc: RangefireError) -> RangefireError:
    """The error, its message led by the file it concerns; its class (so its kind and exit code) kept."""
    exc.args = (f"{where}: {exc}",)
    return exc
