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
from rangefire.cli.compare import STATISTICS_SAID, check_outputs, split_top, write_csv
from rangefire.cli.progress import Shown
from rangefire.core import NO_CHOICES, LimitError, RangefireError
from rangefire.core.numbers import percent

if TYPE_CHECKING:
    from rangefire.analysis.charts import Metric, Varied
    from rangefire.analysis.odds_table import Axis, OddsTable, TableRow
    from rangefire.scenario.paths import Setting

VaryOpt = Annotated[Optional[list[str]], typer.Option("--vary", metavar="PATH=V1,V2,...", help="a value of the scenario and the values it takes (repeatable; every combination is a row), e.g. units.20th-maine.stands=2,4,6")]  # noqa: UP045, E501
CsvOpt = Annotated[Optional[str], typer.Option("--csv", metavar="FILE", help="write the rows as CSV (- for standard output)")]  # noqa: UP045, E501
ParquetOpt = Annotated[Optional[str], typer.Option("--parquet", metavar="FILE", help="write the rows as a Parquet file")]  # noqa: UP045, E501
PlotOpt = Annotated[Optional[str], typer.Option("--plot", metavar="FILE", help="write a chart (.png, .svg, .pdf): --metric against --x, a line per value of the other --vary")]  # noqa: UP045, E501
MetricOpt = Annotated[Optional[str], typer.Option("--metric", metavar="COLUMN", help="what --plot draws, named as the --csv columns: OUTCOME (its mean), OUTCOME_sd, _median, _percentile_90, OUTCOME_at_least_N, OUTCOME_at_most_N, or an event (default: the game's main outcome's mean)")]  # noqa: UP045, E501
XOpt = Annotated[Optional[str], typer.Option("--x", metavar="PATH", help="the --vary path on the chart's x axis (default: the first whose values are numbers), or range: the range the rules measured")]  # noqa: UP045, E501

#: A ``--vary`` of more characters than this is refused before it is read (no grid a table holds needs it).
MAX_VARY_CHARS = 100_000
#: The width of a column of "at least N" at the terminal (``100.0%`` and its borders).
AT_LEAST_WIDTH = 9
#: The width of the columns of the spread at the terminal: sd (``1.234``), median and 90th, with their borders.
SPREAD_WIDTH = 8 + 9 + 7


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
    with option_named("--vary"):
        check_axes(axes, MAX_COMBINATIONS)
    return axes


def check_set_and_vary(settings: Sequence[Setting], axes: Sequence[Axis]) -> None:
    """A value both set and varied is refused: every row's --vary value replaces what --set gave it (a value
    within a varied one as well: --set options.cover_save.heavy=3 under --vary options.cover_save={...})."""
    for setting in settings:
        for axis in axes:
            if setting.path == axis.path or setting.path.startswith(axis.path + "."):
                raise RangefireError(f"--set {setting.path} with --vary {axis.path}: every row's --vary value "
                                     "replaces what --set gives it; give the values with --vary alone")


@app.command(name="table")
@with_choice_options
def odds_table_command(scenario: Scenario, attacker: AttackerOpt, target: TargetOpt = None, vary: VaryOpt = None,
                       as_json: JsonOpt = False, csv_file: CsvOpt = None, parquet: ParquetOpt = None,
                       plot: PlotOpt = None, metric: MetricOpt = None, x: XOpt = None, settings: SetOpt = None,
                       choices: Mapping[str, object] = NO_CHOICES) -> None:
    """The odds of one attack for every combination of values (--vary PATH=V1,V2,...: a unit's stands or
    position, units.ID.FIELD; a cover grade, terrain.ID.kind; a house rule, options.NAME): the mean, spread and
    "at least N" odds of each outcome, and the events, a row per combination; --plot draws one of them against
    a varied value."""
    from rangefire.analysis.odds_table import odds_table
    from rangefire.scenario import read_scenario
    from rangefire.scenario.files import source_name

    with user_errors(as_json):
        if plot is None and (metric is not None or x is not None):
            raise RangefireError(f"{'--metric' if metric is not None else '--x'} chooses what --plot draws: give "
                                 "--plot FILE too")
        # before any work; a named pipe would be waited on for ever by Parquet, a device replaced: refused
        parquet_path, chart_path = check_outputs(csv_file, parquet, plot, as_json, reading=(scenario,))
        axes = read_axes(vary or [])
        from rangefire.scenario.paths import apply_settings

        set_here = settings_from(settings)
        check_set_and_vary(set_here, axes)
        base = apply_settings(read_scenario(scenario), set_here, source=f"{scenario} with --set")
        chart = chart_choices(base, axes, metric, x) if plot is not None else None  # before the rows' work
        with Shown("table rows", quiet=as_json) as shown:  # rows are worked out at some 60 a second
            result = odds_table(base, attacker, target, axes, choices=choices, source=source_name(scenario),
                                progress=shown)
        if chart_path is not None:
            assert chart is not None
            plot_table(result, chart_path, *chart)
        if csv_file is not None:
            with option_named("--csv"):
                write_csv(csv_file, result.records(), result.columns())
        if parquet_path is not None:
            with option_named("--parquet"):
                write_parquet(parquet_path, result)
        if as_json:
            _emit(result.to_dict())
            return
        if csv_file != "-":
            render_table(result)
            for what, where in (("rows", csv_file), ("rows", parquet_path), ("chart", chart_path)):
                if where is not None:
                    out.print(text(f"{what} written to {where}"))


