"""Arcane Legions' numbers as options (house rules): each default is the rules' value, each changes exactly the
clause it belongs to, explanations name it beside the rules' value, bad values are refused naming the path, and a
written battle keeps it. The rules: ../shared/rules/arcane-legions.md."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from rangefire.core import Attack, EnteredSource
from rangefire.core.options import house_rules, option_rows
from rangefire.rulesets import battle_from_mapping, load_battle
from rangefire.rulesets.arcane_legions.orders import order_odds
from rangefire.rulesets.arcane_legions.sampling import sample
from rangefire.rulesets.arcane_legions.scenario import Options
from rangefire.rulesets.arcane_legions.scene import scene
from rangefire.scenario.paths import parse_setting
from tests.arcane_legions.test_rules import AL, BLUE, WHITE, A, T, battle, square, unit
from tests.commands import assert_setting_refused, run
from tests.oracles import brute_lineup, chi_square

FORD = Path(__file__).resolve().parents[2] / "src" / "rangefire" / "examples" / "ford.yaml"
RED = {"icons": ["red"]}

#: The rules' numbers, written from the rules' text (not from the code), each with its clause.
RULES: dict[str, tuple[Any, str]] = {
    "options.corner_contact_is_adjacent": (False, "AL-1.4"),   # "(Option corner_contact_is_adjacent = false.)"
    "options.range_steps": (6, "AL-3.1"),                      # "within **6 steps**"
    "options.touching_hinders": (False, "AL-4.4"),             # "(Option touching_hinders = false.)"
    "options.cost.sortie": (1, "AL-5.1"),                      # "1 order point for a sortie"
    "options.cost.formation": (2, "AL-5.1"),                   # "2 for a formation"
    "options.push_figures": (1, "AL-5.2"),                     # "one figure is removed as an extra cost"
    "options.side_penalty.ranged.blue": (0, "AL-5.3"),         # -3 only "from a side that is not blue"
    "options.side_penalty.ranged.red": (3, "AL-5.3"),          # "**-3** when attacking from a side that is not blue"
    "options.side_penalty.ranged.grey": (3, "AL-5.3"),
    "options.side_penalty.close.blue": (0, "AL-8.1"),          # "-3 only when attacking from a grey side"
    "options.side_penalty.close.red": (0, "AL-8.1"),
    "options.side_penalty.close.grey": (3, "AL-8.1"),
    "options.side_penalty.defense.blue": (0, "AL-5.4"),        # "**-3** when the attacked side is grey"
    "options.side_penalty.defense.red": (0, "AL-5.4"),
    "options.side_penalty.defense.grey": (3, "AL-5.4"),
    "options.melee_penalty": (1, "AL-5.3"),                    # "**-1** when the target is adjacent to a unit friendly"
    "options.hindrance_penalty": (1, "AL-5.3"),                # "**-1** per hindrance"
    "options.refuse_zero_dice": (False, "AL-5.5"),             # "(Option refuse_zero_dice = false.)"
    "options.reroll_attack_at_most": (0, "AL-6.3"),            # a house rule: rerolls by abilities alone
    "options.reroll_defense_at_most": (0, "AL-6.3"),           # a house rule: rerolls by abilities alone
    "options.critical.sixes": (3, "AL-6.2"),                   # "three or more 6s"
    "options.critical.hits": (1, "AL-6.2"),                    # "scores 1 extra hit"
    "options.crit_per_three_sixes": (False, "AL-6.2"),         # "(Option crit_per_three_sixes = false ...)"
    "options.phantom": (2, "AL-6.4"),                          # "a **phantom die of value 2**"
    "options.max_move_steps": (None, "AL-10.2"),               # "these rules set no allowance ... default none"
}


# -- (a) the defaults are the rules' values ---------------------------------------------------------
def test_every_option_defaults_to_the_rules_value_with_its_clause():
    """Every option's default and clause equal the rules' text (AL-1.4 to AL-8.1), no option missing or extra."""
    rows = {row.path: (row.default, row.clause) for row in option_rows(Options)}
    assert rows == RULES
    assert house_rules(Options()) == []


def test_the_rules_examples_hold_under_the_default_options():
    """AL-6.1, AL-6.2, AL-6.4: a die beats a phantom 2 on 3+, three 6s of three dice make a critical."""
    nothing = [{"icons": ["red"]}]  # no white icon: no defense dice
    plan = AL.plan(battle(A(slots=[BLUE]), T(slots=nothing)), Attack("A", "T"))
    assert order_odds(plan)[0]["hits"].probability(1) == Fraction(2, 3)
    three = AL.plan(battle(A(), T(slots=nothing)), Attack("A", "T"))
    assert order_odds(three)[1]["critical"] == Fraction(1, 216)


# -- (b) a changed option changes exactly its clause -------------------------------------------------
KEYS = ("verdict", "cost", "sides", "sight", "attack_dice", "defense_dice", "hits", "defender_hits", "critical")
FRONTS = {"from_side": "front", "to_side": "front"}


def signature(b: Any, attack: Attack) -> dict[str, Any]:
    """What an order comes to, clause by clause: legal or the refusing clauses; the cost [AL-5.1]; the sides
    [AL-3.4]; the line of sight [AL-4]; the dice [AL-5.3, AL-5.4, AL-8.1]; the exact hits, defender hits
    [AL-6.4 to AL-6.6] and the critical's probability [AL-6.2]."""
    checked = AL.check(b, attack)
    if checked.plan is None:
        return dict.fromkeys(KEYS) | {"verdict": tuple(r.clause for r in checked.refusals)}
    plan = checked.plan
    outcomes, events = order_odds(plan)
    return {"verdict": "legal", "cost": plan.cost, "sides": (plan.from_side, plan.to_side),
            "sight": (plan.sight, plan.hindered_by), "attack_dice": plan.attack_dice,
            "defense_dice": plan.defense_dice, "hits": outcomes["hits"].probabilities(),
            "defender_hits": outcomes["defender_hits"].probabilities() if "defender_hits" in outcomes else None,
            "critical": events["critical"]}


