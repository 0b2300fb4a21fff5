"""Who can shoot whom (``rangefire targets``, ``analysis.targets``): every attacker of a side against every enemy,
each row as the game's own check and odds say, the target the rules choose marked."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rangefire.analysis.targets import TargetRow, targets
from rangefire.core import Attack, LimitError, RangefireError, UnknownUnitError
from rangefire.demo import example_path
from rangefire.rulesets import battle_from_mapping, load_battle
from tests.commands import run

EXAMPLES = ("wheatfield.yaml", "ford.yaml", "temple.yaml", "mist-bridge.yaml", "sawblade.yaml", "ambush.yaml")
ROW_KEYS = {"attacker", "side", "target", "target_side", "legal", "refusals", "dice", "outcome", "mean", "mean_float",
            "exact", "estimate", "limit", "chosen", "chosen_by"}




def mean(dist: Any) -> Fraction:
    return Fraction(dist.to_dict()["mean"])


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_row_is_the_games_own_check_and_odds(name):
    """Each row holds what ``check`` and ``odds`` say of that pair, for every attacker and every enemy."""
    ruleset, battle = load_battle(example_path(name))
    rows = [row for side in ruleset.sides(battle) for row in targets(ruleset, battle, side=side)]
    pairs = [(a, e) for side in ruleset.sides(battle) for a in ruleset.unit_ids(battle)
             if ruleset.side_of(battle, a) == side for e in ruleset.enemies(battle, a)]
    assert [(r.attacker, r.target) for r in rows] == pairs
    assert any(r.legal for r in rows) and any(not r.legal for r in rows)
    for row in rows:
        checked = ruleset.check(battle, Attack(row.attacker, row.target))
        assert row.legal == checked.is_legal
        assert row.refusals == checked.refusals
        assert (row.side, row.target_side) == (ruleset.side_of(battle, row.attacker),
                                               ruleset.side_of(battle, row.target))
        if checked.plan is None:
            assert (row.mean, row.dice) == (None, "")
            continue
        odds = ruleset.odds(checked.plan)
        assert row.outcome == ruleset.main_outcome and row.outcome in ruleset.outcome_names
        assert row.mean == mean(odds.outcomes[ruleset.main_outcome])
        assert row.exact and row.limit is None
        assert row.dice == checked.plan.dice_text() != ""


def test_main_outcome_of_each_game():
    from rangefire.rulesets import RULESETS

    assert {r.key: r.main_outcome for r in RULESETS} == {
        "dress-on-the-colors": "stands_lost", "arcane-legions": "hits", "bushido": "wounds", "swerve": "damage"}


def test_dice_text_says_dice_and_needs_per_game():
    """Each game's plan says its dice and what they need in a few words (DC-3.4, AL-6.5, BU-7.2, SW-4.3)."""
    def first_legal(name: str, attacker: str) -> str:
        ruleset, battle = load_battle(example_path(name))
        return next(r.dice for r in targets(ruleset, battle, attacker=attacker) if r.legal)

    assert first_legal("wheatfield.yaml", "15th-alabama") == "8 dice, natural 5+, saves 4+"
    assert first_legal("wheatfield.yaml", "83rd-pennsylvania") == "5 dice, natural 6+, no save"
    assert first_legal("ford.yaml", "archers") == ("4 blue v 0 white dice, each higher die in the lineup hits, "
                                                   "attack rerolls 1s")
    assert first_legal("temple.yaml", "yoichi") == "3 attack dice v 3 defense, opposed; wound 1D6 -1"
    assert first_legal("sawblade.yaml", "sawblade-launcher") == "accuracy 30 + bonus 5 v speed 20, damage 1"
    assert first_legal("ambush.yaml", "rail-gun") == "accuracy 40 + bonus of 0, 5, 10, 15, 20 v speed 25, damage 2"


def test_target_the_rules_choose_is_marked_DC_2_3():
    """DC-2.3: the closest unengaged enemy in the arc is the target; its row is marked with the clause, and
    the others are refused under the same clause."""
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    rows = targets(ruleset, battle, attacker="15th-alabama")
    chosen = ruleset.check(battle, Attack("15th-alabama")).plan
    assert chosen is not None and chosen.target == "20th-maine"
    assert [(r.target, r.legal, r.chosen, r.chosen_by) for r in rows] == [
        ("20th-maine", True, True, "DC-2.3"), ("83rd-pennsylvania", False, False, None),
        ("battery-d", False, False, None)]
    assert [r.refusals[0].clause for r in rows[1:]] == ["DC-2.3", "DC-2.3"]


