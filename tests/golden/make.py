"""Write ``results.json``: the odds and resolve JSON of every attack in the example battles, as the engine gives
them. Run once to fix the shapes; ``tests/test_golden.py`` compares the engine's answers with it ever after.

    PYTHONPATH=src python tests/golden/make.py
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rangefire.core import Attack, RangefireError, SeededSource
from rangefire.rulesets import load_battle

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "rangefire" / "examples"
OUT = Path(__file__).with_name("results.json")
SEEDS = (1, 2, 3, 4, 5, 6)

def attacks(name: str) -> Iterator[tuple[str, Attack]]:
    """Every attacker at every unit of another side, and at none (where the rules choose), with the choices."""
    ruleset, battle = load_battle(EXAMPLES / name)
    ids = list(ruleset.unit_ids(battle))
    for attacker in ids:
        yield f"{attacker}>", Attack(attacker)
        for target in ruleset.enemies(battle, attacker):
            yield f"{attacker}>{target}", Attack(attacker, target)
            if ruleset.key == "arcane-legions":
                for order in ("ranged", "close"):
                    for side in ("front", "left"):
                        yield (f"{attacker}>{target} order={order} from_side={side}",
                               Attack(attacker, target, (("order", order), ("from_side", side))))
            if ruleset.key == "bushido":
                for other in ids:
                    yield (f"{attacker}>{target} redirect_to={other}",
                           Attack(attacker, target, (("redirect_to", other),)))
            if ruleset.key == "swerve":
                try:
                    question = ruleset.next_choices(battle, Attack(attacker, target))
                except RangefireError:
                    question = None
                for answer in question[1] if question else ():
                    yield f"{attacker}>{target} actions={answer}", Attack(attacker, target, (("actions", (answer,)),))


def results() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path in sorted(EXAMPLES.glob("*.yaml")):
        ruleset, battle = load_battle(path)
        cases: dict[str, Any] = {}
        for label, attack in attacks(path.name):
            try:
                checked = ruleset.check(battle, attack)
            except RangefireError as exc:
                cases[label] = {"error": str(exc)}
                continue
            if checked.plan is None:
                cases[label] = {"check": checked.to_dict(ruleset.key)}
                continue
            odds = ruleset.odds(checked.plan).to_dict()
            resolves = []
            for seed in SEEDS:
                res = ruleset.resolve(checked.plan, SeededSource(seed))
                after = json.dumps(ruleset.dump(ruleset.apply(battle, res)), sort_keys=True)
                resolves.append({**res.to_dict(), "battle_sha256": hashlib.sha256(after.encode()).hexdigest()})
            cases[label] = {"odds": odds, "resolve": resolves}
        out[path.name] = cases
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(results(), separators=(",", ":")) + "\n")
