"""Charts over what varies: one quantity of a table's rows or a sweep's points (an outcome's mean, its odds of at
least N, an event...) drawn against a varied value, as lines, or over two varied values, as a heatmap.

- :func:`parse_metric` reads the quantity as the rows' columns name it (``stands_lost_mean``,
  ``stands_lost_at_least_2``, ``disorder``; a bare outcome is its mean);
- :func:`draw_lines` draws it against one varied value (or the range the rules measured), one line per value of
  the other varied values, in panels where they are many; :func:`draw_heatmap` over two varied values;
- every chart's heading names the attack, the quantity, the battle, the game and the house rules in force.

Any number of points: beyond eight lines a line's colour runs along a scale (a colour bar says which value is
which) instead of a legend; beyond :data:`MAX_PANELS` panels the chart is refused, naming what to fix.
matplotlib is imported when a chart is drawn, never before.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rangefire.analysis.plots import COLOURS, rules_said
from rangefire.core import RangefireError
from rangefire.core.numbers import percent
from rangefire.core.options import HouseRule

#: The kinds of quantity a chart draws, and how a column names each (``OUTCOME_KIND``, ``OUTCOME_at_least_N``).
STATISTIC_KINDS = ("mean", "variance", "sd", "median", "percentile_90")
TAIL_KINDS = ("at_least", "at_most")
#: The lines' colours: the bars' palette (Okabe and Ito's), its yellow, too pale for a thin line on white, given
#: for a wine red.
LINE_COLOURS = (*COLOURS[:7], "#882255")
#: Lines named one by one in a legend; more are coloured along a scale.
MAX_NAMED_LINES = len(LINE_COLOURS)
#: A line's dash and mark, where they tell the values of the last of the paths apart.
STYLES = (("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"))
#: Panels a chart holds at most.
MAX_PANELS = 12
#: A chart's x axis measured by the rules rather than set: the range from firer to target (each plan's).
RANGE = "range"


# -- what is drawn ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """One quantity of each row: ``kind`` is a statistic of an outcome (``mean``, ``variance``, ``sd``,
    ``median``, ``percentile_90``), one of its tails (``at_least``, ``at_most``, at ``n``), or an ``event``'s
    probability; ``column`` is its name among the rows' columns."""

    column: str
    kind: str
    outcome: str | None = None
    n: int | None = None

    @property
    def probability(self) -> bool:
        return self.kind in (*TAIL_KINDS, "event")

    def said(self, conditions: Mapping[str, str] | None = None) -> str:
        """The quantity for people: ``P(stands lost ≥ 2)``, ``stands lost: mean``, ``P(disorder)``."""
        if self.kind == "event":
            return f"P({_words(self.column)})"
        assert self.outcome is not None
        name = _words(self.outcome)
        given = (conditions or {}).get(self.outcome)
        if self.kind in TAIL_KINDS:
            sign = "≥" if self.kind == "at_least" else "≤"
            return f"P({name} {sign} {self.n}" + (f" | {given.removeprefix('given ')})" if given else ")")
        what = {"sd": "standard deviation", "percentile_90": "90th percentile"}.get(self.kind, self.kind)
        return f"{name}: {what}" + (f" ({given})" if given else "")

    def axis_label(self, conditions: Mapping[str, str] | None = None) -> str:
        """The quantity's axis label with its unit: a probability in %, a statistic in the outcome's own."""
        if self.probability:
            return f"{self.said(conditions)}, %"
        assert self.outcome is not None
        unit = "squared" if self.kind == "variance" else ""
        return f"{self.said(conditions)} ({_words(self.outcome)}{' ' + unit if unit else ''} per attack)"