def _order(attacker: str = "A", target: str = "T", **choices: Any) -> Attack:
    return Attack(attacker, target, tuple(choices.items()))


NEAR = unit("N", "blue", (-3, 3), 180, slots=[WHITE])
CORNER = unit("C", "blue", (1, 1), 0, slots=[WHITE])  # touches A's base at one corner only
SPIKES = tuple({"id": f"spike{i}", "kind": "hindering", "polygon": poly} for i, poly in enumerate([
    [[-0.5, 3], [-1.5, 2.5], [-1.5, 3.5]], [[0, 3], [0.2, 2.9], [0.2, 3.1]], [[0.5, 3], [1.5, 2.5], [1.5, 3.5]]]))
WOODS = ({"id": "woods", "kind": "hindering", "polygon": square(-5, 1.5, 5, 2)},)
DICE = ("attack_dice", "hits", "critical")
EVERYTHING = set(KEYS) - {"defender_hits"}  # a ranged order where the defender does not score


def _colours(front: str) -> tuple[str, str, str, str]:
    return (front, "grey", "grey", "grey")


def _close(front: str) -> dict[str, Any]:
    """A in contact with T front to front, five red icons, attacking from a side of colour ``front`` [AL-8.1]."""
    return {"units": (A(slots=[RED] * 5, colours=_colours(front)), T(1, slots=[WHITE] * 2)),
            "orders": {"A>T": _order(order="close", **FRONTS)}}


