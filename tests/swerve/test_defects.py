"""swerve defects found by an independent audit and a fuzzing run, each named after the defect: the launcher's
own cost (SW-2.5), cards in a hand acting (SW-1.5), abilities' costs and missing effects (SW-1.6), malformed
hands, the best-play search's limit, and the log's grammar."""

from __future__ import annotations

import contextlib
import json
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from rangefire.core import Attack, LimitError, ScenarioError, SeededSource
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.swerve import combat as combat_module
from rangefire.rulesets.swerve import search as search_module
from tests.test_cli import run

SW = find_ruleset("swerve")


def scenario(*cards: dict[str, Any], deck: tuple[int, ...] = (0, 5, 10), order: str = "unknown",
             hands: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return {"ruleset": "swerve",
            "players": {"jason": {"deck": list(deck), "deck_order": order}, "tyler": {"deck": [0]}},
            "cards": list(cards), "hands": hands or {}}


def battle(*cards: dict[str, Any], **kw: Any) -> Any:
    return battle_from_mapping(scenario(*cards, **kw))[1]


#: The audit's launcher: accuracy 20 and a [Combat] "+10 accuracy" ability paid like its ranged text.
LAUNCHER = {"id": "launcher", "owner": "jason", "type": "weapon", "mission": "canyon", "timing": "combat",
            "ranged": {"accuracy": 20, "damage": 1, "cost": "swerve-self"}, "effect": {"accuracy": 10}}
SWERVED_BUGGY = {"id": "buggy", "owner": "tyler", "type": "vehicle", "speed": 25, "swerved": True,
                 "mission": "canyon"}
UNIT = {"id": "unit", "owner": "tyler", "type": "unit", "speed": 20, "mission": "canyon"}


def refusals(b: Any, attacker: str, target: str | None, *actions: str) -> list[tuple[str, str]]:
    checked = SW.check(b, Attack(attacker, target, (("actions", actions),)))
    assert not checked.is_legal, checked
    return [(r.clause, r.reason) for r in checked.refusals]


# -- SW-2.5: the launcher pays its own cost once ---------------------------------------------------
def test_launcher_swerved_to_begin_cannot_use_its_own_swerve_this_ability_SW_2_5():
    """SW-2.5: the audit's repro: 20 + bonus against 25, deck 0, 5, 10 unknown: the attacker wins 1/3, not always
    (today the launcher used its own +10 after swerving to begin the combat)."""
    b = battle(LAUNCHER, SWERVED_BUGGY)
    odds = SW.odds(SW.plan(b, Attack("launcher", "buggy")))
    assert odds.events["attacker_wins"] == Fraction(1, 3)
    assert "attacker:use:launcher" not in odds.lines.best_line
    [(clause, reason)] = refusals(b, "launcher", "buggy", "attacker:use:launcher")
    assert clause == "SW-2.5" and "launcher" in reason


def test_launcher_with_cost_none_may_still_pay_its_own_ability_SW_2_5():
    """SW-2.5: a launcher whose cost is none stays unswerved, so its own swerve-this ability can be paid."""
    free = {**LAUNCHER, "ranged": {**LAUNCHER["ranged"], "cost": "none"}}
    odds = SW.odds(SW.plan(battle(free, SWERVED_BUGGY), Attack("launcher", "buggy")))
    assert odds.events["attacker_wins"] == 1
    assert odds.lines.best_line[0] == "attacker:use:launcher"


def test_launcher_with_cost_none_is_not_written_back_swerved_SW_2_5(tmp_path):
    """SW-2.5: `resolve --out` wrote a launcher whose cost is none back swerved."""
    free = {"id": "launcher", "owner": "jason", "type": "weapon", "mission": "canyon",
            "ranged": {"accuracy": 20, "damage": 1, "cost": "none"}}
    path = tmp_path / "free.yaml"
    path.write_text(yaml.safe_dump(scenario(free, UNIT)))
    out = tmp_path / "after.yaml"
    run("resolve", str(path), "-a", "launcher", "-t", "unit", "--actions", "attacker:pass,defender:pass",
        "--seed", "1", "--out", str(out), "--json")
    after = {c["id"]: c for c in yaml.safe_load(out.read_text())["cards"]}
    assert after["launcher"].get("swerved", False) is False
    res, b = SW.play(battle(free, UNIT), Attack("launcher", "unit", (("actions", ("attacker:pass", "defender:pass")),)),
                     SeededSource(1))
    assert not b.card("launcher").swerved
    assert res.log[0].clause == "SW-2.5" and "stays unswerved" in res.log[0].text


def test_launcher_paying_swerve_this_is_written_back_swerved_SW_2_5():
    """SW-2.5: the usual cost: the launcher is swerved from then on."""
    res, b = SW.play(battle(LAUNCHER, SWERVED_BUGGY), Attack("launcher", "buggy", (("actions", (
        "attacker:pass", "defender:pass")),)), SeededSource(1))
    assert b.card("launcher").swerved and res.log[0].clause == "SW-2.1"


# -- SW-1.5: only cards in play act ----------------------------------------------------------------
def test_vehicle_in_hand_cannot_lend_its_speed_ability_SW_1_5():
    """SW-1.5: a vehicle in the defender's hand lent its speed ability; it is not in play."""
    gun = {"id": "gun", "owner": "jason", "type": "weapon", "mission": "canyon",
           "ranged": {"accuracy": 20, "damage": 1}}
    held = {"id": "jeep", "owner": "tyler", "type": "vehicle", "speed": 10, "timing": "combat",
            "effect": {"speed": 30}}
    b = battle(gun, SWERVED_BUGGY, held, deck=(10,), order="known", hands={"tyler": ["jeep"]})
    [(clause, reason)] = refusals(b, "gun", "buggy", "attacker:pass", "defender:use:jeep")
    assert clause == "SW-1.5" and "hand" in reason
    odds = SW.odds(SW.plan(b, Attack("gun", "buggy")))
    assert odds.events["attacker_wins"] == 1  # 20 + 10 against 25: the jeep cannot help
    assert not any("jeep" in a for line in odds.lines.lines for a in line.actions)


def test_launcher_in_hand_cannot_fire_at_a_unit_in_hand_SW_1_5():
    """SW-1.5: a launcher in a hand fired at a unit in a hand; neither is in play."""
    gun = {"id": "gun", "owner": "jason", "type": "weapon", "ranged": {"accuracy": 20, "damage": 1}}
    held_unit = {"id": "held", "owner": "tyler", "type": "unit", "speed": 5}
    b = battle(gun, held_unit, UNIT, hands={"jason": ["gun"], "tyler": ["held"]})
    assert [c for c, _ in refusals(b, "gun", "held")] == ["SW-1.5"]
    [(clause, reason)] = refusals(b, "gun", "unit")  # the launcher alone out of play
    assert clause == "SW-1.5" and "never begins combat" in reason and "jason's hand" in reason
    gun_in_play = {**gun, "id": "gun2", "mission": "canyon"}
    b = battle(gun_in_play, held_unit, hands={"tyler": ["held"]})
    [(clause, reason)] = refusals(b, "gun2", "held")
    assert clause == "SW-1.5" and "never a target" in reason


def test_a_card_neither_in_a_hand_nor_at_a_mission_does_not_act_SW_1_5():
    """SW-1.5: in play means at a mission."""
    gun = {"id": "gun", "owner": "jason", "type": "weapon", "ranged": {"accuracy": 20, "damage": 1}}
    [(clause, reason)] = refusals(battle(gun, UNIT), "gun", "unit")
    assert clause == "SW-1.5" and "mission" in reason


def test_a_card_both_in_a_hand_and_at_a_mission_is_a_scenario_error_SW_1_5():
    with pytest.raises(ScenarioError, match=r"hands\.tyler\[0\]: 'unit' is at mission 'canyon'.*SW-1\.5"):
        battle(LAUNCHER, UNIT, hands={"tyler": ["unit"]})


# -- SW-1.6: activated abilities' costs, and effects required --------------------------------------
SPOTTER = {"id": "spotter", "owner": "jason", "type": "unit", "speed": 5, "mission": "canyon", "swerved": True,
           "timing": "combat", "effect": {"accuracy": 10}}
GUN = {"id": "gun", "owner": "jason", "type": "weapon", "mission": "canyon", "ranged": {"accuracy": 20, "damage": 1}}


def test_swerved_card_cannot_pay_its_ability_SW_1_6():
    """SW-1.6: an ability whose cost ("swerve this") cannot be paid cannot be used."""
    [(clause, reason)] = refusals(battle(GUN, UNIT, SPOTTER), "gun", "unit", "attacker:use:spotter")
    assert clause == "SW-1.6" and "swerved" in reason


def test_ability_with_cost_none_is_usable_while_swerved_and_leaves_it_unswerved_SW_1_6():
    """SW-1.6: `cost: none` on the card: the ability is used without swerving it (once in a combat)."""
    free = {**SPOTTER, "cost": "none"}
    b = battle(GUN, UNIT, {**free, "swerved": False}, deck=(0,), order="known")
    res, after = SW.play(b, Attack("gun", "unit", (("actions", ("attacker:use:spotter", "defender:pass",
                                                               "attacker:pass")),)), SeededSource(1))
    assert res.outcome.accuracy == 30 and not after.card("spotter").swerved
    assert SW.check(battle(GUN, UNIT, free), Attack("gun", "unit", (("actions", ("attacker:use:spotter",)),))).is_legal
    [(clause, _)] = refusals(b, "gun", "unit", "attacker:use:spotter", "defender:pass", "attacker:use:spotter")
    assert clause == "SW-1.6"


@pytest.mark.parametrize("card", [
    {"id": "smoke", "owner": "tyler", "type": "tactic", "timing": "combat"},
    {"id": "smoke", "owner": "tyler", "type": "unit", "mission": "canyon", "timing": "combat"},
    {"id": "smoke", "owner": "tyler", "type": "vehicle", "mission": "canyon", "cost": "none"},
])
def test_tactic_or_ability_without_effect_refused_when_read_SW_1_6(card, tmp_path):
    """SW-1.6: a tactic timed combat without an effect crashed `odds` and `check` (AssertionError)."""
    data = scenario(GUN, UNIT, card, hands={"tyler": ["smoke"]} if card["type"] == "tactic" else {})
    with pytest.raises(ScenarioError, match=r"cards\[2\]\.effect: is required .*\[SW-1\.6\]"):
        battle_from_mapping(data)
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    for verb in ("odds", "check"):
        proc = run(verb, str(path), "-a", "gun", "-t", "unit", ok=2)
        assert "cards[2].effect: is required" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


# -- hands of the wrong shape: our own errors, never a traceback -----------------------------------
@pytest.mark.parametrize("hands", [
    {"tyler": [["unit"]]}, {"tyler": [{"id": "unit"}]}, {"tyler": [None, 3, 2.5, True]},
    {"tyler": {"unit": 1}}, {"tyler": "unit"}, ["tyler"], "tyler", {"tyler": [[]]}, {3: ["unit"]}, {None: [1.5]},
    {(1, 2): ["unit"]},
])
def test_hands_entries_given_as_list_or_mapping_are_scenario_errors(hands):
    """Hands entries as a list or mapping raised TypeError (unhashable) in the checks run before validation."""
    data = scenario(GUN, UNIT)
    data["hands"] = hands
    with pytest.raises(ScenarioError, match=r"hands"):
        battle_from_mapping(data)


def test_players_with_keys_that_are_not_text_are_scenario_errors():
    data = scenario(GUN, UNIT)
    data["players"] = {1: {"deck": []}, (2, 3): {}, "jason": {"deck": []}}
    with pytest.raises(ScenarioError, match=r"players"):
        battle_from_mapping(data)


anything = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                      max_size=3), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["hands", "players", "cards", "hand", "card", "owner", "id", "entry"]), anything)
def test_any_value_anywhere_the_raw_checks_look_gives_our_own_error(where, value):
    """Every check run before validation takes any value of any type: a battle or a ScenarioError."""
    data = scenario(GUN, UNIT, {"id": "smoke", "owner": "tyler", "type": "tactic", "timing": "combat",
                                "effect": {"speed": 5}}, hands={"tyler": ["smoke"]})
    if where in ("hands", "players", "cards"):
        data[where] = value
    elif where == "hand":
        data["hands"] = {"tyler": value}
    elif where == "entry":
        data["hands"] = {"tyler": [value]}
    elif where == "card":
        data["cards"][1] = value
    else:
        data["cards"][1] = {**data["cards"][1], where: value}
    with contextlib.suppress(ScenarioError):
        battle_from_mapping(data)


