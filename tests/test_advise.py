"""``rangefire advise`` and ``analysis.advise``: every legal attack of a side ranked by the expected value of an
outcome, checked against the games' own ``check`` and ``odds`` asked pair by pair and choice by choice."""

from __future__ import annotations

import copy
import itertools
import json
from fractions import Fraction
from typing import Any

import pytest

from rangefire.analysis.advise import MAX_CHECKS, Advised, advise
from rangefire.analysis.targets import MAX_PAIRS
from rangefire.core import Attack, LimitError, RangefireError
from rangefire.core.options import house_rules
from rangefire.demo import example_path
from rangefire.rulesets import RULESETS, battle_from_mapping, load_battle
from rangefire.scenario import read_scenario
from tests.commands import run

EXAMPLES = ("wheatfield.yaml", "ford.yaml", "temple.yaml", "mist-bridge.yaml", "sawblade.yaml", "ambush.yaml")
SIDES = [(name, side) for name in EXAMPLES
         for side in (lambda r_b: r_b[0].sides(r_b[1]))(load_battle(example_path(name)))]


def mean(dist: Any) -> Fraction:
    return Fraction(dist.to_dict()["mean"])


def value_of(odds: Any, outcome: str) -> Fraction:
    return Fraction(odds.events[outcome]) if outcome in odds.events else mean(odds.outcomes[outcome])


def oracle(ruleset: Any, battle: Any, side: str, outcome: str) -> list[tuple[str, str, Fraction, dict[str, str],
                                                                             str | None]]:
    """The ranking built from independent asks: for every attacker of the side and every enemy, every
    combination of the attacker's fixed-value choices given explicitly (no pruning), each checked and its odds
    computed alone; the target's player then answers with each nomination ``allowed_values`` lists, checked and
    computed alone, keeping the least [BU-4.2]. The best per pair (first in declared order on a tie), sorted by
    value, then file order."""
    fixed = [c for c in ruleset.choices if c.kind in ("enum", "side")]
    combos = [dict(zip([c.name for c in fixed], values, strict=True))
              for values in itertools.product(*(c.allowed for c in fixed))]
    ids = list(ruleset.unit_ids(battle))
    found = []
    for attacker in ids:
        if ruleset.side_of(battle, attacker) != side:
            continue
        for enemy in ids:
            if ruleset.side_of(battle, enemy) == side or enemy not in ruleset.enemies(battle, attacker):
                continue
            best = None
            for given in combos:
                checked = ruleset.check(battle, ruleset.attack(attacker, enemy, given))
                if checked.plan is None:
                    continue
                value, nominee = value_of(ruleset.odds(checked.plan), outcome), None
                if "redirect_to" in ruleset.choice_names:
                    for other in ruleset.allowed_values(battle, Attack(attacker, enemy), "redirect_to"):
                        plan = ruleset.plan(battle, ruleset.attack(attacker, enemy, {**given, "redirect_to": other}))
                        if (v := value_of(ruleset.odds(plan), outcome)) < value:
                            value, nominee = v, other
                if best is None or value > best[2]:
                    best = (attacker, enemy, value, given, nominee)
            if best is not None:
                found.append(best)
    return sorted(found, key=lambda b: (-b[2], ids.index(b[0]), ids.index(b[1])))


def outcomes_of(ruleset: Any) -> list[str]:
    return [*ruleset.outcome_names, *ruleset.event_names]


@pytest.mark.parametrize(("name", "side"), SIDES)
def test_ranking_equals_sorting_independent_odds_of_every_legal_pair(name, side):
    """For every outcome and event of the game, the ranking equals the legal pairs' own odds (every choice
    given explicitly, every nomination asked for alone) sorted by the expected value, best first."""
    ruleset, battle = load_battle(example_path(name))
    for outcome in outcomes_of(ruleset):
        advised = advise(ruleset, battle, side, outcome)
        expected = oracle(ruleset, battle, side, outcome)
        assert [(a.attacker, a.target, a.value, dict(a.choices), a.response[1] if a.response else None)
                for a in advised.ranked] == expected
        assert [a.rank for a in advised.ranked] == list(range(1, len(expected) + 1))


