"""Arcane Legions: sampled orders against exact odds (AL-6.2, AL-6.3, AL-6.4), and orders the rules refuse at
the command line, each with its clause (AL-2.1, AL-2.2, AL-3.1, AL-3.3, AL-4.2, AL-5.1)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from rangefire.core import SeededSource
from rangefire.rulesets import find_ruleset
from tests.arcane_legions.test_rules import A, T, attack, battle
from tests.oracles import chi_square
from tests.test_cli import EXAMPLE, digest, run

AL = find_ruleset("arcane-legions")
FORD = EXAMPLE.parent / "ford.yaml"


def test_seeded_orders_agree_with_exact_odds():
    """30,000 seeded resolutions with rerolls, bonuses and criticals against the exact hits distribution."""
    a = A(slots=[{"icons": ["blue"]}] * 5, abilities={"reroll_attack_at_most": 2, "attack_die_bonus": 1})
    t = T(slots=[{"icons": ["white"]}] * 4, abilities={"defense_die_bonus": 1, "reroll_defense_at_most": 1})
    plan = AL.plan(battle(a, t), attack())
    exact = AL.odds(plan).outcomes["hits"].probabilities()
    source = SeededSource(17)
    n = 30_000
    seen = Counter(AL.resolve(plan, source).outcome.hits for _ in range(n))
    assert chi_square(seen, exact, n) > 1e-3


@pytest.fixture
def ford(tmp_path: Path) -> Path:
    path = tmp_path / "ford.yaml"
    path.write_bytes(FORD.read_bytes())
    return path


@pytest.mark.parametrize(("args", "clause"), [
    (("-a", "spearmen", "-t", "orc-band"), "AL-2.1"),  # adjacent to the wolf riders
    (("-a", "wolf-riders", "-t", "archers"), "AL-2.1"),
    (("-a", "archers", "-t", "orc-band", "--from-side", "back"), "AL-3.3"),
])
def test_refusals_at_the_command_line(ford, args, clause):
    before = digest(ford)
    proc = run("resolve", str(ford), *args, "--seed", "1", "--out", str(ford), ok=1)
    assert f"[{clause}]" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert digest(ford) == before


def test_more_refusals_with_their_clauses(tmp_path):
    """No ready blue icon, out of range, blocked, too few order points: each refused with its clause."""
    cases = {
        "AL-2.2": battle(A(slots=[{"icons": ["red"]}]), T()),
        "AL-3.1": battle(A(), T(12)),
        "AL-4.2": battle(A(), T(4), terrain=({"id": "cliff", "kind": "blocking",
                                              "polygon": [[-5, 1.5], [5, 1.5], [5, 2], [-5, 2]]},)),
        "AL-5.1": battle(A(base="formation"), T(), points=1),
    }
    for clause, b in cases.items():
        path = tmp_path / f"{clause}.json"
        path.write_text(json.dumps(AL.dump(b)))
        proc = run("check", str(path), "-a", "A", "-t", "T", "--json", ok=1)
        assert json.loads(proc.stdout)["refusals"][0]["clause"] == clause


def test_odds_json_for_a_named_pair_of_sides(ford):
    data = json.loads(run("odds", str(ford), "-a", "archers", "-t", "orc-band", "--from-side", "front",
                          "--to-side", "front", "--json").stdout)
    assert data["plan"]["sides"] == {"from": "front", "to": "front", "chosen_by_engine": False, "tied_with": []}
    assert set(data["outcomes"]) == {"hits"} and set(data["events"]) == {"critical"}
    data = json.loads(run("odds", str(ford), "-a", "spearmen", "-t", "wolf-riders", "--order", "close",
                          "--json").stdout)
    assert set(data["outcomes"]) == {"hits", "defender_hits"}


def test_resolve_out_writes_the_damage(ford, tmp_path):
    out = tmp_path / "after.yaml"
    run("resolve", str(ford), "-a", "archers", "-t", "orc-band", "--dice", "attack=6,6,6,5",
        "--out", str(out))
    from rangefire.rulesets import load_battle

    _, after = load_battle(out)
    assert after.players["legion"].order_points == 6
    # four hits on phantoms and a critical: 5 damage, exactly the orc band's hit points: destroyed
    assert "orc-band" not in AL.unit_ids(after)
