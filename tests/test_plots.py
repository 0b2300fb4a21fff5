"""Charts (issue 12): one module draws the odds of one attack, a comparison of variants, a table's rows and a
duel; several series overlaid on shared axes, the legend naming them, a conditional distribution labelled."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from rangefire.analysis.plots import Series, draw_series, plot_odds, plot_series, series_from_odds
from rangefire.core import RangefireError
from rangefire.rulesets import load_battle
from tests.commands import run

EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples"
MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".svg": b"<?xml", ".pdf": b"%PDF"}


def _odds(example: str, attacker: str, target: str | None = None):
    ruleset, battle = load_battle(EXAMPLES / example)
    return ruleset, ruleset.odds(ruleset.plan(battle, ruleset.attack(attacker, target)))


def _texts(fig) -> list[str]:
    """Every piece of text the figure shows: titles, labels, ticks, legends, notes."""
    import matplotlib.text

    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_visible()]


@pytest.fixture
def two() -> list[Series]:
    return [Series("rules as written", {"hits": {0: Fraction(1, 4), 1: Fraction(3, 4)}},
                   {"suppression": Fraction(1, 3)}),
            Series("cover 3+", {"hits": {0: Fraction(1, 2), 2: Fraction(1, 2)}}, {"suppression": Fraction(1, 2)})]


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_each_format_is_written(tmp_path, two, suffix):
    path = tmp_path / f"chart{suffix}"
    plot_series(two, path, title="compared")
    assert path.read_bytes()[:len(MAGIC[suffix])] == MAGIC[suffix]


@pytest.mark.parametrize("name", ["chart.gif", "chart", "chart.png.txt"])
def test_a_suffix_not_written_is_refused_naming_it(tmp_path, two, name):
    with pytest.raises(RangefireError, match=r"\.png, \.svg or \.pdf"):
        plot_series(two, tmp_path / name, title="compared")
    assert not (tmp_path / name).exists()


def test_odds_plot_refuses_a_suffix_before_working_anything_out(tmp_path):
    proc = run("odds", str(EXAMPLES / "wheatfield.yaml"), "-a", "15th-alabama", "--plot", str(tmp_path / "c.gif"),
               ok=2)
    assert "c.gif" in proc.stderr and ".png, .svg or .pdf" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_legend_names_every_series_and_the_title_what_was_compared(two):
    import matplotlib.pyplot as plt

    fig = draw_series(two, title="15th-alabama fires at 20th-maine", subtitle="baseline: rules as written")
    try:
        legend = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        assert {"rules as written", "cover 3+"} <= set(legend)
        assert {"bars: exactly N", "line: at least N"} <= set(legend)
        assert "15th-alabama fires at 20th-maine\nbaseline: rules as written" in _texts(fig)
        # the means, exact sums shown to two places: 3/4 and 1
        assert {"0.75", "1.00"} <= set(_texts(fig))
    finally:
        plt.close(fig)


def test_the_outcomes_share_the_probability_axis(two):
    import matplotlib.pyplot as plt

    two = [Series(s.name, {**s.outcomes, "stands_lost": {0: Fraction(1)}}) for s in two]
    fig = draw_series(two, title="t")
    try:
        panels = [ax for ax in fig.axes if ax.get_visible()]
        assert len(panels) == 2
        assert {ax.get_ylim() for ax in panels} == {(0.0, 1.16)}
    finally:
        plt.close(fig)


def test_bushido_success_level_is_labelled_given_a_hit():
    """BU-6.3: the success level is the SL of a hit; its panel says so, the wounds' does not."""
    import matplotlib.pyplot as plt

    ruleset, odds = _odds("temple.yaml", "yoichi", "takeda")
    assert ruleset.conditions == {"success_level": "given a hit"}
    fig = draw_series([series_from_odds(odds, "yoichi")], title="t", conditions=ruleset.conditions)
    try:
        titles = [ax.get_title() for ax in fig.axes]
        assert "success level (given a hit)" in titles
        assert "wounds" in titles
    finally:
        plt.close(fig)


