"""Duels (``rangefire.analysis.duel``): the chain over distinct states against the duel's first algorithm and an
independent brute force, the model's options, the Monte Carlo, the limits, bad input and the command.

- With a turn limit the chain is stepped exactly: it equals the first algorithm (``tests.duel_oracle.
  unrolled_duel``, unrolled half-turn by half-turn over whole battles) wherever that finishes, for each game.
- To the end it is solved by its parts: it equals a brute force over every die of every turn, recursive over the
  battles at the start of each turn (``brute_to_the_end``), in the probability and the mean turn of each end; and
  the turns stepped agree with the capped duel.
- The Monte Carlo rolls its own dice and never reads the exact transitions: it agrees by chi-square.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rangefire.analysis.duel import MAX_TURNS, DuelError, duel, sample_duel
from rangefire.analysis.duel_work import DuelTooLarge
from rangefire.core import LimitError, UnknownUnitError
from rangefire.rulesets import battle_from_mapping, find_ruleset, load_battle
from tests.commands import run
from tests.conftest import dc_battle, unit
from tests.duel_oracle import assert_sample_agrees, brute_to_the_end, unrolled_duel

ROOT = Path(__file__).resolve().parent.parent
WHEATFIELD = ROOT / "examples" / "wheatfield.yaml"
SAMPLES = 20_000


def F(**kw):
    return unit("F", "blue", (0, 0), 0, **kw)


def T(d=8, **kw):
    return unit("T", "grey", (0, d), 180, **kw)


def same_as_unrolled(result, old) -> None:
    """The chain's capped answer equals the first algorithm's, value for value (``both`` is never reached by
    alternate fire: the first algorithm has no such key)."""
    assert result.winner["both"] == 0
    assert {k: result.winner[k] for k in ("a", "b", "neither")} == old["winner"]
    assert {k: v for k, v in result.turns.items() if v} == {k: v for k, v in old["turns"].items() if v}
    for role in ("a", "b"):
        assert {k: v for k, v in result.left[role].items() if v} == {k: v for k, v in old["left"][role].items() if v}


# -- the chain against the first algorithm, game by game ---------------------------------------------------------
BOW = {"name": "bow", "short": 6, "medium": 12, "long": 18}


def _bushido(ammo=None, states=()):
    """A with a bow (Ammo markers where given [BU-4.1]) and 3 boxes against B with 2, 5 in apart."""
    weapon = BOW if ammo is None else {**BOW, "ammo": ammo}
    return battle_from_mapping({"ruleset": "bushido", "units": [
        {"id": "A", "side": "east", "position": [0, 0], "base": 40, "wounds": {"boxes": 3}, "rcp": 1,
         "weapon": weapon, "states": list(states)},
        {"id": "B", "side": "west", "position": [0, 5], "base": 40, "wounds": {"boxes": 2}, "rcp": 1,
         "weapon": BOW}]})


CASES = {
    "dc-open": lambda: (find_ruleset("dress-on-the-colors"),
                        dc_battle(F(stands=2), T(stands=3, weapon="breechloader", micro_hits=1), discipline_dice=1)),
    "dc-woods-disordered": lambda: (find_ruleset("dress-on-the-colors"), dc_battle(
        F(stands=3, disordered=True), T(stands=2, d=7),
        terrain=({"id": "wood", "kind": "light", "polygon": [[-4, 7.5], [4, 7.5], [4, 10], [-4, 10]]},))),
    "dc-wheatfield": lambda: load_battle(WHEATFIELD),
    # 10 in apart: a line of fire out of or through a gunsmoke marker over 6 in is -1 [DC-7.2]; no marker at first
    "dc-gunsmoke": lambda: (find_ruleset("dress-on-the-colors"), dc_battle(F(stands=2), T(stands=2, d=10),
                                                                            discipline_dice=1)),
    "bushido": lambda: _bushido(),
    "bushido-two-ammo": lambda: _bushido(ammo=2, states=("aimed",)),
    "arcane-legions": lambda: load_battle(ROOT / "examples" / "ford.yaml"),
    "arcane-legions-spears": lambda: load_battle(ROOT / "examples" / "ford.yaml"),
    "swerve": lambda: load_battle(ROOT / "src" / "rangefire" / "examples" / "sawblade.yaml"),
    "swerve-buggy": lambda: battle_from_mapping({
        "ruleset": "swerve", "turn": {"number": 1, "side": "jason"},
        "players": {"jason": {"deck": [0, 5, 10, 15, 30], "deck_order": "unknown"},
                    "tyler": {"deck": [0, 10, 20, 25], "deck_order": "unknown"}},
        "cards": [
            {"id": "buggy", "owner": "jason", "type": "vehicle", "speed": 20, "toughness": 2, "mission": "canyon",
             "timing": "main", "ranged": {"accuracy": 25, "damage": 1}},
            {"id": "truck", "owner": "tyler", "type": "vehicle", "speed": 15, "toughness": 2, "mission": "canyon",
             "timing": "main", "ranged": {"accuracy": 20, "damage": 1}},
            {"id": "nitro", "owner": "jason", "type": "tactic", "timing": "combat", "effect": {"accuracy": 5}}],
        "hands": {"jason": ["nitro"], "tyler": []}}),
}
UNITS = {"dc-wheatfield": ("15th-alabama", "20th-maine"), "swerve": ("sawblade-launcher", "road-warrior"),
         "arcane-legions-spears": ("spearmen", "wolf-riders"), "swerve-buggy": ("buggy", "truck")}


@pytest.mark.parametrize(("case", "turns"), [("dc-open", 4), ("dc-woods-disordered", 3), ("dc-wheatfield", 2),
                                             ("dc-gunsmoke", 3),
                                             ("bushido", 4), ("bushido-two-ammo", 3), ("arcane-legions", 2),
                                             ("arcane-legions-spears", 3), ("swerve", 3), ("swerve-buggy", 3)])
def test_the_chain_equals_the_first_algorithm_where_it_finishes(case, turns):
    """DC-4.3, DC-5.3, DC-7.1, DC-9.3, BU-3.5, BU-7.3, AL-7.2, SW-4.2: whatever the game carries from one attack to the
    next, the chain over distinct states answers a capped duel as the battles unrolled half-turn by half-turn
    did, exactly."""
    ruleset, battle = CASES[case]()
    a, b = UNITS.get(case, _first_two(ruleset, battle))
    result = duel(ruleset, battle, a, b, turns=turns)
    same_as_unrolled(result, unrolled_duel(ruleset, battle, a, b, turns))
    assert result.states > 0 and sum(result.winner.values()) == 1


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_duel_leaves_nothing_for_the_collector(case):
    """A duel pauses Python's collector of cycles while it works; what it made is then freed as its references go,
    none of it left in a cycle for the collector's first pass after (which would go over all of it), for every
    game, to the end and over a turn limit."""
    import gc

    ruleset, battle = CASES[case]()
    a, b = UNITS.get(case, _first_two(ruleset, battle))
    for turns in (None, 2):
        gc.collect()
        paused = gc.isenabled()
        gc.disable()
        try:
            duel(ruleset, battle, a, b, turns=turns, cores=1)
            assert gc.collect() == 0
        finally:
            if paused:
                gc.enable()


def _first_two(ruleset, battle):
    ids = list(ruleset.unit_ids(battle))
    a = ids[0]
    b = next(u for u in ids if ruleset.side_of(battle, u) != ruleset.side_of(battle, a))
    return a, b


def test_the_wheatfield_over_five_turns_is_the_first_algorithms_answer():
    """The issue's case, which the first algorithm answered in some 6 s: the same fraction."""
    doc, battle = load_battle(WHEATFIELD)
    answered = duel(doc, battle, "15th-alabama", "20th-maine", turns=5)
    assert answered.winner["a"] == Fraction(
        69484793808849259206125962991794308856437729935584103164920783379786301959,
        6372868755373348268585303627208611570549793853112195058490566353855786778624)


