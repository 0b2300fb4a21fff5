"""Results as types: one frozen outcome type per game, Bushido's nominations and swerve's lines of play as typed
values; their JSON is the design's (``tests/test_golden.py`` holds it to what it was, key for key)."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from rangefire.core import LinesOfPlay, Odds, Outcome, Resolution, ScenarioError, SeededSource, UnknownRulesetError
from rangefire.demo import example_path
from rangefire.rulesets import battle_from_mapping, find_ruleset, load_battle
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
    assert list(data) == ["plan", "outcomes", "events", "events_float"]
    assert data["events"]["hit"] == str(alt.events["hit"])
    assert data["events_float"]["hit"] == float(alt.events["hit"])
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
                                "attacker_wins_float": float(lines.lines[0].attacker_wins),
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


# -- a user program typed through: each game loaded by name -----------------------------------------------------
ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / "tests" / "typing" / "user_program.py"


def _mypy(path: Path) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` on one file, from the project's root (its configuration: the pydantic plugin); the file
    itself asks for ``disallow-any-expr`` in its first line, so that no expression of it may be ``Any``."""
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_a_user_program_type_checks_strictly_with_no_any():
    assert PROGRAM.read_text().startswith("# mypy: disallow-any-expr\n")
    proc = _mypy(PROGRAM)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(("change", "said"), [
    # the loader without the game's name: a ruleset and battle of any game, the plan Any
    ('game="dress-on-the-colors")', 'Expression has type "Any"'),
    # a game's values held to another game's type
    ("assert_type(plan, OrderPlan)", "Expression is of type"),
])
def test_the_user_program_fails_where_a_type_degrades(tmp_path, change, said):
    text = PROGRAM.read_text()
    if change.startswith("game="):
        broken = text.replace(', game="dress-on-the-colors")', ")")
    else:
        broken = text.replace("assert_type(plan, VolleyPlan)", change)
    assert broken != text
    path = tmp_path / "user_program.py"
    path.write_text(broken)
    proc = _mypy(path)
    assert proc.returncode == 1 and said in proc.stdout, proc.stdout + proc.stderr


def test_the_user_program_runs():
    proc = subprocess.run([sys.executable, str(PROGRAM)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    said = proc.stdout.splitlines()
    assert "4th-texas is outside 20th-maine's 45° forward arc [DC-2.1]" in said
    assert "ito (the target's player): keep takeda, nominate yojimbo [BU-4.2]" in said
    assert any(line.startswith("[DC-4.1] cover saves on 4+") for line in said)


@pytest.mark.parametrize(("game", "example", "kind"), [
    ("dress-on-the-colors", "wheatfield.yaml", "DressOnTheColors"), ("doc", "wheatfield.yaml", "DressOnTheColors"),
    ("al", "ford.yaml", "ArcaneLegions"), ("bushido", "temple.yaml", "Bushido"), ("swerve", "ambush.yaml", "Swerve")])
def test_loading_a_battle_by_its_games_name(game, example, kind):
    ruleset, battle = load_battle(example_path(example), game=game)
    assert type(ruleset).__name__ == kind and ruleset is find_ruleset(game)
    assert battle == load_battle(example_path(example))[1]
    assert isinstance(battle, ruleset.battle_model)


def test_a_battle_of_another_game_is_refused_by_name():
    with pytest.raises(ScenarioError) as caught:
        load_battle(example_path("temple.yaml"), game="swerve")
    assert list(caught.value.problems) == ["ruleset: must be swerve (the game asked for), got bushido"]
    with pytest.raises(UnknownRulesetError, match="unknown ruleset 'chess'"):
        load_battle(example_path("temple.yaml"), game="chess")
    with pytest.raises(ScenarioError, match="must be bushido"):
        battle_from_mapping({"ruleset": "doc", "units": []}, game="bu")


def test_the_game_keys_of_the_typed_loaders_are_the_registrys():
    """The literal names the loaders are typed by are each game's key and aliases, and no other."""
    import typing

    from rangefire import rulesets

    typed = {name: set(typing.get_args(getattr(rulesets, name))) for name in
             ("DressKey", "ArcaneKey", "BushidoKey", "SwerveKey")}
    assert [typed[k] for k in typed] == [{game.key, *game.aliases} for game in rulesets.GAMES]
    assert set(typing.get_args(rulesets.GameKey)) == set().union(*typed.values())