@pytest.mark.parametrize(("name", "side"), SIDES)
def test_every_ranked_attack_is_legal_and_its_odds_are_the_games(name, side):
    """Each ranked attack, made with its choices and the opponent's answer, is legal per ``check``, fired at the
    model it names, and its means and events are those of ``odds`` for that attack."""
    ruleset, battle = load_battle(example_path(name))
    advised = advise(ruleset, battle, side)
    assert advised.outcome == ruleset.main_outcome and not advised.is_event
    for a in advised.ranked:
        given = dict(a.choices) | ({a.response[0]: a.response[1]} if a.response else {})
        checked = ruleset.check(battle, ruleset.attack(a.attacker, a.target, given))
        assert checked.plan is not None, checked.refusals
        assert checked.plan.target == a.fired_at
        odds = ruleset.odds(checked.plan)
        assert a.means == {k: mean(d) for k, d in odds.outcomes.items()}
        assert a.events == odds.events
        assert a.value == a.means[ruleset.main_outcome]
        assert a.dice == checked.plan.dice_text() and a.side == side != a.target_side


@pytest.mark.parametrize(("name", "side"), SIDES)
def test_refused_pairs_carry_their_clauses_and_no_choice_makes_them_legal(name, side):
    ruleset, battle = load_battle(example_path(name))
    advised = advise(ruleset, battle, side)
    fixed = [c for c in ruleset.choices if c.kind in ("enum", "side")]
    ranked = {(a.attacker, a.target) for a in advised.ranked}
    for row in advised.refused:
        assert row.refusals == ruleset.check(battle, Attack(row.attacker, row.target)).refusals
        assert row.refusals and all(r.clause.startswith(ruleset.clause_prefix + "-") for r in row.refusals)
        for values in itertools.product(*(c.allowed for c in fixed)):
            given = dict(zip([c.name for c in fixed], values, strict=True))
            assert not ruleset.check(battle, ruleset.attack(row.attacker, row.target, given)).is_legal
    pairs = {(r.attacker, r.target) for r in advised.refused}
    assert not pairs & ranked
    assert len(pairs) + len(ranked) == advised.pairs


def test_arcane_legions_names_the_best_order_and_sides():
    """The spearmen are adjacent to the wolf riders: no ranged order [AL-2.1], but a close combat order
    [AL-8.1] from the touching sides, named in the row; the archers' sides are the best pair, named."""
    ruleset, battle = load_battle(example_path("ford.yaml"))
    advised = advise(ruleset, battle, "legion")
    rows = {(a.attacker, a.target): a for a in advised.ranked}
    assert dict(rows[("spearmen", "wolf-riders")].choices) == {"order": "close", "from_side": "front",
                                                               "to_side": "front"}
    assert dict(rows[("archers", "orc-band")].choices)["order"] == "ranged"
    assert [r.refusals[0].clause for r in advised.refused] == ["AL-2.1"]


def skewed_pair(facing: int) -> tuple[Any, Any]:
    """An archer stand and an all-blue target turned ``facing`` degrees: at 135 two of its sides face the archer,
    and the archer's front and right both reach it, for the same dice."""
    def stand(uid: str, side: str, y: int, facing: int, sides: dict[str, str]) -> dict[str, Any]:
        return {"id": uid, "side": side, "base": "sortie", "position": [0, y], "facing": facing, "sides": sides,
                "slots": [{"icons": ["blue", "white"]}] * 3}
    units = [stand("r", "red", 0, 0, {"front": "blue", "right": "blue", "back": "grey", "left": "red"}),
             stand("b", "blue", 3, facing, dict.fromkeys(("front", "right", "back", "left"), "blue"))]
    return battle_from_mapping({"ruleset": "arcane-legions", "units": units,
                                "players": {"red": {"order_points": 9}, "blue": {"order_points": 9}}})