# -- the search's limit ----------------------------------------------------------------------------
def crowded_n(actions: int) -> dict[str, Any]:
    """A position with `actions` actions open: the target's swerve and usable tactics, alternately in each hand."""
    cards: list[dict[str, Any]] = [GUN, UNIT]
    hands: dict[str, list[str]] = {"jason": [], "tyler": []}
    for i in range(actions - 1):
        owner, stat = (("jason", "accuracy"), ("tyler", "speed"))[i % 2]
        cards.append({"id": f"t{i}", "owner": owner, "type": "tactic", "timing": "combat", "effect": {stat: i + 1}})
        hands[owner].append(f"t{i}")
    return scenario(*cards, deck=(0, 5, 10, 15), hands=hands)


def crowded(tactics: int) -> dict[str, Any]:
    """`tactics` usable tactics in each hand, as the audit measured them."""
    return crowded_n(2 * tactics + 1)


def forbid_search(monkeypatch: pytest.MonkeyPatch, why: str) -> None:
    def no_search(*_: Any) -> Any:
        raise AssertionError(why)
    for name in ("_search_uncached", "_exhaustive_uncached", "lines"):
        monkeypatch.setattr(combat_module.Combat, name, no_search)


def test_check_never_runs_the_best_play_search(monkeypatch):
    """`check` ran the exponential best-play search: it now checks the line given and nothing more."""
    forbid_search(monkeypatch, "check searched for best play")
    b = battle_from_mapping(crowded(8))[1]
    start = time.perf_counter()
    assert SW.check(b, Attack("gun", "unit")).is_legal
    assert SW.check(b, Attack("gun", "unit", (("actions", ("attacker:play:t0", "defender:pass")),))).is_legal
    assert time.perf_counter() - start < 1


