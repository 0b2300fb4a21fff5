"""``table`` (issue 12): the odds of one attack for every combination of values (``--vary PATH=V1,V2,...``); each
row equals a single ``odds`` of the changed scenario; identical plans worked out once; the grid bounded."""

from __future__ import annotations

import csv
import json
import os
import time
from fractions import Fraction
from pathlib import Path

import pytest

from rangefire.analysis.odds_table import MAX_COMBINATIONS, Axis, odds_table
from rangefire.core import LimitError, RangefireError
from rangefire.scenario import read_scenario
from tests.commands import run, run_here

EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples"
WHEATFIELD = EXAMPLES / "wheatfield.yaml"
FIRER = "15th-alabama"
STANDS = "stands: 8, weapon: rifled-musket"
POSITION = "position: [10, 12], facing: 180"
WALL = "{id: stone-wall, kind: heavy"
GRID = ("--vary", f"units.{FIRER}.stands=2,8", "--vary", f"units.{FIRER}.position=[10, 12],[10,18],[10,25]",
        "--vary", "terrain.stone-wall.kind=light,heavy")


def _edited(tmp_path: Path, stands: int, position: str, kind: str) -> Path:
    """The example with the values edited in its text: the scenario reached without the path mechanism."""
    source = WHEATFIELD.read_text()
    for old, new in ((STANDS, STANDS.replace("8", str(stands))), (POSITION, POSITION.replace("[10, 12]", position)),
                     (WALL, WALL.replace("heavy", kind))):
        assert source.count(old) == 1
        source = source.replace(old, new)
    path = tmp_path / f"s{stands}-{position}-{kind}.yaml"
    path.write_text(source)
    return path


def test_each_row_equals_a_single_odds_of_the_changed_scenario(tmp_path):
    """Every combination's mean, at-least odds and events equal `odds --json` on the scenario edited by hand;
    a combination out of range is refused as `odds` refuses it [DC-2.3]."""
    data = json.loads(run_here("table", str(WHEATFIELD), "-a", FIRER, *GRID, "--json").stdout)
    assert data["format"] == 1 and data["combinations"] == len(data["rows"]) == 12
    for row in data["rows"]:
        s = row["settings"]
        position = "[" + ", ".join(str(v) for v in s[f"units.{FIRER}.position"]) + "]"
        edited = _edited(tmp_path, s[f"units.{FIRER}.stands"], position, s["terrain.stone-wall.kind"])
        single = run_here("odds", str(edited), "-a", FIRER, "--json", ok=None)
        single_data = json.loads(single.stdout)
        assert row["legal"] == single_data["legal"]
        if not row["legal"]:
            assert single.returncode == 1
            assert [r["clause"] for r in row["refusals"]] == [r["clause"] for r in single_data["refusals"]] == \
                ["DC-2.3"]
            continue
        assert row["target"] == single_data["target"]
        assert row["events"] == single_data["events"]
        for outcome, got in row["outcomes"].items():
            dist = {int(k): Fraction(v) for k, v in single_data["outcomes"][outcome]["distribution"].items()}
            assert got["mean"] == single_data["outcomes"][outcome]["mean"]
            for n, p in got["at_least"].items():
                assert Fraction(p) == sum((q for k, q in dist.items() if k >= int(n)), Fraction(0)), (outcome, n)


def test_rows_sharing_a_plan_share_their_odds_worked_out_once(monkeypatch):
    """The rose woods' grade does not touch this line of fire: both grades make one plan, worked out once."""
    from rangefire.rulesets import find_ruleset

    ruleset = type(find_ruleset("dress-on-the-colors"))
    calls = []
    original = ruleset.odds
    monkeypatch.setattr(ruleset, "odds", lambda self, plan: calls.append(plan) or original(self, plan))
    result = odds_table(read_scenario(WHEATFIELD), FIRER, None,
                        [Axis(f"units.{FIRER}.stands", (4, 8)), Axis("terrain.old-smoke.kind", ("light", "heavy")),
                         Axis("terrain.stone-wall.kind", ("light", "heavy"))])
    assert len(result.rows) == 8
    assert result.computed == len(calls) == 4  # stands x the wall's grade; the far terrain changes nothing
    by_settings = {tuple(s.value for s in row.settings): row for row in result.rows}
    assert by_settings[(4, "light", "heavy")].odds is by_settings[(4, "heavy", "heavy")].odds
    assert by_settings[(4, "light", "heavy")].odds is not by_settings[(4, "light", "light")].odds


