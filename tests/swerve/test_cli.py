"""swerve at the command line: --actions, refusals with clauses (SW-3.1, SW-3.4, SW-2.1, SW-1.1), the
scenario untouched, and a player asked for each action at a terminal (SW-3.1, SW-3.2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.terminal import at_terminal
from tests.test_cli import EXAMPLE, digest, run

SAWBLADE = EXAMPLE.parent / "sawblade.yaml"
LINE = "attacker:pass,defender:swerve-target,attacker:pass,defender:pass"


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "sawblade.yaml"
    path.write_bytes(SAWBLADE.read_bytes())
    return path


def test_resolve_the_rules_example(scenario, tmp_path):
    """SW-7.1 from the command line, JSON as the design fixes it; --out then refuses the swerved launcher."""
    out = tmp_path / "after.yaml"
    data = json.loads(run("resolve", str(scenario), "-a", "sawblade-launcher", "-t", "road-warrior",
                          "--actions", LINE, "--json", "--out", str(out)).stdout)
    assert data["outcome"]["attacker_wins"] is False and data["outcome"]["damage"] == 0
    assert data["outcome"]["accuracy"] == 35 and data["outcome"]["speed"] == 40
    proc = run("check", str(out), "-a", "sawblade-launcher", "-t", "road-warrior", "--json", ok=1)
    refusal = json.loads(proc.stdout)["refusals"][0]
    assert refusal["clause"] == "SW-2.1" and "swerved" in refusal["reason"]


def test_odds_json_has_best_line_and_lines(scenario):
    data = json.loads(run("odds", str(scenario), "-a", "sawblade-launcher", "-t", "road-warrior",
                          "--json").stdout)
    assert data["events"] == {"attacker_wins": "0"}
    assert data["outcomes"]["damage"]["distribution"] == {"0": "1"}
    assert data["best_line"] == LINE.split(",")
    assert {tuple(line["actions"]) for line in data["lines"]} >= {tuple(LINE.split(","))}


@pytest.mark.parametrize(("actions", "clause"), [
    ("defender:pass", "SW-3.1"),  # out of turn
    ("attacker:pass,defender:swerve-target,attacker:pass,defender:swerve-target", "SW-3.4"),
    ("attacker:play:nitro", "SW-1.1"),  # a card that does not exist
    ("attacker:swerve:road-warrior", "SW-3.3"),
])
def test_illegal_actions_refused_file_untouched(scenario, actions, clause):
    before = digest(scenario)
    proc = run("resolve", str(scenario), "-a", "sawblade-launcher", "-t", "road-warrior", "--actions", actions,
               "--out", str(scenario), ok=1)
    assert f"[{clause}]" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert digest(scenario) == before


def test_actions_do_not_apply_to_other_games():
    proc = run("resolve", str(EXAMPLE), "-a", "47th-alabama", "--actions", "attacker:pass", ok=2)
    assert "--actions does not apply to dress-on-the-colors" in proc.stderr


def test_a_terminal_is_asked_for_each_action(scenario):
    """Without --actions at a terminal, each player in turn picks from the legal actions."""
    # attacker: 1 (pass); defender: 2 (swerve-target); attacker: 1 (pass); defender: 1 (pass)
    code, text, left = at_terminal(["resolve", str(scenario), "-a", "sawblade-launcher", "-t", "road-warrior",
                                    "--seed", "1"], [b"1\n", b"2\n", b"1\n", b"1\n"])
    assert code == 0, text
    assert not left, text
    assert "2. defender:swerve-target" in text
    assert "total speed 20 + 20 = 40" in text and "the defender wins" in text


def test_piped_without_actions_plays_the_best_line(scenario):
    """No terminal and no --actions: both sides play the best line, and the log says so [SW-6.2]."""
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", "resolve", str(scenario), "-a", "sawblade-launcher",
                           "-t", "road-warrior", "--seed", "1", "--json"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    data = json.loads(proc.stdout)
    assert any(line["clause"] == "SW-6.2" for line in data["log"])
    assert data["outcome"]["speed"] == 40


def test_the_terminal_shows_the_first_lines_and_counts_the_rest(tmp_path):
    """The issue's case at the terminal: the best line, the first 20 of the 2000 lines listed (in the order
    --json lists them) and a count of the rest, not a table of 2000 rows."""
    from tests.swerve.test_best_play import issue_case

    path = tmp_path / "big.json"
    path.write_text(json.dumps(issue_case(6)))
    args = ("odds", str(path), "-a", "launcher", "-t", "rider")
    shown = run(*args, columns=1000).stdout  # wide enough for a line of 27 actions on one row
    listed = json.loads(run(*args, "--json").stdout)["lines"]
    assert "best line (each side maximising its own chance): attacker:pass, defender:swerve-target" in shown
    assert "... and 1980 more lines (--json lists the first 2000)" in shown
    rows = [row.split("│")[1].strip() for row in shown.splitlines() if row.startswith("│ attacker:")]
    assert rows == [", ".join(x["actions"]) for x in listed[:20]]
    assert ", ".join(listed[20]["actions"]) + " " not in shown


def test_a_short_list_is_shown_whole(scenario):
    shown = run("odds", str(scenario), "-a", "sawblade-launcher", "-t", "road-warrior").stdout
    assert "attacker:pass, defender:pass" in shown and "more line" not in shown
