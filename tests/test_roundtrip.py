"""A battle written back with ``--out`` over the file it was read from: only what the attack changed changes.

A line diff of the file before and after names the keys whose values changed; they must be exactly the keys
the attack changed in the battle (read from the dumps before and after), every comment stays, and the file
reads back as the battle written.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from rangefire.core import Attack, SeededSource
from rangefire.rulesets import load_battle
from rangefire.scenario import files as files_module
from rangefire.scenario import read_scenario, write_scenario
from rangefire.scenario.order import as_if_unrecorded
from rangefire.scenario.parsing import parse_yaml_nodes
from rangefire.scenario.rewrite import MISSING, edit_yaml, merge

DC_COMMENTED = """\
# The Wheatfield, written by hand: a Union line behind the wall, Confederates in the woods.
# Numbers are written as the players measured them (6.0 in, not 6).
ruleset: dress-on-the-colors   # the game
name: 'The Wheatfield, by hand'
options: {arc: corners, discipline_dice: 2, discipline_pass: 6}

terrain:
  # the wall gives heavy cover to the Union line
  - {id: stone-wall, kind: heavy, polygon: [[4.5, 0.25], [15.5, 0.25], [15.5, 0.75], [4.5, 0.75]]}
  - {id: rose-woods, kind: light, polygon: [[3.0, 11.5], [17.0, 11.5], [18.0, 15.0], [2.0, 15.0]]}

units:
  # Union
  - {id: 20th-maine, side: union, stands: 6, weapon: rifled-musket, formation: line,
     position: [10.0, 0], facing: 0.0, discipline: 1}   # Chamberlain's regiment
  - {id: 83rd-pennsylvania, side: union, stands: 5, weapon: rifled-musket, formation: line,
     position: [22.0, 0.0], facing: 0}
  # Confederates
  - {id: 15th-alabama, side: confederate, stands: 8, weapon: rifled-musket, formation: line,
     position: [10.0, 12.0], facing: 180.0}   # Oates
  - {id: 4th-texas, side: confederate, stands: 5, weapon: smoothbore, formation: skirmish,
     position: [34, 10], facing: 180}
# end of the order of battle
"""

BU_COMMENTED = """\
# Bushido: the archer shoots across the temple yard at the samurai behind the bamboo.
ruleset: bushido
name: The temple yard, by hand
options: {supporting_dice_cap: none}
active_side: prefecture   # the Prefecture acts first
terrain:
  - {id: bamboo-grove, kind: obscuring, polygon: [[-2, 12], [2, 12], [2, 12.8], [-2, 12.8]]}
units:
  # the archer
  - id: yoichi
    side: prefecture
    position: [0.0, 0.0]
    base: 30
    rcp: 3
    wounds: {boxes: 4}
    states: [aimed]
    weapon: {name: yumi, short: 6, medium: 12, long: 18, wound_modifier: 0, ammo: 4}   # four arrows left
  # the target
  - id: takeda
    side: ito
    position: [0, 14.0]
    base: 40
    armour: 1
    wounds:
      boxes: 6
      marked: 1   # cut at the ford
"""

SW_COMMENTED = """\
# swerve: the rules' own example (SW-7.1)
ruleset: swerve
name: "Sawblade Launcher, by hand"
players:
  jason: {deck: [5, 10, 0, 15], deck_order: known}   # a bonus of 5 on top
  tyler: {deck: [10, 0], deck_order: known}
cards:
  # Jason's weapon
  - {id: sawblade-launcher, owner: jason, type: weapon, name: Sawblade Launcher, mission: canyon,
     timing: main, ranged: {accuracy: 30, damage: 1, cost: swerve-self, targets: [unit]}}
  # Tyler's unit, unswerved
  - {id: road-warrior, owner: tyler, type: unit, name: Road Warrior, speed: 20, toughness: 2, mission: canyon}
