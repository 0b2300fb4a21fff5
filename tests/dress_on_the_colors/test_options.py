"""Dress on the Colors' house rules as data: every number of its tables is an option at the rules' value, and
changing one changes exactly what its clause governs (../shared/rules/dress-on-the-colors.md).

The set-up is that of test_rules.py: firer F (blue) at the origin facing +y, its front edge from (-3, 0) to
(3, 0); target T (grey) facing back at it, its front edge d inches up the table.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from rangefire.core import Attack, ScenarioError
from rangefire.core.options import house_rules, option_rows
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.dress_on_the_colors import Options
from rangefire.scenario.paths import parse_setting
from tests.commands import assert_setting_refused, run
from tests.conftest import square, unit

DOC = find_ruleset("dress-on-the-colors")
WHEATFIELD = Path(__file__).resolve().parents[2] / "src" / "rangefire" / "examples" / "wheatfield.yaml"
ATTACK = ("-a", "15th-alabama", "-t", "20th-maine")

# -- (a) the rules' values, written from the rules' text, clause by clause -------------------------
RULES = {
    "options.arc": ("corners", "DC-2.1"),  # lines 45 degrees outward from each front corner
    "options.bands.short": (6, "DC-2.4"),  # d <= 6 short
    "options.bands.medium": (14, "DC-2.4"),  # 6 < d <= 14 medium
    "options.bands.long": (20, "DC-2.4"),  # 14 < d <= 20 long; beyond 20 in the unit cannot fire
    "options.dice_per_stand": (1, "DC-3.1"),  # roll 1D6 per physical stand firing
    "options.to_hit.smoothbore.short": (3, "DC-3.2"),
    "options.to_hit.smoothbore.medium": (5, "DC-3.2"),
    "options.to_hit.smoothbore.long": ("none", "DC-3.2"),  # "-": cannot fire
    "options.to_hit.rifled-musket.short": (4, "DC-3.2"),
    "options.to_hit.rifled-musket.medium": (4, "DC-3.2"),
    "options.to_hit.rifled-musket.long": (5, "DC-3.2"),
    "options.to_hit.breechloader.short": (3, "DC-3.2"),
    "options.to_hit.breechloader.medium": (4, "DC-3.2"),
    "options.to_hit.breechloader.long": (5, "DC-3.2"),
    "options.to_hit.artillery.short": (2, "DC-3.2"),  # canister
    "options.to_hit.artillery.medium": (4, "DC-3.2"),  # roundshot
    "options.to_hit.artillery.long": (5, "DC-3.2"),  # roundshot
    "options.modifiers.target_skirmish": (-1, "DC-3.3"),
    "options.modifiers.gunsmoke": (-1, "DC-7.2"),  # listed in DC-3.3, the penalty of DC-7.2
    "options.modifiers.firer_disordered": (-1, "DC-3.3"),
    "options.modifiers.firer_march_column": (-1, "DC-3.3"),
    "options.lowest_hit": (2, "DC-3.4"),  # a natural 1 never hits
    "options.reroll_to_hit": ("none", "DC-3.4"),  # no second roll
    "options.sixes_ignore_cover": (False, "DC-4.1"),  # every hit may be saved
    "options.cover_save.open": ("none", "DC-4.1"),  # open ground: no save
    "options.cover_save.light": (5, "DC-4.1"),
    "options.cover_save.heavy": (4, "DC-4.1"),
    "options.cover_reach": (1, "DC-4.2"),  # crosses within 1" of it
    "options.discipline_dice": (2, "DC-5.2"),  # 2D6
    "options.discipline_pass": (6, "DC-5.2"),  # pass on 6 or more
    "options.discipline_disordered": (-1, "DC-5.2"),  # -1 if already disordered
    "options.enfilade.dice": (1, "DC-6.2"),  # +1D6 ...
    "options.enfilade.per_stands": (2, "DC-6.2"),  # ... for every two stands firing
    "options.enfilade.save_shift": (1, "DC-6.3"),  # the cover save worsens by one
    "options.gunsmoke_beyond": (6, "DC-7.2"),  # a line of sight longer than 6.0"
    "options.one_volley_per_turn": (True, "DC-9.1"),
    "options.engaged_may_move": (False, "DC-10.2"),  # "as is a move of an engaged unit (option ... = false)"
    "options.max_move": (None, "DC-10.3"),  # "These rules set no allowance; option max_move ... default none"
}


def test_every_option_defaults_to_the_rules_value_with_its_clause():
    rows = {row.path: (row.default, row.clause) for row in option_rows(Options)}
    assert rows == RULES


def test_rulesets_lists_every_option_with_its_default_and_clause():
    data = json.loads(run("rulesets", "dress-on-the-colors", "--json").stdout)
    game = next(g for g in data["rulesets"] if g["key"] == "dress-on-the-colors")
    listed = {o["path"]: (o["default"], o["clause"]) for o in game["option_list"]}
    assert listed == {path: (value, clause) for path, (value, clause) in RULES.items()}


# -- (b) a changed option changes exactly its clause ------------------------------------------------
def F(**kw: Any) -> dict[str, Any]:
    return unit("F", "blue", (0, 0), 0, **kw)


def T(d: Any = 10, **kw: Any) -> dict[str, Any]:
    return unit("T", "grey", (kw.pop("x", 0), d), 180, **kw)


@dataclass(frozen=True)
class Case:
    """An example where ``path``'s clause applies: ``value`` set there changes what ``governs`` reads and
    leaves what ``keeps`` reads as it was."""

    path: str
    value: Any
    units: tuple[dict[str, Any], ...]
    governs: Callable[[Any], Any]
    keeps: Callable[[Any], Any]
    terrain: tuple[dict[str, Any], ...] = field(default=())


def need(c: Any) -> Any:
    return (c.plan.target_number, c.plan.need) if c.plan else [r.clause for r in c.refusals]


def dice(c: Any) -> Any:
    return c.plan.dice


def save(c: Any) -> Any:
    return c.plan.save


def band(c: Any) -> Any:
    return c.plan.band if c.plan else [r.clause for r in c.refusals]


def legal(c: Any) -> Any:
    return [r.clause for r in c.refusals]


def disorder(c: Any) -> Any:
    return DOC.odds(c.plan).events["disorder"]


def hits(c: Any) -> Any:
    return DOC.odds(c.plan).outcomes["hits"].probabilities()


def dice_save(c: Any) -> Any:
    return c.plan.dice, c.plan.save


BAND_AT = {"short": 5, "medium": 10, "long": 17}
OTHER = {"none": 4, 2: 3, 3: 4, 4: 6, 5: 3}
SMOKE = {"id": "smoke", "kind": "gunsmoke", "polygon": square(-10, 4, 10, 5)}
WOODS = {"light": {"id": "woods", "kind": "light", "polygon": square(-10, 9.5, 10, 12)},
         "heavy": {"id": "wall", "kind": "heavy", "polygon": square(-10, 9.5, 10, 12)}}
#: The target's back turned: F stands wholly behind T's front baseline (y = 10, T facing +y) [DC-6.1].
REAR = (F(stands=6), unit("T", "grey", (0, 10), 0))


def to_hit_cases() -> list[Case]:
    out = []
    for weapon in ("smoothbore", "rifled-musket", "breechloader", "artillery"):
        for name, d in BAND_AT.items():
            rules = RULES[f"options.to_hit.{weapon}.{name}"][0]
            # where the rules say "-" the check is refused under DC-3.2 alone; elsewhere dice, band, save stay
            keeps = (lambda c: [r.clause for r in c.refusals if r.clause != "DC-3.2"]) if rules == "none" else (
                lambda c: (c.plan.dice, c.plan.band, c.plan.save))
            out.append(Case(f"options.to_hit.{weapon}.{name}", OTHER[rules], (F(weapon=weapon), T(d)), need, keeps))
    return out


CASES = [
    # DC-2.1: a target beside the corner's 45 degree line but outside the centre's
    Case("options.arc", "centre", (F(), unit("T", "grey", (12.5, 9), 180, stands=2)), legal, lambda c: None),
    Case("options.bands.short", 11, (F(weapon="breechloader"), T(10)), band, save),
    Case("options.bands.medium", 9, (F(weapon="breechloader"), T(10)), band, save),
    Case("options.bands.long", 25, (F(), T(22)), band, lambda c: None),
    Case("options.dice_per_stand", 2, (F(), T(10)), dice, lambda c: (c.plan.need, c.plan.save)),
    *to_hit_cases(),
    Case("options.modifiers.target_skirmish", -2, (F(), T(10, formation="skirmish")), need, dice_save),
    Case("options.modifiers.gunsmoke", 0, (F(), T(10)), need, dice_save, (SMOKE,)),
    Case("options.modifiers.firer_disordered", -3, (F(disordered=True), T(10)), need, dice_save),
    Case("options.modifiers.firer_march_column", 1, (F(formation="march-column"), T(10)), need,
         dice_save),
    # a canister's 2+ is held to 3+ when nothing below a natural 3 hits [DC-3.4]
    Case("options.lowest_hit", 3, (F(weapon="artillery"), T(5)), need, dice_save),
    # a house rule's second roll of the 1s: more hits, the same dice, need and save [DC-3.4]
    Case("options.reroll_to_hit", "ones", (F(), T(10)), hits, lambda c: (c.plan.dice, c.plan.need, c.plan.save)),
    # a natural 6 unsaved in the woods: more unsaved hits, the same hits [DC-4.1]
    Case("options.sixes_ignore_cover", True, (F(), T(10)), lambda c: DOC.odds(c.plan).outcomes["unsaved_hits"].mean(),
         hits, (WOODS["light"],)),
    Case("options.cover_save.open", 6, (F(), T(10)), save, need),
    Case("options.cover_save.light", 3, (F(), T(10)), save, need, (WOODS["light"],)),
    Case("options.cover_save.heavy", "none", (F(), T(10)), save, need, (WOODS["heavy"],)),
    # a hedge 1.5 in short of the target: cover only when terrain within 2 in counts [DC-4.2]
    Case("options.cover_reach", 2, (F(), T(10)), lambda c: (c.plan.cover, c.plan.save), need,
         ({"id": "hedge", "kind": "light", "polygon": square(-10, 8, 10, 8.5)},)),
    Case("options.discipline_dice", 3, (F(), T(10)), disorder, hits),
    Case("options.discipline_pass", 9, (F(), T(10)), disorder, hits),
    Case("options.discipline_disordered", -3, (F(), T(10, disordered=True)), disorder, hits),
    Case("options.enfilade.dice", 2, REAR, dice, lambda c: (c.plan.need, c.plan.save)),
    Case("options.enfilade.per_stands", 3, REAR, dice, lambda c: (c.plan.need, c.plan.save)),
    Case("options.enfilade.save_shift", 2, REAR, save, lambda c: (c.plan.need, c.plan.dice),
         ({"id": "wall", "kind": "heavy", "polygon": square(-10, 8.5, 10, 10.5)},)),
    Case("options.gunsmoke_beyond", 11, (F(), T(10)), need, dice_save, (SMOKE,)),
    Case("options.one_volley_per_turn", False, (F(fired=True), T(10)), legal, lambda c: None),
]


def check(case: Case, *settings: str) -> tuple[Any, Any]:
    data = {"ruleset": "dress-on-the-colors", "units": list(case.units), "terrain": list(case.terrain)}
    _, battle = battle_from_mapping(data, settings=[parse_setting(s) for s in settings])
    return battle, DOC.check(battle, Attack("F", "T"))


#: The options of moves [DC-10]: each set away from the rules' value, the move it changes from legal to refused or
#: back (F moving 6 in back down the table in blue's turn), on F's state; a volley's check stays as it was.
MOVE_CASES: dict[str, tuple[Any, dict[str, Any]]] = {
    "options.engaged_may_move": (True, {"engaged": True}),  # DC-10.2: an engaged unit moves
    "options.max_move": (5, {}),  # DC-10.3: 6 in is farther than 5
}


def test_every_option_has_a_case():
    assert sorted([c.path for c in CASES] + list(MOVE_CASES)) == sorted(RULES)


@pytest.mark.parametrize("path", list(MOVE_CASES))
def test_a_changed_move_option_changes_the_move_and_no_volley(path):
    """DC-10.2, DC-10.3: a move option set away from the rules' value changes whether the move is legal, and
    nothing of the volley's check; the house rule is named with its clause (tests/dress_on_the_colors/test_moves.py
    has their boundaries)."""
    from rangefire.core import Move

    value, state = MOVE_CASES[path]
    data = {"ruleset": "dress-on-the-colors", "units": [F(**state), T(10)], "turn": {"number": 1, "side": "blue"}}
    rules = battle_from_mapping(data)[1]
    house = battle_from_mapping(data, settings=[parse_setting(f"{path}={json.dumps(value)}")])[1]
    away = Move("F", by=(Fraction(0), Fraction(-6)))
    assert DOC.check_move(rules, away).is_legal != DOC.check_move(house, away).is_legal
    assert DOC.check(rules, Attack("F", "T")) == DOC.check(house, Attack("F", "T"))
    [rule] = house_rules(house.options)
    assert (rule.path, rule.value, rule.default, rule.clause) == (path, value, *RULES[path])


@pytest.mark.parametrize("case", CASES, ids=[c.path for c in CASES])
def test_a_changed_option_changes_exactly_what_its_clause_governs(case):
    """Each option set away from the rules' value on an example where its clause applies: what the clause
    governs changes, what it does not stays, and the house rule is named with its clause."""
    rules_battle, as_written = check(case)
    battle, house = check(case, f"{case.path}={json.dumps(case.value)}")
    assert house_rules(rules_battle.options) == []
    [rule] = house_rules(battle.options)
    assert (rule.path, rule.value, rule.default, rule.clause) == (case.path, case.value, *RULES[case.path])
    assert case.governs(house) != case.governs(as_written), case.path
    assert case.keeps(house) == case.keeps(as_written), case.path


def test_a_house_rule_volley_keeps_agreeing_with_the_brute_force_oracle():
    """Odds under house rules (3+ heavy cover, two dice a stand, a 3+ breechloader at medium range) against
    every die enumerated [DC-3.1, DC-3.2, DC-4.1]."""
    from tests.dress_on_the_colors.test_odds_oracle import brute_force

    case = Case("x", 0, (F(weapon="breechloader", stands=2), T(10, stands=2)), need, need, (WOODS["heavy"],))
    _, checked = check(case, "options.cover_save.heavy=3", "options.dice_per_stand=2",
                       "options.to_hit.breechloader.medium=3")
    plan = checked.plan
    assert (plan.dice, plan.need, plan.save) == (4, 3, 3)
    assert DOC.odds(plan).outcomes["unsaved_hits"].probabilities() == {
        k: v for k, v in _unsaved(brute_force(plan)).items() if v}


def _unsaved(joint: dict[Any, Fraction]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for outcome, p in joint.items():
        out[outcome.unsaved_hits] = out.get(outcome.unsaved_hits, Fraction(0)) + p
    return out


# -- (c) the explanation names the house rule beside the rules' value -------------------------------
def test_check_says_the_house_rules_save_beside_the_rules():
    """In the plan's note of the target's cover [DC-4.2] and in the summary's cover row, at the terminal."""
    data = json.loads(run("check", str(WHEATFIELD), *ATTACK, "--set", "options.cover_save.heavy=3", "--json").stdout)
    [note] = [n["text"] for n in data["plan"]["notes"] if n["clause"] == "DC-4.2"]
    assert note == "20th-maine is in heavy cover (stone-wall): saves on 3+ (house rule; the rules say 4+)"
    shown = run("check", str(WHEATFIELD), *ATTACK, "--set", "options.cover_save.heavy=3").stdout
    assert shown.count("saves on 3+ (house rule; the rules say 4+)") == 2 and "DC-4.2" in shown
    plain = run("check", str(WHEATFIELD), *ATTACK).stdout
    assert "house rule" not in plain


