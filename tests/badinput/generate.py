"""Write the bad-input corpus from the example scenarios: ``python tests/badinput/generate.py``.

Deterministic: the same examples give the same files and the same ``manifest.jsonl`` (one JSON object a line):

- ``id``: unique; ``category``: what kind of bad input; ``file``: the corpus file, relative to this folder
  (or null when the command line alone is bad);
- ``args``: the command after ``rangefire``, with ``{file}`` (the corpus file), ``{examples}`` (the example
  scenarios) and ``{here}`` (this folder) to be filled in;
- ``exit``: the exit codes allowed (2: bad input; 1: the rules refuse the attack; 0: accepted);
- ``stderr``: fragments the error message must hold (case-insensitive), such as the key path ``units[0].stands``
  (a list in place of a fragment: any one of them will do);
- ``shown``: fragments stdout or stderr must hold as text (names with markup or escapes);
- ``absent``: fragments that must not appear (a misleading message);
- ``process``: present and true for a position that may take long: run in a process of its own.

Only what must be refused has exit 2; valid names with markup must show as text and exit 0 (or 1 where the
attack is one the rules refuse), and inputs that must be accepted (a byte-order mark, ``1e-13``) sit in their
own groups.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
import shutil
import sys
import tomllib
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w
import yaml

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parents[1] / "examples"
MANIFEST = HERE / "manifest.jsonl"
FOLDERS = ("dc", "al", "bu", "sw", "misc")


class Raw:
    """A number written as literal text in each format (more digits than Python reads, ``1e999``, NaN)."""

    def __init__(self, label: str, yaml_text: str, json_text: str, toml_text: str) -> None:
        self.label = label
        self.text = {"yaml": yaml_text, "json": json_text, "toml": toml_text}

    def __repr__(self) -> str:
        return self.label


DIGITS = "9" * 5000  # past the 4,300 digits Python turns into an int by default
HUGE_INT = Raw("10**5000", DIGITS, DIGITS, DIGITS)
NEG_HUGE_INT = Raw("minus 10**5000", "-" + DIGITS, "-" + DIGITS, "-" + DIGITS)
BIG_FLOAT = Raw("1e999", "1.0e+999", "1e999", "1e999")
NEG_BIG_FLOAT = Raw("minus 1e999", "-1.0e+999", "-1e999", "-1e999")
NAN = Raw("nan", ".nan", "NaN", "nan")
TINY = Raw("1e-13", "1.0e-13", "1e-13", "1e-13")

GAMES: dict[str, dict[str, Any]] = {
    "dc": {"example": "wheatfield.yaml", "attack": ["-a", "15th-alabama"], "stage": "hit", "dice": 8},
    "al": {"example": "ford.yaml", "attack": ["-a", "archers", "-t", "orc-band"], "stage": "attack", "dice": 4},
    "bu": {"example": "temple.yaml", "attack": ["-a", "yoichi", "-t", "takeda"], "stage": "attack", "dice": 3},
    "sw": {"example": "ambush.yaml", "attack": ["-a", "rail-gun", "-t", "dune-buggy"], "stage": "bonus", "dice": 1},
}
VERBS = (["check"], ["odds"], ["resolve", "--seed", "1"])

def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))
    return data


# -- writing a mapping in each format, with literal numbers where a value is Raw ------------------------------------
def dump(data: Any, fmt: str) -> str:
    tokens: dict[str, Raw] = {}

    def swap(node: Any) -> Any:
        if isinstance(node, Raw):
            token = f"RAWTOKEN{len(tokens):04d}X"
            tokens[token] = node
            return token
        if isinstance(node, dict):
            return {k: swap(v) for k, v in node.items()}
        if isinstance(node, list):
            return [swap(v) for v in node]
        return node

    plain = swap(data)
    if fmt == "yaml":
        text = yaml.safe_dump(plain, sort_keys=False, allow_unicode=True, width=120)
    elif fmt == "json":
        text = json.dumps(plain, indent=2, ensure_ascii=False) + "\n"
    else:
        text = tomli_w.dumps(plain)
    for token, raw in tokens.items():
        text = re.sub(rf"['\"]?{token}['\"]?", lambda _m, raw=raw: raw.text[fmt], text)
    return text


def has_null(node: Any) -> bool:
    if node is None:
        return True
    if isinstance(node, dict):
        return any(has_null(v) for v in node.values())
    if isinstance(node, list):
        return any(has_null(v) for v in node)
    return False


def path_text(path: tuple[Any, ...]) -> str:
    """``("units", 0, "stands")`` -> ``units[0].stands``: how messages name a key."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def at(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


