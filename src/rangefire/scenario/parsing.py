"""Scenario text (YAML, TOML, JSON) into a mapping: duplicate keys refused with their path, hostile input
(huge numbers, deep nesting, "billion laughs" aliases, too many values) refused quickly with a clean error.

YAML goes through libyaml's C parser where it is installed (``yaml.CSafeLoader``), PyYAML's pure-Python one
otherwise; duplicate keys, value counts and huge numbers are checked the same way by both.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from rangefire.core.errors import LimitError, ScenarioError

#: Parsed scenarios with more values than this (lists, mappings and scalars, a shared YAML anchor counted at
#: every use) are refused. Real scenarios hold a few thousand (400 Dress on the Colors units of about 15 values
#: each: 6,000). Building YAML values costs about 8 µs each (libyaml's parser, PyYAML's nodes and objects), so
#: at this limit a YAML file is read in about 0.45 s at worst on the reference machine.
MAX_NODES = 40_000
#: Lists and mappings nested deeper than this are refused (no scenario needs more than about 6).
MAX_DEPTH = 64
#: A whole number of more digits than this is refused where it is read: Python will not convert it to text
#: and back (its int_max_str_digits limit), and no scenario value comes near it.
MAX_DIGITS = 4300

YAML_LOADER: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_MERGE_TAG = "tag:yaml.org,2002:merge"
_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def format_path(loc: tuple[Any, ...]) -> str:
    """``("units", 2, "stands")`` -> ``units[2].stands``; a key that is not a plain name is quoted, so that a
    key holding markup or control characters is shown as data.

    >>> format_path(("units", 2, "stands")), format_path(("players", "Mr. X", "deck")), format_path(())
    ('units[2].stands', 'players["Mr. X"].deck', '(top level)')
    """
    out = ""
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        elif isinstance(part, str) and _SIMPLE_KEY.match(part):
            out += ("." if out else "") + part
        else:
            out += f"[{json.dumps(part if isinstance(part, str) else str(part))}]"
    return out or "(top level)"


def parse_scenario(text: str, fmt: str, source: str = "scenario") -> dict[str, Any]:
    """Parse scenario text of a format (``yaml``, ``toml``, ``json``) into a mapping."""
    text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark is not part of the document in any format
    if fmt == "yaml":
        data = _load_yaml(text, source)[1]
    elif fmt == "toml":
        data = _load_toml(text, source)
    else:
        data = _load_json(text, source)
    if not isinstance(data, dict):
        raise ScenarioError([f"the top level must be a mapping of keys, got {_kind(data)}"], source=source)
    return data


def _kind(data: Any) -> str:
    return {list: "a list", str: "text", int: "a number", float: "a number", bool: "true or false",
            type(None): "nothing"}.get(type(data), type(data).__name__)


def _too_many(source: str) -> LimitError:
    return LimitError(f"{source}: more than {MAX_NODES} values or nested deeper than {MAX_DEPTH}; refused")


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, max(index, 0)) + 1


def _long_number_line(text: str) -> int:
    """The line of the first run of more than MAX_DIGITS digits (underscores allowed, as TOML writes them)."""
    found = re.search(r"[0-9][0-9_]{" + str(MAX_DIGITS) + ",}", text)
    return _line_of(text, found.start()) if found else 1


def _number_too_long(line: int) -> str:
    return f"line {line}: a number of more than {MAX_DIGITS} digits; refused"


# -- JSON ----------------------------------------------------------------------------------------------
class _Duplicated(dict[str, Any]):
    """A JSON object in which some keys were given more than once (only built to be reported)."""

    duplicates: list[str]


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    marked = _Duplicated(result)
    marked.duplicates = []
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            marked.duplicates.append(key)
        seen.add(key)
    return marked


class _LongNumber(Exception):
    pass


def _json_int(digits: str) -> int:
    if len(digits) > MAX_DIGITS:
        raise _LongNumber(digits)
    return int(digits)


def _load_json(text: str, source: str) -> Any:
    try:
        data = json.loads(text, object_pairs_hook=_json_object, parse_int=_json_int)
    except json.JSONDecodeError as exc:
        raise ScenarioError([f"line {exc.lineno}: not valid JSON ({exc.msg})"], source=source) from None
    except _LongNumber:
        raise ScenarioError([_number_too_long(_long_number_line(text))], source=source) from None
    except RecursionError:
        raise _too_many(source) from None
    problems: list[str] = []
    _walk_values(data, source, problems, text)
    if problems:
        raise ScenarioError(problems, source=source)
    return data


def _json_key_line(text: str, key: str) -> str:
    """`` (line N)`` where a JSON key given twice is found twice in the text (so the second is the repeat)."""
    spots = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
    if len(spots) != 2:
        spots = [m.start() for m in re.finditer(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:", text)]
    return f" (line {_line_of(text, spots[1])})" if len(spots) == 2 else ""


def _walk_values(data: Any, source: str, problems: list[str], text: str = "") -> None:
    """Count the values of parsed data (refusing too many or too deep) and list duplicate keys by path."""
    count = 0
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        count += 1
        if count > MAX_NODES or len(path) > MAX_DEPTH:
            raise _too_many(source)
        if isinstance(node, dict):
            if isinstance(node, _Duplicated):
                for key in node.duplicates:
                    # each line is found by a search of the whole text: only for the first few
                    line = _json_key_line(text, key) if len(problems) < 10 else ""
                    problems.append(f"{format_path((*path, key))}: duplicate key{line}")
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list | tuple):
            stack.extend((v, (*path, i)) for i, v in enumerate(node))


# -- TOML ----------------------------------------------------------------------------------------------
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column \d+\)$|\s*\(at end of document\)$")


def _toml_key(text: str, line: int) -> tuple[str, ...] | None:
    """The dotted key or table header on a line of TOML (``[players.a]`` or ``deck = ...``), if plain."""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return None
    found = re.match(r"\s*\[*\s*([A-Za-z0-9_.\- ]+?)\s*\]*\s*(=|$)", lines[line - 1])
    if not found:
        return None
    key = tuple(part.strip() for part in found.group(1).split("."))
    if lines[line - 1].lstrip().startswith("["):
        return key
    for above in reversed(lines[: line - 1]):  # a key inside a table: the table's header names the rest
        header = re.match(r"\s*\[\s*([A-Za-z0-9_.\- ]+?)\s*\]\s*$", above)
        if header:
            return (*(part.strip() for part in header.group(1).split(".")), *key)
        if above.lstrip().startswith("[["):
            return None  # within an array of tables, which entry is not known here: the line says where
    return key


def _load_toml(text: str, source: str) -> Any:
    import tomllib  # only a TOML scenario needs it: a start on YAML or JSON does not load it

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _TOML_POSITION.search(message)
        where = f"line {found.group(1)}: " if found and found.group(1) else ""
        what = _TOML_POSITION.sub("", message)
        if what.startswith(("Cannot overwrite a value", "Cannot declare", "Cannot mutate")):
            # tomllib refuses a key or table given twice without naming the key: it is read from the line
            key = _toml_key(text, int(found.group(1))) if found and found.group(1) else None
            named = f"{format_path(key)}: " if key else ""
            raise ScenarioError([f"{where}{named}duplicate key"], source=source) from None
        raise ScenarioError([f"{where}not valid TOML ({what})"], source=source) from None
    except ValueError:
        # int() inside tomllib refused a number past Python's digit limit
        raise ScenarioError([_number_too_long(_long_number_line(text))], source=source) from None
    except RecursionError:
        raise _too_many(source) from None
    _walk_values(data, source, [])
    return data


# -- YAML ----------------------------------------------------------------------------------------------
class _Refused(ConstructorError):
    """A YAML value refused in our own words, with the line it stands on."""

    def __init__(self, problem: str, node: Node) -> None:
        super().__init__(None, None, problem, node.start_mark)


_TAG_WORDS = {"int": "whole number", "float": "number", "bool": "true or false", "timestamp": "date",
              "binary": "base64 text", "null": "null"}


class _Checks:
    """Mixed into a PyYAML loader: duplicate keys noted with their path, huge numbers and values that do not
    convert refused with their line. Paths come from :func:`_walk_nodes`, run before anything is built."""

    paths: dict[int, tuple[Any, ...]]
    duplicates: list[str]

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:  # "<<: *base" merges keys, which the mapping may then override
                    continue
                key = self.construct_object(key_node, deep=deep)
                if key is None:  # "~: 3", "null: 3" or an empty key: pydantic would say only "is not valid here"
                    where = format_path(self.paths.get(id(node), ()))
                    written = f"{key_node.value!r} means none" if key_node.value else "it is empty"
                    raise _Refused(f"{where}: a key is missing its name ({written}); name it", key_node)
                try:
                    if key in seen:
                        where = format_path((*self.paths.get(id(node), ("?",)), key))
                        self.duplicates.append(f"{where}: duplicate key (line {key_node.start_mark.line + 1})")
                    seen.add(key)
                except TypeError:
                    pass  # an unhashable key: PyYAML's own check says so below
        return super().construct_mapping(node, deep=deep)  # type: ignore[misc]

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)  # type: ignore[misc]
        except (ValueError, TypeError, IndexError, OverflowError, AttributeError):
            # a value its tag cannot read: a date such as 2001-02-30, "!!int abc", "!!float" of nothing
            tag = str(node.tag).rpartition(":")[2] or str(node.tag)
            raise _Refused(f"not a valid {_TAG_WORDS.get(tag, tag)}", node) from None

    def construct_yaml_int(self, node: Any) -> int:
        if isinstance(node.value, str) and len(node.value) > MAX_DIGITS:
            raise _Refused(f"a number of more than {MAX_DIGITS} digits; refused", node)
        value: int = super().construct_yaml_int(node)  # type: ignore[misc]
        if value.bit_length() > MAX_DIGITS * 10 // 3:  # written in hexadecimal, it would have too many digits
            raise _Refused(f"a number of more than {MAX_DIGITS} digits; refused", node)
        return value


def _loader(base: type[Any]) -> type[Any]:
    loader: type[Any] = type(f"Checked{base.__name__}", (_Checks, base), {})
    loader.add_constructor("tag:yaml.org,2002:int", _Checks.construct_yaml_int)
    return loader


_LOADERS: dict[type[Any], type[Any]] = {}


def parse_yaml_nodes(text: str, source: str = "scenario") -> tuple[Node, dict[str, Any]]:
    """YAML scenario text (without a byte-order mark) as its node tree, where each value's characters stand,
    and the mapping built from it, checked as :func:`parse_scenario` checks it."""
    node, data = _load_yaml(text, source)
    if node is None or not isinstance(data, dict):
        raise ScenarioError([f"the top level must be a mapping of keys, got {_kind(data)}"], source=source)
    return node, data


def _load_yaml(text: str, source: str) -> tuple[Node | None, Any]:
    base = YAML_LOADER
    if base not in _LOADERS:
        _LOADERS[base] = _loader(base)
    if base is not yaml.SafeLoader:
        # with libyaml, events cost a fifth of building nodes: count first, refuse a huge file at once
        _count_events(base(text), source)
    loader = _LOADERS[base](text)
    loader.paths = {}
    loader.duplicates = []
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        loader.paths = _walk_nodes(node, source)
        data = loader.construct_document(node)
    except _Refused as exc:
        mark = exc.problem_mark
        raise ScenarioError([f"line {mark.line + 1}: {exc.problem}" if mark else str(exc.problem)],
                            source=source) from None
    except yaml.reader.ReaderError as exc:
        line = _line_of(text, exc.position) if isinstance(exc.character, str | int) else 1
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        raise ScenarioError([f"line {line}: the character U+{char:04X} is not allowed in YAML (control "
                             "characters may be written as escapes in double quotes, such as \"\\x07\")"],
                            source=source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).partition("\n")[0]
        raise ScenarioError([f"{where}not valid YAML ({problem})"], source=source) from None
    except RecursionError:
        raise _too_many(source) from None
    finally:
        loader.dispose()
    if loader.duplicates:
        raise ScenarioError(loader.duplicates, source=source)
    return node, data


def _count_events(loader: Any, source: str) -> None:
    """Count the values of a YAML stream as it is parsed, before any node is built, and refuse at once when
    there are too many: building nodes costs about 8 µs each, so a file of a million small values would take
    seconds to be refused after building. An alias counts the values of what it names, at every use."""
    from yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, NodeEvent

    count = 0
    sizes: dict[str, int] = {}
    open_: list[tuple[str | None, int]] = []
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, AliasEvent):
                count += sizes.get(event.anchor or "", 1)
            elif isinstance(event, NodeEvent):
                count += 1
                if isinstance(event, CollectionStartEvent):
                    open_.append((event.anchor, count))
                    if len(open_) > MAX_DEPTH:
                        raise _too_many(source)
                elif event.anchor is not None:
                    sizes[event.anchor] = 1
            elif isinstance(event, CollectionEndEvent) and open_:
                anchor, start = open_.pop()
                if anchor is not None:
                    sizes[anchor] = count - start + 1
            if count > MAX_NODES:
                raise _too_many(source)
    except yaml.YAMLError:
        return  # a syntax error: the parse that follows reports it with its line
    finally:
        loader.dispose()


def _walk_nodes(root: Node, source: str) -> dict[int, tuple[Any, ...]]:
    """Count the nodes before anything is built (an alias counted at every use, so that a "billion laughs"
    file is refused, never expanded) and note the path of each mapping, to name duplicate keys."""
    paths: dict[int, tuple[Any, ...]] = {}
    count = 0
    stack: list[tuple[Node, tuple[Any, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        count += 1
        if count > MAX_NODES or len(path) > MAX_DEPTH:
            raise _too_many(source)
        if isinstance(node, MappingNode):
            paths.setdefault(id(node), path)
            for key, value in node.value:
                name = key.value if isinstance(key, ScalarNode) else "?"
                stack.append((value, (*path, name)))
                if not isinstance(key, ScalarNode):
                    stack.append((key, (*path, "?")))
        elif isinstance(node, SequenceNode):
            stack.extend((item, (*path, i)) for i, item in enumerate(node.value))
    return paths