#: For every option: another valid value, a battle where its clause applies, the orders looked at, and for each
#: order what must change (every other key of every order must stay as it was).
CASES: dict[str, tuple[Any, dict[str, Any], dict[str, set[str]]]] = {
    "options.corner_contact_is_adjacent": (True, {"units": (A(), T(4), CORNER, unit("B", "red", (-3, 0))),
                                                  "orders": {"A>T": _order(), "B>T": _order("B")}},
                                           {"A>T": EVERYTHING}),
    "options.range_steps": ("6.5", {"units": (A(), T("7.5"), NEAR), "orders": {"A>T": _order(), "A>N": _order(
        target="N")}}, {"A>T": EVERYTHING}),
    "options.touching_hinders": (True, {"units": (A(), T(7)), "terrain": SPIKES, "orders": {"A>T": _order()}},
                                 {"A>T": {"sight", *DICE}}),
    "options.cost.sortie": (2, {"units": (A(), T(4)), "orders": {"A>T": _order()}}, {"A>T": {"cost"}}),
    "options.cost.formation": (3, {"units": (A(base="formation"), T(4), unit("B", "red", (-4, 0))),
                                   "orders": {"A>T": _order(), "B>T": _order("B")}}, {"A>T": {"cost"}}),
    "options.push_figures": (2, {"units": (A(slots=[BLUE] * 5, ranged_orders_this_turn=1), T(4)),
                                 "orders": {"A>T": _order(**FRONTS)}}, {"A>T": set(DICE)}),
    **{f"options.side_penalty.ranged.{c}": (1, {"units": (A(slots=[BLUE] * 5, colours=_colours(c)), T(4)),
                                                "orders": {"A>T": _order(**FRONTS)}}, {"A>T": set(DICE)})
       for c in ("blue", "red", "grey")},
    **{f"options.side_penalty.close.{c}": (1, _close(c), {"A>T": {*DICE, "defender_hits"}})
       for c in ("blue", "red", "grey")},
    **{f"options.side_penalty.defense.{c}": (1, {"units": (A(), T(4, slots=[WHITE] * 5, colours=(c,) * 4)),
                                                 "orders": {"A>T": _order(**FRONTS)}},
                                             {"A>T": {"defense_dice", "hits"}})
       for c in ("blue", "red", "grey")},
    "options.melee_penalty": (2, {"units": (A(slots=[BLUE] * 5), T(4), unit("F", "red", (1, 4), 0, slots=[RED])),
                                  "orders": {"A>T": _order(**FRONTS)}}, {"A>T": set(DICE)}),
    "options.hindrance_penalty": (2, {"units": (A(slots=[BLUE] * 5), T(4)), "terrain": WOODS,
                                      "orders": {"A>T": _order(**FRONTS)}}, {"A>T": set(DICE)}),
    "options.refuse_zero_dice": (True, {"units": (A(colours=("red", "grey", "grey", "grey")), T(4),
                                                  unit("B", "red", (-3, 0))),
                                        "orders": {"A>T": _order(**FRONTS), "B>T": _order("B")}},
                                 {"A>T": EVERYTHING}),
    "options.reroll_attack_at_most": (2, {"units": (A(), T(4)), "orders": {"A>T": _order()}}, {"A>T": {"hits"}}),
    "options.reroll_defense_at_most": (2, {"units": (A(), T(4, slots=[WHITE] * 3)), "orders": {"A>T": _order()}},
                                       {"A>T": {"hits"}}),
    "options.critical.sixes": (2, {"units": (A(), T(4)), "orders": {"A>T": _order()}}, {"A>T": {"hits", "critical"}}),
    "options.critical.hits": (2, {"units": (A(), T(4)), "orders": {"A>T": _order()}}, {"A>T": {"hits"}}),
    "options.crit_per_three_sixes": (True, {"units": (A(slots=[BLUE] * 6), T(4)), "orders": {"A>T": _order()}},
                                     {"A>T": {"hits"}}),
    "options.phantom": (3, {"units": (A(), T(4)), "orders": {"A>T": _order()}}, {"A>T": {"hits"}}),
    # moves only [AL-10.2]: no order changes (tests/arcane_legions/test_moves.py has what it refuses)
    "options.max_move_steps": (3, {"units": (A(), T(4)), "orders": {"A>T": _order()}}, {}),
}


def test_every_option_has_a_case():
    assert set(CASES) == set(RULES)


def _battle_of(case: dict[str, Any], settings: tuple[str, ...] = ()) -> Any:
    data = {"ruleset": "arcane-legions", "players": {"red": {"order_points": 8}, "blue": {"order_points": 8}},
            "units": list(case["units"]), "terrain": list(case.get("terrain", ()))}
    return battle_from_mapping(data, settings=[parse_setting(s) for s in settings])[1]


