"""``rangefire advise``: every legal attack of a side ranked by the expected value of an outcome."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from rangefire.cli.common import JsonOpt, Scenario, SetOpt, _emit, app, load_set, out, text, user_errors
from rangefire.core.numbers import percent

if TYPE_CHECKING:  # the rows are made where they are used; Rich where a table is printed for people
    from rich.text import Text

    from rangefire.analysis.advise import Advice, Advised

AdviseSideOpt = Annotated[str, typer.Option("--side", "-s", help="the side whose attacks are ranked", show_default=False)]  # noqa: E501
OutcomeOpt = Annotated[Optional[str], typer.Option("--outcome", "-o", help="the outcome (its mean) or event (its probability) to rank by (default: the game's main outcome)", show_default=False)]  # noqa: UP045, E501
AllOpt = Annotated[bool, typer.Option("--all", help="list the refused pairs too, each with its clauses")]


@app.command()
def advise(scenario: Scenario, side: AdviseSideOpt, outcome: OutcomeOpt = None, show_all: AllOpt = False,
           as_json: JsonOpt = False, settings: SetOpt = None) -> None:
    """Every legal attack of SIDE ranked by the expected value of an outcome, best first, with the odds of each
    (exit 1 when the side has none). Where the attacker has choices the best is picked and named; where the
    opponent answers (a nomination) the answer that gives the least is assumed."""
    from rangefire.analysis.advise import advise as advise_side
    from rangefire.core.options import house_rules

    with user_errors(as_json):
        ruleset, battle, _ = load_set(scenario, settings)
        advised = advise_side(ruleset, battle, side, outcome)
    if as_json:
        _emit({**advised.to_dict(refused=show_all),
               "house_rules": [rule.to_dict() for rule in house_rules(battle.options)]})
    else:
        from rangefire.cli.render import render_house_rules

        render_house_rules(battle.options)  # odds read without them would be taken for the rules as written
        render_advice(advised, show_all)
    if not advised.ranked and not advised.not_computed:
        raise typer.Exit(1)


def render_advice(advised: Advised, show_all: bool) -> None:
    """The ranking as one table for people; each attack's words wrap inside their column (readable at 60
    columns); the exact fractions are in ``--json``."""
    from rich.table import Table

    label = advised.outcome.replace("_", " ")
    given = advised.conditions.get(advised.outcome)
    head = f"P({label})" if advised.is_event else f"mean {label}" + (f" {given}" if given else "")
    title = f"{advised.side}'s attacks by {head}"
    if not advised.ranked:
        out.print(text(f"{title}: no legal attack" + (" with odds computed" if advised.not_computed else "")))
    else:
        table = Table(title=text(title), title_justify="left")
        # Widths set here rather than left to Rich, which narrows every column alike: the rank and the value
        # keep theirs, the other odds a line each ("suppression 66.5%"), the attack takes the rest and wraps.
        rank = len(str(len(advised.ranked)))
        longest = max(len(word) for word in head.split())  # a header folds between words, never inside one
        value = max(7 if all(a.exact for a in advised.ranked) else 9, min(longest, 12))
        others = 18 if out.width < 100 else 24
        attack = max(16, min(48, out.width - 13 - rank - value - others))  # 13: borders and padding of four
        table.add_column("#", justify="right", width=rank)
        table.add_column("attack", overflow="fold", width=attack)
        table.add_column(head, justify="right", width=value, overflow="fold")
        table.add_column("other odds", overflow="fold", width=others)
        for advice in advised.ranked:
            table.add_row(str(advice.rank), _attack(advice), _value(advice, advised.is_event),
                          _others(advice, advised.outcome, advised.conditions), end_section=True)
        out.print(table)
    for skipped in advised.not_computed:
        chosen = ", ".join(f"{k} {v}" for k, v in skipped.choices)
        out.print(text(f"{skipped.attacker} -> {skipped.target}" + (f" ({chosen})" if chosen else "")
                       + f": legal, odds not computed: {skipped.limit}", "yellow"))
    if not advised.refused:
        return
    if not show_all:
        out.print(text(f"{len(advised.refused)} of {advised.pairs} attacker and enemy pairs refused by the rules "
                       "(--all lists them with their clauses)", "dim"))
        return
    from rich.text import Text

    refused = Table(title=text(f"refused ({len(advised.refused)} of {advised.pairs} pairs)"), title_justify="left")
    refused.add_column("attack", overflow="fold", width=max(12, min(30, out.width // 3)))
    refused.add_column("why not", overflow="fold")
    for row in advised.refused:
        reasons = Text()
        for i, refusal in enumerate(row.refusals):
            reasons.append("\n" if i else "")
            reasons.append_text(text(refusal.reason))
            reasons.append_text(text(f" [{refusal.clause}]", "dim"))
        refused.add_row(text(f"{row.attacker} -> {row.target}"), reasons, end_section=True)
    out.print(refused)


def _attack(advice: Advice) -> Text:
    from rich.text import Text

    # scenario text goes through text() (shown, never markup); the line breaks are ours
    said = Text.assemble(text(advice.attacker, "bold"), " -> ", text(advice.target, "bold"))
    for name, value in advice.choices:
        said.append("\n")
        said.append_text(text(f"{name.replace('_', ' ')} {value}", "cyan"))
    if advice.response is not None:
        choice, value, clause = advice.response
        said.append("\n")
        said.append_text(text(f"opponent nominates {value}" if choice == "redirect_to" else
                              f"opponent: {choice} {value}", "magenta"))
        said.append_text(text(f" [{clause}]", "dim"))
    said.append("\n")
    said.append_text(text(advice.dice, "dim"))
    return said


def _value(advice: Advice, is_event: bool) -> Text:
    from rich.text import Text

    shown = percent(advice.value) if is_event else f"{float(advice.value):.3f}"
    if not advice.exact:
        return Text.assemble(f"~{shown}", ("\nestimate", "yellow"))
    return Text(shown)


def _others(advice: Advice, ranked_by: str, conditions: Mapping[str, str]) -> Text:
    from rich.text import Text

    lines = [f"{name.replace('_', ' ')} {float(mean):.3f}" + (f" ({conditions[name]})" if name in conditions else "")
             for name, mean in advice.means.items() if name != ranked_by]
    lines += [f"{name.replace('_', ' ')} {percent(p)}" for name, p in advice.events.items()
              if name != ranked_by]
    return Text("\n".join(lines) or "-")