def test_odds_plot_of_bushido_writes_the_chart(tmp_path):
    path = tmp_path / "bu.svg"
    run("odds", str(EXAMPLES / "temple.yaml"), "-a", "yoichi", "-t", "takeda", "--plot", str(path))
    assert path.read_bytes()[:5] == b"<?xml"


def test_plot_odds_draws_every_outcome_and_event(tmp_path):
    """The odds of one attack: a panel per outcome of the game, and the events."""
    import matplotlib.pyplot as plt

    ruleset, odds = _odds("wheatfield.yaml", "15th-alabama")
    fig = draw_series([series_from_odds(odds, "x")], title="t")
    try:
        titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
        assert titles == ["hits", "unsaved hits", "stands lost", "events"]
        events = fig.axes[3]
        assert [t.get_text() for t in events.get_yticklabels()] == [e.replace("_", " ") for e in odds.events]
    finally:
        plt.close(fig)
    plot_odds(odds, tmp_path / "odds.png", conditions=ruleset.conditions)
    assert (tmp_path / "odds.png").stat().st_size > 10_000


def test_keys_that_are_not_numbers_get_bars_only(tmp_path):
    """A duel's winner: bars by name, no line of 'at least' and no mean."""
    import matplotlib.pyplot as plt

    fig = draw_series([Series("exact", {"winner": {"A": Fraction(2, 3), "B": Fraction(1, 3)}})], title="t")
    try:
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["A", "B"]
        assert not ax.get_lines()
    finally:
        plt.close(fig)


def test_no_series_or_too_many_is_refused(tmp_path):
    with pytest.raises(RangefireError, match="at least one series"):
        plot_series([], tmp_path / "c.png", title="t")
    with pytest.raises(RangefireError, match="at most 8 series"):
        plot_series([Series(str(i), {"hits": {0: Fraction(1)}}) for i in range(9)], tmp_path / "c.png", title="t")


@pytest.mark.parametrize("values", [[4], [0, 1], [2, 5, 9]])
def test_whole_numbers_are_ticked_one_by_one_never_in_tenths(values):
    """A duel's 'wound boxes left' may hold one value: its axis shows that whole number, not 3.4 ... 4.6."""
    import matplotlib.pyplot as plt

    dist = {v: Fraction(1, len(values)) for v in values}
    fig = draw_series([Series("exact", {"left": dist})], title="t")
    try:
        ax = next(ax for ax in fig.axes if ax.get_visible() and ax.get_title() == "left")
        assert [float(t) for t in ax.get_xticks()] == [float(v) for v in range(min(values), max(values) + 1)]
    finally:
        plt.close(fig)


def test_a_far_out_value_narrows_its_gap_and_the_axis_is_marked_broken(tmp_path):
    """A house rule can put one outcome far from the rest (a wound chart cell of 100): drawn to scale, the other
    bars would be slivers. A gap wider than MAX_GAP is drawn MAX_GAP wide, marked "//"; the values are ticked
    by name and the mean is placed in proportion within its gap."""
    import matplotlib.pyplot as plt

    from rangefire.analysis.plots import BROKEN_GAP, MAX_GAP

    dist = {0: Fraction(1, 4), 1: Fraction(1, 4), 2: Fraction(1, 4), 100: Fraction(1, 4)}  # mean 25.75
    fig = draw_series([Series("house rule", {"wounds": dist})], title="t")
    try:
        ax = next(ax for ax in fig.axes if ax.get_visible() and ax.get_title() == "wounds")
        ticks = dict(zip([t.get_text() for t in ax.get_xticklabels()], ax.get_xticks(), strict=True))
        assert list(ticks) == ["0", "1", "2", "100"]
        assert ticks["100"] - ticks["2"] == BROKEN_GAP and ticks["1"] - ticks["0"] == 1
        assert BROKEN_GAP >= MAX_GAP  # a gap narrowed is never drawn narrower than one drawn to scale
        bars = [p for p in ax.patches if p.get_height() > 0]
        assert all(b.get_width() > 0.5 for b in bars)  # not slivers: each bar most of a unit wide
        lo, hi = ax.get_xlim()
        assert hi - lo < 8
        assert "//" in [t.get_text() for t in ax.texts]
        mean = next(line for line in ax.get_lines() if line.get_linestyle() == "--")
        assert mean.get_xdata()[0] == pytest.approx(2 + BROKEN_GAP * (25.75 - 2) / 98)
    finally:
        plt.close(fig)
    plot_series([Series("house rule", {"wounds": dist})], tmp_path / "far.png", title="a far-out value")


