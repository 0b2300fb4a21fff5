"""Scenario loading fuzzed for every game: any mapping gives a battle or the project's own error.

Each example scenario is mutated (a value anywhere replaced by one of another type or a random JSON-like value,
keys deleted or added, list items duplicated) and handed to ``battle_from_mapping``: it must return a battle or
raise a ``RangefireError``, never another exception. A battle it returns is then checked for a pair of its
units: the rules may refuse the attack (a ``Check`` with refusals, or a ``RangefireError``), never crash; and
written out as a scenario it reads back as the same battle. The files themselves are fuzzed too: the examples
in YAML, JSON and TOML with bytes changed, cut or inserted must load or be refused with our own error.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
import tomli_w
import yaml
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from rangefire.core import Attack, Check, RangefireError
from rangefire.rulesets import RULESETS, battle_from_mapping, load_battle

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.yaml"))
#: Mutated scenarios tried per example: about 200 for each game (Bushido and swerve have two examples each).
EXAMPLES_PER_GAME = {"dress-on-the-colors": 1, "arcane-legions": 1, "bushido": 2, "swerve": 2}

#: Values a scenario might hold by mistake or by malice, of every type the formats can carry.
NASTY = st.sampled_from([None, True, False, 0, -1, 1, 2, 7, 61, 10**6 + 1, -(10**7), 10**5000, 0.5, -2.5, 1e-13,
                         1e300, math.inf, -math.inf, math.nan, "", "x", "four", "1/0", "1e999", "[/x]", "\x1b[31m",
                         "\x00", [], [1], [1, 2], [[0, 0], [1, 0], [0, 1]], {}, {"k": 1}, {"id": "x"}])
SCALARS = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
           | st.sampled_from(["front", "blue", "unit", "tactic", "ranged-combat", "aimed", "line", "30", "none"]))
JSONISH = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=8)
KEYS = st.sampled_from(["id", "side", "units", "cards", "hands", "players", "weapon", "effect", "ranged",
                        "slots", "position", "x", ""]) | st.text(max_size=10)

Path_ = tuple[Any, ...]


def paths(node: Any, prefix: Path_ = ()) -> list[Path_]:
    """Every place in a mapping, depth first: the path of each value below the top level."""
    found = []
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        found.append((*prefix, key))
        found.extend(paths(child, (*prefix, key)))
    return found


def containers(node: Any, kind: type) -> list[Path_]:
    return [p for p in [(), *paths(node)] if isinstance(at(node, p), kind)]


def at(node: Any, path: Path_) -> Any:
    for key in path:
        node = node[key]
    return node


@st.composite
def mutated(draw: st.DrawFn, original: dict[str, Any]) -> dict[str, Any]:
    """The example with one to four mutations, each noted for the report of a failure."""
    data = copy.deepcopy(original)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "replace", "retype", "delete", "add", "duplicate"]))
        if kind in ("replace", "retype", "delete"):
            places = paths(data)
            if not places:
                continue
            path = draw(st.sampled_from(places))
            parent = at(data, path[:-1])
            if kind == "delete":
                del parent[path[-1]]
            else:
                # a copy: the listed values are shared, and a later mutation must not change them
                parent[path[-1]] = copy.deepcopy(draw(JSONISH if kind == "replace" else NASTY))
        elif kind == "add":
            path = draw(st.sampled_from(containers(data, dict)))
            key = draw(KEYS)
            at(data, path)[key] = copy.deepcopy(draw(JSONISH | NASTY))
        else:
            lists = [p for p in containers(data, list) if at(data, p)]
            if not lists:
                continue
            path = draw(st.sampled_from(lists))
            items = at(data, path)
            items.append(copy.deepcopy(items[draw(st.integers(0, len(items) - 1))]))
        note(f"{kind} at {path!r}")
    return data


def load(name: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(name.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_any_mutated_scenario_gives_a_battle_or_our_own_error(example):
    """battle_from_mapping on a mutated example: a battle, or a RangefireError; a battle's check of two of its
    units: a Check, or a RangefireError."""
    original = load(example)

    @settings(max_examples=200 // EXAMPLES_PER_GAME[original["ruleset"]], deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def fuzz(data: st.DataObject) -> None:
        mapping = data.draw(mutated(original))
        try:
            ruleset, battle = battle_from_mapping(mapping, source="fuzzed.yaml")
        except RangefireError:
            return
        ids = list(ruleset.unit_ids(battle))
        if not ids:
            return
        attacker = data.draw(st.sampled_from(ids))
        target = data.draw(st.sampled_from([None, *ids]))
        again = battle_from_mapping(ruleset.dump(battle), source="written.yaml")[1]
        assert again == battle, "a battle written out reads back as another"
        try:
            checked = ruleset.check(battle, Attack(attacker, target))
        except RangefireError:
            return
        assert isinstance(checked, Check)

    fuzz()


@pytest.mark.parametrize("key", [r.key for r in RULESETS])
@settings(max_examples=50, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(extra=st.dictionaries(KEYS, JSONISH | NASTY, max_size=6))
def test_any_mapping_naming_a_game_gives_a_battle_or_our_own_error(key, extra):
    """Not only mutated examples: any mapping at all under a game's key."""
    with contextlib.suppress(RangefireError):
        battle_from_mapping({**copy.deepcopy(extra), "ruleset": key})


