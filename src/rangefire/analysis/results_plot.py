"""Charts of a results file: the Parquet file a sweep writes (or a table's ``--parquet``), one quantity of its rows
against one of the paths varied (lines) or over two (a heatmap), any other path fixed at a value or drawn as
lines and panels (:mod:`rangefire.analysis.charts`).

The file's metadata (written by the sweep and the table) says what its rows are of: the game, the battle, the
attack, the paths varied, the house rules in force. A sweep's file written before it held them is read by its
columns (the paths between ``point`` and ``target``); its heading says the house rules were not recorded.
pyarrow and matplotlib are imported here, when a chart is made.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from rangefire.analysis.charts import (
    Heading,
    Point,
    Varied,
    check_event,
    draw_heatmap,
    draw_lines,
    parse_metric,
    varied_from,
)
from rangefire.core import LimitError, RangefireError
from rangefire.core.options import HouseRule
from rangefire.scenario.files import special_kind

#: The metadata key the sweep and the table write (``sweep_run.RESULTS_KEY``).
RESULTS_KEY = b"rangefire"
#: Points a chart draws at most, once ``--at`` has fixed what it fixes (a line of a million points is no chart).
MAX_POINTS = 200_000
#: The columns of a sweep's file that are no quantity.
_SWEEP_COLUMNS = ("point", "target", "legal", "refusal_clause", "refusal")


@dataclass(frozen=True)
class Results:
    """A results file read: what its rows are of, and the columns it holds."""

    path: Path
    described: Mapping[str, Any]
    axes: tuple[str, ...]
    quantities: tuple[str, ...]
    columns: tuple[str, ...]
    rows: int

    @property
    def outcomes(self) -> list[str]:
        found = self.described.get("outcomes")
        if isinstance(found, list):
            return [str(o) for o in found]
        return [q.removesuffix("_mean") for q in self.quantities if q.endswith("_mean")]

    @property
    def events(self) -> list[str]:
        outcomes = self.outcomes
        return [q for q in self.quantities if not any(q.startswith(o + "_") for o in outcomes)]

    def default_metric(self) -> str:
        main = self.described.get("main_outcome")
        if isinstance(main, str) and f"{main}_mean" in self.quantities:
            return f"{main}_mean"
        return self.quantities[0]


def read_results(path: Path) -> Results:
    """The file's description and columns (no row read yet); a file that is no results file is refused."""
    import pyarrow.parquet as pq

    try:
        info = path.stat()  # links followed: a pipe is never opened (reading one waits for ever)
    except FileNotFoundError:
        raise RangefireError(f"{path}: no such file") from None
    except OSError as exc:
        raise RangefireError(f"{path}: cannot be read ({exc.strerror or 'refused'})") from None
    kind = special_kind(info.st_mode)
    if kind is not None:
        raise RangefireError(f"{path}: is {kind}, not a results file")
    if info.st_size == 0:
        raise RangefireError(f"{path}: is empty: not a Parquet file")
    try:
        schema = pq.read_schema(path)
        rows = pq.ParquetFile(path).metadata.num_rows
    except FileNotFoundError:
        raise RangefireError(f"{path}: no such file") from None
    except (OSError, ValueError):
        raise RangefireError(f"{path}: not a Parquet file (a sweep's --out, a table's --parquet)") from None
    columns = tuple(schema.names)
    raw = (schema.metadata or {}).get(RESULTS_KEY)
    described: dict[str, Any] = {}
    if raw is not None:
        try:
            found = json.loads(raw)
        except ValueError:
            found = None
        if not isinstance(found, dict) or not isinstance(found.get("axes"), list):
            raise RangefireError(f"{path}: its rangefire metadata cannot be read")
        described = found
        axes = tuple(str(a) for a in found["axes"])
    elif columns[:1] == ("point",) and "target" in columns and "legal" in columns:  # a sweep's, from before
        axes = columns[1:columns.index("target")]
    else:
        raise RangefireError(f"{path}: not the results of a sweep or a table (no rangefire metadata, and not a "
                             "sweep's columns)")
    missing = [a for a in (*axes, "legal") if a not in columns]
    if missing:
        raise RangefireError(f"{path}: lacks the columns {', '.join(missing)}")
    if not axes:
        raise RangefireError(f"{path}: varies nothing to chart")
    if not rows:
        raise RangefireError(f"{path}: holds no rows to chart")
    skip = {*axes, *_SWEEP_COLUMNS, "exact", "refusals"}
    quantities = tuple(c for c in columns if c not in skip and not c.endswith("_float"))
    return Results(path, described, axes, quantities, columns, rows)