@pytest.mark.parametrize("path", list(CASES))
def test_a_changed_option_changes_exactly_its_clause(path):
    """Each option set away from the rules' value changes what its clause governs, and nothing else of the same
    orders; ``house_rules`` names it with its clause."""
    value, case, changes = CASES[path]
    rules, house = _battle_of(case), _battle_of(case, (f"{path}={value}",))
    for label, order in case["orders"].items():
        before, after = signature(rules, order), signature(house, order)
        changed = {key for key in KEYS if before[key] != after[key]}
        assert changed == changes.get(label, set()), (label, before, after)
    [rule] = house_rules(house.options)
    assert (rule.path, rule.clause) == (path, RULES[path][1])
    assert rule.default == RULES[path][0] and rule.value != rule.default


def test_a_push_removes_the_figures_the_option_says():
    """AL-5.2: with push_figures 2 a second order removes two figures, first in casualty order, named beside the
    rules' one; a unit left with no more than two figures cannot be pushed."""
    b = _battle_of({"units": (A(slots=[BLUE] * 4, ranged_orders_this_turn=1), T(4))}, ("options.push_figures=2",))
    plan = AL.plan(b, _order())
    assert plan.push and plan.attack_dice == 2
    note = next(n.text for n in plan.notes if n.clause == "AL-5.2")
    assert "its figures in slots 3, 2 removed (house rule; the rules say 1)" in note
    after = AL.apply(b, AL.resolve(plan, EnteredSource({"attack": [1, 1], "defense": [6, 6]})))
    assert after.unit("A").figures == 2 and after.unit("A").pushed
    few = _battle_of({"units": (A(slots=[BLUE] * 2, ranged_orders_this_turn=1), T(4))}, ("options.push_figures=2",))
    [refusal] = AL.check(few, _order()).refusals
    assert refusal.clause == "AL-5.2" and "(a push removes 2 (house rule; the rules say 1))" in refusal.reason


# -- the lineup's numbers reach the exact odds, the sampler and the rolled order alike ----------------
HOUSE = ("options.phantom=4", "options.critical.sixes=2", "options.critical.hits=2")


def test_the_exact_lineup_takes_the_options_as_brute_force_does():
    """AL-6.2, AL-6.4: phantom 4, a critical on two 6s scoring 2 extra hits: every die enumerated agrees."""
    for per_set in (False, True):
        settings = (*HOUSE, f"options.crit_per_three_sixes={str(per_set).lower()}")
        plan = AL.plan(_battle_of({"units": (A(slots=[BLUE] * 4), T(4, slots=[WHITE]))}, settings), _order())
        assert (plan.phantom, plan.crit_sixes, plan.crit_hits) == (4, 2, 2)
        expected = brute_lineup(4, 1, crit="per-set" if per_set else "one", phantom=4, crit_sixes=2, crit_hits=2)
        assert order_odds(plan)[0]["hits"].probabilities() == expected


def test_the_sampler_uses_the_same_option_values_as_the_exact_lineup():
    """AL-6.2, AL-6.4: the Monte Carlo sample of a plan under house rules matches the exact odds of the same plan
    (chi-square), and not the rules' odds; the critical's frequency matches its exact probability."""
    settings = (*HOUSE, "options.crit_per_three_sixes=true")
    plan = AL.plan(_battle_of({"units": (A(slots=[BLUE] * 5), T(4, slots=[WHITE] * 2))}, settings), _order())
    outcomes, events = order_odds(plan)
    n = 60_000
    drawn = sample(plan, n, seed=7)
    seen = Counter(int(v) for v in drawn["hits"])
    assert chi_square(seen, outcomes["hits"].probabilities(), n) > 1e-3
    rules_plan = AL.plan(_battle_of({"units": (A(slots=[BLUE] * 5), T(4, slots=[WHITE] * 2))}), _order())
    rules_hits = order_odds(rules_plan)[0]["hits"].probabilities()
    assert set(seen) - set(rules_hits) or chi_square(Counter({k: v for k, v in seen.items() if k in rules_hits}),
                                                     rules_hits, sum(v for k, v in seen.items()
                                                                     if k in rules_hits)) < 1e-6
    assert abs(drawn["critical"].mean() - float(events["critical"])) < 0.01


