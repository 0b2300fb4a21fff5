"""The commands that change the table between attacks: ``move`` (DC-10, AL-10, BU-9, SW-9), ``mark`` (the states a
Bushido player sets), ``place``, ``change`` and ``remove`` (set-up edits before the first turn), and ``undo`` (the
log's last action taken back, the undo logged too). The work is the library's (:meth:`Ruleset.move`,
:func:`rangefire.rulesets.setup.check_edit`, :mod:`rangefire.record`); these map flags, and write as ``resolve``
does: with --log the action is logged first, then the battle written."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
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
)
from rangefire.core import RangefireError
from rangefire.core.moves import Edit, Mark, Move, MoveCheck
from rangefire.core.numbers import parse_exact
from rangefire.scenario import write_scenario

OutOpt = Annotated[Optional[Path], typer.Option("--out", help="write the battle after it to FILE")]  # noqa: UP045
LogOpt = Annotated[Optional[str], typer.Option("--log", metavar="PATH", help="append the action to this log (one JSON line, written before the battle; see replay)")]  # noqa: UP045, E501
Unit = Annotated[str, typer.Argument(metavar="UNIT", help="the unit (model, card) that moves", show_default=False)]


def _point(flag: str, value: str | None) -> tuple[Fraction, Fraction] | None:
    """``--to 12,4.5``: two numbers, read exactly as a scenario's are."""
    if value is None:
        return None
    parts = value.split(",")
    if len(parts) != 2:
        raise RangefireError(f"{flag} {value!r}: give two numbers X,Y (for instance {flag} 12,4.5)")
    try:
        return parse_exact(parts[0].strip()), parse_exact(parts[1].strip())
    except ValueError as exc:
        raise RangefireError(f"{flag} {value!r}: {exc}") from None


def _number(flag: str, value: str | None) -> Fraction | None:
    if value is None:
        return None
    try:
        return parse_exact(value.strip())
    except ValueError as exc:
        raise RangefireError(f"{flag} {value!r}: {exc}") from None


def _played(scenario: Path, settings: list[str] | None, out_file: Path | None, log_name: str | None,
            as_json: bool, what: str, name: str,
            check: Callable[[Any, Any], MoveCheck], record: Callable[..., Any]) -> None:
    """Check the action on the battle read, then (legal) log it and write the battle after it; a refusal by the
    rules is said with its clauses (exit 1), nothing written."""
    from rangefire.cli.writing import BATTLE, Writes, check_log, check_log_name, check_output
    from rangefire.core.moves import IllegalMoveError
    from rangefire.record import battle_digest, check_appendable, check_log_game

    writes = Writes(scenario, None, out_file, what)
    with user_errors(as_json), writes.guarded():
        writes.log = log_file = check_log_name(log_name)
        no_log_with_set(settings, log_file)
        if out_file is not None:
            check_output("--out", out_file, BATTLE)
        if log_file is not None:
            if out_file is None:
                raise RangefireError("--log without --out: the log would hold an action no battle file holds; name "
                                     "the file to write the battle after it (--out, which may be the scenario)")
            check_appendable(log_file, apart_from=(scenario, out_file))
        ruleset, battle, as_written = load_set(scenario, settings)
        writes.ruleset = ruleset
        before_data = as_written or ruleset.dump(battle)
        if log_file is not None:
            check_log_game(log_file, ruleset.key)  # a log of another game: said
            check_log(log_file, scenario, out_file, battle_digest(before_data))  # a log past this battle: said
        checked = check(ruleset, battle)
        if not checked.is_legal:
            raise IllegalMoveError(checked.refusals)
        after_data = ruleset.dump(checked.after)
        writes.after = battle_digest(after_data)
        if log_file is not None:
            writes.append(record(ruleset, checked, battle_digest(before_data), writes.after))
        if out_file is not None:
            writes.write(lambda: write_scenario(out_file, after_data, original=scenario, before=before_data))
        if as_json:
            _emit({"ruleset": ruleset.key, "action": name, **checked.to_dict(),
                   "side_to_act": ruleset.side_to_act(checked.after), "battle": after_data})
            return
        from rich.text import Text

        out.print(Text.assemble((what, "bold"), f" ({shown(ruleset.title)})"))
        for entry in checked.log:
            out.print(line(entry.clause, entry.text))
        if out_file is not None:
            out.print(text(f"the battle after it is written to {out_file}"))
        else:
            out.print(text("nothing written (--out FILE writes the battle after it)"))
        if log_file is not None:
            out.print(text(f"logged in {log_file}"))


