"""What every command shares: the app, the two consoles, the options, the error guard, showing scenario text.

Scenario text (names, sides, weapons) reaches every table and log line: it is always printed as Text, never
read as Rich markup or emoji codes, and its control characters are shown, not sent (see ``shown``).
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional, cast

import typer

from rangefire.core import (
    FORMAT,
    Attack,
    Choice,
    ChoiceError,
    RangefireError,
    Ruleset,
    error_data,
)
from rangefire.core.text import shown as shown  # re-exported: every command shows scenario text through it

if TYPE_CHECKING:  # rich loads where a command prints for people (see _Console)
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from rangefire.scenario.paths import Setting

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Ranged combat for tabletop games, rule for rule, with the exact odds of every outcome.",
)
# Scenario text (names, sides, weapons) reaches every table and log line: it is always printed as Text, never
# read as Rich markup or emoji codes, and its control characters are shown, not sent (see ``shown``).
class _Console:
    """A Rich console made at its first use: loading Rich is a tenth of a start, and a command that answers in
    JSON (``--json``) prints none of it."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
            self._console.on_broken_pipe = _pipe_closed  # type: ignore[method-assign]  # said as the command's
        return getattr(self._console, name)


def _pipe_closed() -> None:
    """Rich's answer to a closed pipe is exit 1, the code of an attack the rules refuse: the error is raised
    instead, for the command line to end as it ends any program whose reader has gone (exit 141)."""
    raise BrokenPipeError("the reader of the output has gone")


out = cast("Console", _Console(highlight=False, emoji=False))
err = cast("Console", _Console(stderr=True, highlight=False, emoji=False))



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
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", metavar="PATH=VALUE", help="change a value for this run (repeatable): a house rule, options.NAME...=V (see rulesets GAME), or a what-if, units.ID.FIELD=V")]  # noqa: UP045, E501


ViewOpt = Annotated[Optional[str], typer.Option("--side", metavar="SIDE", help="see the battle as SIDE sees it: another player's hand of cards unknown, none of its tactics assumed (swerve, SW-1.4); without it, the whole battle the file holds")]  # noqa: UP045, E501


def seen_as(ruleset: Ruleset[Any, Any], battle: Any, side: str | None,
            as_json: bool) -> tuple[Any, dict[str, Any] | None]:
    """The battle as ``--side`` sees it (the whole battle without it) and what is kept from that side; without
    it, where a side would not see everything, a person is told that this is the whole battle."""
    if side is None:
        if ruleset.kept_from(battle, None) and not as_json:
            out.print(text("the whole battle, every hand of cards counted (--side S: the battle as S sees it)"))
        return battle, None
    sides = ruleset.sides(battle)
    if side not in sides:
        raise RangefireError(f"--side {side!r}: not a side of this battle (its sides: {', '.join(sides)})")
    return ruleset.seen_as(battle, side)


def say_hidden(hidden: dict[str, Any] | None) -> None:
    """Tell a person the answer is worked out on one side's view, where anything is kept from it."""
    if hidden:
        out.print(text(hidden["note"]))


def settings_from(texts: Sequence[str] | None) -> list[Setting]:
    """The ``--set`` options read into the library's settings."""
    from rangefire.scenario.paths import parse_setting

    return [parse_setting(t, source="--set") for t in texts or ()]


def load_set(scenario: Path, texts: Sequence[str] | None) -> tuple[Ruleset[Any, Any], Any, dict[str, Any] | None]:
    """The battle with the ``--set`` values made, and the battle as the file has it (its dump; None when
    nothing is set), against which a command that writes the battle back tells what changed: the values set
    are written too, so the file written is the battle that was played."""
    from rangefire.rulesets import load_battle

    settings = settings_from(texts)
    ruleset, battle = load_battle(scenario, settings)
    if not settings:
        return ruleset, battle, None
    _, as_written = load_battle(scenario)
    return ruleset, battle, ruleset.dump(as_written)


@contextmanager
def option_named(flag: str) -> Iterator[None]:
    """An error raised inside is said as the option's: the library's messages name files, never flags
    (``--plot out/odds.png: cannot write (No such file or directory)``)."""
    try:
        yield
    except RangefireError as exc:
        exc.args = (f"{flag} {exc}",)
        raise


def no_log_with_set(texts: Sequence[str] | None, log_file: Path | None) -> None:
    """A log is replayed against the scenario file as written; an action played with values set would not
    replay the same, so the two are not combined."""
    if texts and log_file is not None:
        raise RangefireError("--log with --set: a log replays against the scenario as written; write the battle "
                             "with the values set (--out) and log against that file")


