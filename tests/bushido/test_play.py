"""Bushido played out: dice by stage, the log by clause, wounds marked, models removed, Ammo spent; sampled play
against the exact odds; the command line [BU-4.1, BU-6.1, BU-6.4, BU-7.1, BU-7.3]."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from rangefire.core import Attack, DiceError, EnteredSource, SeededSource
from rangefire.demo import example_path
from rangefire.rulesets import load_battle
from tests.bushido.test_rules import BOW, BU, S, T, battle, guard
from tests.oracles import chi_square
from tests.terminal import at_terminal
from tests.test_cli import digest, run

TEMPLE = example_path("temple.yaml")


def play(b, dice, attacker="S", target="T", **choices):
    return BU.play(b, Attack(attacker, target, tuple(choices.items())), EnteredSource(dice))


def test_a_hit_marks_boxes_from_the_chart_bu_7_1_and_bu_7_3():
    """BU-7.1, BU-7.2, BU-7.3: attack 6,5,1 (result 7) against 4,4 (result 5): SL 2; wound die 5, modifier
    +1 - armour 1: roll 5 -> 3 wounds, marked on the track."""
    b = battle(S(weapon={**BOW, "wound_modifier": 1}), T(12, armour=1, wounds={"boxes": 6, "marked": 1}))
    resolution, after = play(b, {"attack": [6, 5, 1], "defense": [4, 4], "wound": [5]})
    assert resolution.outcome.to_dict() == {"hit": True, "success_level": 2, "wounds": 3, "removed": False}
    assert after.unit("T").wounds.marked == 4 and b.unit("T").wounds.marked == 1  # the old battle untouched
    assert [line.clause for line in resolution.log][-4:] == ["BU-6.2", "BU-6.3", "BU-7.2", "BU-7.3"]


def test_armour_and_armour_piercing_bu_7_2():
    """BU-7.2: armour comes off the wound roll; an armour-piercing weapon ignores it (same dice, more wounds)."""
    dice = {"attack": [6, 5, 1], "defense": [4, 4], "wound": [4]}  # SL 2
    plain = battle(S(), T(12, armour=2, wounds={"boxes": 9}))
    piercing = battle(S(weapon={**BOW, "armour_piercing": True}), T(12, armour=2, wounds={"boxes": 9}))
    assert BU.plan(plain, Attack("S", "T")).wound_roll_modifier == -2
    assert BU.plan(piercing, Attack("S", "T")).wound_roll_modifier == 0
    assert play(plain, dice)[0].outcome.wounds == 1      # roll 4 - 2 = 2 at SL 2
    assert play(piercing, dice)[0].outcome.wounds == 2   # roll 4 at SL 2
    odds_plain = BU.odds(BU.plan(plain, Attack("S", "T"))).outcomes["wounds"]
    odds_piercing = BU.odds(BU.plan(piercing, Attack("S", "T"))).outcomes["wounds"]
    assert odds_piercing.mean() > odds_plain.mean()


def test_every_box_marked_removes_the_model_bu_7_3():
    b = battle(S(), T(12, wounds={"boxes": 3, "marked": 1}))
    resolution, after = play(b, {"attack": [6, 6, 6], "defense": [2, 1], "wound": [6]})  # SL 6, roll 6: 8 wounds
    assert resolution.outcome.wounds == 8 and resolution.outcome.removed
    assert "T" not in BU.unit_ids(after)


def test_a_miss_deals_nothing_and_the_defender_takes_no_damage_bu_6_4():
    """BU-6.4: the defender wins: no wound die is rolled, nobody is marked."""
    b = battle(S(), T(12))
    resolution, after = play(b, {"attack": [3, 1, 1], "defense": [6, 2]})
    assert resolution.outcome.to_dict() == {"hit": False, "success_level": 0, "wounds": 0}
    assert "wound" not in resolution.dice
    assert after.unit("T").wounds == b.unit("T").wounds and after.unit("S").wounds == b.unit("S").wounds
    with pytest.raises(DiceError):  # a wound die typed in for a miss is left unused: an error, nothing applied
        play(b, {"attack": [3, 1, 1], "defense": [6, 2], "wound": [4]})


def test_when_neither_wins_the_log_does_not_say_the_defender_wins_bu_6_3_and_bu_6_4():
    """BU-6.3: both results 0 (every die a 1): a result of 0 never wins, so neither side wins; the attack does
    not hit, but BU-6.4 (the defender wins) must not be logged."""
    b = battle(S(), T(12))
    resolution, after = play(b, {"attack": [1, 1, 1], "defense": [1, 1]})
    assert resolution.outcome.to_dict() == {"hit": False, "success_level": 0, "wounds": 0}
    assert "wound" not in resolution.dice and after.unit("T").wounds == b.unit("T").wounds
    texts = [f"{line.clause} {line.text}" for line in resolution.log]
    assert not any("defender wins" in text or text.startswith("BU-6.4") for text in texts), texts
    assert any(text.startswith("BU-6.3") and "neither wins" in text for text in texts), texts
    # the defender does win with a result of 2 against 0: then BU-6.4 says so
    lost, _ = play(b, {"attack": [1, 1, 1], "defense": [2, 1]})
    assert any(line.clause == "BU-6.4" and "the defender wins" in line.text for line in lost.log)


def test_one_die_one_wound_one_box_in_the_singular():
    """The log says "1 remains", "1 remaining die", "1 wound", "1 box", "+1 attack die" and "+2 defense dice"."""
    b = battle(S(rcp=1, states=["aimed"]), T(12, states=["prone"]))
    plan = BU.plan(b, Attack("S", "T"))
    reasons = [str(m) for m in plan.modifiers]
    assert any(r.startswith("+1 attack die: aimed") for r in reasons), reasons
    assert any(r.startswith("-1 defense die: T is prone") for r in reasons), reasons
    # 2 attack dice against 1: equal results 6 and 6, one die left each: the attacker wins at SL 0; roll 4 at
    # SL 0 is 1 wound
    resolution, _ = play(b, {"attack": [6, 1], "defense": [6], "wound": [4]})
    texts = [line.text for line in resolution.log]
    assert "attack dice 6, 1: 1s discarded, 1 remains, result 6" in texts, texts
    assert "equal results; the attacker wins at SL 0 (1 remaining die against 1)" in texts, texts
    assert any(t.endswith("at SL 0: 1 wound") for t in texts) and "T marks 1 box" in texts, texts
    # a pool of -1 rolls 1 die and the defender gains 2 dice
    starved = BU.plan(battle(S(rcp=1, states=["ran", "moved"]), T(12)), Attack("S", "T"))
    assert "+2 defense dice: the attack pool is -1 [BU-5.6]" in [str(m) for m in starved.modifiers]


def test_a_defense_pool_of_0_rolls_1_die_and_the_attacker_gains_one_bu_5_6():
    """Short range (1 defense die [BU-5.1]) against a prone target (-1 [BU-5.4]): the pool is 0, not below
    0, and still rolls 1 die while the attacker gains 1 [BU-5.6]."""
    plan = BU.plan(battle(S(), T(4, states=["prone"])), Attack("S", "T"))
    assert (plan.band, plan.defense_pool, plan.defense_dice) == ("short", 0, 1)
    assert plan.attack_dice == plan.attack_pool + 1
    assert "+1 attack die: the defense pool is 0 [BU-5.6]" in [str(m) for m in plan.modifiers]
    assert "[BU-5.6] pools 3 and 0: a pool below 1 rolls 1 die" in [str(n) for n in plan.notes]


def test_ammo_spent_on_declaring_hit_or_miss_bu_4_1():
    """BU-4.1: the marker goes when the attack is declared, whatever the dice do."""
    b = battle(S(weapon={**BOW, "ammo": 2}), T(12))
    _, missed = play(b, {"attack": [1, 1, 1], "defense": [2, 2]})
    assert missed.unit("S").weapon.ammo == 1
    next_turn = BU.end_turn(missed)[0]  # one attack a turn [BU-8.1]
    _, empty = play(next_turn, {"attack": [6, 6, 6], "defense": [1, 1], "wound": [1]})
    assert empty.unit("S").weapon.ammo == 0
    assert [r.clause for r in BU.check(BU.end_turn(empty)[0], Attack("S", "T")).refusals] == ["BU-3.5"]


def test_opposed_test_rolls_both_pools_at_once_bu_6_1():
    """BU-6.1: one attack stage and one defense stage, each with its whole pool."""
    b = battle(S(rcp=5), T(12, base=30))
    resolution, _ = BU.play(b, Attack("S", "T"), SeededSource(4))
    assert len(resolution.dice["attack"]) == 5 and len(resolution.dice["defense"]) == 3


def test_sampled_play_agrees_with_exact_odds():
    """Seeded resolutions (chi-square at a fixed seed) against the exact wounds and success levels."""
    b = battle(S(rcp=4, weapon={**BOW, "wound_modifier": 1}), T(12, armour=1), guard(0, 6))
    plan = BU.plan(b, Attack("S", "T"))
    odds = BU.odds(plan)
    n = 20000
    source = SeededSource(2026)
    wounds: Counter[int] = Counter()
    levels: Counter[int] = Counter()
    for _ in range(n):
        outcome = BU.resolve(plan, source).outcome
        wounds[outcome.wounds] += 1
        if outcome.hit:
            levels[outcome.success_level] += 1
    assert chi_square(wounds, odds.outcomes["wounds"].probabilities(), n) > 0.001
    assert chi_square(levels, odds.outcomes["success_level"].probabilities(), sum(levels.values())) > 0.001
    hit = sum(levels.values()) / n
    assert abs(hit - float(odds.events["hit"])) < 4 * (0.25 / n) ** 0.5


# -- the command line -----------------------------------------------------------------------------------------
@pytest.fixture
def temple(tmp_path: Path) -> Path:
    path = tmp_path / "temple.yaml"
    path.write_bytes(TEMPLE.read_bytes())
    return path


def test_check_lists_nominees_and_odds_per_nomination(temple):
    data = json.loads(run("check", str(temple), "-a", "yoichi", "-t", "takeda", "--json").stdout)
    assert data["legal"] and [n["id"] for n in data["plan"]["nominees"]] == ["yojimbo"]
    odds = json.loads(run("odds", str(temple), "-a", "yoichi", "-t", "takeda", "--json").stdout)
    assert {"wounds", "success_level"} <= set(odds["outcomes"]) and "hit" in odds["events"]
    assert set(odds["nominations"]) == {"yojimbo"}
    alt = odds["nominations"]["yojimbo"]
    assert sum(Fraction(p) for p in alt["outcomes"]["wounds"]["distribution"].values()) == 1
    people = run("odds", str(temple), "-a", "yoichi", "-t", "takeda").stdout
    assert "nominates instead" in people and "BU-5.3" in people


def test_resolve_redirect_to_plays_the_swap_and_writes_the_battle(temple, tmp_path):
    after = tmp_path / "after.yaml"
    data = json.loads(run("resolve", str(temple), "-a", "yoichi", "-t", "takeda", "--redirect-to", "yojimbo",
                          "--dice", "attack=6,5,4,1", "--dice", "defense=5,4", "--dice", "wound=6",
                          "--out", str(after), "--json").stdout)
    # aimed: 4 attack dice, result 6 + 2 = 8; medium band: 2 defence dice, result 5 + 1 = 6; SL 2
    assert data["target"] == "yojimbo" and data["outcome"]["hit"] and data["outcome"]["success_level"] == 2
    assert data["log"][1]["clause"] == "BU-4.2"
    _, battle_after = load_battle(after)
    assert battle_after.unit("yoichi").weapon.ammo == 3
    assert battle_after.unit("yojimbo").wounds.marked == 3  # wound die 6 - armour 1 = roll 5 at SL 2: 3 wounds


def test_a_terminal_asks_the_target_s_player_bu_4_2(temple):
    """Without --redirect-to at a terminal, the target's player keeps the declared target or nominates."""
    code, text, left = at_terminal(["resolve", str(temple), "-a", "yoichi", "-t", "takeda", "--seed", "3"],
                                   [b"2\n"])
    assert code == 0 and not left, text
    assert "1. keep takeda" in text and "2. nominate yojimbo" in text and "ito (the target's player)" in text
    assert "keep takeda as the target or nominate another of ito's models [BU-4.2]" in text  # what is asked
    assert "takeda's player nominates yojimbo as the target" in text
    code, text, left = at_terminal(["resolve", str(temple), "-a", "yoichi", "-t", "takeda", "--seed", "3"],
                                   [b"1\n"])
    assert code == 0 and not left and "yoichi fires at takeda" in text and "nominates" not in text, text