@app.command()
def move(
    scenario: Scenario,
    unit: Unit,
    to: Annotated[Optional[str], typer.Option("--to", metavar="X,Y", help="the new position (as the scenario places the unit)")] = None,  # noqa: UP045, E501
    by: Annotated[Optional[str], typer.Option("--by", metavar="DX,DY", help="an offset from where it stands")] = None,  # noqa: UP045
    facing: Annotated[Optional[str], typer.Option("--facing", metavar="DEG", help="the new facing (0 faces +y, 90 faces +x)")] = None,  # noqa: UP045, E501
    turn: Annotated[Optional[str], typer.Option("--turn", metavar="DEG", help="degrees to turn, clockwise (negative: anticlockwise)")] = None,  # noqa: UP045, E501
    formation: Annotated[Optional[str], typer.Option("--formation", help="dress-on-the-colors: line, march-column or skirmish")] = None,  # noqa: UP045, E501
    run: Annotated[bool, typer.Option("--run", help="bushido: the move is a run (the model is marked ran)")] = False,
    mission: Annotated[Optional[str], typer.Option("--mission", help="swerve: the mission the card moves to")] = None,  # noqa: UP045
    out_file: OutOpt = None,
    log_name: LogOpt = None,
    as_json: JsonOpt = False,
    settings: SetOpt = None,
) -> None:
    """Move a unit: a new position (--to or --by), facing (--facing or --turn) and/or formation, checked clause by
    clause (DC-10, AL-10, BU-9, SW-9); the log says the distance and what the move did to the rules."""
    made: list[Move] = []

    def check(ruleset: Any, battle: Any) -> MoveCheck:
        asked = Move(unit, to=_point("--to", to), by=_point("--by", by), facing=_number("--facing", facing),
                     turn=_number("--turn", turn), formation=formation, run=run, mission=mission)
        made.append(asked)
        return ruleset.check_move(battle, asked)  # type: ignore[no-any-return]

    def record(ruleset: Any, checked: MoveCheck, before: str, after: str) -> Any:
        from rangefire.record import move_action

        return move_action(ruleset, made[-1], checked, before, after)

    _played(scenario, settings, out_file, log_name, as_json, f"the move of {unit}", "move", check, record)


@app.command()
def mark(
    scenario: Scenario,
    unit: Unit,
    state: Annotated[str, typer.Argument(metavar="STATE", help="bushido: will_move, aimed or prone", show_default=False)],  # noqa: E501
    off: Annotated[bool, typer.Option("--off", help="clear the state instead of setting it")] = False,
    out_file: OutOpt = None,
    log_name: LogOpt = None,
    as_json: JsonOpt = False,
    settings: SetOpt = None,
) -> None:
    """Set (or with --off clear) a state a player sets on its own model in play (BU-9.1)."""
    asked = Mark(unit, state, not off)

    def record(ruleset: Any, checked: MoveCheck, before: str, after: str) -> Any:
        from rangefire.record import mark_action

        return mark_action(ruleset, asked, checked, before, after)

    what = f"{unit}'s {state} {'cleared' if off else 'set'}"
    _played(scenario, settings, out_file, log_name, as_json, what, "mark",
            lambda ruleset, battle: ruleset.check_mark(battle, asked), record)


def _edit(op: str, scenario: Path, section: str, uid: str, data_text: str | None, out_file: Path | None,
          log_name: str | None, as_json: bool, settings: list[str] | None) -> None:
    def check(ruleset: Any, battle: Any) -> MoveCheck:
        from rangefire.rulesets.setup import check_edit

        return check_edit(ruleset, battle, Edit(op, section, uid, _mapping(data_text)))

    def record(ruleset: Any, checked: MoveCheck, before: str, after: str) -> Any:
        from rangefire.record import edit_action

        return edit_action(ruleset, Edit(op, section, uid, _mapping(data_text)), checked, before, after)

    what = {"place": "placed", "change": "changed", "remove": "removed"}[op]
    _played(scenario, settings, out_file, log_name, as_json, f"set-up: {uid} {what}", "edit", check, record)


def _mapping(text: str | None) -> dict[str, Any]:
    """DATA as YAML, read as a scenario is (bounded, every value plain): a mapping of keys and values."""
    if text is None:
        return {}
    from rangefire.core import ScenarioError
    from rangefire.scenario import parse_scenario

    try:
        return parse_scenario(text, "yaml", source="DATA")
    except ScenarioError as exc:
        if any("top level must be a mapping" in p for p in exc.problems):
            raise RangefireError("DATA: must be a mapping of keys and values ('{side: union, stands: 4, ...}')") \
                from None
        raise


