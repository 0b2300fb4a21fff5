"""Commands that answer or refuse before a run of seconds, or show their progress and stop on Ctrl-C (issue 20 §2).

- ``duel``: a duel whose exact chain would be too large (sixty stands a side) is refused before any volley is
  worked out, from bounds the game gives (``rangefire.analysis.duel_work``), naming the Monte Carlo; with
  ``--samples`` the Monte Carlo is shown alone.
- the bounds hold what the chain really reaches, so that nothing answered is refused by them;
- ``duel`` and ``table`` tell their progress (states and turns, rows) to a bar on stderr, shown at a terminal only;
  Ctrl-C stops them with one line and exit 130, nothing written.

No test here times anything: each shows what was (not) computed, or what was said.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import rangefire.rulesets.dress_on_the_colors.duel as dc_duel
from rangefire.analysis.duel import duel, sample_duel
from rangefire.analysis.duel_work import DuelTooLarge, estimate_duel
from rangefire.analysis.odds_table import Axis, odds_table
from rangefire.cli.progress import Shown
from rangefire.core import Attack
from rangefire.rulesets import find_ruleset, load_battle
from rangefire.scenario import read_scenario
from rangefire.scenario.paths import Setting
from tests.commands import run
from tests.conftest import dc_battle, unit

WHEATFIELD = Path(__file__).resolve().parent.parent / "examples" / "wheatfield.yaml"
SIXTY = (Setting("units.20th-maine.stands", 60), Setting("units.15th-alabama.stands", 60))


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[Attack]:
    """Every volley the exact chain checks (the game's ``check``), recorded as it is asked for."""
    from rangefire.rulesets.dress_on_the_colors import DressOnTheColors

    asked: list[Attack] = []
    real = DressOnTheColors.check

    def counted(self: Any, battle: Any, attack: Attack) -> Any:
        asked.append(attack)
        return real(self, battle, attack)

    monkeypatch.setattr(DressOnTheColors, "check", counted)
    return asked


# -- the duel refused before its work ------------------------------------------------------------------------------
def test_sixty_stands_a_side_are_refused_before_any_volley_is_worked_out_dc_4_3(checked):
    """The issue's first case: the Wheatfield's two regiments raised to sixty stands gave no answer in a minute.
    Their states (stands, micro-hit marker and disorder of each) are some 115,000 in the two half-turns: refused
    at once, with the Monte Carlo as the way to an answer; no volley checked."""
    doc, battle = load_battle(WHEATFIELD, list(SIXTY))
    with pytest.raises(DuelTooLarge, match="could reach some 115,200 distinct states of the two units, more than "
                                           "the 30,000 worked out exactly: too large to answer exactly") as refusal:
        duel(doc, battle, "20th-maine", "15th-alabama")
    assert checked == []
    assert not refusal.value.work.fits and refusal.value.work.nodes > 30_000


@pytest.mark.parametrize(("firer", "target"), [
    ({"stands": 1}, {"stands": 1}),
    ({"stands": 2}, {"stands": 3, "micro_hits": 1}),
    ({"stands": 3, "disordered": True}, {"stands": 2}),
    ({"stands": 4}, {"stands": 4, "position": (0, 5)}),  # closer: more hits, more states
    # behind the target's front baseline, enfilading: two dice more [DC-6.1, DC-6.2]
    ({"stands": 4, "position": (-4, -3.5), "facing": 90}, {"stands": 6, "position": (5, 0), "facing": 0}),
])
def test_the_bounds_hold_what_the_chain_reaches_dc_4_3_dc_5_3_dc_6_2(firer, target):
    """The estimate is a bound: the states the chain works out are never more (so that no duel answered is
    refused by it); each attack leaves no more battles than the game's bound for it."""
    doc = find_ruleset("dress-on-the-colors")
    f = unit("F", "blue", firer.pop("position", (0, 0)), firer.pop("facing", 0), **firer)
    t = unit("T", "grey", target.pop("position", (0, 8)), target.pop("facing", 180), **target)
    battle = dc_battle(f, t)
    bound = estimate_duel(doc, battle, "F", "T")
    result = duel(doc, battle, "F", "T")
    assert bound is not None and bound.fits and result.states <= bound.nodes, (result.states, bound)
    start = doc.duel_begin(battle, "F")
    for attack in (Attack("F", "T"), Attack("T", "F")):
        most = doc.duel_bounds(start, attack)
        assert most is not None and len(dc_duel.exchanges(doc, start, attack)) <= most[1]


# -- the duel's Monte Carlo alone, and the command -----------------------------------------------------------------
def test_the_command_names_the_monte_carlo_that_would_answer():
    sixty = [arg for s in SIXTY for arg in ("--set", f"{s.path}={s.value}")]
    proc = run("duel", str(WHEATFIELD), "20th-maine", "15th-alabama", *sixty, ok=2)
    assert proc.stdout == "" and proc.stderr.strip().endswith("(--samples N for a Monte Carlo alone)")
    data = json.loads(run("duel", str(WHEATFIELD), "20th-maine", "15th-alabama", *sixty, "--json", ok=2).stdout)
    assert data["error"]["kind"] == "too_large" and "could reach some 115,200" in data["error"]["message"]


def test_a_duel_too_large_with_samples_is_its_monte_carlo_alone(tmp_path):
    """Fifty stands a side could reach some 80,000 states: refused exactly, and with ``--samples`` the Monte
    Carlo alone is the answer, saying why it is alone (in JSON: ``exact`` false and ``exact_refused``), as
    ``sample_duel`` gives it, its intervals beside."""
    scenario = tmp_path / "fifty.json"
    scenario.write_text(json.dumps({"ruleset": "dress-on-the-colors", "units": [
        unit("F", "blue", (0, 0), 0, stands=50), unit("T", "grey", (0, 6), 180, stands=50)]}))
    refused = run("duel", str(scenario), "F", "T", "--turns", "2", ok=2)
    assert "could reach some 80,000 distinct states" in refused.stderr and "--samples N" in refused.stderr
    data = json.loads(run("duel", str(scenario), "F", "T", "--turns", "2", "--samples", "300", "--seed", "4",
                          "--json").stdout)
    assert data["exact"] is False and "too large to answer exactly" in data["exact_refused"]
    assert "winner" not in data and data["left_measure"] == "stands"
    doc, battle = load_battle(scenario)
    assert data["monte_carlo"] == json.loads(json.dumps(sample_duel(doc, battle, "F", "T", 2, 300, 4).to_dict()))
    assert set(data["monte_carlo"]["intervals"]) == {"a", "b", "both", "neither"}
    shown = run("duel", str(scenario), "F", "T", "--turns", "2", "--samples", "300", columns=300).stdout
    assert "a Monte Carlo of 300 duels with their dice rolled" in shown
    assert "no exact odds: the duel of F and T" in shown
    assert "stands left of T" in shown and "neither: none destroyed in 2 turns" in shown
    one = run("duel", str(scenario), "F", "T", "--turns", "1", "--samples", "50", columns=300).stdout
    assert "neither: none destroyed in 1 turn\n" in one


# -- progress ------------------------------------------------------------------------------------------------------
def test_the_duel_and_the_table_tell_their_progress_as_they_go():
    """Each turn of a duel (stepped by the exact chain, and played by the Monte Carlo), each row of a table."""
    doc = find_ruleset("dress-on-the-colors")
    battle = dc_battle(unit("F", "blue", (0, 0), 0, stands=2), unit("T", "grey", (0, 8), 180, stands=2))
    told: list[tuple[int, int]] = []
    duel(doc, battle, "F", "T", turns=3, progress=lambda done, total: told.append((done, total)))
    assert told == [(n, 3) for n in range(1, 4)]
    told.clear()
    sample_duel(doc, battle, "F", "T", turns=2, samples=50, progress=lambda done, total: told.append((done, total)))
    assert told == [(1, 2), (2, 2)]
    told.clear()
    axes = [Axis("units.15th-alabama.stands", (4, 6, 8))]
    odds_table(read_scenario(WHEATFIELD), "15th-alabama", None, axes,
               progress=lambda done, total: told.append((done, total)))
    assert told == [(1, 3), (2, 3), (3, 3)]


class _Phases:
    """A progress that is told of phases: each phase's name with the counts told in it."""

    def __init__(self) -> None:
        self.told: list[tuple[str, list[tuple[int, int | None]]]] = []

    def phase(self, name: str) -> None:
        self.told.append((name, []))

    def __call__(self, done: int, total: int | None) -> None:
        self.told[-1][1].append((done, total))


def test_a_duel_names_each_phase_of_its_work_as_it_begins():
    """To the end: the states worked out, the chain's parts solved (told every 256 and at the end), the turns
    stepped, each counted afresh; with a turn limit, no solving."""
    doc, battle = load_battle(WHEATFIELD)
    to_the_end = _Phases()
    result = duel(doc, battle, "15th-alabama", "20th-maine", progress=to_the_end)
    assert [name for name, _ in to_the_end.told] == ["states", "parts solved", "turns stepped"]
    states, parts, turns = (counts for _, counts in to_the_end.told)
    assert [done for done, _ in states] == list(range(256, result.states + 1, 256))
    assert len({total for _, total in states}) == 1  # the states foreseen before the work
    total = parts[-1][1]
    assert parts == [*((n, total) for n in range(256, total, 256)), (total, total)] and total > 256
    # how many turns are enough to tell the quantiles is known only when they are: no total (not the cap's 1,000)
    assert turns == [(t, None) for t in range(1, result.turns_stepped + 1)]
    capped = _Phases()
    duel(doc, battle, "15th-alabama", "20th-maine", turns=3, progress=capped)
    assert capped.told[0][0] == "states" and capped.told[1] == ("turns stepped", [(1, 3), (2, 3), (3, 3)])


def test_the_progress_bar_names_each_phase():
    """A phase begun: the bar counts afresh under the phase's name, the kind of work said after it."""
    from rich.console import Console

    screen = io.StringIO()
    with Shown("states", console=Console(file=screen, force_terminal=True, width=80), delay=0, kind="exact") as shown:
        shown.phase("states")
        shown(3, 4)
        shown.phase("parts solved")
        shown(1, 9)
        assert shown.bar is not None and shown.bar.tasks[0].completed == 1 and shown.bar.tasks[0].total == 9
    drawn = screen.getvalue()
    assert "states, exact" in drawn and "3/4" in drawn and "parts solved, exact" in drawn and "1/9" in drawn
    assert "/4" not in drawn.split("parts solved")[1]  # never the last phase's total under the new name


def _drawn(width: int, counts: list[tuple[int, int | None]]) -> list[str]:
    """The lines a bar of the duel's phases draws at a terminal ``width`` columns wide, styles taken off."""
    from rich.console import Console

    screen = io.StringIO()
    with Shown("states", console=Console(file=screen, force_terminal=True, width=width), delay=0,
               kind="exact") as shown:
        for k, (done, total) in enumerate(counts):
            shown.phase(f"phase {k}")
            shown(done, total)
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())
    return [line.strip() for line in re.split(r"[\r\n]", plain) if line.strip()]