def test_csv_and_parquet_round_trip_the_exact_fractions_and_their_floats(tmp_path):
    import pyarrow.parquet as pq

    args = ("table", str(WHEATFIELD), "-a", FIRER, *GRID)
    data = json.loads(run(*args, "--json").stdout)
    run(*args, "--csv", str(tmp_path / "t.csv"), "--parquet", str(tmp_path / "t.parquet"))
    from_csv = list(csv.DictReader((tmp_path / "t.csv").open()))
    from_parquet = pq.read_table(tmp_path / "t.parquet").to_pylist()
    assert len(from_csv) == len(from_parquet) == len(data["rows"]) == 12
    checked = 0
    for row, c, p in zip(data["rows"], from_csv, from_parquet, strict=True):
        assert c[f"units.{FIRER}.stands"] == p[f"units.{FIRER}.stands"] == str(row["settings"][f"units.{FIRER}.stands"])
        assert p["legal"] is row["legal"] and c["legal"] == str(row["legal"])
        assert p["exact"] is (True if row["legal"] else None) and row.get("exact", True) is True
        if not row["legal"]:
            assert p["hits_mean"] is None and c["hits_mean"] == ""
            assert "DC-2.3" in p["refusals"] and "DC-2.3" in c["refusals"]
            continue
        for outcome, got in row["outcomes"].items():
            assert c[f"{outcome}_mean"] == p[f"{outcome}_mean"] == got["mean"]
            assert float(c[f"{outcome}_mean_float"]) == p[f"{outcome}_mean_float"] == float(Fraction(got["mean"]))
            for n, value in got["at_least"].items():
                assert c[f"{outcome}_at_least_{n}"] == p[f"{outcome}_at_least_{n}"] == value
                assert p[f"{outcome}_at_least_{n}_float"] == float(Fraction(value))
                checked += 1
        for event, value in row["events"].items():
            assert c[event] == p[event] == value and p[f"{event}_float"] == float(Fraction(value))
    assert checked > 50
    assert run(*args, "--csv", "-").stdout == (tmp_path / "t.csv").read_text()


def test_a_grid_beyond_the_limit_is_refused_at_once_naming_it_and_sweep():
    many = ",".join(str(i) for i in range(1, 101))
    started = time.perf_counter()
    proc = run("table", str(WHEATFIELD), "-a", FIRER, "--vary", f"units.{FIRER}.stands={many}", "--vary",
               f"units.{FIRER}.discipline={many}", ok=2)
    assert time.perf_counter() - started < 10  # refused before any row is worked out (a process start is most)
    assert f"100 x 100 = 10,000 combinations; a table holds at most {MAX_COMBINATIONS:,}" in proc.stderr
    assert "rangefire sweep" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    with pytest.raises(LimitError, match="at most 1,000"):
        odds_table({}, FIRER, None, [Axis("a", tuple(range(50))), Axis("b", tuple(range(50)))])


@pytest.mark.parametrize(("vary", "said"), [
    ("units.15th-alabama.stands", "write PATH=V1,V2"),
    ("=1,2", "write PATH=V1,V2"),
    ("units.15th-alabama.stands=", "an empty value"),
    ("units.15th-alabama.stands=2,,4", "an empty value"),
    ("units.nobody.stands=2,4", "units.nobody"),
    ("units.15th-alabama.stands=2,-4", "units[3].stands"),
    ("options.no_such_option=1,2", "no_such_option"),
])
def test_bad_vary_exits_2_naming_it(vary, said):
    proc = run("table", str(WHEATFIELD), "-a", FIRER, "--vary", vary, ok=2)
    assert said in proc.stderr, proc.stderr


