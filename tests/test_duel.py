"""Duels (``rangefire.analysis.duel``): the Monte Carlo against the exact chain, the limits, bad input, the command.

The exact chain against brute force over every die is in each game's tests (``test_duel_*``); here the
vectorised Monte Carlo, which rolls the dice itself (``sampled_exchanges``) and never reads the chain's
transitions, is checked against the exact distributions by chi-square at fixed seeds.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from rangefire.analysis.duel import MAX_TURNS, DuelError, duel, sample_duel
from rangefire.core import LimitError, RangefireError, UnknownUnitError
from rangefire.core.ruleset import NoDuelError
from rangefire.rulesets import find_ruleset
from tests.commands import run
from tests.conftest import dc_battle, unit
from tests.duel_oracle import assert_sample_agrees

SAMPLES = 20_000


def F(**kw):
    return unit("F", "blue", (0, 0), 0, **kw)


def T(d=8, **kw):
    return unit("T", "grey", (0, d), 180, **kw)


@pytest.fixture(scope="module")
def fight():
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=3), T(stands=3, weapon="breechloader", micro_hits=1))
    return doc, battle, duel(doc, battle, "F", "T", turns=4)


def test_distributions_sum_to_one_and_respect_the_limit(fight):
    _, _, result = fight
    assert sum(result.winner.values()) == 1
    assert sum(result.turns.values()) == 1
    assert all(sum(d.values()) == 1 for d in result.left.values())
    assert max(result.turns) == 4 and min(result.turns) >= 1
    # a winner leaves nothing of the other, and neither wins only at the limit
    assert result.left["a"][0] == result.winner["b"] and result.left["b"][0] == result.winner["a"]
    assert all(isinstance(p, Fraction) for p in result.winner.values())


def test_monte_carlo_agrees_with_the_exact_chain_by_chi_square(fight):
    """20,000 duels with every die rolled (seed 7): winner, turns taken and what is left of each agree with the
    exact chain (chi-square, p > 0.001)."""
    doc, battle, result = fight
    est = sample_duel(doc, battle, "F", "T", turns=4, samples=SAMPLES, seed=7)
    assert sum(est.winner.values()) == SAMPLES
    assert_sample_agrees(result, est, SAMPLES)


def test_monte_carlo_agrees_in_cover_with_saves_and_disorder():
    """Light woods (saves on 5+ [DC-4.1]), a disordered firer (-1 [DC-3.3]) and one discipline die [DC-5.2]:
    the sampled duel agrees with the exact chain (chi-square, seed 5)."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=2, disordered=True), T(stands=3, d=7), terrain=(
        {"id": "wood", "kind": "light", "polygon": [[-4, 7.5], [4, 7.5], [4, 10], [-4, 10]]},), discipline_dice=1)
    result = duel(doc, battle, "F", "T", turns=3)
    est = sample_duel(doc, battle, "F", "T", turns=3, samples=SAMPLES, seed=5)
    assert_sample_agrees(result, est, SAMPLES)


def test_monte_carlo_is_reproducible_and_rolls_its_own_dice(fight, monkeypatch):
    doc, battle, _ = fight
    first = sample_duel(doc, battle, "F", "T", turns=2, samples=2_000, seed=3)
    assert first == sample_duel(doc, battle, "F", "T", turns=2, samples=2_000, seed=3)

    def no(*args, **kwargs):
        raise AssertionError("the Monte Carlo read the exact transitions")

    monkeypatch.setattr(type(doc), "exchanges", no)
    sample_duel(doc, battle, "F", "T", turns=2, samples=1_000, seed=3)


def test_the_turn_limit_is_respected():
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=2), T(stands=2))
    one = duel(doc, battle, "F", "T", turns=1)
    assert set(one.turns) == {1} and one.turn_limit == 1
    assert sum(one.winner.values()) == 1


def test_refused_attack_is_neither_with_its_clause():
    """Beyond 20 in [DC-2.4]: neither can fire, neither wins, the reason is the refusal's."""
    doc = find_ruleset("dress-on-the-colors")
    result = duel(doc, dc_battle(F(), T(d=25)), "F", "T", turns=2)
    assert result.winner["neither"] == 1
    assert result.refusals["a"][0].clause == "DC-2.4"