def test_tied_choices_keep_the_declared_order():
    """Three side pairs give the same odds [AL-3.1]: the first in the declared order (front, right, back, left;
    the attacker's side first) is named, as the engine's own tie-break orders them [AL-3.5]."""
    ruleset, battle = skewed_pair(135)
    values = {}
    for fs, ts in itertools.product(("front", "right", "back", "left"), repeat=2):
        plan = ruleset.check(battle, ruleset.attack("r", "b", {"from_side": fs, "to_side": ts})).plan
        if plan is not None:
            values[(fs, ts)] = mean(ruleset.odds(plan).outcomes["hits"])
    best = max(values.values())
    assert [k for k, v in values.items() if v == best] == [("front", "front"), ("front", "right"), ("right", "front")]
    (row,) = advise(ruleset, battle, "red").ranked
    assert dict(row.choices) == {"order": "ranged", "from_side": "front", "to_side": "front"} and row.value == best
    for outcome in outcomes_of(ruleset):
        assert [(a.attacker, a.target, a.value, dict(a.choices), None)
                for a in advise(ruleset, battle, "red", outcome).ranked] == oracle(ruleset, battle, "red", outcome)


def temple_with(terrain: tuple[str, ...] = ("bamboo-grove", "storehouse", "raked-gravel"),
                **changes: Any) -> tuple[Any, Any]:
    data = copy.deepcopy(read_scenario(example_path("temple.yaml")))
    data["terrain"] = [t for t in data["terrain"] if t["id"] in terrain]
    for unit in data["units"]:
        unit.update(changes.get(unit["id"], {}))
    return battle_from_mapping(data)


def test_bushido_opponent_nominates_the_model_that_suffers_least():
    """With the bodyguard in heavy armour and the samurai behind it out of its grove's cover, the Ito player
    nominates the bodyguard when the samurai is shot at [BU-4.2]: the row is valued at the bodyguard's odds and
    names the nomination; as the example stands, keeping the samurai gives less and it is kept."""
    ruleset, battle = temple_with(("storehouse",), yojimbo={"armour": 10}, takeda={"armour": 0})
    advised = advise(ruleset, battle, "prefecture")
    row = next(a for a in advised.ranked if a.target == "takeda")
    assert row.response == ("redirect_to", "yojimbo", "BU-4.2") and row.fired_at == "yojimbo"
    kept = ruleset.odds(ruleset.plan(battle, Attack("yoichi", "takeda")))
    nominated = kept.alternatives["yojimbo"]
    assert row.value == mean(nominated.outcomes["wounds"]) < mean(kept.outcomes["wounds"])
    ruleset, battle = load_battle(example_path("temple.yaml"))  # unarmoured: keeping the samurai gives less
    row = next(a for a in advise(ruleset, battle, "prefecture").ranked if a.target == "takeda")
    assert row.response is None and row.fired_at == "takeda"


def test_bushido_opponent_keeps_the_target_when_a_nomination_gives_no_less():
    """The bodyguard stands on the line of fire to the samurai, both in armour 1, both at long range: a
    nomination would give exactly what keeping the samurai gives, so the Ito player keeps the declared target
    (only a strictly better answer is taken) [BU-4.2]; the row names no response."""
    ruleset, battle = temple_with((), yojimbo={"position": [0, 14], "armour": 1, "wounds": {"boxes": 5}},
                                  takeda={"position": [0, 16], "armour": 1, "wounds": {"boxes": 5}})
    kept = ruleset.odds(ruleset.plan(battle, Attack("yoichi", "takeda")))
    assert "yojimbo" in kept.alternatives  # the nomination is open
    assert mean(kept.alternatives["yojimbo"].outcomes["wounds"]) == mean(kept.outcomes["wounds"])
    row = next(a for a in advise(ruleset, battle, "prefecture").ranked if a.target == "takeda")
    assert row.response is None and row.fired_at == "takeda" and row.value == mean(kept.outcomes["wounds"])
    assert row.to_dict()["response"] is None


def test_an_event_is_ranked_by_its_probability():
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    advised = advise(ruleset, battle, "union", "suppression")
    assert advised.is_event and advised.outcome == "suppression"
    assert [a.value for a in advised.ranked] == sorted((a.events["suppression"] for a in advised.ranked),
                                                       reverse=True)
    assert advised.to_dict()["value_is"] == "probability"


