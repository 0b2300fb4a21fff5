"""Validating a scenario mapping against a game's model: every problem at once, each with its path, each in
the project's own words (pydantic's messages never reach a user)."""

from __future__ import annotations

import datetime
import json
import re
import types
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from rangefire.core.errors import ScenarioError
from rangefire.scenario.parsing import format_path

M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], data: Mapping[str, Any], source: str = "scenario",
             extra_problems: list[str] | None = None) -> M:
    """Validate a mapping against a model; every problem listed at once, each with its path."""
    problems = list(extra_problems or [])
    result: M | None = None
    try:
        result = model.model_validate(dict(data))
    except ValidationError as exc:
        problems = format_errors(exc.errors(), data, model) + problems
    if problems:
        raise ScenarioError(problems, source=source)
    assert result is not None
    return result


def format_errors(errors: list[Any], data: Mapping[str, Any], model: type[BaseModel] | None = None) -> list[str]:
    """pydantic's errors as our messages; the alternatives of a union at one place become one message."""
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    for err in errors:
        loc = _real_path(err, data)
        if err["type"] in _BOUND and model is not None:
            err = {**err, "whole": _is_whole(model, loc)}
        grouped.setdefault(format_path(loc), []).append(err)
    out: list[str] = []
    for path, group in grouped.items():
        if len(group) == 1 or any(e["type"] in ("missing", "extra_forbidden") for e in group):
            out.extend(format_error(e, path) for e in group)
            continue
        # the alternatives of a union: "must be 'none' or a whole number, got 'many'"
        wants = [_what(e) for e in group]
        musts = [w.removeprefix("must be ") for w in wants if w.startswith("must be ")]
        others = [w for w in wants if not w.startswith("must be ")]
        joined = " or ".join(dict.fromkeys(musts))
        msg = "; ".join([*([f"must be {joined}"] if joined else []), *dict.fromkeys(others)])
        out.append(f"{path}: {msg}, got {_short(group[0].get('input'))}")
    return out


def _is_whole(model: Any, path: tuple[Any, ...]) -> bool | None:
    """Whether the field at ``path`` of ``model`` holds whole numbers (None when the path cannot be followed):
    ``stands`` must be "a whole number >= 1", ``stand_width`` "a number > 0"."""
    kind: Any = model
    for part in path:
        kind = _element(_plain(kind), part)
        if kind is None:
            return None
    args = [a for a in (get_args(_plain(kind)) or (_plain(kind),)) if a is not type(None)]
    return all(_plain(a) is int for a in args) if args else None


def _plain(kind: Any) -> Any:
    """The type without its Annotated metadata, and without None where it is optional."""
    while get_origin(kind) is Annotated:
        kind = get_args(kind)[0]
    if get_origin(kind) in (Union, types.UnionType):
        rest = [a for a in get_args(kind) if a is not type(None)]
        if len(rest) == 1:
            return _plain(rest[0])
    return kind


def _element(kind: Any, part: Any) -> Any:
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        field = kind.model_fields.get(part) if isinstance(part, str) else None
        return field.annotation if field is not None else None
    origin, args = get_origin(kind), get_args(kind)
    if origin in (tuple, list) and args and isinstance(part, int):
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def error_path(err: Mapping[str, Any], data: Any) -> str | None:
    """Where a pydantic error is in the data given, as a path (None at the top level)."""
    loc = _real_path(err, data)
    return format_path(loc) if loc else None


def _real_path(err: Mapping[str, Any], data: Any) -> tuple[Any, ...]:
    """The error's location in the file: the keys and indexes that exist in the data, without the names
    pydantic gives the members of a union or a validator (``int``, ``literal['none']``, ``function-plain[...]``)."""
    loc = tuple(err["loc"])
    kept: list[Any] = []
    node = data
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        in_mapping = isinstance(node, Mapping) and isinstance(part, str) and part in node
        in_list = isinstance(node, list | tuple) and isinstance(part, int) and 0 <= part < len(node)
        if in_mapping or in_list:
            kept.append(part)
            node = node[part]
        elif last and err["type"] == "missing" and isinstance(node, Mapping):
            kept.append(part)
        elif isinstance(node, Mapping) and part == "[key]":
            continue
        else:
            node = None  # a union member's or validator's name: not a place in the file
    return tuple(kept)


