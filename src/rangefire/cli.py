"""The command line: ``rangefire rulesets | check | odds | resolve | demo`` (design section 5).

Every command takes ``--json``. Without it the output is for people: Rich tables, every modifier with its
clause. Errors go to stderr on one line with a non-zero exit (2 bad input, 1 an attack the rules refuse).
"""

from __future__ import annotations

import json
import random
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rangefire.core import (
    Attack,
    Check,
    IllegalAttackError,
    Odds,
    Plan,
    RangefireError,
    Resolution,
    SeededSource,
    fraction_str,
)
from rangefire.rulesets import RULESETS, load_battle
from rangefire.scenario import write_scenario

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

Scenario = Annotated[Path, typer.Argument(help="scenario file (.yaml, .toml or .json)", show_default=False)]
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


_HIDDEN = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def shown(value: object) -> str:
    r"""Text from a scenario as a terminal must show it: control and format characters (an escape sequence,
    a bell, a right-to-left override) written out as ``\x1b``, ``\u202e``, never acted on.

    >>> shown("yumi [masterwork]\x1b[2J\u202e")
    'yumi [masterwork]\\x1b[2J\\u202e'
    """
    text = str(value)
    if text.isprintable():
        return text
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in _HIDDEN else c for c in text)


def text(value: object, style: str = "") -> Text:
    """A piece of text to print as it is: never markup, never emoji codes, control characters shown."""
    return Text(shown(value), style=style)


def line(clause: str, rest: object) -> Text:
    """A log or plan line: the clause dimmed, then the text as it is."""
    return Text.assemble((f"  {shown(clause):>7}", "dim"), "  ", shown(rest))


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn rangefire's own errors into a one-line message on stderr and an exit code; no traceback."""
    try:
        yield
    except RangefireError as exc:
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


