"""Sweeps (issue 12): a grid of scenario values, every point's exact odds, in chunks, locally or on a dask
cluster. The shortcuts (a check shared by the points that cannot change it, a value the check copies into the
plan set there instead, odds shared by plans the odds cannot tell apart) are held to the plain loop, point by
point; the cluster to the local run; a resume to a run from scratch."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from rangefire.analysis.sweep import (
    MAX_POINTS,
    SHORTCUTS,
    Evaluator,
    SweepError,
    load_grid,
    plain_rows,
)
from rangefire.analysis.sweep_run import parts_folder, run_sweep
from rangefire.core import Attack, ScenarioError
from rangefire.demo import example_path
from rangefire.rulesets import battle_from_mapping
from rangefire.rulesets.dress_on_the_colors.volley import VolleyPlan
from rangefire.scenario import read_scenario
from rangefire.scenario.paths import Setting
from tests.commands import run, run_here

pq = pytest.importorskip("pyarrow.parquet")

WHEATFIELD = example_path("wheatfield.yaml")
EXAMPLE_GRID = Path(str(WHEATFIELD)).parent / "sweeps" / "wheatfield.yaml"

# Every kind of axis: stands and positions (the check is made again), the discipline pass mark (an option the
# check copies into the plan), the target's discipline, disorder and micro-hit (copied only where that unit is
# the target: with the target left to the rules [DC-2.3], the closest enemy changes with the position), and
# points the rules refuse (beyond 20 in [DC-2.4], no enemy in the arc [DC-2.3]).
GRID = f"""
scenario: {WHEATFIELD}
attacker: 15th-alabama
axes:
  - {{path: units.15th-alabama.stands, values: [1, 6]}}
  - {{path: units.15th-alabama.position, range: {{from: [10, 4], to: [16, 22], step: [3, 9]}}}}
  - {{path: units.20th-maine.discipline, values: [-2, 1]}}
  - {{path: units.20th-maine.disordered, values: [false, true]}}
  - {{path: units.20th-maine.micro_hits, values: [0, 1]}}
  - {{path: options.discipline_pass, values: [4, 7]}}
record:
  at_least: {{stands_lost: [1, 2], hits: [3]}}
"""


def grid_file(tmp_path: Path, text: str = GRID, name: str = "grid.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    return load_grid(grid_file(tmp_path_factory.mktemp("grid")))


@pytest.fixture(scope="module")
def local(grid, tmp_path_factory):
    """The grid run in this process, read back."""
    out = tmp_path_factory.mktemp("local") / "local.parquet"
    run_sweep(grid, out, workers=1, chunk_size=7)
    return pq.read_table(out)


def test_every_point_equals_the_plain_loop_over_the_library(grid, local):
    """[DC-2.3, DC-2.4, DC-3, DC-4.3, DC-5.2] Each row, legal or refused, is the plain loop's: the scenario
    loaded with the point's settings, checked, its odds computed, nothing shared."""
    assert grid.points == 2 * 3 * 2 * 2 * 2 * 2
    rows = local.to_pylist()
    assert [r["point"] for r in rows] == list(range(grid.points))
    assert rows == plain_rows(grid, range(grid.points))
    assert {r["legal"] for r in rows} == {True, False}  # both kinds of point are compared
    assert {r["refusal_clause"] for r in rows if not r["legal"]} >= {"DC-2.3"}
    # the copied axes change the numbers they should: the pass mark and the target's state move disorder
    legal = [r for r in rows if r["legal"] and r["target"] == "20th-maine"]
    assert len({r["disorder"] for r in legal}) > len({r["hits_mean"] for r in legal})


def test_the_exact_and_float_columns_agree(local):
    for row in local.to_pylist():
        for name in ("hits_mean", "stands_lost_at_least_1", "disorder"):
            if row["legal"]:
                assert float(Fraction(row[name])) == row[f"{name}_float"]
            else:
                assert row[name] is None and row[f"{name}_float"] is None


def test_the_stand_and_position_axes_are_checked_again_and_the_rest_copied(grid):
    copied = [c.field if c else None for c, _ in ((x or (None, None)) for x in grid.copied)]
    assert copied == [None, None, "target_discipline", "target_disordered", "target_micro_hits", "discipline_pass"]


def _plain_plan(doc, settings, attacker="15th-alabama"):
    ruleset, battle = battle_from_mapping(doc, settings=settings)
    return ruleset, ruleset.check(battle, Attack(attacker, None)).plan


@pytest.mark.parametrize("position", [[10, 10], [30, 8]])  # the 20th Maine the target; then the 83rd
def test_a_copied_value_is_the_only_change_it_makes_to_the_plan(position):
    """What SHORTCUTS says the check copies into the plan unread is so: the plan with the value set in the
    scenario equals the plan made without it, the value set in its field [DC-4.3, DC-5.2]; a unit that is
    not the target changes nothing."""
    doc = read_scenario(WHEATFIELD)
    at = Setting("units.15th-alabama.position", position)
    _, base = _plain_plan(doc, [at])
    shortcuts = SHORTCUTS["dress-on-the-colors"]
    cases = [("options.discipline_pass", 3), ("options.discipline_dice", 4),
             *((f"units.{uid}.{name}", value) for uid in ("20th-maine", "83rd-pennsylvania")
               for name, value in (("discipline", -3), ("disordered", True), ("micro_hits", 1)))]
    for path, value in cases:
        copied = shortcuts.copied(path, "15th-alabama")
        assert copied is not None
        _, plan = _plain_plan(doc, [at, Setting(path, value)])
        applies = not copied.of_target or path.split(".")[1] == base.target
        expected = dataclasses.replace(base, **{copied.field: value}) if applies else base
        assert plan == expected, path
    # the firer's own disorder is a to-hit modifier [DC-3.3]: never copied
    assert shortcuts.copied("units.15th-alabama.disordered", "15th-alabama") is None


