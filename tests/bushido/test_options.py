"""Bushido's house rules as data: every number of its tables an option with the rules' value as default
(BU-2.1 obscuring limit, BU-2.2 zone of control, BU-5.1 defense dice by band, BU-5.3/BU-5.4 modifiers, BU-5.7 cover
reach, BU-6.2 supporting dice, BU-6.3 ties, BU-7.2 wound chart, BU-8.1 one attack a turn, BU-9.2 the allowance of a
move); each changes exactly what its clause governs, is named beside the rules' value, is refused with its path when
bad, and is written back with the battle.

The set-up of tests/bushido/test_rules.py: shooter S (30 mm, RCP 3, a bow 6/12/18) at the origin, target T
(40 mm) ``edge`` inches up the table.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from rangefire.core import Attack
from rangefire.core.moves import Move
from rangefire.core.options import house_rules, option_rows
from rangefire.rulesets import battle_from_mapping, load_battle
from rangefire.rulesets.bushido.scenario import Options
from rangefire.rulesets.bushido.table import band, in_zone, sight
from rangefire.scenario.paths import parse_setting
from tests.bushido.test_dice import CHART_TEXT, _chart_rows
from tests.bushido.test_rules import BOW, BU, R30, R40, S, T, box, model
from tests.commands import assert_setting_refused, run

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "rangefire" / "examples"
TEMPLE = EXAMPLES / "temple.yaml"
TEMPLE_ATTACK = ("-a", "yoichi", "-t", "takeda")

# -- (a) the rules' values, written out from the rules' text -----------------------------------------------
#: The wound chart as BU-7.2 prints it (typed in from the rules once, in test_dice): a row for each roll 1 to 10,
#: a column for each SL 0 to 6.
CHART = _chart_rows(CHART_TEXT)

RULES: dict[str, tuple[Any, str]] = {
    "options.obscuring_sight": (3, "BU-2.1"),  # no more than 3" of obscuring terrain (BU-1.4: seen up to 3" into)
    "options.zone_of_control": (1, "BU-2.2"),  # reaches 1" beyond its base edge
    "options.defense_dice.short": (1, "BU-5.1"),  # Defense dice: SHORT 1
    "options.defense_dice.medium": (2, "BU-5.1"),  # MEDIUM 2
    "options.defense_dice.long": (3, "BU-5.1"),  # LONG 3
    "options.attack_modifiers.aimed": (1, "BU-5.3"),  # aimed this turn +1
    "options.attack_modifiers.ran": (-1, "BU-5.3"),  # ran this turn -1
    "options.attack_modifiers.moved": (-1, "BU-5.3"),  # has moved or will move this activation -1
    "options.attack_modifiers.cover": (-1, "BU-5.3"),  # defender in cover -1
    "options.defense_modifiers.prone": (-1, "BU-5.4"),  # prone -1
    "options.defense_modifiers.ran": (-1, "BU-5.4"),  # ran -1
    "options.defense_modifiers.surprised": (-1, "BU-5.4"),  # surprised -1
    "options.defense_modifiers.large": (-1, "BU-5.4"),  # Large -1
    "options.defense_modifiers.small": (1, "BU-5.4"),  # Small +1
    "options.cover_reach": (1, "BU-5.7"),  # obscuring terrain within 1" of the target's base
    "options.supporting_dice_cap": ("none", "BU-6.2"),  # option supporting_dice_cap = none
    "options.reroll_failed_attack": (False, "BU-6.2"),  # a house rule: the rules roll each die once
    "options.exploding_sixes": (0, "BU-6.2"),  # a house rule: the rules add no die
    "options.attacker_wins_ties": (True, "BU-6.3"),  # if still equal, the attacker wins at SL 0
    **{f"options.wound_chart.roll_{roll}.sl_{sl}": (wounds, "BU-7.2")  # the chart's entry
       for roll, row in CHART.items() for sl, wounds in enumerate(row)},
    "options.one_attack_per_turn": (True, "BU-8.1"),  # option one_attack_per_turn = true
    "options.max_move": ("none", "BU-9.2"),  # these rules set no allowance (option max_move, default none)
}


def test_every_option_defaults_to_the_rules_value_with_its_clause():
    """(a) Each option's default is the value the rules give, under the clause that gives it."""
    rows = {row.path: (row.default, row.clause) for row in option_rows(Options)}
    assert rows == RULES
    assert house_rules(Options()) == []


