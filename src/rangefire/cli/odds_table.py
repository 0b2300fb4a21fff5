"""``table``: the odds of one attack over a grid of values (``--vary PATH=V1,V2,...``), a row per combination."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from rangefire.cli.common import (
    AttackerOpt,
    JsonOpt,
    Scenario,
    SetOpt,
    TargetOpt,
    _emit,
    app,
    option_named,
    out,
    settings_from,
    text,
    user_errors,
    with_choice_options,
)
from rangefire.cli.compare import check_outputs, split_top, write_csv
from rangefire.cli.progress import Shown
from rangefire.core import NO_CHOICES, LimitError, RangefireError
from rangefire.core.numbers import percent

if TYPE_CHECKING:
    from rangefire.analysis.odds_table import Axis, OddsTable

VaryOpt = Annotated[Optional[list[str]], typer.Option("--vary", metavar="PATH=V1,V2,...", help="a value of the scenario and the values it takes (repeatable; every combination is a row), e.g. units.20th-maine.stands=2,4,6")]  # noqa: UP045, E501
CsvOpt = Annotated[Optional[str], typer.Option("--csv", metavar="FILE", help="write the rows as CSV (- for standard output)")]  # noqa: UP045, E501
ParquetOpt = Annotated[Optional[Path], typer.Option("--parquet", metavar="FILE", help="write the rows as a Parquet file")]  # noqa: UP045, E501
PlotOpt = Annotated[Optional[Path], typer.Option("--plot", help="write a chart of the rows overlaid (.png, .svg, .pdf; at most 8 rows)")]  # noqa: UP045, E501

#: A ``--vary`` of more characters than this is refused before it is read (no grid a table holds needs it).
MAX_VARY_CHARS = 100_000
#: The width of a column of "at least N" at the terminal (``100.0%`` and its borders).
AT_LEAST_WIDTH = 9


def parse_vary(value: str) -> Axis:
    """``PATH=V1,V2,...`` read into an axis; each value read as a scenario value, as ``--set`` reads it."""
    from rangefire.analysis.odds_table import Axis
    from rangefire.scenario.paths import parse_setting

    if len(value) > MAX_VARY_CHARS:
        raise LimitError(f"--vary of {len(value):,} characters; at most {MAX_VARY_CHARS:,}")
    path, sep, rest = value.partition("=")
    path = path.strip()
    if not sep or not path:
        raise RangefireError(f"--vary {value[:60]!r}: write PATH=V1,V2,... (e.g. units.20th-maine.stands=2,4,6)")
    parts = split_top(rest)
    if not rest.strip() or any(not p for p in parts):
        raise RangefireError(f"--vary {path}: an empty value in {rest[:60]!r} (write PATH=V1,V2,...)")
    return Axis(path, tuple(parse_setting(f"{path}={p}", source=f"--vary {path}").value for p in parts))


def read_axes(texts: Sequence[str]) -> list[Axis]:
    """Every ``--vary``, the grid's size checked before any value is read (a huge grid is refused at once)."""
    from rangefire.analysis.odds_table import MAX_COMBINATIONS, Axis, check_axes, combinations

    if not texts:
        raise RangefireError("nothing to vary: give --vary PATH=V1,V2,... (repeatable)")
    for t in texts:
        if len(t) > MAX_VARY_CHARS:
            raise LimitError(f"--vary of {len(t):,} characters; at most {MAX_VARY_CHARS:,}")
    # counted from the text first: the values are read once the grid is known to fit
    counted = [Axis(t.partition("=")[0].strip(), tuple(split_top(t.partition("=")[2]))) for t in texts]
    count = combinations(counted)
    if count > MAX_COMBINATIONS:
        sizes = " x ".join(str(len(a.values)) for a in counted)
        raise LimitError(f"--vary: {sizes} = {count:,} combinations; a table holds at most {MAX_COMBINATIONS:,} "
                         "(run a grid this size with rangefire sweep, in chunks)")
    axes = [parse_vary(t) for t in texts]
    check_axes(axes, MAX_COMBINATIONS)
    return axes