@pytest.mark.parametrize(("settings", "says"), [
    (["options.to_hit.rifled-musket.medium=3"], ["rifled musket at medium range: 3+ (house rule; the rules say 4+)",
                                                 "a natural 4+ (house rule; the rules say a natural 5+)"]),
    (["options.bands.medium=11.5"], ["range 12.00 in from the front edge: long (house rule; the rules say medium)",
                                     "options.bands.medium = 11.5 (house rule; the rules say 14)"]),
    (["options.modifiers.gunsmoke=-2"], ["-2 firing through gunsmoke", "(house rule; the rules say -1)"]),
    # the rules' -1 for this line's gunsmoke is in the roll they would need [DC-7.2]
    (["options.gunsmoke_beyond=13"], ["not longer than 13 in: no penalty (house rule; the rules say longer than 6",
                                      "4+: a natural 4+ (house rule; the rules say a natural 5+)"]),
    (["options.dice_per_stand=2"], ["16 (8 stands x 2) (house rule; the rules say 8)"]),
])
def test_each_explained_value_names_the_house_rule(settings, says):
    args = [a for s in settings for a in ("--set", s)]
    shown = run("check", str(WHEATFIELD), *ATTACK, *args, columns=400).stdout
    for text in says:
        assert text in shown, (text, shown)