def line_battle(first: str, second: str) -> tuple[Any, Any]:
    """Two identical Union regiments, mirror images about the Confederate one: equal odds."""
    def regiment(uid: str, x: int) -> dict[str, Any]:
        return {"id": uid, "side": "union", "stands": 4, "weapon": "rifled-musket", "formation": "line",
                "position": [x, 0], "facing": 0}
    units = [regiment(first, -6), regiment(second, 6),
             {"id": "reb", "side": "confederate", "stands": 4, "weapon": "rifled-musket", "formation": "line",
              "position": [0, 10], "facing": 180}]
    return battle_from_mapping({"ruleset": "dress-on-the-colors", "units": units})


def test_ties_keep_the_file_order():
    """Equal values: the attacker listed first in the file ranks first, whatever its name."""
    for first, second in (("a", "b"), ("b", "a")):
        ruleset, battle = line_battle(first, second)
        advised = advise(ruleset, battle, "union")
        assert advised.ranked[0].value == advised.ranked[1].value
        assert [a.attacker for a in advised.ranked] == [first, second]


def test_ties_keep_the_attackers_file_order_before_the_targets():
    """Four equal attacks (two archers, two samurai, all 10 in apart): the attacker listed first ranks first,
    then, for each attacker, the target listed first; the file lists archer, samurai, samurai, archer, so an
    order by target first would put the second archer's shot between the first archer's two."""
    def archer(uid: str, x: int) -> dict[str, Any]:
        return {"id": uid, "side": "prefecture", "position": [x, 0], "base": 30, "rcp": 3, "wounds": {"boxes": 4},
                "weapon": {"name": "yumi", "short": 6, "medium": 12, "long": 18, "wound_modifier": 0, "ammo": 4}}

    def samurai(uid: str, y: int) -> dict[str, Any]:
        return {"id": uid, "side": "ito", "position": [0, y], "base": 40, "armour": 1, "wounds": {"boxes": 5}}

    ruleset, battle = battle_from_mapping({"ruleset": "bushido", "active_side": "prefecture", "units": [
        archer("a", -8), samurai("s", 6), samurai("t", -6), archer("b", 8)]})
    advised = advise(ruleset, battle, "prefecture")
    assert len({a.value for a in advised.ranked}) == 1 and all(a.response is None for a in advised.ranked)
    assert [(a.attacker, a.target) for a in advised.ranked] == [("a", "s"), ("a", "t"), ("b", "s"), ("b", "t")]


def test_bad_side_and_outcome_name_the_allowed_values():
    ruleset, battle = load_battle(example_path("ford.yaml"))
    with pytest.raises(RangefireError, match=r"side 'orcs' is not in this battle \(sides: legion, horde\)"):
        advise(ruleset, battle, "orcs")
    with pytest.raises(RangefireError, match="no outcome 'wounds' to rank by: its outcomes are hits; its events "
                                             "critical"):
        advise(ruleset, battle, "legion", "wounds")


def test_more_pairs_than_the_bound_are_refused_before_the_work():
    n = int(MAX_PAIRS**0.5) + 1  # a side of n against n: one pair too many squared
    units = [{"id": f"{s}{i}", "side": s, "stands": 4, "weapon": "rifled-musket", "formation": "line",
              "position": [i * 3, 0 if s == "u" else 30], "facing": 0} for s in "uc" for i in range(n)]
    ruleset, battle = battle_from_mapping({"ruleset": "dress-on-the-colors", "units": units})
    assert n * n > MAX_PAIRS
    with pytest.raises(LimitError, match=f"{n * n} attacker and enemy pairs; advice weighs at most {MAX_PAIRS}"):
        advise(ruleset, battle, "u")


def test_more_checks_than_the_bound_are_refused(monkeypatch):
    """Choices multiply the checks of a pair (Arcane Legions: an order, then sixteen side pairs [AL-3.1]):
    their count is bounded too, and the refusal names the bound."""
    import rangefire.analysis.advise as module

    ruleset, battle = load_battle(example_path("ford.yaml"))
    assert advise(ruleset, battle, "legion").checks == 60  # 4 pairs, 2 orders each, 16 sides under 3 legal
    assert MAX_CHECKS >= 18 * MAX_PAIRS  # every pair of a full table weighed with both orders and all sides
    monkeypatch.setattr(module, "MAX_CHECKS", 59)
    with pytest.raises(LimitError, match="advice checks at most 59 candidate attacks"):
        advise(ruleset, battle, "legion")