_PATTERNS = {r"^[A-Za-z0-9_.:-]+$": "may hold only letters, digits and _ . : -"}
_SIMPLE = {
    "dict_type": "must be a mapping of keys", "model_type": "must be a mapping of keys",
    "model_attributes_type": "must be a mapping of keys", "dataclass_type": "must be a mapping of keys",
    "list_type": "must be a list", "tuple_type": "must be a list", "set_type": "must be a list",
    "frozen_set_type": "must be a list", "iterable_type": "must be a list",
    "string_type": "must be text", "string_sub_type": "must be text", "string_unicode": "must be text",
    "bool_type": "must be true or false", "bool_parsing": "must be true or false",
    "int_type": "must be a whole number", "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number", "int_parsing_size": "must be a whole number of sensible size",
    "float_type": "must be a number", "float_parsing": "must be a number", "finite_number": "must be a finite number",
    "decimal_type": "must be a number", "decimal_parsing": "must be a number",
    "none_required": "must be left out", "is_instance_of": "is not of the right kind",
    "union_tag_not_found": "lacks the key that says which kind it is", "frozen_instance": "cannot be changed",
    "hash_type": "must be a single value, not a list or mapping",
}
_BOUND = {"greater_than_equal": ">=", "less_than_equal": "<=", "greater_than": ">", "less_than": "<"}


def _what(err: Mapping[str, Any]) -> str:
    """What is wrong, without the path or the value: ``must be a whole number >= 1``."""
    kind = err["type"]
    ctx = err.get("ctx") or {}
    given = err.get("input")
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind in _BOUND:
        bound = next(iter(ctx.values()), "?")
        whole = err.get("whole")
        if whole is None:  # the field's type unknown: judge by the value given
            whole = isinstance(given, int) and not isinstance(given, bool)
        return f"must be {'a whole number' if whole else 'a number'} {_BOUND[kind]} {bound}"
    if kind == "multiple_of":
        return f"must be a multiple of {ctx.get('multiple_of')}"
    if kind in ("too_short", "too_long"):
        items = "item" if ctx.get("min_length", ctx.get("max_length")) == 1 else "items"
        if kind == "too_short":
            return f"must have at least {ctx.get('min_length')} {items}"
        return f"must have at most {ctx.get('max_length')} {items}"
    if kind == "string_too_short":
        return "must not be empty" if ctx.get("min_length") == 1 else (
            f"must be at least {ctx.get('min_length')} characters")
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters"
    if kind == "string_pattern_mismatch":
        return _PATTERNS.get(str(ctx.get("pattern")), "is not in the form this key takes")
    if kind in ("literal_error", "enum"):
        choices = _choices(str(ctx.get("expected", "")))
        return f"must be {choices}" if choices.startswith("'") else f"must be one of {choices}"
    if kind == "union_tag_invalid":
        return f"must be one of {_choices(str(ctx.get('expected_tags', '')))}"
    if kind in ("value_error", "assertion_error"):
        return str(ctx.get("error", "is not valid"))
    return "is not valid here"


def _choices(expected: str) -> str:
    """pydantic's ``'a', 'b' or 'c'`` as ``a, b, c`` (a number stays a number)."""
    parts = [p.strip() for p in re.split(r",| or ", expected) if p.strip()]
    names = [p[1:-1] if len(p) >= 2 and p[0] == p[-1] == "'" else p for p in parts]
    if len(names) == 1 and parts[0].startswith("'"):
        return f"'{names[0]}'"  # a single choice reads better quoted: must be 'none'
    return ", ".join(names)


def format_error(err: Mapping[str, Any], path: str | None = None) -> str:
    """One pydantic error as ``path: what is wrong, got value``."""
    if path is None:
        path = format_path(tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p)))
    kind = err["type"]
    if kind == "missing":
        return f"{path}: is required"
    if kind == "extra_forbidden":
        return f"{path}: unknown key"
    msg = _what(err)
    if ", got " in msg or kind in ("string_too_long", "too_long", "too_short"):
        return f"{path}: {msg}"  # our own validators already say what they got; a long value is not repeated
    return f"{path}: {msg}, got {_short(err.get('input'))}"


def _short(value: Any) -> str:
    """A value as the file gave it, cut to a line's worth; never the whole of a huge one."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, datetime.date | datetime.time):  # written unquoted: said as text, it would read as text
        kind = "a time" if isinstance(value, datetime.time) else "a date"
        return f"{kind}, {value.isoformat()} (unquoted, it is read as one)"
    if isinstance(value, str):
        text = repr(value[:80])
    else:
        try:
            text = json.dumps(value, default=str)
        except (ValueError, TypeError, RecursionError):
            text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."