def test_the_odds_read_no_field_of_the_plan_but_those_listed():
    """Plans equal in the listed fields have the same odds: every other field changed, the odds stay; each
    listed field can change them [DC-3 to DC-5]."""
    doc = read_scenario(WHEATFIELD)
    ruleset, plan = _plain_plan(doc, [])
    fields = SHORTCUTS["dress-on-the-colors"].odds_fields
    odds = ruleset.odds(plan).to_dict()

    def numbers(p: VolleyPlan) -> tuple:
        d = ruleset.odds(p).to_dict()
        return d["outcomes"], d["events"]

    others = {"attacker": "x", "target": "y", "modifiers": (), "notes": (), "weapon": "smoothbore", "band": "long",
              "distance2": Fraction(1), "line_of_fire": None, "line_of_fire_tied": False, "target_number": 6,
              "enfilade": True, "cover": "open", "cover_from": (), "smoke_from": ("z",), "places_gunsmoke": False,
              "tied_targets": ("a", "b"), "lowest_hit": 1, "house_notes": (("cover", "(house rule)"),)}
    assert set(others) | set(fields) | {"ruleset"} == {f.name for f in dataclasses.fields(VolleyPlan)}
    assert numbers(dataclasses.replace(plan, **others)) == (odds["outcomes"], odds["events"])
    changed = {"stands_firing": 3, "enfilade_dice": 2, "need": 3, "save": None, "target_stands": 1,
               "target_micro_hits": 1, "target_disordered": True, "target_discipline": -3, "discipline_dice": 1,
               "discipline_pass": 9, "dice_per_stand": 2, "discipline_disordered": -3, "reroll_to_hit": "misses",
               "sixes_ignore_cover": True}
    assert set(changed) == set(fields)
    for name, value in changed.items():
        # the penalty of a disordered target's check counts for a disordered target only [DC-5.2]
        base = dataclasses.replace(plan, target_disordered=True) if name == "discipline_disordered" else plan
        assert numbers(dataclasses.replace(base, **{name: value})) != numbers(base), name
    # plans of equal keys have equal odds: dice from stands or enfilade alike [DC-3.1, DC-6.2]; the discipline
    # check by its margin, pass - discipline + 1 if disordered [DC-5.2]
    key = SHORTCUTS["dress-on-the-colors"].odds_key
    same = [{"stands_firing": plan.stands_firing - 2, "enfilade_dice": plan.enfilade_dice + 2},
            {"discipline_pass": plan.discipline_pass + 3, "target_discipline": plan.target_discipline + 3},
            {"discipline_pass": plan.discipline_pass - 1, "target_disordered": True}]
    for change in same:
        other = dataclasses.replace(plan, **change)
        assert key([getattr(other, f) for f in fields]) == key([getattr(plan, f) for f in fields]), change
        assert numbers(other) == (odds["outcomes"], odds["events"]), change
    other = dataclasses.replace(plan, discipline_pass=plan.discipline_pass + 1)
    assert key([getattr(other, f) for f in fields]) != key([getattr(plan, f) for f in fields])
    # house rules the odds read: two dice a stand [DC-3.1], a disordered target's check at -3 [DC-5.2]
    disordered = dataclasses.replace(plan, target_disordered=True)
    for before, after in ((plan, dataclasses.replace(plan, dice_per_stand=2)),
                          (disordered, dataclasses.replace(disordered, discipline_disordered=-3))):
        assert key([getattr(after, f) for f in fields]) != key([getattr(before, f) for f in fields])


def test_points_share_checks_and_odds(grid, tmp_path):
    evaluator = Evaluator(grid)
    evaluator.chunk(0, grid.points)
    assert len(evaluator.plans) == 2 * 3  # stands x positions: the copied axes need no check of their own
    # six distances in the same band, behind the same wall: one volley's odds for each pass mark [DC-2.4, DC-4.1]
    near = load_grid(grid_file(tmp_path, f"""
        scenario: {WHEATFIELD}
        attacker: 15th-alabama
        target: 20th-maine
        axes:
          - {{path: units.15th-alabama.position, range: {{from: [10, 7], to: [10, 9.5], step: [0, 0.5]}}}}
          - {{path: options.discipline_pass, values: [5, 6]}}
        """))
    evaluator = Evaluator(near)
    rows = evaluator.chunk(0, near.points)
    assert all(rows["legal"]) and len(evaluator.plans) == 6 and len(evaluator.rows) == 2