def test_targets_tied_as_closest_are_all_marked_DC_2_3():
    """DC-2.3: on a tie for the closest the firer chooses; every tied target is marked, not only the first."""
    unit = {"stands": 2, "weapon": "rifled-musket", "formation": "line", "facing": 0, "side": "blue"}
    ruleset, battle = battle_from_mapping({"ruleset": "dress-on-the-colors", "units": [
        {**unit, "id": "firer", "side": "grey", "stands": 8, "position": [10, 12], "facing": 180},
        {**unit, "id": "left", "position": [5, 0]}, {**unit, "id": "right", "position": [15, 0]},
        {**unit, "id": "far", "position": [10, -4]}]})
    rows = targets(ruleset, battle, attacker="firer")
    assert [(r.target, r.legal, r.chosen) for r in rows] == [("left", True, True), ("right", True, True),
                                                              ("far", False, False)]


@pytest.mark.parametrize("name", ["ford.yaml", "temple.yaml", "ambush.yaml"])
def test_no_target_is_marked_where_the_player_names_it(name):
    ruleset, battle = load_battle(example_path(name))
    assert ruleset.chooses_target is None
    assert not any(r.chosen or r.chosen_by for r in targets(ruleset, battle))


def test_side_gives_only_that_sides_attackers():
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    rows = targets(ruleset, battle, side="union")
    assert {r.attacker for r in rows} == {"20th-maine", "83rd-pennsylvania", "battery-d"}
    assert {r.target_side for r in rows} == {"confederate"}


def test_attacker_gives_only_its_rows():
    ruleset, battle = load_battle(example_path("temple.yaml"))
    rows = targets(ruleset, battle, attacker="yoichi")
    assert [r.target for r in rows] == ["takeda", "yojimbo", "scout", "oni"]
    assert [r.legal for r in rows] == [True, True, False, True]


def test_default_side_is_the_side_whose_turn_it_is(monkeypatch):
    """Without --side the attackers are those of ``side_to_act``; the battle's turn is stood in for by
    patching it (the examples record no turn of their own for this game)."""
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    monkeypatch.setattr(ruleset, "side_to_act", lambda b: "confederate")
    assert {r.attacker for r in targets(ruleset, battle)} == {"15th-alabama", "4th-texas", "47th-alabama"}
    assert {r.attacker for r in targets(ruleset, battle, side="union")} == {"20th-maine", "83rd-pennsylvania",
                                                                            "battery-d"}


def test_default_side_from_the_turn_the_battle_records_DC_9_2(tmp_path: Path):
    """DC-9.2: a battle file that records whose turn it is gives that side's attackers, without --side."""
    from rangefire.rulesets.dress_on_the_colors import Battle

    if "turn" not in Battle.model_fields:
        pytest.skip("this battle model records no turn yet")
    path = tmp_path / "w.yaml"
    path.write_text(example_path("wheatfield.yaml").read_text() + "turn: {number: 2, side: confederate}\n")
    rows = json.loads(run("targets", str(path), "--json").stdout)["targets"]
    assert {r["attacker"] for r in rows} == {"15th-alabama", "4th-texas", "47th-alabama"}
    assert "targets of confederate (whose turn it is)" in run("targets", str(path)).stdout


def test_without_a_turn_every_side_fires(monkeypatch):
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    monkeypatch.setattr(ruleset, "side_to_act", lambda b: None)
    assert [r.attacker for r in targets(ruleset, battle)][::3] == list(ruleset.unit_ids(battle))


def test_unknown_side_or_attacker_is_named():
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    with pytest.raises(RangefireError, match="side 'french' is not in this battle"):
        targets(ruleset, battle, side="french")
    with pytest.raises(UnknownUnitError, match="attacker 'nobody' is not in this battle"):
        targets(ruleset, battle, attacker="nobody")
    with pytest.raises(RangefireError, match="either a side or an attacker"):
        targets(ruleset, battle, side="union", attacker="20th-maine")