def test_values_close_together_stand_at_their_own_places_unbroken():
    import matplotlib.pyplot as plt

    from rangefire.analysis.plots import MAX_GAP

    dist = {0: Fraction(1, 3), 2: Fraction(1, 3), 2 + MAX_GAP: Fraction(1, 3)}  # gaps of 2 and MAX_GAP: none narrowed
    fig = draw_series([Series("exact", {"hits": dist})], title="t")
    try:
        ax = next(ax for ax in fig.axes if ax.get_visible() and ax.get_title() == "hits")
        assert "//" not in [t.get_text() for t in ax.texts]
        assert ax.get_xlim() == (-0.6, 2 + MAX_GAP + 0.6)
    finally:
        plt.close(fig)


def test_series_with_the_same_odds_are_drawn_nested_never_hidden():
    """Variants that change nothing for an outcome (a cover save where no hit is saved, a house rule on
    another table) give the same lines: each one drawn before a later one with the same odds is drawn wider
    beneath it, so every colour shows; a series unlike the others keeps the usual width."""
    import matplotlib.pyplot as plt

    same = {0: Fraction(1, 4), 1: Fraction(3, 4)}
    other = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    series = [Series("rules", {"hits": same}), Series("a", {"hits": dict(same)}),
              Series("b", {"hits": {**same, 2: Fraction(0)}}), Series("c", {"hits": other})]
    fig = draw_series(series, title="t")
    try:
        ax = next(ax for ax in fig.axes if ax.get_visible() and ax.get_title() == "hits")
        lines = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
        means = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
        widths = [line.get_linewidth() for line in lines]
        assert widths[0] > widths[1] > widths[2] == widths[3]  # rules, a, b the same odds; c its own
        assert means[0].get_linewidth() > means[2].get_linewidth() == means[3].get_linewidth()
        assert [line.get_zorder() for line in lines] == sorted(line.get_zorder() for line in lines)
    finally:
        plt.close(fig)


# -- charts over what varies (issue 24) ----------------------------------------------------------------------
OUTCOMES = ("hits", "unsaved_hits", "stands_lost")


@pytest.mark.parametrize(("text", "kind", "outcome", "n"), [
    ("stands_lost", "mean", "stands_lost", None), ("hits_mean", "mean", "hits", None),
    ("unsaved_hits_sd", "sd", "unsaved_hits", None), ("hits_median", "median", "hits", None),
    ("stands_lost_percentile_90", "percentile_90", "stands_lost", None),
    ("stands_lost_at_least_2", "at_least", "stands_lost", 2), ("unsaved_hits_at_most_0", "at_most", "unsaved_hits", 0),
    ("disorder", "event", None, None)])
def test_a_metric_is_named_as_the_columns_name_it(text, kind, outcome, n):
    from rangefire.analysis.charts import parse_metric

    metric = parse_metric(text, OUTCOMES, ("suppression", "disorder"))
    assert (metric.kind, metric.outcome, metric.n) == (kind, outcome, n)
    assert metric.probability is (kind in ("at_least", "at_most", "event"))


@pytest.mark.parametrize("text", ["hits_avg", "stands_lost_at_least_x", "nothing", "", "hits_at_least_"])
def test_a_metric_that_names_nothing_is_refused_saying_what_can_be_named(text):
    from rangefire.analysis.charts import parse_metric

    with pytest.raises(RangefireError, match=r"--metric .*name an outcome \(hits, unsaved_hits, stands_lost\).*"
                                             r"an event \(suppression, disorder\)"):
        parse_metric(text, OUTCOMES, ("suppression", "disorder"))