# -- the command line ------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "side"), SIDES)
def test_each_example_runs_for_people_and_in_json(name, side):
    """Each game's example, each side, at a narrow terminal and in JSON: exit 0 with a ranked attack, 1 with
    none (as ``check`` does for a refused attack)."""
    ruleset, battle = load_battle(example_path(name))
    expected = advise(ruleset, battle, side)
    code = 0 if expected.ranked else 1
    shown = run("advise", str(example_path(name)), "--side", side, "--all", ok=code, columns=60)
    assert max(len(line) for line in shown.stdout.splitlines()) <= 60
    for a in expected.ranked:
        assert a.attacker in shown.stdout
    if not expected.ranked:
        assert "no legal attack" in shown.stdout
    for row in expected.refused:
        assert f"[{row.refusals[0].clause}]" in shown.stdout
    data = json.loads(run("advise", str(example_path(name)), "--side", side, "--json", ok=code).stdout)
    assert data["format"] == 1 and data["outcome"] == ruleset.main_outcome
    assert data == {"format": 1, **expected.to_dict(refused=False),
                    "house_rules": [rule.to_dict() for rule in house_rules(battle.options)]}
    assert data["refused_count"] == len(expected.refused) and "refused" not in data


def test_json_with_all_lists_the_refused_with_clauses():
    data = json.loads(run("advise", str(example_path("wheatfield.yaml")), "-s", "union", "--all", "--json").stdout)
    assert data["refused_count"] == len(data["refused"]) == 6
    assert {r["refusals"][0]["clause"] for r in data["refused"]} == {"DC-2.1", "DC-2.3"}
    assert data["ranked"][0]["value"] == "225340/531441" and data["value_is"] == "mean"


def test_a_conditional_outcome_says_so():
    """Bushido's success level is that of a hit [BU-6.3]: ranked by it, the header says so; beside another
    ranking, its line does; the JSON carries the game's conditions."""
    temple = str(example_path("temple.yaml"))
    shown = run("advise", temple, "-s", "prefecture", "-o", "success_level", columns=100)
    assert "attacks by mean success level given a hit" in shown.stdout
    assert "(given a hit)" in run("advise", temple, "-s", "prefecture", columns=100).stdout
    data = json.loads(run("advise", temple, "-s", "prefecture", "--json").stdout)
    assert data["conditions"] == {"success_level": "given a hit"}


def test_no_legal_attack_exits_1_and_says_so():
    shown = run("advise", str(example_path("temple.yaml")), "--side", "ito", ok=1, columns=60)
    assert "ito's attacks by mean wounds: no legal attack" in shown.stdout
    assert "8 of 8 attacker and enemy pairs refused" in shown.stdout
    data = json.loads(run("advise", str(example_path("temple.yaml")), "--side", "ito", "--json", ok=1).stdout)
    assert data["ranked"] == [] and data["refused_count"] == 8


@pytest.mark.parametrize("as_json", [False, True])
def test_unknown_side_or_outcome_exits_2_naming_the_allowed_values(as_json):
    extra = ["--json"] if as_json else []
    ford = str(example_path("ford.yaml"))
    for args, allowed in ((["--side", "orcs"], "sides: legion, horde"),
                          (["--side", "legion", "--outcome", "wounds"], "its outcomes are hits; its events "
                                                                        "critical")):
        shown = run("advise", ford, *args, *extra, ok=2)
        said = json.loads(shown.stdout)["error"]["message"] if as_json else shown.stderr
        assert allowed in said
        if not as_json:
            assert len(shown.stderr.strip().splitlines()) == 1


def test_every_game_declares_its_main_outcome_as_data():
    for ruleset in RULESETS:
        assert ruleset.main_outcome in ruleset.outcome_names


def test_advised_to_dict_round_trips_fractions():
    ruleset, battle = load_battle(example_path("mist-bridge.yaml"))
    advised: Advised = advise(ruleset, battle, "cult")
    data = advised.to_dict()
    for row, a in zip(data["ranked"], advised.ranked, strict=True):
        assert Fraction(row["value"]) == a.value
        assert {k: Fraction(v) for k, v in row["events"].items()} == a.events


