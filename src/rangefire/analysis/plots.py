"""Charts of exact distributions: the one chart module of ``odds``, ``compare``, ``table`` and ``duel``.

One figure draws any number of named series (the rules as written and their variants, one unit and the
other) over shared axes: one panel per outcome, "exactly N" as bars grouped side by side per series, "at least N"
as a line with points in the same colour, each series' mean as a dashed upright line and written in the panel's
corner, the events in a panel of their own. A distribution that holds only given some event (Bushido's success
level, given a hit [BU-6.3]) says so in its panel's title.

matplotlib is imported inside :func:`draw_series` and :func:`plot_series` only: a command that draws no chart
never loads it.

For a caller with distributions of its own (a duel's turns taken, what is left of each unit)::

    from rangefire.analysis.plots import Series, plot_series

    plot_series([Series("exact", {"turns": {1: Fraction(1, 2), 2: Fraction(1, 2)}}),
                 Series("Monte Carlo", {"turns": {1: Fraction(51, 100), 2: Fraction(49, 100)}})],
                Path("duel.png"), title="A against B", labels={"turns": "turns taken"})

Keys that are whole numbers get the "at least" line and a mean; any other keys (a winner's name) get bars only.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from rangefire.core import Odds, RangefireError
from rangefire.core.numbers import percent
from rangefire.core.options import HouseRule, shown

#: The formats a chart is written in, by the file's suffix.
CHART_SUFFIXES = (".png", ".svg", ".pdf")

#: The series' colours in order (Okabe and Ito's palette, told apart with the common colour blindnesses); the
#: first series, the baseline, is the blue.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000", "#F0E442")

#: A chart draws at most this many series (beyond it the bars of one N are slivers no one can read).
MAX_SERIES = 8

#: Panels a row.
COLUMNS = 3

#: The top of a panel's probability axis: the band above 1 holds the means.
MEANS_BAND = 1.16


@dataclass(frozen=True)
class Series:
    """One named set of distributions to draw: a variant of the rules, a unit's side of a duel.

    ``outcomes`` maps an outcome's name to its exact distribution, ``{value: P(exactly value)}``; ``events``
    maps an event's name to its probability. Series drawn together are matched by outcome name; an outcome
    one series lacks is simply not drawn for it.
    """

    name: str
    outcomes: Mapping[str, Mapping[Any, Fraction]]
    events: Mapping[str, Fraction] = field(default_factory=dict)


def series_from_odds(odds: Odds, name: str) -> Series:
    """The series of one attack's odds, named ``name`` (a variant's name, or who fires at whom)."""
    outcomes = {outcome: dict(dist.probabilities())
                for outcome, dist in odds.outcomes.items()}
    return Series(name, outcomes, dict(odds.events))


def check_chart_path(path: Path) -> None:
    """Refuse a file a chart cannot be written as, before any odds are worked out."""
    if path.suffix.lower() not in CHART_SUFFIXES:
        raise RangefireError(f"{path}: a chart is written as .png, .svg or .pdf, not "
                             f"{path.suffix or 'a file without a suffix'}")


def plot_odds(odds: Odds, path: Path, conditions: Mapping[str, str] | None = None, *, battle: str = "",
              house_rules: Sequence[HouseRule] = ()) -> None:
    """The chart of one attack's odds (the same figure as a comparison of one series), its heading naming the
    battle (its scenario's name) and the house rules in force."""
    exact = "exact odds" if odds.exact else "a Monte Carlo estimate, not exact"
    plot_series([series_from_odds(odds, f"{odds.plan.attacker} fires at {odds.plan.target}")], path,
                title=f"{odds.plan.attacker} fires at {odds.plan.target}",
                subtitle=f"{battle or 'a battle without a name'} ({odds.plan.ruleset}); {rules_said(house_rules)}; "
                         f"{exact}", conditions=conditions)


def rules_said(house_rules: Sequence[HouseRule] | None) -> str:
    """The house rules in force, as a chart's heading names them: ``rules as written``, or each with the rules'
    value (``house rules: cover_save.heavy=3 (rules: 4)``); None where they were not recorded."""
    if house_rules is None:
        return "house rules not recorded"
    if not house_rules:
        return "rules as written"
    return "house rules: " + ", ".join(f"{rule.path.removeprefix('options.')}={shown(rule.value)} (rules: "
                                       f"{shown(rule.default)})" for rule in house_rules)


def plot_series(series: Sequence[Series], path: Path, *, title: str, subtitle: str = "",
                labels: Mapping[str, str] | None = None, conditions: Mapping[str, str] | None = None,
                x_label: str = "N") -> None:
    """Draw ``series`` overlaid in one figure and write it to ``path`` (.png, .svg or .pdf by its suffix).

    - ``title``: what was compared, e.g. ``"15th-alabama fires at 20th-maine: cover save 3+ against the
      rules"``; ``subtitle`` a smaller second line (the baseline, the scenario).
    - ``labels``: an outcome's name for people (``{"stands_lost": "stands lost"}``); by default the name with
      spaces for underscores.
    - ``conditions``: for an outcome that holds only given some event, the words saying so (``{"success_level":
      "given a hit"}``): its panel's title carries them.
    - ``x_label``: the horizontal axis of every outcome panel.

    The legend names every series (the first is the baseline where a caller compares against one). Raises
    :class:`RangefireError` for a suffix not written, no series, too many, or a file that cannot be written.
    The file is written atomically (:func:`~rangefire.scenario.files.atomic_write_bytes`).
    """
    check_chart_path(path)
    fig = draw_series(series, title=title, subtitle=subtitle, labels=labels, conditions=conditions,
                      x_label=x_label)
    write_figure(fig, path)


def show_written_out(fig: Any) -> None:
    """Every text of the figure as a picture must show names from a file: a control or format character (an
    escape, a bell) written out (``\\x1b``), never handed to the font, which has no glyph for it; lines kept;
    ``$`` never read as the start of a formula (a name is text, and one not a formula raised a parser's error)."""
    import matplotlib.text

    from rangefire.core.text import shown

    for piece in fig.findobj(matplotlib.text.Text):
        piece.set_parse_math(False)
        said = piece.get_text()
        if not said.replace("\n", "").isprintable():
            piece.set_text("\n".join(shown(line) for line in said.split("\n")))


def write_figure(fig: Any, path: Path) -> None:
    """Write a matplotlib figure to ``path`` (.png, .svg or .pdf by its suffix) and close it; atomically, as a
    battle is written: a kill mid-write leaves the old chart whole, never an empty file."""
    import io

    import matplotlib.pyplot as plt

    from rangefire.core.errors import ScenarioError
    from rangefire.scenario.files import atomic_write_bytes

    check_chart_path(path)
    drawn = io.BytesIO()
    try:
        show_written_out(fig)
        fig.savefig(drawn, dpi=110, format=Path(path).suffix.lower().removeprefix("."))
    finally:
        plt.close(fig)
    try:
        atomic_write_bytes(path, drawn.getvalue())
    except ScenarioError as exc:
        raise RangefireError(str(exc)) from None


def draw_series(series: Sequence[Series], *, title: str, subtitle: str = "",
                labels: Mapping[str, str] | None = None, conditions: Mapping[str, str] | None = None,
                x_label: str = "N") -> Any:
    """The figure :func:`plot_series` writes, as a matplotlib ``Figure`` (for a caller that lays out or saves
    it itself; close it with ``matplotlib.pyplot.close``)."""
    if not series:
        raise RangefireError("a chart needs at least one series")
    if len(series) > MAX_SERIES:
        raise RangefireError(f"a chart draws at most {MAX_SERIES} series, not {len(series)}")
    labels = labels or {}
    conditions = conditions or {}
    outcomes = list(dict.fromkeys(name for s in series for name in s.outcomes))
    events = list(dict.fromkeys(name for s in series for name in s.events))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    panels = len(outcomes) + (1 if events else 0)
    cols = 2 if panels == 4 else min(COLUMNS, panels)  # four panels as a square, not three and one
    rows = -(-panels // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols + 0.4, 3.7 * rows + 1.7), squeeze=False,
                             layout="constrained")
    flat = list(axes.flat)
    colours = [COLOURS[i % len(COLOURS)] for i in range(len(series))]
    for i, name in enumerate(outcomes):
        label = labels.get(name, name.replace("_", " "))
        condition = conditions.get(name)
        _outcome_panel(flat[i], series, colours, name, label, condition, x_label, first_in_row=i % cols == 0)
    if events:
        _events_panel(flat[len(outcomes)], series, colours, events, labels)
    for ax in flat[panels:]:
        ax.set_visible(False)

    width = 4.6 * cols + 0.4
    # wrapped to the figure's width (about 8 characters an inch at the title's size): a long list of what was
    # compared would run off both edges
    heading = [*textwrap.wrap(title, int(width * 7.5), break_on_hyphens=False),
               *textwrap.wrap(subtitle, int(width * 8.5), break_on_hyphens=False)]
    fig.suptitle("\n".join(heading), fontsize=13)
    # one legend under the panels (never over a bar): the series named in the first rows, how to read the marks in
    # the last; matplotlib fills a legend column by column, so the rows are laid out and read off by column
    longest = max(len(s.name) for s in series)
    per_row = max(1, min(max(len(series), 3), 4, int(width * 11 / (longest + 8))))
    named: list[Any] = [Patch(facecolor=c, label=s.name) for s, c in zip(series, colours, strict=True)]
    key: list[Any] = [Patch(facecolor="#bbbbbb", label="bars: exactly N"),
                      Line2D([], [], color="#555555", marker="o", markersize=4, label="line: at least N"),
                      Line2D([], [], color="#555555", linestyle="--", label="dashed line: the mean")]
    rows_of = [named[i:i + per_row] for i in range(0, len(named), per_row)]
    rows_of += [key[i:i + per_row] for i in range(0, len(key), per_row)]
    grid = [row + [Patch(visible=False, label="")] * (per_row - len(row)) for row in rows_of]
    fig.legend(handles=[row[c] for c in range(per_row) for row in grid], loc="outside lower center",
               ncols=per_row, fontsize=10, frameon=False)
    return fig


def _whole(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _outcome_panel(ax: Any, series: Sequence[Series], colours: Sequence[str], name: str, label: str,
                   condition: str | None, x_label: str, first_in_row: bool) -> None:
    """One outcome: grouped bars (exactly N), lines (at least N), dashed means and their values above 1."""
    from matplotlib.ticker import MaxNLocator

    present = [(s, c) for s, c in zip(series, colours, strict=True) if name in s.outcomes]
    values = sorted({v for s, _ in present for v in s.outcomes[name]}, key=_order)
    whole = _whole(values)
    # whole numbers stand at their own place (a gap where a value cannot happen), a gap wider than MAX_GAP
    # drawn MAX_GAP wide and marked broken (a house rule's far-out value would crush every other bar); anything
    # else side by side
    at = _axis(values) if whole else None
    place = {v: (at(v) if at else i) for i, v in enumerate(values)}
    width = 0.8 / len(present)
    means: list[tuple[str, str]] = []
    under = _coinciding([s.outcomes[name] for s, _ in present])
    for j, (s, colour) in enumerate(present):
        dist = s.outcomes[name]
        xs = [place[v] - 0.4 + width * (j + 0.5) for v in values]
        ax.bar(xs, [float(dist.get(v, 0)) for v in values], width=width * 0.92, color=colour, alpha=0.85,
               zorder=2)
        if whole:
            # a series whose odds later ones repeat exactly is drawn wider beneath them: each shows as a band
            # around the next, never hidden under the last one drawn
            wider = under[j]
            tail = _at_least(dist, values)
            ax.plot([place[v] for v in values], [float(p) for p in tail], color=colour, marker="o",
                    markersize=3.5 + 2 * wider, linewidth=1.6 + 1.6 * wider, zorder=3 + j / 100)
            mean = sum((Fraction(v) * Fraction(p) for v, p in dist.items()), Fraction(0))
            ax.axvline(at(mean) if at else float(mean), ymax=1 / MEANS_BAND, color=colour, linestyle="--",
                       linewidth=1.3 + 1.2 * wider, zorder=4 + j / 100)
            means.append((f"{float(mean):.2f}", colour))
    if means:
        _means_band(ax, means)
    heading = label if condition is None else f"{label} ({condition})"
    ax.set_title(heading, fontsize=11)
    axis = x_label if whole else ""  # a name (a duel's winner) needs no axis label
    ax.set_xlabel(axis if condition is None else f"{axis}, {condition}".strip(", "), fontsize=10)
    # above 1 no probability reaches: the means are written there, never over a bar or a line
    ax.set_ylim(0, MEANS_BAND)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    if first_in_row:
        ax.set_ylabel("probability", fontsize=10)
    if whole and at is not None and at.breaks:
        shown = values if len(values) <= 14 else values[::-(-len(values) // 14)] + values[-1:]
        ax.set_xticks([at(v) for v in dict.fromkeys(shown)], [str(v) for v in dict.fromkeys(shown)])
        ax.set_xlim(at(values[0]) - 0.6, at(values[-1]) + 0.6)
        for where in at.breaks:  # the axis is broken here: the values either side are further apart than drawn
            ax.text(where, 0, "//", transform=ax.get_xaxis_transform(), ha="center", va="center", fontsize=10,
                    color="#555555", backgroundcolor="white", zorder=5)
    elif whole:
        lo, hi = (min(values), max(values)) if values else (0, 1)
        if hi - lo <= 12:  # every value its tick (with one or two values the locator falls back to tenths)
            ax.set_xticks(range(lo, hi + 1))
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=12))
        ax.set_xlim(lo - 0.6, hi + 0.6)
    else:
        ax.set_xticks(range(len(values)), [str(v) for v in values])
    ax.grid(axis="y", color="#dddddd", linewidth=0.8, zorder=0)
    ax.tick_params(labelsize=9)


#: Whole values further apart than this are drawn :data:`BROKEN_GAP` apart, the axis marked broken between them:
#: as wide as the widest gap drawn to scale, so that a wider gap is never drawn narrower than a smaller one.
MAX_GAP = 4
BROKEN_GAP = MAX_GAP


class _Axis:
    """Where a whole value stands on the x axis: at its own place, but with every gap between neighbouring values
    wider than :data:`MAX_GAP` drawn :data:`BROKEN_GAP` wide (a value inside such a gap, a mean, is placed in
    proportion); ``breaks`` are the middles of the narrowed gaps."""

    def __init__(self, values: Sequence[int]) -> None:
        self.knots: list[tuple[float, float]] = []  # (value, place), in order
        self.breaks: list[float] = []
        place = float(values[0])
        for before, v in zip([None, *values], values, strict=False):
            if before is not None:
                gap = v - before
                place += gap if gap <= MAX_GAP else BROKEN_GAP
                if gap > MAX_GAP:
                    self.breaks.append(place - BROKEN_GAP / 2)
            self.knots.append((float(v), place))

    def __call__(self, value: Any) -> float:
        x = float(value)
        for (v0, p0), (v1, p1) in zip(self.knots, self.knots[1:], strict=False):
            if x <= v1:
                return p0 + (x - v0) * (p1 - p0) / (v1 - v0)
        v_last, p_last = self.knots[-1]
        return p_last + (x - v_last)


def _axis(values: Sequence[int]) -> _Axis | None:
    return _Axis(values) if values else None


def _means_band(ax: Any, means: Sequence[tuple[str, str]]) -> None:
    """The means in a row, each in its series' colour, in the band above 1 at the panel's top."""
    from matplotlib.offsetbox import AnchoredOffsetbox, HPacker, TextArea

    boxes: list[Any] = [TextArea("mean", textprops={"fontsize": 9, "color": "#333333"})]
    boxes += [TextArea(value, textprops={"fontsize": 9, "color": colour, "fontweight": "bold"})
              for value, colour in means]
    row = HPacker(children=boxes, align="baseline", pad=0, sep=6)
    ax.add_artist(AnchoredOffsetbox(loc="upper right", child=row, frameon=False, pad=0.3, borderpad=0.2))


def _coinciding(dists: Sequence[Mapping[Any, Fraction]]) -> list[int]:
    """For each distribution, how many drawn after it are exactly the same (values of probability 0 aside)."""
    keys = [frozenset((v, Fraction(p)) for v, p in d.items() if p) for d in dists]
    return [sum(1 for later in keys[j + 1:] if later == key) for j, key in enumerate(keys)]


def _at_least(dist: Mapping[Any, Fraction], values: Sequence[int]) -> list[Fraction]:
    """P(at least v) for each v of ``values``, summed exactly from the top."""
    out: list[Fraction] = []
    running = Fraction(0)
    for v in reversed(values):
        running += Fraction(dist.get(v, 0))
        out.append(running)
    return out[::-1]


def _events_panel(ax: Any, series: Sequence[Series], colours: Sequence[str], events: Sequence[str],
                  labels: Mapping[str, str]) -> None:
    """The events as horizontal bars grouped per event, each with its percentage written beside it."""
    height = 0.8 / len(series)
    for j, (s, colour) in enumerate(zip(series, colours, strict=True)):
        for i, event in enumerate(events):
            if event not in s.events:
                continue
            p = float(s.events[event])
            y = i - 0.4 + height * (j + 0.5)
            ax.barh(y, p, height=height * 0.9, color=colour, alpha=0.85, zorder=2)
            ax.text(min(p, 1.0) + 0.02, y, percent(s.events[event]), va="center", fontsize=9, color="#222222")
    ax.set_yticks(range(len(events)), [labels.get(e, e.replace("_", " ")) for e in events], fontsize=10)
    # the first event at the top, as listed; a lone event's bars as thick as one of three, not the whole panel
    ax.set_ylim(max(len(events), 3) - 0.5, -0.5)
    ax.set_xlim(0, 1.25)  # room for the percentages right of a bar near 1
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0], ["0", "25%", "50%", "75%", "100%"])
    ax.set_title("events", fontsize=11)
    ax.set_xlabel("probability", fontsize=10)
    ax.grid(axis="x", color="#dddddd", linewidth=0.8, zorder=0)
    ax.tick_params(labelsize=9)


def _order(value: Any) -> tuple[int, Any]:
    # whole numbers in order, anything else by its text after them
    return (0, value) if isinstance(value, int) else (1, str(value))