def test_a_rolled_order_follows_the_house_rules():
    """AL-6.2, AL-6.4: two 6s make a critical of 2 extra hits; a lone die meets a phantom 4."""
    b = _battle_of({"units": (A(), T(4, slots=[WHITE]))}, HOUSE)
    r = AL.resolve(AL.plan(b, _order()), EnteredSource({"attack": [6, 6, 4], "defense": [6]}))
    # 6 = 6; 6 > phantom 4; 4 = phantom 4; plus the critical's 2
    assert (r.outcome.lineup_hits, r.outcome.hits, r.outcome.critical) == (1, 3, True)
    text = {line.clause: line.text for line in r.log}
    assert "(house rule; the rules say 3)" in text["AL-6.2"] and "1 critical, 2 extra hits" in text["AL-6.2"]
    assert "of 4 (house rule; the rules say 2) never score" in text["AL-6.4"] and "4=(4)" in text["AL-6.4"]


# -- (c) explanations name the house rule beside the rules' value ---------------------------------
@pytest.mark.parametrize(("setting", "clause", "says"), [
    ("options.side_penalty.defense.grey=2", "AL-5.4", "-2 the attacked right side is grey (defense dice) (house rule; "
                                                      "the rules say -3)"),
    ("options.hindrance_penalty=2", "AL-5.3", "1 hindrance on the line of sight, -2 each (house rule; the rules say "
                                              "-1)"),
    ("options.cost.formation=3", "AL-5.1", "a formation's order 3 (house rule; the rules say 2)"),
    ("options.range_steps=7.5", "AL-3.4", "4.03 steps, within the range of 7.5 (house rule; the rules say 6)"),
    ("options.phantom=3", "AL-6.4", "phantom dice of 3 (house rule; the rules say 2)"),
    ("options.critical.sixes=2", "AL-6.2", "on 2 (house rule; the rules say 3) or more 6s"),
])
def test_check_explains_a_house_rule_beside_the_rules_value(setting, clause, says):
    """check's notes and modifiers name a value a house rule sets, with its clause and the rules' value."""
    data = json.loads(run("check", str(FORD), "-a", "archers", "-t", "orc-band", "--set", setting, "--json").stdout)
    plan = data["plan"]
    lines = [(m["clause"], f"{m['delta']:+d} {m['reason']}") for m in plan["modifiers"]]
    lines += [(n["clause"], n["text"]) for n in plan["notes"]]
    assert any(c == clause and says in text for c, text in lines), lines
    assert [h["path"] for h in data["house_rules"]] == [setting.split("=")[0]]
    shown = run("check", str(FORD), "-a", "archers", "-t", "orc-band", "--set", setting).stdout
    assert "house rule; the rules say" in shown


def test_the_rules_as_written_add_no_notes():
    """Under the rules' values no explanation mentions a house rule."""
    data = json.loads(run("check", str(FORD), "-a", "archers", "-t", "orc-band", "--json").stdout)
    assert "house rule" not in json.dumps(data) and data["house_rules"] == []


def test_the_drawing_quotes_the_battles_range():
    """AL-3.1: the reach drawn is the battle's range, and the legend says so beside the rules' 6 steps."""
    _, b = load_battle(FORD, [parse_setting("options.range_steps=7.5")])
    drawn = scene(b, AL.check(b, Attack("archers", "orc-band")))
    texts = [entry.text for entry in drawn.legend] + [getattr(item, "title", "") for item in drawn.items]
    assert any("7.5 steps (house rule; the rules say 6) from the attacker's base" in t for t in texts), texts
    plain = scene(load_battle(FORD)[1], AL.check(load_battle(FORD)[1], Attack("archers", "orc-band")))
    assert any(entry.text.startswith("6 steps from the attacker's base") for entry in plain.legend)
    assert {"grey side (-3 dice)", "hindering terrain: -1 die for each crossed [AL-4.3]"} <= {
        entry.text for entry in plain.legend}