def test_a_path_varied_twice_or_nothing_varied_exits_2(tmp_path):
    twice = run("table", str(WHEATFIELD), "-a", FIRER, "--vary", f"units.{FIRER}.stands=2", "--vary",
                f"units.{FIRER}.stands=4", ok=2)
    assert f"units.{FIRER}.stands is varied twice" in twice.stderr
    assert "nothing to vary" in run("table", str(WHEATFIELD), "-a", FIRER, ok=2).stderr
    data = json.loads(run("table", str(WHEATFIELD), "-a", FIRER, "--vary", "x", "--json", ok=2).stdout)
    assert data["error"]["kind"] == "invalid_input" and "PATH=V1,V2" in data["error"]["message"]
    bad = run("table", str(WHEATFIELD), "-a", FIRER, "--vary", f"units.{FIRER}.stands=2",
              "--parquet", str(tmp_path / "t.csv"), ok=2)
    assert "name the file .parquet" in bad.stderr
    fifo = tmp_path / "pipe.parquet"
    os.mkfifo(fifo)  # pyarrow would wait on it for ever
    bad = run("table", str(WHEATFIELD), "-a", FIRER, "--vary", f"units.{FIRER}.stands=2", "--parquet", str(fifo), ok=2)
    assert f"--parquet {fifo}: cannot write: it is not a regular file" in bad.stderr


def test_library_refuses_empty_axes_in_its_own_words():
    with pytest.raises(RangefireError, match="at least one path"):
        odds_table({}, FIRER, None, [])
    with pytest.raises(RangefireError, match=r"units\.a\.stands: no values"):
        odds_table({}, FIRER, None, [Axis("units.a.stands", ())])


def test_the_terminal_at_60_columns_keeps_every_line_within_it():
    shown = run("table", str(WHEATFIELD), "-a", FIRER, *GRID, columns=60).stdout
    assert max(len(line) for line in shown.splitlines()) <= 60
    assert "15th-alabama fires at 20th-maine: 12 combinations" in shown
    assert "stands = units.15th-alabama.stands" in shown and "refused" in shown and "[DC-2.3]" in shown
    for event in ("suppression", "disorder"):
        assert event in shown  # never broken across lines


def _figure(result, metric: str, x: str | None = None):
    """The chart ``table --plot`` draws for these rows, as a figure (the command's own reading of its options)."""
    from rangefire.cli.odds_table import chart_choices, table_figure

    chosen, path = chart_choices(read_scenario(WHEATFIELD), result.axes, metric, x)
    return table_figure(result, chosen, path)


def _drawn(fig) -> dict[str, tuple[list[float], list[float]]]:
    """Each line's data by its settings (its gid, as JSON), read back from the figure."""
    return {line.get_gid(): (list(line.get_xdata()), list(line.get_ydata()))
            for ax in fig.axes for line in ax.get_lines() if line.get_gid()}


@pytest.mark.parametrize("metric", ["stands_lost", "hits_at_least_3", "unsaved_hits_at_most_1", "disorder",
                                    "stands_lost_median", "hits_sd"])