#: Beyond the best-play search's bound: 400 actions open (the scenario allows 500 cards).
BEYOND = 400


def test_best_play_beyond_the_limit_is_refused_before_any_search(monkeypatch):
    """400 tactics open: refused at once with a LimitError naming the bound, before any search."""
    most = search_module.max_search_actions()
    assert most < BEYOND
    plan = SW.plan(battle_from_mapping(crowded_n(BEYOND))[1], Attack("gun", "unit"))
    forbid_search(monkeypatch, "searched before refusing")
    with pytest.raises(LimitError, match=rf"not searched with more than {most} actions open .*here {BEYOND}\)"):
        SW.odds(plan)
    with pytest.raises(LimitError, match=r"best play"):
        SW.resolve(plan, SeededSource(1))


def test_the_reference_search_keeps_its_own_bound(monkeypatch):
    """The exhaustive reference walks every set of cards: asked for explicitly, it refuses 17 actions open
    (8 tactics a hand ran past a minute) before any search, where best play answers them."""
    plan = SW.plan(battle_from_mapping(crowded(8))[1], Attack("gun", "unit"))
    assert plan.combat is not None
    start = plan.combat.start()
    assert plan.combat.value(start) == SW.odds(plan).events["attacker_wins"]
    forbid_search(monkeypatch, "searched before refusing")
    with pytest.raises(LimitError, match=r"not searched with more than 11 actions open .*here 17.* 4 combat bonuses"):
        plan.combat.value(start, exhaustive=True)
    with pytest.raises(LimitError, match=r"best play"):
        plan.combat.best_line(start, exhaustive=True)