def test_resolve_logs_the_house_rules_save():
    data = json.loads(run("resolve", str(WHEATFIELD), *ATTACK, "--set", "options.cover_save.heavy=3",
                          "--dice", "hit=6,6,6,5,5,1,1,1", "--dice", "save=3,2,1,1,1", "--dice", "discipline=6,6",
                          "--json").stdout)
    line = next(entry for entry in data["log"] if entry["clause"] == "DC-4.1")
    assert line["text"].startswith("cover saves on 3+ (house rule; the rules say 4+) for heavy cover")
    assert data["outcome"]["unsaved_hits"] == 4  # the 3 saves on 3+; under the rules it would not


def test_the_drawing_quotes_the_battles_values(tmp_path):
    from rangefire.rulesets.dress_on_the_colors.scene import scene

    _, battle = battle_from_mapping(yaml.safe_load(WHEATFIELD.read_text()), settings=[
        parse_setting("options.cover_save.heavy=3"), parse_setting("options.bands.long=24"),
        parse_setting("options.gunsmoke_beyond=8")])
    checked = DOC.check(battle, Attack("15th-alabama", "20th-maine"))
    drawn = scene(battle, checked, [checked])
    texts = json.dumps([getattr(i, "title", "") for i in drawn.items] + [e.text for e in drawn.legend])
    assert "saves 3+" in texts and "saves 4+" not in texts
    assert "out to 24 in" in texts and "over 8 in" in texts and "20 in" not in texts


