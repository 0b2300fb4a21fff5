"""Issue 20 section 2: inputs that gave a traceback, were taken without a word, or were refused in the words of
the libraries underneath; each now refused in ours (exit 2, one line naming the option, file, key or value, no
traceback, nothing written), run through the real command as a user runs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rangefire.demo import example_path
from tests.commands import run

WHEATFIELD = example_path("wheatfield.yaml")
ATTACK = ("-a", "15th-alabama")
DUEL = ("duel", str(WHEATFIELD), "20th-maine", "15th-alabama")
#: Words of the libraries underneath that must not reach a user.
NOT_OURS = ("Traceback", "Input should", "pydantic", "ValueError", "KeyError", "ZeroDivisionError")


def refused(*args: str, says: tuple[str, ...], cwd: Path | None = None) -> str:
    """``rangefire ARGS`` refused with exit 2 in one line holding every one of ``says``, and the same in JSON
    (``serve`` has no JSON)."""
    proc = _run(args, cwd)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    message = proc.stderr.strip()
    assert message.startswith("rangefire: ") and len(message.splitlines()) == 1, message
    assert all(part in message for part in says), message
    assert not any(word in proc.stdout + proc.stderr for word in NOT_OURS), message
    if args[0] != "serve":
        data = json.loads(_run((*args, "--json"), cwd).stdout)
        assert data["error"]["kind"] != "usage" and all(part in data["error"]["message"] for part in says), data
    return message


def _run(args: tuple[str, ...], cwd: Path | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run([sys.executable, "-m", "rangefire.cli", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd, stdin=subprocess.DEVNULL)


def closed_stdin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``rangefire ARGS <&-``: standard input closed, not empty (Python's sys.stdin is None)."""
    return subprocess.run([sys.executable, "-m", "rangefire.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, preexec_fn=lambda: os.close(0))


def files_in(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def a_log_line(tmp_path: Path) -> str:
    """The log line of 20th-maine's volley on the Wheatfield, as ``resolve --log`` writes it."""
    log = tmp_path / "made.jsonl"
    run("resolve", str(WHEATFIELD), "-a", "20th-maine", "--seed", "1", "--log", str(log))
    text = log.read_text()
    log.unlink()
    return text.rstrip("\n")


# -- tracebacks ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [("targets", "-"), ("resolve", "-", *ATTACK, "--seed", "1", "--out", "after.yaml"),
                                  ("odds", "-", *ATTACK)])
def test_a_scenario_read_from_a_closed_standard_input_is_refused(tmp_path, args):
    proc = closed_stdin(*args, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == ("rangefire: standard input: is closed, so nothing can be read from it; give the "
                                   "scenario there (rangefire ... - < FILE) or name its file in place of -")
    assert list(tmp_path.iterdir()) == []


def test_resolve_with_standard_input_closed_plays_with_its_seed_or_refuses_to_ask(tmp_path):
    """A seeded resolve reads nothing from standard input: closed, it plays as it would (it crashed asking
    whether stdin was a terminal); unseeded, it plays with a random seed; told to ask, it says no one can answer."""
    seeded = closed_stdin("resolve", str(WHEATFIELD), *ATTACK, "--seed", "1", "--json", cwd=tmp_path)
    assert seeded.returncode == 0 and json.loads(seeded.stdout)["outcome"], seeded.stderr
    assert json.loads(seeded.stdout) == json.loads(run("resolve", str(WHEATFIELD), *ATTACK, "--seed", "1",
                                                       "--json").stdout)
    unseeded = closed_stdin("resolve", str(WHEATFIELD), *ATTACK, cwd=tmp_path)
    assert unseeded.returncode == 0 and "Traceback" not in unseeded.stderr
    asked = closed_stdin("resolve", str(WHEATFIELD), *ATTACK, "--dice", "ask", "--out", "after.yaml", cwd=tmp_path)
    assert asked.returncode == 2 and "Traceback" not in asked.stderr
    assert "--dice ask: standard input is closed" in asked.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_log_line_with_a_number_of_more_than_4300_digits_is_refused_at_its_line(tmp_path):
    line = a_log_line(tmp_path).replace('"hit": [', '"hit": [' + "9" * 4400 + ", ", 1)
    log = tmp_path / "turn.jsonl"
    log.write_text(line + "\n")
    refused("replay", str(WHEATFIELD), str(log), says=("turn.jsonl: line 1: a number of 4,400 digits",))
    # nor is anything appended to it: its first line is no action this reads
    before = files_in(tmp_path)
    refused("resolve", str(WHEATFIELD), "-a", "47th-alabama", "--seed", "1", "--log", str(log), "--out",
            str(tmp_path / "after.yaml"), says=("turn.jsonl: not a log", "4,400 digits"))
    assert files_in(tmp_path) == before


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "[1, .nan]"])
def test_set_vary_and_variant_refuse_a_value_that_is_not_finite(value):
    """They crashed saying it back (float('nan') has no exact decimal); a scenario's numbers are finite."""
    path = "units.15th-alabama.facing"
    says = (path, repr(value), "not finite")
    refused("odds", str(WHEATFIELD), *ATTACK, "--set", f"{path}={value}", says=("--set", *says))
    if "," not in value:
        refused("table", str(WHEATFIELD), *ATTACK, "--vary", f"{path}=0,{value}", says=("--vary", *says))
        refused("compare", str(WHEATFIELD), *ATTACK, "--variant", f"v:{path}={value}", says=("--variant v", *says))