def test_a_line_given_in_full_resolves_beyond_the_limit():
    """The limit is on the search only: a complete line of play needs none."""
    b = battle_from_mapping(crowded_n(BEYOND))[1]
    res, _ = SW.play(b, Attack("gun", "unit", (("actions", ("attacker:pass", "defender:pass")),)), SeededSource(1))
    assert res.outcome.speed == 20


def test_position_at_the_limit_answers():
    """A position at the bound is answered; one more action is refused. The reference's bound: 11 actions
    with a deck of 4 different bonuses, 10 with 200."""
    assert search_module.max_exhaustive_actions(4) == 11 and search_module.max_exhaustive_actions(200) == 10
    limit = search_module.max_search_actions()
    plan = SW.plan(battle_from_mapping(crowded_n(limit))[1], Attack("gun", "unit"))
    assert plan.combat is not None and plan.combat.search_size(plan.combat.start()) == limit
    start = time.perf_counter()
    SW.odds(plan)
    assert time.perf_counter() - start < 30  # a guard against a runaway, not a benchmark
    beyond = SW.plan(battle_from_mapping(crowded_n(limit + 1))[1], Attack("gun", "unit"))
    with pytest.raises(LimitError):
        SW.odds(beyond)


def trading(actions: int, cards: int) -> dict[str, Any]:
    """`crowded_n(actions)` with `cards` of the attacker's tactics trading accuracy for damage (+1 accuracy,
    -1 damage): the search weighs each choice of them as its own (accuracy, damage) pair."""
    data = crowded_n(actions)
    for card in [c for c in data["cards"] if c["type"] == "tactic" and c["owner"] == "jason"][:cards]:
        card["effect"] = {"accuracy": 1, "damage": -1}
    return data


