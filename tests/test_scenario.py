"""Scenario files: three formats, validated whole, hostile input refused quickly (design section 4)."""

from __future__ import annotations

import json
import time
from fractions import Fraction

import pytest
import tomli_w
import yaml

from rangefire.core import LimitError, ScenarioError
from rangefire.rulesets import battle_from_mapping, find_ruleset, load_battle
from rangefire.scenario import MAX_FILE_BYTES, write_scenario
from tests.conftest import unit

BASE = {"ruleset": "dress-on-the-colors", "name": "test",
        "terrain": [{"id": "wall", "kind": "heavy", "polygon": [[-2, 4], [2, 4], [2, 4.5], [-2, 4.5]]}],
        "units": [unit("F", "blue", (0, 0), 0), unit("T", "grey", (0.1, 10), 180)]}

TEN_MISTAKES = """\
ruleset: dress-on-the-colors
options: {arc: sideways, discipline_dice: 0}
terrain:
  - {id: wall, kind: lava, polygon: [[0, 0], [1, 1]]}
units:
  - {id: a, side: blue, stands: -3, weapon: musket, formation: line, position: [0, 0], facing: 0}
  - {id: a, side: grey, stands: 2, weapon: smoothbore, formation: column, position: [0], facing: north}
"""


def test_ten_mistakes_are_all_reported_with_their_paths(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(TEN_MISTAKES)
    with pytest.raises(ScenarioError) as caught:
        load_battle(path)
    problems = caught.value.problems
    assert len(problems) == 10, problems
    for where in ("options.arc", "options.discipline_dice", "terrain[0].kind", "terrain[0].polygon",
                  "units[0].stands", "units[0].weapon", "units[1].formation", "units[1].position",
                  "units[1].facing", "units[1].id"):
        assert any(p.startswith(where + ":") for p in problems), where
    assert "units[0].stands: must be a whole number >= 1, got -3" in problems
    assert str(caught.value).startswith(f"{path}: 10 errors")


def test_unknown_keys_and_missing_ruleset():
    with pytest.raises(ScenarioError, match=r"units\[0\]\.colour: unknown key"):
        battle_from_mapping({**BASE, "units": [{**BASE["units"][0], "colour": "red"}, BASE["units"][1]]})
    with pytest.raises(ScenarioError, match="ruleset: is required"):
        battle_from_mapping({"units": []})
    with pytest.raises(ScenarioError, match="unknown ruleset 'chess'"):
        battle_from_mapping({"ruleset": "chess"})


@pytest.mark.parametrize("suffix", [".yaml", ".toml", ".json"])
def test_three_formats_read_the_same_battle_exactly(tmp_path, suffix):
    path = tmp_path / f"s{suffix}"
    text = {".yaml": yaml.safe_dump, ".toml": tomli_w.dumps, ".json": json.dumps}[suffix](BASE)
    path.write_text(text)
    _, battle = load_battle(path)
    assert battle == battle_from_mapping(BASE)[1]
    assert str(battle.unit("T").position[0]) == "1/10"  # a decimal read exactly, not as a float


@pytest.mark.parametrize("suffix", [".yaml", ".toml", ".json"])
def test_written_battles_read_back_equal(tmp_path, suffix):
    ruleset, battle = battle_from_mapping({**BASE, "units": [*BASE["units"], unit("X", "grey", ("1/3", 7), 30)]})
    path = tmp_path / f"out{suffix}"
    write_scenario(path, ruleset.dump(battle))
    assert load_battle(path)[1] == battle


def test_alias_selects_the_ruleset_and_is_written_as_the_key():
    ruleset, battle = battle_from_mapping({**BASE, "ruleset": "doc"})
    assert ruleset is find_ruleset("dress-on-the-colors") and battle.ruleset == "dress-on-the-colors"


def test_huge_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.yaml"
    with path.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    start = time.perf_counter()
    with pytest.raises(LimitError, match="at most"):
        load_battle(path)
    assert time.perf_counter() - start < 1  # refused without parsing (a generous bound, not a benchmark)


def test_billion_laughs_is_refused(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join(['*a' + str(i - 1)] * 10)}]" for i in range(1, 9)]
    path = tmp_path / "laughs.yaml"
    path.write_text("ruleset: dress-on-the-colors\n" + "\n".join(lines) + "\n")
    with pytest.raises(LimitError):
        load_battle(path)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("stands", 1_000_000, r"units\[0\]\.stands: must be a whole number <= 60"),
    ("position", ["1e999999", 0], r"units\[0\]\.position: .*magnitude"),
    ("facing", float("nan"), r"units\[0\]\.facing: must be a finite number"),
])
def test_hostile_values_are_refused(field, value, message):
    with pytest.raises(ScenarioError, match=message):
        battle_from_mapping({**BASE, "units": [{**BASE["units"][0], field: value}, BASE["units"][1]]})


