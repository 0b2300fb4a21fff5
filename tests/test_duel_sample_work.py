"""The Monte Carlo duel's work weighed before it (``rangefire.analysis.duel_sample.sample_work``): near what it then
does, in dice rolled and states drawn; one that would take minutes refused at once, after its few pilot duels
alone, naming the most duels that would be played; a duel in which nothing changes never refused for its length.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rangefire.analysis import duel_sample
from rangefire.analysis.duel_sample import (
    MAX_SAMPLE_DICE,
    MAX_SAMPLE_DRAWS,
    PILOT,
    SamplesTooMany,
    sample_duel,
    sample_work,
)
from rangefire.rulesets import find_ruleset, load_battle
from tests.commands import run, run_here
from tests.conftest import dc_battle, unit

ROOT = Path(__file__).resolve().parent.parent
DC = find_ruleset("dress-on-the-colors")


def _big(d: int = 20):
    """Two units of 60 stands, long range apart: hits are rare, the duels long and spread over many states."""
    return dc_battle(unit("F", "blue", (0, 0), 0, stands=60), unit("T", "grey", (0, d), 180, stands=60))


def _done(ruleset, battle, a, b, samples, seed=0):
    """What the Monte Carlo of ``samples`` duels really does: its dice and its states drawn, counted as it plays."""
    meter = duel_sample._Meter(max_dice=10**18, max_halves=10**9)
    duels = duel_sample._Duels(ruleset, battle, a, b, None, "a", None)
    duel_sample._play(duels, samples, seed, duel_sample._Counted(np.random.default_rng(seed), meter), None, meter)
    return sum(meter.dice), sum(meter.rolling)


CASES = {
    "dc-4-stands": lambda: (DC, dc_battle(unit("F", "blue", (0, 0)), unit("T", "grey", (0, 8), 180)), "F", "T"),
    "dc-12-stands": lambda: (DC, dc_battle(unit("F", "blue", (0, 0), stands=12),
                                           unit("T", "grey", (0, 7), 180, stands=12)), "F", "T"),
    "wheatfield": lambda: (*load_battle(ROOT / "examples" / "wheatfield.yaml"), "15th-alabama", "20th-maine"),
    "bushido-temple": lambda: (*load_battle(ROOT / "examples" / "temple.yaml"), "yoichi", "takeda"),
    "arcane-legions-ford": lambda: (*load_battle(ROOT / "examples" / "ford.yaml"), "spearmen", "wolf-riders"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_work_weighed_before_is_near_the_work_done(case):
    """For every game: the dice and the states drawn, weighed from the pilot's duels, are near what 3,000 duels
    then roll and draw: the dice within a factor of two, the states at least half and at most some four times
    (the pilot's 16 duels are few: an estimate, not a count, erring high on the states, each duel in a state the
    pilot did not see taken to be in one of its own)."""
    ruleset, battle, a, b = CASES[case]()
    n = 3_000
    work = sample_work(ruleset, battle, a, b, None, n)
    dice, draws = _done(ruleset, battle, a, b, n)
    assert work.fits and work.fit == n
    assert dice / 2 <= work.dice <= dice * 2, (work, dice)
    assert draws / 2 <= work.draws <= draws * 4 + 100, (work, draws)


def test_a_monte_carlo_of_minutes_is_refused_after_its_pilot_alone(monkeypatch):
    """A thousand duels of two units of 60 stands 20 in apart would draw some two million states (an hour's
    work): refused, no duel played but the pilot's, naming the most duels that would be played; that many are
    within the limits and one more is not."""
    played = []
    real = duel_sample._play

    def counted(duels, samples, *args, **kwargs):
        played.append(samples)
        return real(duels, samples, *args, **kwargs)

    monkeypatch.setattr(duel_sample, "_play", counted)
    battle = _big()
    with pytest.raises(SamplesTooMany) as refused:
        sample_duel(DC, battle, "F", "T", samples=1_000)
    assert played == [PILOT]
    work = refused.value.work
    assert work.draws > MAX_SAMPLE_DRAWS or work.dice > MAX_SAMPLE_DICE
    assert "--samples 1,000" in str(refused.value) and f"{work.fit:,} duels or fewer" in str(refused.value)
    assert 1 <= work.fit < 1_000
    assert sample_work(DC, battle, "F", "T", None, work.fit).fits
    assert not sample_work(DC, battle, "F", "T", None, work.fit + 1).fits


def test_a_duel_in_which_nothing_changes_is_never_refused_for_its_length():
    """Most temple duels reach a state from which neither model can harm the other [BU-1.3, BU-3.1]: they go on
    to the turn limit (a thousand turns) in one state, rolling no dice. A million of them fit."""
    ruleset, battle = load_battle(ROOT / "examples" / "temple.yaml")
    work = sample_work(ruleset, battle, "yoichi", "takeda", None, 1_000_000)
    assert work.fits, work


def _scenario(tmp_path: Path, stands_f: int, stands_t: int, apart: int) -> Path:
    """A file of two lines of rifled muskets, F and T, ``apart`` inches apart."""
    path = tmp_path / "duel.json"
    path.write_text(json.dumps({"ruleset": "dress-on-the-colors", "units": [
        unit("F", "blue", (0, 0), 0, stands=stands_f), unit("T", "grey", (0, apart), 180, stands=stands_t)]}))
    return path


def test_the_command_refuses_before_the_exact_odds(tmp_path):
    """``duel --samples`` weighs the Monte Carlo before the exact odds are worked out: refused at once (exit 2),
    in words and in JSON, naming the duels that would be played."""
    path = _scenario(tmp_path, 20, 60, 20)
    proc = run("duel", str(path), "F", "T", "--samples", "1000000", ok=2)
    assert "--samples 1,000,000" in proc.stderr and "duels or fewer would be played" in proc.stderr
    assert proc.stdout == ""
    data = json.loads(run("duel", str(path), "F", "T", "--samples", "1000000", "--json", ok=2).stdout)
    assert data["error"]["kind"] == "too_large" and "duels or fewer" in data["error"]["message"]


def test_the_command_weighs_the_monte_carlo_before_any_exact_work(tmp_path, monkeypatch):
    """A duel answered exactly in a moment, its Monte Carlo of a million duels not: refused before the exact
    odds are begun."""
    import rangefire.analysis.duel as duel_module

    def begun(*args, **kwargs):
        raise AssertionError("the exact odds were begun before the Monte Carlo was weighed")

    monkeypatch.setattr(duel_module, "duel", begun)
    path = _scenario(tmp_path, 12, 12, 16)
    proc = run_here("duel", str(path), "F", "T", "--samples", "1000000", ok=2)
    assert "--samples 1,000,000" in proc.stderr and "duels or fewer would be played" in proc.stderr


def test_the_same_seed_plays_the_same_duels_with_the_work_weighed_or_not():
    """The pilot rolls its own dice: the duels played are those of the seed, weighed before or not."""
    battle = dc_battle(unit("F", "blue", (0, 0)), unit("T", "grey", (0, 8), 180))
    weighed = sample_duel(DC, battle, "F", "T", samples=500, seed=5)
    unweighed = sample_duel(DC, battle, "F", "T", samples=500, seed=5,
                            work=duel_sample.SampleWork("F", "T", 500, 0, 0, 500))
    assert weighed == unweighed


def test_the_pilot_counts_numbers_drawn_by_any_method_of_the_generator():
    """A game may draw its numbers by another method than ``integers`` (``random``, ``choice``): counted alike."""
    meter = duel_sample._Meter(max_dice=10**9, max_halves=10)
    meter.begin()
    meter.draw(3)
    counted = duel_sample._Counted(np.random.default_rng(0), meter)
    counted.integers(1, 7, size=(3, 4))
    counted.random(5)
    counted.choice(6, size=2)
    assert meter.dice == [12 + 5 + 2] and meter.rolling == [1] and meter.alone == [0]