def parse_metric(text: str, outcomes: Sequence[str], events: Sequence[str] | None, *,
                 flag: str = "--metric", declared: Sequence[str] = ()) -> Metric:
    """A quantity named as the rows' columns name it: ``OUTCOME`` (its mean), ``OUTCOME_mean``, ``_variance``,
    ``_sd``, ``_median``, ``_percentile_90``, ``OUTCOME_at_least_N``, ``OUTCOME_at_most_N``, or an event.

    ``events`` None takes any other name for an event, to be checked once the events are known
    (:func:`check_event`; ``declared`` are those known before, said where a name is refused). Raises
    :class:`RangefireError` naming ``flag`` and what can be named."""
    name = text.strip()
    for outcome in sorted(outcomes, key=len, reverse=True):  # unsaved_hits before hits
        if name == outcome:
            return Metric(f"{outcome}_mean", "mean", outcome)
        if not name.startswith(outcome + "_"):
            continue
        rest = name[len(outcome) + 1:]
        if rest in STATISTIC_KINDS:
            return Metric(name, rest, outcome)
        tail = re.fullmatch(r"(at_least|at_most)_(-?[0-9]{1,6})", rest)
        if tail:
            return Metric(name, tail.group(1), outcome, int(tail.group(2)))
    known = events is not None and name in events
    misspelt = any(name.startswith(outcome + "_") for outcome in outcomes)  # hits_avg: no event of the games
    if (known or (events is None and not misspelt)) and re.fullmatch(r"[A-Za-z0-9_\-]+", name):
        return Metric(name, "event")
    raise RangefireError(f"{flag} {text[:60]!r}: {_metric_choices(outcomes, events or declared)}")


def check_event(metric: Metric, events: Sequence[str], flag: str = "--metric",
                outcomes: Sequence[str] = ()) -> None:
    """An event named before the events were known, checked against them."""
    if metric.kind == "event" and metric.column not in events:
        raise RangefireError(f"{flag} {metric.column!r}: {_metric_choices(outcomes, events)}")


def _metric_choices(outcomes: Sequence[str], events: Sequence[str] | None) -> str:
    first = outcomes[0] if outcomes else "OUTCOME"
    said = (f"name an outcome ({', '.join(outcomes)}) for its mean, or OUTCOME_mean, _sd, _median, "
            f"_percentile_90, _variance, OUTCOME_at_least_N or OUTCOME_at_most_N (e.g. {first}_at_least_1)")
    return said + (f", or an event ({', '.join(events)})" if events else ", or an event")


# -- the heading every chart has --------------------------------------------------------------------------
@dataclass(frozen=True)
class Heading:
    """What a chart says above its panels: the attack and the quantity, the battle and its game, the house rules
    in force (None where the source does not record them), and notes (rows refused, estimates)."""

    attack: str
    battle: str
    ruleset: str
    house_rules: Sequence[HouseRule] | None = ()
    notes: Sequence[str] = field(default_factory=tuple)

    def lines(self, quantity: str) -> tuple[str, str]:
        """The title (the attack and the quantity) and the line under it (battle, game, rules, notes)."""
        battle = self.battle or "a battle without a name"
        rules = rules_said(self.house_rules)
        return f"{self.attack}: {quantity}", "; ".join([f"{battle} ({self.ruleset})", rules, *self.notes])


