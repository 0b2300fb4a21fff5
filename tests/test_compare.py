"""``compare`` (issue 12): one attack under variants of the rules or the scenario, side by side, the differences
exact; a variant the rules refuse shows its refusals with their clauses; bad input exits 2 naming it."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

import pytest

from rangefire.analysis.compare import Variant, compare
from rangefire.core import RangefireError
from rangefire.rulesets import load_battle
from rangefire.scenario import read_scenario
from rangefire.scenario.paths import parse_setting
from tests.commands import run

EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples"
WHEATFIELD = EXAMPLES / "wheatfield.yaml"
FIRER = "15th-alabama"


def _direct_odds(path: Path, attacker: str = FIRER, target: str | None = None):
    ruleset, battle = load_battle(path)
    return ruleset.odds(ruleset.plan(battle, ruleset.attack(attacker, target)))


def _edited(tmp_path: Path, old: str, new: str, name: str = "edited.yaml") -> Path:
    """The example with its text edited: a scenario reached without the settings' path mechanism."""
    source = WHEATFIELD.read_text()
    assert source.count(old) == 1
    path = tmp_path / name
    path.write_text(source.replace(old, new))
    return path


def test_the_rules_against_themselves_differ_by_nothing():
    """A variant that sets a value to what it already is: every difference is exactly zero."""
    result = compare(read_scenario(WHEATFIELD), FIRER, None,
                     [Variant("rules"), Variant("same", (parse_setting(f"units.{FIRER}.stands=8"),))])
    data = result.to_dict()
    diffs = [row[side]["differences"]["same"] for o in data["outcomes"].values() for row in o["rows"]
             for side in ("exactly", "at_least")]
    diffs += [o["mean"]["differences"]["same"] for o in data["outcomes"].values()]
    diffs += [e["differences"]["same"] for e in data["events"].values()]
    assert len(diffs) > 30 and set(diffs) == {"0"}


def test_a_variant_of_stands_equals_the_changed_scenario_worked_out_directly(tmp_path):
    """DC-4.1 (a die per stand): the variant's odds are those of the scenario with the stands edited in its
    text, and each difference is that minus the rules' own odds."""
    edited = _edited(tmp_path, "stands: 8, weapon: rifled-musket", "stands: 3, weapon: rifled-musket")
    direct, rules = _direct_odds(edited), _direct_odds(WHEATFIELD)
    result = compare(read_scenario(WHEATFIELD), FIRER, None,
                     [Variant("rules"), Variant("three", (parse_setting(f"units.{FIRER}.stands=3"),))])
    for outcome, dist in direct.outcomes.items():
        assert result.mean("three", outcome) == dist.mean()
        assert result.mean("three", outcome) != result.mean("rules", outcome)
        for n in result.values(outcome):
            assert result.exactly("three", outcome, n) == dist.probability(n)
            assert result.at_least("three", outcome, n) == dist.at_least(n)
            row = next(r for r in result.to_dict()["outcomes"][outcome]["rows"] if r["n"] == n)
            assert Fraction(row["exactly"]["differences"]["three"]) == \
                dist.probability(n) - rules.outcomes[outcome].probability(n)
    for event, p in direct.events.items():
        assert result.event("three", event) == p
        assert Fraction(result.to_dict()["events"][event]["differences"]["three"]) == p - rules.events[event]


def test_scenario_files_compared_are_named_by_file_and_the_first_is_the_baseline(tmp_path):
    edited = _edited(tmp_path, "stands: 8, weapon: rifled-musket", "stands: 5, weapon: rifled-musket",
                     name="five-stands.yaml")
    data = json.loads(run("compare", str(WHEATFIELD), str(edited), "-a", FIRER, "--json").stdout)
    assert data["format"] == 1 and data["baseline"] == "wheatfield"
    assert [v["name"] for v in data["variants"]] == ["wheatfield", "five-stands"]
    direct = _direct_odds(edited).to_dict()
    assert data["variants"][1]["outcomes"] == direct["outcomes"]


