"""The command line (design section 5): verbs, JSON contract, errors without tracebacks, files untouched."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

import pytest

from rangefire.rulesets import RULESETS
from tests.commands import run, run_here

EXAMPLE = Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples" / "wheatfield.yaml"




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
    rulings = {name: doc["options"][name] for name in ("arc", "discipline_dice", "discipline_pass",
                                                        "one_volley_per_turn")}
    assert rulings == {"arc": "corners", "discipline_dice": 2, "discipline_pass": 6, "one_volley_per_turn": True}
    # the tables' numbers are options too, at the rules' values [DC-4.1] (tests/dress_on_the_colors/test_options.py)
    assert doc["options"]["cover_save"] == {"open": "none", "light": 5, "heavy": 4}
    assert doc["stages"] == ["hit", "hit-reroll", "save", "discipline"]  # hit-reroll: only where a house rule re-rolls
    assert "dress-on-the-colors" in run("rulesets").stdout


@pytest.mark.parametrize("columns", [60, 110])
def test_the_list_of_commands_wraps_only_where_the_width_does(columns):
    """``rangefire --help`` lists each command with its summary wrapped to the terminal: a line of a summary
    breaks only where the next word would not fit, never where the docstring's source line happened to end."""
    lines = run("--help", columns=columns).stdout.splitlines()
    start = next(i for i, s in enumerate(lines) if "Commands" in s) + 1
    rows = [s for s in lines[start:] if s.startswith("│")]
    name = re.match(r"│ \S+ +", rows[0])
    assert name is not None
    text_at = name.end()  # where the summaries begin
    width = len(rows[0].rstrip().rstrip("│")) - text_at  # the summaries' column, up to the border
    blocks: list[list[str]] = []
    for row in rows:
        if row[1:text_at].strip():  # a command's name: a new summary begins
            blocks.append([])
        blocks[-1].append(row[text_at:].rstrip("│ "))
    assert len(blocks) >= 15
    for block in blocks:
        for here, after in pairwise(block):
            assert len(here) + 1 + len(after.split(" ")[0]) > width - 1, (columns, here, after)


@pytest.mark.parametrize("columns", [60, 120])
def test_rulesets_at_any_width_keeps_each_option_and_choice_whole(columns):
    """At a narrow terminal the table gives way to a block a game; no option path or choice is broken; the
    overview points at each game's own listing, which has every option by path with its default and clause."""
    shown = run_here("rulesets", columns=columns).stdout
    for game in json.loads(run_here("rulesets", "--json").stdout)["rulesets"]:
        assert f"rulesets {game['key']}" in shown
        for choice in game["choices"]:
            assert f"--{choice['name'].replace('_', '-')}" in shown and choice["clause"] in shown
        one = run_here("rulesets", game["key"], columns=columns).stdout
        for option in game["option_list"]:
            assert option["path"] in one and json.dumps(option["default"]) in one, (columns, option)
            assert f"{option['clause']}" in one


@pytest.mark.parametrize("game", ["dress-on-the-colors", "bushido"])
def test_a_games_options_at_a_narrow_terminal_keep_their_help_under_their_path(game):
    """Below the table's width each option is its path on a line, its help indented under it: a help that wraps
    keeps its indent, so no line of it reads as an option of its own."""
    shown = run("rulesets", game, columns=60).stdout.splitlines()
    body = shown[next(i for i, row in enumerate(shown) if row.startswith("options.")):]
    strays = [row for row in body if not row.startswith(("options.", "choice ", "    "))]
    assert strays == []


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
    # each fraction's column is headed as the exact answer, not left blank beside its percentage
    headers = [[cell.strip() for cell in row.split("┃")[1:-1]] for row in text.splitlines() if "┃" in row]
    assert ["N", "exactly N", "exact", "at least N", "exact", "at most N", "exact"] in headers
    assert ["event", "probability", "exact"] in headers