# -- the values a chart is drawn over ----------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """One row: each varied path's value, the quantity there (None where the rules refuse the attack), and
    the range the rules measured (where the chart's x axis is the range)."""

    values: Mapping[str, Any]
    y: float | None
    measured: float | None = None


@dataclass(frozen=True)
class Varied:
    """A varied path and its values in order, as a chart places them: numbers at their own places, a point of
    which one coordinate changes at that coordinate, anything else side by side in the order given."""

    path: str
    values: tuple[Any, ...]
    unit: str | None = None  # of a length (positions): "in", "steps"

    @property
    def coordinate(self) -> int | None:
        """For points (``[10, 5]``) of which one coordinate alone changes, that coordinate."""
        if not self.values or not all(_point(v) for v in self.values):
            return None
        sizes = {len(v) for v in self.values}
        if len(sizes) != 1:
            return None
        changing = [i for i in range(sizes.pop()) if len({float(v[i]) for v in self.values}) > 1]
        return changing[0] if len(changing) == 1 else None

    @property
    def numeric(self) -> bool:
        return bool(self.values) and (all(_number(v) for v in self.values) or self.coordinate is not None)

    def place(self, value: Any) -> float:
        """Where a value stands on an axis: a number at its own place on an axis of numbers, anything else (a
        number among values that are not) at its place in the order given, under its own tick."""
        if self.numeric:
            at = self.coordinate
            return float(value[at]) if at is not None and _point(value) else float(value)
        return float(self.values.index(value))

    def name(self) -> str:
        """The path for people: ``15th-alabama: stands``, ``stone-wall: kind``, ``options.discipline_pass``."""
        steps = self.path.split(".")
        if len(steps) >= 3 and steps[0] in ("units", "terrain"):
            return f"{steps[1]}: {' '.join(steps[2:])}".replace("_", " ")
        return self.path

    def label(self) -> str:
        """The axis's label with its unit where it is not its name: ``15th-alabama: stands``,
        ``15th-alabama: position y (in)``, ``20th-maine: micro hits``."""
        at = self.coordinate
        name = self.name() + (f" {'xyz'[at] if at < 3 else at}" if at is not None else "")
        return name + (f" ({self.unit})" if self.unit and self.path.endswith(".position") else "")

    def text(self, value: Any) -> str:
        return _value_text(value)


def varied_from(path: str, values: Sequence[Any], unit: str | None = None) -> Varied:
    """A varied path, its values as typed read back as values (``"[10, 4]"`` a point, ``"4"`` a number)."""
    return Varied(path, tuple(_read(v) for v in values), unit)


def _read(value: Any) -> Any:
    """A value as a file of rows holds it (text where not a number) read back as the value it was."""
    if not isinstance(value, str):
        return value
    try:
        found = json.loads(value)
    except ValueError:
        return value
    return found if isinstance(found, int | float | list) and not isinstance(found, bool) else value


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _point(value: Any) -> bool:
    return isinstance(value, list | tuple) and bool(value) and all(_number(v) for v in value)


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:  # none, as it is typed (--set PATH=null)
        return "null"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_value_text(v) for v in value) + "]"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _words(name: str) -> str:
    return name.replace("_", " ")