# -- to the end ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("f", "t", "options"), [
    ({"stands": 1}, {"stands": 1}, {"discipline_dice": 1}),
    ({"stands": 1, "disordered": True}, {"stands": 1, "weapon": "smoothbore", "d": 5}, {"discipline_dice": 1}),
])
def test_to_the_end_equals_brute_force_over_every_turn_dc_4_3_dc_5_3(f, t, options):
    """The chain solved to its end: the probability and the mean turn of each end equal a brute force over every
    die of every turn (recursive over the battles at the start of a turn, a turn that changes nothing solved as
    the geometric series it is); nothing is left undecided."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(**f), T(**t), **options)
    result = duel(doc, battle, "F", "T")
    brute = brute_to_the_end(doc, battle, "F", "T")
    assert result.winner["a"] == brute["a"] and result.winner["b"] == brute["b"]
    assert result.winner["neither"] == 0 and result.winner["both"] == 0
    assert result.ends["a"].mean == brute["turns_a"] / brute["a"]
    assert result.ends["b"].mean == brute["turns_b"] / brute["b"]
    assert result.turn_limit is None and sum(result.left["a"].values()) == 1


def test_the_wheatfield_is_answered_to_the_end():
    """The issue's case: the two regiments to the end (refused at turn 6 after 40 s before). Every end's
    probability is exact and they sum to 1; the turns stepped agree with the duel capped at them; the median and
    90th percentile are where the capped cumulative crosses a half and nine tenths."""
    doc, battle = load_battle(WHEATFIELD)
    result = duel(doc, battle, "15th-alabama", "20th-maine")
    assert sum(result.winner.values()) == 1 and result.winner["neither"] == 0
    assert result.states == 1537
    capped = duel(doc, battle, "15th-alabama", "20th-maine", turns=result.ends["a"].p90)
    assert capped.winner["a"] < result.winner["a"] and capped.winner["a"] >= Fraction(9, 10) * result.winner["a"]
    short = duel(doc, battle, "15th-alabama", "20th-maine", turns=result.ends["a"].p90 - 1)
    assert short.winner["a"] < Fraction(9, 10) * result.winner["a"]
    for t in range(1, 6):
        assert result.turns[t] == capped.turns.get(t, 0)
    assert result.losses["a"] == 8 - result.mean_left("a") and result.losses["b"] == 6 - result.mean_left("b")
    for role in ("a", "b"):  # worked out from the integer weights: the same as summed from the distribution
        assert result.mean_left(role) == sum(n * p for n, p in result.left[role].items())
    assert result.turns_after == 1 - sum(result.turns.values()) - result.winner["neither"]
    assert result.ends["any"].probability == result.winner["a"] + result.winner["b"] + result.winner["both"]
    assert result.ends["any"].median <= result.ends["any"].p90


def test_dress_on_the_colors_unit_states_equal_whole_battles_to_the_end_dc_7_1_dc_9_3():
    """The chain over Dress on the Colors' plain unit states (volleys checked once per state a check can tell
    apart, apply and the end of turn carried over by field) answers as the same chain over the game's whole
    battles (its own exchanges, apply and end_turn): a third unit out of the way, gunsmoke, woods, a disordered
    firer, to the end, either firing first in turn."""
    from rangefire.analysis.duel_chain import BattleModel, build
    from rangefire.analysis.duel_solve import solve
    from rangefire.rulesets.dress_on_the_colors.duel import state_key
    from rangefire.rulesets.dress_on_the_colors.duel_states import States

    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=2, disordered=True, gunsmoke=True), T(stands=2, d=7, micro_hits=1),
                       unit("P", "grey", (30, 0), 0), terrain=(
                           {"id": "wood", "kind": "light", "polygon": [[-4, 7.5], [4, 7.5], [4, 10], [-4, 10]]},),
                       discipline_dice=1)
    for first in ("a", "alternate"):
        plain, whole = build(States(doc, battle), "F", "T", first), build(BattleModel(doc, battle, state_key),
                                                                          "F", "T", first)
        assert plain.size == whole.size
        one, other = solve(plain), solve(whole)
        assert {e: one.probability(v) for e, v in one.ends.items()} == \
            {e: other.probability(v) for e, v in other.ends.items()}


def test_the_undecided_remainder_is_exact_at_the_limit():
    """With a turn limit the duels still undecided are reported exactly: the probability that no end has come by
    turn N is 1 less everything ended by then, and to the end that remainder goes to the ends."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=2), T(stands=2), discipline_dice=1)
    ended = duel(doc, battle, "F", "T")
    for n in (1, 3, 7):
        capped = duel(doc, battle, "F", "T", turns=n)
        by_then = sum((p for t, p in ended.turns.items() if t <= n), Fraction(0))
        assert capped.winner["neither"] == 1 - by_then
    assert ended.turns_after == 1 - sum(ended.turns.values())