def test_not_a_mapping_and_syntax_errors(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]")
    with pytest.raises(ScenarioError, match="top level must be a mapping"):
        load_battle(path)
    path = tmp_path / "broken.yaml"
    path.write_text("units: [\n")
    with pytest.raises(ScenarioError, match="line 2: not valid YAML"):
        load_battle(path)
    with pytest.raises(ScenarioError, match="unknown file type"):
        load_battle(tmp_path / "scenario.txt")


@pytest.mark.parametrize(("example", "section"), [("wheatfield.yaml", "units"), ("ford.yaml", "units"),
                                                  ("sawblade.yaml", "cards")])
def test_ids_used_twice_are_named_in_every_game(example, section):
    from rangefire.demo import example_path
    from rangefire.scenario import read_scenario

    data = read_scenario(example_path(example))
    items = data[section]
    data[section] = [*items, dict(items[0])]
    with pytest.raises(ScenarioError, match=rf"{section}\[{len(items)}\]\.id: .* is already the id of "
                                            rf"{section}\[0\]"):
        battle_from_mapping(data)


# -- messages in the project's own words ----------------------------------------------------------------
PYDANTIC_PHRASES = ("Input should", "valid dictionary", "instance of", "after validation", "Value error",
                    "should be", "should have", "Field required", "Extra inputs", "[type=", "pydantic",
                    "Assertion failed")
WRONG_VALUES = ({"a": 1}, [1, 2], [], "text", "", "x" * 300, 12345678, -1, 1.5, True, None, "[/x]",
                [{"a": 1}], "9" * 80, 10**30)
EXAMPLE_FILES = ("wheatfield.yaml", "ford.yaml", "temple.yaml", "mist-bridge.yaml", "sawblade.yaml", "ambush.yaml")


def _paths(node, path=()):
    """Every place in a scenario mapping (the first item of each list stands for the rest)."""
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list) and node:
        yield from _paths(node[0], (*path, 0))