@app.command(name="table")
@with_choice_options
def odds_table_command(scenario: Scenario, attacker: AttackerOpt, target: TargetOpt = None, vary: VaryOpt = None,
                       as_json: JsonOpt = False, csv_file: CsvOpt = None, parquet: ParquetOpt = None,
                       plot: PlotOpt = None, settings: SetOpt = None,
                       choices: Mapping[str, object] = NO_CHOICES) -> None:
    """The odds of one attack for every combination of values (--vary PATH=V1,V2,...: a unit's stands or
    position, units.ID.FIELD; a cover grade, terrain.ID.kind; a house rule, options.NAME): the mean and the
    "at least N" odds of each outcome, and the events, a row per combination."""
    from rangefire.analysis.odds_table import odds_table
    from rangefire.scenario import read_scenario
    from rangefire.scenario.files import source_name

    with user_errors(as_json):
        # before any work; a named pipe would be waited on for ever by Parquet, a device replaced: refused
        check_outputs(csv_file, parquet, plot, as_json, reading=(scenario,))
        axes = read_axes(vary or [])
        from rangefire.scenario.paths import apply_settings

        base = apply_settings(read_scenario(scenario), settings_from(settings), source=f"{scenario} with --set")
        with Shown("table rows", quiet=as_json) as shown:  # rows are worked out at some 60 a second
            result = odds_table(base, attacker, target, axes, choices=choices, source=source_name(scenario),
                                progress=shown)
        if plot is not None:
            with option_named("--plot"):
                plot_table(result, plot)
        if csv_file is not None:
            with option_named("--csv"):
                write_csv(csv_file, result.records(), result.columns())
        if parquet is not None:
            with option_named("--parquet"):
                write_parquet(parquet, result)
        if as_json:
            _emit(result.to_dict())
            return
        if csv_file != "-":
            render_table(result)
            for what, where in (("rows", csv_file), ("rows", parquet), ("chart", plot)):
                if where is not None:
                    out.print(text(f"{what} written to {where}"))