@pytest.mark.parametrize("columns", [60, 110])
def test_odds_show_every_fraction_whole_at_any_width(scenario, columns):
    """The exact fractions are the answer: at a narrow terminal a fraction breaks after its slash, the
    denominator under the numerator, and is never cut short with an ellipsis (``390625/1679…``); wide, it
    stands on one line."""
    shown = run("odds", str(scenario), "-a", "15th-alabama", columns=columns).stdout
    assert "…" not in shown
    assert all(len(row) <= columns for row in shown.splitlines())
    cells = [cell.strip() for row in shown.splitlines() for cell in row.split("│")]
    data = json.loads(run("odds", str(scenario), "-a", "15th-alabama", "--json").stdout)
    for named in data["outcomes"].values():
        for fraction in named["distribution"].values():
            numerator, slash, denominator = fraction.partition("/")
            broken = bool(slash) and f"{numerator}/" in cells and denominator in cells
            assert fraction in cells or (columns < 80 and broken), (columns, fraction)


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
    (("resolve", "{s}", "-a", "47th-alabama", "--dice", "hit=6,5", "--out", "{s}"), 2,
     "hit: 6 needed (4 stands + 2 enfilade [DC-6.2]), 2 given"),
    (("resolve", "{s}", "-a", "47th-alabama", "--dice", "hit=6,5,4,3,2,9", "--out", "{s}"), 2, "not a face"),
    (("resolve", "{s}", "-a", "47th-alabama", "--dice", "hit=1,1,1,1,1,1,1", "--out", "{s}"), 2,
     "hit: 7 given, 6 needed"),
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
    text = run_here("demo").stdout
    for clause in ("DC-3.1", "DC-4.3", "DC-5.1", "DC-6.1", "DC-7.1", "DC-7.2", "DC-4.2"):
        assert clause in text
    data = json.loads(run_here("demo", "--json").stdout)
    assert len(data["steps"]) >= 5
    refused = [step["odds"] for step in data["steps"] if not step["odds"]["legal"]]
    assert refused and all(step["ruleset"] in {r.key for r in RULESETS} for step in refused)  # each names its game
    assert data == json.loads(run("demo", "--json").stdout)  # deterministic, in a process of its own too


def test_demo_says_what_it_plays_and_ends_with_commands_that_run():
    """A newcomer's first run (``make demo``) opens by saying what it plays and closes with what to type next:
    the folder of its battles and commands on one of them, each of which runs as suggested."""
    shown = run("demo", columns=100).stdout.splitlines()
    assert shown[0].startswith("rangefire demo: the built-in example battles")
    heads = [re.fullmatch(r"─+ (.+): attack (\d+) ─+", row) for row in shown]
    attacks = [(head[1], int(head[2])) for head in heads if head]
    assert len({battle for battle, _ in attacks}) == 6
    for (battle, number), (before, counted) in zip(attacks, [("", 0), *attacks], strict=False):
        assert number == (counted + 1 if battle == before else 1), (battle, number)  # counted within a battle
    after = shown[next(i for i, row in reversed(list(enumerate(shown))) if row.startswith("─")) + 1:]
    assert after[0].startswith("next, play these battles yourself")
    assert after[-1] == "rangefire --help lists every command; rangefire COMMAND --help says more"
    steps = [row.strip() for row in after[1:-1]]
    folder = next(Path(step[3:]) for step in steps if step.startswith("cd "))
    assert (folder / "wheatfield.yaml").is_file()
    tried = [step.split()[1:] for step in steps if step.startswith("rangefire ") and "--dice ask" not in step]
    assert len(tried) >= 2
    for args in tried:
        proc = subprocess.run([sys.executable, "-m", "rangefire.cli", *args], cwd=folder, capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0 and "DC-4.2" in proc.stdout, (args, proc.stderr)


@pytest.mark.parametrize("dice", ["hit=²", "hit=" + "6" * 5000])
def test_entered_dice_that_int_cannot_read_exit_2(scenario, dice):
    """Today both are ValueError tracebacks."""
    proc = run("resolve", str(scenario), "-a", "47th-alabama", "--dice", dice, ok=2)
    assert "--dice hit" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".toml"])
def test_a_number_over_4300_digits_in_a_file_exits_2(tmp_path, suffix):
    path = tmp_path / f"big{suffix}"
    digits = "1" * 5000
    path.write_text({".yaml": f"ruleset: swerve\nx: {digits}\n", ".json": f'{{"ruleset": "swerve", "x": {digits}}}',
                     ".toml": f'ruleset = "swerve"\nx = {digits}\n'}[suffix])
    proc = run("check", str(path), "-a", "x", ok=2)
    assert "more than 4300 digits" in proc.stderr


# -- scenario text is shown as text ---------------------------------------------------------------------
HOSTILE = "\x1b[31m\x07\u202e\x00[/x] [masterwork] [b]b :smile:"
SHOWN = "\\x1b[31m\\x07\\u202e\\x00[/x] [masterwork] [b]b :smile:"


def _hostile_scenario(tmp_path: Path, example: str) -> Path:
    import yaml

    data = yaml.safe_load((EXAMPLE.parent / example).read_text())
    data["name"] = HOSTILE
    rename = {}
    for unit in data.get("units", []):
        rename.setdefault(unit["side"], HOSTILE + unit["side"])
        unit["side"] = rename[unit["side"]]
        if isinstance(unit.get("weapon"), dict):
            unit["weapon"]["name"] = HOSTILE + unit["weapon"]["name"]
        unit["traits"] = [HOSTILE] if data["ruleset"] == "bushido" else unit.get("traits", [])
        if not unit["traits"]:
            del unit["traits"]
    if "active_side" in data:
        data["active_side"] = rename[data["active_side"]]
    if data["ruleset"] == "swerve":
        rename = {p: HOSTILE + p for p in data["players"]}
        for card in data["cards"]:
            card["owner"] = rename[card["owner"]]
            card["name"] = HOSTILE + card.get("name", "")
            if "mission" in card:
                card["mission"] = HOSTILE
        data["hands"] = {rename[p]: cards for p, cards in data.get("hands", {}).items()}
    if "players" in data:
        data["players"] = {rename.get(p, p): v for p, v in data["players"].items()}
    path = tmp_path / (Path(example).stem + ".json")
    path.write_text(json.dumps(data))
    return path