def test_the_chart_draws_the_tables_own_numbers(metric):
    """[DC-3.1, DC-4.1] The lines read back from the figure are the rows' numbers as `table --json` gives them:
    the x axis the stands (the first --vary of numbers), a line per cover grade, a gap where the rules refuse."""
    import math

    import matplotlib.pyplot as plt

    args = ("--vary", f"units.{FIRER}.stands=2,5,8", "--vary", "terrain.stone-wall.kind=light,heavy",
            "--vary", f"units.{FIRER}.position=[10,12],[10,25]")
    data = json.loads(run("table", str(WHEATFIELD), "-a", FIRER, *args, "--json").stdout)
    result = odds_table(read_scenario(WHEATFIELD), FIRER, None,
                        [Axis(f"units.{FIRER}.stands", (2, 5, 8)), Axis("terrain.stone-wall.kind", ("light", "heavy")),
                         Axis(f"units.{FIRER}.position", ([10, 12], [10, 25]))])
    fig = _figure(result, metric)
    try:
        drawn = _drawn(fig)
        assert len(drawn) == 4  # two grades by two positions, a line each
        for gid, (xs, ys) in drawn.items():
            chosen = json.loads(gid)
            assert xs == [2, 5, 8]
            for x, y in zip(xs, ys, strict=True):
                row = next(r for r in data["rows"] if r["settings"][f"units.{FIRER}.stands"] == x and all(
                    r["settings"][k] == v for k, v in chosen.items()))
                if not row["legal"]:
                    assert math.isnan(y)  # [DC-2.3] 25 in back: no target; a gap, never a 0
                    continue
                assert y == _from_json(row, metric)
    finally:
        plt.close(fig)


def _from_json(row: dict, metric: str) -> float:
    """The value a row's JSON gives for a metric, the tails summed from its "at least" (not read from the table's
    own "at most")."""
    if metric == "disorder":
        return float(Fraction(row["events"]["disorder"]))
    outcome, _, rest = metric.partition("_at_")
    if rest:
        kind, n = rest.rsplit("_", 1)
        got = row["outcomes"][outcome]["at_least"]
        at_least = Fraction(got.get(n, "0")) if kind == "least" else None
        if kind == "most":  # P(at most N) = 1 - P(at least N + 1)
            return float(1 - Fraction(got.get(str(int(n) + 1), "0")))
        return float(at_least)
    for kind in ("mean", "median", "sd"):
        if metric.endswith(f"_{kind}"):
            value = row["outcomes"][metric.removesuffix(f"_{kind}")][kind]
            return float(value if kind == "sd" else Fraction(value))
    return float(Fraction(row["outcomes"][metric]["mean"]))


def test_a_large_table_is_drawn_whole(tmp_path):
    """240 rows (twelve firing strengths by twenty discipline values): the chart draws every one, a line per
    discipline value coloured along a scale; the command writes it and says so."""
    import matplotlib.pyplot as plt

    stands = tuple(range(1, 13))
    discipline = tuple(range(-10, 10))
    result = odds_table(read_scenario(WHEATFIELD), FIRER, "20th-maine",
                        [Axis(f"units.{FIRER}.stands", stands), Axis("units.20th-maine.discipline", discipline)])
    fig = _figure(result, "disorder")
    try:
        drawn = _drawn(fig)
        assert len(drawn) == 20 and all(len(ys) == 12 for _, ys in drawn.values())
        by_settings = {tuple(s.value for s in row.settings): row for row in result.rows}
        for gid, (xs, ys) in drawn.items():
            d = json.loads(gid)["units.20th-maine.discipline"]
            assert ys == [float(by_settings[(int(x), d)].event("disorder")) for x in xs]
    finally:
        plt.close(fig)
    chart = tmp_path / "large.png"
    proc = run_here("table", str(WHEATFIELD), "-a", FIRER, "-t", "20th-maine", "--vary",
               f"units.{FIRER}.stands={','.join(map(str, stands))}", "--vary",
               f"units.20th-maine.discipline={','.join(map(str, discipline))}", "--plot", str(chart),
               "--metric", "disorder", "--json")
    assert chart.read_bytes()[:4] == b"\x89PNG" and json.loads(proc.stdout)["combinations"] == 240