def write_parquet(path: Path, result: OddsTable) -> None:
    """The rows as a Parquet file: exact fractions as text beside their floats, the values as typed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rangefire.core.errors import ScenarioError
    from rangefire.scenario.files import atomic_write_bytes

    columns = result.columns()
    records = result.records()
    data = pa.table({name: [r[name] for r in records] for name in columns})
    sink = pa.BufferOutputStream()
    pq.write_table(data, sink)
    try:  # as a battle is written: a kill mid-write leaves the old file whole, never an empty one
        atomic_write_bytes(path, sink.getvalue().to_pybytes())
    except ScenarioError as exc:
        raise RangefireError(str(exc)) from None


def plot_table(result: OddsTable, path: Path) -> None:
    """The rows overlaid, each named by its values under the columns' short names; at most as many as a chart
    draws."""
    from rangefire.analysis.compare import value_text
    from rangefire.analysis.plots import MAX_SERIES, plot_series, series_from_odds

    legal = [row for row in result.rows if row.odds is not None]
    if len(legal) > MAX_SERIES:
        raise RangefireError(f"{path}: {len(legal)} rows; a chart draws at most {MAX_SERIES} (vary fewer values, "
                             "or write the rows with --csv and chart them there)")
    if not legal:
        raise RangefireError(f"{path}: no chart: the rules refuse the attack in every row")
    paths = [a.path for a in result.axes]
    series = [series_from_odds(row.odds, ", ".join(f"{_header(s.path, paths)}={value_text(s.value)}"
                                                   for s in row.settings))
              for row in legal if row.odds is not None]
    targets = {row.check.target for row in legal}
    target = result.target or (next(iter(targets)) if len(targets) == 1 else "the target the rules choose")
    refused = len(result.rows) - len(legal)
    subtitle = "varied: " + ", ".join(paths) + (f"; {refused} rows refused by the rules, not drawn" if refused
                                                else "")
    plot_series(series, path, title=f"{result.attacker} fires at {target}", subtitle=subtitle,
                conditions=result.conditions)


# -- for people ------------------------------------------------------------------------------------
def _header(path: str, paths: Sequence[str]) -> str:
    """A column's name: the path's last step where no other axis shares it, else its last two."""
    last = path.rsplit(".", 1)[-1]
    if sum(p.rsplit(".", 1)[-1] == last for p in paths) == 1:
        return last
    return ".".join(path.split(".")[-2:])


def render_table(result: OddsTable) -> None:
    from rich.table import Table
    from rich.text import Text

    from rangefire.analysis.compare import value_text

    paths = [a.path for a in result.axes]
    targets = {row.check.target for row in result.rows if row.odds is not None}
    target = result.target or (next(iter(targets)) if len(targets) == 1 else "the target the rules choose")
    out.print(Text.assemble((f"{result.attacker} fires at {target}", "bold"),
                            f": {len(result.rows)} combinations, {result.computed} distinct "
                            f"plan{'s' if result.computed != 1 else ''} worked out"))
    for path in paths:
        out.print(text(f"  {_header(path, paths)} = {path}", "dim"))
    estimated = sum(1 for row in result.rows if row.odds is not None and not row.odds.exact)
    if estimated:  # never pass an estimate off as exact
        out.print(text(f"  {estimated} rows are Monte Carlo estimates, not exact (--json says how each was made)",
                       "yellow"))
    values = [[value_text(s.value) for s in row.settings] for row in result.rows]
    widths = [max(len(_header(p, paths)), *(len(v[i]) for v in values)) + 3 for i, p in enumerate(paths)]
    # what is left beside the values, the mean (8) and the target where rows differ in it, for "at least N"
    room = out.width - sum(widths) - 1 - 8 - (14 if len(targets) > 1 else 0)
    for outcome in result.outcome_names:
        label = outcome.replace("_", " ") + (f" ({result.conditions[outcome]})" if outcome in result.conditions
                                             else "")
        thresholds = result.thresholds(outcome)
        shown_n = thresholds[:max(1, room // AT_LEAST_WIDTH)]
        cut = len(shown_n) < len(thresholds)
        out.print(text(f"{label}: mean and at least N" + (f" (to {shown_n[-1]}; all in --json, --csv)" if cut
                                                          else ""), "bold"))
        table = Table()
        for path in paths:
            table.add_column(text(_header(path, paths)), overflow="fold")
        if len(targets) > 1:
            table.add_column("target", overflow="fold")
        table.add_column("mean", justify="right")
        for n in shown_n:
            table.add_column(f"≥{n}", justify="right")
        for row, shown in zip(result.rows, values, strict=True):
            cells: list[Any] = [text(v) for v in shown]
            if len(targets) > 1:
                cells.append(text(row.check.target or ""))
            mean = row.mean(outcome)
            if mean is None:  # why is said once under the tables
                cells.append(Text("refused", style="red"))
                cells += [""] * len(shown_n)
            else:
                cells.append(f"{float(mean):.3f}")
                cells += [percent(row.at_least(outcome, n) or Fraction(0)) for n in shown_n]
            table.add_row(*cells)
        out.print(table)
    # the events as columns, as many to a table as the terminal holds whole (a name never broken)
    groups: list[list[str]] = []
    left = 0
    for event in result.event_names:
        need = max(len(event), 7) + 3
        if not groups or need > left:
            groups.append([])
            left = out.width - sum(widths) - 1
        groups[-1].append(event)
        left -= need
    for group in groups:
        out.print(text("events", "bold"))
        table = Table()
        for path in paths:
            table.add_column(text(_header(path, paths)), overflow="fold")
        for event in group:
            table.add_column(text(event), justify="right", no_wrap=True)
        for row, shown in zip(result.rows, values, strict=True):
            probs = [row.event(e) for e in group]
            table.add_row(*(text(v) for v in shown),
                          *(Text("refused", style="red") if p is None else percent(p) for p in probs))
        out.print(table)
    refused: dict[str, list[str]] = {}  # the same reasons, said once with the rows they refuse
    for row, shown in zip(result.rows, values, strict=True):
        if row.odds is None:
            reasons = "; ".join(f"{r.reason} [{r.clause}]" for r in row.check.refusals)
            refused.setdefault(reasons, []).append(", ".join(f"{_header(p, paths)}={v}"
                                                              for p, v in zip(paths, shown, strict=True)))
    for reasons, rows in refused.items():
        where = rows[0] if len(rows) == 1 else f"{len(rows)} rows, the first {rows[0]}"
        out.print(Text.assemble(("refused", "red"), f" ({where}): ") + text(reasons))


__all__ = ["odds_table_command", "parse_vary"]
