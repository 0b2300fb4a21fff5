"""The command line (design section 5): verbs, JSON contract, errors without tracebacks, files untouched."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples" / "wheatfield.yaml"


def run(*args: str, ok: int | None = 0, columns: int = 200) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns)}
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", *args], capture_output=True, text=True,
                          timeout=120, env=env)
    if ok is not None:
        assert proc.returncode == ok, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    return proc


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "wheatfield.yaml"
    path.write_bytes(EXAMPLE.read_bytes())
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_rulesets_lists_options_and_defaults():
    data = json.loads(run("rulesets", "--json").stdout)
    doc = next(r for r in data["rulesets"] if r["key"] == "dress-on-the-colors")
    assert doc["options"] == {"arc": "corners", "discipline_dice": 2, "discipline_pass": 6}
    assert doc["stages"] == ["hit", "save", "discipline"]
    assert "dress-on-the-colors" in run("rulesets").stdout


def test_odds_json_contract(scenario):
    """odds --json: the keys the design fixes, exact fractions as strings, distributions summing to 1."""
    data = json.loads(run("odds", str(scenario), "--attacker", "15th-alabama", "--target", "20th-maine",
                          "--json").stdout)
    assert {"ruleset", "attacker", "target", "legal", "refusals", "plan", "outcomes", "events", "exact"} <= set(data)
    assert (data["ruleset"], data["legal"], data["exact"], data["refusals"]) == ("dress-on-the-colors", True, True, [])
    assert data["plan"]["modifiers"] == [{"clause": "DC-7.2", "delta": -1,
                                          "reason": "firing through gunsmoke (20th-maine:gunsmoke) over 12.00 in"}]
    for name in ("hits", "unsaved_hits", "stands_lost"):
        dist = data["outcomes"][name]["distribution"]
        assert sum(Fraction(p) for p in dist.values()) == 1
        assert Fraction(data["outcomes"][name]["mean"]) == sum(int(k) * Fraction(p) for k, p in dist.items())
    assert {"suppression", "disorder"} <= set(data["events"])
    assert data["events"]["suppression"] == str(1 - Fraction(5, 6) ** 8)


def test_people_output_shows_clauses_and_at_least(scenario):
    text = run("odds", str(scenario), "-a", "15th-alabama").stdout
    assert "DC-7.2" in text and "at least N" in text and "exactly N" in text


def test_check_refusal_exit_1_with_clause(scenario):
    proc = run("check", str(scenario), "-a", "83rd-pennsylvania", "-t", "15th-alabama", "--json", ok=1)
    data = json.loads(proc.stdout)
    assert data["legal"] is False and data["refusals"][0]["clause"] == "DC-2.3"


def test_resolve_same_seed_same_battle_and_out_round_trips(scenario, tmp_path):
    out = tmp_path / "after.json"
    first = json.loads(run("resolve", str(scenario), "-a", "15th-alabama", "--seed", "5", "--json",
                           "--out", str(out)).stdout)
    second = json.loads(run("resolve", str(scenario), "-a", "15th-alabama", "--seed", "5", "--json").stdout)
    assert first == second
    assert {"log", "dice", "outcome", "battle"} <= set(first)
    assert all(line["clause"].startswith("DC-") for line in first["log"])
    # the battle written by --out is read again by every command
    assert json.loads(out.read_text()) == first["battle"]
    again = json.loads(run("check", str(out), "-a", "47th-alabama", "--json").stdout)
    assert again["legal"] is True


def test_resolve_entered_dice(scenario):
    data = json.loads(run("resolve", str(scenario), "-a", "47th-alabama", "--dice", "hit=6,5,4,3,2,1",
                          "--dice", "discipline=6,6", "--json").stdout)
    assert data["dice"] == {"hit": [6, 5, 4, 3, 2, 1], "discipline": [6, 6]}
    assert data["outcome"]["hits"] == 3


@pytest.mark.parametrize(("args", "code", "needle"), [
    (("check", "{s}", "-a", "1st-minnesota"), 2, "attacker '1st-minnesota' is not in this battle"),
    (("resolve", "{s}", "-a", "83rd-pennsylvania", "-t", "15th-alabama", "--seed", "1", "--out", "{s}"), 1, "DC-2.3"),
    (("odds", "{s}", "-a", "83rd-pennsylvania", "-t", "15th-alabama"), 1, "DC-2.3"),
    (("resolve", "{s}", "-a", "47th-alabama", "--dice", "wound=6", "--out", "{s}"), 2, "unknown dice stage 'wound'"),
    (("resolve", "{s}", "-a", "47th-alabama", "--dice", "hit=6,5", "--out", "{s}"), 2, "stage hit: needs 6 dice"),
    (("resolve", "{s}", "-a", "47th-alabama", "--dice", "hit=6,5,4,3,2,9", "--out", "{s}"), 2, "not a face"),
    (("resolve", "{s}", "-a", "47th-alabama", "--dice", "hit=1,1,1,1,1,1,1", "--out", "{s}"), 2, "7 dice entered"),
    (("check", "{missing}", "-a", "x"), 2, "cannot read"),
])
def test_bad_input_one_line_non_zero_file_untouched(scenario, tmp_path, args, code, needle):
    """Unknown unit, illegal target, bad entered dice: one line on stderr, exit code, scenario unchanged."""
    before = digest(scenario)
    argv = [a.format(s=scenario, missing=tmp_path / "nope.yaml") for a in args]
    proc = run(*argv, ok=code, columns=50)  # a narrow terminal must not wrap the message
    assert needle in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert digest(scenario) == before


def test_scenario_errors_list_every_problem(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: dress-on-the-colors\nunits:\n  - {id: a, side: b, stands: -3}\n")
    proc = run("check", str(bad), "-a", "a", ok=2)
    assert "units[0].stands: must be a whole number >= 1, got -3" in proc.stderr
    assert "units[0].weapon: is required" in proc.stderr


def test_plot_writes_a_chart(scenario, tmp_path):
    chart = tmp_path / "odds.png"
    run("odds", str(scenario), "-a", "47th-alabama", "--plot", str(chart))
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_plays_the_engagement():
    """DC-8.1: the demo shows odds then the log of each volley, every line with its clause."""
    text = run("demo").stdout
    for clause in ("DC-3.1", "DC-4.3", "DC-5.1", "DC-6.1", "DC-7.1", "DC-7.2", "DC-4.2"):
        assert clause in text
    data = json.loads(run("demo", "--json").stdout)
    assert len(data["steps"]) >= 5
    assert data == json.loads(run("demo", "--json").stdout)  # deterministic