def test_a_unit_validated_alone_makes_the_battle_the_whole_scenario_makes(grid, tmp_path):
    """The stands and positions of the grid set by validating the changed unit alone give the battle that
    validating the whole scenario with the settings gives, field for field [DC-1.1]."""
    evaluator = Evaluator(grid)
    assert evaluator.units is not None
    for index in range(0, grid.points, 16):  # every stands x position combination
        settings = grid.settings(index)[:2]
        assert evaluator.battle(settings) == battle_from_mapping(grid.doc, settings=settings)[1], settings
    # a grid that also sets an option validates the whole scenario each time
    other = load_grid(grid_file(tmp_path, f"""
        scenario: {WHEATFIELD}
        attacker: 15th-alabama
        axes:
          - {{path: units.15th-alabama.stands, values: [1, 6]}}
          - {{path: options.arc, values: [corners, centre]}}
        """))
    assert Evaluator(other).units is None


def test_local_processes_give_the_same_table(grid, local, tmp_path):
    out = tmp_path / "two.parquet"
    report = run_sweep(grid, out, workers=2, chunk_size=5)
    assert report.chunks == -(-grid.points // 5) and report.where == "2 local processes"
    assert pq.read_table(out).equals(local)
    assert not parts_folder(out).exists()  # joined, then removed


def test_a_dask_local_cluster_of_two_workers_gives_the_local_table_exactly(grid, local, tmp_path):
    """Two worker processes (processes=True), one thread each, reached by their scheduler's address as the
    command line reaches a cluster; every value, exact and float, identical."""
    import logging

    distributed = pytest.importorskip("dask.distributed")
    from rangefire.analysis.sweep_run import connect

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR)
    with cluster, connect(cluster.scheduler_address, timeout=20) as client:
        out = tmp_path / "cluster.parquet"
        report = run_sweep(grid, out, client=client, chunk_size=6)
        assert len(client.scheduler_info()["workers"]) == 2
    assert report.where == "a dask cluster" and report.chunks == 16
    assert pq.read_table(out).equals(local)


class Stop(Exception):
    pass


def test_an_interrupted_sweep_resumes_from_its_chunks_and_refuses_another_grid(grid, local, tmp_path):
    out = tmp_path / "r.parquet"
    calls = []

    def stop_after_three(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 4:  # the first call is before any chunk; then three chunks are written
            raise Stop

    with pytest.raises(Stop):
        run_sweep(grid, out, workers=1, chunk_size=10, progress=stop_after_three)
    folder = parts_folder(out)
    assert not out.exists() and len(list(folder.glob("part-*.parquet"))) == 3
    assert json.loads((folder / "manifest.json").read_text())["grid_hash"] == grid.grid_hash
    # another grid (a value changed) is refused, the chunks left as they are
    other = load_grid(grid_file(tmp_path, GRID.replace("values: [4, 7]", "values: [4, 8]"), "other.yaml"))
    with pytest.raises(SweepError, match=r"another grid.*remove the folder to start over"):
        run_sweep(other, out, workers=1)
    assert len(list(folder.glob("part-*.parquet"))) == 3
    # the same grid resumes (with the manifest's chunk size, whatever is asked now) and finishes
    seen = []
    report = run_sweep(grid, out, workers=2, chunk_size=3, progress=lambda done, total: seen.append(done))
    assert report.resumed_chunks == 3 and report.chunk_size == 10
    assert seen[0] == 30 and seen[-1] == grid.points
    assert pq.read_table(out).equals(local)


def test_a_changed_scenario_is_another_grid(tmp_path):
    scenario = tmp_path / "w.yaml"
    scenario.write_text(Path(str(WHEATFIELD)).read_text())
    text = GRID.replace(str(WHEATFIELD), "w.yaml")
    first = load_grid(grid_file(tmp_path, text))
    scenario.write_text(Path(str(WHEATFIELD)).read_text().replace("stands: 6,", "stands: 5,"))
    assert load_grid(grid_file(tmp_path, text)).grid_hash != first.grid_hash


def test_the_example_grid_runs_and_travels_with_the_package(tmp_path):
    import fnmatch
    import tomllib

    sweep = load_grid(EXAMPLE_GRID)
    assert sweep.points == 120 and sweep.ruleset == "dress-on-the-colors"
    data = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["rangefire"]
    assert any(fnmatch.fnmatch("examples/sweeps/wheatfield.yaml", p) for p in patterns)
    proc = run("sweep", str(EXAMPLE_GRID), "--out", str(tmp_path / "w.parquet"), "--workers", "1", "--json")
    report = json.loads(proc.stdout)
    assert report["format"] == 1 and report["sweep"]["points"] == 120
    rows = pq.read_table(tmp_path / "w.parquet").to_pylist()
    assert [r["units.15th-alabama.position"] for r in rows[:4]] == ["[10, 4]"] * 3 + ["[10, 6]"]
    assert not rows[-1]["legal"] and rows[-1]["refusal_clause"] == "DC-2.4"  # 22 in: beyond 20 [DC-2.4]
    sample = [0, 37, 61, 119]
    assert [rows[i] for i in sample] == plain_rows(sweep, sample)


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("old", "new", "said"), [
    ("values: [1, 6]}", "values: []}", "axes[0].values: must have at least 1 item"),
    ("path: units.15th-alabama.stands", "path: units.nobody.stands",
     "axes[0] (units.nobody.stands), value 1: units.nobody.stands: no item with id 'nobody' in units"),
    ("values: [4, 7]", "values: [4, 400]", "axes[5] (options.discipline_pass), value 400: options.discipline_pass: "),
    ("values: [1, 6]", "values: [0, 6]", "axes[0] (units.15th-alabama.stands), value 0: units[3].stands: must be "),
    ("step: [3, 9]", "step: [3, 0]", "axes[1].range.step[1]: is 0, but from and to differ"),
    ("step: [3, 9]", "step: [1, 9]", "axes[1].range: the numbers give different counts of values (3, 7)"),
    ("to: [16, 22]", "to: 22", "axes[1].range.to: must be a list of 1 to 4 numbers, as 'from' is"),
    ("values: [4, 7]", "range: {from: 9, to: 4, step: 1}", "axes[5].range.step: 1 leads away from 'to' (9 to 4)"),
    ("values: [4, 7]", "range: {from: 9, to: 4}", "axes[5].range.step: is required"),
    ("values: [4, 7]", "range: {from: 1, to: 4, step: 1}, values: [1]",
     "axes[5]: give either values: [...] or range: {from, to, step}"),
    ("at_least: {stands_lost: [1, 2], hits: [3]}", "at_least: {stands: [1]}",
     "record.at_least.stands: 'stands' is not an outcome of dress-on-the-colors"),
    ("at_least: {stands_lost: [1, 2], hits: [3]}", "events: [disorderly]",
     "record.events[0]: 'disorderly' is not an event of dress-on-the-colors (suppression, disorder)"),
    ("attacker: 15th-alabama", "attacker: 16th-alabama", "attacker: '16th-alabama' is not in "),
    ("attacker: 15th-alabama", "attacker: 15th-alabama\nspeed: 3", "speed: unknown key"),
])
def test_a_bad_grid_is_refused_naming_the_key(tmp_path, old, new, said):
    assert old in GRID
    path = grid_file(tmp_path, GRID.replace(old, new, 1))
    proc = run("sweep", str(path), "--out", str(tmp_path / "o.parquet"), ok=2)
    assert said in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"rangefire: {path}: ") and proc.stderr.count("\n") == 1
    assert not (tmp_path / "o.parquet").exists() and not parts_folder(tmp_path / "o.parquet").exists()