Section = Annotated[str, typer.Argument(metavar="SECTION", help="units or terrain (swerve: cards)", show_default=False)]
ItemId = Annotated[str, typer.Argument(metavar="ID", help="the id of the unit, piece of terrain or card", show_default=False)]  # noqa: E501


@app.command()
def place(scenario: Scenario, section: Section, uid: ItemId,
          data: Annotated[str, typer.Argument(metavar="DATA", help="the item as YAML: '{side: union, stands: 4, ...}'", show_default=False)],  # noqa: E501
          out_file: OutOpt = None, log_name: LogOpt = None, as_json: JsonOpt = False,
          settings: SetOpt = None) -> None:
    """Set-up: place a unit, a piece of terrain (swerve: a card) before the first turn (DC-10.4, AL-10.3, BU-9.3,
    SW-9.2), checked as a scenario file is."""
    _edit("place", scenario, section, uid, data, out_file, log_name, as_json, settings)


@app.command()
def change(scenario: Scenario, section: Section, uid: ItemId,
           data: Annotated[str, typer.Argument(metavar="DATA", help="the keys to set as YAML: '{stands: 3}'", show_default=False)],  # noqa: E501
           out_file: OutOpt = None, log_name: LogOpt = None, as_json: JsonOpt = False,
           settings: SetOpt = None) -> None:
    """Set-up: change keys of a unit, a piece of terrain or a card before the first turn."""
    _edit("change", scenario, section, uid, data, out_file, log_name, as_json, settings)


@app.command()
def remove(scenario: Scenario, section: Section, uid: ItemId, out_file: OutOpt = None, log_name: LogOpt = None,
           as_json: JsonOpt = False, settings: SetOpt = None) -> None:
    """Set-up: remove a unit, a piece of terrain or a card before the first turn."""
    _edit("remove", scenario, section, uid, None, out_file, log_name, as_json, settings)


@app.command()
def undo(
    scenario: Scenario,
    log_name: Annotated[str, typer.Option("--log", metavar="PATH", help="the log whose last action is taken back (the scenario is the battle it starts from)")],  # noqa: E501
    out_file: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Take back the log's last action still standing: the log is replayed on SCENARIO (the battle it starts
    from, as for replay), the battle before that action restored and written (--out), and the undo appended to
    the log, naming what it took back; it stays there, as every action does."""
    from rangefire.cli.writing import BATTLE, Writes, check_log_name, check_output
    from rangefire.record import battle_digest, read_log, take_back

    writes = Writes(scenario, None, out_file, "the undo")
    with user_errors(as_json), writes.guarded():
        writes.log = log_file = check_log_name(log_name)
        assert log_file is not None
        if out_file is not None:
            check_output("--out", out_file, BATTLE, reading=(log_file,))
        ruleset, start, _ = load_set(scenario, None)
        writes.ruleset = ruleset
        actions = read_log(log_file)
        first = actions[0].battle_before if actions else None
        if first is not None and first != battle_digest(ruleset.dump(start)):
            raise RangefireError(f"{scenario} is not the battle {log_file} starts from (its line 1 was played on "
                                 "another); name the scenario the log began with, as for replay")
        try:
            current, restored, undone = take_back(ruleset, start, actions)
        except RangefireError as exc:  # a line of the log that does not replay: say which file it is in
            exc.args = (f"{log_file}: {exc}",)
            raise
        before, after_data = battle_digest(ruleset.dump(current)), ruleset.dump(restored)
        writes.after = battle_digest(after_data)
        record = undone.model_copy(update={"battle_before": before, "battle_after": writes.after})
        writes.append(record)
        if out_file is not None:
            writes.write(lambda: write_scenario(out_file, after_data))
        if as_json:
            _emit({"ruleset": ruleset.key, "action": "undo", "takes_back": record.takes_back, "what": record.what,
                   "dice": {k: list(v) for k, v in record.dice.items()},
                   "side_to_act": ruleset.side_to_act(restored), "battle": after_data})
            return
        dice = "; ".join(f"{stage} {' '.join(map(str, v))}" for stage, v in record.dice.items())
        out.print(text(f"undo: line {record.takes_back} ({record.what}) taken back" + (f"; its dice were {dice}"
                                                                                       if dice else "")))
        out.print(text(f"the undo is logged in {log_file}, line {len(actions) + 1}"))
        if out_file is not None:
            out.print(text(f"the battle before it is written to {out_file}"))


__all__ = ["change", "mark", "move", "place", "remove", "undo"]