def test_neither_can_ever_harm_the_other_is_neither_for_ever_dc_2_4():
    """Beyond 20 in [DC-2.4] neither can fire: to the end, the chain finds the part with no way out and says
    neither, exactly, with no turn of an end."""
    doc = find_ruleset("dress-on-the-colors")
    result = duel(doc, dc_battle(F(), T(d=25)), "F", "T")
    assert result.winner == {"a": 0, "b": 0, "both": 0, "neither": 1}
    assert result.refusals["a"][0].clause == "DC-2.4" and result.ends["any"].mean is None


def test_a_model_out_of_ammo_leaves_the_duel_undecided_for_ever_bu_3_5():
    """The temple's yoichi has Ammo markers and oni cannot shoot back [BU-3.1]: once the Ammo is spent [BU-3.5]
    nothing can change, so the chain's part with no way out is "neither" for ever, exactly what is still undecided
    when the capped duel has played every shot (the two ways share no arithmetic: solved, and stepped)."""
    ruleset, battle = load_battle(ROOT / "examples" / "temple.yaml")
    ended = duel(ruleset, battle, "yoichi", "oni")
    assert 0 < ended.winner["neither"] < 1 and ended.winner["b"] == 0
    assert ended.winner["a"] + ended.winner["neither"] == 1
    capped = duel(ruleset, battle, "yoichi", "oni", turns=10)
    assert capped.winner == ended.winner
    assert ended.turns_after == 0 and ended.ends["a"].p90 <= 10