# -- lines --------------------------------------------------------------------------------------------------
def draw_lines(points: Sequence[Point], axes: Sequence[Varied], x: str, metric: Metric, heading: Heading, *,
               conditions: Mapping[str, str] | None = None, measured_unit: str | None = None) -> Any:
    """The quantity against the varied path ``x`` (or :data:`RANGE`, each point's measured range), one line per
    value of the other varied paths, as a matplotlib ``Figure``.

    Up to :data:`MAX_NAMED_LINES` combinations of the other paths are lines in one panel, named in a legend;
    more make a panel for each value of the paths after the first, each line a value of the first, coloured
    along a scale beyond :data:`MAX_NAMED_LINES` values. A point the rules refuse is a gap in its line."""
    by_path = {a.path: a for a in axes}
    if x != RANGE and x not in by_path:
        raise RangefireError(f"--x {x}: not a varied path ({', '.join(by_path)})")
    if x == RANGE:
        others = [a for a in axes if not a.path.endswith(".position")]
        x_axis = None
    else:
        others = [a for a in axes if a.path != x]
        x_axis = by_path[x]
    combos = math.prod(len(a.values) for a in others)
    if combos <= MAX_NAMED_LINES:
        line_axes, panel_axes = others, []
    else:
        line_axes, panel_axes = others[:1], others[1:]
    panels = list(itertools.product(*(a.values for a in panel_axes)))
    if len(panels) > MAX_PANELS:
        sizes = " x ".join(f"{len(a.values)} ({a.path})" for a in panel_axes)
        raise RangefireError(f"{sizes} = {len(panels)} panels; a chart holds at most {MAX_PANELS}: vary fewer "
                             "values, or choose another --x")
    lines = list(itertools.product(*(a.values for a in line_axes)))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    cols = 2 if len(panels) == 4 else min(3, len(panels))  # four panels as a square, not three and one
    rows = -(-len(panels) // cols)
    width = 8.8 if len(panels) == 1 else 4.4 * cols + 1.2
    fig, grid = plt.subplots(rows, cols, figsize=(width, 5.4 if len(panels) == 1 else 3.5 * rows + 2.2),
                             squeeze=False, sharey=True, layout="constrained")
    scale = len(lines) > MAX_NAMED_LINES
    colours, bar = _line_colours(line_axes[0] if line_axes else None, lines, scale)
    styles = [("-", "o")] * len(lines)
    if not scale and len(line_axes) >= 2 and len(line_axes[-1].values) <= len(STYLES):
        # the last path as the line's dash and mark, the others as its colour: two stands by two cover grades
        # read as two colours, each solid and dashed, not four colours to tell apart
        last = line_axes[-1].values
        keys = [json.dumps(line[:-1], default=str) for line in lines]  # a value may be a list: keyed as text
        rest = list(dict.fromkeys(keys))
        colours = [LINE_COLOURS[rest.index(key) % len(LINE_COLOURS)] for key in keys]
        styles = [STYLES[_index(last, line[-1]) or 0] for line in lines]
    flat = list(grid.flat)
    shown = [False] * len(lines)  # whether a line has a point anywhere: one refused throughout says so
    grouped = _grouped(points, [a.path for a in (*panel_axes, *line_axes)])  # each line's points found once
    for p, panel in enumerate(panels):
        ax = flat[p]
        fixed = dict(zip((a.path for a in panel_axes), panel, strict=True))
        drawn = []
        for line in lines:
            chosen = {**fixed, **dict(zip((a.path for a in line_axes), line, strict=True))}
            found = grouped.get(_key([*panel, *line]), [])
            if x_axis is None:
                xy = sorted((pt.measured, pt.y) for pt in found if pt.measured is not None)
            else:
                xy = sorted((x_axis.place(pt.values[x]), pt.y) for pt in found)
            drawn.append((chosen, [a for a, _ in xy], [math.nan if b is None else b for _, b in xy]))
        # a line that a later one repeats exactly (a value the quantity does not depend on) is drawn wider
        # beneath it: every line shows, none hidden under the last drawn
        under = [sum(1 for _, xs2, ys2 in drawn[i + 1:] if xs2 == xs and _equal_ys(ys2, ys))
                 for i, (_, xs, ys) in enumerate(drawn)]
        for i, (line, (chosen, xs, ys)) in enumerate(zip(lines, drawn, strict=True)):
            shown[i] = shown[i] or any(not math.isnan(y) for y in ys)
            label = _line_name(line_axes, line) if line_axes else metric.said(conditions)
            wider = min(under[i], 4)
            ax.plot(xs, ys, color=colours[i], linestyle=styles[i][0], marker=styles[i][1] if len(xs) <= 30 else None,
                    markersize=4.5 + 2.5 * wider, linewidth=1.8 + 2.2 * wider, label=label, gid=_gid(chosen),
                    zorder=2 + i / 1000)
        if panel_axes:
            ax.set_title(", ".join(f"{a.name()} = {a.text(v)}" for a, v in zip(panel_axes, panel,
                                                                                      strict=True)), fontsize=10)
        if x_axis is not None and not x_axis.numeric:
            ax.set_xticks(range(len(x_axis.values)), [x_axis.text(v) for v in x_axis.values],
                          rotation=30 if len(x_axis.values) > 6 else 0)
            ax.set_xlim(-0.5, len(x_axis.values) - 0.5)  # the first and last name inside the panel
        elif x_axis is not None and all(_number(v) and float(v).is_integer() for v in x_axis.values):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=12))
        if metric.probability:
            ax.set_ylim(-0.02, 1.02)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        else:
            ax.set_ylim(bottom=0)
        ax.grid(color="#dddddd", linewidth=0.8)
        ax.tick_params(labelsize=9)
        if p % cols == 0:
            ax.set_ylabel(metric.axis_label(conditions), fontsize=10)
        if p >= len(panels) - cols:
            x_label = (f"range ({measured_unit})" if measured_unit else "range") if x_axis is None else x_axis.label()
            ax.set_xlabel(x_label, fontsize=10)
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    _heading(fig, heading, metric.said(conditions), width)
    if bar is not None:
        assert line_axes
        cbar = fig.colorbar(bar[0], ax=flat[:len(panels)], ticks=bar[1], shrink=0.9)
        cbar.set_label(line_axes[0].label(), fontsize=10)
        if bar[2] is not None:
            cbar.ax.set_yticklabels(bar[2])
    else:
        handles, labels = flat[0].get_legend_handles_labels()
        labels = [label if seen else f"{label} (refused by the rules)"
                  for label, seen in zip(labels, shown, strict=True)]
        title = (None if not line_axes else line_axes[0].name() + (f" ({line_axes[0].unit})" if line_axes[0].unit
                 and line_axes[0].path.endswith(".position") else "") if len(line_axes) == 1 else None)
        per_row = max(1, min(len(labels), int(width * 11 / (max(len(t) for t in labels) + 6))))
        fig.legend(handles, labels, loc="outside lower center", ncols=per_row, fontsize=9, frameon=False,
                   title=title, title_fontsize=9)
    return fig