def test_a_refused_variant_shows_its_refusal_with_the_clause():
    """DC-2.3: out of range, the variant's attack is refused; the comparison says so, with the clause."""
    args = ("compare", str(WHEATFIELD), "-a", FIRER, "--variant", f"far:units.{FIRER}.position=[10, 40]")
    data = json.loads(run(*args, "--json").stdout)
    far = data["variants"][1]
    assert (far["name"], far["legal"]) == ("far", False)
    assert far["refusals"][0]["clause"] == "DC-2.3"
    assert data["outcomes"]["hits"]["mean"]["values"]["far"] is None
    shown = run(*args, columns=60).stdout
    assert "refused:" in shown and "[DC-2.3]" in shown


def test_baseline_named_by_the_user_comes_first():
    data = json.loads(run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", f"few:units.{FIRER}.stands=2",
                          "--baseline", "few", "--json").stdout)
    assert data["baseline"] == "few"
    assert [v["name"] for v in data["variants"]] == ["few", "rules"]
    assert data["outcomes"]["hits"]["mean"]["differences"]["few"] == "0"
    assert Fraction(data["outcomes"]["hits"]["mean"]["differences"]["rules"]) == Fraction(8, 3) - Fraction(2, 3)


def test_csv_round_trips_the_exact_fractions_and_their_floats(tmp_path):
    path = tmp_path / "cmp.csv"
    args = ("compare", str(WHEATFIELD), "-a", FIRER, "--variant", f"three:units.{FIRER}.stands=3")
    run(*args, "--csv", str(path))
    data = json.loads(run(*args, "--json").stdout)
    rows = list(csv.DictReader(path.open()))
    assert rows[0].keys() == {"kind", "name", "n", "variant", "value", "value_float", "difference",
                              "difference_float"}
    checked = 0
    for row in rows:
        if row["kind"] in ("exactly", "at_least", "at_most"):
            got = next(r for r in data["outcomes"][row["name"]]["rows"] if r["n"] == int(row["n"]))[row["kind"]]
        elif row["kind"] in ("mean", "variance", "sd", "median", "percentile_90"):
            got = data["outcomes"][row["name"]][row["kind"]]
        else:
            got = data["events"][row["name"]]
        if row["kind"] == "sd":  # a float, not exact: written as the float it is
            assert float(row["value"]) == got["values"][row["variant"]] == float(row["value_float"])
            assert float(row["difference"]) == got["differences"][row["variant"]]
        else:
            assert row["value"] == got["values"][row["variant"]]
            assert row["difference"] == got["differences"][row["variant"]]
            assert float(row["value_float"]) == float(Fraction(row["value"]))
            assert float(row["difference_float"]) == float(Fraction(row["difference"]))
        checked += 1
    assert checked == len(rows) > 50
    assert {row["kind"] for row in rows} == {"mean", "variance", "sd", "median", "percentile_90", "exactly",
                                             "at_least", "at_most", "event"}
    assert run(*args, "--csv", "-").stdout == path.read_text()  # - is standard output, and nothing else there


def test_plot_overlays_the_variants(tmp_path):
    chart = tmp_path / "cmp.png"
    proc = run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", f"three:units.{FIRER}.stands=3",
               "--plot", str(chart))
    assert chart.read_bytes()[:4] == b"\x89PNG" and f"chart written to {chart}" in proc.stdout


def test_the_terminal_at_60_columns_keeps_every_line_within_it():
    shown = run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", f"three:units.{FIRER}.stands=3",
                "--variant", "cover:terrain.stone-wall.kind=light", columns=60).stdout
    assert max(len(line) for line in shown.splitlines()) <= 60
    assert "hits: at least N" in shown and "three" in shown and "cover" in shown