# -- (d) bad values exit 2 naming the path ---------------------------------------------------------
@pytest.mark.parametrize(("setting", "says"), [
    ("options.cover_save.heavy=1", "options.cover_save.heavy"),
    ("options.cover_save.light=seven", "options.cover_save.light"),
    ("options.to_hit.breechloader.medium=7", "options.to_hit.breechloader.medium"),
    ("options.to_hit.musket.short=3", "options.to_hit.musket: no such option"),
    ("options.bands.short=-1", "options.bands.short"),
    ("options.bands.medium=30", "options.bands: the band edges must increase"),
    ("options.modifiers.gunsmoke=-99", "options.modifiers.gunsmoke"),
    ("options.enfilade.per_stands=0", "options.enfilade.per_stands"),
    ("options.cover_reach=1e400", "options.cover_reach"),
])
def test_a_bad_value_exits_2_naming_the_path(setting, says):
    assert_setting_refused(WHEATFIELD, ATTACK, setting, says, lines=3)


def test_a_bad_table_in_a_scenario_is_named_too():
    with pytest.raises(ScenarioError, match=r"options\.to_hit\.rifled-musket\.long"):
        battle_from_mapping({"ruleset": "dress-on-the-colors", "units": [F(), T()],
                             "options": {"to_hit": {"rifled-musket": {"long": 0}}}})