# -- the games' choices as options -----------------------------------------------------------------
def flag(name: str) -> str:
    """The command line's spelling of a choice: ``redirect_to`` is ``--redirect-to``."""
    return "--" + name.replace("_", "-")


def declared_choices() -> dict[str, tuple[Choice, tuple[str, ...]]]:
    """Every choice a game declares, by name, with the keys of the games that declare it (in registry order);
    read from the registry's table, so that making the options loads no game."""
    from rangefire.rulesets import GAMES

    found: dict[str, tuple[Choice, tuple[str, ...]]] = {}
    for game in GAMES:
        for choice in game.choices:
            first, games = found.get(choice.name, (choice, ()))
            found[choice.name] = (first, (*games, game.key))
    return found


def choice_option(choice: Choice, games: tuple[str, ...]) -> Any:
    """The one place a declared choice becomes an option: ``--redirect-to ID``, its help naming the games."""
    return Annotated[Optional[str], typer.Option(flag(choice.name), help=f"{', '.join(games)}: {choice.help}",  # noqa: UP045
                                                 show_default=False)]


def with_choice_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give a command one option per choice the games declare (``--order``, ``--redirect-to``...); the values
    given reach it as its ``choices`` parameter, a mapping from choice name to the text typed."""
    declared = declared_choices()
    signature = inspect.signature(command, eval_str=True)
    params = [p for p in signature.parameters.values() if p.name != "choices"]
    params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                 annotation=choice_option(choice, games))
               for name, (choice, games) in declared.items()]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        given = {name: kwargs.pop(name, None) for name in declared}
        empty = [name for name, value in given.items() if value is not None and not value.strip()]
        if empty:  # a game reads an empty text as no choice made: the attack would be played as if none was given
            with user_errors(bool(kwargs.get("as_json"))):
                raise ChoiceError(empty[0], f"{empty[0]}: an empty value; give one or leave the option out")
        command(*args, **kwargs, choices={name: value for name, value in given.items() if value is not None})

    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper


def make_attack(ruleset: Ruleset[Any, Any], attacker: str, target: str | None,
                choices: Mapping[str, object]) -> Attack:
    """An attack with the choices given on the command line, checked against the game's declaration."""
    return ruleset.attack(attacker, target, choices)


def error_text(exc: RangefireError) -> str:
    """An error as the command line says it: a choice named by its option (``--order``, not ``order``)."""
    message = str(exc)
    if isinstance(exc, ChoiceError):
        spelled = flag(exc.choice)
        return spelled + message.removeprefix(exc.choice) if message.startswith(exc.choice) else \
            f"{spelled}: {message}"
    return message


def ask_choices(ruleset: Any, battle: Any, attack: Attack) -> Attack:
    """At a terminal, ask each player in turn for a choice from the legal ones (a swerve line of play, a Bushido
    nomination), until the game has nothing left to ask."""
    from rich.prompt import Prompt

    while (question := ruleset.next_choice(battle, attack)) is not None:
        legal = question.allowed
        for i, option in enumerate(legal, start=1):
            out.print(text(f"  {i}. {option}"))
        asked = f"{question.who}: {question.question} [{question.clause}]" if question.question else question.who
        answer = Prompt.ask(text(f"{asked}; choose"), choices=[str(i) for i in range(1, len(legal) + 1)],
                            default="1", console=out)
        attack = ruleset.with_choice(attack, legal[int(answer) - 1])
    return attack


def text(value: object, style: str = "") -> Text:
    """A piece of text to print as it is: never markup, never emoji codes, control characters shown."""
    from rich.text import Text

    return Text(shown(value), style=style)


