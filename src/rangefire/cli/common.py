"""What every command shares: the app, the two consoles, the options, the error guard, showing scenario text.

Scenario text (names, sides, weapons) reaches every table and log line: it is always printed as Text, never
read as Rich markup or emoji codes, and its control characters are shown, not sent (see ``shown``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rangefire.core import (
    FORMAT,
    Attack,
    RangefireError,
    error_data,
)
from rangefire.core.text import shown as shown  # re-exported: every command shows scenario text through it

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Ranged combat for tabletop games, rule for rule, with the exact odds of every outcome.",
)
# Scenario text (names, sides, weapons) reaches every table and log line: it is always printed as Text, never
# read as Rich markup or emoji codes, and its control characters are shown, not sent (see ``shown``).
out = Console(highlight=False, emoji=False)
err = Console(stderr=True, highlight=False, emoji=False)



def _print_version(value: bool) -> None:
    if value:
        from rangefire import __version__

        out.print(f"rangefire {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                                help="print the version and exit")] = False) -> None:
    """Ranged combat for tabletop games, rule for rule, with the exact odds of every outcome."""


Scenario = Annotated[Path, typer.Argument(help="scenario file (.yaml, .toml or .json), or - for standard input (JSON or YAML)", show_default=False)]  # noqa: E501
AttackerOpt = Annotated[str, typer.Option("--attacker", "-a", help="id of the attacking unit")]
TargetOpt = Annotated[Optional[str], typer.Option("--target", "-t", help="id of the target (omit where the rules choose)")]  # noqa: UP045, E501
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of tables")]
ActionsOpt = Annotated[Optional[str], typer.Option("--actions", help="swerve: the line of play, e.g. attacker:pass,defender:swerve-target")]  # noqa: UP045, E501


FromSideOpt = Annotated[Optional[str], typer.Option("--from-side", help="arcane-legions: the attacker's side to use")]  # noqa: UP045
ToSideOpt = Annotated[Optional[str], typer.Option("--to-side", help="arcane-legions: the target's side to attack")]  # noqa: UP045
OrderOpt = Annotated[Optional[str], typer.Option("--order", help="arcane-legions: ranged (default) or close")]  # noqa: UP045
RedirectOpt = Annotated[Optional[str], typer.Option("--redirect-to", help="bushido: the model the target's player nominates instead")]  # noqa: UP045, E501


def make_attack(attacker: str, target: str | None, actions: str | None = None, from_side: str | None = None,
                to_side: str | None = None, order: str | None = None, redirect_to: str | None = None) -> Attack:
    """An attack with the choices given on the command line (each game refuses those it does not know)."""
    choices: list[tuple[str, Any]] = []
    if actions is not None:
        choices.append(("actions", tuple(a for a in actions.split(",") if a.strip())))
    for name, value in (("from_side", from_side), ("to_side", to_side), ("order", order),
                        ("redirect_to", redirect_to)):
        if value is not None:
            choices.append((name, value))
    return Attack(attacker, target, tuple(choices))


def ask_choices(ruleset: Any, battle: Any, attack: Attack) -> Attack:
    """At a terminal, ask each player in turn for a choice from the legal ones (a swerve line of play, a Bushido
    nomination), until the game has nothing left to ask."""
    from rich.prompt import Prompt

    while (question := ruleset.next_choices(battle, attack)) is not None:
        who, legal = question
        for i, option in enumerate(legal, start=1):
            out.print(text(f"  {i}. {option}"))
        answer = Prompt.ask(text(f"{who}: choose"), choices=[str(i) for i in range(1, len(legal) + 1)], default="1",
                            console=out)
        attack = ruleset.with_choice(attack, legal[int(answer) - 1])
    return attack


def text(value: object, style: str = "") -> Text:
    """A piece of text to print as it is: never markup, never emoji codes, control characters shown."""
    return Text(shown(value), style=style)


def line(clause: str, rest: object) -> Table:
    """A log or plan line: the clause dimmed, then the text as it is; a long text wraps under itself, so the
    clauses stay a column of their own however narrow the terminal."""
    grid = Table.grid(padding=(0, 0, 0, 2))
    grid.add_column(width=9, justify="right", style="dim", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(shown(clause), Text(shown(rest)))
    return grid


@contextmanager
def user_errors(as_json: bool = False) -> Iterator[None]:
    """Turn rangefire's own errors into a one-line message on stderr and an exit code; no traceback.

    With ``as_json`` (the command's ``--json``) the error is JSON on stdout instead,
    ``{"format", "error": {"kind", "message", "path", "clause", ...}}`` (:func:`rangefire.core.error_data`),
    with the same exit code."""
    try:
        yield
    except RangefireError as exc:
        if as_json:
            _emit(error_data(exc))
        else:
            message = "\n".join(shown(part) for part in f"rangefire: {exc}".split("\n"))
            err.print(Text(message), soft_wrap=True)  # one line, however narrow the terminal
        raise typer.Exit(exc.exit_code) from None


#: A seed of more digits than this is refused (int() itself refuses past 4300; no seed needs 30).
MAX_SEED_DIGITS = 30


def parse_seed(value: str | None) -> int | None:
    """``--seed`` read as a whole number in our own words (the option parser's message is not)."""
    if value is None:
        return None
    digits = value.strip().removeprefix("-")
    if not (digits.isascii() and digits.isdigit()) or len(digits) > MAX_SEED_DIGITS:
        raise RangefireError(f"--seed {shown(value[:40])!r}: must be a whole number of at most {MAX_SEED_DIGITS} "
                             "digits")
    return int(value)


def _emit(data: dict[str, Any]) -> None:
    """Print one JSON object, its shape's version first (``"format"``: :data:`rangefire.core.FORMAT`)."""
    sys.stdout.write(json.dumps({"format": FORMAT, **data}, indent=2) + "\n")


def _percent(p: Any) -> str:
    return f"{float(p) * 100:6.2f}%"