def test_the_bound_counts_the_attackers_trades_of_accuracy_for_damage(monkeypatch):
    """SW-6.2: four tactics trading accuracy for damage make the search weigh up to 5 (accuracy, damage) pairs at
    each position, 5 times the work: the bound admits 157 actions open, not the 352 of cards that only help or
    hinder; 158 are refused before any search."""
    assert search_module.max_search_actions() > 300 and search_module.max_search_actions(5) == 157
    at = SW.plan(battle_from_mapping(trading(157, 4))[1], Attack("gun", "unit")).combat
    assert at is not None
    at.require_searchable(at.start())  # at the bound: searched
    beyond = SW.plan(battle_from_mapping(trading(158, 4))[1], Attack("gun", "unit"))
    forbid_search(monkeypatch, "searched beyond the bound")
    with pytest.raises(LimitError, match=r"more than 157 actions open .*here 158\) when the attacker's cards trade "
                                         r"accuracy against damage 5 ways"):
        SW.odds(beyond)


def test_cards_that_can_never_act_add_no_work_to_the_search(monkeypatch):
    """The bound counts the actions open; 400 cards in play whose abilities are timed Main (SW-3.5) were weighed
    again at every position searched (9 s of CPU time at the bound). They are weighed once, at the start."""
    calls = []
    refusal = combat_module.Combat.refusal

    def counted(self: Any, state: Any, action: Any) -> Any:
        calls.append(action)
        return refusal(self, state, action)

    monkeypatch.setattr(combat_module.Combat, "refusal", counted)
    work = []
    for idle in (0, 400):
        data = crowded_n(6)
        data["cards"] += [{"id": f"x{i}", "owner": "tyler", "type": "unit", "mission": "canyon", "timing": "main",
                           "effect": {"speed": 1}} for i in range(idle)]
        calls.clear()
        SW.odds(SW.plan(battle_from_mapping(data)[1], Attack("gun", "unit")))
        work.append(len(calls))
    assert work[1] - work[0] <= 3 * 400


def test_limit_is_exit_2_at_the_command_line(tmp_path):
    path = tmp_path / "crowded.json"
    path.write_text(json.dumps(crowded_n(BEYOND)))
    proc = run("odds", str(path), "-a", "gun", "-t", "unit", ok=2)
    assert "best play" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = run("check", str(path), "-a", "gun", "-t", "unit", "--json")
    assert json.loads(proc.stdout)["legal"] is True


# -- grammar ---------------------------------------------------------------------------------------
def test_one_idle_total_counts_for_nothing_singular():
    """The log said "speed count for nothing": one total counts, two count."""
    boost = {"id": "boost", "owner": "jason", "type": "tactic", "timing": "combat", "effect": {"speed": 5}}
    res, _ = SW.play(battle(GUN, UNIT, boost, hands={"jason": ["boost"]}), Attack("gun", "unit", (("actions", (
        "attacker:play:boost", "defender:pass", "attacker:pass")),)), SeededSource(1))
    text = next(line.text for line in res.log if "boost" in line.text)
    assert "(speed counts for nothing" in text


@pytest.mark.parametrize(("deck", "order", "shows"), [((5,), "known", "1 combat bonus:"),
                                                       ((0, 5), "unknown", "2 combat bonuses:")])
def test_limit_message_counts_one_bonus_singular(deck, order, shows):
    """One bonus is "1 combat bonus", not "1 different combat bonuses"."""
    data = crowded(8)
    data["players"]["jason"] = {"deck": list(deck), "deck_order": order}
    combat = SW.plan(battle_from_mapping(data)[1], Attack("gun", "unit")).combat
    assert combat is not None
    with pytest.raises(LimitError, match=shows):
        combat.value(combat.start(), exhaustive=True)


def test_sw_example_file_still_reads(tmp_path: Path):
    from rangefire.demo import example_path
    from rangefire.rulesets import load_battle

    for name in ("sawblade.yaml", "ambush.yaml"):
        load_battle(example_path(name))