HOSTILE_ATTACKS = [("wheatfield.yaml", ["-a", "47th-alabama"]), ("ford.yaml", ["-a", "archers", "-t", "orc-band"]),
                   ("temple.yaml", ["-a", "yoichi", "-t", "takeda"]), ("mist-bridge.yaml", ["-a", "archer", "-t",
                                                                                            "acolyte"]),
                   ("sawblade.yaml", ["-a", "sawblade-launcher", "-t", "road-warrior", "--actions",
                                      "attacker:pass,defender:swerve-target,attacker:pass,defender:pass"]),
                   ("ambush.yaml", ["-a", "rail-gun", "-t", "dune-buggy"])]


@pytest.mark.parametrize(("example", "attack"), HOSTILE_ATTACKS)
def test_scenario_text_is_never_read_as_markup_or_sent_raw_to_the_terminal(tmp_path, example, attack):
    """A weapon or player named `[/x]` crashed every table, `yumi [masterwork]` showed as `yumi`, and escape
    sequences from the file reached the terminal: names are shown as text, control characters visibly."""
    path = _hostile_scenario(tmp_path, example)
    outputs = []
    for command in (["check"], ["odds"], ["resolve", "--seed", "3"]):
        proc = run(*command, str(path), *attack, ok=None)
        assert proc.returncode in (0, 1), (command, proc.stderr)
        outputs.append(proc.stdout + proc.stderr)
    text = "\n".join(outputs)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text and "\x00" not in text
    if example in ("temple.yaml", "sawblade.yaml"):  # the weapon's and the cards' names are shown
        assert SHOWN in text, text


def test_a_control_character_in_an_error_is_shown_visibly(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"ruleset": "swerve", "players": {}, "\x1b[2Jkey": 1}))
    proc = run("check", str(path), "-a", "x", ok=2)
    assert "\x1b" not in proc.stderr and "[2Jkey" in proc.stderr


@pytest.mark.parametrize("where", ["missing", "folder"])
def test_resolve_out_where_it_cannot_write_exits_2_and_the_scenario_survives(scenario, tmp_path, where):
    target = {"missing": tmp_path / "no" / "after.yaml", "folder": tmp_path / "after.yaml"}[where]
    if where == "folder":
        target.mkdir()
    before = digest(scenario)
    proc = run("resolve", str(scenario), "-a", "47th-alabama", "--seed", "1", "--out", str(target), ok=2)
    assert "cannot write" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert digest(scenario) == before


def test_a_chart_into_a_missing_folder_exits_2(scenario, tmp_path):
    proc = run("odds", str(scenario), "-a", "47th-alabama", "--plot", str(tmp_path / "no" / "chart.png"), ok=2)
    assert "cannot write" in proc.stderr


@pytest.mark.parametrize("special", ["fifo", "zero"])
def test_special_files_exit_2(tmp_path, special):
    path = tmp_path / "s.yaml"
    if special == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    proc = run("check", str(path), "-a", "x", ok=2)
    assert "not a regular file" in proc.stderr


@pytest.mark.parametrize("seed", ["abc", "9" * 5000, "²"])
def test_a_seed_that_is_not_a_whole_number_is_refused_in_our_words(scenario, seed):
    """Today: the option parser's box, "Input should be a valid integer" (pydantic's wording)."""
    proc = run("resolve", str(scenario), "-a", "47th-alabama", "--seed", seed, ok=2)
    assert "--seed" in proc.stderr and "must be a whole number" in proc.stderr
    assert "Input should" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_choices_asked_at_a_terminal_show_names_as_text(tmp_path):
    """The prompt for a swerve line of play names the players and their cards: as text there too."""
    from tests.terminal import at_terminal

    path = _hostile_scenario(tmp_path, "sawblade.yaml")
    code, transcript, _ = at_terminal(["resolve", str(path), "-a", "sawblade-launcher", "-t", "road-warrior",
                                       "--seed", "1"], [b"1\n"] * 12)
    assert code == 0, transcript
    assert "choose" in transcript and SHOWN in transcript
    assert "\x07" not in transcript and "\u202e" not in transcript and "\x00" not in transcript