def test_a_grid_of_more_than_the_limit_is_refused_at_once(tmp_path):
    path = grid_file(tmp_path, f"""
        scenario: {WHEATFIELD}
        attacker: 15th-alabama
        axes:
          - {{path: units.15th-alabama.stands, range: {{from: 1, to: 60, step: 1}}}}
          - {{path: options.discipline_pass, range: {{from: -100, to: 100, step: 1}}}}
          - {{path: units.15th-alabama.position, range: {{from: [0, 0], to: [0, 1000], step: [0, 0.001]}}}}
        """)
    proc = run("sweep", str(path), "--out", str(tmp_path / "o.parquet"), "--json", ok=2)
    error = json.loads(proc.stdout)["error"]
    assert error["kind"] == "too_large"
    assert "60 x 201 x 1,000,001 points" in error["message"] and f"at most {MAX_POINTS:,}" in error["message"]
    huge = grid_file(tmp_path, f"""
        scenario: {WHEATFIELD}
        attacker: 15th-alabama
        axes: [{{path: units.15th-alabama.facing, range: {{from: 0, to: 1000000, step: 1e-40}}}}]
        """, "huge.yaml")
    proc = run("sweep", str(huge), "--out", str(tmp_path / "o.parquet"), ok=2)
    assert "axes[0].range: 10,000,000,000,000,000,000,000,000,000,000,000,000,000,000,001 values" in proc.stderr


def test_an_output_that_cannot_be_written_is_refused_before_any_point(tmp_path):
    path = grid_file(tmp_path)
    (tmp_path / "a-file").write_text("")
    proc = run("sweep", str(path), "--out", str(tmp_path / "a-file" / "o.parquet"), ok=2)
    assert "cannot write: the folder" in proc.stderr and "does not exist" in proc.stderr
    proc = run("sweep", str(path), "--out", str(tmp_path), ok=2)
    assert "is a folder; name the Parquet file to write" in proc.stderr


def test_an_output_that_is_not_a_parquet_file_is_refused_and_left_as_it_was(tmp_path):
    """The output is renamed over what is there: a pipe (or /dev/null) must not become a file, a grid or a
    scenario named by mistake must not be lost; a Parquet file of an earlier run is overwritten as before."""
    path = grid_file(tmp_path)
    fifo = tmp_path / "pipe.parquet"
    os.mkfifo(fifo)
    proc = run_here("sweep", str(path), "--out", str(fifo), ok=2)
    assert "not a regular file" in proc.stderr and "Traceback" not in proc.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode) and not (tmp_path / "pipe.parquet.parts").exists()
    text = path.read_text()
    proc = run_here("sweep", str(path), "--out", str(path), ok=2)
    assert "name the file .parquet" in proc.stderr and path.read_text() == text
    notes = tmp_path / "notes.parquet"
    notes.write_text("not rows")
    proc = run_here("sweep", str(path), "--out", str(notes), ok=2)
    assert "exists and is not a Parquet file" in proc.stderr and notes.read_text() == "not rows"
    proc = run_here("sweep", str(path), "--out", str(tmp_path / "r.csv"), ok=2)
    assert "a sweep writes Parquet: name the file .parquet" in proc.stderr and not (tmp_path / "r.csv").exists()
    good = tmp_path / "o.parquet"
    run("sweep", str(path), "--out", str(good), ok=0)  # the sweeps themselves in a process of their own
    run("sweep", str(path), "--out", str(good), ok=0)


