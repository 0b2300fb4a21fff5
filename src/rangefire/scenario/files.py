"""Reading and writing scenario files (YAML, TOML, JSON), and validating them whole.

A file is refused before it is parsed when it is too large, and after parsing when it holds too many values;
validation lists every problem at once, each with its path (``units[2].stands: ...``).
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import tomli_w
import yaml
from pydantic import BaseModel, ValidationError

from rangefire.core.errors import LimitError, ScenarioError

#: Scenario files larger than this are refused before they are read.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Parsed scenarios with more values than this (lists, mappings and scalars) are refused.
MAX_NODES = 200_000

FORMATS = {".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json"}

M = TypeVar("M", bound=BaseModel)


def file_format(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ScenarioError([f"unknown file type {path.suffix or '(none)'!r}; use .yaml, .yml, .toml or .json"],
                            source=str(path))
    return fmt


def read_scenario(path: str | Path) -> dict[str, Any]:
    """The mapping a scenario file holds, parsed by its extension; errors name the file and the line."""
    path = Path(path)
    fmt = file_format(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ScenarioError([f"cannot read: {exc.strerror or exc}"], source=str(path)) from None
    if size > MAX_FILE_BYTES:
        raise LimitError(f"{path}: {size} bytes; scenario files may be at most {MAX_FILE_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError([f"cannot read: {exc}"], source=str(path)) from None
    return parse_scenario(text, fmt, source=str(path))


def parse_scenario(text: str, fmt: str, source: str = "scenario") -> dict[str, Any]:
    """Parse scenario text of a format (``yaml``, ``toml``, ``json``) into a mapping."""
    data: Any
    try:
        if fmt == "yaml":
            data = yaml.safe_load(text)
        elif fmt == "toml":
            data = tomllib.loads(text)
        else:
            data = json.loads(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise ScenarioError([f"{where}not valid YAML ({getattr(exc, 'problem', None) or exc})"],
                            source=source) from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError([f"not valid TOML ({exc})"], source=source) from None
    except json.JSONDecodeError as exc:
        raise ScenarioError([f"line {exc.lineno}: not valid JSON ({exc.msg})"], source=source) from None
    except RecursionError:
        raise LimitError(f"{source}: nested too deeply") from None
    if not isinstance(data, dict):
        raise ScenarioError([f"the top level must be a mapping of keys, got {type(data).__name__}"],
                            source=source)
    _count_nodes(data, source)
    return data


def _count_nodes(data: Any, source: str) -> None:
    # Shared YAML anchors are counted at every use: a "billion laughs" file is refused, not expanded.
    count = 0
    stack = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES or depth > 64:
            raise LimitError(f"{source}: more than {MAX_NODES} values or nested deeper than 64; refused")
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)


def validate(model: type[M], data: Mapping[str, Any], source: str = "scenario",
             extra_problems: list[str] | None = None) -> M:
    """Validate a mapping against a model; every problem listed at once, each with its path."""
    problems = list(extra_problems or [])
    result: M | None = None
    try:
        result = model.model_validate(dict(data))
    except ValidationError as exc:
        problems = [format_error(err) for err in exc.errors()] + problems
    if problems:
        raise ScenarioError(problems, source=source)
    assert result is not None
    return result


def format_path(loc: tuple[int | str, ...]) -> str:
    """``("units", 2, "stands")`` -> ``units[2].stands``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def format_error(err: Mapping[str, Any]) -> str:
    """One pydantic error as ``path: what is wrong, got value``."""
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
    path = format_path(loc)
    kind = err["type"]
    given = err.get("input")
    ctx = err.get("ctx") or {}
    if kind == "missing":
        return f"{path}: is required"
    if kind == "extra_forbidden":
        return f"{path}: unknown key"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        msg = "must be a whole number"
    elif kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        op = {"greater_than_equal": ">=", "less_than_equal": "<=", "greater_than": ">", "less_than": "<"}[kind]
        bound = next(iter(ctx.values()))
        what = "a whole number" if isinstance(given, int) and not isinstance(given, bool) else "a number"
        msg = f"must be {what} {op} {bound}"
    elif kind == "value_error":
        msg = str(ctx.get("error", err["msg"]))
    else:
        msg = err["msg"].replace("Input should be", "must be").replace("Value error, ", "")
    if ", got " in msg:  # our own validators already say what they got
        return f"{path}: {msg}"
    return f"{path}: {msg}, got {_short(given)}"


def _short(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def write_scenario(path: str | Path, data: Mapping[str, Any]) -> None:
    """Write a scenario atomically in the format its extension names: a failure leaves the old file."""
    path = Path(path)
    fmt = file_format(path)
    if fmt == "yaml":
        text = yaml.safe_dump(dict(data), sort_keys=False, default_flow_style=None, width=110)
    elif fmt == "toml":
        text = tomli_w.dumps(dict(data))
    else:
        text = json.dumps(data, indent=2) + "\n"
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