def test_the_chart_read_from_the_rules_text_has_ten_rows_of_seven():
    assert sorted(CHART) == list(range(1, 11)) and {len(r) for r in CHART.values()} == {7}


# -- (b) a changed option changes exactly what its clause governs -------------------------------------------
#: What an attack comes to, by what governs it: the verdict (BU-3, BU-8.1), the pools (BU-5), cover (BU-5.7),
#: sight (BU-2.1), the band (BU-5.1), the zones S stands in (BU-2.2), and the odds (BU-6, BU-7.2); and whether S may
#: move 3 in down the table (BU-9.2).
ODDS = {"hit", "sl", "wounds"}
PLAN = {"attack_pool", "defense_pool", "in_cover"} | ODDS


def observe(data: dict[str, Any]) -> dict[str, Any]:
    _, b = battle_from_mapping(data)
    s, t = b.unit("S"), b.unit("T")
    checked = BU.check(b, Attack("S", "T"))
    seen: dict[str, Any] = {
        "verdict": (checked.is_legal, tuple(r.clause for r in checked.refusals)),
        "sight": sight(b, s, t).is_clear,
        "band": band(s, t, s.weapon),
        "zone": tuple(in_zone(b, u, s) for u in b.units if u.side != s.side),
        "move": BU.check_move(b, Move("S", by=(Fraction(0), Fraction(-3)))).is_legal,
    }
    plan = checked.plan
    if plan is None:
        return {**seen, **dict.fromkeys(PLAN)}
    odds = BU.odds(plan)
    return {**seen, "attack_pool": plan.attack_pool, "defense_pool": plan.defense_pool, "in_cover": plan.in_cover,
            "hit": odds.events["hit"], "sl": odds.outcomes["success_level"].probabilities(),
            "wounds": odds.outcomes["wounds"].probabilities()}


def scenario(*units: dict[str, Any], terrain: tuple[Any, ...] = ()) -> dict[str, Any]:
    return {"ruleset": "bushido", "units": list(units), "terrain": list(terrain)}


#: Obscuring terrain across every line from S to T (8 in apart), a strip ``near`` to ``far`` inches short of
#: T's base.
def strip(near: Any, far: Any) -> dict[str, Any]:
    edge = 8 + R30  # the y of T's near edge
    return box("mist", "obscuring", -30, edge - Fraction(far), 30, edge - Fraction(near))


def six_dice(**weapon: Any) -> dict[str, Any]:
    """S with RCP 6 at short range (1 defense die): every SL from 0 to 6 and more can be rolled."""
    return S(rcp=6, weapon={**BOW, **weapon})