"""

_ENTRY = re.compile(r"([A-Za-z_][\w-]*):\s*(\[(?:[^\[\]]|\[[^\]]*\])*\]|'[^']*'|\"[^\"]*\"|[^,{}\[\]#\n]+)")


def _entries(line: str) -> list[tuple[str, str]]:
    """The ``key: value`` entries of a line, a flow mapping's braces taken as commas (its keys counted one
    by one), without the comment."""
    code = line.split("#")[0].replace("{", ",").replace("}", ",")
    return [(key, value.strip()) for key, value in _ENTRY.findall(code)]


def changed_keys(old: str, new: str) -> set[str]:
    """The keys whose written values differ between two texts, found from a line diff: each run of changed
    lines is read as ``key: value`` entries on both sides, and the entries on one side only name the keys."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    keys: set[str] = set()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        before = Counter(entry for line in old_lines[i1:i2] for entry in _entries(line))
        after = Counter(entry for line in new_lines[j1:j2] for entry in _entries(line))
        keys |= {k for k, _ in (before - after) + (after - before)}
    return keys


def changed_in_battle(before: Any, after: Any) -> set[str]:
    """The names of the keys whose values the attack changed, added or dropped (the innermost key)."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys: set[str] = set()
        for key in dict.fromkeys([*before, *after]):
            b, a = before.get(key, MISSING), after.get(key, MISSING)
            if b is MISSING or a is MISSING:
                keys.add(key)
            elif b != a:
                both = isinstance(b, dict | list) and isinstance(a, dict | list)
                keys |= (changed_in_battle(b, a) if both else set()) or {key}
        return keys
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return set().union(*(changed_in_battle(b, a) for b, a in zip(before, after, strict=True)))
    return set() if before == after else {"(value)"}


def comments(text: str) -> list[str]:
    return [line[line.index("#"):] for line in text.splitlines() if "#" in line]


def attack_and_write(tmp_path: Path, text: str, suffix: str, attack: Attack,
                     seed: int) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    source = tmp_path / f"scenario{suffix}"
    source.write_text(text, encoding="utf-8")
    ruleset, battle = load_battle(source)
    _, after = ruleset.play(battle, attack, SeededSource(seed))
    before_data, after_data = ruleset.dump(battle), ruleset.dump(after)
    out = tmp_path / f"after{suffix}"
    write_scenario(out, after_data, original=source, before=before_data)
    return out, before_data, after_data


#: What a battle written over a file without a turn adds to it: the order of the sides its reading recorded
#: (DC-9.4, AL-9.3, BU-8.4), in a turn of its own.
RECORDED = {"turn", "number", "order"}


def written_keys(text: str, before: Any, after: Any) -> set[str]:
    """The keys a write of the battle after an attack changes in a file: those the attack changed, and the order
    of the sides where the file records none (swerve records none: its players block is its order)."""
    data = yaml.safe_load(text)
    recorded = RECORDED if data.get("ruleset") != "swerve" and "turn" not in data else set()
    return changed_in_battle(before, after) | recorded


def reads_back(path: Path, after_data: dict[str, Any]) -> None:
    ruleset, battle = load_battle(path)
    assert ruleset.dump(battle) == after_data


# -- the three games' commented files ----------------------------------------------------------------
def test_out_on_a_commented_dress_on_the_colors_file_changes_only_the_attacks_values_DC_4_4_DC_7_1(tmp_path):
    """Today --out turns a commented file into a plain dump without its comments, with every default written
    out. After a volley that takes a stand (DC-4.4) and leaves gunsmoke (DC-7.1), the line diff names only the
    keys the attack changed."""
    out, before, after = attack_and_write(tmp_path, DC_COMMENTED, ".yaml", Attack("15th-alabama"), 3)
    text = out.read_text()
    expected = written_keys(DC_COMMENTED, before, after)
    assert {"stands", "gunsmoke"} <= expected  # the volley took a stand and left smoke
    assert changed_keys(DC_COMMENTED, text) == expected
    assert comments(text) == comments(DC_COMMENTED)
    assert "position: [10.0, 12.0], facing: 180.0" in text and "facing: 0.0" in text  # spelling kept
    assert "name: 'The Wheatfield, by hand'" in text  # quoting kept
    # keys added to the flow mappings; one line more, the order of the sides recorded as it was read [DC-9.4]
    assert len(text.splitlines()) == len(DC_COMMENTED.splitlines()) + 1
    assert "turn: {number: 1, order: [union, confederate]}" in text
    reads_back(out, after)


def test_out_on_a_commented_bushido_file_marks_wounds_and_spends_ammo_BU_5_1(tmp_path):
    """A hit marks a wound and the shot spends an arrow: those values change where they stand; a key the
    attack adds (what the archer did) comes last in the archer's block mapping."""
    out, before, after = attack_and_write(tmp_path, BU_COMMENTED, ".yaml", Attack("yoichi", "takeda"), 1)
    text = out.read_text()
    expected = written_keys(BU_COMMENTED, before, after)
    assert {"ammo", "marked"} <= expected
    assert changed_keys(BU_COMMENTED, text) == expected
    assert comments(text) == comments(BU_COMMENTED)
    assert "      marked: 2   # cut at the ford\n" in text
    assert "ammo: 3}   # four arrows left\n" in text
    reads_back(out, after)