def test_a_scheduler_that_does_not_answer_times_out_with_a_message(tmp_path):
    import socket
    import time

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()  # accepts, never speaks
    port = silent.getsockname()[1]
    try:
        started = time.perf_counter()
        proc = run("sweep", str(grid_file(tmp_path)), "--out", str(tmp_path / "o.parquet"), "--scheduler",
                   f"tcp://127.0.0.1:{port}", "--connect-timeout", "1", ok=2)
        assert time.perf_counter() - started < 30
        assert f"no dask scheduler answered at tcp://127.0.0.1:{port} within 1 s" in proc.stderr
    finally:
        silent.close()
    proc = run("sweep", str(grid_file(tmp_path)), "--out", str(tmp_path / "o.parquet"), "--scheduler",
               f"tcp://127.0.0.1:{port}", "--connect-timeout", "1", "--json", ok=2)
    assert json.loads(proc.stdout)["error"]["message"].startswith(f"no dask scheduler answered at tcp://127.0.0.1:{port}")
    proc = run("sweep", str(grid_file(tmp_path)), "--out", str(tmp_path / "o.parquet"), "--scheduler", "nowhere", ok=2)
    assert "nowhere: a scheduler's address is tcp://HOST:PORT" in proc.stderr


def test_a_resume_against_another_grid_is_refused_at_the_command_line(grid, tmp_path):
    out = tmp_path / "o.parquet"
    with pytest.raises(Stop):
        run_sweep(grid, out, workers=1, chunk_size=10,
                  progress=lambda done, total: (_ for _ in ()).throw(Stop) if done else None)
    other = grid_file(tmp_path, GRID.replace("values: [4, 7]", "values: [5, 7]"), "other.yaml")
    proc = run("sweep", str(other), "--out", str(out), ok=2)
    assert "holds the chunks of an interrupted sweep of another grid" in proc.stderr
    assert proc.stderr.startswith("rangefire: ")


def test_the_sweep_loads_nothing_at_a_check(tmp_path):
    """dask and pyarrow are imported by a sweep only: a check's start loads neither."""
    from tests.test_startup import modules_of

    modules = modules_of(tmp_path, "check", str(WHEATFIELD), "-a", "15th-alabama")
    assert not any(m.split(".")[0] in ("dask", "distributed", "pyarrow") for m in modules)
    assert "rangefire.analysis.sweep" not in modules


def test_the_progress_bar_runs_where_it_is_shown(capsys):
    """At a terminal the bar shows the points done, their rate and the time left (here forced on, stderr
    being no terminal under the tests)."""
    from rangefire.cli.sweep import _Shown

    shown = _Shown(quiet=False)
    shown.quiet = False
    for done in (0, 50, 100):
        shown.update(done, 100)
    shown.stop()
    said = capsys.readouterr().err
    assert "100/100" in said and "sweep" in said


@pytest.mark.parametrize(("example", "attack", "axes"), [
    ("ford.yaml", "attacker: archers\ntarget: orc-band",
     ["{path: units.archers.position, values: [[0, 0], [0.5, 1], [3, 0]]}",
      "{path: units.orc-band.abilities, values: [{defense_die_bonus: 0}, {defense_die_bonus: 1}]}"]),
    ("temple.yaml", "attacker: yoichi\ntarget: takeda",
     ["{path: units.takeda.armour, values: [0, 1, 2]}", "{path: units.yoichi.position, values: [[0, 0], [0, 4]]}"]),
    ("sawblade.yaml", "attacker: sawblade-launcher\ntarget: road-warrior",
     ["{path: cards.road-warrior.speed, values: [10, 20, 30]}",
      "{path: cards.road-warrior.toughness, values: [1, 2]}"]),
])
def test_the_other_games_sweep_as_their_plain_loop(tmp_path, example, attack, axes):
    """[AL-3.1, BU-6.1, SW-7.1] Games without shortcuts: a check for every point, odds shared by equal plans;
    every row the plain loop's."""
    lines = "\n".join(f"  - {axis}" for axis in axes)
    path = grid_file(tmp_path, f"scenario: {Path(str(WHEATFIELD)).parent / example}\n{attack}\naxes:\n{lines}\n")
    sweep = load_grid(path)
    out = tmp_path / "o.parquet"
    run_sweep(sweep, out, workers=1)
    rows = pq.read_table(out).to_pylist()
    assert rows == plain_rows(sweep, range(sweep.points))
    assert all(row["legal"] for row in rows) and len({row[sweep.quantities()[0]] for row in rows}) > 1


def test_a_long_axis_s_last_value_is_validated_before_the_sweep(tmp_path):
    """Twelve axes share the 2,000 values checked before the start, 166 each: the long axis's 172 values are
    sampled every second one (0, 2, ..., 170), and its last, 101 (beyond the option's bounds), is checked too,
    though no step of the samples lands on it: the grid is refused at once, naming the axis and the value."""
    ones = [f"{{path: units.{uid}.stands, values: [{value}]}}" for uid, value in (
        ("15th-alabama", 8), ("20th-maine", 6), ("83rd-pennsylvania", 5), ("battery-d", 4), ("4th-texas", 5),
        ("47th-alabama", 4))]
    ones += [f"{{path: units.{uid}.moved, values: [false]}}" for uid in (
        "15th-alabama", "20th-maine", "83rd-pennsylvania", "battery-d", "4th-texas")]
    long = "{path: options.discipline_pass, range: {from: -70, to: 101, step: 1}}"
    lines = "\n".join(f"  - {axis}" for axis in [*ones, long])
    path = grid_file(tmp_path, f"scenario: {WHEATFIELD}\nattacker: 15th-alabama\naxes:\n{lines}\n")
    with pytest.raises(ScenarioError, match=r"axes\[11\] \(options.discipline_pass\), value 101: "
                                            r"options.discipline_pass: "):
        load_grid(path)
    assert load_grid(grid_file(tmp_path, path.read_text().replace("to: 101", "to: 100"), "fine.yaml")).points == 171


