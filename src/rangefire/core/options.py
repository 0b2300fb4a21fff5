"""A game's options as data: every number of its tables a designer could change, with the rules' value as default.

Each game's ``Options`` model derives from :class:`OptionsModel` and declares each option with :func:`option`,
which records the clause the value comes from. Tables are nested models (``to_hit.breechloader.medium``); a
scenario or a setting may give part of a table, and the rest keeps the rules' values (:class:`OptionsModel`
merges what is given onto the defaults before it validates).

``option_rows`` lists every option by path with its default and clause (``rangefire rulesets GAME``);
``house_rules`` lists the ones a battle changes, which every explanation names beside the rules' value.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from rangefire.core.numbers import dump_exact


def option(default: Any, clause: str, help: str, **constraints: Any) -> Any:
    """An option's field: its default (the rules' value), the clause it comes from and a line of help.

    A nested table (a model) is given as its default instance; a frozen one (every ``OptionsModel``) is shared,
    as nothing can change it (a deep copy a table made every battle read was most of the time to read one), any
    other is copied.
    """
    extra: dict[str, JsonValue] = {"clause": clause}
    if isinstance(default, BaseModel):
        frozen = bool(default.model_config.get("frozen"))
        return Field(default_factory=lambda: default if frozen else default.model_copy(deep=True), description=help,
                     json_schema_extra=extra, **constraints)
    return Field(default, description=help, json_schema_extra=extra, **constraints)


class OptionsModel(BaseModel):
    """A game's options (or one of their tables): immutable, unknown names refused, partial tables completed."""

    # serialize_by_alias: a battle written back spells a table row as the scenario does (rifled-musket)
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True, serialize_by_alias=True,
                              validate_by_name=True, validate_by_alias=True)

    @model_validator(mode="before")
    @classmethod
    def _complete_tables(cls, data: Any) -> Any:
        # A table given in part (``to_hit: {breechloader: {medium: 3}}``) keeps the rules' other values: the
        # defaults of a nested table differ from row to row, so the nested model's own defaults cannot say them.
        if not isinstance(data, dict):
            return data
        merged = dict(data)
        for name, field in cls.model_fields.items():
            key = field.alias or name  # a name the scenario spells with a hyphen (rifled-musket) is an alias
            given = data.get(key)
            if isinstance(given, dict) and field.default_factory is not None:
                default = field.default_factory()  # type: ignore[call-arg]
                if isinstance(default, BaseModel):
                    merged[key] = _deep_merge(default.model_dump(by_alias=True), given)
        return merged


def _deep_merge(base: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in given.items():
        old = merged.get(key)
        merged[key] = _deep_merge(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return merged


@dataclass(frozen=True)
class OptionRow:
    """One option: its path under ``options``, the rules' value, the clause and a line of help."""

    path: str
    default: Any
    clause: str
    help: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "default": _plain(self.default), "clause": self.clause, "help": self.help}


@dataclass(frozen=True)
class HouseRule:
    """An option a battle sets away from the rules' value."""

    path: str
    value: Any
    default: Any
    clause: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "value": _plain(self.value), "default": _plain(self.default), "clause": self.clause}

    def __str__(self) -> str:
        return f"{self.path} = {shown(self.value)} {house_note(shown(self.value), shown(self.default))}"


def option_rows(model: type[BaseModel], prefix: str = "options", *, defaults: BaseModel | None = None,
                clause: str = "", help: str = "") -> list[OptionRow]:
    """Every option of a game's options model, nested tables flattened to dotted paths, in declaration order.

    A table's rows take their defaults from the table's default (a row of the to-hit table has the rules'
    numbers for that weapon, not the row model's own) and, where they name none, the table's clause and help.
    """
    defaults = model() if defaults is None else defaults
    rows: list[OptionRow] = []
    for name, field in model.model_fields.items():
        path = f"{prefix}.{field.alias or name}"
        value = getattr(defaults, name)
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        own_clause = str(extra.get("clause") or clause)
        own_help = field.description or help
        if isinstance(value, BaseModel):
            rows.extend(option_rows(type(value), path, defaults=value, clause=own_clause, help=own_help))
        else:
            rows.append(OptionRow(path, value, own_clause, own_help))
    return rows


def option_path_problem(model: type[BaseModel], path: str, prefix: str = "options",
                        value: Any = None) -> str | None:
    """What is wrong with ``path`` as the path of one of ``model``'s options, or None when it names an option
    or a table of them, spelt as a scenario spells it (``to_hit.rifled-musket``).

    ``options.cover_save.heavy.x`` (a step into a single value) and ``options.cover_save.hevy`` (a name the
    table has not: the nearest it has is suggested, or its names listed where they differ only in a number,
    as ``roll_1`` to ``roll_10`` do) are said here, where the game's options are known, rather than as the
    value the table's model would find in the wrong place. A step into a mapping of free keys is not followed.
    A ``value`` that is a mapping (a whole table or row set at once) has each of its keys judged so too, as
    the path it makes (``options.to_hit.rifled-musket`` set to ``{shrt: 3}`` is
    ``options.to_hit.rifled-musket.shrt``).
    """
    problem = _path_problem(model, path, prefix)
    if problem is not None or not isinstance(value, Mapping):
        return problem
    for key, item in value.items():
        problem = option_path_problem(model, f"{path}.{key}", prefix, item)
        if problem is not None:
            return problem
    return None