BU_WITH_NULL = BU_COMMENTED.replace("    armour: 1\n", "    armour: 1\n    rcp: null   # no ranged combat pool\n")


def test_a_null_the_model_drops_stays_where_it_was_written_BU_5_1(tmp_path):
    """A key written as null (the target's ``rcp: null``) is no part of the battle as dumped, so neither the
    battle before nor after the attack holds it: the attack left it alone, and it stays, in YAML with every
    comment (the file edited, not rewritten) and in JSON."""
    assert BU_WITH_NULL != BU_COMMENTED
    out, before, after = attack_and_write(tmp_path, BU_WITH_NULL, ".yaml", Attack("yoichi", "takeda"), 1)
    assert "rcp" not in before["units"][1] and "rcp" not in after["units"][1]
    text = out.read_text()
    assert "    rcp: null   # no ranged combat pool\n" in text
    assert comments(text) == comments(BU_WITH_NULL)
    assert {"ammo", "marked"} <= changed_keys(BU_WITH_NULL, text)
    reads_back(out, after)
    data = yaml.safe_load(BU_WITH_NULL)
    out, _before, after = attack_and_write(tmp_path, json.dumps(data, indent=2), ".json", Attack("yoichi", "takeda"),
                                           1)
    written = json.loads(out.read_text())
    assert "rcp" in written["units"][1] and written["units"][1]["rcp"] is None
    assert list(written["units"][1])[: len(data["units"][1])] == list(data["units"][1])  # in its place
    reads_back(out, after)
    assert merge({"n": None, "a": 1}, {"a": 1}, {"a": 2}) == {"n": None, "a": 2}


def test_out_on_a_commented_swerve_file_marks_the_swerved_cards_SW_7_1(tmp_path):
    attack = Attack("sawblade-launcher", "road-warrior")
    out, before, after = attack_and_write(tmp_path, SW_COMMENTED, ".yaml", attack, 0)
    text = out.read_text()
    expected = changed_in_battle(before, after)
    assert "swerved" in expected
    assert changed_keys(SW_COMMENTED, text) == expected
    assert comments(text) == comments(SW_COMMENTED)
    assert 'name: "Sawblade Launcher, by hand"' in text
    assert "mission: canyon, swerved: true}\n" in text
    reads_back(out, after)


EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "src" / "rangefire" / "examples").glob("*.yaml"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_attack_of_every_example_is_written_over_it_and_reads_back(tmp_path, example):
    """Each example, after each attack its rules allow (each attacker, each target): the file written over the
    example's own text reads back as the battle after the attack, and was edited, not rewritten."""
    from rangefire.core import RangefireError
    from rangefire.scenario import rewrite

    ruleset, battle = load_battle(example)
    before = ruleset.dump(battle)
    ids = list(ruleset.unit_ids(battle))
    played = 0
    for attacker in ids:
        for target in [None, *(uid for uid in ids if uid != attacker)]:
            try:
                _, after = ruleset.play(battle, Attack(attacker, target), SeededSource(5))
            except RangefireError:
                continue  # refused by the rules
            out = tmp_path / f"{attacker}-{target}.yaml"
            write_scenario(out, ruleset.dump(after), original=example, before=before)
            reads_back(out, ruleset.dump(after))
            root, original = parse_yaml_nodes(example.read_text())
            assert rewrite.edit_yaml(example.read_text(), root, original, as_if_unrecorded(before), ruleset.dump(after),
                                     yaml.SafeLoader) == out.read_text()
            played += 1
    assert played


@pytest.mark.parametrize("text", [DC_COMMENTED, BU_COMMENTED, SW_COMMENTED], ids=["DC", "BU", "SW"])
def test_an_unchanged_battle_is_written_byte_for_byte(tmp_path, text):
    """Nothing changed, nothing rewritten: not even a default the file leaves out; but for the order of the sides,
    which its first reading recorded and a written battle holds (DC-9.4, BU-8.4: the last line added). Written
    again, it is byte for byte."""
    source = tmp_path / "s.yaml"
    source.write_text(text)
    ruleset, battle = load_battle(source)
    write_scenario(source, ruleset.dump(battle), original=source, before=ruleset.dump(battle))
    written = source.read_text()
    order = getattr(getattr(battle, "turn", None), "order", None)
    added = [] if order is None else [f"turn: {{number: 1, order: [{', '.join(order)}]}}"]
    assert [x for x in written.splitlines() if x not in added] == text.splitlines()
    assert [x for x in written.splitlines() if x in added] == added
    write_scenario(source, ruleset.dump(battle), original=source, before=ruleset.dump(battle))
    assert source.read_text() == written


# -- JSON and TOML keep their key order ----------------------------------------------------------------
def test_json_keeps_the_files_key_order_and_leaves_defaults_out(tmp_path):
    """Today the dump's own order comes out, with every default; the file's order and keys stay."""
    data = yaml.safe_load(DC_COMMENTED)
    data = {"name": data["name"], "units": [dict(reversed(list(u.items()))) for u in data["units"]],
            "ruleset": data["ruleset"], "terrain": data["terrain"]}
    out, _before, after = attack_and_write(tmp_path, json.dumps(data, indent=2), ".json",
                                                  Attack("15th-alabama"), 3)
    written = json.loads(out.read_text())
    assert list(written) == [*data, "turn"]  # the order of the sides its reading recorded, last [DC-9.4]
    for old, new in zip(data["units"], written["units"], strict=True):
        assert list(new)[: len(old)] == list(old)
    assert "micro_hits" not in written["units"][1]  # a default the file left out, unchanged: still out
    assert written["units"][0]["stands"] == 5 and written["units"][2]["gunsmoke"] is True
    assert written["units"][0]["position"] == [10.0, 0]  # the number as written
    reads_back(out, after)


@pytest.mark.parametrize("indent", [4, "\t", None], ids=["four spaces", "tabs", "one line"])
def test_json_keeps_the_files_indentation_and_characters(tmp_path, indent):
    data = yaml.safe_load(SW_COMMENTED)
    data["cards"][1]["name"] = "Road Warrior \u2013 Ma\u00eetre"
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    out, _before, _after = attack_and_write(tmp_path, text, ".json", Attack("sawblade-launcher", "road-warrior"), 0)
    for card in data["cards"]:
        card["swerved"] = True  # the attack swerves both cards (SW-7.1): the one change, added last
    assert out.read_text(encoding="utf-8") == json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


TOML = """\
# swerve in TOML
name = "Sawblade Launcher"
ruleset = "swerve"

[players.tyler]
deck_order = "known"
deck = [10, 0]

[players.jason]
deck_order = "known"
deck = [5, 10, 0, 15]

[[cards]]
name = "Sawblade Launcher"
id = "sawblade-launcher"
owner = "jason"
type = "weapon"
mission = "canyon"
timing = "main"
ranged = { accuracy = 30, damage = 1, cost = "swerve-self", targets = ["unit"] }

[[cards]]
name = "Road Warrior"
id = "road-warrior"
owner = "tyler"
type = "unit"
speed = 20
toughness = 2
mission = "canyon"
"""


def test_toml_keeps_the_files_key_order_and_leaves_defaults_out(tmp_path):
    attack = Attack("sawblade-launcher", "road-warrior")
    out, _before, after = attack_and_write(tmp_path, TOML, ".toml", attack, 0)
    written = tomllib.loads(out.read_text())
    original = tomllib.loads(TOML)
    assert list(written) == list(original)
    assert list(written["players"]) == ["tyler", "jason"]
    assert list(written["cards"][1])[:7] == list(original["cards"][1])
    assert written["cards"][1]["swerved"] is True
    assert "options" not in written and "hands" not in written  # defaults left out stay out
    reads_back(out, after)


# -- the command line ------------------------------------------------------------------------------------
def run(*args: str, ok: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == ok, (proc.stdout, proc.stderr)
    return proc


def test_resolve_out_onto_the_file_it_read_keeps_its_comments(tmp_path):
    """``--out`` naming the scenario itself: read, attacked, written over itself with only the changes."""
    path = tmp_path / "wheatfield.yaml"
    path.write_text(DC_COMMENTED)
    ruleset, battle = load_battle(path)
    proc = run("resolve", str(path), "-a", "15th-alabama", "--seed", "3", "--out", str(path), "--json")
    after = json.loads(proc.stdout)["battle"]
    text = path.read_text()
    assert comments(text) == comments(DC_COMMENTED)
    assert changed_keys(DC_COMMENTED, text) == written_keys(DC_COMMENTED, ruleset.dump(battle), after)
    reads_back(path, after)
    assert [p.name for p in tmp_path.iterdir()] == ["wheatfield.yaml"]  # no temporary file left


def test_resolve_out_to_another_format_writes_the_battle_plainly(tmp_path):
    path = tmp_path / "wheatfield.yaml"
    path.write_text(DC_COMMENTED)
    out = tmp_path / "after.json"
    proc = run("resolve", str(path), "-a", "15th-alabama", "--seed", "3", "--out", str(out), "--json")
    after = json.loads(proc.stdout)["battle"]
    assert json.loads(out.read_text()) == after
    reads_back(out, after)


# -- the edit itself -----------------------------------------------------------------------------------
def edited(text: str, after: Any, before: Any = MISSING) -> str | None:
    root, original = parse_yaml_nodes(text)
    before = original if before is MISSING else before
    return edit_yaml(text, root, original, before, after, yaml.SafeLoader)


def test_a_number_equal_to_the_written_one_keeps_its_spelling():
    text = "a: 6.0  # six\nb: '1/3'\nc: 0.5\nd: 7\n"
    assert edited(text, {"a": 6, "b": "1/3", "c": 0.5, "d": 8}, before=MISSING) == \
        "a: 6.0  # six\nb: '1/3'\nc: 0.5\nd: 8\n"
    assert edited(text, {"a": 5, "b": "1/3", "c": "1/2", "d": 7}) == "a: 5.0  # six\nb: '1/3'\nc: 0.5\nd: 7\n"


def test_a_changed_string_keeps_its_quotes():
    text = "a: 'x'\nb: \"y\"\nc: z\n"
    assert edited(text, {"a": "it's", "b": "w", "c": "v: w"}) == "a: 'it''s'\nb: \"w\"\nc: 'v: w'\n"
    assert edited("m: {c: z}\n", {"m": {"c": "v, w"}}) == "m: {c: 'v, w'}\n"  # flow needs the quotes


def test_keys_dropped_and_added_in_block_and_flow_mappings():
    text = "# top\na: 1  # one\nb: 2  # two\nm: {x: 1, y: 2}\nn:\n  p: 1\n  q: 2  # q\nz: 0\n"
    after = {"a": 1, "m": {"x": 1, "w": 3}, "n": {"p": 1, "q": 2, "r": [1, 2]}, "z": 0, "new": {"k": "v"}}
    assert edited(text, after) == ("# top\na: 1  # one\nm: {x: 1, w: 3}\nn:\n  p: 1\n  q: 2  # q\n  r: [1, 2]\n"
                                   "z: 0\nnew: {k: v}\n")
    assert edited("a: {x: 1, y: 2}\n", {"a": {"y": 2}}) == "a: {y: 2}\n"
    assert edited("a: {x: 1}\n", {"a": {}}) == "a: {}\n"


def test_a_block_scalar_replaced_keeps_the_next_key_on_its_own_line():
    assert edited("t: |\n  hello\n", {"t": "bye", "y": 2}) == "t: bye\ny: 2\n"


def test_inner_additions_come_before_outer_ones_at_the_same_place():
    assert edited("n:\n  p: 1\n", {"n": {"p": 1, "q": 2}, "z": 1}) == "n:\n  p: 1\n  q: 2\nz: 1\n"


def test_lists_of_items_with_ids_are_matched_by_id():
    block = "u:\n  - {id: a, s: 1}  # A\n  - {id: b, s: 2}  # B\n  - id: c\n    s: 3\n"
    assert edited(block, {"u": [{"id": "a", "s": 1}, {"id": "c", "s": 4}, {"id": "d", "s": 5}]}) == \
        "u:\n  - {id: a, s: 1}  # A\n  - id: c\n    s: 4\n  - {id: d, s: 5}\n"
    blocks = "u:\n  - id: a\n    s: 1\n"
    assert edited(blocks, {"u": [{"id": "a", "s": 1}, {"id": "b", "s": 2}]}) == \
        "u:\n  - id: a\n    s: 1\n  - id: b\n    s: 2\n"  # as its neighbours are written
    flow = "u: [{id: a}, {id: b}, {id: c}]\n"
    assert edited(flow, {"u": [{"id": "a"}, {"id": "c"}, {"id": "e"}]}) == "u: [{id: a}, {id: c}, {id: e}]\n"
    assert edited(flow, {"u": [{"id": "c"}, {"id": "a"}]}) == "u: [{id: c}, {id: a}]\n"  # reordered: anew


def test_lists_of_one_length_merge_item_by_item_and_others_are_replaced():
    assert edited("d: [5, 10.0, 0]  # deck\n", {"d": [5, 10, 1]}) == "d: [5, 10.0, 1]  # deck\n"
    assert edited("d: [5, 10, 0]  # deck\n", {"d": [10, 0]}) == "d: [10, 0]  # deck\n"
    assert edited("d:\n  - 5\n  - 10\nx: 1\n", {"d": [10], "x": 1}) == "d:\n  - 10\nx: 1\n"


def test_what_cannot_be_edited_safely_is_left_to_plain_writing():
    """Anchors and aliases share one node between places: an edit would change both, so none is made."""
    text = "base: &b {s: 1}\nu: *b\n"
    assert edited(text, {"base": {"s": 2}, "u": {"s": 1}}) is None
    assert merge(yaml.safe_load(text), yaml.safe_load(text), {"base": {"s": 2}, "u": {"s": 1}}) == \
        {"base": {"s": 2}, "u": {"s": 1}}


def test_an_edit_that_would_not_read_back_as_the_battle_is_never_written(tmp_path, monkeypatch):
    """The edited text is read again and compared with the merged battle: a wrong edit (here every new
    scalar spelt wrongly on purpose) is thrown away and the battle written plainly, still right."""
    from rangefire.scenario import rewrite

    monkeypatch.setattr(rewrite, "_scalar_text", lambda value, node, written: "[wrong]")
    assert edited("a: 1\nb: 2\n", {"a": 1, "b": 3}) is None
    out, _before, after = attack_and_write(tmp_path, DC_COMMENTED, ".yaml", Attack("15th-alabama"), 3)
    reads_back(out, after)
    assert "#" not in out.read_text()


def test_a_yaml_file_with_aliases_is_written_plainly_and_reads_back(tmp_path):
    text = DC_COMMENTED.replace("facing: 0.0,", "facing: &north 0.0,").replace("facing: 0}", "facing: *north}")
    out, _before, after = attack_and_write(tmp_path, text, ".yaml", Attack("15th-alabama"), 3)
    reads_back(out, after)
    # the file's key order all the same, the order of the sides its reading recorded last [DC-9.4]
    assert list(read_scenario(out)) == [*yaml.safe_load(text), "turn"]


def test_a_byte_order_mark_stays(tmp_path):
    out, _before, after = attack_and_write(tmp_path, "\ufeff" + DC_COMMENTED, ".yaml",
                                                  Attack("15th-alabama"), 3)
    assert out.read_bytes().startswith(b"\xef\xbb\xbf# The Wheatfield")
    reads_back(out, after)


def test_writing_without_the_original_or_before_still_reads_back(tmp_path):
    """Without ``before``, every value is compared with the file's: the battle is right, defaults are added."""
    source = tmp_path / "s.yaml"
    source.write_text(DC_COMMENTED)
    ruleset, battle = load_battle(source)
    _, after = ruleset.play(battle, Attack("15th-alabama"), SeededSource(3))
    write_scenario(tmp_path / "a.yaml", ruleset.dump(after), original=source)
    write_scenario(tmp_path / "b.yaml", ruleset.dump(after))
    for name in ("a.yaml", "b.yaml"):
        reads_back(tmp_path / name, ruleset.dump(after))
    assert comments((tmp_path / "a.yaml").read_text()) == comments(DC_COMMENTED)


# -- speed ---------------------------------------------------------------------------------------------
def many_units(count: int, comment: str = "") -> str:
    """A Dress on the Colors scenario of ``count`` units, one flow mapping a line (11 values, 17 with the keys
    the reader also counts)."""
    return "# many units\nruleset: dress-on-the-colors\nunits:\n" + "".join(
        f"  - {{id: u{i}, side: {'union' if i % 2 else 'confederate'}, stands: 4, weapon: rifled-musket, "
        f"formation: line, position: [{i}, {i % 50}], facing: 0}}  # {comment}{i}\n" for i in range(count))


def test_the_largest_accepted_scenario_is_edited_in_place_quickly(tmp_path):
    """400 units, the most Dress on the Colors accepts, a long comment on each: edited, not rewritten."""
    text = many_units(400, "a note on the unit, " * 10)
    source = tmp_path / "big.yaml"
    source.write_text(text)
    ruleset, battle = load_battle(source)
    before = ruleset.dump(battle)
    after = json.loads(json.dumps(before))
    after["units"][7]["stands"] = 3
    start = time.process_time()
    write_scenario(source, after, original=source, before=before)
    seconds = time.process_time() - start
    assert changed_keys(text, source.read_text()) == {"stands"} | RECORDED
    reads_back(source, after)
    assert seconds < 5, f"{seconds:.2f} s"  # a guard against a runaway edit, not a figure (1 s under load)


@pytest.mark.parametrize(("count", "edited_in_place"), [(files_module.MAX_EDITED_VALUES // 11 - 1, True),
                                                        (40_000 // 17 - 50, False)])
def test_files_at_the_value_limit_are_written_quickly(tmp_path, count, edited_in_place):
    """Up to MAX_EDITED_VALUES the text is edited in place (comments kept); above it, up to the reader's value
    limit, the battle is written plainly. Either within a second of CPU time."""
    text = many_units(count)
    source = tmp_path / "big.yaml"
    source.write_text(text)
    original = read_scenario(source)
    after = json.loads(json.dumps(original))
    after["units"][7]["stands"] = 3
    start = time.process_time()
    write_scenario(source, after, original=source, before=original)
    seconds = time.process_time() - start
    written = source.read_text()
    assert read_scenario(source) == after
    if edited_in_place:
        assert changed_keys(text, written) == {"stands"}
    else:
        assert "#" not in written
    assert seconds < 5, f"{seconds:.2f} s"  # a guard against a runaway edit, not a figure (1 s under load)


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".toml"])
def test_a_failed_write_leaves_the_original_whole(tmp_path, monkeypatch, suffix):
    import errno

    source = tmp_path / f"s{suffix}"
    source.write_text(TOML if suffix == ".toml" else DC_COMMENTED if suffix == ".yaml" else json.dumps(
        yaml.safe_load(DC_COMMENTED)))
    old = source.read_bytes()
    ruleset, battle = load_battle(source)

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files_module.os, "write", full)
    from rangefire.core import ScenarioError

    with pytest.raises(ScenarioError, match="no space left"):
        write_scenario(source, ruleset.dump(battle), original=source, before=ruleset.dump(battle))
    assert source.read_bytes() == old
