"""Commands about the table as a whole: ``targets`` (who can shoot whom) and ``show`` (the battle drawn)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from rangefire.cli.common import (
    JsonOpt,
    Scenario,
    SetOpt,
    _emit,
    app,
    load_set,
    out,
    text,
    user_errors,
    with_choice_options,
)
from rangefire.core import NO_CHOICES, LimitError, RangefireError

if TYPE_CHECKING:  # the rows are made where they are used: a check that names its target never loads them;
    # Rich where a table is printed for people (an answer in JSON never loads it)
    from rich.text import Text

    from rangefire.analysis.targets import TargetRow

SideOpt = Annotated[Optional[str], typer.Option("--side", "-s", help="the side whose units fire (default: the side whose turn it is, else every side)")]  # noqa: UP045, E501
AttackerOnlyOpt = Annotated[Optional[str], typer.Option("--attacker", "-a", help="only this unit's targets")]  # noqa: UP045
ShowAttackerOpt = Annotated[Optional[str], typer.Option("--attacker", "-a", help="mark this unit's legal and refused targets")]  # noqa: UP045, E501
ShowTargetOpt = Annotated[Optional[str], typer.Option("--target", "-t", help="draw the line of fire or sight to this unit (needs --attacker)")]  # noqa: UP045, E501
DrawingOpt = Annotated[Path, typer.Option("--out", help="the picture to write: .svg or .png", show_default=False)]


def render_targets(ruleset: Any, rows: Sequence[TargetRow], title: str) -> None:
    """The rows as one table for people: refusals and dice wrap inside their column, so that the table
    stays whole at 80 columns; the exact means are in ``--json``. Where the terminal has no room for two
    columns of whole unit names beside the reasons, each attacker's rows are a table of their own under its
    name: a name is never broken across lines ("83rd-pennsylv / ania")."""
    from rich.table import Table

    if not rows:
        out.print(text(f"{title}: none (the battle holds no enemy of these units)"))  # not "no attackers"
        return
    outcome = ruleset.main_outcome.replace("_", " ")
    # Widths are set here rather than left to Rich, which narrows every column alike on a narrow terminal:
    # names and verdicts keep a readable width, the reasons take what is left and wrap.
    legal = 8 if any(row.chosen for row in rows) else 5  # 'yes, / chosen / [DC-2.3]' on three lines
    mean = 9 if any(row.limit or not row.exact for row in rows) else 7
    firer = min(max(len(text(row.attacker)) for row in rows), 20)  # longer names fold
    target = min(max(len(text(row.target)) for row in rows), 20)
    one_table = out.width - (16 + legal + mean) - firer - target >= 20  # 16: borders and padding of 5 columns
    rest = max(14, out.width - (16 + firer if one_table else 13) - legal - mean - target)

    def table_of(caption: str | None, attacker_column: bool) -> Table:
        table = Table(title=text(caption, "bold") if caption else None, title_justify="left")
        if attacker_column:
            table.add_column("attacker", overflow="fold", width=firer)
        table.add_column("target", overflow="fold", width=target)
        table.add_column("legal", width=legal)
        table.add_column("dice, or why not", overflow="fold", width=min(rest, 60))
        table.add_column(f"mean {outcome}", justify="right", width=mean)
        return table

    if one_table:
        table = table_of(title, attacker_column=True)
        for i, row in enumerate(rows):
            first = i == 0 or rows[i - 1].attacker != row.attacker
            last = i == len(rows) - 1 or rows[i + 1].attacker != row.attacker
            table.add_row(text(row.attacker if first else ""), text(row.target), _verdict(row), _dice(row),
                          _mean(row), end_section=last)
        out.print(table)
    else:
        out.print(text(title))
        attackers = list(dict.fromkeys(row.attacker for row in rows))
        for attacker in attackers:
            table = table_of(attacker if len(attackers) > 1 else None, attacker_column=False)  # one: the title says it
            for row in rows:
                if row.attacker == attacker:
                    table.add_row(text(row.target), _verdict(row), _dice(row), _mean(row))
            out.print(table)
    if any(row.chosen for row in rows):
        out.print(text(f"chosen: the target the rules choose when the attack names none [{ruleset.chooses_target}]"))


def _verdict(row: TargetRow) -> Text:
    from rich.text import Text

    if not row.legal:
        return Text("no", style="red")
    if row.chosen:
        return Text.assemble(("yes", "green"), ", chosen ", (f"[{row.chosen_by}]", "dim"))
    return Text("yes", style="green")


def _dice(row: TargetRow) -> Text:
    from rich.text import Text

    if row.legal and row.limit is not None:  # the reason stands where there is room for it
        return Text.assemble(text(row.dice), "\n", ("odds not computed: ", "yellow"), text(row.limit))
    if row.legal:
        return text(row.dice)
    reasons = Text()
    for i, refusal in enumerate(row.refusals):
        reasons.append("\n" if i else "")
        reasons.append_text(text(refusal.reason))
        reasons.append_text(text(f" [{refusal.clause}]", "dim"))
    return reasons


def _mean(row: TargetRow) -> Text:
    from rich.text import Text

    if not row.legal:
        return Text("")
    if row.limit is not None:
        return Text("not\ncomputed", style="yellow")
    assert row.mean is not None
    if not row.exact:
        return Text.assemble(f"~{float(row.mean):.3f}", ("\nestimate", "yellow"))
    return Text(f"{float(row.mean):.3f}")


@app.command()
def targets(scenario: Scenario, side: SideOpt = None, attacker: AttackerOnlyOpt = None,
            as_json: JsonOpt = False, settings: SetOpt = None) -> None:
    """Who can shoot whom: every unit of a side against every enemy, legal or not with the clause, the dice
    and the mean of the main outcome; the target the rules choose marked."""
    from rangefire.analysis.targets import targets as target_rows

    with user_errors(as_json):
        ruleset, battle, _ = load_set(scenario, settings)
        try:
            rows = target_rows(ruleset, battle, side=side, attacker=attacker)
        except LimitError as exc:  # the library says the way out in words; here, the options that take it
            raise LimitError(f"{exc} ({'--attacker' if side is not None else '--side or --attacker'})") from None
        if as_json:
            _emit({"targets": [row.to_dict() for row in rows]})
            return
        whose = (f"{attacker}'s targets" if attacker is not None else
                 f"targets of {side}" if side is not None else
                 f"targets of {acting} (whose turn it is)" if (acting := ruleset.side_to_act(battle)) else
                 "targets of every side")
        render_targets(ruleset, rows, whose)


@app.command()
@with_choice_options
def show(scenario: Scenario, out_file: DrawingOpt, attacker: ShowAttackerOpt = None,
         target: ShowTargetOpt = None, settings: SetOpt = None, as_json: JsonOpt = False,
         choices: Mapping[str, object] = NO_CHOICES) -> None:
    """Draw the battle to scale (.svg or .png): with an attacker its targets marked, with a target the line
    (with the choices given: an Arcane Legions side, an order)."""
    from rangefire.draw import draw_battle, write_drawing

    with user_errors(as_json):
        if target is not None and attacker is None:
            raise RangefireError("--target needs --attacker: name the unit that fires too")
        from rangefire.cli.writing import KINDS, check_output

        if out_file.suffix.lower() not in KINDS["drawing"].suffixes:  # said before the battle is read
            check_output("--out", out_file, "drawing")
        ruleset, battle, _ = load_set(scenario, settings)
        drawing = draw_battle(ruleset, battle, attacker, target, choices)  # the units named are checked here
        check_output("--out", out_file, "drawing", reading=(scenario,))  # before a PNG is drawn, or anything written
        write_drawing(drawing, out_file)
    if as_json:
        _emit({"ruleset": ruleset.key, "drawing": str(out_file)})
        return
    out.print(text(f"drawing written to {out_file}"))