def test_a_long_axis_is_validated_by_samples_and_a_bad_value_among_the_rest_stops_at_its_point(tmp_path):
    """An axis of more values than its share of the checks made before the start: its bad values are found
    when their points are computed, named with the point; a long axis is never copied into the plan."""
    # twelve axes share the 2,000 values checked first: 166 each, so every second one of the long axis
    ones = [f"{{path: units.{uid}.{field}, values: [{value}]}}" for uid, field, value in (
        ("15th-alabama", "stands", 8), ("20th-maine", "stands", 6), ("83rd-pennsylvania", "stands", 5),
        ("battery-d", "stands", 4), ("4th-texas", "stands", 5), ("47th-alabama", "stands", 4),
        ("15th-alabama", "moved", "false"), ("20th-maine", "moved", "false"), ("83rd-pennsylvania", "moved", "true"),
        ("battery-d", "moved", "false"), ("4th-texas", "moved", "false"))]
    long = ", ".join(["6"] * 101 + ["6.5"] + ["6"] * 69)
    lines = "\n".join(f"  - {axis}" for axis in [*ones, f"{{path: options.discipline_pass, values: [{long}]}}"])
    path = grid_file(tmp_path, f"scenario: {WHEATFIELD}\nattacker: 15th-alabama\naxes:\n{lines}\n")
    sweep = load_grid(path)
    assert sweep.copied == (None,) * 12 and sweep.points == 171
    said = r"point 101 \(.*options.discipline_pass=6.5\): .*options.discipline_pass: must be a whole number"
    with pytest.raises(SweepError, match=said):
        run_sweep(sweep, tmp_path / "o.parquet", workers=1)


# -- charts of the results (issue 24): rangefire plot RESULTS.parquet ---------------------------------------
@pytest.fixture(scope="module")
def results_file(grid, tmp_path_factory):
    """The grid's results as the sweep writes them, to a file."""
    out = tmp_path_factory.mktemp("plot") / "results.parquet"
    run_sweep(grid, out, workers=1, chunk_size=40)
    return out


FIXED = ("--at", "units.20th-maine.micro_hits=0", "--at", "options.discipline_pass=4",
         "--at", "units.20th-maine.discipline=1")


def test_the_results_say_what_they_are_of(results_file):
    """The file's metadata: the game, the battle, the attack, the paths swept, the house rules in force (none
    in the Wheatfield as written; the pass mark swept is no house rule in force)."""
    meta = json.loads(pq.read_schema(results_file).metadata[b"rangefire"])
    assert meta["kind"] == "sweep" and meta["ruleset"] == "dress-on-the-colors"
    assert meta["battle"] == "The Wheatfield, late afternoon" and meta["attacker"] == "15th-alabama"
    assert meta["axes"] == [a.path for a in load_grid(grid_file(Path(str(results_file)).parent)).axes]
    assert meta["house_rules"] == [] and meta["main_outcome"] == "stands_lost" and meta["length_unit"] == "in"


def _chart(results_file, **options):
    from rangefire.analysis.results_plot import parse_at, read_results, results_chart

    found = read_results(results_file)
    at = options.pop("at", [])
    return results_chart(found, at=parse_at(at, found), **options)


def _value(rows, settings: dict, column: str):
    row = next(r for r in rows if all(_equal(r[k], v) for k, v in settings.items()))
    return None if not row["legal"] else row[f"{column}_float"]


def _equal(found, wanted) -> bool:
    if isinstance(found, str) and found.startswith("["):
        return json.loads(found) == wanted
    return found == wanted


def test_plot_draws_the_files_numbers_a_line_per_value_of_the_other_paths(results_file):
    """The lines read back from the figure are the file's own floats: disorder against the firer's stands, a
    line per position (the first other path), a panel per state of the target [DC-5.2]; a refused point a gap."""
    import math

    import matplotlib.pyplot as plt

    rows = pq.read_table(results_file).to_pylist()
    fig, drawn = _chart(results_file, metric="disorder", x="units.15th-alabama.stands",
                        at=["units.20th-maine.micro_hits=0", "options.discipline_pass=4"])
    try:
        lines = {line.get_gid(): line for ax in fig.axes for line in ax.get_lines() if line.get_gid()}
        assert len(lines) == 3 * 2 * 2 and drawn["points"] == 2 * 3 * 2 * 2
        gaps = 0
        for gid, line in lines.items():
            settings = {**json.loads(gid), "units.20th-maine.micro_hits": 0, "options.discipline_pass": 4}
            assert list(line.get_xdata()) == [1, 6]
            for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True):
                want = _value(rows, {**settings, "units.15th-alabama.stands": int(x)}, "disorder")
                gaps += want is None
                assert (math.isnan(y) if want is None else y == want), (gid, x)
        assert gaps  # the refused points [DC-2.3] are among those compared
        heading = fig._suptitle.get_text().replace("\n", " ")
        assert "The Wheatfield, late afternoon (dress-on-the-colors); rules as written" in heading
        assert "options.discipline_pass = 4" in heading
    finally:
        plt.close(fig)