def _path_problem(model: type[BaseModel], path: str, prefix: str) -> str | None:
    steps = path.split(".")[1:] if path.startswith(prefix + ".") else []
    here: type[BaseModel] | None = model
    for depth, step in enumerate(steps):
        walked = ".".join([prefix, *steps[:depth]])
        if here is None:
            return f"{path}: {walked} is a single value; it has no {step!r}"
        spelt = {field.alias or name: field for name, field in here.model_fields.items()}  # as a scenario has it
        field = spelt.get(step)
        if field is None:
            close = difflib.get_close_matches(step, list(spelt), n=1)
            if close and _DIGITS.sub("", close[0]) == _DIGITS.sub("", step):
                close = []  # roll_11 is not "roll_1, perhaps": the names there are listed instead
            hint = f"; did you mean {walked}.{close[0]}?" if close else f" (the options there: {', '.join(spelt)})"
            return f"{walked}.{step}: no such option{hint}"
        inner = _table_of(field.annotation)
        if inner is _FREE:
            return None
        here = inner if isinstance(inner, type) else None
    return None


_DIGITS = re.compile(r"\d+")
#: A table whose keys are not declared (a mapping): a path into it is for its model to judge.
_FREE = object()


def _table_of(annotation: Any) -> Any:
    """The options model an option's annotation holds (through Annotated, Optional and unions), ``_FREE`` for a
    mapping, None for a single value."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (dict, Mapping) or (isinstance(origin, type) and issubclass(origin, Mapping)):
        return _FREE
    for arg in typing.get_args(annotation):
        found = _table_of(arg)
        if found is not None:
            return found
    return None


@functools.cache
def _spelt(model: type[BaseModel]) -> dict[str, str]:
    """Each field of an options model by the name a scenario spells it with (its alias), once per model."""
    return {field.alias or name: name for name, field in model.model_fields.items()}


@functools.cache
def _rows_of(model: type[BaseModel], prefix: str) -> tuple[OptionRow, ...]:
    """:func:`option_rows` of a game's options model, once per model (its rules' values never change): a battle's
    house rules are read for every answer that names them, and for every battle written back."""
    return tuple(option_rows(model, prefix))


def _value_at(model: BaseModel, path: str, prefix: str) -> Any:
    value: Any = model
    for step in path[len(prefix) + 1:].split("."):
        table: type[BaseModel] = type(value)
        value = getattr(value, _spelt(table)[step])
    return value


def house_rules(options: BaseModel, prefix: str = "options") -> list[HouseRule]:
    """The options set away from the rules' values, by path, with the clause each comes from."""
    defaults = {row.path: row for row in _rows_of(type(options), prefix)}
    changed = []
    for path, row in defaults.items():
        value = _value_at(options, path, prefix)
        if value != row.default:
            changed.append(HouseRule(path, value, row.default, row.clause))
    return changed


def written_options(options: BaseModel, always: tuple[str, ...] = ()) -> dict[str, Any]:
    """The options a written battle holds: those named in ``always`` (the rulings a reader expects to see) at
    whatever value, and every other value only where a house rule departs from the rules, within its table
    (a table given in part is read back with the rules' values for the rest). A battle written back thus
    shows what departs from the rules and nothing more.

    >>> written_options(type("O", (OptionsModel,), {"__annotations__": {"a": int, "b": int},
    ...                                            "a": option(1, "X-1", "a"), "b": option(2, "X-2", "b")})(b=3))
    {'b': 3}
    """
    full = options.model_dump(mode="json")
    written = {name: full[name] for name in always if name in full}
    for rule in house_rules(options):
        steps = rule.path.split(".")[1:]
        into, value = written, full
        for step in steps[:-1]:
            into = into.setdefault(step, {})
            value = value[step]
        into[steps[-1]] = value[steps[-1]]
    return written


def house_note(value: str, default: str) -> str:
    """What an explanation says beside a value a house rule sets.

    >>> house_note("3+", "4+")
    '(house rule; the rules say 4+)'
    """
    del value  # the value is shown where the note stands; the note says only where it departs from the rules
    return f"(house rule; the rules say {default})"


def shown(value: Any) -> str:
    """An option's value as a person reads it (``3``, ``true``, ``none``, ``3.5``, ``1/3``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Fraction):  # as a scenario writes it: 10.5, not 21/2
        return str(dump_exact(value))
    return str(value)


def _plain(value: Any) -> Any:
    """A value as JSON holds it (exact numbers as numbers or "n/d" strings)."""
    if isinstance(value, Fraction):  # as a scenario writes it: 10.5 as a number, 1/3 as "1/3"
        return dump_exact(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    json.dumps(value)  # anything else an option holds is plain JSON already; fail here, not in a printer
    return value


__all__ = ["HouseRule", "OptionRow", "OptionsModel", "house_note", "house_rules", "option", "option_path_problem",
           "option_rows", "shown", "written_options"]