@pytest.mark.parametrize(("a", "b", "turns", "error", "words"), [
    ("F", "X", 3, UnknownUnitError, "'X' is not in this battle"),
    ("F", "F", 3, DuelError, "named twice"),
    ("F", "G", 3, DuelError, "both on blue's side"),
    ("F", "T", 0, DuelError, "turns must be between 1 and"),
    ("F", "T", MAX_TURNS + 1, DuelError, "turns must be between 1 and"),
])
def test_bad_duels_are_refused(a, b, turns, error, words):
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(), T(), unit("G", "blue", (10, 0), 0))
    with pytest.raises(error, match=words):
        duel(doc, battle, a, b, turns)


@pytest.fixture
def worked_out(monkeypatch):
    """Every volley and every check the duel works out, recorded as it is asked for."""
    import rangefire.rulesets.dress_on_the_colors.duel as dc_duel
    from rangefire.rulesets.dress_on_the_colors import DressOnTheColors

    asked: list[str] = []
    exchanges, check = dc_duel.exchanges, DressOnTheColors.check
    monkeypatch.setattr(dc_duel, "exchanges", lambda *args: asked.append("volley") or exchanges(*args))
    monkeypatch.setattr(DressOnTheColors, "check", lambda *args: asked.append("check") or check(*args))
    return asked


def test_a_duel_too_large_is_refused_before_any_volley_is_worked_out(worked_out):
    """Sixty stands a side for 200 turns: refused from the game's bounds before the first volley, not after a
    run of seconds (or minutes) as the chain unrolls; not even one turn would be answered."""
    from rangefire.analysis.duel_work import DuelTooLarge

    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=60), T(stands=60, d=5))
    with pytest.raises(DuelTooLarge, match="too large to answer exactly, even over one turn") as refusal:
        duel(doc, battle, "F", "T", turns=MAX_TURNS)
    assert worked_out == [] and refusal.value.work.turns_within == 0


def test_the_wheatfield_duel_is_answered_for_its_default_turns_and_refused_for_200(worked_out):
    """The example's 15th Alabama against the 20th Maine: over the command's default five turns it is answered,
    as it was before its work was bounded (5,222 battles; its bound some 6,800); over 200 turns it is refused
    before any volley, saying that five turns would be answered (it was refused after 12 s of the chain)."""
    from pathlib import Path

    from rangefire.analysis.duel_work import DuelTooLarge, estimate_duel
    from rangefire.rulesets import load_battle

    doc, battle = load_battle(Path(__file__).resolve().parent.parent / "examples" / "wheatfield.yaml")
    with pytest.raises(DuelTooLarge, match="over 200 turns could reach some 306,290 battles, more than the 10,000 "
                                           "worked out exactly: too large to answer exactly; 5 turns or fewer would "
                                           "be answered, or a Monte Carlo of it, its dice rolled"):
        duel(doc, battle, "15th-alabama", "20th-maine", turns=MAX_TURNS)
    assert worked_out == []
    answered = duel(doc, battle, "15th-alabama", "20th-maine", turns=5)
    assert sum(answered.winner.values()) == 1 and answered.turn_limit == 5 and answered.states == 5222
    assert answered.winner["a"] == Fraction(
        69484793808849259206125962991794308856437729935584103164920783379786301959,
        6372868755373348268585303627208611570549793853112195058490566353855786778624)
    bound = estimate_duel(doc, battle, "15th-alabama", "20th-maine", 5)
    assert bound is not None and bound.fits and answered.states <= bound.states
    assert worked_out.count("volley") <= bound.states


