"""Rendering results for people: plans, refusals, odds, resolutions as Rich tables and clause lines."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from rich.table import Table
from rich.text import Text

from rangefire.cli.common import line, out, shown, text
from rangefire.core import (
    Check,
    LinesOfPlay,
    LogLine,
    Odds,
    Plan,
    Resolution,
    fraction_str,
)
from rangefire.core.numbers import percent


# -- rendering -------------------------------------------------------------------------------------
def render_plan(plan: Plan, logged: Sequence[LogLine] = ()) -> None:
    """The plan as a table, then its notes and modifiers with their clauses; those that ``logged`` (the log of
    the attack played out, printed next) already says are left to it, so nothing is said twice."""
    said = {(entry.clause, entry.text) for entry in logged}
    table = Table(title=text(f"{plan.attacker} fires at {plan.target}"), show_header=False, title_justify="left")
    table.add_column("what", style="bold", overflow="fold")  # a word wider than a narrow terminal folds, never cut
    table.add_column("value", overflow="fold")
    for key, value in plan.summary():
        table.add_row(text(key), text(value))
    out.print(table)
    rows = [(n.clause, n.text) for n in plan.notes] + [(m.clause, f"{m.delta:+d} {m.reason}") for m in plan.modifiers]
    for clause, what in rows:
        if (clause, what) not in said:
            out.print(line(clause, what))
    if not plan.modifiers and not logged:
        out.print("  [dim]no modifiers[/dim]")


def render_refusals(check: Check) -> None:
    out.print(text(f"{check.attacker} may not fire" + (f" at {check.target}" if check.target else ""), "bold red"))
    for r in check.refusals:
        out.print(line(r.clause, r.reason))


def fitted(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> list[list[str]]:
    """The rows of a table of fractions as they fit ``width`` columns: where the table as it is would be wider
    (a narrow terminal, fractions of seven-digit denominators), each fraction breaks after its slash, the
    denominator under the numerator. A fraction is the exact answer: never cut short nor split inside a number."""
    if _width(headers, rows) <= width:
        return [list(row) for row in rows]
    return [[cell.replace("/", "/\n") if "/" in cell else cell for cell in row] for row in rows]


def _width(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """The columns a table of these cells takes (a header may fold at its spaces; a cell holds its lines)."""
    columns = list(zip(headers, *rows, strict=True))
    return sum(max(max(len(part) for part in str(cell).split("\n")) for cell in column)
               for column in columns) + 3 * len(columns) + 1  # borders, padding


def _fits(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> bool:
    """Whether the table fits ``width`` once its fractions are broken after the slash and its headers fold."""
    folded = [max(header.split(" "), key=len) for header in headers]
    return _width(folded, fitted(headers, rows, 0)) <= width


def statistics_text(data: Mapping[str, Any]) -> str:
    """An outcome's statistics in a line, from its JSON (:meth:`rangefire.dice.Dist.to_dict`): ``mean 2.667, sd
    1.333, median 3, 90th percentile 4``."""
    return (f"mean {float(Fraction(data['mean'])):.3f}, sd {data['sd']:.3f}, median {data['median']}, "
            f"90th percentile {data['percentile_90']}")


def render_odds(odds: Odds) -> None:
    from rangefire.cli.figures import print_figures

    data = odds.to_dict()
    for name in odds.outcomes:
        shown_data = data["outcomes"][name]
        title = text(f"{name} ({statistics_text(shown_data)})")
        table = Table(title=title, title_justify="left")
        # each percentage beside its exact fraction, the answer itself: the fraction's column says so
        headers = ("N", "exactly N", "exact", "at least N", "exact", "at most N", "exact")
        rows: list[tuple[str, ...]] = []
        for k, p in shown_data["distribution"].items():
            at_least, at_most = shown_data["at_least"][k], shown_data["at_most"][k]
            rows.append((k, percent(Fraction(p), 2), p, percent(Fraction(at_least), 2), at_least,
                         percent(Fraction(at_most), 2), at_most))
        # where the three side by side would not fit even with their fractions broken, "at most" is a table of
        # its own under the others: a fraction is never cut short
        parts: list[tuple[tuple[str, ...], list[tuple[str, ...]]]] = [(headers, rows)]
        if not _fits(headers, rows, out.width):
            parts = [(headers[:5], [row[:5] for row in rows]),
                     ((headers[0], *headers[5:]), [(row[0], *row[5:]) for row in rows])]
        if not all(_fits(heads, part_rows, out.width) for heads, part_rows in parts):
            # too narrow even so (some 40 columns): the narrow tables of every figure whole, none cut short
            out.print(title)
            print_figures(headers[:1], headers[1:], [list(row) for row in rows], key_justify="right",
                          styles={c: "dim" for c, header in enumerate(headers[1:]) if header == "exact"})
            continue
        for i, (heads, part_rows) in enumerate(parts):
            part = table if i == 0 else Table()
            for header in heads:
                part.add_column(header, justify="right", style="dim" if header == "exact" else None)
            for row in fitted(heads, part_rows, out.width):
                part.add_row(*row)
            out.print(part)
    events_rows = [(name, percent(p, 2), fraction_str(p)) for name, p in odds.events.items()]
    if _fits(("event", "probability", "exact"), events_rows, out.width):
        events = Table(title="events", title_justify="left")
        events.add_column("event")
        events.add_column("probability", justify="right")
        events.add_column("exact", justify="right", style="dim")
        for name, *cells in fitted(("event", "probability", "exact"), events_rows, out.width):
            events.add_row(text(name), *cells)
        out.print(events)
    else:
        out.print(text("events"))
        print_figures(("event",), ("probability", "exact"), [[text(n), *cells] for n, *cells in events_rows],
                      styles={1: "dim"})
    if not odds.exact:
        out.print(Text.assemble(("estimate, not exact: ", "yellow"), shown(json.dumps(odds.estimate))))


def render_resolution(resolution: Resolution) -> None:
    for entry in resolution.log:
        out.print(line(entry.clause, entry.text))
    summary = ", ".join(f"{k} {v}" for k, v in resolution.outcome.to_dict().items())
    out.print(line("outcome", summary))


#: Lines of play shown at the terminal; ``--json`` lists every line found.
SHOWN_LINES = 20


def render_lines(lines: LinesOfPlay, shown_lines: int = SHOWN_LINES) -> None:
    """The best line, then the first ``shown_lines`` lines of play in the order found, and how many more there are
    (thousands, in a position with a dozen cards open: a table of them all says nothing to a reader)."""
    out.print(Text.assemble(("best line", "bold"), " (each side maximising its own chance): ",
                            shown(", ".join(lines.best_line))))
    table = Table(title="lines of play" + (" (cut)" if lines.cut else ""), title_justify="left")
    table.add_column("actions")
    table.add_column("attacker wins", justify="right")
    table.add_column("", justify="right", style="dim")
    for played in lines.lines[:shown_lines]:
        table.add_row(text(", ".join(played.actions)), percent(played.attacker_wins, 2),
                      text(fraction_str(played.attacker_wins)))
    out.print(table)
    more = len(lines.lines) - shown_lines
    if more > 0:
        listed = f"the first {len(lines.lines)}" if lines.cut else "them all"
        out.print(Text(f"... and {more} more line{'s' if more != 1 else ''} (--json lists {listed})", style="dim"))


def render_nominations(nominations: Mapping[str, Odds]) -> None:
    """The odds if the target's player nominates another model instead (Bushido)."""
    table = Table(title="if the target's player nominates instead", title_justify="left")
    for col in ("model", "hit", "", "mean wounds"):
        table.add_column(col, justify="right" if col != "model" else "left", style="dim" if col == "" else None)
    for uid, alt in nominations.items():
        hit = alt.events["hit"]
        mean = float(Fraction(alt.outcomes["wounds"].to_dict()["mean"]))
        table.add_row(text(uid), percent(hit, 2), fraction_str(hit), f"{mean:.3f}")
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




def render_house_rules(options: Any) -> None:
    """The options the battle sets away from the rules' values, each by its clause: a result read without
    them would be taken for the rules as written."""
    from rangefire.core.options import house_rules

    for rule in house_rules(options):
        out.print(line(rule.clause or "option", str(rule)))