def put(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    at(data, path[:-1])[path[-1]] = value
    return data


def drop(data: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    del at(data, path[:-1])[path[-1]]
    return data


def has_huge(node: Any) -> bool:
    if isinstance(node, Raw):
        return node.label.endswith("10**5000")
    if isinstance(node, dict):
        return any(has_huge(v) for v in node.values())
    if isinstance(node, list):
        return any(has_huge(v) for v in node)
    return False


def where(path: tuple[Any, ...], value: Any) -> list[str | list[str]]:
    """The fragment an error must hold: the key path; for a number too long to read, the key path or the line
    (the file's parser refuses it before the key is known)."""
    return [[path_text(path), "line"]] if has_huge(value) else [path_text(path)]


def slug(value: Any) -> str:
    """A short file-name-safe label for a value, its type first where the text alone would be ambiguous."""
    text = value.label if isinstance(value, Raw) else json.dumps(value, ensure_ascii=True, default=repr)
    text = re.sub(r"^-", "minus", text)
    text = re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower()[:20] or "empty"
    kind = {list: "list-", dict: "map-", str: "text-"}.get(type(value), "")
    return kind + text


# -- the corpus --------------------------------------------------------------------------------------------------------
@dataclass
class Corpus:
    entries: list[dict[str, Any]]
    files: dict[str, bytes]

    def add(self, entry_id: str, category: str, args: list[str], *, file: tuple[str, bytes] | None = None,
            exit: tuple[int, ...] = (2,), stderr: list[Any] | None = None, shown: list[str] | None = None,
            absent: list[str] | None = None, why: str = "") -> None:
        if any(e["id"] == entry_id for e in self.entries):
            raise ValueError(f"two entries named {entry_id}")
        if file is not None:
            self.files[file[0]] = file[1]
        self.entries.append({"id": entry_id, "category": category, "why": why,
                             "file": file[0] if file else None, "args": args, "exit": list(exit),
                             "stderr": stderr or [], "shown": shown or [], "absent": absent or [],
                             **({"process": True} if category == "limit" else {})})

    def scenario(self, game: str, category: str, name: str, data: Any, *, fmt: str | None = None,
                 stderr: list[Any] | None = None, exit: tuple[int, ...] = (2,), why: str = "",
                 args: list[str] | None = None, **extra: Any) -> None:
        """A scenario mapping written as a file; by default refused on `check`/`odds`/`resolve` in turn.

        The format and the command follow from the entry's name, so that adding an entry changes no other.
        """
        entry_id = f"{game}-{category}-{name}"
        turn = zlib.crc32(entry_id.encode())
        if fmt is None:
            fmt = ("yaml", "json", "yaml", "toml")[turn % 4]
        if fmt == "toml" and has_null(data):
            fmt = "yaml"
        try:
            text = dump(data, fmt)
        except (TypeError, ValueError):  # TOML cannot hold a top-level list, say
            fmt = "yaml"
            text = dump(data, fmt)
        rel = f"{game}/{entry_id}.{fmt}"
        if args is None:
            verb = VERBS[turn // 4 % len(VERBS)]
            args = [verb[0], "{file}", *GAMES[game]["attack"], *verb[1:]]
        named = [f"{entry_id}.{fmt}"] if exit == (2,) and category != "limit" else []
        self.add(entry_id, category, args, file=(rel, text.encode("utf-8")), exit=exit,
                 stderr=[*named, *(stderr or [])], why=why, **extra)

    def raw(self, folder: str, category: str, name: str, ext: str, content: bytes, *, args: list[str],
            stderr: list[Any] | None = None, exit: tuple[int, ...] = (2,), why: str = "", **extra: Any) -> None:
        entry_id = f"{folder}-{category}-{name}"
        rel = f"{folder}/{entry_id}{ext}"
        named = [f"{entry_id}{ext}"] if exit == (2,) else []
        self.add(entry_id, category, args, file=(rel, content), exit=exit, stderr=[*named, *(stderr or [])],
                 why=why, **extra)


# -- wrong types at every key -----------------------------------------------------------------------------------------
def bad_values(kind: str, turn: int, nullable: bool = False, lo: int = 0, hi: int = 64) -> list[Any]:
    """Values of the wrong type for a key of this kind, each of which must be refused: a list or a mapping (in
    turn), a scalar of another type, a boolean and null (where null is not allowed) at every key, and one more
    of the kind's own bad values in turn, so that every one of them is used somewhere."""
    scalar: Any
    extra: list[Any]
    container: Any = [["x"], {"k": "x"}][turn % 2]
    boolean: Any = True
    if kind in ("id", "str"):
        scalar = 7
        extra = ["x" * (hi + 1), *([""] if lo >= 1 else [])]
        if kind == "id":
            extra = ["", "two words", "x" * 65, "[/x]", 2.5]
    elif kind == "int":
        scalar = "four"
        extra = [4.5, HUGE_INT, -2.5]
    elif kind == "num":
        scalar = "ninety"
        extra = [BIG_FLOAT, NAN, 10**7, "1/0", "", NEG_BIG_FLOAT]
    elif kind in ("enum", "base"):
        scalar = 35 if kind == "base" else 3
        extra = ["thirty", 30.5] if kind == "base" else ["nope", "", 0]
    elif kind == "xy":
        scalar = "1,2"
        extra = [[1], [1, 2, 3], [True, 1], [BIG_FLOAT, 0], ["a", "b"], [None, 1], {"x": 1, "y": 2}]
    elif kind == "bool":
        scalar, boolean = "maybe", 2
        extra = [0.5, "", -1]
    elif kind in ("map", "list"):
        container = ["x"] if kind == "map" else {"k": "x"}
        scalar = "x"
        extra = [5, 2.5]
    elif kind == "polygon":
        scalar = "x"
        extra = [[[0, 0], [1, 1]], [[0, 0], [2, 0], [0, 2], [2, 2]], [[0, 0], [1, 0], [2, 0]],
                 [[0, 0], [1, 0], "x"], [[0, 0], [BIG_FLOAT, 0], [0, 1]]]
    else:
        raise ValueError(kind)
    values = [container, scalar, boolean, extra[turn % len(extra)]]
    return values if nullable else [*values, None]


SPECS: dict[str, list[tuple[tuple[Any, ...], str, dict[str, Any]]]] = {
    "dc": [
        (("name",), "str", {"nullable": True, "hi": 200}), (("units",), "list", {}), (("terrain",), "list", {}),
        (("options",), "map", {}), (("options", "arc"), "enum", {}), (("options", "discipline_dice"), "int", {}),
        (("options", "discipline_pass"), "int", {}), (("units", 0), "map", {}),
        (("units", 0, "id"), "id", {}), (("units", 0, "side"), "str", {"lo": 1}),
        (("units", 0, "stands"), "int", {}), (("units", 0, "weapon"), "enum", {}),
        (("units", 0, "formation"), "enum", {}), (("units", 0, "position"), "xy", {}),
        (("units", 0, "facing"), "num", {}), (("units", 0, "stand_width"), "num", {}),
        (("units", 0, "stand_depth"), "num", {}), (("units", 0, "moved"), "bool", {}),
        (("units", 0, "engaged"), "bool", {}), (("units", 0, "disordered"), "bool", {}),
        (("units", 0, "micro_hits"), "int", {}), (("units", 0, "discipline"), "int", {}),
        (("units", 0, "start_position"), "xy", {"nullable": True}),
        (("units", 0, "start_facing"), "num", {"nullable": True}), (("units", 0, "gunsmoke"), "bool", {}),
        (("terrain", 0), "map", {}), (("terrain", 0, "id"), "id", {}), (("terrain", 0, "kind"), "enum", {}),
        (("terrain", 0, "polygon"), "polygon", {}),
    ],
    "al": [
        (("name",), "str", {"nullable": True, "hi": 200}), (("units",), "list", {}), (("players",), "map", {}),
        (("players", "legion"), "map", {}), (("players", "legion", "order_points"), "int", {}),
        (("options", "corner_contact_is_adjacent"), "bool", {}), (("options", "touching_hinders"), "bool", {}),
        (("options", "refuse_zero_dice"), "bool", {}), (("options", "crit_per_three_sixes"), "bool", {}),
        (("units", 0, "id"), "id", {}), (("units", 0, "side"), "str", {"lo": 1}),
        (("units", 0, "base"), "enum", {}), (("units", 0, "position"), "xy", {}),
        (("units", 0, "facing"), "num", {}), (("units", 0, "sides"), "map", {}),
        (("units", 0, "sides", "front"), "enum", {}), (("units", 0, "sides", "left"), "enum", {}),
        (("units", 0, "slots"), "list", {}), (("units", 0, "slots", 0), "map", {}),
        (("units", 0, "slots", 0, "icons"), "list", {}), (("units", 0, "slots", 0, "icons", 0), "enum", {}),
        (("units", 0, "slots", 0, "occupied"), "bool", {}), (("units", 0, "slots", 0, "hp"), "int", {}),
        (("units", 0, "abilities"), "map", {}), (("units", 0, "abilities", "attack_dice"), "int", {}),
        (("units", 0, "abilities", "defense_die_bonus"), "int", {}),
        (("units", 0, "abilities", "reroll_attack_at_most"), "int", {}),
        (("units", 0, "abilities", "order_cost"), "int", {}),
        (("units", 0, "abilities", "defender_scores_in_ranged"), "bool", {}),
        (("units", 0, "ranged_orders_this_turn"), "int", {}), (("units", 0, "pushed"), "bool", {}),
        (("units", 0, "casualty_order"), "list", {"nullable": True}),
        (("terrain", 1, "kind"), "enum", {}), (("terrain", 1, "polygon"), "polygon", {}),
    ],
    "bu": [
        (("name",), "str", {"nullable": True, "hi": 200}), (("units",), "list", {}),
        (("active_side",), "str", {"nullable": True, "lo": 1}), (("options", "supporting_dice_cap"), "int", {}),
        (("units", 0, "id"), "id", {}), (("units", 0, "side"), "str", {"lo": 1}),
        (("units", 0, "position"), "xy", {}), (("units", 0, "base"), "base", {}),
        (("units", 0, "rcp"), "int", {"nullable": True}), (("units", 0, "armour"), "int", {}),
        (("units", 0, "wounds"), "map", {}), (("units", 0, "wounds", "boxes"), "int", {}),
        (("units", 0, "wounds", "marked"), "int", {}), (("units", 0, "states"), "list", {}),
        (("units", 0, "states", 0), "enum", {}), (("units", 0, "weapon"), "map", {"nullable": True}),
        (("units", 0, "weapon", "name"), "str", {"lo": 1}), (("units", 0, "weapon", "short"), "num", {}),
        (("units", 0, "weapon", "medium"), "num", {}), (("units", 0, "weapon", "long"), "num", {}),
        (("units", 0, "weapon", "wound_modifier"), "int", {}),
        (("units", 0, "weapon", "ammo"), "int", {"nullable": True}),
        (("units", 0, "weapon", "armour_piercing"), "bool", {}), (("units", 0, "traits"), "list", {}),
        (("terrain", 0, "kind"), "enum", {}), (("terrain", 1, "polygon"), "polygon", {}),
    ],
    "sw": [
        (("name",), "str", {"nullable": True, "hi": 200}), (("options", "attacker_wins_ties"), "bool", {}),
        (("players",), "map", {}), (("players", "jason"), "map", {}), (("players", "jason", "deck"), "list", {}),
        (("players", "jason", "deck", 0), "int", {}), (("players", "jason", "deck_order"), "enum", {}),
        (("players", "jason", "top_revealed"), "int", {"nullable": True}), (("cards",), "list", {}),
        (("cards", 0), "map", {}), (("cards", 0, "id"), "id", {}), (("cards", 0, "owner"), "str", {"lo": 1}),
        (("cards", 0, "type"), "enum", {}), (("cards", 0, "name"), "str", {"hi": 120}),
        (("cards", 3, "speed"), "int", {"nullable": True}), (("cards", 0, "accuracy"), "int", {"nullable": True}),
        (("cards", 0, "damage"), "int", {"nullable": True}), (("cards", 3, "toughness"), "int", {"nullable": True}),
        (("cards", 0, "counters"), "int", {}), (("cards", 3, "swerved"), "bool", {}),
        (("cards", 0, "mission"), "str", {"nullable": True}), (("cards", 0, "ranged"), "map", {"nullable": True}),
        (("cards", 0, "ranged", "accuracy"), "int", {}), (("cards", 0, "ranged", "damage"), "int", {}),
        (("cards", 0, "ranged", "cost"), "enum", {}), (("cards", 0, "ranged", "targets"), "list", {}),
        (("cards", 0, "ranged", "targets", 0), "enum", {}), (("cards", 1, "timing"), "enum", {"nullable": True}),
        (("cards", 1, "effect"), "map", {"nullable": True}), (("cards", 1, "effect", "accuracy"), "int", {}),
        (("cards", 4, "effect", "speed"), "int", {}), (("hands",), "map", {}), (("hands", "jason"), "list", {}),
    ],
}


def wrong_types(corpus: Corpus, game: str, base: dict[str, Any]) -> None:
    for turn, (path, kind, params) in enumerate(SPECS[game]):
        for value in bad_values(kind, turn, params.get("nullable", False), params.get("lo", 0),
                                params.get("hi", 64)):
            corpus.scenario(game, "type", f"{path_text(path)}-{slug(value)}".replace("[", "").replace("]", ""),
                            put(base, path, value), stderr=where(path, value),
                            why=f"{path_text(path)} given {value!r} ({kind} expected)")


def hand_entries(corpus: Corpus, base: dict[str, Any]) -> None:
    """swerve ``hands`` entries of the wrong type (the checks across cards once ran on them unvalidated)."""
    for value in (["overcharge"], {"id": "overcharge"}, 5, None, True, 2.5):
        corpus.scenario("sw", "type", f"hands.jason0-{slug(value)}", put(base, ("hands", "jason", 0), value),
                        stderr=["hands.jason[0]"], why=f"a hand entry given {value!r} (a card id expected)")


# -- out of range and huge --------------------------------------------------------------------------------------------
def out_of_range(corpus: Corpus, game: str, base: dict[str, Any]) -> None:
    cases: list[tuple[tuple[Any, ...], Any]]
    if game == "dc":
        cases = [(("units", 0, "stands"), v) for v in (0, -3, 61, 10**9, HUGE_INT, NEG_HUGE_INT)]
        cases += [(("units", 0, "micro_hits"), v) for v in (2, -1)]
        cases += [(("units", 0, "discipline"), v) for v in (21, -21)]
        cases += [(("units", 0, "stand_width"), v) for v in (0, -1.5, 101, "1e999", BIG_FLOAT, HUGE_INT)]
        cases += [(("units", 0, "stand_depth"), 0), (("units", 0, "facing"), NEG_BIG_FLOAT),
                  (("units", 0, "facing"), "1e13"), (("units", 0, "facing"), 10**12),
                  (("units", 0, "position"), [10**7, 0]), (("units", 0, "position"), [NAN, 0]),
                  (("units", 0, "position"), [HUGE_INT, 0]), (("units", 0, "start_position"), [0, NEG_BIG_FLOAT]),
                  (("options", "discipline_dice"), 0), (("options", "discipline_dice"), 11),
                  (("options", "discipline_pass"), 101), (("options", "discipline_pass"), HUGE_INT),
                  (("terrain", 0, "polygon"), [[0, 0], [10**7, 0], [0, 1]])]
    elif game == "al":
        cases = [(("units", 0, "slots", 0, "hp"), v) for v in (-1, 101, HUGE_INT)]
        cases += [(("units", 0, "abilities", "reroll_attack_at_most"), v) for v in (6, -1)]
        cases += [(("units", 0, "abilities", "attack_dice"), v) for v in (21, -21, NEG_HUGE_INT)]
        cases += [(("players", "legion", "order_points"), v) for v in (-1, 101, HUGE_INT)]
        cases += [(("units", 0, "ranged_orders_this_turn"), -1), (("units", 0, "slots"), []),
                  (("units", 0, "slots"), [{"icons": ["blue"]}] * 41),
                  (("units", 0, "slots", 0, "icons"), ["blue"] * 13), (("units", 0, "casualty_order"), [-1]),
                  (("units", 0, "facing"), NAN), (("units", 0, "facing"), BIG_FLOAT),
                  (("units", 0, "position"), [0, 10**7])]
    elif game == "bu":
        cases = [(("units", 0, "base"), v) for v in (0, -30, 3000, HUGE_INT)]
        cases += [(("units", 0, "rcp"), v) for v in (51, -1, HUGE_INT)]
        cases += [(("units", 0, "armour"), v) for v in (-1, 21)]
        cases += [(("units", 0, "wounds", "boxes"), v) for v in (0, 101)]
        cases += [(("units", 0, "wounds", "marked"), -1)]
        cases += [(("units", 0, "weapon", "short"), v) for v in (0, -4, 1001, BIG_FLOAT, NAN)]
        cases += [(("units", 0, "weapon", "wound_modifier"), 21), (("units", 0, "weapon", "ammo"), -1),
                  (("units", 0, "weapon", "ammo"), HUGE_INT), (("units", 0, "states"), ["aimed"] * 7),
                  (("units", 0, "traits"), ["x"] * 51), (("units", 0, "position"), [BIG_FLOAT, 0]),
                  (("options", "supporting_dice_cap"), 51), (("options", "supporting_dice_cap"), -1)]
    else:
        cases = [(("cards", 0, "ranged", "accuracy"), v) for v in (1001, -1001, HUGE_INT, NEG_HUGE_INT)]
        cases += [(("cards", 3, "speed"), v) for v in (1001, HUGE_INT)]
        cases += [(("cards", 3, "toughness"), v) for v in (0, -1, 1001)]
        cases += [(("cards", 0, "counters"), -1), (("cards", 0, "ranged", "damage"), 1001),
                  (("players", "jason", "deck", 0), 1001), (("players", "jason", "deck", 0), HUGE_INT),
                  (("players", "jason", "deck"), [5] * 201), (("players", "jason", "top_revealed"), -1001),
                  (("cards", 4, "effect", "speed"), 1001), (("cards", 1, "effect", "accuracy"), HUGE_INT)]
    for path, value in cases:
        # a length or a facing is any number: a message that asks for a whole number misleads
        exact = path[-1] in ("stand_width", "stand_depth", "facing", "short", "position")
        corpus.scenario(game, "range", f"{path_text(path)}-{slug(value)}".replace("[", "").replace("]", ""),
                        put(base, path, value), stderr=where(path, value), absent=["whole"] if exact else [],
                        why=f"{path_text(path)} given {value!r}: out of range")


def cross_checks(corpus: Corpus, game: str, base: dict[str, Any]) -> None:
    """Values that are each well formed but wrong together, or too many of something."""
    def case(name: str, data: dict[str, Any], where: str, why: str) -> None:
        corpus.scenario(game, "cross", name, data, stderr=[where], why=why)

    first = "cards" if game == "sw" else "units"
    dup = put(base, (first, 1, "id"), at(base, (first, 0, "id")))
    case("duplicate-id", dup, f"{first}[1].id", "two pieces with the same id")
    many = copy.deepcopy(base)
    template = many[first][-1]
    limit = {"dc": 400, "al": 300, "bu": 200, "sw": 500}[game]
    many[first] = many[first] + [{**template, "id": f"extra-{i}", **({"position": [1000 + 3 * i, -500]}
                                                                      if "position" in template else {})}
                                 for i in range(limit + 1 - len(many[first]))]
    case("too-many", many, first, f"more than {limit} {first}")
    if game == "dc":
        case("no-units", put(base, ("units",), []), "units", "a battle needs at least one unit")
        many_terrain = put(base, ("terrain",), [{"id": f"t{i}", "kind": "light",
                                                  "polygon": [[i, 50], [i + 1, 50], [i, 51]]} for i in range(401)])
        case("too-much-terrain", many_terrain, "terrain", "more than 400 terrain pieces")
    elif game == "al":
        case("side-without-player", put(base, ("units", 0, "side"), "nobody"), "units[0].side",
             "a side with no entry under players")
        case("casualty-order-slot", put(base, ("units", 0, "casualty_order"), [0, 99]),
             "units[0].casualty_order[1]", "a casualty order naming a slot that does not exist")
    elif game == "bu":
        case("overlapping-bases", put(base, ("units", 3, "position"), [0, 0]), "units[3].position",
             "two bases overlapping [BU-2.3]")
        case("all-marked", put(base, ("units", 0, "wounds"), {"boxes": 4, "marked": 4}), "units[0].wounds",
             "every box marked [BU-7.3]")
        case("range-bounds-decrease", put(base, ("units", 0, "weapon", "short"), 20), "units[0].weapon",
             "short range beyond medium [BU-5.1]")
        case("active-side", put(base, ("active_side",), "nobody"), "active_side", "no model on the active side")
        step = 2 * math.pi / 4001
        ring = [[round(50 + 5 * math.cos(i * step), 6), round(50 + 5 * math.sin(i * step), 6)] for i in range(4001)]
        case("terrain-vertices", put(base, ("terrain", 0, "polygon"), ring), "terrain",
             "more than 4000 terrain vertices")
    else:
        case("owner-not-player", put(base, ("cards", 0, "owner"), "nobody"), "cards[0].owner",
             "a card whose owner is not a player")
        case("hand-unknown-card", put(base, ("hands", "jason"), ["no-such-card"]), "hands.jason[0]",
             "a hand naming a card that does not exist")
        case("hand-unknown-player", put(base, ("hands", "nobody"), []), "hands.nobody",
             "a hand of a player who is not in the game")
        case("card-in-two-hands", put(base, ("hands", "tyler"), ["smoke-screen", "brawl", "overcharge"]),
             "hands.tyler[2]", "a card in two hands")
        case("tactic-combat-no-effect", drop(base, ("cards", 2, "effect")), "cards[2]",
             "a tactic with timing combat and no effect [SW-1.6]")
        corpus.scenario("sw", "cross", "hand-card-at-mission", put(base, ("cards", 2, "mission"), "crossing"),
                        stderr=[["hands.jason[0]", "cards[2]"]], why="a card in a hand and at a mission [SW-1.5]")
        in_hand = put(base, ("hands", "tyler"), ["smoke-screen", "brawl", "dune-buggy"])
        corpus.scenario("sw", "cross", "vehicle-in-hand", in_hand,
                        stderr=[["hands.tyler[2]", "cards[3]"]], why="a card in play also in a hand [SW-1.5]")


# -- unknown and missing keys, unknown rulesets -----------------------------------------------------------------------
UNKNOWN = {
    "dc": [(), ("units", 0), ("units", 0), ("terrain", 0), ("options",)],
    "al": [(), ("units", 0), ("units", 0, "sides"), ("units", 0, "slots", 0), ("units", 0, "abilities"),
           ("players", "legion"), ("options",)],
    "bu": [(), ("units", 0), ("units", 0, "weapon"), ("units", 0, "wounds"), ("options",), ("terrain", 0)],
    "sw": [(), ("players", "jason"), ("cards", 0), ("cards", 0, "ranged"), ("cards", 1, "effect"), ("options",)],
}
MISSPELT = ["colour", "stand", "facting", "rnage", "hitpoints", "fly", "points", "ties", "kind_of"]
REQUIRED = {
    "dc": [("units",), ("units", 0, "id"), ("units", 0, "side"), ("units", 0, "stands"), ("units", 0, "weapon"),
           ("units", 0, "formation"), ("units", 0, "position"), ("units", 0, "facing"), ("terrain", 0, "id"),
           ("terrain", 0, "kind"), ("terrain", 0, "polygon")],
    "al": [("units",), ("units", 0, "id"), ("units", 0, "side"), ("units", 0, "base"), ("units", 0, "position"),
           ("units", 0, "facing"), ("units", 0, "sides"), ("units", 0, "slots"), ("units", 0, "sides", "front"),
           ("terrain", 0, "polygon")],
    "bu": [("units",), ("units", 0, "id"), ("units", 0, "side"), ("units", 0, "position"), ("units", 0, "base"),
           ("units", 0, "wounds"), ("units", 0, "wounds", "boxes"), ("units", 0, "weapon", "short"),
           ("units", 0, "weapon", "long")],
    "sw": [("players",), ("cards",), ("cards", 0, "id"), ("cards", 0, "owner"), ("cards", 0, "type"),
           ("cards", 0, "ranged", "accuracy"), ("cards", 0, "ranged", "damage")],
}


def keys(corpus: Corpus, game: str, base: dict[str, Any]) -> None:
    for i, where in enumerate(UNKNOWN[game]):
        key = MISSPELT[i % len(MISSPELT)]
        path = (*where, key)
        corpus.scenario(game, "unknown-key", path_text(path).replace("[", "").replace("]", ""),
                        put(base, path, 1), stderr=[path_text(path)], why=f"unknown key {path_text(path)}")
    for path in REQUIRED[game]:
        corpus.scenario(game, "missing", path_text(path).replace("[", "").replace("]", ""), drop(base, path),
                        stderr=[path_text(path)], why=f"required key {path_text(path)} missing")
    corpus.scenario(game, "missing", "ruleset", drop(base, ("ruleset",)), stderr=["ruleset"],
                    why="no ruleset key")
    for value in ("chess", 5, [base["ruleset"]], None, "", base["ruleset"] + "s"):
        corpus.scenario(game, "ruleset", slug(value), put(base, ("ruleset",), value), stderr=["ruleset"],
                        why=f"ruleset given {value!r}")


# -- duplicate keys ---------------------------------------------------------------------------------------------------
DUPLICATES = {
    # (a line to find in the block-style dump, the line to insert after it): same value or a different one
    "dc": [("ruleset: dress-on-the-colors", "ruleset: dress-on-the-colors", "ruleset"),
           ("  stands: 6", "  stands: 6", "stands"), ("  stands: 6", "  stands: 2", "stands"),
           ("  arc: corners", "  arc: centre", "arc")],
    "al": [("ruleset: arcane-legions", "ruleset: arcane-legions", "ruleset"),
           ("  base: formation", "  base: formation", "base"),
           ("  legion:", "  legion:\n    order_points: 1", "legion"), ("    front: blue", "    front: red", "front")],
    "bu": [("ruleset: bushido", "ruleset: bushido", "ruleset"), ("  rcp: 3", "  rcp: 3", "rcp"),
           ("    short: 6", "    short: 1", "short"), ("active_side: prefecture", "active_side: ito", "active_side")],
    "sw": [("ruleset: swerve", "ruleset: swerve", "ruleset"), ("  jason:", "  jason:\n    deck: []", "jason"),
           ("  owner: jason", "  owner: tyler", "owner"), ("  - overcharge", "  tyler:\n  - brawl", "tyler")],
}


def insert_after(text: str, anchor: str, new: str) -> str:
    """``new`` after the first line that is ``anchor``; a key that opens a block goes before it instead, so that
    both blocks stay whole."""
    lines = text.split("\n")
    index = lines.index(anchor) + (0 if new.startswith(anchor + "\n") else 1)
    return "\n".join([*lines[:index], new, *lines[index:]])


def duplicates(corpus: Corpus, game: str, base: dict[str, Any]) -> None:
    block = yaml.safe_dump(base, sort_keys=False, default_flow_style=False, width=120)
    for i, (anchor, new, key) in enumerate(DUPLICATES[game]):
        text = insert_after(block, anchor, new)
        corpus.raw(game, "duplicate", f"yaml-{i}-{key}", ".yaml", text.encode(), stderr=[key],
                   args=["check", "{file}", *GAMES[game]["attack"]],
                   why=f"YAML with the key {key!r} given twice (the last one silently won)")
    # JSON: the same key twice in the first object that holds it
    pretty = json.dumps(base, indent=2)
    for i, key in enumerate(sorted({k for _, _, k in DUPLICATES[game] if k not in ("legion", "jason", "tyler")})):
        match = re.search(rf'^( *)"{key}": ([^\n]*?),?$', pretty, flags=re.M)
        if match is None:
            continue
        line = f'{match.group(1)}"{key}": {match.group(2)},'
        text = pretty[:match.start()] + line + "\n" + pretty[match.start():]
        corpus.raw(game, "duplicate", f"json-{i}-{key}", ".json", text.encode(), stderr=[key],
                   args=["odds", "{file}", *GAMES[game]["attack"]],
                   why=f"JSON with the key {key!r} given twice (the last one silently won)")
    # the same key spelt two ways: quoted and plain in YAML, with an escape in JSON
    ruleset = base["ruleset"]
    corpus.raw(game, "duplicate", "yaml-quoted-ruleset", ".yaml",
               block.replace(f"ruleset: {ruleset}", f'"ruleset": {ruleset}\nruleset: {ruleset}', 1).encode(),
               stderr=["ruleset"], args=["check", "{file}", *GAMES[game]["attack"]],
               why="YAML with ruleset given twice, once quoted")
    corpus.raw(game, "duplicate", "json-escaped-ruleset", ".json",
               pretty.replace('"ruleset"', '"rules\\u0065t": "' + ruleset + '",\n  "ruleset"', 1).encode(),
               stderr=["ruleset"], args=["check", "{file}", *GAMES[game]["attack"]],
               why="JSON with ruleset given twice, once with an escape (rules\\u0065t)")
    toml_text = tomli_w.dumps(base)
    first_line = next(line for line in toml_text.split("\n") if line.startswith("ruleset"))
    toml_text = toml_text.replace(first_line, first_line + "\n" + first_line, 1)
    corpus.raw(game, "duplicate", "toml-ruleset", ".toml", toml_text.encode(), stderr=["line"],
               args=["check", "{file}", *GAMES[game]["attack"]], why="TOML with a key given twice")


# -- malformed files --------------------------------------------------------------------------------------------------
def parses(text: str, fmt: str) -> bool:
    try:
        if fmt == "yaml":
            yaml.safe_load(text)
        elif fmt == "json":
            json.loads(text)
        else:
            tomllib.loads(text)
    except Exception:  # any refusal by the reference parser: the text is malformed, which is what we want
        return False
    return True


def truncated(text: str, fmt: str, start: int) -> str:
    """The text cut at the first point from ``start`` where the format's own parser refuses it."""
    for cut in range(start, len(text)):
        if not parses(text[:cut], fmt):
            return text[:cut]
    raise ValueError("no cut of this text fails to parse")


def malformed(corpus: Corpus, game: str, base: dict[str, Any]) -> None:
    name = GAMES[game]["example"]
    original = (EXAMPLES / name).read_text(encoding="utf-8")
    attack = GAMES[game]["attack"]

    def bad(label: str, ext: str, content: bytes, stderr: list[str], why: str, verb: str = "check") -> None:
        corpus.raw(game, "malformed", label, ext, content, stderr=stderr, why=why, args=[verb, "{file}", *attack])

    texts = {"yaml": original, "json": json.dumps(base, indent=2), "toml": tomli_w.dumps(base)}
    for fmt, text in texts.items():
        for share in (3, 2):
            cut = truncated(text, fmt, len(text) // share)
            bad(f"truncated-{fmt}-{share}", f".{fmt}", cut.encode(), ["line"] if fmt != "toml" else [],
                f"{fmt.upper()} cut off after {len(cut)} characters", verb=VERBS[share % 3][0])
    for fmt, content in (("yaml", "- ruleset\n- units\n"), ("yaml", "just a string\n"), ("yaml", "42\n"),
                         ("yaml", ""), ("yaml", "~\n"), ("json", "[]"), ("json", '"text"'), ("json", "3.5"),
                         ("json", "null"), ("json", "true")):
        bad(f"top-{fmt}-{slug(content)}", f".{fmt}", content.encode(), ["top level"],
            f"a {fmt.upper()} file whose top level is not a mapping: {content!r}")
    bad("top-toml-empty", ".toml", b"", ["ruleset"], "an empty TOML file (an empty table): no ruleset")
    rng = random.Random(f"junk-{game}")
    for ext in (".yaml", ".json", ".toml"):
        junk = bytes(rng.randrange(256) for _ in range(300))
        bad(f"binary{ext.replace('.', '-')}", ext, junk, [], f"binary junk named {ext}")
    bad("invalid-utf8", ".yaml", original.encode().replace(b"name:", b"name: \xff\xfe", 1), ["utf-8"],
        "a byte that is not UTF-8 in a name")
    bad("latin1", ".json", json.dumps({**base, "name": "caf\u00e9"}, ensure_ascii=False).encode("latin-1"),
        ["utf-8"], "a JSON file in Latin-1, not UTF-8")
    # YAML allows UTF-16 behind a byte-order mark: read it, or refuse it as not UTF-8; never a traceback
    corpus.raw(game, "malformed", "utf16", ".yaml", original.encode("utf-16"), exit=(0, 2),
               args=["check", "{file}", *attack], why="a YAML file in UTF-16 with its byte-order mark")
    bad("nul-byte", ".yaml", original.encode().replace(b"name:", b"name: a\x00b #", 1), [],
        "a NUL byte in a YAML file")
    bad("python-tag", ".yaml", (original + "\nexploit: !!python/object/apply:os.system [echo hi]\n").encode(),
        ["line"], "a YAML tag that would run code")
    bad("tab-indent", ".yaml", original.replace("\n  ", "\n\t", 3).encode(), [], "tabs for indentation")
    bad("json-trailing-comma", ".json", json.dumps(base).replace("}", ",}", 1).encode(), ["line"],
        "a trailing comma in JSON")
    bad("json-comment", ".json", ("// a comment\n" + json.dumps(base)).encode(), ["line"], "a comment in JSON")
    bad("json-single-quotes", ".json", json.dumps(base).replace('"', "'").encode(), ["line"], "single quotes")


def misc(corpus: Corpus) -> None:
    """Bad files that are not about one game: types, depth, expansion; and command lines the parser of options
    refuses (its own usage message, which need not begin ``rangefire:``, but must name the option)."""
    scenario = (EXAMPLES / "wheatfield.yaml").read_bytes()
    attack = GAMES["dc"]["attack"]
    wheatfield = "{examples}/wheatfield.yaml"
    for name, args, option in (("no-attacker", ["check", wheatfield], "--attacker"),
                               ("unknown-option", ["check", wheatfield, *attack, "--bogus"], "--bogus"),
                               ("seed-text", ["resolve", wheatfield, *attack, "--seed", "abc"], "--seed"),
                               ("seed-huge", ["resolve", wheatfield, *attack, "--seed", DIGITS], "--seed")):
        corpus.add(f"misc-usage-{name}", "usage", args, stderr=[option], why=f"{option}: a usage error")
    for name, target in (("missing-folder", "{here}/no-such-folder/odds.png"),
                         ("unknown-type", "{here}/no-such-folder/odds.txt")):
        corpus.add(f"misc-plot-{name}", "choice", ["odds", wheatfield, *attack, "--plot", target],
                   stderr=["--plot"], why=f"--plot where no chart can be written ({name})")

    def bad(label: str, ext: str, content: bytes, stderr: list[str], why: str) -> None:
        corpus.raw("misc", "malformed", label, ext, content, stderr=stderr, why=why,
                   args=["check", "{file}", *attack])

    for ext in (".txt", ".yml.bak", "", ".yaml~", ".cfg"):
        bad(f"extension{ext.replace('.', '-') or '-none'}", ext, scenario, [], f"a scenario named {ext or 'no'}")
    corpus.add("misc-missing-file", "malformed", ["check", "{here}/misc/no-such-file.yaml", *attack],
               stderr=["no-such-file.yaml"], why="a file that does not exist")
    corpus.add("misc-missing-folder", "malformed", ["odds", "{here}/no-such-folder/x.json", *attack],
               stderr=["x.json"], why="a folder that does not exist")
    bad("deep-yaml", ".yaml", ("units: " + "[" * 5000 + "]" * 5000 + "\n").encode(), [],
        "lists nested 5000 deep (YAML)")
    bad("deep-json", ".json", ('{"units": ' + "[" * 100000 + "]" * 100000 + "}").encode(), [],
        "lists nested 100000 deep (JSON)")
    bad("deep-toml", ".toml", ("units = " + "[" * 5000 + "]" * 5000 + "\n").encode(), [],
        "arrays nested 5000 deep (TOML)")
    bad("nested-70", ".json", ('{"ruleset": "dress-on-the-colors", "units": ' + "[" * 70 + "]" * 70 + "}").encode(),
        [], "lists nested 70 deep")
    laughs = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    laughs += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    bad("billion-laughs", ".yaml", ("\n".join(laughs) + "\nruleset: dress-on-the-colors\nunits: *a9\n").encode(),
        [], "a YAML anchor expanded a billion times")
    bad("recursive-alias", ".yaml", b"ruleset: dress-on-the-colors\nunits: &u [*u]\n", [],
        "a YAML list that holds itself")
    bad("yaml-date-side", ".yaml", scenario.replace(b"side: union", b"side: 2001-12-14", 1), ["units[0].side"],
        "a YAML date where a side's name is expected")
    bad("json-huge-exponent-name", ".json",
        json.dumps({**yaml.safe_load(scenario), "name": 1}).replace('"name": 1', '"name": 1e999999').encode(),
        ["name"], "a number where the scenario's name is expected")


# -- bad dice and choices on the command line -------------------------------------------------------------------------
def dice(corpus: Corpus, game: str) -> None:
    info = GAMES[game]
    stage, count = info["stage"], info["dice"]
    scenario = "{examples}/" + info["example"]

    def entry(name: str, dice_args: list[str], stderr: list[str], why: str, extra: list[str] | None = None) -> None:
        corpus.add(f"{game}-dice-{name}", "dice", ["resolve", scenario, *info["attack"], *dice_args, *(extra or [])],
                   stderr=stderr, why=why)

    def faces(last: str) -> str:
        return ",".join(["1"] * (count - 1) + [last])

    bad_faces = ["²", "7", "-1", "1.5", "six", "0x3", "+4", "1e0"] + (["0"] if game != "sw" else ["3"])
    for face in bad_faces:
        entry(f"face-{slug(face)}", ["--dice", f"{stage}={faces(face)}"], [stage, face], f"{face!r} as a die")
    entry("face-huge", ["--dice", f"{stage}={faces(DIGITS)}"], [stage], "a die of 5000 digits")
    entry("unknown-stage", ["--dice", "nope=1"], ["nope"], "a stage the game does not have")
    entry("no-equals", ["--dice", stage], [stage], "a stage with no values")
    entry("no-stage", ["--dice", "=6"], ["=6"], "values with no stage")
    entry("too-many-entered", ["--dice", f"{stage}=" + ",".join(["1"] * 10001)], [stage], "10,001 dice entered")
    entry("unused", ["--dice", f"{stage}=" + ",".join(["1"] * (count + 5))], [], "more dice than the attack uses")
    entry("too-few", ["--dice", f"{stage}="], [stage], "no dice for a stage the attack rolls")
    entry("seed-and-dice", ["--dice", f"{stage}={faces('1')}", "--seed", "1"], ["--seed"], "both --seed and --dice")


def choices(corpus: Corpus, game: str) -> None:
    info = GAMES[game]
    scenario = "{examples}/" + info["example"]
    attack = info["attack"]
    for verb in VERBS:
        for role in ("-a", "-t"):
            args = list(attack) if "-t" in attack else [*attack, "-t", "20th-maine"]
            args[args.index(role) + 1] = "nobody"
            corpus.add(f"{game}-choice-unknown{role}-{verb[0]}", "choice", [verb[0], scenario, *args, *verb[1:]],
                       stderr=["nobody"], why=f"{role} names no unit")
    corpus.add(f"{game}-choice-markup-id", "choice", ["check", scenario, "-a", "[/x]"], stderr=["[/x]"],
               why="an attacker id with markup")
    corpus.add(f"{game}-choice-escape-id", "choice", ["check", scenario, *attack[:2], "-t", "\x1b[31mred"],
               stderr=["[31mred"], absent=["\x1b"], why="a target id with an escape sequence")
    foreign = {"dc": ["--order", "close"], "al": ["--redirect-to", "spearmen"], "bu": ["--from-side", "front"],
               "sw": ["--to-side", "front"]}[game]
    corpus.add(f"{game}-choice-foreign", "choice", ["check", scenario, *attack, *foreign], stderr=[foreign[0]],
               why=f"{foreign[0]} does not apply to this game")
    if game == "al":
        for verb in VERBS:
            for option, value in (("--order", "clse"), ("--from-side", "sideways"), ("--to-side", "sideways"),
                                  ("--to-side", "FRONT"), ("--order", "")):
                corpus.add(f"al-choice{option}-{slug(value)}-{verb[0]}", "choice",
                           [verb[0], scenario, *attack, option, value, *verb[1:]], stderr=[value or "order"],
                           why=f"{option} {value!r} is not a choice the game has (bad input, not a refusal)")
    if game == "bu":
        corpus.add("bu-choice-redirect-nobody", "choice", ["resolve", scenario, *attack, "--redirect-to", "nobody",
                                                             "--seed", "1"], stderr=["nobody"],
                   why="--redirect-to names no model")
    if game == "sw":
        for actions in ("bogus", "attacker:fly", "attacker:play", "defender:use:", "attacker:pass,,umpire:pass"):
            corpus.add(f"sw-choice-actions-{slug(actions)}", "choice",
                       ["resolve", scenario, *attack, "--actions", actions], stderr=[actions.split(",")[-1]],
                       why=f"--actions {actions!r} is not a line of play at all (bad input, not a refusal)")


# -- names with markup and escapes: valid, shown as text --------------------------------------------------------------
NAMES = ["[/x]", "[bold]", "yumi [masterwork]", "\x1b[31mred"]


def shown_as(name: str) -> list[str]:
    return ["[31mred"] if "\x1b" in name else [name]


def rename_side(data: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    data = copy.deepcopy(data)
    for unit in data.get("units", []):
        if unit["side"] == old:
            unit["side"] = new
    if old in data.get("players", {}):
        data["players"] = {new if k == old else k: v for k, v in data["players"].items()}
    return data


def markup(corpus: Corpus) -> None:
    temple, ambush = example("temple.yaml"), example("ambush.yaml")
    wheatfield, ford = example("wheatfield.yaml"), example("ford.yaml")
    for n, name in enumerate(NAMES):
        fmt = ("yaml", "json")[n % 2]
        label = f"name{n}"

        def show(game: str, what: str, data: dict[str, Any], attack: list[str], verbs: tuple[list[str], ...],
                 exit: tuple[int, ...], label: str = label, name: str = name, fmt: str = fmt) -> None:
            for verb in verbs:
                corpus.scenario(game, "markup", f"{what}-{label}-{verb[0]}", data, fmt=fmt, exit=exit, stderr=[],
                                args=[verb[0], "{file}", *attack, *verb[1:]], shown=shown_as(name),
                                absent=["\x1b"], why=f"{what} {name!r} must show as text")

        weapon = put(temple, ("units", 0, "weapon", "name"), name)
        show("bu", "weapon", weapon, GAMES["bu"]["attack"], VERBS, (0,))
        show("bu", "side", rename_side(temple, "ito", name), GAMES["bu"]["attack"], VERBS[:1], (0,))
        players = copy.deepcopy(ambush)
        players["players"] = {name if k == "jason" else k: v for k, v in players["players"].items()}
        players["hands"] = {name if k == "jason" else k: v for k, v in players["hands"].items()}
        for card in players["cards"]:
            card["owner"] = name if card["owner"] == "jason" else card["owner"]
        show("sw", "player", players, GAMES["sw"]["attack"], VERBS, (0,))
        show("dc", "side", rename_side(wheatfield, "confederate", name), ["-a", "15th-alabama", "-t", "4th-texas"],
             VERBS[:2], (1,))
        show("al", "side", rename_side(ford, "legion", name), ["-a", "archers", "-t", "spearmen"], VERBS[:1], (1,))


def escaped_keys(corpus: Corpus) -> None:
    """Keys with markup or escape sequences are refused with the key shown as text, never sent raw."""
    wheatfield, ambush = example("wheatfield.yaml"), example("ambush.yaml")
    for n, key in enumerate(NAMES):
        for where, data in ((("units", 0), wheatfield), ((), wheatfield), (("hands",), ambush)):
            game = "sw" if data is ambush else "dc"
            label = f"{path_text(where).replace('[', '').replace(']', '') or 'top'}-name{n}"
            corpus.scenario(game, "markup", f"key-{label}", put(data, (*where, key), [] if game == "sw" else 1),
                            stderr=shown_as(key), absent=["\x1b"], why=f"a key {key!r} shown as text in the error")


# -- inputs that must be accepted, and hostile but valid positions ----------------------------------------------------
def accepted(corpus: Corpus) -> None:
    for game, info in GAMES.items():
        base = example(info["example"])
        for fmt in ("json", "yaml", "toml"):
            text = "\ufeff" + dump(base, fmt)
            corpus.raw(game, "accept", f"bom-{fmt}", f".{fmt}", text.encode(), exit=(0,),
                       args=["check", "{file}", *info["attack"]], why=f"a {fmt.upper()} file with a byte-order mark")
        corpus.raw(game, "accept", "crlf", ".yml", (EXAMPLES / info["example"]).read_bytes().replace(b"\n", b"\r\n"),
                   exit=(0,), args=["check", "{file}", *info["attack"]], why="CRLF line ends and the .yml extension")
    wheatfield = example("wheatfield.yaml")
    for fmt in ("yaml", "json", "toml"):
        corpus.scenario("dc", "accept", f"tiny-{fmt}", put(wheatfield, ("units", 0, "stand_depth"), TINY), fmt=fmt,
                        exit=(0,), stderr=[], why="1e-13 read exactly (it was refused as past a magnitude of 10^6)")
    corpus.scenario("dc", "accept", "fraction-text", put(wheatfield, ("units", 0, "stand_width"), "3/2"),
                    exit=(0,), stderr=[], args=["check", "{file}", *GAMES["dc"]["attack"]],
                    why="a number written n/d (documented)")
    # swerve: best play is searched with at most 352 actions open (MAX_SEARCH_WORK); 180 tactics in each hand open
    # 362 (with the target's swerve and the spotter's ability): refused at once with the limit named, never a hang
    ambush = example("ambush.yaml")
    tricks = {player: [{"id": f"{player}-trick-{i}", "owner": player, "type": "tactic", "name": f"Trick {i}",
                        "timing": "ranged-combat", "effect": {stat: i % 8 + 1}} for i in range(180)]
              for player, stat in (("jason", "accuracy"), ("tyler", "speed"))}
    big = {**ambush, "cards": [c for c in ambush["cards"] if c["type"] != "tactic"] + tricks["jason"] + tricks["tyler"],
           "hands": {player: [t["id"] for t in cards] for player, cards in tricks.items()}}
    corpus.scenario("sw", "limit", "beyond-search-odds", big, fmt="yaml",
                    args=["odds", "{file}", *GAMES["sw"]["attack"]],
                    stderr=["not searched with more than 352 actions open", "here 362"],
                    why="180 tactics in each hand, 362 actions open: beyond what best play searches (352); refused "
                        "at once with the limit named")
    corpus.scenario("sw", "limit", "beyond-search-check", big, fmt="yaml", exit=(0,), stderr=[],
                    args=["check", "{file}", *GAMES["sw"]["attack"]], why="check never needs the best-play search")
    # Arcane Legions: 160 against 160 dice answered within seconds (exact or a labelled estimate)
    ford = example("ford.yaml")
    wide = [{"icons": ["blue", "blue", "blue", "blue", "white", "white", "white", "white"]} for _ in range(40)]
    huge_lineup = put(put(ford, ("units", 0, "slots"), wide), ("units", 2, "slots"), wide)
    corpus.scenario("al", "limit", "lineup-160", huge_lineup, fmt="yaml", exit=(0,), stderr=[],
                    args=["odds", "{file}", *GAMES["al"]["attack"], "--json"],
                    why="160 v 160 dice: odds within seconds (exact or a labelled estimate)")


# -- the turn and table commands: replay, resolve --log, end-turn, targets, show -----------------------------------
def logged_attack(example_name: str, attack: list[str]) -> dict[str, Any]:
    """The log record of an attack on an example with seeded dice, as ``resolve --log`` writes it."""
    from rangefire.core import Attack, SeededSource
    from rangefire.record import attack_action
    from rangefire.rulesets import load_battle

    ruleset, battle = load_battle(EXAMPLES / example_name)
    named = Attack(attack[1], attack[3] if len(attack) > 3 else None)
    resolution, _ = ruleset.play(battle, named, SeededSource(1))
    record: dict[str, Any] = attack_action(ruleset, named, resolution).model_dump(mode="json")
    return record


def log_text(*records: dict[str, Any]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=True) + "\n" for r in records).encode()


def replay_logs(corpus: Corpus) -> None:
    """``replay SCENARIO LOG``: logs that are not a record of this battle, each refused naming the log and its line."""
    wheatfield = "{examples}/wheatfield.yaml"
    good = logged_attack("wheatfield.yaml", ["-a", "20th-maine"])
    ford = logged_attack("ford.yaml", GAMES["al"]["attack"])

    def log(name: str, content: bytes, stderr: list[Any], why: str, exit: tuple[int, ...] = (2,),
            scenario: str = wheatfield, **extra: Any) -> None:
        corpus.raw("dc", "replay", name, ".jsonl", content, args=["replay", scenario, "{file}"], exit=exit,
                   stderr=stderr, why=why, **extra)

    rng = random.Random("replay-junk")
    log("binary", bytes(rng.randrange(256) for _ in range(400)), ["line 1"], "binary junk as a log")
    log("invalid-utf8", log_text(good).replace(b"20th-maine", b"20th-\xff", 1), ["line 1", "utf-8"],
        "a byte that is not UTF-8")
    log("not-json", b"attack 20th-maine\n", ["line 1", "json"], "a line that is not JSON")
    log("list", b"[1, 2]\n", ["line 1", "object"], "a JSON list, not an action")
    log("empty-line", log_text(good) + b"\n", ["line 2", "empty"], "an empty line after an action")
    log("torn", log_text(good)[:-40], ["line 1", "incomplete"], "a last line without its end (a write cut short)")
    log("crlf", log_text(good).replace(b"\n", b"\r\n"), [], "CRLF line ends: read as the same action", exit=(0,))
    log("twice", log_text(good, good), ["line 2", "DC-9.1"], "the same volley twice in a turn: the rules refuse "
        "the second, named by its line")
    log("other-game", log_text(ford), ["line 1", "arcane-legions"], "a log of another game's battle")
    log("other-battle", log_text(good), ["line 1"], "a log of another scenario of the same game (its units are "
        "not in the battle)", scenario="{examples}/ford.yaml")
    wrong: list[tuple[str, str, Any, str]] = [
        ("format-true", "format", True, "format"), ("format-float", "format", 1.0, "format"),
        ("format-2", "format", 2, "format"), ("action-dance", "action", "dance", "action"),
        ("attacker-number", "attacker", 5, "attacker"), ("attacker-null", "attacker", None, "attacker"),
        ("attacker-unknown", "attacker", "nobody", "nobody"), ("target-list", "target", [], "target"),
        ("target-unknown", "target", "nobody", "nobody"), ("ruleset-other", "ruleset", "bushido", "bushido"),
        ("ruleset-map", "ruleset", {"a": 1}, "ruleset"), ("choices-list", "choices", [1], "choices"),
        ("choices-foreign", "choices", {"order": "close"}, "order does not apply"),
        ("dice-text", "dice", "hit", "dice"),
        ("dice-negative", "dice", {"hit": [-1] * 6}, "dice.hit[0]"), ("dice-seven", "dice", {"hit": [7] * 6}, "7"),
        ("dice-10001", "dice", {"hit": [1] * 10_001}, "dice.hit"), ("dice-huge", "dice", {"hit": [10**30]}, "dice"),
        ("dice-bool", "dice", {"hit": [True] * 6}, "dice.hit[0]"),
        ("dice-unknown-stage", "dice", {**good["dice"], "nope": [1]}, "nope"),
        ("outcome-number", "outcome", 3, "outcome"), ("outcome-changed", "outcome", {**good["outcome"], "hits": 99},
                                                      "outcome.hits"),
        ("log-map", "log", {}, "log"), ("log-number", "log", [5], "log[0]"), ("extra-key", "extra", 1, "extra"),
    ]
    for name, key, value, fragment in wrong:
        log(f"key-{name}", log_text({**good, key: value}), ["line 1", fragment],
            f"{key}: {json.dumps(value)[:40]} in an attack's record")
    for n, text in enumerate(NAMES):
        log(f"markup-attacker-name{n}", log_text({**good, "attacker": text}), ["line 1", *shown_as(text)],
            f"an attacker {text!r} shown as text", absent=["\x1b"])
        log(f"markup-log-name{n}", log_text({**good, "log": [{"clause": text, "text": text + "<script>"}]}),
            ["line 1", "log line 1"], f"a log line {text!r} shown as text", absent=["\x1b"])
    log("activation-yes", log_text({"format": 1, "action": "end-turn", "activation": "yes", "log": []}),
        ["line 1", "activation"], "an activation that is not true or false")
    log("end-turn-activation", log_text({"format": 1, "action": "end-turn", "activation": True, "log": []}),
        ["line 1", "activation"], "an activation's end where the game has none")
    corpus.add("dc-replay-missing-log", "replay", ["replay", wheatfield, "{here}/no-such-folder/turn.jsonl"],
               stderr=["turn.jsonl"], why="a log in a folder that does not exist")
    corpus.add("dc-replay-folder", "replay", ["replay", wheatfield, "{here}/dc"], stderr=["dc", "regular"],
               why="a folder as the log")


def logged_commands(corpus: Corpus) -> None:
    """``resolve --log`` and ``end-turn``: a log nothing can be appended to, refused before anything is played or
    written; end-turn's options a game does not have."""
    wheatfield = "{examples}/wheatfield.yaml"
    resolve = ["resolve", wheatfield, "-a", "20th-maine", "--seed", "1"]
    torn = log_text(logged_attack("wheatfield.yaml", ["-a", "20th-maine"]))[:-40]
    corpus.raw("dc", "log", "resolve-torn", ".jsonl", torn, args=[*resolve, "--log", "{file}"],
               stderr=["incomplete"], why="resolve --log onto a log whose last line is torn: nothing played")
    corpus.raw("dc", "log", "end-turn-torn", ".jsonl", torn, args=["end-turn", wheatfield, "--out",
                                                                   "{here}/no-such-folder/after.yaml", "--log",
                                                                   "{file}"],
               stderr=["incomplete"], why="end-turn --log onto a torn log")
    scenario_text = (EXAMPLES / "wheatfield.yaml").read_bytes()
    corpus.raw("dc", "log", "resolve-into-scenario", ".yaml", scenario_text,
               args=["resolve", "{file}", "-a", "20th-maine", "--seed", "1", "--log", "{file}"], stderr=["--log"],
               why="resolve --log naming the scenario itself: refused, the scenario left whole")
    corpus.raw("dc", "log", "end-turn-into-scenario", ".yaml", scenario_text,
               args=["end-turn", "{file}", "--out", "{here}/no-such-folder/a.yaml", "--log", "{file}"],
               stderr=["--log"], why="end-turn --log naming the scenario itself")
    for name, where in (("folder", "{here}/dc"), ("missing-folder", "{here}/no-such-folder/turn.jsonl")):
        corpus.add(f"dc-log-resolve-{name}", "log", [*resolve, "--log", where], stderr=[where.rsplit("/", 1)[-1]],
                   why=f"resolve --log into a {name}")
        corpus.add(f"dc-log-end-turn-{name}", "log", ["end-turn", wheatfield, "--out", "{here}/no-such-folder/a.yaml",
                                                      "--log", where], stderr=[where.rsplit("/", 1)[-1]],
                   why=f"end-turn --log into a {name}")
    for game, info in GAMES.items():
        scenario = "{examples}/" + info["example"]
        corpus.add(f"{game}-end-turn-missing-folder", "end-turn",
                   ["end-turn", scenario, "--out", "{here}/no-such-folder/after.yaml"], stderr=["after.yaml"],
                   why="end-turn --out into a folder that does not exist")
        corpus.add(f"{game}-end-turn-onto-folder", "end-turn", ["end-turn", scenario, "--out", "{here}/" + game],
                   stderr=[game], why="end-turn --out onto a folder")
        if game != "bu":
            corpus.add(f"{game}-end-turn-activation", "end-turn",
                       ["end-turn", scenario, "--activation", "--out", "{here}/no-such-folder/after.yaml"],
                       stderr=["--activation"], why="--activation where the game's turns end whole")
    last_turn = {"dc": "turn: {number: 100000, side: confederate}", "al": "turn: {number: 100000, side: horde}",
                 "bu": "turn: {number: 100000}", "sw": "turn: {number: 100000, side: tyler}"}
    for game, info in GAMES.items():
        text = (EXAMPLES / info["example"]).read_text(encoding="utf-8") + last_turn[game] + "\n"
        corpus.raw(game, "end-turn", "last-turn", ".yaml", text.encode(), stderr=["100000"],
                   args=["end-turn", "{file}", "--out", "{here}/no-such-folder/after.yaml"],
                   why="the turn cannot pass beyond the last a battle file records")
    corpus.add("misc-usage-end-turn-no-out", "usage", ["end-turn", wheatfield], stderr=["--out"],
               why="end-turn without --out")


def table_commands(corpus: Corpus) -> None:
    """``targets`` and ``show``: unknown sides and units (names with markup shown as text), options that do not go
    together, drawings that cannot be written."""
    for game, info in GAMES.items():
        scenario = "{examples}/" + info["example"]
        attacker = info["attack"][1]
        for name, args, fragments in (
                ("side-and-attacker", ["--side", "x", "--attacker", attacker], ["side", "attacker"]),
                ("unknown-side", ["--side", "nobody"], ["nobody"]),
                ("unknown-attacker", ["--attacker", "nobody"], ["nobody"]),
                ("markup-side", ["--side", "[/x]"], ["[/x]"]),
                ("escape-attacker", ["--attacker", "\x1b[31mred"], ["[31mred"])):
            corpus.add(f"{game}-targets-{name}", "targets", ["targets", scenario, *args], stderr=fragments,
                       absent=["\x1b"], why=f"targets {' '.join(args)!r}")
        for name, args, fragments in (
                ("target-without-attacker", ["-t", attacker], ["--attacker"]),
                ("unknown-attacker", ["-a", "nobody"], ["nobody"]),
                ("unknown-target", ["-a", attacker, "-t", "nobody"], ["nobody"]),
                ("markup-attacker", ["-a", "[/x]"], ["[/x]"])):
            corpus.add(f"{game}-show-{name}", "show", ["show", scenario, *args, "--out", "{here}/no-such-folder/m.svg"],
                       stderr=fragments, why=f"show {' '.join(args)!r}")
        for name, out, fragment in (("no-suffix", "{here}/" + game, game), ("txt", "{here}/m.txt", "m.txt"),
                                    ("missing-folder", "{here}/no-such-folder/m.png", "m.png")):
            corpus.add(f"{game}-show-out-{name}", "show", ["show", scenario, "--out", out], stderr=[fragment],
                       why=f"show --out where no drawing can be written ({name})")
    corpus.add("bu-check-candidates-unknown-attacker", "choice", ["check", "{examples}/temple.yaml", "-a", "nobody"],
               stderr=["nobody"], why="check without --target for an attacker not in the battle")


def designer_commands(corpus: Corpus) -> None:
    """Issue 12's command lines: ``--set`` on any command, ``compare --variant``, ``table --vary``, ``duel``,
    ``advise``, ``rulesets`` and ``sweep``, each refused in one line naming the value, before anything is worked
    out or written."""
    wheat = ["{examples}/wheatfield.yaml", "-a", "15th-alabama"]
    temple = ["{examples}/temple.yaml", "-a", "yoichi", "-t", "takeda"]
    for name, args, setting, fragments in (
            ("empty", wheat, "", ["--set", "PATH=VALUE"]),
            ("no-value", wheat, "options.cover_save.heavy=", ["options.cover_save.heavy", "no value"]),
            ("double-dot", wheat, "options..x=3", ["options..x"]),
            ("ruleset", wheat, "ruleset=swerve", ["ruleset", "not a setting"]),
            ("into-ruleset", wheat, "ruleset.key=bushido", ["ruleset.key", "not a setting"]),
            ("huge-number", wheat, "options.cover_save.heavy=1e400", ["options.cover_save.heavy", "1e400"]),
            ("to-hit-7", wheat, "options.to_hit.breechloader.medium=7", ["options.to_hit.breechloader.medium"]),
            ("to-hit-1", wheat, "options.to_hit.rifled-musket.short=1", ["options.to_hit.rifled-musket.short"]),
            ("bands-decreasing", wheat, "options.bands.short=30", ["options.bands", "DC-2.4"]),
            ("dice-per-stand-huge", wheat, "options.dice_per_stand=1000000000", ["options.dice_per_stand"]),
            ("negative-stands", wheat, "units.15th-alabama.stands=-3", ["stands", "-3"]),
            ("into-a-list", wheat, "units.15th-alabama.position.0=3", ["units.15th-alabama.position", "list"]),
            ("unknown-unit", wheat, "units.nobody.stands=3", ["nobody"]),
            ("markup-path", wheat, "[bold]x[/bold]=1", ["[bold]x[/bold]"]),
            ("script-path", wheat, "<script>x</script>=1", ["<script>x</script>"]),
            ("long", wheat, "options.cover_save.heavy=" + "9" * 2000, ["--set", "at most"]),
            ("wound-chart-billion", temple, "options.wound_chart.roll_1.sl_0=1000000000",
             ["options.wound_chart.roll_1.sl_0"])):
        game = "bu" if args is temple else "dc"
        corpus.add(f"{game}-set-{name}", "set", ["odds", *args, "--set", setting], stderr=fragments,
                   why=f"--set {setting[:40]!r}")
    for name, variant, fragments in (
            ("empty", "", ["--variant", "NAME:PATH=VALUE"]),
            ("no-name", ":options.cover_save.heavy=3", ["--variant"]),
            ("trailing-comma", "a:options.cover_save.heavy=3,", ["--variant", "no value"]),
            ("ruleset", "a:ruleset=bushido", ["variant a", "not a setting"]),
            ("named-rules", "rules:options.cover_save.heavy=3", ["'rules' is named twice"])):
        corpus.add(f"dc-compare-variant-{name}", "compare", ["compare", *wheat, "--variant", variant],
                   stderr=fragments, why=f"compare --variant {variant!r}")
    nine = [a for i in range(9) for a in ("--variant", f"v{i}:options.discipline_pass={i % 5 + 2}")]
    corpus.add("dc-compare-nine-variants", "compare", ["compare", *wheat, *nine],
               stderr=["at most 8 variants"], why="nine variants: a comparison holds at most eight")
    corpus.add("dc-compare-two-games", "compare", ["compare", "{examples}/wheatfield.yaml", "{examples}/temple.yaml",
                                                   "-a", "15th-alabama"],
               stderr=["a comparison is of one game"], why="a Bushido file compared with a Dress on the Colors one")
    for name, vary, fragments in (
            ("empty", [""], ["--vary", "PATH=V1,V2"]),
            ("empty-value", ["units.15th-alabama.stands=2,,3"], ["units.15th-alabama.stands", "empty value"]),
            ("twice", ["units.15th-alabama.stands=2", "units.15th-alabama.stands=3"], ["varied twice"]),
            ("too-many", ["units.15th-alabama.stands=" + ",".join(map(str, range(1, 41))),
                          "units.15th-alabama.discipline=" + ",".join(map(str, range(31)))], ["1,240 combinations"]),
            ("ruleset", ["ruleset=swerve,bushido"], ["ruleset", "not a setting"])):
        corpus.add(f"dc-table-vary-{name}", "table", ["table", *wheat, *[a for v in vary for a in ("--vary", v)]],
                   stderr=fragments, why=f"table --vary {vary[0][:40]!r}")
    duel = ["duel", "{examples}/temple.yaml", "yoichi", "oni"]
    for name, args, fragments in (
            ("turns-0", ["--turns", "0"], ["turns", "between 1 and"]),
            ("turns-huge", ["--turns", "1000000000"], ["turns", "between 1 and"]),
            ("samples-negative", ["--samples", "-1"], ["--samples"]),
            ("seed-negative", ["--samples", "10", "--seed", "-5"], ["--seed -5"]),
            ("seed-markup", ["--samples", "10", "--seed", "[bold]"], ["--seed", "[bold]"]),
            ("plot-gif", ["--plot", "{here}/d.gif"], [".gif"])):
        corpus.add(f"bu-duel-{name}", "duel", [*duel, *args], stderr=fragments, why=f"duel {' '.join(args)!r}")
    corpus.add("bu-duel-same-unit", "duel", ["duel", "{examples}/temple.yaml", "yoichi", "yoichi"],
               stderr=["named twice"], why="a duel of a unit with itself")
    corpus.add("dc-advise-markup-side", "advise", ["advise", "{examples}/wheatfield.yaml", "--side", "[/x]"],
               stderr=["[/x]"], why="advise for a side not in the battle, named with markup")
    corpus.add("dc-advise-unknown-outcome", "advise",
               ["advise", "{examples}/wheatfield.yaml", "--side", "union", "--outcome", "kills"],
               stderr=["kills"], why="advise ranked by an outcome the game does not have")
    corpus.add("misc-rulesets-unknown", "rulesets", ["rulesets", "[bold]chess"], stderr=["[bold]chess"],
               why="rulesets of a game that is not one")
    grid = "{examples}/sweeps/wheatfield.yaml"
    out = "{here}/no-such-folder/r.parquet"
    for name, args, fragments in (
            ("out-missing-folder", ["--out", out], ["no-such-folder", "does not exist"]),
            ("out-folder", ["--out", "{here}"], ["is a folder"]),
            ("workers-0", ["--out", out, "--workers", "0"], ["--workers 0"]),
            ("workers-million", ["--out", out, "--workers", "1000000"], ["--workers 1000000"]),
            ("chunk-size-0", ["--out", out, "--chunk-size", "0"], ["--chunk-size 0"]),
            ("scheduler-garbage", ["--out", out, "--scheduler", "garbage"], ["garbage", "tcp://HOST:PORT"]),
            ("timeout-negative", ["--out", out, "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "-1"],
             ["--connect-timeout"])):
        corpus.add(f"dc-sweep-{name}", "sweep", ["sweep", grid, *args], stderr=fragments,
                   why=f"sweep {' '.join(args[2:]) or args[1]!r}")
    corpus.add("dc-sweep-missing-grid", "sweep", ["sweep", "{here}/no-such-grid.yaml", "--out", out],
               stderr=["no-such-grid.yaml"], why="sweep of a grid file that is not there")


def refused_in_our_words(corpus: Corpus) -> None:
    """Issue 20's: inputs that gave a traceback (a log line's number of 4,400 digits, NaN and infinity set by
    path, a sweep manifest's chunk size of 0), were taken without a word (a range that never lands on its end, a
    tag that makes bytes, a key given twice in a log line, a JSON file taken for a log) or were refused in the
    option parser's words (text for a whole number); each refused in ours. Standard input closed and Ctrl-C at
    start-up cannot be given to the runner here: tests/test_refused_in_our_words.py runs them."""
    wheat = "{examples}/wheatfield.yaml"
    line = log_text(logged_attack("wheatfield.yaml", ["-a", "20th-maine"]))
    long_number = line.replace(b'"hit": [', b'"hit": [' + b"9" * 4400 + b", ", 1)
    corpus.raw("dc", "replay", "number-of-4400-digits", ".jsonl", long_number, args=["replay", wheat, "{file}"],
               stderr=["line 1", "4,400 digits"], why="a log line holding a number too long to read")
    twice = line.replace(b'"attacker": "20th-maine"', b'"attacker": "20th-maine", "attacker": "47th-alabama"', 1)
    corpus.raw("dc", "replay", "key-given-twice", ".jsonl", twice, args=["replay", wheat, "{file}"],
               stderr=["line 1", "attacker", "given twice"], why="a key given twice in a log line")
    resolve = ["resolve", wheat, "-a", "20th-maine", "--seed", "1", "--log", "{file}"]
    for name, first in (("note", b'{"action": "note", "text": "turn 1"}\n'),
                        ("scenario", b'{"ruleset": "dress-on-the-colors", "action": 1, "units": []}\n'),
                        ("number-of-4400-digits", long_number)):
        corpus.raw("dc", "log", f"json-not-a-log-{name}", ".json", first, args=resolve,
                   stderr=["not a log", "no action"], why="resolve --log onto a JSON file whose first line is no "
                   "action: nothing appended")
    for name, value in (("nan", ".nan"), ("inf", ".inf"), ("minus-inf", "-.inf"), ("nan-in-list", "[1, .nan]")):
        corpus.add(f"dc-set-not-finite-{name}", "set", ["odds", wheat, "-a", "15th-alabama", "--set",
                                                        f"units.15th-alabama.facing={value}"],
                   stderr=["units.15th-alabama.facing", value, "not finite"], why=f"--set facing={value}")
    corpus.add("dc-table-vary-not-finite", "table", ["table", wheat, "-a", "15th-alabama", "--vary",
                                                     "units.15th-alabama.facing=0,.nan"],
               stderr=["--vary", ".nan", "not finite"], why="--vary facing=0,.nan")
    corpus.add("dc-compare-variant-not-finite", "compare", ["compare", wheat, "-a", "15th-alabama", "--variant",
                                                            "v:units.15th-alabama.facing=-.inf"],
               stderr=["--variant v", "-.inf", "not finite"], why="--variant v:facing=-.inf")
    for name, value, said in (("binary", "!!binary aGVsbG8=", "binary data"), ("set", "!!set {a}", "a set"),
                              ("timestamp", "!!timestamp 2001-12-14", "a date"), ("int-of-text", "!!int six",
                                                                                   "cannot read")):
        corpus.add(f"dc-set-tag-{name}", "set", ["odds", wheat, "-a", "15th-alabama", "--set",
                                                 f"units.15th-alabama.weapon={value}"],
                   stderr=["units.15th-alabama.weapon", said], why=f"--set weapon={value}")
    grid = "scenario: ../../../examples/wheatfield.yaml\nattacker: 15th-alabama\naxes:\n  - {path: " \
           "units.15th-alabama.stands, range: {from: 1, to: 8, step: 3}}\n"
    corpus.raw("dc", "sweep", "range-misses-to", ".yaml", grid.encode(),
               args=["sweep", "{file}", "--out", "{here}/no-such-folder/r.parquet"],
               stderr=["axes[0].range.step", "never lands on 'to' 8", "stops at 7"],
               why="a range whose step never lands on its end: it swept 1, 4, 7 without a word")
    for size in (0, -1):
        name = f"dc-sweep-manifest-chunk-size-{size}".replace("--", "-minus")
        manifest = {"format": 1, "grid_hash": "0" * 64, "points": 120, "chunk_size": size}
        corpus.add(name, "sweep", ["sweep", "{examples}/sweeps/wheatfield.yaml", "--out", "{here}/dc/" + name +
                                   ".parquet"], file=(f"dc/{name}.parquet.parts/manifest.json",
                                                      json.dumps(manifest).encode()),
                   stderr=["manifest.json", "chunk_size", f"got {size}"],
                   why=f"a sweep resumed from a folder whose manifest says chunk_size: {size}")
    duel = ["duel", "{examples}/temple.yaml", "yoichi", "oni"]
    sweep = ["sweep", "{examples}/sweeps/wheatfield.yaml", "--out", "{here}/no-such-folder/r.parquet"]
    for entry_id, args, said in (
            ("bu-duel-turns-text", [*duel, "--turns", "abc"], "--turns 'abc': must be a whole number"),
            ("bu-duel-samples-text", [*duel, "--samples", "x"], "--samples 'x': must be a whole number"),
            ("bu-duel-seed-negative-no-samples", [*duel, "--seed", "-1"], "--seed -1: must be 0 or more"),
            ("dc-resolve-seed-negative", ["resolve", wheat, "-a", "15th-alabama", "--seed", "-1"],
             "--seed -1: must be 0 or more"),
            ("misc-demo-seed-negative", ["demo", "--seed", "-1"], "--seed -1: must be 0 or more"),
            ("dc-sweep-workers-text", [*sweep, "--workers", "two"], "--workers 'two': must be a whole number"),
            ("dc-sweep-chunk-size-text", [*sweep, "--chunk-size", "1e3"], "--chunk-size '1e3': must be a whole"),
            ("dc-sweep-timeout-text", [*sweep, "--connect-timeout", "soon"], "--connect-timeout 'soon': must be"),
            ("dc-replay-with-set", ["replay", wheat, "{here}/no-such-folder/turn.jsonl", "--set",
                                    "units.20th-maine.stands=3"], "--set with replay")):
        corpus.add(entry_id, entry_id.split("-")[1], args, stderr=[said],
                   why=" ".join(a for a in args if "{" not in a)[:80])
    text = (EXAMPLES / "wheatfield.yaml").read_text(encoding="utf-8")
    for name, key in (("tilde", "~"), ("null", "null")):
        corpus.raw("dc", "keys", f"without-a-name-{name}", ".yaml", (text + f"{key}: 3\n").encode(),
                   args=["check", "{file}", "-a", "15th-alabama"], stderr=["line 23", "missing its name"],
                   why=f"a YAML key written {key}: it said '(top level): is not valid here, got null'")


def outputs_and_moves(corpus: Corpus) -> None:
    """Issue 20's outputs checked before any work (a folder, a missing folder, a file of another kind or the one
    read, '-' where a file is needed), duels too large refused before their first volley, and issue 21's moves,
    marks, set-up edits and undo given what they cannot take: each refused in our words, nothing written."""
    wheat = "{examples}/wheatfield.yaml"
    table = ["table", wheat, "-a", "15th-alabama", "--vary", "units.15th-alabama.stands=2,4"]
    odds = ["odds", wheat, "-a", "15th-alabama"]
    duel = ["duel", wheat, "20th-maine", "15th-alabama"]
    nowhere = "{here}/no-such-folder"
    for entry_id, args, said in (
            ("dc-table-parquet-stdout", [*table, "--parquet", "-"], ["--parquet -"]),
            ("dc-table-csv-over-a-scenario", [*table, "--csv", wheat], ["--csv", ".csv file"]),
            ("dc-table-csv-a-folder", [*table, "--csv", "{here}/dc"], ["--csv", "is a folder"]),
            ("dc-table-parquet-missing-folder", [*table, "--parquet", f"{nowhere}/t.parquet"],
             ["--parquet", "does not exist"]),
            ("dc-compare-csv-missing-folder", ["compare", wheat, "-a", "15th-alabama", "--variant",
                                               "v:units.15th-alabama.stands=3", "--csv", f"{nowhere}/c.csv"],
             ["--csv", "does not exist"]),
            ("dc-odds-plot-a-folder", [*odds, "--plot", "{here}"], ["--plot", "is a folder"]),
            ("dc-odds-plot-over-a-scenario", [*odds, "--plot", wheat], ["--plot", "a chart is written as .png"]),
            ("dc-odds-plot-stdout", [*odds, "--plot", "-"], ["--plot -"]),
            ("dc-duel-plot-missing-folder", [*duel, "--plot", f"{nowhere}/d.png"], ["--plot", "does not exist"]),
            ("dc-resolve-log-stdout", ["resolve", wheat, "-a", "20th-maine", "--seed", "1", "--log", "-"],
             ["--log -", "appended to its file"]),
            ("dc-replay-out-not-a-battle", ["replay", wheat, f"{nowhere}/none.jsonl", "--out", "{here}/rows.csv"],
             ["--out", "a battle is written as .yaml"]),
            ("dc-duel-too-many-turns", [*duel, "--turns", "5000"], ["--turns 5,000: must be between 1 and 1,000"]),
            ("dc-duel-sixty-stands", [*duel, "--set", "units.20th-maine.stands=60", "--set",
                                      "units.15th-alabama.stands=60"], ["too large to answer exactly", "--samples N"]),
            ("dc-move-to-nan", ["move", wheat, "20th-maine", "--to", "nan,1"], ["--to 'nan,1'"]),
            ("dc-move-to-huge", ["move", wheat, "20th-maine", "--to", "1e400,0"], ["--to '1e400,0'"]),
            ("dc-move-by-41-places", ["move", wheat, "20th-maine", "--by", "0." + "1" * 41 + ",0"], ["--by"]),
            ("dc-move-to-three-numbers", ["move", wheat, "20th-maine", "--to", "1,2,3"], ["two numbers X,Y"]),
            ("dc-move-to-and-by", ["move", wheat, "20th-maine", "--to", "1,2", "--by", "1,1"], ["not both"]),
            ("dc-move-unknown-unit", ["move", wheat, "ghost", "--by", "0,1"], ["'ghost' is not in this battle"]),
            ("dc-move-log-without-out", ["move", wheat, "20th-maine", "--by", "0,1", "--log", f"{nowhere}/g.jsonl"],
             ["--log without --out"]),
            ("dc-move-out-stdout", ["move", wheat, "20th-maine", "--by", "0,1", "--out", "-"], ["--out -"]),
            ("dc-move-formation-unknown", ["move", wheat, "20th-maine", "--formation", "wedge"], ["wedge"]),
            ("bu-mark-unknown-state", ["mark", "{examples}/temple.yaml", "yoichi", "asleep"], ["'asleep'"]),
            ("dc-place-data-not-a-mapping", ["place", wheat, "units", "x", "[1, 2]"], ["DATA: must be a mapping"]),
            ("dc-place-id-taken", ["place", wheat, "units", "20th-maine", "{side: union}"], ["already in the battle"]),
            ("dc-change-unknown-id", ["change", wheat, "units", "ghost", "{stands: 2}"], ["no 'ghost' to change"]),
            ("dc-remove-unknown-section", ["remove", wheat, "cards", "20th-maine"], ["section:", "not 'cards'"]),
            ("dc-undo-missing-log", ["undo", wheat, "--log", f"{nowhere}/g.jsonl"], ["g.jsonl"]),
    ):
        corpus.add(entry_id, entry_id.split("-")[1], args, stderr=said,
                   why=" ".join(a for a in args if "{" not in a)[:80])


def build() -> Corpus:
    corpus = Corpus([], {})
    for game, info in GAMES.items():
        base = example(info["example"])
        wrong_types(corpus, game, base)
        if game == "sw":
            hand_entries(corpus, base)
        out_of_range(corpus, game, base)
        cross_checks(corpus, game, base)
        keys(corpus, game, base)
        duplicates(corpus, game, base)
        malformed(corpus, game, base)
        dice(corpus, game)
        choices(corpus, game)
    misc(corpus)
    markup(corpus)
    escaped_keys(corpus)
    accepted(corpus)
    replay_logs(corpus)
    logged_commands(corpus)
    table_commands(corpus)
    designer_commands(corpus)
    refused_in_our_words(corpus)
    outputs_and_moves(corpus)
    return corpus


def lines(corpus: Corpus) -> Iterator[str]:
    for entry in corpus.entries:
        yield json.dumps(entry, ensure_ascii=True)


def write(corpus: Corpus, out: Callable[[str], None] = print) -> None:
    for folder in FOLDERS:
        shutil.rmtree(HERE / folder, ignore_errors=True)
    for rel, content in sorted(corpus.files.items()):
        path = HERE / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    MANIFEST.write_text("\n".join(lines(corpus)) + "\n", encoding="utf-8")
    refused = sum(1 for e in corpus.entries if e["exit"] == [2])
    out(f"{len(corpus.entries)} entries ({refused} refused with exit 2), {len(corpus.files)} files")


if __name__ == "__main__":
    sys.set_int_max_str_digits(0)
    write(build())
