"""The main job on the built-in example battles: volley by volley, the odds before and the log after.

The demo returns data (:class:`DemoStep`); the command line renders it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from rangefire.core import Attack, Check, Odds, Resolution, SeededSource
from rangefire.rulesets import battle_from_mapping
from rangefire.scenario import parse_scenario

SAWBLADE_LINE = ("attacker:pass", "defender:swerve-target", "attacker:pass", "defender:pass")

#: Between two attacks of an engagement: the turn ends, its clauses applied (a model attacks once a turn, BU-8.1).
END_TURN = "end-turn"

#: Each built-in engagement: the example file and its attacks, in order.
ENGAGEMENTS: tuple[tuple[str, tuple[Attack | str, ...]], ...] = (
    ("wheatfield.yaml", tuple(Attack(a) for a in ("47th-alabama", "20th-maine", "15th-alabama",
                                                   "83rd-pennsylvania", "battery-d", "4th-texas"))),
    ("ford.yaml", (Attack("archers", "orc-band"), Attack("spearmen", "wolf-riders", (("order", "close"),)),
                   Attack("archers", "wolf-riders"))),
    # a skirmish: the declared target, then the defender's nomination [BU-4.2], then a model held in a zone of
    # control [BU-3.3]
    ("temple.yaml", (Attack("yoichi", "takeda"), END_TURN, Attack("yoichi", "takeda", (("redirect_to", "yojimbo"),)),
                     Attack("kenji", "oni"))),
    # a pool below 1 [BU-5.6], sight past a shrine along a line off the centres [BU-2.1]
    ("mist-bridge.yaml", (Attack("cultist", "ogre"), Attack("archer", "acolyte"))),
    # the rules' own example, played as written [SW-7.1]
    ("sawblade.yaml", (Attack("sawblade-launcher", "road-warrior", (("actions", SAWBLADE_LINE),)),)),
    # a combat left to best play on both sides [SW-6.2]
    ("ambush.yaml", (Attack("rail-gun", "dune-buggy"),)),
)


@dataclass(frozen=True)
class DemoStep:
    """One attack of an engagement: the check, and when legal its odds and what the dice did."""

    engagement: str
    ruleset: str
    check: Check
    odds: Odds | None
    resolution: Resolution | None
    status: tuple[dict[str, Any], ...] = ()
    last: bool = False


def example_path(name: str) -> Path:
    """The path of a built-in example scenario."""
    return Path(str(resources.files("rangefire") / "examples" / name))


def run_demo(seed: int = 1863) -> Iterator[DemoStep]:
    """Play every built-in engagement in order; each attack sees the battle the previous ones left."""
    for name, order in ENGAGEMENTS:
        path = example_path(name)
        ruleset, battle = battle_from_mapping(parse_scenario(path.read_text(encoding="utf-8"), "yaml"), name)
        title: Any = getattr(battle, "name", None) or name
        for i, attack in enumerate(order):
            last = i == len(order) - 1
            if isinstance(attack, str):
                battle, _ = ruleset.end_turn(battle)
                continue
            ids = ruleset.unit_ids(battle)
            if attack.attacker not in ids or (attack.target is not None and attack.target not in ids):
                continue  # destroyed earlier in the engagement
            check = ruleset.check(battle, attack)
            if check.plan is None:
                yield DemoStep(title, ruleset.key, check, None, None, tuple(ruleset.status(battle)), last)
                continue
            odds = ruleset.odds(check.plan)
            resolution = ruleset.resolve(check.plan, SeededSource(seed + i))
            battle = ruleset.apply(battle, resolution)
            yield DemoStep(title, ruleset.key, check, odds, resolution, tuple(ruleset.status(battle)), last)