def _emit(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def _percent(p: Any) -> str:
    return f"{float(p) * 100:6.2f}%"


# -- rendering -------------------------------------------------------------------------------------
def render_plan(plan: Plan) -> None:
    table = Table(title=text(f"{plan.attacker} fires at {plan.target}"), show_header=False, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("value")
    for key, value in plan.summary():
        table.add_row(text(key), text(value))
    out.print(table)
    for note in plan.notes:
        out.print(line(note.clause, note.text))
    for m in plan.modifiers:
        out.print(line(m.clause, f"{m.delta:+d} {m.reason}"))
    if not plan.modifiers:
        out.print("  [dim]no modifiers[/dim]")


def render_refusals(check: Check) -> None:
    out.print(text(f"{check.attacker} may not fire" + (f" at {check.target}" if check.target else ""), "bold red"))
    for r in check.refusals:
        out.print(line(r.clause, r.reason))


def render_odds(odds: Odds) -> None:
    data = odds.to_dict()
    for name, dist in odds.outcomes.items():
        mean = float(Fraction(data["outcomes"][name]["mean"]))
        table = Table(title=text(f"{name} (mean {mean:.3f})"), title_justify="left")
        table.add_column("N", justify="right")
        table.add_column("exactly N", justify="right")
        table.add_column("", justify="right", style="dim")
        table.add_column("at least N", justify="right")
        table.add_column("", justify="right", style="dim")
        probs = dist.probabilities()  # type: ignore[attr-defined]
        for k, p in probs.items():
            at_least = dist.at_least(k)  # type: ignore[attr-defined]
            table.add_row(str(k), _percent(p), fraction_str(p), _percent(at_least), fraction_str(at_least))
        out.print(table)
    events = Table(title="events", title_justify="left")
    events.add_column("event")
    events.add_column("probability", justify="right")
    events.add_column("", justify="right", style="dim")
    for name, p in odds.events.items():
        events.add_row(text(name), _percent(p), fraction_str(p))
    out.print(events)
    if not odds.exact:
        out.print(Text.assemble(("estimate, not exact: ", "yellow"), shown(json.dumps(odds.estimate))))


def render_resolution(resolution: Resolution) -> None:
    for entry in resolution.log:
        out.print(line(entry.clause, entry.text))
    summary = ", ".join(f"{k} {v}" for k, v in resolution.outcome.items())
    out.print(Text.assemble(("  outcome:", "bold"), " ", shown(summary)))


def render_lines(extra: Any) -> None:
    out.print(Text.assemble(("best line", "bold"), " (each side maximising its own chance): ",
                            shown(", ".join(extra["best_line"]))))
    table = Table(title="lines of play" + (" (cut)" if extra["lines_cut"] else ""), title_justify="left")
    table.add_column("actions")
    table.add_column("attacker wins", justify="right")
    table.add_column("", justify="right", style="dim")
    for line in extra["lines"]:
        p = Fraction(line["attacker_wins"])
        table.add_row(text(", ".join(line["actions"])), _percent(p), text(line["attacker_wins"]))
    out.print(table)


def render_nominations(nominations: Any) -> None:
    """The odds if the target's player nominates another model instead (Bushido)."""
    table = Table(title="if the target's player nominates instead", title_justify="left")
    for col in ("model", "hit", "", "mean wounds"):
        table.add_column(col, justify="right" if col != "model" else "left", style="dim" if col == "" else None)
    for uid, alt in nominations.items():
        hit = alt["events"]["hit"]
        mean = float(Fraction(alt["outcomes"]["wounds"]["mean"]))
        table.add_row(text(uid), _percent(Fraction(hit)), hit, f"{mean:.3f}")
    out.print(table)


def render_status(title: str, rows: Sequence[dict[str, Any]]) -> None:
    if not rows:
        return
    table = Table(title=text(title), title_justify="left")
    for col in rows[0]:
        table.add_column(text(col))
    for row in rows:
        table.add_row(*(text(v) for v in row.values()))
    out.print(table)


# -- commands --------------------------------------------------------------------------------------
@app.command()
def rulesets(as_json: JsonOpt = False) -> None:
    """List the games, their options and their defaults."""
    rows: list[dict[str, Any]] = [{"key": r.key, "title": r.title, "aliases": list(r.aliases), "stages": list(r.stages),
             "outcomes": list(r.outcome_names), "events": list(r.event_names), "options": r.default_options()}
            for r in RULESETS]
    if as_json:
        _emit({"rulesets": rows})
        return
    table = Table(title="rulesets", title_justify="left")
    table.add_column("key (aliases)", no_wrap=True)
    table.add_column("dice stages")
    table.add_column("options (defaults)", no_wrap=True)
    for row in rows:
        opts = "\n".join(f"{k} = {json.dumps(v)}" for k, v in row["options"].items())
        name = Text.assemble(row["key"], "\n", (f"{row['title']}\n{', '.join(row['aliases'])}", "dim"))
        table.add_row(name, text("\n".join(row["stages"])), text(opts))
    out.print(table)


@app.command()
def check(scenario: Scenario, attacker: AttackerOpt, target: TargetOpt = None, as_json: JsonOpt = False,
          actions: ActionsOpt = None, from_side: FromSideOpt = None, to_side: ToSideOpt = None,
          order: OrderOpt = None, redirect_to: RedirectOpt = None) -> None:
    """May ATTACKER shoot TARGET? The plan, or the refusals with their clauses (exit 1 when refused)."""
    with user_errors():
        ruleset, battle = load_battle(scenario)
        checked = ruleset.check(battle, make_attack(attacker, target, actions, from_side, to_side, order,
                                                    redirect_to))
        if as_json:
            _emit(checked.to_dict(ruleset.key))
        elif checked.plan is not None:
            render_plan(checked.plan)
        else:
            render_refusals(checked)
    if not checked.is_legal:
        raise typer.Exit(1)


@app.command()
def odds(scenario: Scenario, attacker: AttackerOpt, target: TargetOpt = None, as_json: JsonOpt = False,
         actions: ActionsOpt = None, from_side: FromSideOpt = None, to_side: ToSideOpt = None,
         order: OrderOpt = None, redirect_to: RedirectOpt = None,
         plot: Annotated[Optional[Path], typer.Option(help="write a chart of the distributions (.png, .svg, .pdf)")] = None,  # noqa: UP045, E501
         ) -> None:
    """The exact distribution of every named outcome of an attack."""
    with user_errors():
        ruleset, battle = load_battle(scenario)
        checked = ruleset.check(battle, make_attack(attacker, target, actions, from_side, to_side, order,
                                                    redirect_to))
        if checked.plan is None:
            if as_json:
                _emit({**checked.to_dict(ruleset.key), "outcomes": {}, "events": {}, "exact": True})
                raise typer.Exit(1)
            raise IllegalAttackError(checked.refusals)
        result = ruleset.odds(checked.plan)
        if plot is not None:
            from rangefire.analysis.plots import plot_odds

            plot_odds(result, plot)
        if as_json:
            _emit(result.to_dict())
            return
        render_plan(checked.plan)
        render_odds(result)
        if "best_line" in result.extra:
            render_lines(result.extra)
        if "nominations" in result.extra:
            render_nominations(result.extra["nominations"])
        if plot is not None:
            out.print(text(f"chart written to {plot}"))


@app.command()
def resolve(
    scenario: Scenario,
    attacker: AttackerOpt,
    target: TargetOpt = None,
    seed_text: Annotated[Optional[str], typer.Option("--seed", metavar="INTEGER", help="seed for random dice (the same seed, the same battle)")] = None,  # noqa: UP045, E501
    dice: Annotated[Optional[list[str]], typer.Option("--dice", help="dice rolled by hand: STAGE=v,v,... (repeatable)")] = None,  # noqa: UP045, E501
    out_file: Annotated[Optional[Path], typer.Option("--out", help="write the battle after the attack to FILE")] = None,  # noqa: UP045
    actions: ActionsOpt = None,
    from_side: FromSideOpt = None,
    to_side: ToSideOpt = None,
    order: OrderOpt = None,
    redirect_to: RedirectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Play an attack out with seeded or entered dice, and optionally write the battle after it."""
    with user_errors():
        seed = parse_seed(seed_text)
        ruleset, battle = load_battle(scenario)
        if dice and seed is not None:
            raise RangefireError("give either --seed or --dice, not both")
        if dice:
            source: Any = ruleset.entered_dice(dice)
        else:
            seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
            source = SeededSource(seed)
        attack = make_attack(attacker, target, actions, from_side, to_side, order, redirect_to)
        if actions is None and redirect_to is None and sys.stdin.isatty() and not as_json:
            attack = ask_choices(ruleset, battle, attack)
        resolution, after = ruleset.play(battle, attack, source)
        after_data = ruleset.dump(after)
        if out_file is not None:
            write_scenario(out_file, after_data)
        if as_json:
            _emit({**resolution.to_dict(), "seed": seed if not dice else None, "battle": after_data})
            return
        render_plan(resolution.plan)
        out.print(Text.assemble(("resolution", "bold"), f" ({'entered dice' if dice else f'seed {seed}'})"))
        render_resolution(resolution)
        if out_file is not None:
            out.print(text(f"battle after the attack written to {out_file}"))


@app.command()
def demo(seed_text: Annotated[str, typer.Option("--seed", metavar="INTEGER", help="seed of the first attack")] = "1863",
         as_json: JsonOpt = False) -> None:
    """Play the built-in example battles attack by attack: the odds before, the log after."""
    from rangefire.demo import run_demo

    steps = []
    with user_errors():
        seed = parse_seed(seed_text)
        assert seed is not None
        for number, step in enumerate(run_demo(seed), start=1):
            if as_json:
                steps.append({"engagement": step.engagement,
                              "odds": step.odds.to_dict() if step.odds else step.check.to_dict("?"),
                              "resolution": step.resolution.to_dict() if step.resolution else None,
                              "status": list(step.status)})
                continue
            out.rule(Text.assemble((shown(step.engagement), "bold"), f": attack {number}"))
            if step.odds is None or step.resolution is None:
                render_refusals(step.check)
                if step.last:
                    render_status(f"{step.engagement}: after the last attack", step.status)
                continue
            render_plan(step.odds.plan)
            render_odds(step.odds)
            if "best_line" in step.odds.extra:
                out.print(Text.assemble(("best line", "bold"), ": ", shown(", ".join(step.odds.extra["best_line"]))))
            out.print("[bold]the attack[/bold]")
            render_resolution(step.resolution)
            if step.last:
                render_status(f"{step.engagement}: after the last attack", step.status)
        if as_json:
            _emit({"steps": steps})


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
