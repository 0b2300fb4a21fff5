# mypy: disallow-any-expr
"""A program a developer of a digital adaptation writes against the library: each game loaded by name, its
attack checked, planned, its odds read and the attack played out, every value of the game's own type.

``tests/test_typed_results.py`` type-checks this file with ``mypy --strict --disallow-any-expr`` (no expression
of type ``Any`` anywhere) and runs it. ``assert_type`` holds each value to the game's own class: where the
library's types degrade (an untyped loader, a plan typed as any game's), mypy fails here.
"""

from __future__ import annotations

from fractions import Fraction
from typing import assert_type

from rangefire.core import Attack, Check, Distribution, EnteredSource, Odds, Resolution, SeededSource
from rangefire.demo import example_path
from rangefire.rulesets import find_ruleset, load_battle
from rangefire.rulesets.arcane_legions import ArcaneLegions, ArcaneOutcome, OrderPlan
from rangefire.rulesets.arcane_legions import Battle as ArcaneBattle
from rangefire.rulesets.bushido import Battle as BushidoBattle
from rangefire.rulesets.bushido import Bushido, BushidoOutcome, BushidoPlan
from rangefire.rulesets.dress_on_the_colors import Battle as DressBattle
from rangefire.rulesets.dress_on_the_colors import DressOnTheColors, DressOutcome, VolleyPlan
from rangefire.rulesets.swerve import Battle as SwerveBattle
from rangefire.rulesets.swerve import CombatPlan, Swerve, SwerveOutcome


def chance(dist: Distribution, at_least: int) -> str:
    """What a screen shows of an outcome: the exact chance of at least so many, and as a percentage."""
    p: Fraction = dist.at_least(at_least)
    return f"{p} ({float(p):.1%})"


def dress_on_the_colors() -> list[str]:
    doc, battle = load_battle(example_path("wheatfield.yaml"), game="dress-on-the-colors")
    assert_type(doc, DressOnTheColors)
    assert_type(battle, DressBattle)
    checked = doc.check(battle, Attack("20th-maine", "4th-texas"))
    assert_type(checked, Check[VolleyPlan])
    said = [f"{refusal.reason} [{refusal.clause}]" for refusal in checked.refusals]
    plan = doc.plan(battle, Attack("15th-alabama"))
    assert_type(plan, VolleyPlan)
    band: str = plan.band
    save: int | None = plan.save
    said.append(f"{plan.target} at {band} range, {plan.dice} dice needing {plan.need}+, save {save}")
    said += [f"{m.delta:+d} {m.reason} [{m.clause}]" for m in plan.modifiers]
    odds = doc.odds(plan)
    assert_type(odds, Odds[VolleyPlan])
    assert_type(odds.plan, VolleyPlan)
    for name in doc.outcome_names:
        dist = odds.outcomes[name]
        mean: Fraction = dist.mean()
        said.append(f"{name}: mean {mean}, at least 1: {chance(dist, 1)}")
        assert sum(dist.probabilities().values()) == 1
    suppression: Fraction = odds.events["suppression"]
    said.append(f"suppression {suppression}")
    dice = EnteredSource({"hit": [6, 5, 3, 2, 1, 5, 4, 2], "save": [4, 1, 2], "discipline": [2, 2]})
    resolution, after = doc.play(battle, Attack("15th-alabama"), dice)
    assert_type(resolution, Resolution[DressOutcome, VolleyPlan])
    assert_type(after, DressBattle)
    outcome = resolution.outcome
    hits: int = outcome.unsaved_hits
    disordered: bool = outcome.disorder
    said.append(f"{hits} unsaved, disorder {disordered}, {after.unit(plan.target).stands} stands left")
    said += [f"[{line.clause}] {line.text}" for line in resolution.log]
    return said


def arcane_legions() -> list[str]:
    al, battle = load_battle(example_path("ford.yaml"), game="al")
    assert_type(al, ArcaneLegions)
    assert_type(battle, ArcaneBattle)
    order = next(choice for choice in al.choices if choice.name == "order")
    attack = al.attack("archers", "orc-band", {"order": order.allowed[0]})
    plan = al.plan(battle, attack)
    assert_type(plan, OrderPlan)
    sides: str = f"{plan.from_side} to {plan.to_side}, sight {plan.sight}"
    odds = al.odds(plan)
    assert_type(odds, Odds[OrderPlan])
    critical: Fraction = odds.events["critical"]
    resolution, _ = al.play(battle, attack, SeededSource(7))
    assert_type(resolution.outcome, ArcaneOutcome)
    outcome_hits: int = resolution.outcome.hits
    return [sides, f"hits {odds.outcomes['hits'].mean()}, critical {critical}", f"scored {outcome_hits}"]


def bushido() -> list[str]:
    bu, temple = load_battle(example_path("temple.yaml"), game="bushido")
    assert_type(bu, Bushido)
    assert_type(temple, BushidoBattle)
    question = bu.next_choice(temple, Attack("yoichi", "takeda"))
    said = [] if question is None else [f"{question.who}: {', '.join(question.allowed)} [{question.clause}]"]
    plan = bu.plan(temple, Attack("yoichi", "takeda"))
    assert_type(plan, BushidoPlan)
    nominees: list[str] = [nominee.id for nominee in plan.nominees]
    band: str | None = plan.band
    odds = bu.odds(plan)
    assert_type(odds, Odds[BushidoPlan])
    for uid, alternative in odds.alternatives.items():
        assert_type(alternative, Odds[BushidoPlan])
        said.append(f"nominating {uid}: hit {alternative.events['hit']}, {alternative.plan.defense_dice} defence dice")
    said.append(f"{band} range, nominees {nominees}, wounds {odds.outcomes['wounds'].mean()}")
    resolution, after = bu.play(temple, Attack("yoichi", "takeda"), SeededSource(3))
    outcome = resolution.outcome
    assert_type(outcome, BushidoOutcome)
    removed: bool | None = outcome.removed
    said.append(f"hit {outcome.hit} at SL {outcome.success_level}: {outcome.wounds} wounds, removed {removed}")
    said.append(f"takeda has {after.unit('takeda').wounds.marked} wounds marked")
    return said


def swerve() -> list[str]:
    sw, battle = load_battle(example_path("ambush.yaml"), game="swerve")
    assert_type(sw, Swerve)
    assert_type(battle, SwerveBattle)
    assert_type(find_ruleset("swerve"), Swerve)
    plan = sw.plan(battle, sw.attack("rail-gun", "dune-buggy"))
    assert_type(plan, CombatPlan)
    odds = sw.odds(plan)
    said = [f"{plan.attacker_player} against {plan.defender_player}: wins {odds.events['attacker_wins']}"]
    if odds.lines is not None:
        said.append(f"best line {', '.join(odds.lines.best_line)}")
        said += [f"{', '.join(line.actions)}: {line.attacker_wins}, damage {line.damage.mean()}"
                 for line in odds.lines.lines[:3]]
    resolution, _ = sw.play(battle, sw.attack("rail-gun", "dune-buggy"), SeededSource(1))
    outcome = resolution.outcome
    assert_type(outcome, SwerveOutcome)
    spent: tuple[str, ...] = outcome.spent
    said.append(f"damage {outcome.damage}, destroyed {outcome.destroyed}, spent {', '.join(spent)}")
    return said


def main() -> None:
    for game in (dress_on_the_colors, arcane_legions, bushido, swerve):
        for line in game():
            print(line)


if __name__ == "__main__":
    main()