def test_the_drawing_quotes_the_battles_penalties():
    """AL-4.3, AL-5.3, AL-5.4: the legend's side colours and hindering terrain quote the battle's penalties,
    each beside the rules' value."""
    sets = ("options.side_penalty.ranged.grey=2", "options.hindrance_penalty=2")
    _, b = load_battle(FORD, [parse_setting(s) for s in sets])
    texts = {entry.text for entry in scene(b, AL.check(b, Attack("archers", "orc-band"))).legend}
    assert "grey side (dice: -2 shooting (house rule; the rules say -3), -3 in close combat, -3 attacked)" in texts
    assert "hindering terrain: -2 dice for each crossed (house rule; the rules say -1) [AL-4.3]" in texts


# -- (d) bad values are refused naming the path ---------------------------------------------------
@pytest.mark.parametrize(("setting", "says"), [
    ("options.range_steps=0", "options.range_steps: must be more than 0 and at most 100 steps"),
    ("options.range_steps=1e9", "options.range_steps"),
    ("options.side_penalty.ranged.red=-1", "options.side_penalty.ranged.red"),
    ("options.side_penalty.ranged.purple=1", "options.side_penalty.ranged.purple"),
    ("options.critical.sixes=0", "options.critical.sixes"),
    ("options.critical.hits=many", "options.critical.hits"),
    ("options.phantom=2.5", "options.phantom"),
    ("options.cost.sortie=1000", "options.cost.sortie"),
    ("options.melee_penalty=true", "options.melee_penalty"),
])
def test_a_bad_value_exits_2_naming_the_path(setting, says):
    assert_setting_refused(FORD, ("-a", "archers", "-t", "orc-band"), setting, says)


# -- (e) a written battle keeps the house rules -----------------------------------------------------
def test_house_rules_round_trip_through_a_written_battle(tmp_path):
    """resolve --out writes the rulings' options and, of the numbers, only those a house rule sets; read back,
    the battle has the same options."""
    out = tmp_path / "after.yaml"
    sets = ("options.range_steps=7.5", "options.side_penalty.defense.grey=1", "options.critical.hits=2")
    args = [a for s in sets for a in ("--set", s)]
    run("resolve", str(FORD), "-a", "archers", "-t", "orc-band", "--seed", "1", *args, "--out", str(out))
    written = yaml.safe_load(out.read_text())["options"]
    assert written == {"corner_contact_is_adjacent": False, "range_steps": 7.5, "touching_hinders": False,
                       "side_penalty": {"defense": {"grey": 1}}, "refuse_zero_dice": False,
                       "critical": {"hits": 2}, "crit_per_three_sixes": False}
    _, again = load_battle(out)
    _, first = load_battle(FORD, [parse_setting(s) for s in sets])
    assert again.options == first.options
    assert [(h.path, h.value) for h in house_rules(again.options)] == [
        ("options.range_steps", Fraction(15, 2)), ("options.side_penalty.defense.grey", 1),
        ("options.critical.hits", 2)]


# -- a duel plays the battle's numbers too ----------------------------------------------------------
def test_a_duels_exchanges_follow_the_house_rules():
    """AL-6.2, AL-6.4, AL-7.2: under phantom 4 and a critical of 2 extra hits on two 6s, the exact exchanges equal
    every roll played out (and differ from the rules' own), and the sampled exchanges agree by chi-square."""
    import numpy as np

    from tests.duel_oracle import every_roll

    units = (A(slots=[{"icons": ["blue", "blue", "blue"]}]),
             T(4, slots=[{"icons": ["white"], "hp": 3}, {"icons": ["blue"], "hp": 2}]))
    house, rules = _battle_of({"units": units}, HOUSE), _battle_of({"units": units})

    def text(b: Any) -> str:
        return json.dumps(AL.dump(b), sort_keys=True)

    def exact(b: Any) -> dict[str, Fraction]:
        return {text(after): p for p, after in AL.exchanges(b, _order())}

    brute: dict[str, Fraction] = {}
    for p, after in every_roll(AL, house, _order()):
        brute[text(after)] = brute.get(text(after), Fraction(0)) + p
    assert exact(house) == brute and exact(house) != exact(rules)
    n = 20_000
    seen = Counter({text(after): c for c, after in AL.sampled_exchanges(house, _order(), n,
                                                                        np.random.default_rng(3))})
    assert chi_square(seen, exact(house), n) > 1e-3
