"""Dice asked for at the terminal, stage by stage: ``resolve --dice ask``, and ``resolve`` at a terminal with
neither ``--seed`` nor ``--dice``.

Each stage is asked for when the attack reaches it ("save: roll 3 dice, 4+ saves (3 hits on a natural 5+) >"),
so a player rolls the save dice knowing how many hits there were. A wrong count or a value that cannot come up is
refused with a one-line reason and asked again. Giving up changes nothing and writes nothing:

- end of input (Ctrl-D): "no dice entered; nothing changed", exit 2 (as any dice that cannot serve);
- Ctrl-C: "interrupted; nothing changed", exit 130 (128 + SIGINT, as a shell reports it).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

from rangefire.cli.common import err, out, text
from rangefire.core import AskedSource, DiceError, DiceSource, Question, parse_entered
from rangefire.core.source import ASK, Ask

if TYPE_CHECKING:
    from rich.console import Console

#: The exit code of a command interrupted by Ctrl-C at a prompt.
INTERRUPTED = 130


class NoDiceEntered(DiceError):
    """The input ended while dice were asked for: the attack is not played, nothing is written (exit 2)."""


def terminal_ask(console: Console) -> Ask:
    """A callback that asks at ``console`` until the values typed fit the question."""
    from rich.text import Text


    def ask(question: Question) -> tuple[int, ...]:
        if question.problem:
            console.print(text(f"{question.problem}: enter them again"))
        while True:
            try:
                typed = console.input(Text.assemble(text(question.prompt()), " > "))
            except EOFError:
                console.print()
                raise NoDiceEntered("no dice entered; nothing changed") from None
            try:
                return question.read(typed)
            except DiceError as exc:
                console.print(text(f"  {exc}"), soft_wrap=True)

    return ask


def asks(dice: Sequence[str] | None, seed: int | None, as_json: bool) -> bool:
    """Whether the dice are asked for: ``--dice ask``, or a terminal on both ends with no dice source named and
    no JSON wanted (JSON is for programs, which do not answer prompts)."""
    if dice and any(item.strip() == ASK for item in dice):
        if sys.stdin is None:
            raise DiceError("--dice ask: standard input is closed; there is no one to ask (give the dice with "
                            "--dice STAGE=v,v or a --seed)")
        return True
    return not dice and seed is None and not as_json and terminal_on_both_ends()


def terminal_on_both_ends() -> bool:
    """Whether standard input and output are both a terminal; either may be closed (``<&-``: None)."""
    return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))


def entered_source(stages: Sequence[str], dice: Sequence[str] | None, ask: bool, as_json: bool) -> DiceSource:
    """Dice entered with ``--dice`` first; with ``ask``, the stages not entered asked for at the terminal (on
    stderr beside ``--json``, whose stdout is one JSON object)."""
    asked = AskedSource(terminal_ask(err if as_json else out)) if ask else None
    return parse_entered(list(dice or ()), stages, asked)


@contextmanager
def interrupts() -> Iterator[None]:
    """Ctrl-C at a prompt: one line, exit 130; end of input at a choice: one line, exit 2. Nothing changed either
    way: the battle is written only after the attack is played."""
    try:
        yield
    except EOFError:
        err.print()
        err.print(text("rangefire: no choice entered; nothing changed"))
        raise typer.Exit(NoDiceEntered.exit_code) from None
    except KeyboardInterrupt:
        err.print()
        err.print(text("rangefire: interrupted; nothing changed"))
        raise typer.Exit(INTERRUPTED) from None
