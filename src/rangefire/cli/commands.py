"""The commands of design section 5: ``rulesets``, ``check``, ``odds``, ``resolve``, ``demo``."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from rangefire.cli.common import (
    AttackerOpt,
    JsonOpt,
    Scenario,
    SetOpt,
    TargetOpt,
    ViewOpt,
    _emit,
    app,
    ask_choices,
    flag,
    load_set,
    make_attack,
    no_log_with_set,
    option_named,
    out,
    parse_seed,
    say_hidden,
    seen_as,
    shown,
    text,
    user_errors,
    with_choice_options,
)
from rangefire.core import (
    NO_CHOICES,
    IllegalAttackError,
    RangefireError,
    SeededSource,
)
from rangefire.core.options import house_rules, option_rows
from rangefire.core.outputs import check_output, odds_output, refused_odds_output, resolve_output
from rangefire.rulesets import RULESETS, find_ruleset
from rangefire.scenario import write_scenario

if TYPE_CHECKING:
    from rich.text import Text

# Rich, and the rendering for people with it, is imported where a command prints for people: an answer in JSON
# (``--json``) never loads it, a tenth of a start.


# -- commands --------------------------------------------------------------------------------------
@app.command()
def rulesets(
    game: Annotated[Optional[str], typer.Argument(metavar="[GAME]", help="one game's key or alias: every option it has, by path, with its default and clause", show_default=False)] = None,  # noqa: UP045, E501
    as_json: JsonOpt = False,
) -> None:
    """List the games, their options and their defaults; with GAME, every option of that game by path (each one
    settable in the scenario's options or with --set PATH=VALUE)."""
    with user_errors(as_json):
        games = list(RULESETS) if game is None else [find_ruleset(game)]
    rows: list[dict[str, Any]] = [
        {"key": r.key, "title": r.title, "aliases": list(r.aliases), "stages": list(r.stages),
         "outcomes": list(r.outcome_names), "events": list(r.event_names), "options": r.default_options(),
         "option_list": [row.to_dict() for row in option_rows(r.options_model)],
         "choices": [choice.to_dict() for choice in r.choices]}
        for r in games]
    if as_json:
        _emit({"rulesets": rows})
        return
    if game is not None:
        _one_game(rows[0], games[0])
        return
    from rich.table import Table
    from rich.text import Text

    def options_of(row: dict[str, Any]) -> list[str]:
        n = len(row["option_list"])
        return [f"{n} option{'s' if n != 1 else ''}, each listed by", f"rulesets {row['key']}"]

    if out.width < NARROW:  # four columns of long option names would break every word: one block a game
        for row, ruleset in zip(rows, games, strict=True):
            out.print(Text.assemble((row["key"], "bold"), f"  {row['title']}; also {', '.join(row['aliases'])}"))
            out.print(Text("  stages: ") + text(", ".join(row["stages"])))
            out.print(Text("  ") + text(" ".join(options_of(row))))
            for c in ruleset.choices:
                out.print(Text("  choice ") + text(f"{flag(c.name)} {'|'.join(c.allowed) or c.kind.upper()} "
                                                  f"[{c.clause}]"))
        return
    table = Table(title="rulesets", title_justify="left")
    table.add_column("key (aliases)", no_wrap=True)
    table.add_column("dice stages", no_wrap=True)
    table.add_column("options", overflow="fold")
    table.add_column("player's choices", overflow="fold")
    for row, ruleset in zip(rows, games, strict=True):
        name = Text.assemble(row["key"], "\n", (f"{row['title']}\n{', '.join(row['aliases'])}", "dim"))
        chosen = [f"{flag(c.name)} {'|'.join(c.allowed) or c.kind.upper()} [{c.clause}]" for c in ruleset.choices]
        table.add_row(name, lines(row["stages"]), lines(options_of(row)), lines(chosen or ["none"]))
    out.print(table)


def _one_game(row: dict[str, Any], ruleset: Any) -> None:
    """One game for people: every option by path (default, clause, what it is), then the player's choices."""
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    out.print(Text.assemble((row["key"], "bold"), f"  {row['title']}; also {', '.join(row['aliases'])}"))
    out.print(Text("stages: ") + text(", ".join(row["stages"])))
    out.print(Text("set any option in the scenario's options, or for one run with --set PATH=VALUE", "dim"))
    if out.width < NARROW:
        for option in row["option_list"]:
            out.print(Text.assemble(text(option["path"], "bold"), " = ", text(json.dumps(option["default"])),
                                    f"  [{option['clause']}]"))
            if option["help"]:  # indented as a block: a help that wraps stays under its path
                out.print(Padding(text(option["help"], "dim"), (0, 0, 0, 4)))
    else:
        table = Table(title="options (the rules' values)", title_justify="left")
        table.add_column("path", no_wrap=True)
        table.add_column("default", no_wrap=True)
        table.add_column("clause", no_wrap=True)
        table.add_column("what it is", overflow="fold")
        for option in row["option_list"]:
            table.add_row(text(option["path"]), text(json.dumps(option["default"])), option["clause"],
                          text(option["help"]))
        out.print(table)
    for c in ruleset.choices:
        out.print(Text("choice ") + text(f"{flag(c.name)} {'|'.join(c.allowed) or c.kind.upper()} [{c.clause}]"))


#: Below this many columns, ``rulesets`` lists each game as a block instead of a table.
NARROW = 90


def lines(items: Iterable[str]) -> Text:
    """Items one to a line, each shown as it is."""
    from rich.text import Text

    return Text("\n").join(text(item) for item in items)


@app.command()
@with_choice_options
def check(scenario: Scenario, attacker: AttackerOpt, target: TargetOpt = None, as_json: JsonOpt = False,
          settings: SetOpt = None, choices: Mapping[str, object] = NO_CHOICES, side: ViewOpt = None) -> None:
    """May ATTACKER shoot TARGET? The plan, or the refusals with their clauses (exit 1 when refused).

    Without TARGET where the player names it (the rules choose none), every enemy is listed as a candidate,
    legal or not (exit 0 when one is legal). The whole battle is read (every hand of cards); --side S checks it
    as S sees it."""
    with user_errors(as_json):
        ruleset, battle, _ = load_set(scenario, settings)
        battle, hidden = seen_as(ruleset, battle, side, as_json)
        checked = ruleset.check(battle, make_attack(ruleset, attacker, target, choices))
        if target is None and ruleset.chooses_target is None:
            from rangefire.analysis.targets import targets
            from rangefire.cli.table import render_targets

            rows = targets(ruleset, battle, attacker=attacker)
            if as_json:
                _emit(check_output(ruleset.key, checked, [row.to_dict() for row in rows], house_rules(battle.options),
                                   hidden))
            else:
                say_hidden(hidden)
                render_targets(ruleset, rows, f"{attacker}'s candidates (name one with --target)")
            if not any(row.legal for row in rows):
                raise typer.Exit(1)
            return
        if as_json:
            _emit(check_output(ruleset.key, checked, house_rules=house_rules(battle.options), hidden=hidden))
        else:
            from rangefire.cli.render import render_house_rules, render_plan, render_refusals

            say_hidden(hidden)
            render_house_rules(battle.options)
            if checked.plan is not None:
                render_plan(checked.plan)
            else:
                render_refusals(checked)
    if not checked.is_legal:
        raise typer.Exit(1)


@app.command()
@with_choice_options
def odds(scenario: Scenario, attacker: AttackerOpt, target: TargetOpt = None, as_json: JsonOpt = False,
         settings: SetOpt = None, choices: Mapping[str, object] = NO_CHOICES,
         plot: Annotated[Optional[str], typer.Option(metavar="FILE", help="write a chart of the distributions (.png, .svg, .pdf)")] = None,  # noqa: UP045, E501
         side: ViewOpt = None) -> None:
    """The exact distribution of every named outcome of an attack. The whole battle is read (every hand of cards,
    each player's tactics counted); --side S works the odds out on what S sees."""
    with user_errors(as_json):
        chart = None
        if plot is not None:  # said before any odds are worked out
            from rangefire.cli.writing import check_output

            chart = check_output("--plot", plot, "chart", reading=(scenario,))
        ruleset, battle, _ = load_set(scenario, settings)
        battle, hidden = seen_as(ruleset, battle, side, as_json)
        checked = ruleset.check(battle, make_attack(ruleset, attacker, target, choices))
        if checked.plan is None:
            if as_json:
                _emit(refused_odds_output(ruleset.key, checked, house_rules(battle.options), hidden))
                raise typer.Exit(1)
            raise IllegalAttackError(checked.refusals)
        result = ruleset.odds(checked.plan)
        if chart is not None:
            from rangefire.analysis.plots import plot_odds

            with option_named("--plot"):
                plot_odds(result, chart, conditions=ruleset.conditions, battle=str(getattr(battle, "name", "") or ""),
                          house_rules=house_rules(battle.options))
        if as_json:
            _emit(odds_output(result, house_rules(battle.options), hidden))
            return
        from rangefire.cli.render import render_house_rules, render_lines, render_nominations, render_odds, render_plan

        say_hidden(hidden)
        render_house_rules(battle.options)
        render_plan(checked.plan)
        render_odds(result)
        if result.lines is not None:
            render_lines(result.lines)
        if result.alternatives:
            render_nominations(result.alternatives)
        if chart is not None:
            out.print(text(f"chart written to {chart}"))


@app.command()
@with_choice_options
def resolve(
    scenario: Scenario,
    attacker: AttackerOpt,
    target: TargetOpt = None,
    seed_text: Annotated[Optional[str], typer.Option("--seed", metavar="INTEGER", help="seed for random dice (the same seed, the same battle)")] = None,  # noqa: UP045, E501
    dice: Annotated[Optional[list[str]], typer.Option("--dice", help="dice rolled by hand: STAGE=v,v,... (repeatable), or ask: each stage asked for when reached")] = None,  # noqa: UP045, E501
    out_file: Annotated[Optional[Path], typer.Option("--out", help="write the battle after the attack to FILE")] = None,  # noqa: UP045
    log_name: Annotated[Optional[str], typer.Option("--log", metavar="PATH", help="append the attack to this log (one JSON line, written before the battle; see replay)")] = None,  # noqa: UP045, E501
    as_json: JsonOpt = False,
    settings: SetOpt = None,
    choices: Mapping[str, object] = NO_CHOICES,
) -> None:
    """Play an attack out with seeded or entered dice, and optionally write the battle after it.

    ``--dice ask`` (the default at a terminal without --seed or --dice) asks for each stage's dice when the attack
    reaches it; dice given with --dice are used first. End of input at a prompt: exit 2; Ctrl-C: exit 130;
    nothing is written either way. With --log and --out the attack is logged first, then the battle written:
    a run stopped between the two says so, and the command that finishes the write."""
    from rangefire.cli.dice import asks, entered_source, interrupts
    from rangefire.cli.writing import BATTLE, Writes, check_log, check_log_name, check_output

    writes = Writes(scenario, None, out_file, "the attack")  # the log line first, then the battle
    with user_errors(as_json), interrupts(), writes.guarded():
        seed = parse_seed(seed_text)
        writes.log = log_file = check_log_name(log_name)
        no_log_with_set(settings, log_file)
        if out_file is not None:
            check_output("--out", out_file, BATTLE)
        if log_file is not None:
            from rangefire.record import check_appendable

            check_appendable(log_file, apart_from=(scenario, out_file))  # before anything is played or written
        ruleset, battle, as_written = load_set(scenario, settings)
        before_data = as_written or ruleset.dump(battle)
        writes.ruleset = ruleset
        if log_file is not None:
            from rangefire.record import battle_digest, check_log_game

            check_log_game(log_file, ruleset.key)  # a log of another game: said
            check_log(log_file, scenario, out_file, battle_digest(before_data))  # a log past this battle: said
        if dice and seed is not None:
            raise RangefireError("give either --seed or --dice, not both")
        ask = asks(dice, seed, as_json)
        entered = bool(dice) or ask
        if entered:
            source: Any = entered_source(ruleset.stages, dice, ask, as_json)
        else:
            seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
            source = SeededSource(seed)
        attack = make_attack(ruleset, attacker, target, choices)
        if not choices and sys.stdin is not None and sys.stdin.isatty() and not as_json:  # None: closed
            attack = ask_choices(ruleset, battle, attack)
        resolution, after = ruleset.play(battle, attack, source)
        after_data = ruleset.dump(after)
        from rangefire.record import attack_action, battle_digest

        writes.after = battle_digest(after_data)
        if log_file is not None:
            writes.append(attack_action(ruleset, attack, resolution, battle_digest(before_data), writes.after,
                                         "entered" if entered else "seeded"))
        if out_file is not None:
            writes.write(lambda: write_scenario(out_file, after_data, original=scenario, before=before_data))
        if as_json:
            _emit(resolve_output(resolution, seed if not entered else None, after_data, house_rules(battle.options)))
            return
        from rich.text import Text

        from rangefire.cli.render import render_house_rules, render_plan, render_resolution

        render_house_rules(battle.options)
        render_plan(resolution.plan, resolution.log)
        out.print(Text.assemble(("resolution", "bold"), f" ({'entered dice' if entered else f'seed {seed}'})"))
        render_resolution(resolution)
        if out_file is not None:
            out.print(text(f"battle after the attack written to {out_file}"))
        if log_file is not None:
            out.print(text(f"attack logged in {log_file}"))


@app.command()
def demo(seed_text: Annotated[str, typer.Option("--seed", metavar="INTEGER", help="seed of the first attack")] = "1863",
         as_json: JsonOpt = False) -> None:
    """Play the built-in example battles attack by attack: the odds before, the log after."""
    from rich.text import Text

    from rangefire.cli.render import render_odds, render_plan, render_refusals, render_resolution, render_status
    from rangefire.demo import run_demo

    steps = []
    with user_errors(as_json):
        seed = parse_seed(seed_text)
        assert seed is not None
        if not as_json:
            out.print(Text.assemble(("rangefire demo", "bold"), ": the built-in example battles of the four games, "
                                    "attack by attack: each attack checked clause by clause, its exact odds, then "
                                    f"played with seeded dice (--seed {seed})"))
        number, engagement = 0, None
        for step in run_demo(seed):
            # counted within each battle: "The ford at Kessel: attack 7" read as seven attacks at the ford
            number = number + 1 if step.engagement == engagement else 1
            engagement = step.engagement
            if as_json:
                steps.append({"engagement": step.engagement,
                              "odds": step.odds.to_dict() if step.odds else step.check.to_dict(step.ruleset),
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
            if step.odds.lines is not None:
                out.print(Text.assemble(("best line", "bold"), ": ", shown(", ".join(step.odds.lines.best_line))))
            out.print("[bold]the attack[/bold]")
            render_resolution(step.resolution)
            if step.last:
                render_status(f"{step.engagement}: after the last attack", step.status)
        if as_json:
            _emit({"steps": steps})
            return
        _what_next()


def _what_next() -> None:
    """After the demo: the commands to try on its battles (the demo is a newcomer's first run, and a long one: it
    ends by saying what to do next). ``make demo`` runs it from a virtual environment that is not on the PATH:
    the first step is then to activate it. Nothing suggested writes a file: the folder may be an installed
    package's."""
    import os
    import shutil

    from rich.text import Text

    from rangefire.demo import example_path

    def typed(path: Path) -> str:  # as typed from here: relative within this folder, else whole
        relative = os.path.relpath(path)
        return str(path) if relative.startswith("..") else relative

    steps = []
    bin_dir = Path(sys.executable).parent
    found = shutil.which("rangefire")
    if (bin_dir / "rangefire").exists() and (found is None or Path(found).parent != bin_dir):
        activate = bin_dir / "activate"
        steps.append(f". {typed(activate)}" if activate.exists() else f"export PATH={typed(bin_dir)}:$PATH")
    steps += [f"cd {typed(example_path(''))}", "rangefire check wheatfield.yaml -a 15th-alabama",
              "rangefire odds wheatfield.yaml -a 15th-alabama",
              "rangefire resolve wheatfield.yaml -a 15th-alabama --dice ask"]
    out.rule()
    out.print(Text("next, play these battles yourself (each is a scenario file), say:"))
    for step in steps:
        out.print(Text("  ") + text(step), soft_wrap=True)  # whole, to be copied: the terminal wraps it
    out.print(Text("rangefire --help lists every command; rangefire COMMAND --help says more"))


