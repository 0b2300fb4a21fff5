"""The JSON of every attack in the example battles is what it was when ``tests/golden/results.json`` was written:
the typed results (outcomes, nominations, lines of play) give exactly the keys and values of design section 5."""

from __future__ import annotations

import json

import pytest

from tests.golden.make import OUT, results

GOLDEN = json.loads(OUT.read_text())
NOW = results()


@pytest.mark.parametrize("example", sorted(GOLDEN))
def test_every_attack_gives_the_json_it_gave(example):
    before, now = GOLDEN[example], NOW[example]
    assert list(now) == list(before)
    for label, case in before.items():
        # compared as text too: the order of the keys is part of what a reader of the JSON sees
        assert json.dumps(now[label]) == json.dumps(case), label


def test_the_cases_cover_every_game_and_its_choices():
    labels = " ".join(label for cases in GOLDEN.values() for label in cases)
    assert all(choice in labels for choice in ("order=close", "from_side=", "redirect_to=", "actions="))
    odds = [case["odds"] for cases in GOLDEN.values() for case in cases.values() if "odds" in case]
    assert {o["ruleset"] for o in odds} == {"dress-on-the-colors", "arcane-legions", "bushido", "swerve"}
    assert any("nominations" in o for o in odds) and any("best_line" in o for o in odds)
