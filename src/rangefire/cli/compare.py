"""``compare``: one attack under variants of the rules or the scenario, side by side with the differences."""

from __future__ import annotations

import csv
import errno
import io
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from rangefire.cli.common import (
    AttackerOpt,
    JsonOpt,
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
from rangefire.core import NO_CHOICES, RangefireError
from rangefire.core.numbers import percent

if TYPE_CHECKING:
    from rangefire.analysis.compare import Comparison, Variant
    from rangefire.scenario.paths import Setting

#: The name of the scenario as written, the baseline unless another is named.
AS_WRITTEN = "rules"

Scenarios = Annotated[list[Path], typer.Argument(help="scenario file; several files are compared with each other, each a variant named by its file", show_default=False)]  # noqa: E501
VariantOpt = Annotated[Optional[list[str]], typer.Option("--variant", metavar="NAME:PATH=VALUE,...", help="a variant: the scenario with these values changed (repeatable), e.g. cover3:options.cover_save.light=3")]  # noqa: UP045, E501
BaselineOpt = Annotated[Optional[str], typer.Option("--baseline", metavar="NAME", help=f"the variant the others are set against (default: {AS_WRITTEN}, the scenario as written, or the first file)")]  # noqa: UP045, E501
CsvOpt = Annotated[Optional[str], typer.Option("--csv", metavar="FILE", help="write the values and differences as CSV (- for standard output)")]  # noqa: UP045, E501
PlotOpt = Annotated[Optional[str], typer.Option("--plot", metavar="FILE", help="write a chart of the variants overlaid (.png, .svg, .pdf)")]  # noqa: UP045, E501


# -- reading the options ---------------------------------------------------------------------------
def split_top(value: str) -> list[str]:
    """``value`` split at the commas outside brackets: ``a=1,b=[1, 2]`` is ``a=1`` and ``b=[1, 2]``."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(value):
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append(value[start:i])
            start = i + 1
    parts.append(value[start:])
    return [p.strip() for p in parts]


def parse_variant(value: str) -> Variant:
    """``--variant NAME:PATH=VALUE,PATH=VALUE`` read into a variant; malformed text is refused naming it."""
    from rangefire.analysis.compare import Variant
    from rangefire.scenario.paths import parse_setting

    name, sep, rest = value.partition(":")
    name = name.strip()
    if not sep or not name or "=" in name:
        raise RangefireError(f"--variant {value!r}: write NAME:PATH=VALUE,... (e.g. "
                             "cover3:options.cover_save.light=3)")
    parts = split_top(rest)
    if not rest.strip() or any(not p for p in parts):
        raise RangefireError(f"--variant {value!r}: no value to change after {name}: (write NAME:PATH=VALUE,...)")
    settings: list[Setting] = [parse_setting(p, source=f"--variant {name}") for p in parts]
    return Variant(name, tuple(settings))


def read_variants(scenarios: Sequence[Path], variants: Sequence[str],
                  common: Sequence[Setting] = ()) -> tuple[dict[str, Any], list[Variant]]:
    """The base scenario (the first file) and the variants: the scenario as written, or each file by its name,
    then those given with ``--variant``; the values ``common`` (``--set``) made in every one first."""
    from rangefire.analysis.compare import Variant
    from rangefire.scenario import read_scenario
    from rangefire.scenario.paths import apply_settings

    stdin = sum(str(path) == "-" for path in scenarios)
    if stdin > 1:  # the second read would find it read already and say nothing was given
        raise RangefireError(f"standard input ('-') is named {stdin} times; it is read once: name one scenario '-' "
                             "and the others by file")
    docs = [apply_settings(read_scenario(path), common, source=f"{path} with --set") for path in scenarios]
    if len(scenarios) == 1:
        found = [Variant(AS_WRITTEN)]
    else:
        stems = [path.stem for path in scenarios]
        names = stems if len(set(stems)) == len(stems) else [str(path) for path in scenarios]
        found = [Variant(name, (), doc) for name, doc in zip(names, docs, strict=True)]
    found += [parse_variant(v) for v in variants]
    return docs[0], found


# -- the command -----------------------------------------------------------------------------------
@app.command()
@with_choice_options
def compare(scenarios: Scenarios, attacker: AttackerOpt, target: TargetOpt = None, variant: VariantOpt = None,
            baseline: BaselineOpt = None, as_json: JsonOpt = False, csv_file: CsvOpt = None, plot: PlotOpt = None,
            settings: SetOpt = None, choices: Mapping[str, object] = NO_CHOICES) -> None:
    """One attack under variants of the rules or the scenario: every outcome's distribution, mean and "at least
    N" side by side, each variant's difference from the baseline, and the events; a variant the rules refuse
    shows its refusals with their clauses."""
    from rangefire.analysis.compare import compare as compare_variants

    with user_errors(as_json):
        _, chart = check_outputs(csv_file, None, plot, as_json, reading=scenarios)  # before any work
        if len(scenarios) == 1 and not variant:
            raise RangefireError("nothing to compare: give --variant NAME:PATH=VALUE,... or several scenario files")
        base, variants = read_variants(scenarios, variant or [], settings_from(settings))
        result = compare_variants(base, attacker, target, variants, baseline=baseline, choices=choices)
        if csv_file is not None:
            with option_named("--csv"):
                write_csv(csv_file, result.records())
        if chart is not None:
            with option_named("--plot"):
                plot_comparison(result, chart)
        if as_json:
            _emit(result.to_dict())
            return
        if csv_file != "-":
            render_comparison(result)
            for what, where in (("values and differences", csv_file), ("chart", chart)):
                if where is not None:
                    out.print(text(f"{what} written to {where}"))


def check_outputs(csv_file: str | None, parquet: str | None, plot: str | None, as_json: bool,
                  reading: Sequence[Path]) -> tuple[Path | None, Path | None]:
    """The files ``--csv``, ``--parquet`` and ``--plot`` name, checked before any work (see
    :func:`rangefire.cli.writing.check_output`); the Parquet file's and the chart's paths. ``--csv -`` is standard
    output, which ``--json`` has: refused beside it (the JSON holds every value the CSV does)."""
    from rangefire.cli.writing import check_output

    if csv_file == "-" and as_json:
        raise RangefireError("--csv - with --json: both would be printed on standard output; write the CSV to a "
                             "file (--csv FILE), or leave one out (the JSON holds every value the CSV does)")
    if csv_file is not None and csv_file != "-":
        check_output("--csv", csv_file, "csv", reading=reading)
    if parquet == "-":
        raise RangefireError("--parquet -: Parquet is written to a file, never to standard output; name a "
                             ".parquet file")
    parquet_path = check_output("--parquet", parquet, "parquet", reading=reading) if parquet is not None else None
    chart = check_output("--plot", plot, "chart", reading=reading) if plot is not None else None
    return parquet_path, chart


def write_csv(where: str, records: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> None:
    """Records as CSV into the file ``where`` (``-``: standard output); exact fractions as text, floats beside."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns or (records[0] if records else [])),
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    if where == "-":
        sys.stdout.write(buffer.getvalue())
        return
    target = Path(where)
    try:
        if target.exists() and stat.S_ISFIFO(target.stat().st_mode):
            # Opened plainly, a named pipe nothing reads from would make the command wait for ever; opened without
            # waiting it says so (ENXIO), and a pipe being read is written as any file.
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
            os.set_blocking(fd, True)
            with os.fdopen(fd, "w", encoding="utf-8") as stream:
                stream.write(buffer.getvalue())
            return
        from rangefire.core.errors import ScenarioError
        from rangefire.scenario.files import atomic_write_bytes

        try:  # as a battle is written: a kill mid-write leaves the old file whole, never an empty one
            atomic_write_bytes(target, buffer.getvalue().encode("utf-8"))
        except ScenarioError as exc:
            raise RangefireError(str(exc)) from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise RangefireError(f"{where}: a named pipe that nothing reads from; refused") from None
        raise RangefireError(f"{where}: cannot write ({exc.strerror or exc})") from None


def plot_comparison(result: Comparison, path: Path) -> None:
    """The variants overlaid in one chart, each named in the legend with what it changes."""
    from rangefire.analysis.compare import settings_text
    from rangefire.analysis.plots import plot_series, rules_said, series_from_odds

    legal = [v for v in result.variants if v.odds is not None]
    if not legal:
        raise RangefireError(f"{path}: no chart: the rules refuse the attack in every variant")
    series = [series_from_odds(v.odds, f"{v.name}: {settings_text(v.variant.settings)}" if v.variant.settings
                               else v.name) for v in legal if v.odds is not None]
    refused = [f"{v.name} [{', '.join(r.clause for r in v.check.refusals)}]" for v in result.variants
               if v.odds is None]
    others = [v.name for v in result.variants if v.name != result.baseline]
    battle = result.battle or "a battle without a name"
    shared = result.shared_house_rules()
    rules = f"in every variant, {rules_said(shared)}" if shared else "rules as written but for each variant's change"
    subtitle = f"{battle} ({result.ruleset}); {rules}; each against the baseline, {result.baseline}" + (
        f"; refused by the rules, not drawn: {', '.join(refused)}" if refused else "")
    plot_series(series, path, title=f"{result.attacker} fires at {result.target}: {result.baseline} against "
                                    f"{', '.join(others)}", subtitle=subtitle, conditions=result.conditions)


# -- for people ------------------------------------------------------------------------------------
def _points(d: Fraction) -> str:
    """A difference of probabilities in percentage points, signed; never rounded to nothing unless it is."""
    if d == 0:
        return "±0"
    if abs(d) < Fraction(1, 2000):
        return ("+" if d > 0 else "−") + "<0.1"
    return f"{float(d) * 100:+.1f}".replace("-", "−")


#: At the terminal a row is left out when every variant's value is below this (the files and --json hold all).
SHOWN_BELOW = Fraction(1, 2000)
#: What the statistics' rows mean, said once above the tables.
STATISTICS_SAID = ("sd: the standard deviation; median and 90th: the least N such that half (nine tenths) of "
                   "the attacks come to N or less")
#: The statistics under each outcome's "exactly N", as their rows are headed (the variance is in the files).
STATISTIC_ROWS = (("mean", "mean"), ("sd", "sd"), ("median", "median"), ("percentile_90", "90th"))


def render_comparison(result: Comparison) -> None:
    from rich.text import Text

    from rangefire.analysis.compare import settings_text, value_text

    out.print(Text.assemble((f"{result.attacker} fires at {result.target}", "bold"),
                            f": {len(result.variants)} variants, each set against {result.baseline}"))
    for v in result.variants:
        role = " (baseline)" if v.name == result.baseline else ""
        what = settings_text(v.variant.settings) or ("the scenario as written" if v.variant.scenario is None
                                                     else "its own scenario file")
        out.print(Text.assemble("  ", (v.name, "bold"), role, ": ") + text(what))
        own = {setting.path for setting in v.variant.settings}
        for rule in v.house_rules:  # set in the file or with --set, not by the variant itself
            if rule.path not in own:
                out.print(text(f"    house rule {rule.path}={value_text(rule.value)} (the rules say "
                               f"{value_text(rule.default)}) [{rule.clause}]", "dim"))
        if v.odds is not None and v.check.target != result.target:
            out.print(text(f"    fires at {v.check.target} (the target the rules choose there)", "yellow"))
        if v.odds is not None and not v.odds.exact:  # never pass an estimate off as exact
            out.print(text("    a Monte Carlo estimate, not exact (--json says how it was made)", "yellow"))
        for refusal in v.check.refusals:
            out.print(Text("    refused: ", style="red") + text(refusal.reason) + text(f" [{refusal.clause}]", "dim"))
    shown = [v.name for v in result.variants if v.odds is not None]
    if not shown:
        return
    against = f"beside each value its difference from {result.baseline} in percentage points" \
        if result.baseline in shown else f"no differences: the rules refuse the baseline's attack ({result.baseline})"
    out.print(text(f"{against}; rows under 0.05% (at most N: over 99.95%) in every variant left out (--json and --csv "
                   "hold every one)", "dim"))
    out.print(text(STATISTICS_SAID, "dim"))
    for outcome in result.outcome_names:
        label = outcome.replace("_", " ") + (f" ({result.conditions[outcome]})" if outcome in result.conditions
                                             else "")
        values = result.values(outcome)
        for kind, title, ns in (("exactly", "exactly N", values), ("at_least", "at least N", values[1:]),
                                ("at_most", "at most N", values[:-1])):
            # (at least the least value and at most the greatest are certain: no row for them)
            rows: list[list[Any]] = []
            for n in ns:
                found = [Fraction(result.value(name, kind, outcome, n) or 0) for name in shown]
                # a row left out where every variant's chance is too small to show (at most N: too near 1)
                if kind == "at_most" and all(p > 1 - SHOWN_BELOW for p in found):
                    continue
                if kind == "at_most" or any(p >= SHOWN_BELOW for p in found):
                    rows.append([str(n), *_cells(result, shown, kind, outcome, n)])
            if kind == "exactly":
                for statistic, said in STATISTIC_ROWS:
                    rows.append([said, *_cells(result, shown, statistic, outcome)])
            _table(shown, f"{label}: {title}", rows)
    _table(shown, "events", [[text(event), *_cells(result, shown, "event", event)] for event in result.event_names],
           first="event")


def _table(shown: Sequence[str], title: str, rows: list[list[Any]], first: str = "N") -> None:
    """A table of one value per variant under its title, every value whole at any width (see print_figures)."""
    from rangefire.cli.figures import print_figures

    out.print(text(title, "bold"))  # on a line of its own: a table's title wraps at the table's narrow width
    print_figures((first,), shown, rows, key_justify="right" if first == "N" else "left")


def _cells(result: Comparison, shown: Sequence[str], kind: str, name: str, n: int | None = None) -> list[Any]:
    from rich.text import Text

    cells: list[Any] = []
    for variant in shown:
        value, diff = result.value(variant, kind, name, n), result.difference(variant, kind, name, n)
        assert value is not None  # only the variants with odds are shown
        whole = kind in ("median", "percentile_90")  # a value of the outcome
        spread = kind in ("mean", "variance", "sd")  # in the outcome's own units
        said = str(value) if whole else f"{float(value):.3f}" if spread else percent(Fraction(value))
        if variant == result.baseline or diff is None:
            cells.append(Text(said))
            continue
        change = ("±0" if diff == 0 else f"{int(diff):+d}".replace("-", "−") if whole else
                  f"{float(diff):+.3f}".replace("-", "−") if spread else _points(Fraction(diff)))
        style = "dim" if diff == 0 else ("green" if diff > 0 else "red")
        cells.append(Text.assemble(said, " ", (change, style)))
    return cells


__all__ = ["compare", "parse_variant", "split_top", "write_csv"]