def test_a_point_of_which_one_coordinate_changes_is_placed_by_it():
    from rangefire.analysis.charts import Varied, varied_from

    moved = varied_from("units.a.position", ["[10, 4]", "[10, 6.5]", "[10,9]"], "in")
    assert moved.coordinate == 1 and moved.numeric and [moved.place(v) for v in moved.values] == [4, 6.5, 9]
    assert moved.label() == "a: position y (in)"
    both = Varied("units.a.position", ([1, 2], [3, 4]))
    assert both.coordinate is None and not both.numeric and [both.place(v) for v in both.values] == [0, 1]
    assert Varied("units.a.stands", (2, 4)).label() == "a: stands"


def test_values_some_numbers_some_not_stand_side_by_side_each_under_its_name():
    """A cover save varied over 3, 4, 5, 6 and none is not an axis of numbers: every value stands at its place
    in the order given, under its own tick (the numbers were drawn at 3 to 6 beside ticks 0 to 4, the line
    leaving the panel and three of its points off it)."""
    import matplotlib.pyplot as plt

    from rangefire.analysis.charts import Point, Varied, draw_lines, parse_metric

    values = (3, 4, 5, 6, "none")
    saves = Varied("options.cover_save.heavy", values)
    assert not saves.numeric and [saves.place(v) for v in values] == [0, 1, 2, 3, 4]
    points = [Point({"options.cover_save.heavy": v}, 0.1 * (i + 1)) for i, v in enumerate(values)]
    fig = draw_lines(points, [saves], "options.cover_save.heavy", parse_metric("hits", OUTCOMES, ()), _heading())
    try:
        ax = next(ax for ax in fig.axes if ax.get_lines())
        (xs, ys), = _lines(fig).values()
        ticks = {t.get_text(): t.get_position()[0] for t in ax.get_xticklabels()}
        low, high = ax.get_xlim()
        assert [ticks[str(v)] for v in values] == xs and all(low < x < high for x in xs)
        assert ys == [0.1 * (i + 1) for i in range(5)]
    finally:
        plt.close(fig)


def _grid_points(metric_of):
    """Points of a grid of stands (x), cover (lines) and pass mark (panels), the quantity ``metric_of``."""
    from rangefire.analysis.charts import Point, Varied

    axes = [Varied("units.a.stands", (2, 4, 6)), Varied("terrain.w.kind", ("light", "heavy")),
            Varied("options.pass", tuple(range(3, 13)))]
    points = [Point({"units.a.stands": s, "terrain.w.kind": k, "options.pass": p}, metric_of(s, k, p))
              for s in (2, 4, 6) for k in ("light", "heavy") for p in range(3, 13)]
    return axes, points


def _heading():
    from rangefire.analysis.charts import Heading
    from rangefire.core.options import HouseRule

    return Heading("a fires at b", "The Field", "dress-on-the-colors",
                   [HouseRule("options.cover_save.heavy", 3, 4, "DC-4.1")], ["a note"])


def _lines(fig):
    """Every drawn line of the figure's panels, by its settings (the line's gid) and panel title."""
    return {(ax.get_title(), line.get_gid()): (list(line.get_xdata()), list(line.get_ydata()))
            for ax in fig.axes if ax.get_visible() for line in ax.get_lines() if line.get_gid()}


def test_lines_carry_each_points_value_and_many_combinations_make_panels():
    """Two kinds x ten pass marks: twenty lines would be no legend: a panel per pass mark, a line per kind; the
    drawn data are the points' values; the heading names the battle, the game and the house rules."""
    import json
    import math

    import matplotlib.pyplot as plt

    from rangefire.analysis.charts import draw_lines, parse_metric

    def value(s, k, p):
        return None if (s, k) == (6, "heavy") and p == 12 else s / 10 + (k == "heavy") / 100 + p / 1000

    axes, points = _grid_points(value)
    fig = draw_lines(points, axes, "units.a.stands", parse_metric("hits", OUTCOMES, ()), _heading())
    try:
        lines = _lines(fig)
        assert len(lines) == 2 * 10 and len([ax for ax in fig.axes if ax.get_visible() and ax.get_title()]) == 10
        for (title, gid), (xs, ys) in lines.items():
            chosen = json.loads(gid)
            assert title == f"options.pass = {chosen['options.pass']}"
            assert xs == [2, 4, 6]
            want = [value(s, chosen["terrain.w.kind"], chosen["options.pass"]) for s in (2, 4, 6)]
            assert [None if math.isnan(y) else y for y in ys] == want  # a refused point is a gap
        texts = _texts(fig)
        assert any("a fires at b: hits: mean" in t and "The Field (dress-on-the-colors)" in t and
                   "house rules: cover_save.heavy=3 (rules: 4)" in t and "a note" in t for t in texts)
        legend = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        assert legend == ["light", "heavy"] and fig.legends[0].get_title().get_text() == "w: kind"
    finally:
        plt.close(fig)