@pytest.mark.parametrize(("variant", "said"), [
    ("nocolon", "--variant 'nocolon': write NAME:PATH=VALUE"),
    ("name:", "no value to change after name:"),
    (":units.x.stands=3", "write NAME:PATH=VALUE"),
    ("v:units.15th-alabama.stands", "is not PATH=VALUE"),
    ("v:units.15th-alabama.stands=3,", "no value to change"),
    ("v:units.nobody.stands=3", "units.nobody"),
    ("v:units.15th-alabama.stands=-3", "units[3].stands"),
    ("v:options.no_such_option=3", "no_such_option"),
])
def test_bad_variants_exit_2_naming_them(variant, said):
    proc = run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", variant, ok=2)
    assert said in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3, proc.stderr


def test_a_variant_named_twice_or_nothing_to_compare_exits_2():
    twice = run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", "v:units.15th-alabama.stands=3",
                "--variant", "v:units.15th-alabama.stands=4", ok=2)
    assert "variant 'v' is named twice" in twice.stderr
    rules = run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", "rules:units.15th-alabama.stands=4", ok=2)
    assert "variant 'rules' is named twice" in rules.stderr
    alone = run("compare", str(WHEATFIELD), "-a", FIRER, ok=2)
    assert "nothing to compare" in alone.stderr
    base = run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", "v:units.15th-alabama.stands=3",
               "--baseline", "w", ok=2)
    assert "baseline 'w' is none of the variants (rules, v)" in base.stderr