def _replaced(data, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {**data, head: _replaced(data[head], rest, value)}
    return [_replaced(item, rest, value) if i == head else item for i, item in enumerate(data)]


@pytest.mark.parametrize("example", EXAMPLE_FILES)
def test_no_pydantic_wording_leaks_for_any_wrong_type_in_any_game(example):
    """Every wrong type in every place of each game's models gives a message in our own words (today:
    "must be a valid dictionary or instance of Wounds", "Tuple should have at least 1 item after validation")."""
    from rangefire.demo import example_path
    from rangefire.scenario import read_scenario

    data = read_scenario(example_path(example))
    seen = 0
    for path in list(_paths(data))[1:]:
        if path == ("ruleset",):
            continue
        for value in WRONG_VALUES:
            try:
                battle_from_mapping(_replaced(data, path, value))
            except ScenarioError as exc:
                seen += 1
                for problem in exc.problems:
                    assert not any(p in problem for p in PYDANTIC_PHRASES), (path, value, problem)
                    assert ": " in problem, problem
    assert seen > 50


@pytest.mark.parametrize(("field", "value", "message"), [
    ("wounds", 3, r"units\[0\]\.wounds: must be a mapping of keys, got 3"),
    ("states", "aimed", r"units\[0\]\.states: must be a list, got 'aimed'"),
    ("states", ["sleepy"], r"units\[0\]\.states\[0\]: must be one of aimed, ran, moved, will_move, prone, "
                           r"surprised, got 'sleepy'"),
    ("base", 35, r"units\[0\]\.base: must be one of 30, 40, 50, 60, got 35"),
    ("id", "a b", r"units\[0\]\.id: may hold only letters, digits and _ \. : -, got 'a b'"),
    ("id", "", r"units\[0\]\.id: must not be empty"),
    ("side", "x" * 65, r"units\[0\]\.side: must be at most 64 characters"),
    ("armour", "1", r"units\[0\]\.armour: must be a whole number, got '1'"),
])
def test_bushido_wrong_types_read_in_our_words(field, value, message):
    from rangefire.demo import example_path
    from rangefire.scenario import read_scenario

    data = read_scenario(example_path("temple.yaml"))
    data["units"][0][field] = value
    with pytest.raises(ScenarioError, match=message):
        battle_from_mapping(data)


def test_a_union_of_choices_is_one_message():
    from rangefire.demo import example_path
    from rangefire.scenario import read_scenario

    data = read_scenario(example_path("temple.yaml"))
    data["options"] = {"supporting_dice_cap": "many"}
    with pytest.raises(ScenarioError) as caught:
        battle_from_mapping(data)
    assert caught.value.problems == ("options.supporting_dice_cap: must be 'none' or a whole number, got 'many'",)


@pytest.mark.parametrize(("text", "value"), [("1e-13", Fraction(1, 10**13)), ("2.5e-3", Fraction(1, 400)),
                                             ("0e999999", Fraction(0)), ("12e5", Fraction(1_200_000) / 1)])
def test_small_numbers_in_exponent_notation_are_read_exactly(text, value):
    """Today 1e-13 is refused as if too large ("magnitude at most 1000000")."""
    from rangefire.core.numbers import parse_exact

    if value > 10**6:
        with pytest.raises(ValueError, match="magnitude at most"):
            parse_exact(text)
        return
    assert parse_exact(text) == value


@pytest.mark.parametrize(("text", "message"), [
    ("1e-41", "at most 40 decimal places"), ("1e-999999", "at most 40 decimal places"),
    ("1e999999", "magnitude at most 1000000"), ("١٢", "must be a number"), ("1_0", "must be a number")])
def test_numbers_beyond_the_precision_say_so(text, message):
    from rangefire.core.numbers import parse_exact

    with pytest.raises(ValueError, match=message):
        parse_exact(text)


def test_a_number_written_back_reads_again():
    """0.0000000000001 is accepted and written back as 1e-13, which must read again."""
    from rangefire.core.numbers import dump_exact, parse_exact

    value = parse_exact("0.0000000000001")
    assert parse_exact(dump_exact(value)) == value


def test_a_raw_check_tripping_over_a_wrong_type_defers_to_validation(monkeypatch):
    """A game's check on the raw mapping that meets a value of the wrong kind (a TypeError) gives way to the
    field validation's message; with nothing wrong in the fields, the fault is ours and is not hidden."""
    ruleset = find_ruleset("dress-on-the-colors")

    def tripping(data):
        raise TypeError("unhashable type: 'dict'")

    monkeypatch.setattr(ruleset, "raw_problems", tripping)
    with pytest.raises(ScenarioError, match=r"units\[0\]\.side: must be text"):
        battle_from_mapping({**BASE, "units": [{**BASE["units"][0], "side": {"a": 1}}, BASE["units"][1]]})
    with pytest.raises(TypeError):
        battle_from_mapping(BASE)


def test_a_bound_on_a_decimal_field_does_not_say_whole_number():
    """`stand_width: 0` was refused as "must be a whole number > 0": the width may be 1.5."""
    with pytest.raises(ScenarioError) as caught:
        battle_from_mapping({**BASE, "units": [{**BASE["units"][0], "stand_width": 0, "stands": 0},
                                               BASE["units"][1]]})
    assert set(caught.value.problems) == {"units[0].stand_width: must be a number > 0, got 0",
                                          "units[0].stands: must be a whole number >= 1, got 0"}


def test_tens_of_thousands_of_problems_are_counted_not_all_printed(tmp_path):
    path = tmp_path / "dups.json"
    path.write_text("{" + ",".join(f'"k{i}": 1, "k{i}": 2' for i in range(5000)) + "}")
    with pytest.raises(ScenarioError) as caught:
        load_battle(path)
    assert len(caught.value.problems) == 5000
    text = str(caught.value)
    assert text.startswith(f"{path}: 5000 errors") and text.endswith("  ... and 4900 more")
    assert len(text.splitlines()) == 102


@pytest.mark.parametrize(("value", "said"), [
    ("2024-01-01", 'name: must be text, got a date, 2024-01-01 (unquoted, it is read as one)'),
    ("2024-01-01 07:32:00", 'name: must be text, got a date, 2024-01-01T07:32:00 (unquoted, it is read as one)'),
])
def test_a_name_yaml_reads_as_a_date_is_said_to_be_one(tmp_path, value, said):
    """``name: 2024-01-01`` was refused as 'must be text, got "2024-01-01"', which reads as text: the message
    says what YAML made of it."""
    from pathlib import Path

    source = (Path(__file__).resolve().parent.parent / "examples" / "wheatfield.yaml").read_text(encoding="utf-8")
    path = tmp_path / "dated.yaml"
    path.write_text("\n".join(f"name: {value}" if line.startswith("name:") else line
                              for line in source.splitlines()), encoding="utf-8")
    with pytest.raises(ScenarioError) as refused:
        load_battle(path)
    assert str(refused.value) == f"{path}: {said}"