@pytest.fixture
def grid(tmp_path: Path) -> Path:
    pytest.importorskip("pyarrow")
    path = tmp_path / "grid.yaml"
    path.write_text(f"scenario: {WHEATFIELD}\nattacker: 15th-alabama\ntarget: 20th-maine\n"
                    "axes:\n  - {path: units.15th-alabama.stands, range: {from: 1, to: 7, step: 3}}\n")
    return path


@pytest.mark.parametrize("size", [0, -3, 2.5, "ten", True])
def test_a_sweep_resumed_from_a_manifest_whose_chunk_size_is_not_one_is_refused(grid, tmp_path, size):
    """A chunk size of 0 divided by zero; the folder is another run's: refused, naming the file and the key."""
    parts = tmp_path / "out.parquet.parts"
    parts.mkdir()
    (parts / "manifest.json").write_text(json.dumps({"format": 1, "grid_hash": "0" * 64, "points": 3,
                                                     "chunk_size": size}))
    before = files_in(tmp_path)
    refused("sweep", str(grid), "--out", str(tmp_path / "out.parquet"),
            says=("out.parquet.parts/manifest.json: chunk_size: must be a whole number from 1 to 1,000,000",
                  f"got {json.dumps(size)}"))
    assert files_in(tmp_path) == before


def test_ctrl_c_while_the_command_loads_is_one_line_and_exit_130(tmp_path):
    """SIGINT while the command line is still loading (the first of its libraries imported, most still to come):
    it was a traceback of whatever import it fell in."""
    proc = interrupted_at(tmp_path, "typer")
    assert proc == (130, "", "rangefire: interrupted; nothing changed")
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_while_the_command_works_before_its_first_prompt_is_one_line_and_exit_130(tmp_path):
    """SIGINT once the command runs (its own modules loading, the battle read), before the dice are asked: the
    option parser exited 130 without a word."""
    proc = interrupted_at(tmp_path, "rangefire.cli.dice")
    assert proc == (130, "", "rangefire: interrupted; nothing changed")
    assert list(tmp_path.iterdir()) == []