def test_the_progress_bar_shows_a_count_with_no_known_total_and_fits_a_narrow_terminal():
    """A count whose end is not known beforehand (the turns of a duel to its end) is shown alone, "14/?"; at a
    narrow terminal the name and the counts whole, no bar or time left to cut them short."""
    wide = _drawn(80, [(4352, 12683), (14, None)])
    assert any("phase 0, exact" in line and "4352/12683" in line and "━" in line for line in wide)
    assert any(line.startswith("phase 1, exact") and line.endswith("14/?") for line in wide)
    assert len(max(wide, key=len)) <= 80
    narrow = _drawn(40, [(4352, 12683), (14, None)])
    assert "phase 0, exact  4352/12683" in narrow and "phase 1, exact 14/?" in narrow
    assert all(len(line) <= 40 and "…" not in line for line in narrow)


def test_the_progress_bar_is_drawn_after_its_delay_and_taken_away_at_the_end():
    """At a terminal, after its delay, a bar with the count; taken away when the work ends (transient). Before
    the delay, with --json or away from a terminal: nothing drawn."""
    from rich.console import Console

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=80)
    threads = threading.active_count()
    with Shown("table rows", console=console, delay=0) as shown:
        shown(1, 4)
        shown(2, 4)
        assert shown.bar is not None
        assert threading.active_count() == threads  # drawn at each call: a duel may then fork its stepping
    assert shown.bar is None and "table rows" in screen.getvalue() and "2/4" in screen.getvalue()
    quiet = io.StringIO()
    with Shown("table rows", console=Console(file=quiet, force_terminal=True), delay=3600) as shown:
        shown(1, 4)
        assert shown.bar is None
    with Shown("table rows", quiet=True, console=Console(file=quiet, force_terminal=True), delay=0) as shown:
        shown(1, 4)
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_while_the_arguments_are_read_is_one_line_and_exit_130(monkeypatch, capsys, as_json):
    """Ctrl-C landing while the option parser reads the arguments, before the command runs (a busy machine makes
    that moment long), is said as any other: one line, exit 130; not the parser's "Aborted!" and exit 1. The
    handler goes once the command line is done."""
    import typer.core

    import rangefire.cli as cli
    from rangefire.cli.common import app

    reading = typer.core.TyperCommand.parse_args

    def parse_args(self, ctx, args):
        os.kill(os.getpid(), signal.SIGINT)  # as the arguments are read
        return reading(self, ctx, args)

    monkeypatch.setattr(typer.core.TyperCommand, "parse_args", parse_args)
    monkeypatch.setattr(app, "registered_commands", list(app.registered_commands))
    monkeypatch.setattr(sys, "argv", ["rangefire", "odds", str(WHEATFIELD), "-a", "15th-alabama",
                                      *(["--json"] if as_json else [])])
    handler = signal.getsignal(signal.SIGINT)
    with pytest.raises(SystemExit) as ended:
        cli.main()
    captured = capsys.readouterr()
    assert ended.value.code == 130 and captured.out == ""
    assert captured.err.strip() == "rangefire: interrupted; nothing changed"
    assert signal.getsignal(signal.SIGINT) is handler


def test_ctrl_c_stops_a_long_table_with_one_line_and_nothing_written(tmp_path):
    """A table of 1,000 rows works for seconds: SIGINT while it works stops it with 'interrupted; nothing
    changed' and exit 130, its CSV not written (whenever the signal lands: loading, reading or working)."""
    values = ",".join(f"[10,{5 + i / 100:g}]" for i in range(1000))
    csv = tmp_path / "rows.csv"
    proc = subprocess.Popen([sys.executable, "-m", "rangefire.cli", "table", str(WHEATFIELD), "-a", "15th-alabama",
                             "--vary", f"units.15th-alabama.position={values}", "--csv", str(csv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    time.sleep(2)  # not a measure: the table takes far longer, and any moment gives the same answer
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and out == "" and err.strip() == "rangefire: interrupted; nothing changed"
    assert not csv.exists() and list(tmp_path.iterdir()) == []