# -- (e) the options round-trip through a written battle -------------------------------------------
def test_house_rules_round_trip_through_resolve_out(tmp_path):
    after = tmp_path / "after.yaml"
    sets = ["options.cover_save.heavy=3", "options.bands.medium=10.5", "options.to_hit.rifled-musket.long=4",
            "options.enfilade.save_shift=2"]
    run("resolve", str(WHEATFIELD), *ATTACK, "--seed", "4", *[a for s in sets for a in ("--set", s)],
        "--out", str(after))
    written = yaml.safe_load(after.read_text())["options"]
    # of the tables only what the house rules set (the rulings as the file had them)
    tables = {k: v for k, v in written.items() if isinstance(v, dict)}
    assert tables == {"cover_save": {"heavy": 3}, "bands": {"medium": 10.5}, "to_hit": {"rifled-musket": {"long": 4}},
                      "enfilade": {"save_shift": 2}}
    assert set(written) - set(tables) <= {"arc", "discipline_dice", "discipline_pass", "one_volley_per_turn"}
    data = json.loads(run("check", str(after), *ATTACK, "--json", ok=None).stdout)  # it has fired [DC-9.1]
    assert sorted((h["path"], h["value"]) for h in data["house_rules"]) == sorted(
        (s.split("=")[0], json.loads(s.split("=")[1])) for s in sets)
    _, battle = battle_from_mapping(yaml.safe_load(after.read_text()))
    assert battle.options.bands.medium == Fraction(21, 2) and battle.options.bands.long == 20


def test_more_dice_than_the_rules_ever_give_are_refused_quickly_by_odds_not_by_check(tmp_path):
    """60 stands at two dice a stand, enfilading with 3 dice a stand: 300 dice; check plans it [DC-3.1, DC-6.2],
    odds says it works out at most 90 (the rules' most), at once, exit 2."""
    units = [unit("F", "blue", (0, 0), 0, stands=60), unit("T", "grey", (0, 10), 0, stands=60)]
    sets = ["options.dice_per_stand=2", "options.enfilade.dice=3", "options.enfilade.per_stands=1"]
    data = {"ruleset": "dress-on-the-colors", "units": units}
    _, battle = battle_from_mapping(data, settings=[parse_setting(s) for s in sets])
    assert DOC.check(battle, Attack("F", "T")).plan.dice == 300
    path = tmp_path / "many.yaml"
    path.write_text(yaml.safe_dump(data))
    proc = run("odds", str(path), "-a", "F", "-t", "T", *[a for s in sets for a in ("--set", s)], ok=2)
    assert "300 to-hit dice" in proc.stderr and "at most 90" in proc.stderr