def test_the_x_axis_can_be_the_range_the_rules_measured():
    """--x range: each point at the range its plan measured [DC-2.4], a line per number of stands; the
    position's values are the range's, not lines of their own."""
    import matplotlib.pyplot as plt

    result = odds_table(read_scenario(WHEATFIELD), FIRER, None,
                        [Axis(f"units.{FIRER}.stands", (4, 8)),
                         Axis(f"units.{FIRER}.position", tuple([10, y] for y in (3, 9, 15, 19, 24)))])
    fig = _figure(result, "stands_lost_at_least_1", "range")
    try:
        drawn = _drawn(fig)
        assert sorted(json.loads(g)[f"units.{FIRER}.stands"] for g in drawn) == [4, 8]
        for gid, (xs, ys) in drawn.items():
            rows = [row for row in result.rows if row.odds is not None
                    and row.settings[0].value == json.loads(gid)[f"units.{FIRER}.stands"]]
            by_range = sorted((row.odds.plan.details()["range"]["inches"], float(row.at_least("stands_lost", 1)))
                              for row in rows)
            assert list(zip(xs, ys, strict=True)) == by_range
            assert len(xs) == 4  # 24 in back the attack is refused: no range, no point
        ax = next(ax for ax in fig.axes if ax.get_lines())
        assert ax.get_xlabel() == "range (in)" and ax.get_ylabel() == "P(stands lost ≥ 1), %"
    finally:
        plt.close(fig)


def test_the_chart_names_the_battle_and_the_house_rules_in_force():
    """A house rule set in every row is named with the rules' value; one varied is not 'in force'."""
    import matplotlib.pyplot as plt

    from rangefire.scenario.paths import apply_settings, parse_setting

    base = apply_settings(read_scenario(WHEATFIELD), [parse_setting("options.cover_save.heavy=3"),
                                                      parse_setting("options.discipline_pass=7")])
    result = odds_table(base, FIRER, None, [Axis(f"units.{FIRER}.stands", (2, 4)),
                                            Axis("options.discipline_pass", (5, 8))])
    assert [r.path for r in result.house_rules] == ["options.cover_save.heavy"]
    fig = _figure(result, "disorder")
    try:
        heading = fig._suptitle.get_text().replace("\n", " ")
        assert heading.startswith("15th-alabama fires at 20th-maine: P(disorder)")
        assert "The Wheatfield, late afternoon (dress-on-the-colors); house rules: cover_save.heavy=3 (rules: 4)" \
            in heading and "discipline_pass" not in heading
    finally:
        plt.close(fig)


@pytest.mark.parametrize(("extra", "said"), [
    (("--metric", "hits_avg"), "--metric 'hits_avg': name an outcome (hits, unsaved_hits, stands_lost)"),
    (("--metric", "nothing"), "--metric 'nothing': name an outcome"),
    (("--metric", "hits_at_least_x"), "--metric 'hits_at_least_x'"),
    (("--x", "units.nobody.stands"), "--x 'units.nobody.stands': not a varied path; name one of "
                                     f"units.{FIRER}.stands, terrain.stone-wall.kind"),
    (("--x", "range", "--metric", "swerved"), "--metric 'swerved'"),
])
def test_a_bad_metric_or_x_is_refused_in_our_words_and_nothing_written(tmp_path, extra, said):
    chart = tmp_path / "c.png"
    csv_file = tmp_path / "rows.csv"
    proc = run("table", str(WHEATFIELD), "-a", FIRER, "--vary", f"units.{FIRER}.stands=2,4", "--vary",
               "terrain.stone-wall.kind=light,heavy", "--plot", str(chart), "--csv", str(csv_file), *extra, ok=2)
    assert said in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not chart.exists() and not csv_file.exists()
    data = json.loads(run("table", str(WHEATFIELD), "-a", FIRER, "--vary", f"units.{FIRER}.stands=2,4",
                          "--plot", str(chart), *extra, "--json", ok=2).stdout)
    assert data["error"]["kind"] == "invalid_input"


def test_metric_or_x_without_plot_is_refused():
    proc = run("table", str(WHEATFIELD), "-a", FIRER, "--vary", f"units.{FIRER}.stands=2,4", "--x", "stands", ok=2)
    assert "--x chooses what --plot draws: give --plot FILE too" in proc.stderr


def test_x_by_its_short_name_and_the_plot_written(tmp_path):
    chart = tmp_path / "t.svg"
    proc = run("table", str(WHEATFIELD), "-a", FIRER, "--vary", f"units.{FIRER}.stands=2,4,8", "--vary",
               "terrain.stone-wall.kind=light,heavy", "--x", "kind", "--plot", str(chart))
    assert chart.read_bytes()[:5] == b"<?xml" and f"chart written to {chart}" in proc.stdout