@pytest.mark.parametrize(("args", "needle"), [
    (("-a", "kenji", "-t", "oni"), "zone of control of oni"),
    (("-a", "yoichi", "-t", "scout"), "no line of sight to scout"),
    (("-a", "takeda", "-t", "yoichi"), "prefecture's activation"),
    (("-a", "yoichi", "-t", "takeda", "--redirect-to", "scout"), "scout does not qualify"),
    (("-a", "yoichi", "-t", "takeda", "--redirect-to", "kenji"), "not one of ito's models"),
])
def test_refusals_exit_1_with_the_clause_and_nothing_spent(temple, tmp_path, args, needle):
    """A refused attack (zone of control, no sight, not the active side, a bad nomination): one line naming
    the clause, exit 1, the scenario file untouched and no --out written."""
    before = digest(temple)
    after = tmp_path / "after.yaml"
    proc = run("resolve", str(temple), *args, "--seed", "1", "--out", str(after), ok=1, columns=50)
    assert needle in proc.stderr and "[BU-" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert digest(temple) == before and not after.exists()


@pytest.mark.parametrize(("patch", "needle"), [
    (("rcp: 3", "rcp: 1000000"), "units[0].rcp"),
    (("base: 30", "base: 35"), "units[0].base"),
    (("wounds: {boxes: 4}", "wounds: {boxes: 4, marked: 4}"), "removed [BU-7.3]"),
    (("position: [0.5, 8]", "position: [0.5, 13.5]"), "overlaps"),
    (("kind: obscuring", "kind: forest"), "terrain[0].kind"),
])
def test_bad_scenarios_name_the_path(temple, patch, needle):
    temple.write_text(temple.read_text().replace(*patch, 1))
    proc = run("check", str(temple), "-a", "yoichi", "-t", "takeda", ok=2)
    assert needle in proc.stderr and str(temple) in proc.stderr