def test_plot_draws_a_heatmap_over_two_paths(results_file):
    import matplotlib.pyplot as plt
    import numpy as np

    rows = pq.read_table(results_file).to_pylist()
    fig, drawn = _chart(results_file, metric="stands_lost_at_least_1", x="units.15th-alabama.position",
                        y="units.15th-alabama.stands", at=[*FIXED[1::2], "units.20th-maine.disordered=false"])
    try:
        ax = next(ax for ax in fig.axes if ax.images)
        cells = ax.images[0].get_array()
        positions = [[10, 4], [13, 13], [16, 22]]
        fixed = {"units.20th-maine.micro_hits": 0, "options.discipline_pass": 4, "units.20th-maine.discipline": 1,
                 "units.20th-maine.disordered": False}
        for i, stands in enumerate((1, 6)):
            for j, position in enumerate(positions):
                want = _value(rows, {**fixed, "units.15th-alabama.stands": stands,
                                     "units.15th-alabama.position": position}, "stands_lost_at_least_1")
                assert (cells.mask[i, j] if want is None else cells[i, j] == want), (stands, position)
        assert np.ma.count_masked(cells) > 0 and drawn["kind"] == "heatmap"
    finally:
        plt.close(fig)


def test_plot_at_the_command_line(results_file, tmp_path):
    chart = tmp_path / "disorder.png"
    proc = run_here("plot", str(results_file), "--out", str(chart), "--metric", "disorder", *FIXED, "--json")
    data = json.loads(proc.stdout)
    assert data["chart"] == str(chart) and data["x"] == "units.15th-alabama.stands" and data["kind"] == "lines"
    assert chart.read_bytes()[:4] == b"\x89PNG"
    heat = tmp_path / "heat.svg"
    said = run_here("plot", str(results_file), "--out", str(heat), "--x", "units.15th-alabama.position", "--y",
               "units.15th-alabama.stands", *FIXED, "--at", "units.20th-maine.disordered=true").stdout
    assert heat.read_bytes()[:5] == b"<?xml" and f"written to {heat}" in " ".join(said.split())


@pytest.mark.parametrize(("extra", "said"), [
    (("--metric", "hits_sd"), "--metric hits_sd: results.parquet holds hits_mean, unsaved_hits_mean"),
    (("--metric", "nothing"), "--metric 'nothing': name an outcome"),
    (("--x", "units.15th-alabama.facing"), "--x 'units.15th-alabama.facing': not a path varied in the rows drawn"),
    (("--at", "units.nobody.stands=1"), "--at units.nobody.stands: not a path of results.parquet"),
    (("--at", "options.discipline_pass=5"), "--at options.discipline_pass: no row holds 5; its values: 4, 7"),
    (("--at", "options.discipline_pass"), "--at 'options.discipline_pass': write PATH=VALUE"),
    ((), "= 24 panels; a chart holds at most 12: fix the other paths with --at PATH=VALUE"),
])
def test_plot_refuses_what_it_cannot_draw_in_our_words(results_file, tmp_path, extra, said):
    chart = tmp_path / "c.png"
    args = extra if extra else ("--x", "units.15th-alabama.stands", "--y", "units.20th-maine.disordered")
    proc = run("plot", str(results_file), "--out", str(chart), *args, ok=2)
    assert said in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not chart.exists()


def test_plot_refuses_a_file_that_holds_no_results(tmp_path):
    import pyarrow as pa

    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), other)
    proc = run("plot", str(other), "--out", str(tmp_path / "c.png"), ok=2)
    assert "not the results of a sweep or a table" in proc.stderr
    text = tmp_path / "t.parquet"
    text.write_text("no parquet here")
    assert "not a Parquet file" in run("plot", str(text), "--out", str(tmp_path / "c.png"), ok=2).stderr
    assert "no such file" in run("plot", str(tmp_path / "none.parquet"), "--out", str(tmp_path / "c.png"),
                                 ok=2).stderr


@pytest.mark.parametrize(("make", "said"), [
    (lambda p: os.mkfifo(p), "is a pipe (FIFO), not a results file"),
    (lambda p: p.mkdir(), "is a folder, not a results file"),
    (lambda p: p.symlink_to("/dev/zero"), "is a device, not a results file"),
    (lambda p: p.write_bytes(b""), "is empty: not a Parquet file"),
])
def test_plot_refuses_what_is_no_file_of_results_at_once_in_our_words(tmp_path, make, said):
    """A pipe is refused before it is opened (reading one waited for ever), and a folder, a device or an empty
    file in the project's words, not the Parquet reader's."""
    import subprocess

    path = tmp_path / "r.parquet"
    make(path)
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", "plot", str(path), "--out", str(tmp_path / "c.png")],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stderr == f"rangefire: {path}: {said}\n", proc.stderr
    assert not (tmp_path / "c.png").exists()