def test_a_game_without_a_range_refuses_x_range(tmp_path):
    """swerve's plans measure no range: --x range is refused naming the game, after the rows (where a plan says)."""
    example = EXAMPLES / "sawblade.yaml"
    from rangefire.rulesets import load_battle

    ruleset, battle = load_battle(example)
    attacker, target = next((a, t) for a in ruleset.unit_ids(battle) for t in ruleset.enemies(battle, a)
                            if ruleset.check(battle, ruleset.attack(a, t)).plan is not None)
    proc = run("table", str(example), "-a", attacker, "-t", target, "--vary", "options.empty_deck_bonus=0,10",
               "--x", "range", "--plot", str(tmp_path / "s.png"), ok=2)
    assert "--x range: the plans of swerve measure no range" in proc.stderr
    assert not (tmp_path / "s.png").exists()


def test_bushido_table_marks_the_success_level_given_a_hit():
    shown = run("table", str(EXAMPLES / "temple.yaml"), "-a", "yoichi", "-t", "takeda", "--vary",
                "units.yoichi.states=[aimed],[]").stdout
    assert "success level (given a hit): mean, spread and at least N" in shown


def test_set_holds_in_every_row():
    data = json.loads(run("table", str(WHEATFIELD), "-a", FIRER, "--set", f"units.{FIRER}.stands=3",
                          "--vary", "options.discipline_pass=5,7", "--json").stdout)
    single = json.loads(run("odds", str(WHEATFIELD), "-a", FIRER, "--set", f"units.{FIRER}.stands=3",
                            "--set", "options.discipline_pass=7", "--json").stdout)
    assert data["rows"][1]["events"] == single["events"]
    assert data["rows"][1]["outcomes"]["hits"]["mean"] == single["outcomes"]["hits"]["mean"] == "1"


def test_start_up_loads_pyarrow_and_matplotlib_only_where_asked(tmp_path):
    """A table in JSON loads neither Rich, matplotlib nor pyarrow; --parquet loads pyarrow, --plot matplotlib."""
    from tests.test_startup import _has, modules_of

    base = ("table", str(WHEATFIELD), "-a", FIRER, "--vary", f"units.{FIRER}.stands=2,4")
    plain = modules_of(tmp_path, *base, "--json")
    assert not any(_has(plain, p) for p in ("matplotlib", "pyarrow", "rich"))
    assert _has(modules_of(tmp_path, *base, "--parquet", str(tmp_path / "t.parquet")), "pyarrow")
    assert _has(modules_of(tmp_path, *base, "--plot", str(tmp_path / "t.png")), "matplotlib")


def test_a_tables_output_reads_each_row_once_not_once_for_every_row(monkeypatch):
    """960 rows (the 20th Maine's stands 1 to 60, micro-hits 0 and 1, eight pass marks) took 47 s, most of it
    in the JSON: each row's "at least N" columns asked every row's distribution again for the largest N. Now the
    columns are found once an outcome: writing the JSON, the records and the columns grows with the rows."""
    from rangefire.dice.dist import Dist

    table = odds_table(read_scenario(WHEATFIELD), FIRER, "20th-maine",
                       [Axis("units.20th-maine.stands", tuple(range(1, 21)))])
    asked = 0
    probabilities = Dist.probabilities

    def counted(self):
        nonlocal asked
        asked += 1
        return probabilities(self)

    monkeypatch.setattr(Dist, "probabilities", counted)
    data, records, columns = table.to_dict(), table.records(), table.columns()
    assert asked <= len(table.rows) * len(table.outcome_names), asked
    assert len(data["rows"]) == len(records) == 20
    assert "hits_at_least_8" in columns and "hits_at_least_9" not in columns  # eight stands, eight dice
    assert records[-1]["hits_at_least_8"] == "1/6561"  # every die a natural 5+ at medium range: (1/3)**8
