"""A battle written back over the file it was read from, changing only what changed.

Three mappings meet here: the file as the user wrote it (``original``), the battle as the command read it
(``before``, the model's dump: every key, defaults included) and the battle after the command (``after``). A
value equal in ``before`` and ``after`` is left as the user wrote it (a default the user left out stays out,
``6.0`` stays ``6.0``, ``dc`` stays ``dc``); a changed value is written anew; a key the command dropped goes,
a key it added comes last in its mapping; lists of items with ids are matched by id.

YAML is edited as text: each changed value's characters are replaced where they stand, so comments, blank
lines, flow style, wrapped lines, quoting and the spelling of every other value stay byte for byte. The edited
text is parsed again and must give exactly the merged mapping; anything it cannot edit safely (anchors and
aliases, a reordered list, a first key deleted from the line of its ``-``) returns None and the caller writes
the merged mapping plainly.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from rangefire.core.numbers import parse_exact

#: "No value here": a key absent from ``before`` (or no ``before`` at all).
MISSING: Any = object()


def merge(original: Any, before: Any, after: Any) -> Any:
    """The value to write: ``original`` where the command left it unchanged, ``after`` where it changed."""
    if before is not MISSING and _same_dump(before, after):
        return original
    if isinstance(original, dict) and isinstance(after, dict):
        old = before if isinstance(before, dict) else {}
        merged = {}
        for key, value in original.items():
            if key in after:
                merged[key] = merge(value, old.get(key, MISSING), after[key])
            elif key not in old:
                merged[key] = value  # not part of the battle as dumped (a null the model drops): kept
        merged.update((key, value) for key, value in _added(original, old, after))
        return merged
    if isinstance(original, list) and isinstance(after, list):
        if _ids(original) is not None and _ids(after) is not None:
            by_id = {item["id"]: item for item in original}
            old_by_id = {item["id"]: item for item in before} if _ids(before) is not None else {}
            return [merge(by_id[item["id"]], old_by_id.get(item["id"], MISSING), item)
                    if item["id"] in by_id else item for item in after]
        if len(original) == len(after):
            olds = before if isinstance(before, list) and len(before) == len(after) else [MISSING] * len(after)
            return [merge(o, b, a) for o, b, a in zip(original, olds, after, strict=True)]
        return after
    if not isinstance(original, dict | list) and same_value(original, after):
        return original
    return after


def _added(original: Mapping[Any, Any], before: Mapping[Any, Any], after: Mapping[Any, Any]) -> list[tuple[Any, Any]]:
    """Keys of ``after`` the file does not have, but for defaults the command left as they were."""
    return [(key, value) for key, value in after.items()
            if key not in original and not (key in before and _same_dump(before[key], value))]


def _ids(items: Any) -> list[str] | None:
    """The ids of a list whose every item is a mapping with its own text id (None for any other list)."""
    if not isinstance(items, list) or not items:
        return None
    ids = [item.get("id") if isinstance(item, dict) else None for item in items]
    if not all(isinstance(uid, str) for uid in ids) or len(set(ids)) != len(ids):
        return None
    return ids  # type: ignore[return-value]


def _same_dump(before: Any, after: Any) -> bool:
    """Whether a value of the battle is unchanged. Both come from the same model's dump, which writes one
    value one way (a whole number as an int, a bool as a bool), so Python's own comparison is exact here and
    runs at C speed over a large battle."""
    return bool(before == after)


def _reads_as(read: Any, expected: Any) -> bool:
    """Whether text read back gives the expected mapping: equal kinds and values, a number only its value
    (``5.0`` written for a whole number where the file spelt ``6.0``)."""
    if isinstance(read, dict) and isinstance(expected, dict):
        return list(read) == list(expected) and all(_reads_as(read[k], expected[k]) for k in read)
    if isinstance(read, list) and isinstance(expected, list):
        return len(read) == len(expected) and all(_reads_as(x, y) for x, y in zip(read, expected, strict=True))
    if isinstance(read, int | float) and isinstance(expected, int | float) and not isinstance(read, bool) \
            and not isinstance(expected, bool):
        return read == expected
    return type(read) is type(expected) and read == expected


def same_value(written: Any, new: Any) -> bool:
    """Whether a value as written reads as the new one: equal, or the same exact number (``6.0`` and ``6``,
    ``"1/2"`` and ``0.5``), so that its spelling is kept."""
    if isinstance(written, bool) or isinstance(new, bool):
        return type(written) is type(new) and written == new
    numbers = isinstance(new, int | float) or isinstance(written, int | float)
    if numbers and isinstance(new, int | float | str) and isinstance(written, int | float | str):
        try:
            return parse_exact(written) == parse_exact(new)
        except (ValueError, TypeError, ZeroDivisionError):
            return False
    return type(written) is type(new) and written == new


# -- YAML as text --------------------------------------------------------------------------------------
class _Unsafe(Exception):
    """An edit this module does not make: the caller writes plainly instead."""


def edit_yaml(text: str, root: Node, original: Any, before: Any, after: Any, loader: type[Any]) -> str | None:
    """YAML ``text`` (whose nodes are ``root``, which is read as ``original``) with only the changed values'
    characters changed; None when the text cannot be edited so that it reads back as the merged mapping."""
    expected = merge(original, before, after)
    try:
        editor = _Editor(text)
        editor.walk(root, original, before, after, flow=False)
        result = editor.apply()
        again = yaml.load(result, Loader=loader)
    except (_Unsafe, yaml.YAMLError, RecursionError):
        return None
    return result if _reads_as(again, expected) else None


class _Editor:
    def __init__(self, text: str) -> None:
        self.text = text
        self.edits: list[tuple[int, int, str]] = []
        self.seen: set[int] = set()

    def apply(self) -> str:
        pieces: list[str] = []
        cursor = 0
        # stable: insertions at one place keep the order they were made in (inner mappings before outer)
        for start, end, new in sorted(self.edits, key=lambda e: (e[0], e[1])):
            if start < cursor:
                raise _Unsafe("overlapping edits")
            pieces += [self.text[cursor:start], new]
            cursor = end
        pieces.append(self.text[cursor:])
        return "".join(pieces)

    # -- walking the three values beside the nodes
    def walk(self, node: Node, original: Any, before: Any, after: Any, flow: bool) -> None:
        if id(node) in self.seen:
            raise _Unsafe("an alias")  # one node in two places: an edit would change both
        self.seen.add(id(node))
        if before is not MISSING and _same_dump(before, after):
            self._check_plain(node)
            return
        inner = flow or bool(getattr(node, "flow_style", False))
        if isinstance(node, MappingNode) and isinstance(original, dict) and isinstance(after, dict):
            self._mapping(node, original, before if isinstance(before, dict) else {}, after, inner)
        elif isinstance(node, SequenceNode) and isinstance(original, list) and isinstance(after, list):
            self._sequence(node, original, before, after, inner)
        elif isinstance(node, ScalarNode) and not isinstance(original, dict | list):
            if not same_value(original, after):
                self._scalar(node, _scalar_text(after, node, original))
        else:
            self._replace(node, after, flow)

    def _check_plain(self, node: Node) -> None:
        """An unchanged part may not share nodes with a changed one (an alias), nor merge keys in."""
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, MappingNode):
                for key, value in current.value:
                    if key.tag == "tag:yaml.org,2002:merge":
                        raise _Unsafe("a merge key")
                    stack += [key, value]
            elif isinstance(current, SequenceNode):
                stack += current.value
            if current is not node:
                if id(current) in self.seen:
                    raise _Unsafe("an alias")
                self.seen.add(id(current))

    def _mapping(self, node: MappingNode, original: dict[Any, Any], before: dict[Any, Any],
                 after: dict[Any, Any], flow: bool) -> None:
        pairs = node.value
        if len(pairs) != len(original) or any(k.tag == "tag:yaml.org,2002:merge" for k, _ in pairs):
            raise _Unsafe("merge keys")
        for index, (key, (_, value_node)) in enumerate(zip(original, pairs, strict=True)):
            if key in after:
                self.walk(value_node, original[key], before.get(key, MISSING), after[key], flow)
            elif key in before:
                self._delete(node, index, flow)
            else:
                self._check_plain(value_node)
        for key, value in _added(original, before, after):
            self._append(node, f"{_flow_text(key)}: {_flow_text(value)}", flow)

    def _sequence(self, node: SequenceNode, original: list[Any], before: Any, after: list[Any],
                  flow: bool) -> None:
        old_ids, new_ids = _ids(original), _ids(after)
        if old_ids is not None and new_ids is not None:
            old_set, new_set = set(old_ids), set(new_ids)
            kept = [uid for uid in new_ids if uid in old_set]
            if kept != [uid for uid in old_ids if uid in new_set] or new_ids[: len(kept)] != kept:
                self._replace(node, after, flow)  # reordered, or new items among the old: written anew
                return
            olds = {item["id"]: item for item in before} if _ids(before) is not None else {}
            news = {item["id"]: item for item in after}
            for index, uid in enumerate(old_ids):
                if uid in news:
                    self.walk(node.value[index], original[index], olds.get(uid, MISSING), news[uid], flow)
                else:
                    self._delete(node, index, flow)
            last = node.value[-1] if node.value else None
            # a list mostly of block mappings (one key a line) takes its new items in the same style
            styles = [item.flow_style for item in node.value if isinstance(item, MappingNode)]
            blocks = not (flow or node.flow_style) and isinstance(last, MappingNode) and \
                styles.count(False) > len(styles) / 2
            for item in after[len(kept):]:
                if blocks and isinstance(item, dict) and item:
                    lines = [f"{_flow_text(key)}: {_flow_text(value)}" for key, value in item.items()]
                    indent = "\n" + " " * last.start_mark.column  # type: ignore[union-attr]
                    self._append(node, indent.join(lines), flow)
                else:
                    self._append(node, _flow_text(item), flow)
        elif len(original) == len(after) == len(node.value):
            olds_list = before if isinstance(before, list) and len(before) == len(after) else [MISSING] * len(after)
            for item_node, o, b, a in zip(node.value, original, olds_list, after, strict=True):
                self.walk(item_node, o, b, a, flow)
        else:
            self._replace(node, after, flow)

    # -- the edits
    def _replace(self, node: Node, value: Any, flow: bool) -> None:
        """A value written anew where the old one stood: in flow style where the old one was (or where a block
        could not stand), else in block style at the old one's indentation."""
        start, end = node.start_mark.index, _end(node)
        block = (not flow and isinstance(node, MappingNode | SequenceNode) and not node.flow_style
                 and isinstance(value, dict | list) and bool(value))
        if isinstance(node, ScalarNode):
            self._scalar(node, _scalar_text(value, node, MISSING))
            return
        if not block:
            self.edits.append((start, end, _flow_text(value)))
            return
        if self.text[self._line_start(start):start].strip(" "):
            raise _Unsafe("a block value that does not start its line")
        column = start - self._line_start(start)
        # one level in block style, as the old value was; what it holds in flow style, one entry a line
        if isinstance(value, dict):
            lines = [f"{_flow_text(key)}: {_flow_text(item)}" for key, item in value.items()]
        else:
            lines = [f"- {_flow_text(item)}" for item in value]
        self.edits.append((start, end, "\n".join([lines[0], *(" " * column + line for line in lines[1:])])))

    def _scalar(self, node: ScalarNode, new: str) -> None:
        start, end = node.start_mark.index, node.end_mark.index
        if self.text[start:end].endswith("\n"):
            new += "\n"  # a block scalar ("|" or ">") ends with its line: the next key keeps its own
        self.edits.append((start, end, new))

    def _delete(self, node: MappingNode | SequenceNode, index: int, flow: bool) -> None:
        entries = self._entries(node)
        start, end = entries[index]
        if flow or getattr(node, "flow_style", False):
            if index > 0:
                start = entries[index - 1][1]  # ", key: value" after the previous entry
            elif len(entries) > 1:
                end = entries[1][0]  # "key: value, " before the next one
            self.edits.append((start, end, ""))
            return
        line = self._line_start(start)
        if self.text[line:start].strip(" "):
            raise _Unsafe("a deleted entry shares its line with what comes before it")
        self.edits.append((line, self._after_line(end), ""))

    def _append(self, node: MappingNode | SequenceNode, entry: str, flow: bool) -> None:
        entries = self._entries(node)
        if flow or getattr(node, "flow_style", False):
            if entries:
                self.edits.append((entries[-1][1], entries[-1][1], ", " + entry))
            else:
                opening = node.start_mark.index + 1  # just inside the "{" or "["
                self.edits.append((opening, opening, entry))
            return
        first = entries[0][0]
        column = first - self._line_start(first)
        prefix = "- " if isinstance(node, SequenceNode) else ""
        at = self._after_line(entries[-1][1])
        line = " " * column + prefix + entry
        if at == len(self.text) and not self.text.endswith("\n"):
            self.edits.append((at, at, "\n" + line))
        else:
            self.edits.append((at, at, line + "\n"))

    def _entries(self, node: MappingNode | SequenceNode) -> list[tuple[int, int]]:
        """Where each entry starts (its key, or a block item's "-") and ends (its value's last character)."""
        if isinstance(node, MappingNode):
            return [(key.start_mark.index, _end(value)) for key, value in node.value]
        spans = []
        for item in node.value:
            start = item.start_mark.index
            if not node.flow_style:
                dash = self.text.rfind("-", 0, start)
                if dash < 0 or self.text[dash + 1:start].strip():
                    raise _Unsafe("a list item without its dash")
                start = dash
            spans.append((start, _end(item)))
        return spans

    def _line_start(self, index: int) -> int:
        return self.text.rfind("\n", 0, index) + 1

    def _after_line(self, index: int) -> int:
        """The start of the line after the one ``index`` ends on (the end of the text on the last line)."""
        if index > 0 and self.text[index - 1] == "\n":
            return index  # a block scalar ends at the start of the next line
        found = self.text.find("\n", index)
        return len(self.text) if found < 0 else found + 1


def _end(node: Node) -> int:
    """Where a node's own characters end: a block collection ends with its last entry, not at the next key."""
    while isinstance(node, MappingNode | SequenceNode) and not node.flow_style and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(node, MappingNode) else last
    return int(node.end_mark.index)


def _flow_text(value: Any) -> str:
    """A value on one line as YAML flow style writes it (quoted wherever flow context needs it)."""
    text = yaml.safe_dump([value], default_flow_style=True, allow_unicode=True, width=math.inf, sort_keys=False)
    text = text.rstrip("\n")
    if "\n" in text or not (text.startswith("[") and text.endswith("]")):
        return json.dumps(value)
    return text[1:-1]


def _scalar_text(value: Any, node: ScalarNode, written: Any) -> str:
    """A new scalar in the old one's manner: quoted as it was, a whole number as ``5.0`` where ``6.0`` was."""
    if isinstance(value, int) and not isinstance(value, bool) and isinstance(written, float):
        return f"{value}.0"
    if isinstance(value, str) and node.style == "'" and value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, str) and node.style == '"':
        return json.dumps(value)
    return _flow_text(value)