#: For each option: a scenario where its clause applies, a new value, and what must change (all else the same).
Case = tuple[dict[str, Any], Any, set[str]]
E_AT = -(Fraction(3, 2) + R30 + R40)  # an enemy 1.5 in from S's base edge, beside it
CASES: dict[str, Case] = {
    "options.obscuring_sight": (scenario(S(), T(8), terrain=(strip(2, 4),)), 1, {"verdict", "sight"} | PLAN),
    "options.zone_of_control": (scenario(S(), T(8), model("E", "ito", (E_AT, 0))), 2, {"verdict", "zone"} | PLAN),
    "options.defense_dice.short": (scenario(S(), T(3)), 4, {"defense_pool"} | ODDS),
    "options.defense_dice.medium": (scenario(S(), T(9)), 4, {"defense_pool"} | ODDS),
    "options.defense_dice.long": (scenario(S(), T(15)), 5, {"defense_pool"} | ODDS),
    "options.attack_modifiers.aimed": (scenario(S(states=["aimed"]), T(8)), 3, {"attack_pool"} | ODDS),
    "options.attack_modifiers.ran": (scenario(S(states=["ran"]), T(8)), 1, {"attack_pool"} | ODDS),
    "options.attack_modifiers.moved": (scenario(S(states=["will_move"]), T(8)), 1, {"attack_pool"} | ODDS),
    "options.attack_modifiers.cover": (scenario(S(), T(8), terrain=(strip("0.2", "0.5"),)), 1,
                                       {"attack_pool"} | ODDS),
    "options.defense_modifiers.prone": (scenario(S(), T(8, states=["prone"])), 1, {"defense_pool"} | ODDS),
    "options.defense_modifiers.ran": (scenario(S(), T(8, states=["ran"])), 1, {"defense_pool"} | ODDS),
    "options.defense_modifiers.surprised": (scenario(S(), T(8, states=["surprised"])), 1, {"defense_pool"} | ODDS),
    "options.defense_modifiers.large": (scenario(S(), T(8, base=50)), 1, {"defense_pool"} | ODDS),
    "options.defense_modifiers.small": (scenario(S(), T(8, base=30)), 3, {"defense_pool"} | ODDS),
    "options.cover_reach": (scenario(S(), T(8), terrain=(strip("1.2", "1.6"),)), 2,
                            {"in_cover", "attack_pool"} | ODDS),
    "options.supporting_dice_cap": (scenario(six_dice(), T(3)), 1, ODDS),
    "options.reroll_failed_attack": (scenario(six_dice(), T(3)), True, ODDS),
    "options.exploding_sixes": (scenario(six_dice(), T(3, base=30)), 2, ODDS),  # 2 defense dice: a 6 may lose
    "options.attacker_wins_ties": (scenario(six_dice(), T(3)), False, ODDS),
    **{f"options.wound_chart.roll_{roll}.sl_{sl}": (scenario(six_dice(wound_modifier=roll - 3), T(3)), n + 5,
                                                    {"wounds"})
       for roll, row in CHART.items() for sl, n in enumerate(row)},
    "options.one_attack_per_turn": (scenario(S(attacked=True), T(8)), False, {"verdict"} | PLAN),
    "options.max_move": (scenario(S(), T(8)), 2, {"move"}),
}