#: Numbers as a file might spell them: past the digits Python reads, past a float, not numbers at all.
NUMBERS = st.sampled_from([b"9" * 5000, b"-" + b"9" * 4400, b"1e999", b"1.0e+999", b"-1.0e+999", b".nan", b"nan",
                           b"NaN", b"Infinity", b"0x1F", b"1_000", b"1e-13", b"0.1e-40", b"00", b"+5", b"1/3"])


def spellings(example: Path) -> dict[str, bytes]:
    data = load(example)
    return {"yaml": example.read_bytes(), "json": json.dumps(data, indent=1).encode(),
            "toml": tomli_w.dumps(data).encode()}


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_any_damaged_file_loads_or_is_refused_with_our_own_error(example, tmp_path):
    """An example file with bytes replaced, deleted or inserted (any byte, or one that matters to the format),
    in each format: load_battle returns a battle or raises a RangefireError, never another exception."""
    texts = spellings(example)
    special = st.sampled_from([b"\x00", b"\xff", b"\xef\xbb\xbf", b"{", b"[", b"]", b"}", b":", b",", b"\"", b"'",
                               b"&a", b"*a", b"!!", b"\n", b"\t", b"#", b"=", b"9" * 5000, b"1e999", b"-", b"."])

    @settings(max_examples=100 // EXAMPLES_PER_GAME[load(example)["ruleset"]], deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(data=st.data())
    def fuzz(data: st.DataObject) -> None:
        fmt = data.draw(st.sampled_from(sorted(texts)))
        content = bytearray(texts[fmt])
        for _ in range(data.draw(st.integers(1, 3))):
            kind = data.draw(st.sampled_from(["replace", "delete", "insert", "number", "line"]))
            if kind in ("number", "line"):
                # a number spelt otherwise (too long to read, past a float, not a number), or a line given twice
                spans = [m.span() for m in re.finditer(rb"\d+(\.\d+)?" if kind == "number" else rb"[^\n]*\n",
                                                       bytes(content))]
                if not spans:
                    continue
                start, end = data.draw(st.sampled_from(spans))
                content[start:end] = (data.draw(NUMBERS) if kind == "number" else content[start:end] * 2)
                continue
            at_ = data.draw(st.integers(0, len(content)))
            piece = data.draw(special | st.binary(min_size=1, max_size=3))
            if kind == "insert":
                content[at_:at_] = piece
            else:
                content[at_:at_ + len(piece) if kind == "replace" else at_ + data.draw(st.integers(1, 40))] = (
                    piece if kind == "replace" else b"")
        path = tmp_path / f"damaged.{fmt}"
        path.write_bytes(bytes(content))
        with contextlib.suppress(RangefireError):
            load_battle(path)

    fuzz()