def _line_colours(axis: Varied | None, lines: Sequence[tuple[Any, ...]],
                  scale: bool) -> tuple[list[Any], tuple[Any, list[float], list[str] | None] | None]:
    """A colour per line: the palette where few; where many, a scale along the first path's values (a colour
    bar with them), whose ticks are the values (or, for values that are no numbers, their names)."""
    if not scale or axis is None:
        return [LINE_COLOURS[i % len(LINE_COLOURS)] for i in range(len(lines))], None
    import matplotlib as mpl

    cmap = mpl.colormaps["viridis"]
    if axis.numeric:
        places = [axis.place(line[0]) for line in lines]
        low, high = min(places), max(places)
        norm = mpl.colors.Normalize(low, high if high > low else low + 1)
        mappable = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
        return [cmap(norm(v)) for v in places], (mappable, _ticks(sorted(set(places))), None)
    count = len(lines)
    norm = mpl.colors.BoundaryNorm([i - 0.5 for i in range(count + 1)], cmap.N)
    mappable = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
    shown_at = _ticks(list(range(count)))
    return [cmap(norm(i)) for i in range(count)], (mappable, shown_at,
                                                   [axis.text(lines[int(i)][0]) for i in shown_at])


def _ticks(values: Sequence[float]) -> list[float]:
    """At most 12 of the values, evenly through them, the first and last among them."""
    if len(values) <= 12:
        return list(values)
    step = -(-len(values) // 12)
    chosen = list(values[::step])
    if (len(values) - 1) % step:  # the last value too, in place of a tick too close before it
        chosen[-1 if (len(values) - 1) % step < step / 2 else len(chosen):] = [values[-1]]
    return chosen


def _key(values: Sequence[Any]) -> str:
    """Values as one key, alike where :func:`_same` holds them alike (a point as a list or a tuple, 6 or 6.0)."""
    def plain(value: Any) -> Any:
        if _number(value):
            return float(value)
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return value

    return json.dumps([plain(v) for v in values], default=str)


def _grouped(points: Sequence[Point], paths: Sequence[str]) -> dict[str, list[Point]]:
    """The points by their values of ``paths`` (a chart of 200,000 points finds each line's in one pass)."""
    found: dict[str, list[Point]] = {}
    for pt in points:
        found.setdefault(_key([pt.values.get(path) for path in paths]), []).append(pt)
    return found


def _equal_ys(a: Sequence[float], b: Sequence[float]) -> bool:
    """Two lines' values alike, a gap (NaN) matching a gap."""
    return len(a) == len(b) and all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b, strict=True))