def test_plot_refuses_a_file_of_results_without_a_row(results_file, tmp_path):
    empty = tmp_path / "none.parquet"
    pq.write_table(pq.read_table(results_file).slice(0, 0), empty)
    proc = run("plot", str(empty), "--out", str(tmp_path / "c.png"), ok=2)
    assert proc.stderr == f"rangefire: {empty}: holds no rows to chart\n"


def _altered(results_file, tmp_path, *, column=None, values=None, **meta):
    """The results file with one column's values replaced, or its metadata's keys changed."""
    import pyarrow as pa

    table = pq.read_table(results_file)
    described = {**json.loads(table.schema.metadata[b"rangefire"]), **meta}
    if column is not None:
        table = table.set_column(table.column_names.index(column), column, pa.array([values] * table.num_rows))
    path = tmp_path / "altered.parquet"
    pq.write_table(table.replace_schema_metadata({b"rangefire": json.dumps(described).encode()}), path)
    return path


@pytest.mark.parametrize(("change", "said"), [
    ({"column": "disorder_float", "values": "x"}, "column disorder_float: 'x' is not a number"),
    ({"column": "disorder_float", "values": float("inf")}, "column disorder_float: inf is not a finite number"),
    ({"column": "disorder_float", "values": "1e400"}, "column disorder_float: 1e400 is not a finite number"),
    ({"house_rules": "nope"}, "its rangefire metadata cannot be read (house_rules)"),
    ({"house_rules": [{"path": "options.x"}]}, "its rangefire metadata cannot be read (house_rules)"),
])
def test_plot_refuses_a_file_of_results_altered_naming_what_is_wrong(results_file, tmp_path, change, said):
    """A file whose rows or metadata are not what a sweep writes is refused naming the file and the column (or
    the metadata's key), never with a traceback, and no chart is written."""
    path = _altered(results_file, tmp_path, **change)
    chart = tmp_path / "c.png"
    proc = run("plot", str(path), "--out", str(chart), "--metric", "disorder", *FIXED, ok=2)
    assert proc.stderr == f"rangefire: {path}: {said}\n" and not chart.exists()


def test_plot_shows_control_characters_of_the_files_names_as_text(results_file, tmp_path):
    """A battle's name from the file with an escape in it is drawn with the escape written out, as text (the
    font has no glyph for it: a warning reached the terminal)."""
    path = _altered(results_file, tmp_path, battle="The \x1b[31mField\x07")
    proc = run("plot", str(path), "--out", str(tmp_path / "c.svg"), "--metric", "disorder", *FIXED)
    assert proc.stderr == "" and "\x1b" not in (tmp_path / "c.svg").read_text()


def test_a_sweep_written_before_its_metadata_is_plotted_by_its_columns(results_file, tmp_path):
    """A results file without the metadata (a sweep of an earlier version): its paths are the columns between
    point and target; the chart says the house rules were not recorded rather than 'rules as written'."""
    import matplotlib.pyplot as plt

    old = tmp_path / "old.parquet"
    pq.write_table(pq.read_table(results_file).replace_schema_metadata(None), old)
    fig, drawn = _chart(old, metric="hits_mean", at=[*FIXED[1::2], "units.20th-maine.disordered=false"])
    try:
        heading = fig._suptitle.get_text().replace("\n", " ")
        assert "house rules not recorded" in heading and "rules as written" not in heading
        assert drawn["x"] == "units.15th-alabama.stands"
    finally:
        plt.close(fig)


def test_a_tables_parquet_is_plotted_as_a_sweeps(tmp_path):
    """`table --parquet` writes the same metadata: its rows plot as a sweep's, the numbers the table's."""
    import matplotlib.pyplot as plt

    rows_file = tmp_path / "t.parquet"
    run("table", str(WHEATFIELD), "-a", "15th-alabama", "--vary", "units.15th-alabama.stands=2,5",
        "--vary", "terrain.stone-wall.kind=light,heavy", "--set", "options.cover_save.heavy=3",
        "--parquet", str(rows_file))
    meta = json.loads(pq.read_schema(rows_file).metadata[b"rangefire"])
    assert meta["kind"] == "table" and [r["path"] for r in meta["house_rules"]] == ["options.cover_save.heavy"]
    rows = pq.read_table(rows_file).to_pylist()
    fig, _ = _chart(rows_file, metric="unsaved_hits_at_least_2")
    try:
        lines = {json.loads(line.get_gid())["terrain.stone-wall.kind"]: line
                 for ax in fig.axes for line in ax.get_lines() if line.get_gid()}
        for kind, line in lines.items():
            want = [r["unsaved_hits_at_least_2_float"] for r in rows if r["terrain.stone-wall.kind"] == kind]
            assert list(line.get_ydata()) == want and list(line.get_xdata()) == [2, 5]
        assert "cover_save.heavy=3 (rules: 4)" in fig._suptitle.get_text().replace("\n", " ")
    finally:
        plt.close(fig)


def test_a_sweep_of_one_point_says_one_point_in_one_chunk(tmp_path):
    """It said "1 points in 1 chunks"."""
    path = grid_file(tmp_path, f"scenario: {WHEATFIELD}\nattacker: 15th-alabama\n"
                               "axes:\n  - {path: units.15th-alabama.stands, values: [4]}\n")
    proc = run("sweep", str(path), "--out", str(tmp_path / "o.parquet"), "--workers", "1")
    assert proc.stdout.startswith("1 point in 1 chunk, on 1 local process: ")