def test_a_duel_is_refused_by_the_results_weighed_before_the_battles_reached():
    """A limit of 50 results weighed refuses the two-stand duel at its second turn, whatever the battles."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=2), T(stands=2))
    with pytest.raises(LimitError, match="weighs more than 50 results of attacks by turn 2 of 10: too large"):
        duel(doc, battle, "F", "T", turns=10, max_weighed=50)


def test_a_game_without_a_duel_says_so():
    from rangefire.core import Ruleset

    class Bare(Ruleset):  # the base's duel hooks, as a game that has not filled them in
        key = "bare"

        def _check(self, battle, attack): ...
        def _odds(self, plan): ...
        def _resolve(self, plan, source): ...
        def _apply(self, battle, resolution): ...

    with pytest.raises(NoDuelError, match="bare has no duel"):
        Bare().exchanges(None, None)
    assert issubclass(NoDuelError, RangefireError)


# -- the command -----------------------------------------------------------------------------------
@pytest.fixture
def scenario(tmp_path):
    path = tmp_path / "duel.json"
    path.write_text(json.dumps({"ruleset": "dress-on-the-colors", "options": {"discipline_dice": 1}, "units": [
        F(stands=2), T(stands=2), unit("G", "blue", (10, 0), 0), T(d=40) | {"id": "far"}]}))
    return str(path)


def test_cli_human_at_60_columns(scenario):
    proc = run("duel", scenario, "F", "T", "--turns", "3", columns=60)
    lines = proc.stdout.splitlines()
    assert all(len(line) <= 60 for line in lines)
    assert "F against T: F fires first, at most 3 turns" in proc.stdout
    assert "winner" in proc.stdout and "turns taken" in proc.stdout and "stands left of T" in proc.stdout
    assert "neither (none destroyed in 3 turns)" in proc.stdout


def test_cli_json(scenario):
    proc = run("duel", scenario, "F", "T", "--turns", "2", "--json", "--samples", "500", "--seed", "4")
    data = json.loads(proc.stdout)
    assert data["format"] == 1 and data["exact"] is True and data["a"] == "F" and data["b"] == "T"
    assert sum(Fraction(p) for p in data["winner"].values()) == 1
    assert set(data["turns"]["distribution"]) <= {"1", "2"}
    assert data["monte_carlo"]["exact"] is False and data["monte_carlo"]["samples"] == 500
    exact = duel(find_ruleset("doc"), dc_battle(F(stands=2), T(stands=2), discipline_dice=1), "F", "T", turns=2)
    assert data["winner"]["a"] == str(exact.winner["a"])


def test_cli_refused_attack_names_the_clause(scenario):
    proc = run("duel", scenario, "F", "far", "--turns", "2", columns=60)
    assert "DC-2.4" in proc.stdout and "F cannot fire at far" in proc.stdout
    assert "neither unit can fire at the other" in proc.stdout


@pytest.mark.parametrize(("args", "words"), [
    (["F", "X"], "'X' is not in this battle"),
    (["F", "F"], "named twice"),
    (["F", "G"], "both on blue's side"),
    # each option named in its refusal, as --seed is ('turns must be...' named no option)
    (["F", "T", "--turns", "0"], "--turns 0: must be between 1 and 200"),
    (["F", "T", "--turns", "100000000"], "--turns 100,000,000: must be between 1 and 200"),
    (["F", "T", "--samples", "-1"], "--samples -1: must be 0 (none) or more"),
    (["F", "T", "--samples", "100000000"], "--samples 100,000,000: must be at most 1,000,000"),
    (["F", "T", "--plot", "x.gif"], "a chart is written as .png"),
    (["F", "T", "--samples", "10", "--seed", "-5"], "--seed -5: must be 0 or more"),
])
def test_cli_bad_input_exits_2(scenario, args, words):
    proc = run("duel", scenario, *args, ok=2)
    assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    data = json.loads(run("duel", scenario, *args, "--json", ok=2).stdout)
    assert words in data["error"]["message"]


def test_a_negative_seed_is_refused_by_the_library_too():
    ruleset, battle = find_ruleset("dress-on-the-colors"), dc_battle(F(stands=2), T(stands=2))
    with pytest.raises(DuelError, match="seed of sampled duels must be 0 or more, got -1"):
        sample_duel(ruleset, battle, "F", "T", turns=2, samples=10, seed=-1)


def test_cli_plot(scenario, tmp_path):
    chart = tmp_path / "duel.png"
    proc = run("duel", scenario, "F", "T", "--turns", "2", "--samples", "300", "--plot", str(chart))
    assert chart.stat().st_size > 1000 and "chart written to" in proc.stdout