def _same(a: Any, b: Any) -> bool:
    return a == b or (isinstance(a, list | tuple) and isinstance(b, list | tuple) and list(a) == list(b))


def _gid(chosen: Mapping[str, Any]) -> str:
    """A line's settings, as JSON (a test or a reader of an .svg finds a line by them)."""
    return json.dumps({k: v for k, v in chosen.items()}, default=str, sort_keys=True)


def _line_name(line_axes: Sequence[Varied], line: tuple[Any, ...]) -> str:
    if len(line_axes) == 1:
        return line_axes[0].text(line[0])
    return ", ".join(f"{_short(a.path, line_axes)}={a.text(v)}" for a, v in zip(line_axes, line, strict=True))


def _short(path: str, axes: Sequence[Varied]) -> str:
    """A path as a legend names it: its last step, or its last two where another path ends alike."""
    last = path.rsplit(".", 1)[-1]
    if sum(a.path.rsplit(".", 1)[-1] == last for a in axes) == 1:
        return last
    return ".".join(path.split(".")[-2:])


def _heading(fig: Any, heading: Heading, quantity: str, width: float) -> None:
    title, under = heading.lines(quantity)
    text = [*textwrap.wrap(title, int(width * 7.5), break_on_hyphens=False),
            *textwrap.wrap(under, int(width * 9.5), break_on_hyphens=False)]
    fig.suptitle(text[0] + ("\n" + "\n".join(text[1:]) if len(text) > 1 else ""), fontsize=12)