def line(clause: str, rest: object) -> Table:
    """A log or plan line: the clause dimmed, then the text as it is; a long text wraps under itself, so the
    clauses stay a column of their own however narrow the terminal."""
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 0, 0, 2))
    grid.add_column(width=9, justify="right", style="dim", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(shown(clause), Text(shown(choices_as_flags(str(rest)))))
    return grid


def choices_as_flags(said: str) -> str:
    """The library names a player's choice as ``(choice redirect_to)``; at the command line that is the option
    ``(--redirect-to)``."""
    return re.sub(r"\(choice ([a-z_]+)\)", lambda m: f"({flag(m[1])})", said)


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
            from rich.text import Text

            message = "\n".join(shown(part) for part in f"rangefire: {error_text(exc)}".split("\n"))
            err.print(Text(message), soft_wrap=True)  # one line, however narrow the terminal
        raise typer.Exit(exc.exit_code) from None


def check_words(command: Any, args: Sequence[str], as_json: bool) -> None:
    """Refuse, before the command runs, what the option parser would take without a word from ``args`` (the
    command line's words; ``command`` is the parser's command, its ``params``):

    - an option of one value given twice: it keeps the last (flags, and options given many times by design,
      ``--set``, ``--vary``, are let be);
    - an empty path given to an argument or option that names a file: it reads it as ``.``, the folder one is in
      (an output option read as text says the same through :func:`rangefire.cli.writing.typed_path`).
    """
    takes_value: dict[str, Any] = {}  # every spelling of an option that takes a value: the option
    for param in command.params:
        if getattr(param, "param_type_name", None) == "option" and not param.is_flag and not param.count:
            takes_value.update(dict.fromkeys([*param.opts, *param.secondary_opts], param))
    words = list(args)
    i = next((i for i, w in enumerate(words) if not w.startswith("-")), len(words)) + 1  # after the command
    seen: dict[str, tuple[str, str]] = {}
    positional: list[str] = []
    while i < len(words):
        word, i = words[i], i + 1
        if word == "--":
            positional += words[i:]
            break
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        name, value = word.partition("=")[::2] if word.startswith("--") else (word[:2], word[2:])
        param = takes_value.get(name)
        if param is None:
            continue
        if not value and "=" not in word and i < len(words):
            value, i = words[i], i + 1
        said = next((n for n in param.opts if n.startswith("--")), name)  # its long spelling (--attacker, not -a)
        if not value and _names_a_file(param):
            _refuse(f"{said}: the path is empty; name a file", as_json)
        if param.multiple:
            continue
        if said in seen:
            first, was = seen[said]
            _refuse(f"{said} is given twice ({first} {shown(was[:40])!r}, then {name} {shown(value[:40])!r}): an "
                    "option of one value is given once", as_json)
        seen[said] = (name, value)
    arguments = [p for p in command.params if getattr(p, "param_type_name", None) == "argument"]
    many = next((k for k, p in enumerate(arguments) if p.nargs == -1), None)  # compare's scenarios
    if many is not None:  # the words left to the others are its own
        after = len(arguments) - many - 1
        arguments[many:many + 1] = [arguments[many]] * max(0, len(positional) - many - after)
    for argument, word in zip(arguments, positional, strict=False):
        if not word and _names_a_file(argument):
            _refuse(f"{argument.name}: the path is empty; name a file", as_json)


def _names_a_file(param: Any) -> bool:
    return getattr(param.type, "name", None) == "path"


def _refuse(message: str, as_json: bool) -> None:
    with user_errors(as_json):
        raise RangefireError(message)


#: A seed or a count of more digits than this is refused (int() itself refuses past 4300; none needs 30).
MAX_SEED_DIGITS = 30


def parse_seed(value: str | None) -> int | None:
    """``--seed`` read as a whole number in our own words (the option parser's message is not).

    One rule for every command's seed: a whole number from 0. Python's generator rolls the same dice for -5 as
    for 5 (it seeds from the absolute value), so a negative seed would name another seed's battle; numpy's,
    which the Monte Carlo estimates use, refuses it."""
    number = whole_number("--seed", value)
    if number is not None and number < 0:
        raise RangefireError(f"--seed {number}: must be 0 or more (a seed is a whole number from 0)")
    return number


def whole_number(flag: str, value: str | None) -> int | None:
    """A whole-number option read in our own words, naming the option and the value as typed
    (``--turns 'abc': must be a whole number``); the option parser would answer in its validator's."""
    if value is None:
        return None
    digits = value.strip().removeprefix("-")
    if not (digits.isascii() and digits.isdigit()):
        raise RangefireError(f"{flag} {shown(value[:40])!r}: must be a whole number")
    if len(digits) > MAX_SEED_DIGITS:
        raise RangefireError(f"{flag} {shown(value[:20])}... ({len(digits):,} digits): must be a whole number of at "
                             f"most {MAX_SEED_DIGITS} digits")
    return int(value)


def number_option(flag: str, value: str) -> float:
    """A number option (``--connect-timeout 2.5``) read in our own words, as :func:`whole_number` reads one."""
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if len(value) > 40 or number != number or number in (float("inf"), float("-inf")):
        raise RangefireError(f"{flag} {shown(value[:40])!r}: must be a number")
    return number


def _emit(data: dict[str, Any]) -> None:
    """Print one JSON object, its shape's version first (``"format"``: :data:`rangefire.core.FORMAT`)."""
    sys.stdout.write(json.dumps({"format": FORMAT, **data}, indent=2) + "\n")




