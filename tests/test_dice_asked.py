"""Dice asked for at the terminal, stage by stage (``resolve --dice ask``), tested through a pseudo-terminal for
each game; and entered dice whose problems are all reported in one message, in stage order."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rangefire.demo import example_path
from rangefire.rulesets import load_battle

#: A prompt ends so; the answer typed is echoed after it.
PROMPT = " > "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _clean(raw: bytes) -> str:
    return ANSI.sub("", raw.decode(errors="replace")).replace("\r\n", "\n")


def session(args: list[str], steps: list[tuple[str, bytes]], choose: bytes | None = None,
            timeout: float = 30) -> tuple[int, str, list[str]]:
    """Run ``rangefire ARGS`` at a terminal. For each step, wait until the pattern shows after the previous step,
    then type its answer; ``choose`` answers every "choose [" prompt of the game's own choices.

    Returns the exit code, the transcript and the prompts asked (the text before each " > "). A prompt that never
    comes fails the test within ``timeout``: the process is killed, the suite never hangs.
    """
    pid, fd = pty.fork()
    if pid == 0:  # the child: rangefire at a terminal
        os.environ["COLUMNS"] = "200"
        os.execv(sys.executable, [sys.executable, "-m", "rangefire.cli", *args])
    pending = list(steps)
    raw = b""
    seen = 0  # where the next step's pattern is looked for
    chosen = 0
    deadline = time.monotonic() + timeout
    code = None
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                raw += chunk
            text = _clean(raw)
            if choose is not None and text.count("choose [") > chosen:
                chosen += 1
                os.write(fd, choose)
                continue
            if pending:
                match = re.compile(pending[0][0]).search(text, seen)
                if match and text.rstrip(" ").endswith(">"):
                    seen = match.end()
                    os.write(fd, pending.pop(0)[1])
    finally:
        done, status = os.waitpid(pid, os.WNOHANG)
        while not done and time.monotonic() < deadline:  # the terminal closed: the process is ending
            time.sleep(0.05)
            done, status = os.waitpid(pid, os.WNOHANG)
        if not done:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            code = -1
        os.close(fd)
    text = _clean(raw)
    assert not pending, f"never asked {pending[0][0]!r}:\n{text}"
    asked = [line.split(PROMPT)[0].strip() for line in text.splitlines() if PROMPT in line]
    return (os.WEXITSTATUS(status) if code is None else code), text, asked


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def copy(tmp_path):
    def made(name: str) -> Path:
        path = tmp_path / name
        path.write_bytes(example_path(name).read_bytes())
        return path
    return made


HIT = r"hit: roll 8 dice, a natural 5\+ hits \(8 stands\)"
SAVE = r"save: roll 3 dice, 4\+ saves \(3 hits on a natural 5\+\)"
DISCIPLINE = r"discipline: roll 2 dice, 2D6 \+1, pass on 6\+ \(a natural 6 on the to-hit dice: suppression\)"


# -- each game, at a terminal ------------------------------------------------------------------------
def test_dress_on_the_colors_asks_hit_save_and_discipline_in_turn_refusing_a_wrong_count_and_a_7(copy, tmp_path):
    """DC-3.1, DC-3.4, DC-4.1, DC-5.2: the hit dice (8 stands, a natural 5+), then one save die per hit (4+ in
    heavy cover), then the discipline check a natural 6 calls for; 4 dice and a 7 are refused and asked again."""
    wheatfield = copy("wheatfield.yaml")
    after = tmp_path / "after.yaml"
    code, text, asked = session(
        ["resolve", str(wheatfield), "-a", "15th-alabama", "--dice", "ask", "--out", str(after)],
        [(HIT, b"6 5 5 1\n"), (r"4 values given, 8 needed", b"6 5 5 1 2 3 4 7\n"),
         (r"7 is not a face of a d6 \(1 to 6\)", b"6,5,5,1,2,3,4,4\n"),
         (SAVE, b"4 2 1\n"), (DISCIPLINE, b"3, 4\n")])
    assert code == 0, text
    assert [re.sub(r"\\", "", p) for p in (HIT, HIT, HIT, SAVE, DISCIPLINE)] == asked
    assert "15th-alabama fires 8 dice (8 stands) at 20th-maine: 6 5 5 1 2 3 4 4" in text
    assert "4 2 1: 1 saved, 2 unsaved" in text and "discipline check 3 4 +1 = 8 against 6" in text
    assert "resolution (entered dice)" in text and "Traceback" not in text
    _, battle = load_battle(after)
    assert next(u for u in battle.units if u.id == "20th-maine").stands == 5


def test_arcane_legions_asks_attack_then_the_reroll_of_the_1s(copy):
    """AL-6.1, AL-6.3: four blue dice against no white (none asked), then the two 1s rolled once more."""
    code, text, asked = session(
        ["resolve", str(copy("ford.yaml")), "-a", "archers", "-t", "orc-band", "--dice", "ask"],
        [(r"attack: roll 4 dice, blue: a die higher than its white die hits, 1 or less rerolled \(against 0 white\)",
          b"6 1 3 1\n"),
         (r"attack-reroll: roll 2 dice, once more for each die showing 1 or less \(archers rolled 6 1 3 1\)",
          b"5 2\n")])
    assert code == 0, text
    assert [a.split(":")[0] for a in asked] == ["attack", "attack-reroll"]
    assert "archers rerolls 2 dice showing 1 or less: 5 2" in text


def test_bushido_asks_the_nomination_then_attack_defense_and_wound(copy):
    """BU-3.2 nomination still asked as a choice; then BU-6.1 both sides' dice, BU-7.2 the wound die at the SL
    the opposed test gave: attack 6 5 1 (7) against 4 2 1 (5) is SL 2."""
    code, text, asked = session(
        ["resolve", str(copy("temple.yaml")), "-a", "yoichi", "-t", "takeda", "--dice", "ask"],
        [(r"attack: roll 3 dice, 1s discarded, highest \+1 per other die, the higher result hits "
          r"\(yoichi at takeda\)", b"6 5 1\n"),
         (r"defense: roll 3 dice, 1s discarded, highest \+1 per other die, the higher result saves", b"4 2 1\n"),
         (r"wound: roll 1 die, 1D6 [+-]\d+ on the wound chart at SL 2 \(the attack hits at SL 2\)", b"9\n"),
         (r"9 is not a face of a d6", b"5\n")], choose=b"1\n")
    assert code == 0, text
    assert "1. keep takeda" in text
    assert [a.split(":")[0] for a in asked] == ["attack", "defense", "wound", "wound"]
    assert "wound die 5" in text


def test_swerve_asks_the_revealed_bonus_from_the_values_the_deck_can_show(copy):
    """SW-4.1, SW-6.1: the lines of play are chosen at the terminal as before; then the top card of a deck
    whose order is unknown is asked for, and a bonus no card shows is refused."""
    code, text, asked = session(
        ["resolve", str(copy("ambush.yaml")), "-a", "rail-gun", "-t", "dune-buggy"],
        [(r"bonus: the combat bonus on top of jason's deck, 0, 5, 10, 15 or 20 \(accuracy \d+ against speed \d+\)",
          b"7\n"),
         (r"7 is not a combat bonus left in the deck that can come up \(0, 5, 10, 15, 20\)", b"15\n")],
        choose=b"1\n")
    assert code == 0, text
    assert "choose [" in text and [a.split(":")[0] for a in asked] == ["bonus", "bonus"]
    assert "reveals a combat bonus of 15" in text


# -- giving up changes nothing ---------------------------------------------------------------------------
def test_ctrl_c_at_a_prompt_exits_130_and_writes_nothing(copy, tmp_path):
    """At a terminal with neither --seed nor --dice the dice are asked for; Ctrl-C at the save prompt: one
    line, exit 130, no --out file, the scenario unchanged, no traceback."""
    wheatfield = copy("wheatfield.yaml")
    before = digest(wheatfield)
    after = tmp_path / "after.yaml"
    code, text, _ = session(["resolve", str(wheatfield), "-a", "15th-alabama", "--out", str(after)],
                            [(HIT, b"6 5 5 1 2 3 4 4\n"), (SAVE, b"\x03")])
    assert code == 130, text
    assert "interrupted; nothing changed" in text and "Traceback" not in text and "Aborted" not in text
    assert not after.exists() and digest(wheatfield) == before


def test_end_of_input_at_a_prompt_exits_2_and_leaves_the_out_file_unchanged(copy):
    """End of input (Ctrl-D) at the discipline prompt: "no dice entered; nothing changed", exit 2; --out
    naming the scenario itself leaves it as it was."""
    wheatfield = copy("wheatfield.yaml")
    before = digest(wheatfield)
    code, text, _ = session(["resolve", str(wheatfield), "-a", "15th-alabama", "--dice", "ask", "--out",
                             str(wheatfield)],
                            [(HIT, b"6 5 5 1 2 3 4 4\n"), (SAVE, b"4 2 1\n"), (DISCIPLINE, b"\x04")])
    assert code == 2, text
    assert "no dice entered; nothing changed" in text and "Traceback" not in text
    assert digest(wheatfield) == before


def test_end_of_input_at_a_choice_exits_2_and_changes_nothing(copy):
    temple = copy("temple.yaml")
    before = digest(temple)
    code, text, _ = session(["resolve", str(temple), "-a", "yoichi", "-t", "takeda", "--seed", "3", "--out",
                             str(temple)], [], choose=b"\x04")
    assert code == 2, text
    assert "no choice entered; nothing changed" in text and "Traceback" not in text
    assert digest(temple) == before


# -- partly entered --------------------------------------------------------------------------------------
def test_dice_entered_beforehand_are_used_and_only_the_missing_stages_asked(copy):
    code, text, asked = session(
        ["resolve", str(copy("wheatfield.yaml")), "-a", "15th-alabama", "--dice", "hit=6,5,5,1,2,3,4,4",
         "--dice", "ask"], [(SAVE, b"4 2 1\n"), (DISCIPLINE, b"3 4\n")])
    assert code == 0, text
    assert [a.split(":")[0] for a in asked] == ["save", "discipline"]
    assert "at 20th-maine: 6 5 5 1 2 3 4 4" in text


def test_a_stage_entered_with_too_few_dice_is_asked_again_saying_why(copy):
    code, text, asked = session(
        ["resolve", str(copy("wheatfield.yaml")), "-a", "15th-alabama", "--dice", "hit=6,5", "--dice", "ask",
         "--dice", "save=4,2,1", "--dice", "discipline=3,4"],
        [(r"hit: 2 dice entered, 8 needed: enter them again\n" + HIT, b"6 5 5 1 2 3 4 4\n")])
    assert code == 0, text
    assert [a.split(":")[0] for a in asked] == ["hit"]


# -- without a terminal ----------------------------------------------------------------------------------
def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rangefire.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "COLUMNS": "200"},
                          stdin=None if stdin is not None else subprocess.DEVNULL)


def test_entered_dice_problems_in_one_message_too_many_hits_before_missing_saves(copy, tmp_path):
    """Nine hit dice for eight, and no save dice: the volley is played with the first eight (3 hits on a
    natural 5+), then one message lists both problems in stage order; exit 2, nothing written."""
    after = tmp_path / "after.yaml"
    proc = run("resolve", str(copy("wheatfield.yaml")), "-a", "15th-alabama", "--dice", "hit=6,5,5,1,2,3,4,4,6",
               "--out", str(after))
    assert proc.returncode == 2
    assert proc.stderr == ("rangefire: entered dice: hit: 9 given, 8 needed; save: 3 needed (3 hits on a natural "
                           "5+), none given\n")
    assert not after.exists()


def test_entered_dice_never_needed_are_listed_after_the_stages_played(copy):
    proc = run("resolve", str(copy("wheatfield.yaml")), "-a", "15th-alabama", "--dice", "hit=6,5,5,1,2,3,4",
               "--dice", "save=4,2,1", "--dice", "discipline=3,4")
    assert proc.returncode == 2
    assert proc.stderr == ("rangefire: entered dice: hit: 8 needed (8 stands), 7 given\n")
    proc = run("resolve", str(copy("wheatfield.yaml")), "-a", "15th-alabama", "--dice", "hit=5,5,5,1,2,3,4,4",
               "--dice", "save=4,2,1,1", "--dice", "discipline=3,4")
    assert proc.stderr == ("rangefire: entered dice: save: 4 given, 3 needed; discipline: 2 given, none needed (the "
                           "attack rolled no discipline dice)\n")


def test_asked_beside_json_the_prompts_go_to_stderr_and_stdout_stays_json(copy):
    proc = run("resolve", str(copy("wheatfield.yaml")), "-a", "15th-alabama", "--dice", "ask", "--json",
               stdin="6 5 5 1 2 3 4 4\n4 2 1\n3 4\n")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["dice"] == {"hit": [6, 5, 5, 1, 2, 3, 4, 4], "save": [4, 2, 1], "discipline": [3, 4]}
    assert data["seed"] is None
    assert "save: roll 3 dice, 4+ saves" in proc.stderr


def test_piped_without_seed_or_dice_rolls_seeded_dice_and_asks_nothing(copy):
    proc = run("resolve", str(copy("wheatfield.yaml")), "-a", "15th-alabama", "--json")
    assert proc.returncode == 0, proc.stderr
    assert isinstance(json.loads(proc.stdout)["seed"], int)


def test_seed_and_dice_ask_together_are_refused(copy):
    proc = run("resolve", str(copy("wheatfield.yaml")), "-a", "15th-alabama", "--dice", "ask", "--seed", "1")
    assert proc.returncode == 2 and "give either --seed or --dice, not both" in proc.stderr


def test_arcane_legions_says_what_defense_dice_and_both_rerolls_need_al_6_3():
    """AL-6.1, AL-6.3: the white dice, the rerolls of each side (before the bonuses) and the +1 to each die are
    said when asked."""
    from rangefire.core import AskedSource, Question
    from tests.arcane_legions.test_rules import AL, A, T, attack, battle

    a = A(slots=[{"icons": ["blue"]}] * 5, abilities={"reroll_attack_at_most": 2, "attack_die_bonus": 1})
    t = T(slots=[{"icons": ["white"]}] * 4, abilities={"defense_die_bonus": 1, "reroll_defense_at_most": 1})
    answers = {"attack": "6 2 5 1 4", "defense": "1 3 5 6", "attack-reroll": "3 6", "defense-reroll": "2"}
    asked: list[str] = []

    def ask(question: Question) -> tuple[int, ...]:
        asked.append(question.prompt())
        return question.read(answers[question.stage])

    resolution = AL.resolve(AL.plan(battle(a, t), attack()), AskedSource(ask))
    assert asked == [
        "attack: roll 5 dice, blue: a die higher than its white die hits, 2 or less rerolled, +1 to each "
        "(against 4 white)",
        "defense: roll 4 dice, white: a die as high as its blue die stops it, 1 or less rerolled, +1 to each "
        "(against 5 blue)",
        "attack-reroll: roll 2 dice, once more for each die showing 2 or less (A rolled 6 2 5 1 4)",
        "defense-reroll: roll 1 die, once more for each die showing 1 or less (T rolled 1 3 5 6)"]
    assert resolution.dice == {"attack": (6, 2, 5, 1, 4), "defense": (1, 3, 5, 6), "attack-reroll": (3, 6),
                               "defense-reroll": (2,)}