# -- heatmaps -----------------------------------------------------------------------------------------------
def draw_heatmap(points: Sequence[Point], axes: Sequence[Varied], x: str, y: str, metric: Metric,
                 heading: Heading, *, conditions: Mapping[str, str] | None = None) -> Any:
    """The quantity over two varied paths, a cell a pair of their values, as a matplotlib ``Figure``; a panel for
    each value of the other varied paths (at most :data:`MAX_PANELS`), one colour scale for all. A cell the
    rules refuse is grey, and said so in the legend; where the cells are few, each shows its value."""
    by_path = {a.path: a for a in axes}
    for flag, name in (("--x", x), ("--y", y)):
        if name not in by_path:
            raise RangefireError(f"{flag} {name}: not a varied path ({', '.join(by_path)})")
    if x == y:
        raise RangefireError(f"--x and --y are both {x}: a heatmap is over two varied paths")
    x_axis, y_axis = by_path[x], by_path[y]
    panel_axes = [a for a in axes if a.path not in (x, y)]
    panels = list(itertools.product(*(a.values for a in panel_axes)))
    if len(panels) > MAX_PANELS:
        sizes = " x ".join(f"{len(a.values)} ({a.path})" for a in panel_axes)
        raise RangefireError(f"{sizes} = {len(panels)} panels; a chart holds at most {MAX_PANELS}: fix the other "
                             "paths with --at PATH=VALUE")
    xs = _ordered(x_axis)
    ys = _ordered(y_axis)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib as mpl
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.patches import Patch

    grids = []
    refused = False
    grouped = _grouped(points, [a.path for a in panel_axes])
    row_of = {_key([v]): i for i, v in enumerate(ys)}
    column_of = {_key([v]): j for j, v in enumerate(xs)}
    for panel in panels:
        cells = np.full((len(ys), len(xs)), np.nan)
        for pt in grouped.get(_key(list(panel)), []):
            i = row_of.get(_key([pt.values[y]]))
            j = column_of.get(_key([pt.values[x]]))
            if i is None or j is None:
                continue
            if pt.y is None:
                refused = True
            else:
                cells[i, j] = pt.y
        grids.append(cells)
    found = [g[~np.isnan(g)] for g in grids]
    values = np.concatenate(found) if found else np.array([])
    low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
    if metric.probability and high - low < 1e-12:
        low, high = max(0.0, low - 0.05), min(1.0, high + 0.05)
    elif high - low < 1e-12:
        low, high = low - 0.5, high + 0.5
    cmap = mpl.colormaps["viridis"].with_extremes(bad="#d9d9d9")
    norm = mpl.colors.Normalize(low, high)

    # a panel as wide as its cells need (within bounds), at most three a row and some 17 inches in all
    per_w = max(4.8, min(8.0, 0.5 * len(xs) + 2.2))
    cols = 1 if len(panels) == 1 else 2 if per_w * 3 > 15.5 or len(panels) == 4 else min(3, len(panels))
    per_w = min(per_w, 15.5 / cols)
    rows = -(-len(panels) // cols)
    width = max(7.0, per_w * cols + 1.6)
    fig, grid = plt.subplots(rows, cols, figsize=(width, max(3.4, min(6.5, 0.4 * len(ys) + 2.2)) * rows + 1.9),
                             squeeze=False, layout="constrained")
    flat = list(grid.flat)
    for p, (panel, cells) in enumerate(zip(panels, grids, strict=True)):
        ax = flat[p]
        ax.imshow(np.ma.masked_invalid(cells), origin="lower", aspect="auto", cmap=cmap, norm=norm,
                  interpolation="nearest")
        if len(xs) * len(ys) <= 160:
            for i, j in itertools.product(range(len(ys)), range(len(xs))):
                if not math.isnan(cells[i, j]):
                    value = cells[i, j]
                    said = percent(min(1.0, max(0.0, float(value))), 0) if metric.probability else f"{value:.2f}"
                    dark = norm(value) < 0.6  # viridis is dark below: white text there
                    ax.text(j, i, said, ha="center", va="center", fontsize=8,
                            color="white" if dark else "black")
        ax.set_xticks(*_tick_places(x_axis, xs))
        ax.set_yticks(*_tick_places(y_axis, ys))
        ax.tick_params(labelsize=9)
        if panel_axes:
            ax.set_title(", ".join(f"{a.name()} = {a.text(v)}" for a, v in zip(panel_axes, panel,
                                                                                      strict=True)), fontsize=10)
        if p >= len(panels) - cols:
            ax.set_xlabel(x_axis.label(), fontsize=10)
        if p % cols == 0:
            ax.set_ylabel(y_axis.label(), fontsize=10)
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    _heading(fig, heading, metric.said(conditions), width)
    cbar = fig.colorbar(mpl.cm.ScalarMappable(norm=norm, cmap=cmap), ax=flat[:len(panels)], shrink=0.9)
    cbar.set_label(metric.axis_label(conditions), fontsize=10)
    if metric.probability:
        from matplotlib.ticker import PercentFormatter

        cbar.ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    if refused:
        fig.legend(handles=[Patch(facecolor="#d9d9d9", label="refused by the rules")], loc="outside lower center",
                   fontsize=9, frameon=False)
    return fig


def _ordered(axis: Varied) -> list[Any]:
    """An axis's values in the order a heatmap shows them: numbers from the least up, anything else as given."""
    if axis.numeric:
        return sorted(axis.values, key=axis.place)
    return list(axis.values)


def _index(values: Sequence[Any], value: Any) -> int | None:
    return next((i for i, v in enumerate(values) if _same(v, value)), None)


def _tick_places(axis: Varied, values: Sequence[Any]) -> tuple[list[int], list[str]]:
    """At most 15 ticks, each a value's name (a point of which one coordinate changes by that coordinate, as its
    axis is labelled), the first and the last among them."""
    step = max(1, -(-len(values) // 15))
    places = list(range(0, len(values), step))
    last = len(values) - 1
    if places[-1] != last:  # the last value named, in place of a tick too close before it
        places[-1 if last - places[-1] < step / 2 and len(places) > 1 else len(places):] = [last]
    by_coordinate = axis.coordinate is not None
    return places, [f"{axis.place(values[i]):g}" if by_coordinate else axis.text(values[i]) for i in places]


__all__ = ["MAX_PANELS", "RANGE", "Heading", "Metric", "Point", "Varied", "check_event", "draw_heatmap",
           "draw_lines", "parse_metric", "varied_from"]