# -- the model's options ---------------------------------------------------------------------------------------
def test_b_first_is_the_duel_named_the_other_way_round():
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=2), T(stands=2, weapon="smoothbore", d=5), discipline_dice=1)
    b_first = duel(doc, battle, "F", "T", first="b")
    swapped = duel(doc, battle, "T", "F")
    assert b_first.winner["a"] == swapped.winner["b"] and b_first.winner["b"] == swapped.winner["a"]
    assert b_first.ends["a"].mean == swapped.ends["b"].mean
    assert b_first.first == "b" and "T fires first in every turn" in b_first.assumptions[0].text


def test_alternate_first_lies_between_a_first_and_b_first():
    """A first in odd turns, B in even ones: the shots are A, B, B, A, A, B... Its first turn is A first's, and to
    the end A's chance lies between its chance firing first in every turn and firing second."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=1), T(stands=1, d=5), discipline_dice=1)
    both = duel(doc, battle, "F", "T", turns=2, first="alternate")
    first_turn = duel(doc, battle, "F", "T", turns=1)
    assert both.by_turn[1] == first_turn.by_turn[1]  # turn 1 is A first either way
    a_first, b_first = duel(doc, battle, "F", "T"), duel(doc, battle, "F", "T", first="b")
    alternate = duel(doc, battle, "F", "T", first="alternate")
    low, high = sorted((a_first.winner["a"], b_first.winner["a"]))
    assert low < alternate.winner["a"] < high
    assert "F fires first in the first turn, T in the second" in alternate.assumptions[0].text


def test_a_third_unit_holds_or_is_taken_off_the_table_dc_2_3():
    """P, closer in F's arc, is the target the rules choose [DC-2.3]: by the rules' reading F holds its fire, so
    only T can win; with the third unit ignored the duel is the one of F and T alone on the table."""
    doc = find_ruleset("dress-on-the-colors")
    p = unit("P", "grey", (0, 3), 180)
    battle = dc_battle(F(stands=2), T(stands=2, d=5), p, discipline_dice=1)
    holds = duel(doc, battle, "F", "T")
    assert holds.winner["a"] == 0 and holds.winner["b"] == 1 and holds.third_unit == "holds"
    assert holds.notes["a"][0].clause == "DC-2.3"
    ignored = duel(doc, battle, "F", "T", third_unit="ignored")
    alone = duel(doc, dc_battle(F(stands=2), T(stands=2, d=5), discipline_dice=1), "F", "T")
    assert ignored.winner == alone.winner and ignored.third_unit == "ignored"
    assert "taken off the table" in ignored.assumptions[1].text


def test_a_third_unit_option_in_a_game_that_does_not_choose_targets_is_refused():
    ruleset, battle = _bushido()
    with pytest.raises(DuelError, match="bushido does not choose a firer's target"):
        duel(ruleset, battle, "A", "B", third_unit="ignored")


# -- small units, any shape --------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 2), st.integers(1, 3), st.booleans(), st.integers(0, 1),
       st.sampled_from(["rifled-musket", "smoothbore", "breechloader"]), st.integers(4, 12), st.integers(1, 3),
       st.sampled_from(["a", "b"]))
def test_small_duels_equal_the_first_algorithm(fs, ts, disordered, micro, weapon, d, turns, first):
    """Any two small units, any distance, either firing first (the first algorithm plays B first as the duel
    named the other way round): the chain equals it."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=fs, disordered=disordered), T(stands=ts, micro_hits=min(micro, 1), weapon=weapon, d=d),
                       discipline_dice=1)
    result = duel(doc, battle, "F", "T", turns=turns, first=first)
    if first == "a":
        same_as_unrolled(result, unrolled_duel(doc, battle, "F", "T", turns))
    else:
        old = unrolled_duel(doc, battle, "T", "F", turns)
        swap = {"a": "b", "b": "a", "neither": "neither"}
        assert {swap[k]: v for k, v in old["winner"].items()} == {k: result.winner[k] for k in swap}
        assert {k: v for k, v in old["left"]["a"].items() if v} == {k: v for k, v in result.left["b"].items() if v}