def interrupted_at(tmp_path: Path, module: str) -> tuple[int, str, str]:
    """``resolve --dice ask --out`` sent SIGINT as soon as ``module`` is imported (Python's ``-X importtime``
    says when, on stderr); its exit code, what it printed (no prompt yet), and its message."""
    script = Path(sys.executable).parent / "rangefire"
    command = [str(script)] if script.exists() else ["-m", "rangefire.cli"]
    proc = subprocess.Popen([sys.executable, "-X", "importtime", *command, "resolve", str(WHEATFIELD), *ATTACK,
                             "--dice", "ask", "--out", str(tmp_path / "after.yaml")], cwd=tmp_path,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    seen: list[str] = []
    for timing in proc.stderr:
        seen.append(timing)
        if timing.rstrip().endswith(f"| {module}") or timing.rstrip().endswith(f"  {module}"):
            proc.send_signal(signal.SIGINT)
            break
    out, err = proc.communicate(timeout=60)
    said = [line for line in err.splitlines() if not line.startswith("import time:")]
    assert "Traceback" not in err, said
    return proc.returncode, out, "\n".join(said).strip()


# -- silent accepts ------------------------------------------------------------------------------------------------
def test_a_sweep_range_whose_step_never_lands_on_to_is_refused(grid, tmp_path):
    """1 to 8 by 3 swept 1, 4, 7 without a word (docs/sweep.md lists it as refused)."""
    grid.write_text(grid.read_text().replace("to: 7", "to: 8"))
    before = files_in(tmp_path)
    refused("sweep", str(grid), "--out", str(tmp_path / "out.parquet"),
            says=("grid.yaml: axes[0].range.step: 3 from 1 never lands on 'to' 8 (it stops at 7); make 'to' 7 or 10",))
    assert files_in(tmp_path) == before


@pytest.mark.parametrize(("value", "read_as"), [
    ("!!binary aGVsbG8=", "binary data"), ("!!set {a, b}", "a set"), ("!!omap [{a: 1}]", "the pairs of !!omap"),
    ("!!timestamp 2001-12-14", "a date"), ("1863-07-02", "a date")])
def test_set_refuses_a_tag_that_makes_no_text_or_number(value, read_as):
    """``!!binary`` made bytes that went on as if text; each is said, with how to set the text itself."""
    refused("odds", str(WHEATFIELD), *ATTACK, "--set", f"units.15th-alabama.weapon={value}",
            says=("units.15th-alabama.weapon", repr(value), f"is read as {read_as}", f'quote it: "{value}"'))


def test_set_refuses_a_value_its_tag_cannot_read():
    refused("odds", str(WHEATFIELD), *ATTACK, "--set", "units.15th-alabama.stands=!!int six",
            says=("units.15th-alabama.stands: cannot read the value '!!int six'",))


def test_a_key_given_twice_in_a_log_line_is_refused_naming_the_line_and_the_key(tmp_path):
    """The later one was taken (JSON's usual reading): the record says two things, and neither is trusted."""
    line = a_log_line(tmp_path)
    log = tmp_path / "turn.jsonl"
    log.write_text(line + "\n" + line.replace('"attacker": "20th-maine"',
                                              '"attacker": "20th-maine", "attacker": "47th-alabama"', 1) + "\n")
    refused("replay", str(WHEATFIELD), str(log), says=('turn.jsonl: line 2: the key "attacker" is given twice',))


@pytest.mark.parametrize("first", ['{"action": "note", "text": "Wheatfield, turn 1"}',
                                   '{"ruleset": "dress-on-the-colors", "action": 1, "units": []}',
                                   '{"format": 1, "action": "attack"}'])
def test_a_json_file_whose_first_line_is_no_action_is_not_appended_to(tmp_path, first):
    """It was taken for a log (its first line holds "action") and the volley appended to it."""
    notes = tmp_path / "notes.json"
    notes.write_text(first + "\n")
    before = files_in(tmp_path)
    message = refused("resolve", str(WHEATFIELD), *ATTACK, "--seed", "1", "--log", str(notes), "--out",
                      str(tmp_path / "after.yaml"), says=("notes.json: not a log (its first line is no action: ",
                                                          "nothing is appended to it"))
    assert "format" in message or "action" in message or "ruleset" in message
    assert files_in(tmp_path) == before


# -- words ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("args", "says"), [
    ((*DUEL, "--turns", "abc"), "--turns 'abc': must be a whole number"),
    ((*DUEL, "--samples", "x"), "--samples 'x': must be a whole number"),
    ((*DUEL, "-n", "2.5"), "--turns '2.5': must be a whole number"),
    (("sweep", "grid.yaml", "--out", "r.parquet", "--workers", "two"), "--workers 'two': must be a whole number"),
    (("sweep", "grid.yaml", "--out", "r.parquet", "--chunk-size", "1e3"), "--chunk-size '1e3': must be a whole number"),
    (("sweep", "grid.yaml", "--out", "r.parquet", "--connect-timeout", "soon"), "--connect-timeout 'soon': must be a "
                                                                                "number"),
    (("serve", "--port", "http"), "--port 'http': must be a whole number"),
])
def test_a_whole_number_option_given_text_is_refused_in_our_words(tmp_path, args, says):
    """They were the option parser's box: "Invalid value for '--turns' / '-n': Input should be a valid integer,
    unable to parse string as an integer"."""
    refused(*args, says=(says,), cwd=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_whole_number_option_keeps_its_bounds_and_its_default(tmp_path):
    refused(*DUEL, "--turns", "0",
            says=("--turns 0: must be between 1 and 1,000",))
    refused("serve", "--port", "70000", says=("--port 70000: must be 0 (any free one) to 65535",))
    data = json.loads(run(*DUEL, "-n", " 1", "--json").stdout)
    assert data["turn_limit"] == 1


@pytest.mark.parametrize("args", [
    ("resolve", str(WHEATFIELD), *ATTACK, "--seed", "-1"),
    (*DUEL, "--seed", "-1"),
    (*DUEL, "--samples", "10", "--seed", "-1"),
    ("demo", "--seed", "-1"),
])
def test_a_negative_seed_is_refused_by_every_command(tmp_path, args):
    """One rule for seeds: a whole number from 0. resolve took -1 and rolled the dice of seed 1 (Python's
    generator seeds from the absolute value); duel refused it only beside --samples."""
    refused(*args, says=("--seed -1: must be 0 or more",))


def test_seed_zero_is_a_seed():
    assert run("resolve", str(WHEATFIELD), *ATTACK, "--seed", "0", "--json").returncode == 0


def test_replay_with_set_is_refused_before_anything_is_read(tmp_path):
    """As ``resolve --log --set`` is: it was taken, and the replay failed at line 1 (the values set changed it)."""
    refused("replay", str(tmp_path / "no-such-scenario.yaml"), str(tmp_path / "no-such-log.jsonl"), "--set",
            "units.20th-maine.stands=3", says=("--set with replay: a log replays against the scenario as written",))


@pytest.mark.parametrize(("key", "line", "where", "written"), [
    ("~", 23, "(top level)", "'~' means none"), ("null", 23, "(top level)", "'null' means none"),
    ("? ", 23, "(top level)", "it is empty")])
def test_a_yaml_key_without_a_name_is_said_with_its_line(tmp_path, key, line, where, written):
    """It said "(top level): is not valid here, got null"."""
    scenario = tmp_path / "battle.yaml"
    scenario.write_text(WHEATFIELD.read_text() + (f"{key}: 3\n" if key != "? " else "? \n: 3\n"))
    assert len(WHEATFIELD.read_text().splitlines()) == line - 1
    refused("check", str(scenario), *ATTACK,
            says=(f"battle.yaml: line {line}: {where}: a key is missing its name ({written}); name it",))


def test_a_yaml_key_without_a_name_inside_a_unit_names_the_unit(tmp_path):
    scenario = tmp_path / "battle.yaml"
    scenario.write_text(WHEATFIELD.read_text().replace("  - {id: 20th-maine,", "  - {~: 1, id: 20th-maine,", 1))
    refused("check", str(scenario), *ATTACK, says=("line 11: units[0]: a key is missing its name",))


TABLE = ("table", str(WHEATFIELD), *ATTACK, "--vary", "units.15th-alabama.stands=4,8")


@pytest.mark.parametrize(("args", "option"), [
    ((*DUEL, "--turns", "1", "--plot"), "--plot"),
    (("odds", str(WHEATFIELD), *ATTACK, "--plot"), "--plot"),
    (("compare", str(WHEATFIELD), *ATTACK, "--variant", "x:units.15th-alabama.stands=4", "--plot"), "--plot"),
    (("compare", str(WHEATFIELD), *ATTACK, "--variant", "x:units.15th-alabama.stands=4", "--csv"), "--csv"),
    ((*TABLE, "--plot"), "--plot"), ((*TABLE, "--csv"), "--csv"), ((*TABLE, "--parquet"), "--parquet"),
    (("sweep", str(Path(__file__).parents[1] / "examples" / "sweeps" / "wheatfield.yaml"), "--out"), "--out"),
    (("plot", "results.parquet", "--out"), "--out"),
])
def test_an_empty_output_path_is_said_to_be_empty_naming_its_option(tmp_path, args, option):
    """An empty path was read as ".", the folder the command ran in: "--plot .: is a folder"."""
    message = refused(*args, "", says=(f"{option}: the path is empty",), cwd=tmp_path)
    assert "folder" not in message and " . " not in message
    assert files_in(tmp_path) == {}


@pytest.mark.parametrize("null", ["null", "~", "NULL", "!!null"])
def test_set_null_is_none_not_the_text_null(null):
    """``--set units.X.side=null`` put the unit on a side named "null", and the attack was worked out."""
    says = ("units.15th-alabama.side=null", "side: must be text, got null")
    refused("odds", str(WHEATFIELD), *ATTACK, "--set", f"units.15th-alabama.side={null}", says=says)
    refused("duel", str(WHEATFIELD), "20th-maine", "15th-alabama", "--set", f"units.15th-alabama.stands={null}",
            says=("units.15th-alabama.stands=null", "stands: must be a whole number, got null"))


def test_set_null_where_the_rules_take_none_is_none_and_said_as_null():
    """A value that may be none (DC-10.3's move limit: none, no limit) takes null, and it is told as typed."""
    proc = run("compare", str(WHEATFIELD), *ATTACK, "--set", "options.max_move=6",
               "--variant", "unlimited:options.max_move=null")
    assert "unlimited: options.max_move=null" in proc.stdout and "None" not in proc.stdout
    rows = run("table", str(WHEATFIELD), *ATTACK, "--vary", "options.max_move=null,6", "--csv", "-").stdout
    assert [line.split(",")[0] for line in rows.splitlines()] == ["options.max_move", "null", "6"]
    from rangefire.scenario.paths import parse_setting

    assert parse_setting("options.max_move=null").value is None
    assert parse_setting("units.a.side=#red").value == "#red"  # a comment to YAML, text as typed


@pytest.mark.parametrize(("values", "again"), [("4,8,4", "4"), ("[10,12],[10, 12]", "[10,12]"), ("null,~", "null")])
def test_a_value_varied_twice_is_refused_naming_it(values, again):
    """Each value is a row: a value given twice was worked out twice, two rows alike, without a word."""
    path = "units.15th-alabama.position" if "[" in values else \
        "options.max_move" if "null" in values else "units.15th-alabama.stands"
    refused(*TABLE[:4], "--vary", f"{path}={values}", says=(f"--vary {path}: the value {again} is given twice",))


@pytest.mark.parametrize(("setting", "varied"), [
    ("units.15th-alabama.stands=3", "units.15th-alabama.stands=4,8"),
    ("options.cover_save.heavy=3", "options.cover_save={heavy: 3},{heavy: 5}"),
])
def test_a_value_both_set_and_varied_in_a_table_is_refused(setting, varied):
    """--set's value was replaced by --vary's in every row: the --set given was read and never used, unsaid."""
    refused(*TABLE[:4], "--vary", varied, "--set", setting,
            says=(f"--set {setting.partition('=')[0]} with --vary {varied.partition('=')[0]}",))


def test_a_set_path_beside_a_varied_one_stays_a_table():
    proc = run(*TABLE, "--set", "units.15th-alabama.position=[10,14]", "--csv", "-")
    assert len(proc.stdout.splitlines()) == 3


@pytest.mark.parametrize(("variant", "says"), [
    ("x:units.15th-alabama.stands=4,units.15th-alabama.stands=5",
     "variant 'x' sets units.15th-alabama.stands twice"),
    ("a\x07b:units.15th-alabama.stands=4", "variant 'a\\x07b': a name is printable text"),
    ("a\tb:units.15th-alabama.stands=4", "variant 'a\\tb': a name is printable text"),
    ("n" * 5000 + ":units.15th-alabama.stands=4", "a name of 5,000 characters; at most 200"),
])
def test_a_variant_that_sets_a_path_twice_or_has_no_name_to_show_is_refused(variant, says):
    """The last value set won unsaid; a bell in a name was dropped from every table (the name the tables showed
    was not the one --baseline reads), a name of pages made columns of pages."""
    refused("compare", str(WHEATFIELD), *ATTACK, "--variant", variant, says=(says,))


@pytest.mark.parametrize(("args", "says"), [
    ((*DUEL, "--turns", "1", "--turns", "20"), "--turns is given twice (--turns '1', then --turns '20')"),
    ((*DUEL, "-n", "1", "--turns=20"), "--turns is given twice (-n '1', then --turns '20')"),
    ((*DUEL, "--first", "alternate", "--first", "b"), "--first is given twice"),
    (("odds", str(WHEATFIELD), *ATTACK, "-a", "20th-maine"),
     "--attacker is given twice (-a '15th-alabama', then -a '20th-maine')"),
    ((*TABLE, "--csv", "a.csv", "--csv", "b.csv"), "--csv is given twice"),
    (("compare", str(WHEATFIELD), *ATTACK, "--variant", "x:units.15th-alabama.stands=4", "--baseline", "x",
      "--baseline", "rules"), "--baseline is given twice"),
])
def test_an_option_of_one_value_given_twice_is_refused(tmp_path, args, says):
    """The option parser kept the last one given, without a word: --turns 1 ... --turns 20 was a duel of 20."""
    refused(*args, says=(says,), cwd=tmp_path)
    assert files_in(tmp_path) == {}


def test_options_given_many_times_by_design_and_flags_stay_as_they_were():
    proc = run(*DUEL, "--turns", "1", "--set", "units.20th-maine.stands=3", "--set", "units.20th-maine.stands=4",
               "--json", "--json")
    assert json.loads(proc.stdout)["turn_limit"] == 1


@pytest.mark.parametrize(("extra", "says"), [
    (("--out", "grid.yaml"), "--out grid.yaml: a sweep writes Parquet: name the file .parquet"),
    (("--out", "."), "--out .: is a folder; name the Parquet file to write"),
    (("--out", "gone/o.parquet"), "--out gone/o.parquet: cannot write: the folder gone does not exist"),
    (("--out", "o.parquet", "--scheduler", ""), "--scheduler: the address is empty; give tcp://HOST:PORT"),
    (("--out", "o.parquet", "--scheduler", "nowhere"), "--scheduler nowhere: a scheduler's address is tcp://HOST:PORT"),
])
def test_a_sweep_names_the_option_of_an_output_or_scheduler_it_refuses(grid, extra, says):
    """Said as "grid.yaml: a sweep writes Parquet" and ": a scheduler's address is tcp://HOST:PORT", naming no
    option (the second naming nothing at all)."""
    before = files_in(grid.parent)
    refused("sweep", "grid.yaml", *extra, says=(says,), cwd=grid.parent)
    assert files_in(grid.parent) == before and sorted(p.name for p in grid.parent.iterdir()) == ["grid.yaml"]


@pytest.mark.parametrize(("args", "says"), [
    (("duel", "", "20th-maine", "15th-alabama"), "scenario: the path is empty"),
    (("odds", "", *ATTACK), "scenario: the path is empty"),
    (("table", "", *ATTACK, "--vary", "units.15th-alabama.stands=4,8"), "scenario: the path is empty"),
    (("compare", str(WHEATFIELD), "", *ATTACK), "scenarios: the path is empty"),
    (("sweep", "", "--out", "o.parquet"), "grid: the path is empty"),
    (("plot", "", "--out", "o.png"), "results: the path is empty"),
    (("resolve", str(WHEATFIELD), *ATTACK, "--seed", "1", "--out", ""), "--out: the path is empty"),
    (("show", str(WHEATFIELD), "--out", ""), "--out: the path is empty"),
])
def test_an_empty_path_to_read_or_write_is_said_to_be_empty(tmp_path, args, says):
    """Read as ".", the folder the command ran in: ".: unknown file type '(none)'", ".: is a folder"."""
    message = refused(*args, says=(says,), cwd=tmp_path)
    assert "(none)" not in message and "folder" not in message
    assert files_in(tmp_path) == {}


@pytest.mark.parametrize(("args", "says"), [
    (("odds", str(WHEATFIELD), *ATTACK, "--plot", "odds.png/"), "--plot odds.png/: ends in /, which names a folder"),
    ((*TABLE, "--csv", "rows.csv/"), "--csv rows.csv/: ends in /, which names a folder"),
    (("sweep", str(Path(__file__).parents[1] / "examples" / "sweeps" / "wheatfield.yaml"), "--out", "o.parquet/"),
     "--out o.parquet/: ends in /, which names a folder"),
    (("odds", str(WHEATFIELD), *ATTACK, "--plot", ".png"), "--plot .png: a suffix alone, no name"),
    ((*TABLE, "--parquet", ".parquet"), "--parquet .parquet: a suffix alone, no name"),
])
def test_an_output_named_as_a_folder_or_by_its_suffix_alone_is_refused(tmp_path, args, says):
    """"odds.png/" wrote odds.png (the slash dropped); ".png" was "not a name without a suffix"."""
    refused(*args, says=(says,), cwd=tmp_path)
    assert files_in(tmp_path) == {}
