"""Dice sources: seeded (reproducible), scripted, entered by stage; clear errors naming stage and need."""

from __future__ import annotations

import pytest

from rangefire.core import (
    AskedSource,
    DiceError,
    EnteredSource,
    LimitError,
    Need,
    Question,
    ScriptedSource,
    SeededSource,
    parse_entered,
)


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
    with pytest.raises(DiceError, match=r"^entered dice: hit: 3 needed \(3 stands\), 2 given$"):
        src.roll("hit", 3, need=Need("a natural 4+ hits", "3 stands"))


def test_entered_left_over_is_an_error():
    src = EnteredSource({"hit": [6, 4, 1]})
    src.roll("hit", 2)
    with pytest.raises(DiceError, match=r"^entered dice: hit: 3 given, 2 needed$"):
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


# -- every problem of entered dice in one message, in stage order ----------------------------------
def test_too_many_hit_dice_are_said_before_missing_save_dice():
    """Too many hit dice and no save dice: one message, hit first; the attack goes on with the first 8."""
    src = EnteredSource({"hit": [6, 5, 5, 5, 1, 1, 1, 2, 3]}, stages=("hit", "save", "discipline"))
    assert src.roll("hit", 8, need="a natural 5+ hits") == (6, 5, 5, 5, 1, 1, 1, 2)
    with pytest.raises(DiceError) as raised:
        src.roll("save", 4, need=Need("4+ saves", "4 hits on a natural 5+"))
    assert str(raised.value) == ("entered dice: hit: 9 given, 8 needed; save: 4 needed (4 hits on a natural 5+), "
                                 "none given")


def test_dice_for_a_stage_never_reached_are_listed_after_the_stages_reached():
    src = EnteredSource({"discipline": [3, 4], "hit": [6, 4, 1]}, stages=("hit", "save", "discipline"))
    src.roll("hit", 2)
    with pytest.raises(DiceError) as raised:
        src.finish()
    assert str(raised.value) == ("entered dice: hit: 3 given, 2 needed; discipline: 2 given, none needed (the attack "
                                 "rolled no discipline dice)")


def test_a_value_that_is_not_a_face_stops_the_attack_with_the_problems_before_it():
    src = EnteredSource({"hit": [6, 4, 1], "save": [7]})
    src.roll("hit", 2)
    with pytest.raises(DiceError, match=r"^entered dice: hit: 3 given, 2 needed; save: 7 is not a face of a d6 "
                                        r"\(1 to 6\)$"):
        src.roll("save", 1)


def test_an_entered_choice_that_cannot_come_up_is_named_with_the_options():
    with pytest.raises(DiceError, match=r"^entered dice: bonus: 7 is not a combat bonus that can come up "
                                        r"\(0, 5, 10\)$"):
        EnteredSource({"bonus": [7]}).choose("bonus", (0, 5, 5, 10), "combat bonus")


# -- dice asked for, stage by stage ------------------------------------------------------------------
def test_a_question_says_the_stage_the_count_and_the_need():
    q = Question("save", 3, 6, Need("4+ saves", "3 hits on a natural 5+"), tuple(range(1, 7)))
    assert q.prompt() == "save: roll 3 dice, 4+ saves (3 hits on a natural 5+)"
    assert Question("wound", 1, 6, Need(), tuple(range(1, 7))).prompt() == "wound: roll 1 die"


@pytest.mark.parametrize(("typed", "reason"), [
    ("5 2", "2 values given, 3 needed"), ("", "no value given, 3 needed"), ("5 2 6 1", "4 values given, 3 needed"),
    ("5 2 7", "7 is not a face of a d6 (1 to 6)"), ("5 2 0", "0 is not a face of a d6"),
    ("5 x 1", "'x' is not a die face (digits 0-9)"), ("5 -2 1", "'-2' is not a die face")])
def test_a_wrong_answer_gets_a_one_line_reason(typed, reason):
    q = Question("save", 3, 6, Need("4+ saves"), tuple(range(1, 7)))
    with pytest.raises(DiceError) as raised:
        q.read(typed)
    assert str(raised.value).startswith(reason) and "\n" not in str(raised.value)


@pytest.mark.parametrize("typed", ["5 2 6", "5,2,6", "5, 2,6", "  5 2\t6 "])
def test_answers_separated_by_spaces_or_commas(typed):
    assert Question("save", 3, 6, Need(), tuple(range(1, 7))).read(typed) == (5, 2, 6)


def test_asked_source_asks_each_stage_when_reached_with_its_need():
    asked: list[Question] = []
    answers = iter(["6 5 1", "4"])

    def ask(q: Question) -> tuple[int, ...]:
        asked.append(q)
        return q.read(next(answers))

    src = AskedSource(ask)
    assert src.roll("hit", 3, need="a natural 5+ hits") == (6, 5, 1)
    assert src.roll("save", 1, need=Need("4+ saves", "1 hit")) == (4,)
    assert [q.prompt() for q in asked] == ["hit: roll 3 dice, a natural 5+ hits", "save: roll 1 die, 4+ saves (1 hit)"]


def test_asked_source_checks_what_the_callback_gives():
    with pytest.raises(DiceError, match="stage hit: 1 value given, 2 needed"):
        AskedSource(lambda q: [6]).roll("hit", 2)
    with pytest.raises(DiceError, match="stage hit: 7 is not a face of a d6"):
        AskedSource(lambda q: [6, 7]).roll("hit", 2)


def test_asked_choice_offers_the_values_that_can_come_up():
    asked: list[Question] = []

    def ask(q: Question) -> tuple[int, ...]:
        asked.append(q)
        with pytest.raises(DiceError, match=r"7 is not a combat bonus that can come up \(0, 5, 10\)"):
            q.read("7")
        return q.read("10")

    assert AskedSource(ask).choose("bonus", (0, 5, 5, 10), "combat bonus", "the top card's combat bonus") == 10
    assert asked[0].prompt() == "bonus: the top card's combat bonus"


def test_entered_dice_first_then_only_the_missing_stages_asked():
    asked: list[str] = []

    def ask(q: Question) -> tuple[int, ...]:
        asked.append(q.stage)
        return (4,) * q.count

    src = parse_entered(["hit=6,5,3", "ask"], ("hit", "save", "discipline"), AskedSource(ask))
    assert src.roll("hit", 3) == (6, 5, 3)
    assert src.roll("save", 2) == (4, 4)
    assert src.roll("discipline", 2) == (4, 4)
    src.finish()
    assert asked == ["save", "discipline"]


def test_an_entered_stage_that_does_not_fit_is_asked_again_with_the_reason():
    problems: list[str] = []

    def ask(q: Question) -> tuple[int, ...]:
        problems.append(q.problem)
        return (2,) * q.count

    src = parse_entered(["hit=6,5", "save=9"], ("hit", "save"), AskedSource(ask))
    assert src.roll("hit", 3) == (2, 2, 2)
    assert src.roll("save", 1) == (2,)
    src.finish()
    assert problems == ["hit: 2 dice entered, 3 needed", "save: 9 is not a face of a d6 (1 to 6)"]


def test_ask_among_entered_dice_is_refused_where_nothing_asks():
    with pytest.raises(DiceError, match=r"--dice 'ask': write STAGE=v,v,... or ask"):
        parse_entered(["hit=6", "ask"], ("hit", "save"))