def test_odds_beyond_the_search_limit_are_said_so_not_raised(monkeypatch):
    """swerve refuses a best-play search beyond its bound (LimitError): the pair stays legal, the row says why
    the odds are missing."""
    from rangefire.rulesets.swerve import search

    monkeypatch.setattr(search, "MAX_SEARCH_WORK", 0)
    ruleset, battle = load_battle(example_path("ambush.yaml"))
    checked = ruleset.check(battle, Attack("rail-gun", "dune-buggy"))
    assert checked.plan is not None
    with pytest.raises(LimitError) as refused:
        ruleset.odds(checked.plan)
    row = targets(ruleset, battle, attacker="rail-gun")[0]
    assert (row.legal, row.mean, row.limit) == (True, None, str(refused.value))
    assert row.to_dict()["limit"].startswith("best play is not searched")
    assert row.to_dict()["exact"] is None  # odds not computed: not called exact


def test_an_estimate_is_labelled_not_exact(monkeypatch):
    """Arcane Legions beyond its exact lineup gives a Monte Carlo estimate: the row says exact false and
    carries the estimate's interval."""
    from rangefire.rulesets.arcane_legions import ArcaneLegions, orders

    monkeypatch.setattr(ArcaneLegions, "_odds", lambda self, plan: orders.odds_of(plan, exact_limit=0, samples=2000))
    ruleset, battle = load_battle(example_path("ford.yaml"))
    row = targets(ruleset, battle, attacker="archers")[0]
    assert row.legal and not row.exact and row.mean is not None
    assert row.estimate is not None and row.estimate["method"] == "monte carlo" and "ci95" in row.estimate
    assert row.to_dict()["exact"] is False


def test_row_to_dict_has_exact_fractions():
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    row = targets(ruleset, battle, attacker="15th-alabama")[0]
    data = row.to_dict()
    assert set(data) == ROW_KEYS
    assert Fraction(data["mean"]) == row.mean and "/" in data["mean"]
    assert data["mean_float"] == float(row.mean)  # beside it, for drawing
    assert isinstance(row, TargetRow)


# -- the command --------------------------------------------------------------------------------------
def test_cli_json_is_a_list_of_rows():
    data = json.loads(run("targets", str(example_path("wheatfield.yaml")), "--side", "confederate", "--json").stdout)
    assert set(data) == {"format", "targets"}
    rows = data["targets"]
    assert isinstance(rows, list) and len(rows) == 9
    assert all(set(r) == ROW_KEYS for r in rows)
    chosen = [r for r in rows if r["chosen"]]
    assert [(r["attacker"], r["target"], r["chosen_by"]) for r in chosen] == [
        ("15th-alabama", "20th-maine", "DC-2.3"), ("4th-texas", "83rd-pennsylvania", "DC-2.3"),
        ("47th-alabama", "20th-maine", "DC-2.3")]
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    for r in rows:
        if r["legal"]:
            plan = ruleset.plan(battle, Attack(r["attacker"], r["target"]))
            assert Fraction(r["mean"]) == mean(ruleset.odds(plan).outcomes["stands_lost"])
        else:
            assert r["mean"] is None and r["refusals"][0]["clause"].startswith("DC-")


def test_cli_attacker_json():
    rows = json.loads(run("targets", str(example_path("temple.yaml")), "-a", "yoichi", "--json").stdout)["targets"]
    assert [(r["target"], r["legal"]) for r in rows] == [("takeda", True), ("yojimbo", True), ("scout", False),
                                                        ("oni", True)]


@pytest.mark.parametrize("args, named", [(("--side", "french"), "side 'french'"),
                                         (("--attacker", "nobody"), "attacker 'nobody'"),
                                         (("--side", "union", "-a", "20th-maine"), "either a side or an attacker")])
def test_cli_bad_side_or_attacker_exits_2_naming_it(args, named):
    proc = run("targets", str(example_path("wheatfield.yaml")), *args, ok=2)
    assert named in proc.stderr and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("name", EXAMPLES)
def test_cli_table_at_80_columns_keeps_every_line_within_it(name):
    """A narrow terminal: the table wraps its reasons instead of cutting them, and no line is wider than 80."""
    proc = run("targets", str(example_path(name)), columns=80)
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in proc.stdout  # nothing cut short
    flat = " ".join(proc.stdout.split())
    ruleset, battle = load_battle(example_path(name))
    for uid in ruleset.unit_ids(battle):
        assert uid[:6] in flat