# -- the Monte Carlo ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fight():
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=3), T(stands=3, weapon="breechloader", micro_hits=1))
    return doc, battle, duel(doc, battle, "F", "T", turns=4)


def test_monte_carlo_agrees_with_the_exact_chain_by_chi_square(fight):
    """20,000 duels with every die rolled (seed 7): winner, turns taken and what is left of each agree with the
    exact chain (chi-square, p > 0.001)."""
    doc, battle, result = fight
    est = sample_duel(doc, battle, "F", "T", turns=4, samples=SAMPLES, seed=7)
    assert sum(est.winner.values()) == SAMPLES
    assert_sample_agrees(result, est, SAMPLES)


def test_monte_carlo_to_the_end_agrees_and_its_intervals_hold_the_exact_answer():
    """To the end: the sampled share of each winner lies within its 95% interval of the exact probability (seed
    11), and the sampled mean turn of each end is near the exact mean."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=2), T(stands=2, weapon="smoothbore", d=5), discipline_dice=1)
    exact = duel(doc, battle, "F", "T")
    est = sample_duel(doc, battle, "F", "T", samples=SAMPLES, seed=11)
    for k in ("a", "b"):
        lo, hi = est.interval(est.winner[k])
        assert lo <= exact.winner[k] <= hi
        assert abs(est.end_turns(k)["mean"] - float(exact.ends[k].mean)) < 0.1
    assert est.winner["neither"] == 0 and est.turn_limit is None


def test_monte_carlo_is_reproducible_and_rolls_its_own_dice(fight, monkeypatch):
    doc, battle, _ = fight
    first = sample_duel(doc, battle, "F", "T", turns=2, samples=2_000, seed=3)
    assert first == sample_duel(doc, battle, "F", "T", turns=2, samples=2_000, seed=3)
    assert first != sample_duel(doc, battle, "F", "T", turns=2, samples=2_000, seed=4)

    def no(*args, **kwargs):
        raise AssertionError("the Monte Carlo read the exact transitions")

    monkeypatch.setattr(type(doc), "exchanges", no)
    import rangefire.rulesets.dress_on_the_colors.duel_states as states

    monkeypatch.setattr(states, "dice", no)  # the chain's exact dice
    monkeypatch.setattr(states.States, "fire", no)
    sample_duel(doc, battle, "F", "T", turns=2, samples=1_000, seed=3)


# -- limits and bad duels --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b", "turns", "error", "words"), [
    ("F", "X", 3, UnknownUnitError, "'X' is not in this battle"),
    ("F", "F", 3, DuelError, "named twice"),
    ("F", "G", 3, DuelError, "both on blue's side"),
    ("F", "T", 0, DuelError, "turns must be between 1 and 1,000, got 0"),
    ("F", "T", -4, DuelError, "turns must be between 1 and 1,000, got -4"),
    ("F", "T", MAX_TURNS + 1, DuelError, "turns must be between 1 and 1,000, got 1,001"),
])
def test_bad_duels_are_refused(a, b, turns, error, words):
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(), T(), unit("G", "blue", (10, 0), 0))
    with pytest.raises(error, match=words):
        duel(doc, battle, a, b, turns)


def test_a_bad_first_is_refused():
    doc = find_ruleset("dress-on-the-colors")
    with pytest.raises(DuelError, match="who fires first must be one of a, b, alternate, got 'c'"):
        duel(doc, dc_battle(F(), T()), "F", "T", first="c")


@pytest.fixture
def checked(monkeypatch):
    """Every check the duel makes, recorded as it is asked for."""
    from rangefire.rulesets.dress_on_the_colors import DressOnTheColors

    asked: list[str] = []
    check = DressOnTheColors.check
    monkeypatch.setattr(DressOnTheColors, "check", lambda *args: asked.append("check") or check(*args))
    return asked


def test_a_duel_beyond_the_exact_bound_is_refused_before_any_volley(checked):
    """Sixty stands a side: some 115,000 distinct states; refused from the game's bounds before one volley is
    checked, naming the Monte Carlo."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=60), T(stands=60, d=5))
    with pytest.raises(DuelTooLarge, match=r"could reach some 115,200 distinct states of the two units, more than "
                                           r"the 30,000 worked out exactly: too large to answer exactly") as refusal:
        duel(doc, battle, "F", "T")
    assert checked == [] and not refusal.value.work.fits