def test_more_lines_than_colours_run_along_a_colour_bar():
    import matplotlib.pyplot as plt

    from rangefire.analysis.charts import Point, Varied, draw_lines, parse_metric

    axes = [Varied("units.a.stands", tuple(range(1, 21))), Varied("units.b.discipline", tuple(range(-6, 7)))]
    points = [Point({"units.a.stands": s, "units.b.discipline": d}, s * 0.01 + d * 0.001)
              for s in range(1, 21) for d in range(-6, 7)]
    fig = draw_lines(points, axes, "units.a.stands", parse_metric("disorder", OUTCOMES, ("disorder",)), _heading())
    try:
        lines = _lines(fig)
        assert len(lines) == 13 and not fig.legends
        bar = next(ax for ax in fig.axes if ax.get_ylabel() == "b: discipline")  # the colour bar, labelled
        assert bar is not None
        colours = {tuple(line.get_color()) for ax in fig.axes for line in ax.get_lines()}
        assert len(colours) == 13
        panel = next(ax for ax in fig.axes if ax.get_lines())
        assert panel.get_ylim() == (-0.02, 1.02)  # a probability: the whole of 0 to 1
    finally:
        plt.close(fig)


def test_too_many_panels_are_refused_naming_the_paths():
    from rangefire.analysis.charts import MAX_PANELS, Point, Varied, draw_lines, parse_metric

    axes = [Varied("x", (1, 2)), Varied("a", tuple(range(9))), Varied("b", tuple(range(MAX_PANELS + 1)))]
    points = [Point({"x": x, "a": a, "b": b}, 0.5) for x in (1, 2) for a in range(9) for b in range(MAX_PANELS + 1)]
    with pytest.raises(RangefireError, match=rf"13 \(b\) = 13 panels; a chart holds at most {MAX_PANELS}"):
        draw_lines(points, axes, "x", parse_metric("hits", OUTCOMES, ()), _heading())