@pytest.mark.parametrize("columns", [60, 80, 110])
@pytest.mark.parametrize("name", EXAMPLES)
def test_cli_table_never_breaks_a_units_name(name, columns):
    """Where two columns of whole names do not fit beside the reasons, each attacker's targets are a table of
    their own under its name: every attacker and target is shown whole ('83rd-pennsylv' / 'ania' was read as
    two units), and no line is wider than the terminal."""
    proc = run("targets", str(example_path(name)), columns=columns)
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    cells = {cell.strip() for line in lines for cell in line.split("│")} | {line.strip() for line in lines}
    for row in json.loads(run("targets", str(example_path(name)), "--json").stdout)["targets"]:
        assert row["attacker"] in cells and row["target"] in cells, (columns, row["attacker"], row["target"])


def test_cli_table_names_clauses_and_the_chosen_target():
    proc = run("targets", str(example_path("wheatfield.yaml")), "--side", "confederate", columns=100)
    assert "[DC-2.3]" in proc.stdout and "[DC-2.1]" in proc.stdout and "[DC-2.4]" in proc.stdout
    assert "chosen" in proc.stdout and "0.426" in proc.stdout


def test_cli_very_narrow_terminal_has_no_traceback():
    run("targets", str(example_path("temple.yaml")), columns=30)


def test_cli_estimate_and_limit_rendered(monkeypatch, capsys):
    """The rendering of a row whose odds are an estimate or refused as beyond the game's limit."""
    from rangefire.cli.table import render_targets
    from rangefire.rulesets import find_ruleset

    rows = [TargetRow("a", "x", "b", "y", True, dice="4 dice", outcome="hits", mean=Fraction(3, 2), exact=False,
                      estimate={"method": "monte carlo"}),
            TargetRow("a", "x", "c", "y", True, dice="2 dice", outcome="hits", limit="the search would run too long")]
    render_targets(find_ruleset("arcane-legions"), rows, "test")
    shown = capsys.readouterr().out
    assert "~1.500" in shown and "estimate" in shown and "odds not computed: the search" in shown
    assert "too long" in shown


# -- check without a target ---------------------------------------------------------------------------
def test_check_without_target_lists_candidates_BU_3_2():
    """BU-3.2: the player names the target; ``check`` without one lists every enemy as a candidate (exit 0
    when one is legal)."""
    proc = run("check", str(example_path("temple.yaml")), "-a", "yoichi", columns=100)
    assert "candidates" in proc.stdout
    for uid in ("takeda", "yojimbo", "scout", "oni"):
        assert uid in proc.stdout
    assert "BU-3.2" in proc.stdout  # scout: no line of sight


def test_check_without_target_exits_1_when_none_is_legal_BU_3_3():
    """BU-3.3: kenji is in a zone of control, so no candidate is legal: exit 1, each row refused by clause."""
    proc = run("check", str(example_path("temple.yaml")), "-a", "kenji", ok=1, columns=100)
    assert proc.stdout.count("BU-3.3") >= 4


def test_check_without_target_json_carries_the_candidates():
    data = json.loads(run("check", str(example_path("temple.yaml")), "-a", "yoichi", "--json").stdout)
    assert data["target"] is None and data["refusals"][0]["clause"] == "BU-3.2"
    ruleset, battle = load_battle(example_path("temple.yaml"))
    assert data["candidates"] == [r.to_dict() for r in targets(ruleset, battle, attacker="yoichi")]


def test_check_without_target_where_the_rules_choose_still_checks_the_chosen_DC_2_3():
    data = json.loads(run("check", str(example_path("wheatfield.yaml")), "-a", "15th-alabama", "--json").stdout)
    assert data["legal"] and data["target"] == "20th-maine" and "candidates" not in data


def test_targets_leaves_the_file_untouched(tmp_path: Path):
    path = tmp_path / "w.yaml"
    path.write_bytes(example_path("wheatfield.yaml").read_bytes())
    before = path.read_bytes()
    run("targets", str(path))
    assert path.read_bytes() == before


def test_cli_a_battle_without_enemies_says_so(tmp_path):
    """One side alone on the table: the unit is there, its enemies are not; the answer says that, not 'no
    attackers' (the README's scenario excerpt, a single regiment, gave exactly that)."""
    lone = tmp_path / "lone.yaml"
    lone.write_text("ruleset: dress-on-the-colors\nunits:\n  - {id: 20th-maine, side: union, stands: 6, "
                    "weapon: rifled-musket, formation: line, position: [10, 0], facing: 0}\n")
    proc = run("targets", str(lone))
    assert proc.stdout.strip() == "targets of every side: none (the battle holds no enemy of these units)"
