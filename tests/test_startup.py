"""Start-up (issue 13): a command imports what it needs when it needs it. A check on a battle loads neither
matplotlib (only ``--plot`` does) nor any other game's modules, nor numpy where the game has no use for it;
the registry loads a game only when it is used. (How long a start takes is measured in bench/, not here.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rangefire.demo import example_path
from rangefire.rulesets import GAMES, RULESETS

SRC = str(Path(__file__).resolve().parent.parent / "src")
GAME_PACKAGES = {g.key: g.module for g in GAMES}

# Runs the command line as the ``rangefire`` script does, then writes the modules it imported.
_PROGRAM = """
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
from rangefire.cli import main
main()
"""


def modules_of(tmp_path: Path, *args: str, codes: tuple[int, ...] = (0, 1)) -> set[str]:
    out = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", _PROGRAM, str(out), *args], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode in codes, proc.stderr
    return set(json.loads(out.read_text()))


def _has(modules: set[str], package: str) -> bool:
    return any(m == package or m.startswith(package + ".") for m in modules)


@pytest.mark.parametrize(("key", "example", "attack", "numpy"), [
    ("dress-on-the-colors", "wheatfield.yaml", ("-a", "15th-alabama"), False),
    ("arcane-legions", "ford.yaml", ("-a", "archers", "-t", "orc-band"), False),
    ("bushido", "temple.yaml", ("-a", "yoichi", "-t", "takeda"), True),  # its sight screens pairs with numpy
    ("swerve", "sawblade.yaml", ("-a", "sawblade-launcher", "-t", "road-warrior"), False),
])
def test_check_imports_only_its_game_and_never_matplotlib(tmp_path, key, example, attack, numpy):
    modules = modules_of(tmp_path, "check", str(example_path(example)), *attack)
    assert not _has(modules, "matplotlib")
    assert _has(modules, GAME_PACKAGES[key])
    others = [m for k, m in GAME_PACKAGES.items() if k != key and _has(modules, m)]
    assert not others, f"a {key} check loaded {others}"
    assert _has(modules, "numpy") == numpy
    assert not _has(modules, "rangefire.core.schemas")  # the output models are for `schema` and programs
    # what only another format or a command's other use needs: TOML (read or written), the table of targets
    # (a check that names its target, or whose game chooses it, lists no candidates)
    for module in ("tomllib", "tomli_w", "rangefire.analysis.targets"):
        assert not _has(modules, module), f"a {key} check loaded {module}"


def test_what_a_check_leaves_out_is_loaded_where_it_is_needed(tmp_path):
    """The modules kept out of a check's start are still there when asked for: a TOML scenario read, a battle
    written as TOML after an attack, a check listing the candidate targets."""
    ford = example_path("ford.yaml")
    toml_file = tmp_path / "ford.toml"
    from rangefire.scenario import read_scenario, write_scenario

    write_scenario(toml_file, read_scenario(ford))
    modules = modules_of(tmp_path, "check", str(toml_file), "-a", "archers", "-t", "orc-band")
    assert _has(modules, "tomllib")
    after = tmp_path / "after.toml"
    modules = modules_of(tmp_path, "resolve", str(ford), "-a", "archers", "-t", "orc-band", "--seed", "1",
                         "--out", str(after))
    assert _has(modules, "tomli_w") and after.is_file()
    modules = modules_of(tmp_path, "check", str(ford), "-a", "archers")
    assert _has(modules, "rangefire.analysis.targets")


def test_an_answer_in_json_loads_no_rich_and_one_for_people_does(tmp_path):
    """Rich (a tenth of a start) is for people: check, odds and rulesets with --json never load it."""
    wheatfield = str(example_path("wheatfield.yaml"))
    for args in (("check", wheatfield, "-a", "20th-maine", "-t", "15th-alabama"),
                 ("odds", wheatfield, "-a", "15th-alabama"), ("rulesets",),
                 ("check", wheatfield, "-a", "20th-maine", "-t", "nobody")):  # an error (exit 2), said in JSON
        assert not _has(modules_of(tmp_path, *args, "--json", codes=(0, 1, 2)), "rich"), args
        assert _has(modules_of(tmp_path, *args, codes=(0, 1, 2)), "rich"), args


def test_the_command_line_loads_no_game_before_it_reads_a_scenario(tmp_path):
    modules = modules_of(tmp_path, "--version")
    assert not [m for m in GAME_PACKAGES.values() if _has(modules, m)]


def test_odds_without_plot_imports_no_matplotlib_and_with_plot_does(tmp_path):
    wheatfield = str(example_path("wheatfield.yaml"))
    assert not _has(modules_of(tmp_path, "odds", wheatfield, "-a", "15th-alabama"), "matplotlib")
    plotted = modules_of(tmp_path, "odds", wheatfield, "-a", "15th-alabama", "--plot", str(tmp_path / "o.svg"))
    assert _has(plotted, "matplotlib")


def test_the_registry_loads_a_game_when_it_is_used():
    code = ("import sys; from rangefire.rulesets import RULESETS, find_ruleset; "
            "print(sorted(m for m in sys.modules if m.startswith('rangefire.rulesets.'))); "
            "find_ruleset('bu'); print(sorted(m.split('.')[2] for m in sys.modules if m.count('.') == 2 "
            "and m.startswith('rangefire.rulesets.')))")
    env = {**os.environ, "PYTHONPATH": SRC}
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           check=True).stdout.splitlines()
    assert lines[0] == "[]"
    assert lines[1] == "['bushido']"


def test_the_registry_table_is_the_games_own():
    assert [(g.key, g.aliases, g.choices) for g in GAMES] == [(r.key, tuple(r.aliases), tuple(r.choices))
                                                             for r in RULESETS]
    assert RULESETS.keys() == tuple(r.key for r in RULESETS) and len(RULESETS) == 4
    assert RULESETS[1:3] == (RULESETS[1], RULESETS[2])
    assert all(type(r).__name__ == g.name for g, r in zip(GAMES, RULESETS, strict=True))
    from rangefire.rulesets import Bushido

    assert isinstance(RULESETS[2], Bushido)


def test_the_benchmarks_count_of_a_checks_own_types_is_what_the_check_defines(tmp_path):
    """bench/startup.py says what of a check's start is rangefire's typed results and its game's models: its
    probe must see every one of them, or the figures it prints would be of a part: the dataclasses and models
    defined in the modules a check loads, counted here by looking at those modules."""
    import dataclasses
    import importlib

    from pydantic import BaseModel

    sys.path.insert(0, str(Path(SRC).parent))
    try:
        from bench.startup import EXAMPLE, own_parts
    finally:
        sys.path.remove(str(Path(SRC).parent))
    args = ["check", str(EXAMPLE), "-a", "15th-alabama"]
    loaded = [importlib.import_module(m) for m in sorted(modules_of(tmp_path, *args)) if m.startswith("rangefire")]
    defined = [c for module in loaded for c in vars(module).values()
               if isinstance(c, type) and c.__module__ == module.__name__]
    classes = [c for c in defined if dataclasses.is_dataclass(c)]
    models = [c for c in defined if issubclass(c, BaseModel)]
    own = own_parts(args, repeat=1)
    assert (own.classes, own.models) == (len(classes), len(models) - 1)  # the first model is pydantic's set-up
    assert own.classes_seconds > 0 and own.models_seconds > 0