def parse_at(texts: Sequence[str], results: Results) -> dict[str, Any]:
    """``--at PATH=VALUE`` read: each path one of the file's, each value read as a scenario value."""
    from rangefire.scenario.paths import parse_setting

    fixed: dict[str, Any] = {}
    for text in texts:
        path, sep, value = text.partition("=")
        path = path.strip()
        if not sep or not path or not value.strip():
            raise RangefireError(f"--at {text[:60]!r}: write PATH=VALUE (e.g. options.discipline_pass=6)")
        if path not in results.axes:
            raise RangefireError(f"--at {path}: not a path of {results.path.name} ({', '.join(results.axes)})")
        if path in fixed:
            raise RangefireError(f"--at {path} is given twice")
        fixed[path] = parse_setting(f"{path}={value}", source=f"--at {path}").value
    return fixed


def results_chart(results: Results, *, metric: str | None = None, x: str | None = None, y: str | None = None,
                  at: Mapping[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """The chart of a results file, as a matplotlib ``Figure``, and what it drew (JSON-ready): ``metric``
    against ``x`` (default: the first path varied whose values are numbers), a line per value of the other
    paths; with ``y`` a heatmap over ``x`` and ``y``. ``at`` fixes paths at a value (``{path: value}``)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    at = dict(at or {})
    chosen = parse_metric(metric if metric is not None else results.default_metric(), results.outcomes,
                          results.events)
    check_event(chosen, results.events, outcomes=results.outcomes)
    if chosen.column not in results.quantities:
        raise RangefireError(f"--metric {chosen.column}: {results.path.name} holds {', '.join(results.quantities)} "
                             "(a sweep's grid file says what it records, under record)")
    value_column = f"{chosen.column}_float" if f"{chosen.column}_float" in results.columns else chosen.column
    table = pq.read_table(results.path, columns=[*results.axes, "legal", value_column])
    unit = results.described.get("length_unit") if isinstance(results.described.get("length_unit"), str) else None
    for path, value in at.items():  # filtered in Arrow: a file of millions of rows is never read into Python
        column = table.column(path)
        matching = [v for v in pc.unique(column).to_pylist() if _same_value(v, value)]
        if not matching:
            shown = [_text(path, v) for v in pc.unique(column).to_pylist()[:12]]
            raise RangefireError(f"--at {path}: no row holds {json.dumps(value)}; its values: {', '.join(shown)}"
                                 + (", ..." if len(pc.unique(column)) > 12 else ""))
        table = table.filter(pc.is_in(column, value_set=_array(matching, column.type)))
    if table.num_rows > MAX_POINTS:
        raise LimitError(f"{table.num_rows:,} rows to draw; a chart draws at most {MAX_POINTS:,}: fix some paths "
                         "with --at PATH=VALUE")
    axes = []
    for path in results.axes:
        if path in at:
            continue
        axes.append(varied_from(path, pc.unique(table.column(path)).to_pylist(), unit))  # in the rows' order
    varied = [a for a in axes if len(a.values) > 1]
    if not varied:
        raise RangefireError(f"{results.path.name}: nothing left varying to chart (every path fixed or of one value)")
    axis_of = {a.path: a for a in varied}
    x_path = _choose(x, "--x", axis_of, varied, exclude=y)
    if y is not None:
        _choose(y, "--y", axis_of, varied)
    paths = [a.path for a in varied]
    data = table.to_pydict()
    points = []
    for i in range(table.num_rows):
        legal = data["legal"][i]
        value = data[value_column][i]
        points.append(Point({p: _read_value(data[p][i]) for p in paths},
                            None if not legal or value is None else _quantity(results.path, value_column, value)))
    described = results.described
    fixed = [f"{a.name()} = {a.text(a.values[0])}" for a in axes if len(a.values) == 1] + \
        [f"{varied_from(p, [v]).name()} = {_text(p, v)}" for p, v in at.items()]
    refused = sum(1 for pt in points if pt.y is None)
    notes = ([f"at {', '.join(fixed)}"] if fixed else []) + \
        ([f"{refused:,} of {len(points):,} points refused by the rules: not drawn"] if refused else [])
    heading = Heading(_attack(described, results), str(described.get("battle") or ""),
                      str(described.get("ruleset") or "game not recorded"), _house_rules(results), notes)
    conditions = described.get("conditions") if isinstance(described.get("conditions"), dict) else None
    if y is None:
        fig = draw_lines(points, varied, x_path, chosen, heading, conditions=conditions)
    else:
        fig = draw_heatmap(points, varied, x_path, y, chosen, heading, conditions=conditions)
    return fig, {"metric": chosen.column, "x": x_path, "y": y, "at": {p: v for p, v in at.items()},
                 "points": len(points), "refused": refused, "kind": "heatmap" if y is not None else "lines"}


def _quantity(path: Path, column: str, value: Any) -> float:
    """A value of the quantity's column as a number: a float, or the exact fraction a file may hold as text."""
    try:
        number = float(Fraction(value) if isinstance(value, str) else value)
    except (TypeError, ValueError, ZeroDivisionError):
        raise RangefireError(f"{path}: column {column}: {str(value)[:40]!r} is not a number") from None
    except OverflowError:  # an exact fraction past the floats' range ("1e400")
        number = math.inf
    if math.isinf(number):
        raise RangefireError(f"{path}: column {column}: {str(value)[:40]} is not a finite number")
    return number


def _house_rules(results: Results) -> list[HouseRule] | None:
    """The house rules the file records (None where it records none: a sweep's file of an earlier version)."""
    rules = results.described.get("house_rules", None) if results.described else None
    if rules is None:
        return None
    keys = ("path", "value", "default", "clause")
    if not isinstance(rules, list) or not all(isinstance(r, dict) and all(k in r for k in keys) for r in rules):
        raise RangefireError(f"{results.path}: its rangefire metadata cannot be read (house_rules)")
    return [HouseRule(str(r["path"]), r["value"], r["default"], str(r["clause"])) for r in rules]


def _choose(name: str | None, flag: str, axis_of: Mapping[str, Varied], varied: Sequence[Varied],
            exclude: str | None = None) -> str:
    if name is None:
        return next((a.path for a in varied if a.numeric and a.path != exclude),
                    next(a.path for a in varied if a.path != exclude))
    if name in axis_of:
        return name
    raise RangefireError(f"{flag} {name[:60]!r}: not a path varied in the rows drawn ({', '.join(axis_of)})")


def _attack(described: Mapping[str, Any], results: Results) -> str:
    attacker = described.get("attacker")
    if not attacker:
        return results.path.name
    return f"{attacker} fires at {described.get('target') or 'the target the rules choose'}"


def _read_value(value: Any) -> Any:
    return varied_from("", [value]).values[0]


def _text(path: str, value: Any) -> str:
    """A value as a chart names it."""
    axis = varied_from(path, [value])
    return axis.text(axis.values[0])


def _same_value(found: Any, wanted: Any) -> bool:
    """Whether a value in the file (as typed, or its text) is the value asked for."""
    read = _read_value(found)
    if isinstance(read, list | tuple) and isinstance(wanted, list | tuple):
        return len(read) == len(wanted) and all(float(a) == float(b) for a, b in zip(read, wanted, strict=True))
    if isinstance(read, bool) or isinstance(wanted, bool):
        return read is wanted or (isinstance(found, str) and found == ("true" if wanted is True else "false"))
    if isinstance(read, int | float) and isinstance(wanted, int | float):
        return float(read) == float(wanted)
    return str(read) == str(wanted)


def _array(values: Sequence[Any], kind: Any) -> Any:
    import pyarrow as pa

    return pa.array(values, type=kind)


__all__ = ["MAX_POINTS", "Results", "parse_at", "read_results", "results_chart"]