def test_a_heatmap_holds_each_points_value_and_greys_what_the_rules_refuse():
    import matplotlib.pyplot as plt
    import numpy as np

    from rangefire.analysis.charts import Point, Varied, draw_heatmap, parse_metric

    axes = [Varied("units.a.stands", (4, 2, 6)), Varied("units.a.position", ([10, 4], [10, 8], [10, 22]))]
    points = [Point({"units.a.stands": s, "units.a.position": p}, None if p[1] == 22 else s / 10 + p[1] / 100)
              for s in (4, 2, 6) for p in ([10, 4], [10, 8], [10, 22])]
    fig = draw_heatmap(points, axes, "units.a.position", "units.a.stands",
                       parse_metric("stands_lost_at_least_1", OUTCOMES, ()), _heading())
    try:
        ax = next(ax for ax in fig.axes if ax.images)
        cells = ax.images[0].get_array()
        want = np.ma.masked_invalid([[s / 10 + y / 100 if y != 22 else np.nan for y in (4, 8, 22)]
                                     for s in (2, 4, 6)])  # stands from the least up, the rows of the map
        assert (cells.mask == want.mask).all() and np.allclose(cells.compressed(), want.compressed())
        assert [t.get_text() for t in ax.get_xticklabels()] == ["4", "8", "22"]
        assert ax.get_xlabel() == "a: position y"
        assert "refused by the rules" in [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        assert "64%" in [t.get_text() for t in ax.texts]  # 6 stands at y 4: 0.6 + 0.04, the cells say their value
    finally:
        plt.close(fig)


def test_odds_chart_names_the_battle_and_its_house_rules(tmp_path, monkeypatch):
    """The odds command's chart: its heading names the battle (the scenario's name), the game and the house
    rules in force, each with the rules' value."""
    import matplotlib.pyplot as plt

    from rangefire.analysis import plots
    from rangefire.analysis.plots import rules_said
    from rangefire.core.options import house_rules
    from rangefire.scenario.paths import parse_setting

    ruleset, battle = load_battle(EXAMPLES / "wheatfield.yaml", [parse_setting("options.cover_save.heavy=3")])
    rules = house_rules(battle.options)
    assert rules_said(rules) == "house rules: cover_save.heavy=3 (rules: 4)" and rules_said([]) == "rules as written"
    odds = ruleset.odds(ruleset.plan(battle, ruleset.attack("15th-alabama", None)))
    drawn = []
    original = plots.draw_series
    monkeypatch.setattr(plots, "draw_series", lambda *a, **k: drawn.append(original(*a, **k)) or drawn[-1])
    plots.plot_odds(odds, tmp_path / "odds.png", battle=battle.name, house_rules=rules)
    try:
        heading = next(t for t in _texts(drawn[0]) if t.startswith("15th-alabama fires at 20th-maine"))
        assert "The Wheatfield, late afternoon (dress-on-the-colors); house rules: cover_save.heavy=3 (rules: 4); " \
               "exact odds" in heading.replace("\n", " ")
    finally:
        plt.close(drawn[0])


@pytest.mark.parametrize("args", [
    ("odds", "{scenario}", "-a", "15th-alabama", "--plot", "{chart}"),
    ("table", "{scenario}", "-a", "15th-alabama", "--vary", "units.15th-alabama.stands=2,4", "--plot", "{chart}"),
    ("duel", "{scenario}", "20th-maine", "15th-alabama", "--turns", "2", "--plot", "{chart}"),
])
def test_a_chart_shows_control_characters_of_a_name_written_out(tmp_path, args):
    """A battle named with an escape and a bell: the chart writes them out as text (``\\x1b``), as the terminal
    does, and nothing reaches stderr (the font has no glyph for them: a warning each did)."""
    text = (EXAMPLES / "wheatfield.yaml").read_text()
    scenario = tmp_path / "named.yaml"
    scenario.write_text(text.replace("name: The Wheatfield, late afternoon", 'name: "Wheat\\x1b[31mfield\\a"'))
    chart = tmp_path / "c.svg"
    proc = run(*(a.format(scenario=scenario, chart=chart) for a in args))
    drawn = chart.read_text()
    assert proc.stderr == "" and "\x1b" not in drawn and "\x07" not in drawn and "Wheat\\x1b[31mfield\\x07" in drawn


@pytest.mark.parametrize("args", [
    ("odds", "{scenario}", "-a", "15th-alabama", "--plot", "{chart}"),
    ("table", "{scenario}", "-a", "15th-alabama", "--vary", "units.15th-alabama.stands=2,4", "--plot", "{chart}"),
    ("duel", "{scenario}", "20th-maine", "15th-alabama", "--turns", "2", "--plot", "{chart}"),
])
def test_a_name_with_dollar_signs_is_drawn_as_written_never_as_mathematics(tmp_path, args):
    """``$`` in a name is text: read as mathematics, ``$\\frac{a}{ $`` raised the formula parser's traceback (and
    ``$x^2$`` would be drawn as a power)."""
    text = (EXAMPLES / "wheatfield.yaml").read_text()
    scenario = tmp_path / "named.yaml"
    scenario.write_text(text.replace("name: The Wheatfield, late afternoon", "name: 'Pay $\\frac{a}{ or $ x^2'"))
    chart = tmp_path / "c.svg"
    run(*(a.format(scenario=scenario, chart=chart) for a in args))
    assert "Pay $\\frac{a}{ or $ x^2" in chart.read_text()