def test_standard_input_given_twice_is_refused_as_such_not_as_empty():
    """``compare - - < wheatfield.yaml``: the second '-' found standard input read already and said 'nothing was
    given'; standard input is read once, so naming it twice is refused in those words."""
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", "compare", "-", "-", "-a", FIRER],
                          input=WHEATFIELD.read_text(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "standard input ('-') is named 2 times; it is read once" in proc.stderr, proc.stderr
    assert "nothing was given" not in proc.stderr


def test_scenarios_of_two_games_are_refused_naming_both_games():
    proc = run("compare", str(WHEATFIELD), str(WHEATFIELD.parent / "ford.yaml"), "-a", FIRER, ok=2)
    assert "variant 'ford' is a scenario of arcane-legions, the others of dress-on-the-colors" in proc.stderr


def test_errors_in_json_and_a_refused_chart_suffix(tmp_path):
    data = json.loads(run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", "bad", "--json", ok=2).stdout)
    assert data["format"] == 1 and "NAME:PATH=VALUE" in data["error"]["message"]
    proc = run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", "v:units.15th-alabama.stands=3",
               "--plot", str(tmp_path / "c.jpg"), ok=2)
    assert ".png, .svg or .pdf" in proc.stderr


def test_library_refuses_bad_comparisons_in_its_own_words():
    base = read_scenario(WHEATFIELD)
    with pytest.raises(RangefireError, match="at least one variant"):
        compare(base, FIRER, None, [])
    with pytest.raises(RangefireError, match="at most 8 variants"):
        compare(base, FIRER, None, [Variant(str(i)) for i in range(9)])
    with pytest.raises(RangefireError, match="variant v: attacker 'ghost'"):
        compare(base, "ghost", None, [Variant("v")])


def test_bushido_success_level_is_marked_given_a_hit():
    """BU-6.3: the success level is the SL of a hit; the comparison says so beside it."""
    data = json.loads(run("compare", str(EXAMPLES / "temple.yaml"), "-a", "yoichi", "-t", "takeda", "--variant",
                          "unaimed:units.yoichi.states=[]", "--json").stdout)
    assert data["outcomes"]["success_level"]["condition"] == "given a hit"
    assert "condition" not in data["outcomes"]["wounds"]
    shown = run("compare", str(EXAMPLES / "temple.yaml"), "-a", "yoichi", "-t", "takeda", "--variant",
                "unaimed:units.yoichi.states=[]").stdout
    assert "success level (given a hit): exactly N" in shown


def test_csv_into_a_missing_folder_exits_2(tmp_path):
    proc = run("compare", str(WHEATFIELD), "-a", FIRER, "--variant", "v:units.15th-alabama.stands=3", "--csv",
               str(tmp_path / "no" / "c.csv"), ok=2)
    assert "cannot write" in proc.stderr
    assert io.StringIO(proc.stdout).read() == ""


def test_set_reaches_every_variant_and_house_rules_are_named():
    """DC-5.2's pass mark set for the run (--set) holds in each variant; each variant names its house rules."""
    data = json.loads(run("compare", str(WHEATFIELD), "-a", FIRER, "--set", "options.discipline_pass=7",
                          "--variant", "easy:options.discipline_pass=5", "--json").stdout)
    rules, easy = data["variants"]
    assert rules["house_rules"] == [{"path": "options.discipline_pass", "value": 7, "default": 6,
                                     "clause": "DC-5.2"}]
    assert easy["house_rules"][0]["value"] == 5
    plain = json.loads(run("odds", str(WHEATFIELD), "-a", FIRER, "--set", "options.discipline_pass=7",
                           "--json").stdout)
    assert rules["events"] == plain["events"]
    assert Fraction(data["events"]["disorder"]["differences"]["easy"]) < 0


def test_start_up_loads_matplotlib_only_with_plot(tmp_path):
    from tests.test_startup import _has, modules_of

    base = ("compare", str(WHEATFIELD), "-a", FIRER, "--variant", f"v:units.{FIRER}.stands=3")
    plain = modules_of(tmp_path, *base, "--json")
    assert not any(_has(plain, p) for p in ("matplotlib", "pyarrow", "rich"))
    assert _has(modules_of(tmp_path, *base, "--plot", str(tmp_path / "c.png")), "matplotlib")


def test_a_cover_save_house_rule_changes_the_saves_only():
    """DC-4.1 as a house rule (heavy cover saves on 3+): the hits are the rules' own, the unsaved hits each hit
    failing a 3+ save (2 chances in 6), summed here over the hits independently of the game's code."""
    from math import comb

    result = compare(read_scenario(WHEATFIELD), FIRER, None,
                     [Variant("rules"), Variant("cover3", (parse_setting("options.cover_save.heavy=3"),))])
    hits = {n: result.exactly("rules", "hits", n) for n in result.values("hits")}
    assert hits == {n: result.exactly("cover3", "hits", n) for n in result.values("hits")}
    fail = Fraction(2, 6)
    for u in result.values("unsaved_hits"):
        expected = sum((p * comb(h, u) * fail**u * (1 - fail) ** (h - u) for h, p in hits.items() if h >= u),
                       Fraction(0))
        assert result.exactly("cover3", "unsaved_hits", u) == expected
    assert result.to_dict()["variants"][1]["house_rules"] == [
        {"path": "options.cover_save.heavy", "value": 3, "default": 4, "clause": "DC-4.1"}]


def test_csv_into_a_named_pipe_nothing_reads_is_refused_not_waited_on(tmp_path):
    """Opened plainly a FIFO without a reader blocks for ever; the command says so and exits 2 at once; a pipe
    being read is written like a file."""
    fifo = tmp_path / "c.csv"
    os.mkfifo(fifo)
    args = ("compare", str(WHEATFIELD), "-a", FIRER, "--variant", "v:units.15th-alabama.stands=3", "--csv", str(fifo))
    proc = run(*args, ok=2)
    assert "a named pipe that nothing reads from" in proc.stderr
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    time.sleep(0.2)  # the reader waits on the pipe before the command opens it
    run(*args)
    reader.join(timeout=60)
    assert got and got[0].startswith("kind,name,n,variant,value")


def test_the_statistics_and_at_most_of_each_variant_are_its_own_distributions(tmp_path):
    """[DC-3.1, DC-4.1] Each variant's mean, variance, standard deviation, median and 90th percentile, and its
    odds of at most N, from the distribution worked out directly on the scenario edited by hand: the median and
    percentile found by walking the values up, at most N as one less the odds of at least N + 1."""
    import math

    edited = _edited(tmp_path, "stands: 8, weapon: rifled-musket", "stands: 3, weapon: rifled-musket")
    direct = _direct_odds(edited)
    data = compare(read_scenario(WHEATFIELD), FIRER, None,
                   [Variant("rules"), Variant("three", (parse_setting(f"units.{FIRER}.stands=3"),))]).to_dict()
    for outcome, dist in direct.outcomes.items():
        probabilities = dist.probabilities()
        mean = sum(k * p for k, p in probabilities.items())
        variance = sum((k - mean) ** 2 * p for k, p in probabilities.items())
        walked, running = {}, Fraction(0)
        for k in sorted(probabilities):
            running += probabilities[k]
            for share, name in ((Fraction(1, 2), "median"), (Fraction(9, 10), "percentile_90")):
                if running >= share and name not in walked:
                    walked[name] = k
        got = data["outcomes"][outcome]
        assert Fraction(got["mean"]["values"]["three"]) == mean
        assert Fraction(got["variance"]["values"]["three"]) == variance
        assert got["sd"]["values"]["three"] == pytest.approx(math.sqrt(variance), rel=1e-15)
        assert isinstance(got["sd"]["values"]["three"], float)  # not exact: a float, never a fraction string
        assert int(got["median"]["values"]["three"]) == walked["median"]
        assert int(got["percentile_90"]["values"]["three"]) == walked["percentile_90"]
        rules_median = int(got["median"]["values"]["rules"])
        assert Fraction(got["median"]["differences"]["three"]) == walked["median"] - rules_median
        for row in got["rows"]:
            n = row["n"]
            assert Fraction(row["at_most"]["values"]["three"]) == 1 - dist.at_least(n + 1)


def test_the_chart_names_the_battle_and_the_house_rules_every_variant_holds(tmp_path, monkeypatch):
    """A house rule set with --set is in force in every variant: the chart's heading names it with the rules'
    value, beside the battle's name; a variant's own change is named in the legend, not there."""
    import matplotlib.pyplot as plt

    from rangefire.analysis import plots
    from rangefire.cli.compare import plot_comparison
    from rangefire.scenario.paths import apply_settings

    base = apply_settings(read_scenario(WHEATFIELD), [parse_setting("options.discipline_pass=7")])
    result = compare(base, FIRER, None, [Variant("rules"), Variant("cover3", (
        parse_setting("options.cover_save.heavy=3"),))])
    assert result.battle == "The Wheatfield, late afternoon"
    assert [r.path for r in result.shared_house_rules()] == ["options.discipline_pass"]
    drawn = []
    original = plots.draw_series
    monkeypatch.setattr(plots, "draw_series", lambda *a, **k: drawn.append(original(*a, **k)) or drawn[-1])
    plot_comparison(result, tmp_path / "c.png")
    try:
        heading = drawn[0]._suptitle.get_text().replace("\n", " ")
        assert "The Wheatfield, late afternoon (dress-on-the-colors); in every variant, house rules: " \
               "discipline_pass=7 (rules: 6)" in heading and "cover_save" not in heading
        legend = [t.get_text() for legend in drawn[0].legends for t in legend.get_texts()]
        assert "cover3: options.cover_save.heavy=3" in legend
    finally:
        plt.close(drawn[0])


def test_a_refused_baseline_is_said_to_give_no_differences():
    """It said "beside each value its difference from far", and there was none beside any (DC-2.3: out of range)."""
    proc = run("compare", str(EXAMPLES / "wheatfield.yaml"), "-a", "15th-alabama",
               "--variant", "far:units.15th-alabama.position=[10,40]", "--baseline", "far", columns=250)
    assert "no differences: the rules refuse the baseline's attack (far)" in proc.stdout
    assert "its difference from far" not in proc.stdout
