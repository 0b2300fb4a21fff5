"""Results as types: one frozen outcome type per game, Bushido's nominations and swerve's lines of play as typed
values; their JSON is the design's (``tests/test_golden.py`` holds it to what it was, key for key)."""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction
from pathlib import Path

import pytest

from rangefire.core import LinesOfPlay, Odds, Outcome, Resolution, SeededSource
from rangefire.demo import example_path
from rangefire.rulesets import find_ruleset, load_battle
from rangefire.rulesets.arcane_legions import ArcaneOutcome
from rangefire.rulesets.bushido import BushidoOutcome
from rangefire.rulesets.dress_on_the_colors import DressOutcome
from rangefire.rulesets.swerve import SwerveOutcome

CASES = [("wheatfield.yaml", "15th-alabama", None, DressOutcome),
         ("ford.yaml", "archers", "orc-band", ArcaneOutcome),
         ("temple.yaml", "yoichi", "takeda", BushidoOutcome),
         ("ambush.yaml", "rail-gun", "dune-buggy", SwerveOutcome)]


@pytest.mark.parametrize(("example", "attacker", "target", "kind"), CASES, ids=[c[0] for c in CASES])
def test_each_game_resolves_to_its_own_frozen_outcome(example, attacker, target, kind):
    ruleset, battle = load_battle(example_path(example))
    for seed in range(1, 6):
        resolution, _ = ruleset.play(battle, ruleset.attack(attacker, target), SeededSource(seed))
        assert isinstance(resolution, Resolution) and type(resolution.outcome) is kind
        with pytest.raises(dataclasses.FrozenInstanceError):
            resolution.outcome.hits = 99  # type: ignore[misc]
        named = set(ruleset.outcome_names) | set(ruleset.event_names)
        assert named <= {f.name for f in dataclasses.fields(kind)}
        assert resolution.to_dict()["outcome"] == resolution.outcome.to_dict()


def test_an_outcome_leaves_out_what_the_game_did_not_report_and_gives_lists():
    """Bushido reports ``removed`` only when the attack hits, ``fails`` only when it fails before a roll."""
    assert BushidoOutcome(hit=False, success_level=0, wounds=0).to_dict() == {
        "hit": False, "success_level": 0, "wounds": 0}
    assert list(BushidoOutcome(hit=True, success_level=2, wounds=3, removed=False).to_dict()) == [
        "hit", "success_level", "wounds", "removed"]
    assert BushidoOutcome(False, 0, 0, fails=True).to_dict()["fails"] is True
    spent = SwerveOutcome(True, 1, 5, 35, 30, False, ("a", "b")).to_dict()["spent"]
    assert spent == ["a", "b"] and isinstance(spent, list)
    assert Outcome().to_dict() == {}


def test_nominations_are_odds_of_their_own():
    """BU-4.2: the odds were each nominee the target, as typed Odds aimed at it, written under ``nominations``."""
    bushido, battle = load_battle(example_path("temple.yaml"))
    odds = bushido.odds(bushido.plan(battle, bushido.attack("yoichi", "takeda")))
    assert list(odds.alternatives) == ["yojimbo"]
    alt = odds.alternatives["yojimbo"]
    assert isinstance(alt, Odds) and alt.plan.target == "yojimbo" and alt.plan.attacker == "yoichi"
    redirected = bushido.odds(bushido.plan(battle, bushido.attack("yoichi", "takeda", {"redirect_to": "yojimbo"})))
    assert alt.events == redirected.events  # the same as the odds of the attack redirected to it
    assert {k: d.to_dict() for k, d in alt.outcomes.items()} == {k: d.to_dict() for k, d in redirected.outcomes.items()}
    data = odds.to_dict()["nominations"]["yojimbo"]
    assert list(data) == ["plan", "outcomes", "events"] and data["events"]["hit"] == str(alt.events["hit"])
    assert "nominations" not in redirected.to_dict() and not redirected.alternatives


def test_lines_of_play_are_typed():
    swerve = find_ruleset("swerve")
    _, battle = load_battle(example_path("sawblade.yaml"))
    odds = swerve.odds(swerve.plan(battle, swerve.attack("sawblade-launcher", "road-warrior")))
    lines = odds.lines
    assert isinstance(lines, LinesOfPlay) and lines.best_line and not lines.cut
    assert all(isinstance(line.attacker_wins, Fraction) for line in lines.lines)
    # the best line's chance is the attacker's chance of the whole combat [SW-6.2]
    best = next(line for line in lines.lines if line.actions == lines.best_line)
    assert best.attacker_wins == odds.events["attacker_wins"]
    data = odds.to_dict()
    assert [k for k in data if k in ("best_line", "value_before_actions", "lines", "lines_cut")] == [
        "best_line", "value_before_actions", "lines", "lines_cut"]
    assert data["lines"][0] == {"actions": list(lines.lines[0].actions),
                                "attacker_wins": str(lines.lines[0].attacker_wins),
                                "damage": lines.lines[0].damage.to_dict()}


def test_no_outcome_or_odds_is_read_by_string_key():
    root = Path(__file__).resolve().parents[1]
    pattern = re.compile(r'outcome\["|\.outcome\.get\(|\.extra\[|\.extra\b(?!\s*=)')
    for path in [*(root / "src").rglob("*.py"), *(root / "tests").rglob("*.py")]:
        if path.name == Path(__file__).name or "web" in path.parts:
            continue
        for number, text in enumerate(path.read_text().splitlines(), start=1):
            if "self.extra" in text or "action.outcome" in text:
                continue  # an error body's extra fields; a log record's outcome as JSON: neither a result
            assert not pattern.search(text), f"{path.relative_to(root)}:{number}: {text.strip()}"