def test_a_hostile_table_is_refused_up_front(tmp_path):
    """Thousands of terrain vertices are refused when the file is read, before any sight is judged."""
    comb = [[i / 10, 5 + (i % 2)] for i in range(250)] + [[25, 0], [0, 0]]
    pieces = "\n".join(f"  - {{id: t{i}, kind: obscuring, polygon: {comb}}}" for i in range(20))
    text = TEMPLE.read_text().replace("terrain:\n", "terrain:\n" + pieces + "\n", 1)
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    proc = run("check", str(path), "-a", "yoichi", "-t", "takeda", ok=2)
    assert "terrain: 5" in proc.stderr and "at most 4000" in proc.stderr


def test_the_misty_bridge_example_bu_5_6_and_bu_6_2():
    """The second example: a pool of -1 rolls one die and the ogre gains two (BU-5.6); the file's option caps
    supporting dice at 2 (BU-6.2); the archer sees the acolyte along a line off the centres (BU-2.1)."""
    bu, bridge = load_battle(example_path("mist-bridge.yaml"))
    plan = bu.plan(bridge, Attack("cultist", "ogre"))
    assert (plan.attack_pool, plan.attack_dice, plan.defense_pool, plan.defense_dice) == (-1, 1, 1, 3)
    assert plan.supporting_dice_cap == 2 and plan.wound_roll_modifier == 1  # armour piercing: armour 2 ignored
    seen = bu.plan(bridge, Attack("archer", "acolyte")).line_of_sight
    assert seen["clear"] and seen["line"]["from"] != [-4.0, -1.0]