def with_option(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    options: dict[str, Any] = {}
    here = options
    steps = path.split(".")[1:]
    for step in steps[:-1]:
        here = here.setdefault(step, {})
    here[steps[-1]] = value
    return {**data, "options": options}


def test_every_option_has_a_case():
    assert set(CASES) == set(RULES)


@pytest.mark.parametrize("path", list(CASES))
def test_a_changed_option_changes_exactly_what_its_clause_governs(path):
    """(b) Set to another valid value where its clause applies, the option changes what the clause governs and
    nothing else, and the battle's house rules name it with its clause."""
    data, value, governs = CASES[path]
    before, after = observe(data), observe(with_option(data, path, value))
    changed = {key for key in before if before[key] != after[key]}
    assert changed == governs, (before, after)
    _, b = battle_from_mapping(with_option(data, path, value))
    assert [(h.path, h.value, h.clause) for h in house_rules(b.options)] == [(path, value, RULES[path][1])]


def test_the_chart_entry_changed_is_the_one_rolled():
    """BU-7.2: a house chart changes the wounds of exactly the rolls that land on the changed entry: the chance
    of 7 wounds (roll 6 at SL 2 made 7 instead of 4) is the chance of rolling 6 at SL 2."""
    data = scenario(six_dice(wound_modifier=0), T(3))
    _, b = battle_from_mapping(data)
    plan = BU.check(b, Attack("S", "T")).plan
    sl2 = BU.odds(plan).outcomes["success_level"].probabilities()[2] * BU.odds(plan).events["hit"]
    before = BU.odds(plan).outcomes["wounds"].probabilities()
    after = observe(with_option(data, "options.wound_chart.roll_6.sl_2", 7))["wounds"]
    assert after[7] - before.get(7, 0) == sl2 / 6 and before[4] - after.get(4, 0) == sl2 / 6


# -- (c) the explanation names the house rule beside the rules' value -------------------------------------
def explained(data: dict[str, Any]) -> str:
    _, b = battle_from_mapping(data)
    checked = BU.check(b, Attack("S", "T"))
    texts = [str(r) for r in checked.refusals]
    if checked.plan is not None:
        texts += [str(m) for m in checked.plan.modifiers] + [n.text for n in checked.plan.notes]
        texts += [f"{k}: {v}" for k, v in checked.plan.summary()]
    return "\n".join(texts)


@pytest.mark.parametrize(("path", "says"), [
    ("options.obscuring_sight", "more than 1 in (house rule; the rules say 3 in) of obscuring mist"),
    ("options.zone_of_control", "within 2 in (house rule; the rules say 1 in) of the base"),
    ("options.defense_dice.short", "short range: 4 defense dice (house rule; the rules say 1)"),
    ("options.attack_modifiers.aimed", "+3 attack dice: aimed this turn (house rule; the rules say +1) [BU-5.3]"),
    ("options.attack_modifiers.cover", "+1 attack die: T is in cover (mist) (house rule; the rules say -1) [BU-5.7]"),
    ("options.defense_modifiers.small", "+3 defense dice: T is Small (30 mm) (house rule; the rules say +1)"),
    ("options.cover_reach", "mist within 2 in (house rule; the rules say 1 in) of T on every line of sight"),
    ("options.supporting_dice_cap", "at most 1 supporting die (house rule; the rules say none)"),
    ("options.attacker_wins_ties", "the defender wins at SL 0 (house rule; the rules say the attacker)"),
    ("options.reroll_failed_attack", "house rule: each attack die that fails (a 1) is rolled once more"),
    ("options.exploding_sixes", "house rule: each 6 on the attack dice adds an attack die, an added 6 another, at "
                                "most 2 dice added (options.exploding_sixes; the rules add none)"),
    ("options.wound_chart.roll_6.sl_2", "roll 6 at SL 2 gives 9 (the rules say 4)"),
    ("options.one_attack_per_turn", "a second is made (house rule; the rules say one a turn)"),
])
def test_the_explanation_names_the_house_rule_beside_the_rules_value(path, says):
    data, value, _ = CASES[path]
    assert says in explained(with_option(data, path, value))
    assert "house rule" not in explained(data) and "the rules say" not in explained(data)


def test_resolving_names_the_house_chart_entry_and_the_tie_rule():
    """BU-7.2 and BU-6.3 in the log: the wounds read from a changed entry, and a tie given to the defender."""
    from rangefire.core.source import EnteredSource

    data = with_option(scenario(six_dice(wound_modifier=0), T(3)), "options.wound_chart.roll_6.sl_2", 9)
    _, b = battle_from_mapping(data)
    plan = BU.check(b, Attack("S", "T")).plan
    # attack 6 4 2 (result 8) against 6 (result 6): SL 2; the wound die 6 reads roll 6 at SL 2
    res = BU.resolve(plan, EnteredSource({"attack": [6, 4, 2, 1, 1, 1], "defense": [6], "wound": [6]}))
    assert "9 wounds (house rule; the rules say 4)" in res.log[-2].text and res.outcome.wounds == 9
    tied = with_option(scenario(S(), T(3)), "options.attacker_wins_ties", False)
    plan = BU.check(battle_from_mapping(tied)[1], Attack("S", "T")).plan
    res = BU.resolve(plan, EnteredSource({"attack": [5, 1, 1], "defense": [5]}))
    assert not res.outcome.hit
    assert any("the defender wins at SL 0 (1 remaining die against 1) (house rule; the rules say the attacker)"
               in line.text for line in res.log)


def test_drawings_quote_the_battles_distances():
    """The drawing's zone of control and terrain texts say the battle's reach and limits [BU-2.2, BU-1.4]."""
    from rangefire.rulesets.bushido.scene import scene

    data = with_option(scenario(S(), T(8), terrain=(strip(2, 4),)), "options.zone_of_control", "1.5")
    data["options"]["obscuring_sight"] = 4
    drawn = scene(battle_from_mapping(data)[1])
    texts = [e.text for e in drawn.legend]
    assert "zone of control: 1.5 in beyond the base [BU-2.2]" in texts
    assert any("seen 4 in into or through; cover within 1 in" in t for t in texts)
    zone = next(i for g in drawn.items if getattr(g, "kind", "") == "unit" for i in g.items
                if i.kind == "zone-of-control")
    assert zone.radius == pytest.approx(float(R30) + 1.5)


# -- (d) bad values exit 2 naming the path --------------------------------------------------------------------
@pytest.mark.parametrize(("setting", "says"), [
    ("options.defense_dice.long=-1", "options.defense_dice.long"),
    ("options.zone_of_control=-1", "options.zone_of_control"),
    ("options.obscuring_sight=lots", "options.obscuring_sight"),
    ("options.attack_modifiers.aimed=99", "options.attack_modifiers.aimed"),
    ("options.wound_chart.roll_3.sl_2=1.5", "options.wound_chart.roll_3.sl_2"),
    ("options.wound_chart.roll_11.sl_0=1", "options.wound_chart.roll_11: no such option"),
    ("options.wound_chart.roll_3.sl_7=1", "options.wound_chart.roll_3.sl_7: no such option"),
    ("options.wound_chart.roll_3.sl_2=1000", "options.wound_chart.roll_3.sl_2"),
    ("options.attacker_wins_ties=maybe", "options.attacker_wins_ties"),
])
def test_a_bad_value_exits_2_naming_the_path(setting, says):
    assert_setting_refused(TEMPLE, TEMPLE_ATTACK, setting, says)


# -- (e) options round-trip through a written battle -----------------------------------------------------------
def test_house_rules_round_trip_through_a_written_battle(tmp_path):
    after = tmp_path / "after.yaml"
    sets = ["options.wound_chart.roll_6.sl_2=9", "options.zone_of_control=1.5", "options.attacker_wins_ties=false",
            "options.defense_modifiers.small=2"]
    args = [a for s in sets for a in ("--set", s)]
    out = json.loads(run("resolve", str(TEMPLE), *TEMPLE_ATTACK, "--seed", "4", *args, "--out", str(after),
                         "--json").stdout)
    assert {h["path"] for h in out["house_rules"]} == {s.split("=")[0] for s in sets}
    written = yaml.safe_load(after.read_text())
    assert written["options"]["wound_chart"]["roll_6"]["sl_2"] == 9 and written["options"]["zone_of_control"] == 1.5
    _, reread = load_battle(after)
    _, given = load_battle(TEMPLE, [parse_setting(s) for s in sets])
    assert reread.options == given.options
    assert house_rules(reread.options) == house_rules(given.options)


def test_house_rules_in_the_cli_output():
    """check and odds name a changed entry of the chart with the rules' value and its clause."""
    shown = run("check", str(TEMPLE), *TEMPLE_ATTACK, "--set", "options.wound_chart.roll_6.sl_2=9",
                columns=60).stdout
    flat = " ".join(shown.split())
    assert "options.wound_chart.roll_6.sl_2 = 9 (house rule; the rules say 4)" in flat and "BU-7.2" in flat


def test_the_all_pairs_screen_sees_through_the_battles_obscuring_limit():
    """BU-2.1 in the screen of every pair at once: with the limit a house rule sets, :func:`sights` gives the
    verdicts :func:`sight` gives pair by pair, and they are not the rules' verdicts (2 in of mist on each line:
    seen through by the rules, not with a limit of 1 in)."""
    from rangefire.rulesets.bushido.table import sights

    units = [S(), T(8), T(8, x=4) | {"id": "U"}, T(8, x=-4) | {"id": "V"}, model("W", "ito", (9, 1))]
    data = scenario(*units, terrain=(strip(2, 4),))
    verdicts = []
    for limit in (3, 1):
        _, b = battle_from_mapping(with_option(data, "options.obscuring_sight", limit))
        pairs = [(u, v) for u in b.units for v in b.units if u.side != v.side]
        screened = [s.to_dict() for s in sights(b, pairs)]
        assert screened == [sight(b, u, v).to_dict() for u, v in pairs]
        verdicts.append([s["clear"] for s in screened])
    assert verdicts[0] != verdicts[1] and all(verdicts[0])


def test_a_nominee_by_its_zone_follows_the_battles_reach():
    """BU-4.2 with BU-2.2: the centre line from S to T passes 1.5 in from U's base: U's zone does not reach it by
    the rules, and does with a reach of 2 in, so U may be nominated."""
    u_at = (Fraction(3, 2) + R40, 4)
    data = scenario(S(), T(8), model("U", "ito", u_at))
    found = []
    for reach in (1, 2):
        _, b = battle_from_mapping(with_option(data, "options.zone_of_control", reach))
        found.append([n.id for n in BU.check(b, Attack("S", "T")).plan.nominees])
    assert found == [[], ["U"]]
