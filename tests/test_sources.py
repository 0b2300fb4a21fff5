"""Dice sources: seeded (reproducible), scripted, entered by stage; clear errors naming stage and need."""

from __future__ import annotations

import pytest

from rangefire.core import DiceError, EnteredSource, LimitError, ScriptedSource, SeededSource, parse_entered


def test_seeded_is_reproducible_and_seed_dependent():
    assert SeededSource(1).roll("hit", 20) == SeededSource(1).roll("hit", 20)
    assert SeededSource(1).roll("hit", 20) != SeededSource(2).roll("hit", 20)
    assert all(1 <= v <= 6 for v in SeededSource(3).roll("hit", 200))


def test_entered_by_stage_in_order():
    src = parse_entered(["hit=6,4", "save=5", "hit=3"], ("hit", "save"))
    assert src.roll("hit", 2) == (6, 4)
    assert src.roll("save", 1) == (5,)
    assert src.roll("hit", 1) == (3,)
    src.finish()


def test_entered_too_few_names_stage_and_count():
    src = EnteredSource({"hit": [6, 4]})
    with pytest.raises(DiceError, match=r"stage hit: needs 3 dice, 2 entered \(--dice hit=v,v,...\)"):
        src.roll("hit", 3)


def test_entered_left_over_is_an_error():
    src = EnteredSource({"hit": [6, 4, 1]})
    src.roll("hit", 2)
    with pytest.raises(DiceError, match="3 dice entered but the attack used 2"):
        src.finish()


@pytest.mark.parametrize(("item", "message"), [
    ("hit=6,7", "7 is not a face of a d6"), ("hit=6,x", "'x' is not a die face"), ("hit", "write STAGE=v,v"),
    ("luck=6", "unknown dice stage 'luck'"), ("hit=0", "0 is not a face")])
def test_bad_entries(item, message):
    with pytest.raises(DiceError, match=message):
        parse_entered([item], ("hit", "save")).roll("hit", 2 if "," in item else 1)


def test_scripted_runs_out_clearly():
    with pytest.raises(DiceError, match="stage save: needs 2 dice, the script has 1 left"):
        ScriptedSource([3]).roll("save", 2)


def test_a_million_dice_are_refused_at_once():
    with pytest.raises(LimitError):
        SeededSource(1).roll("hit", 1_000_000)
    with pytest.raises(LimitError):
        parse_entered(["hit=" + ",".join(["6"] * 20_000)], ("hit",))


@pytest.mark.parametrize("item", ["hit=²", "hit=6,²", "hit=١", "hit=" + "6" * 5000, "hit=６"])
def test_entered_dice_that_are_not_plain_digits_are_a_dice_error(item):
    """Today `--dice hit=²` (a digit to str.isdigit, not to int) and a 5000-digit face are ValueError tracebacks."""
    with pytest.raises(DiceError, match=r"stage hit|--dice hit"):
        parse_entered([item], ("hit", "save")).roll("hit", 1)