def write_parquet(path: Path, result: OddsTable) -> None:
    """The rows as a Parquet file: exact fractions as text beside their floats, the values as typed; what the
    rows are of (the attack, the battle, the house rules, the paths varied) in its metadata, for
    ``rangefire plot``."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from rangefire.core.errors import ScenarioError
    from rangefire.scenario.files import atomic_write_bytes

    columns = result.columns()
    records = result.records()
    data = pa.table({name: [r[name] for r in records] for name in columns})
    described = {"format": 1, "kind": "table", "ruleset": result.ruleset, "battle": result.battle,
                 "attacker": result.attacker, "target": result.target, "axes": [a.path for a in result.axes],
                 "house_rules": [rule.to_dict() for rule in result.house_rules],
                 "outcomes": list(result.outcome_names), "events": list(result.event_names),
                 "main_outcome": result.main_outcome, "conditions": dict(result.conditions),
                 "length_unit": result.length_unit}
    data = data.replace_schema_metadata({RESULTS_KEY: json.dumps(described)})
    sink = pa.BufferOutputStream()
    pq.write_table(data, sink)
    try:  # as a battle is written: a kill mid-write leaves the old file whole, never an empty one
        atomic_write_bytes(path, sink.getvalue().to_pybytes())
    except ScenarioError as exc:
        raise RangefireError(str(exc)) from None


#: The key of a Parquet file's metadata that says what its rows are of (``rangefire plot`` reads it).
RESULTS_KEY = "rangefire"


def chart_choices(base: Mapping[str, Any], axes: Sequence[Axis], metric: str | None,
                  x: str | None) -> tuple[Metric, str]:
    """``--metric`` and ``--x`` read and checked before any row is worked out: the quantity (an event the game
    does not declare is checked once the rows name theirs) and the path on the x axis."""
    from rangefire.analysis.charts import RANGE, parse_metric
    from rangefire.rulesets import find_ruleset

    key = base.get("ruleset")
    game = find_ruleset(key) if isinstance(key, str) else None
    outcomes = list(game.outcome_names) if game is not None else []
    chosen = parse_metric(metric if metric is not None else (game.main_outcome if game else "mean"), outcomes, None,
                          declared=list(game.event_names) if game is not None else [])
    paths = [a.path for a in axes]
    if x is None:
        return chosen, next((a.path for a in axes if _varied(a).numeric), paths[0])
    if x.strip() == RANGE:
        return chosen, RANGE
    for path in paths:
        if x.strip() in (path, _header(path, paths)):
            return chosen, path
    raise RangefireError(f"--x {x[:60]!r}: not a varied path; name one of {', '.join(paths)} (or its last step), "
                         f"or {RANGE}: the range the rules measured")


def _varied(axis: Axis, unit: str | None = None) -> Varied:
    from rangefire.analysis.charts import varied_from

    return varied_from(axis.path, axis.values, unit)


def plot_table(result: OddsTable, path: Path, metric: Metric, x: str) -> None:
    """The chart of :func:`table_figure`, written to ``path``."""
    from rangefire.analysis.plots import write_figure

    fig = table_figure(result, metric, x)
    with option_named("--plot"):
        write_figure(fig, path)


def table_figure(result: OddsTable, metric: Metric, x: str) -> Any:
    """The chosen quantity of every row against ``x`` (a varied path, or the range each plan measured), a line
    per value of the other varied paths, the heading naming the attack, the battle and the house rules; a
    matplotlib ``Figure``."""
    from rangefire.analysis.charts import RANGE, Heading, Point, check_event, draw_lines

    check_event(metric, result.event_names, outcomes=result.outcome_names)
    legal = [row for row in result.rows if row.odds is not None]
    if not legal:
        raise RangefireError("--plot: no chart: the rules refuse the attack in every row")
    unit = None
    ranges: list[float | None] = [None] * len(result.rows)
    if x == RANGE:
        for i, row in enumerate(result.rows):
            if row.odds is not None:
                ranges[i], unit = _range(row.odds.plan.details())
        if all(r is None for r in ranges):
            raise RangefireError(f"--x {RANGE}: the plans of {result.ruleset} measure no range; name a varied path")
    points = [Point({s.path: s.value for s in row.settings}, _value(row, metric), measured)
              for row, measured in zip(result.rows, ranges, strict=True)]
    targets = {row.check.target for row in legal}
    target = result.target or (next(iter(targets)) if len(targets) == 1 else "the target the rules choose")
    notes = []
    refused = len(result.rows) - len(legal)
    if refused:
        clauses = sorted({r.clause for row in result.rows if row.odds is None for r in row.check.refusals})
        notes.append(f"{refused} of {len(result.rows)} rows refused by the rules ({', '.join(clauses)}): not drawn")
    estimated = sum(1 for row in legal if row.odds is not None and not row.odds.exact)
    if estimated:
        notes.append(f"{estimated} rows Monte Carlo estimates, not exact")
    heading = Heading(f"{result.attacker} fires at {target}", result.battle, result.ruleset, result.house_rules, notes)
    axes = [_varied(a, result.length_unit) for a in result.axes]
    return draw_lines(points, axes, x, metric, heading, conditions=result.conditions,
                      measured_unit=unit or result.length_unit)


def _range(details: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """The range a plan measured and its unit (``{"inches": 12.0}`` is 12 in), None where it measures none."""
    found = details.get("range")
    if not isinstance(found, Mapping):
        return None, None
    for key, unit in (("inches", "in"), ("steps", "steps"), ("cm", "cm")):
        value = found.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value), unit
    return None, None


def _value(row: TableRow, metric: Metric) -> float | None:
    """The quantity of one row, as a float (None where the rules refuse the attack)."""
    if row.odds is None:
        return None
    if metric.kind == "event":
        found = row.event(metric.column)
        return None if found is None else float(found)
    outcome = metric.outcome
    assert outcome is not None
    value: Fraction | float | int | None
    if metric.kind in ("at_least", "at_most"):
        value = (row.at_least if metric.kind == "at_least" else row.at_most)(outcome, metric.n or 0)
    else:
        value = getattr(row, metric.kind)(outcome)  # mean, variance, sd, median, percentile_90
    return None if value is None else float(value)


# -- for people ------------------------------------------------------------------------------------
def _header(path: str, paths: Sequence[str]) -> str:
    """A column's name: the path's last step where no other axis shares it, else its last two."""
    last = path.rsplit(".", 1)[-1]
    if sum(p.rsplit(".", 1)[-1] == last for p in paths) == 1:
        return last
    return ".".join(path.split(".")[-2:])


def render_table(result: OddsTable) -> None:
    from rich.text import Text

    from rangefire.analysis.compare import value_text
    from rangefire.cli.figures import print_figures

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
    # the spread (sd, median, 90th) where it leaves room for two columns of "at least N" at least
    spread = room - SPREAD_WIDTH >= 2 * AT_LEAST_WIDTH
    if spread:
        room -= SPREAD_WIDTH
        out.print(text(STATISTICS_SAID, "dim"))
    for outcome in result.outcome_names:
        label = outcome.replace("_", " ") + (f" ({result.conditions[outcome]})" if outcome in result.conditions
                                             else "")
        thresholds = result.thresholds(outcome)
        shown_n = thresholds[:max(1, room // AT_LEAST_WIDTH)]
        cut = len(shown_n) < len(thresholds)
        said = "mean, spread and at least N" if spread else "mean and at least N"
        elsewhere = ([f"to {shown_n[-1]}"] if cut else []) + ([] if spread else ["sd, median, 90th"]) + ["at most N"]
        out.print(text(f"{label}: {said} ({'; '.join(elsewhere)} in --json, --csv)", "bold"))
        rows: list[list[Any]] = []
        for row, shown in zip(result.rows, values, strict=True):
            cells: list[Any] = [text(v) for v in shown]
            if len(targets) > 1:
                cells.append(text(row.check.target or ""))
            mean = row.mean(outcome)
            if mean is None:  # why is said once under the tables
                cells.append(Text("refused", style="red"))
                cells += [""] * (len(shown_n) + (3 if spread else 0))
            else:
                cells.append(f"{float(mean):.3f}")
                if spread:
                    cells += [f"{row.sd(outcome):.3f}", str(row.median(outcome)), str(row.percentile_90(outcome))]
                cells += [percent(row.at_least(outcome, n) or Fraction(0)) for n in shown_n]
            rows.append(cells)
        print_figures([*(_header(path, paths) for path in paths), *(["target"] if len(targets) > 1 else [])],
                      ["mean", *(["sd", "median", "90th"] if spread else []), *(f"≥{n}" for n in shown_n)], rows)
    # the events as columns, as many to a table as the terminal holds whole (a name never broken)
    if result.event_names:
        out.print(text("events", "bold"))
        print_figures([_header(path, paths) for path in paths], result.event_names,
                      [[*(text(v) for v in shown), *(Text("refused", style="red") if p is None else percent(p)
                                                     for p in (row.event(e) for e in result.event_names))]
                       for row, shown in zip(result.rows, values, strict=True)])
    refused: dict[str, list[str]] = {}  # the same reasons, said once with the rows they refuse
    for row, shown in zip(result.rows, values, strict=True):
        if row.odds is None:
            reasons = "; ".join(f"{r.reason} [{r.clause}]" for r in row.check.refusals)
            refused.setdefault(reasons, []).append(", ".join(f"{_header(p, paths)}={v}"
                                                              for p, v in zip(paths, shown, strict=True)))
    for reasons, where_refused in refused.items():
        where = (where_refused[0] if len(where_refused) == 1
                 else f"{len(where_refused)} rows, the first {where_refused[0]}")
        out.print(Text.assemble(("refused", "red"), f" ({where}): ") + text(reasons))


__all__ = ["odds_table_command", "parse_vary"]