def test_the_bound_holds_what_the_chain_reaches():
    """The estimate is a bound: the states the chain works out are never more (nothing answered is refused)."""
    from rangefire.analysis.duel_work import estimate_duel

    doc = find_ruleset("dress-on-the-colors")
    for f, t in ((F(stands=1), T(stands=1)), (F(stands=3, disordered=True), T(stands=2, micro_hits=1)),
                 (F(stands=4), T(stands=5, d=5))):
        battle = dc_battle(f, t)
        for first in ("a", "alternate"):
            bound = estimate_duel(doc, battle, "F", "T", first)
            assert bound is not None and duel(doc, battle, "F", "T", first=first).states <= bound.nodes


def test_a_chain_past_its_states_is_refused_as_it_passes_them(monkeypatch):
    """A game that gives no bounds (here Bushido, its bounds taken away) is held by the states its chain really
    reaches."""
    from rangefire.rulesets.bushido import duel as bushido_duel

    monkeypatch.delattr(bushido_duel, "bounds")
    ruleset, battle = _bushido()
    with pytest.raises(LimitError, match="reaches more than 5 distinct states: too large to answer exactly"):
        duel(ruleset, battle, "A", "B", max_nodes=5)


def test_a_limit_too_long_to_step_is_refused():
    doc = find_ruleset("dress-on-the-colors")
    with pytest.raises(LimitError, match="over 900 turns is too long to step exactly"):
        duel(doc, dc_battle(F(stands=3), T(stands=3)), "F", "T", turns=900, max_work=10_000)