def test_set_changes_the_battle_advised_and_names_the_house_rule():
    """``--set`` reaches the advice as it reaches ``odds``: a discipline check passed on 9 rather than 6 [DC-5.2]
    makes every attack's disorder likelier; the JSON names the house rule. A what-if on a unit (more stands
    for the 83rd) moves its attack up the ranking."""
    from rangefire.scenario.paths import parse_setting

    path = example_path("wheatfield.yaml")
    ruleset, battle = load_battle(path, [parse_setting("options.discipline_pass=9")])
    _, plain = load_battle(path)
    changed, rules = advise(ruleset, battle, "union", "disorder"), advise(ruleset, plain, "union", "disorder")
    before = {a.attacker: a.value for a in rules.ranked}
    assert all(a.value > before[a.attacker] for a in changed.ranked)
    data = json.loads(run("advise", str(path), "-s", "union", "-o", "disorder", "--set", "options.discipline_pass=9",
                          "--json").stdout)
    assert data["house_rules"] == [{"path": "options.discipline_pass", "value": 9, "default": 6,
                                    "clause": "DC-5.2"}]
    assert data["ranked"] == [a.to_dict() for a in changed.ranked]
    shown = run("advise", str(path), "-s", "union", "--set", "options.discipline_pass=9", columns=60)
    assert "options.discipline_pass = 9 (house rule; the" in shown.stdout
    bad = run("advise", str(path), "-s", "union", "--set", "units.nosuch.stands=3", ok=2)
    assert "units.nosuch.stands: no item with id 'nosuch'" in bad.stderr
    assert json.loads(run("advise", str(path), "-s", "union", "--json").stdout)["house_rules"] == []
    assert [a.attacker for a in advise(ruleset, plain, "union").ranked][-1] == "83rd-pennsylvania"
    data = json.loads(run("advise", str(path), "-s", "union", "--set", "units.83rd-pennsylvania.stands=12",
                          "--json").stdout)
    assert data["ranked"][0]["attacker"] == "83rd-pennsylvania"


def test_advise_in_json_loads_neither_rich_nor_matplotlib_nor_another_game(tmp_path):
    from tests.test_startup import GAME_PACKAGES, _has, modules_of

    modules = modules_of(tmp_path, "advise", str(example_path("ford.yaml")), "--side", "legion", "--json")
    assert not _has(modules, "matplotlib") and not _has(modules, "rich")
    assert [m for k, m in GAME_PACKAGES.items() if _has(modules, m)] == [GAME_PACKAGES["arcane-legions"]]
    assert _has(modules, "rangefire.analysis.advise")


def test_a_legal_attack_whose_odds_are_not_computed_is_listed_not_ranked(tmp_path):
    """swerve past its best-play search's bound [SW-3.1]: the attack is legal, its odds declined with the
    game's reason; it is listed apart, neither ranked nor refused, and the command exits 0 saying so."""
    from tests.swerve.test_defects import BEYOND, crowded_n

    data = crowded_n(BEYOND)
    ruleset, battle = battle_from_mapping(data)
    advised = advise(ruleset, battle, "jason")
    assert advised.ranked == ()
    assert {r.refusals[0].clause for r in advised.refused} == {"SW-1.5"}  # the tactics in hand never fire
    (skipped,) = advised.not_computed
    assert (skipped.attacker, skipped.target) == ("gun", "unit") and "best play" in skipped.limit
    assert len(advised.refused) + 1 == advised.pairs
    path = tmp_path / "crowded.json"
    path.write_text(json.dumps(data))
    said = " ".join(run("advise", str(path), "--side", "jason", columns=60).stdout.split())
    assert "no legal attack with odds computed" in said and "gun -> unit: legal, odds not computed" in said


def test_a_chance_printed_is_never_rounded_to_nothing_or_to_certain():
    """The other odds say an event that cannot happen as 0% and one that can, however unlikely, as a figure
    or "<0.1%": never "0.0%" (the wheatfield's volleys cannot destroy a regiment; rank 1 disorders 1 in 9)."""
    shown = run("advise", str(example_path("wheatfield.yaml")), "--side", "confederate").stdout
    assert "destroyed 0%" in shown and "disorder 11.1%" in shown
    assert "0.0%" not in shown.replace("10.0%", "") and "100.0%" not in shown