def test_a_game_without_a_duel_says_so():
    from rangefire.core import RangefireError, Ruleset
    from rangefire.core.ruleset import NoDuelError

    class Bare(Ruleset):  # the base's duel hooks, as a game that has not filled them in
        key = "bare"

        def _check(self, battle, attack): ...
        def _odds(self, plan): ...
        def _resolve(self, plan, source): ...
        def _apply(self, battle, resolution): ...

    with pytest.raises(NoDuelError, match="bare has no duel"):
        Bare().exchanges(None, None)
    assert issubclass(NoDuelError, RangefireError)


# -- the JSON keys, as documented -------------------------------------------------------------------------------
def test_every_json_key_is_documented():
    """docs/duel.md names every key of the answer and of its Monte Carlo (and each end's)."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(F(stands=1), T(stands=1), discipline_dice=1)
    data = duel(doc, battle, "F", "T").to_dict()
    data["monte_carlo"] = sample_duel(doc, battle, "F", "T", samples=100).to_dict()
    text = (ROOT / "docs" / "duel.md").read_text()
    keys = set(data) | set(data["turns"]) | set(data["ends"]["a"]) | set(data["left"]["a"]) | set(data["ends"])
    keys |= set(data["monte_carlo"]) | set(data["monte_carlo"]["ends"]["a"])
    missing = {k for k in keys if f'"{k}"' not in text}
    assert not missing, missing


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
    assert "F against T, at most 3 turns" in proc.stdout
    assert "how it ends" in proc.stdout and "turn of the end" in proc.stdout and "stands left of T" in proc.stdout
    assert "--first a" in proc.stdout
    wide = run("duel", scenario, "F", "T", "--turns", "3", columns=200).stdout
    assert "neither: none destroyed in 3 turns" in wide


@pytest.mark.parametrize("columns", [40, 30])
def test_cli_human_at_a_narrow_terminal_keeps_every_figure_whole(scenario, columns):
    """At a narrow terminal the ends' names wrap, never the figures: each probability and turn whole (no "..."),
    the same figures as at a wide one; a column too wide for the terminal even alone (the sampled share and its
    interval, at 30) is parted between its figures, never cut."""
    asked = ("duel", scenario, "F", "T", "--turns", "3", "--samples", "200", "--seed", "1")
    narrow, wide = run(*asked, columns=columns).stdout, run(*asked, columns=200).stdout
    assert all(len(line) <= columns for line in narrow.splitlines())
    assert "…" not in (narrow if columns >= 40 else narrow.split("how it ends")[1].split("neither:")[0])

    def figures(shown: str) -> list[str]:
        ends = shown.split("how it ends")[1].split("neither:")[0]
        return re.findall(r"\d+(?:\.\d+)?%|\b\d+\.\d\d\b", ends)

    assert sorted(figures(narrow)) == sorted(figures(wide)) and len(figures(wide)) >= 12


def test_cli_to_the_end_says_the_model_and_each_end(scenario):
    shown = " ".join(run("duel", scenario, "F", "T", columns=200).stdout.split())
    assert "F against T, to the end" in shown and "F fires first in every turn, then T (--first a)" in shown
    assert "(--third-unit holds)" in shown and "F wins" in shown and "both destroyed" in shown
    assert re.search(r"the end comes in turn \d+\.\d\d on average \(median \d+, 90% by turn \d+\)", shown)


def test_cli_json(scenario):
    proc = run("duel", scenario, "F", "T", "--turns", "2", "--json", "--samples", "500", "--seed", "4")
    data = json.loads(proc.stdout)
    assert data["exact"] is True and data["a"] == "F" and data["b"] == "T" and data["first"] == "a"
    assert sum(Fraction(p) for p in data["winner"].values()) == 1
    assert set(data["turns"]["distribution"]) <= {"1", "2"}
    assert data["monte_carlo"]["exact"] is False and data["monte_carlo"]["samples"] == 500
    assert all(0 <= lo <= hi <= 1 for lo, hi in data["monte_carlo"]["intervals"].values())
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
    (["F", "T", "--turns", "0"], "--turns 0: must be between 1 and 1,000 (or left out: to the end)"),
    (["F", "T", "--turns", "-3"], "--turns -3: must be between 1 and 1,000 (or left out: to the end)"),
    (["F", "T", "--turns", "100000000"], "--turns 100,000,000: must be between 1 and 1,000"),
    (["F", "T", "--turns", "many"], "--turns 'many': must be a whole number"),
    (["F", "T", "--samples", "-1"], "--samples -1: must be 0 (none) or more"),
    (["F", "T", "--samples", "100000000"], "--samples 100,000,000: must be at most 1,000,000"),
    (["F", "T", "--first", "c"], "--first 'c': must be a (A fires first), b (B fires first) or alternate"),
    (["F", "T", "--third-unit", "shoots"], "--third-unit 'shoots': must be holds"),
    (["F", "T", "--plot", "x.gif"], "a chart is written as .png"),
    (["F", "T", "--samples", "10", "--seed", "-5"], "--seed -5: must be 0 or more"),
    (["F", "T", "--seed", "5"], "--seed 5: the seed is the Monte Carlo's, and no --samples were asked for"),
])
def test_cli_bad_input_exits_2(scenario, args, words):
    proc = run("duel", scenario, *args, ok=2)
    assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    data = json.loads(run("duel", scenario, *args, "--json", ok=2).stdout)
    assert words in data["error"]["message"]


def test_cli_third_unit_in_another_game_is_refused(tmp_path):
    path = tmp_path / "bu.json"
    path.write_text(json.dumps({"ruleset": "bushido", "units": [
        {"id": "A", "side": "east", "position": [0, 0], "base": 40, "wounds": {"boxes": 3}, "rcp": 1, "weapon": BOW},
        {"id": "B", "side": "west", "position": [0, 5], "base": 40, "wounds": {"boxes": 2}, "rcp": 1,
         "weapon": BOW}]}))
    proc = run("duel", str(path), "A", "B", "--third-unit", "ignored", ok=2)
    assert "--third-unit ignored: bushido does not choose a firer's target" in proc.stderr


def test_a_negative_seed_is_refused_by_the_library_too():
    ruleset, battle = find_ruleset("dress-on-the-colors"), dc_battle(F(stands=2), T(stands=2))
    with pytest.raises(DuelError, match="seed of sampled duels must be 0 or more, got -1"):
        sample_duel(ruleset, battle, "F", "T", turns=2, samples=10, seed=-1)


def test_cli_plot(scenario, tmp_path):
    chart = tmp_path / "duel.png"
    proc = run("duel", scenario, "F", "T", "--samples", "300", "--plot", str(chart))
    assert chart.stat().st_size > 1000 and "chart written to" in proc.stdout
    data = json.loads(run("duel", scenario, "F", "T", "--turns", "2", "--plot", str(chart), "--json").stdout)
    assert data["plot"] == str(chart)
