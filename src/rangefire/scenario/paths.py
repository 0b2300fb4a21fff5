"""Values of a scenario named by path: the house rules and what-ifs a designer sets without editing the file.

A path names a value where the scenario holds it, a dot between steps: ``options.cover_save.light`` (the game's
options and tables), ``units.A.stands`` (a list of items with ids is stepped into by id), ``terrain.wall.kind``,
``cards.launcher.speed``, ``units.A.position`` (a whole value: ``[3, 4]``). A value is read like a value in a
scenario file (``3``, ``true``, ``1.5``, ``[3, 4]``, ``heavy``), so it is checked by the same models afterwards:
a setting can make a battle no file could not. A mapping replaces the whole value at its path, as a file would
hold it there: ``options.to_hit.rifled-musket={short: 3, medium: 4, long: 5}`` sets a row of a table in one go
(what it leaves out takes the rules' values, as in a file).

>>> s = parse_setting("options.cover_save.light=3")
>>> s.path, s.value
('options.cover_save.light', 3)
>>> doc = {"units": [{"id": "A", "stands": 4}], "options": {}}
>>> apply_settings(doc, [s, parse_setting("units.A.stands=2")])
{'units': [{'id': 'A', 'stands': 2}], 'options': {'cover_save': {'light': 3}}}
>>> doc["units"][0]["stands"]  # the mapping given is left as it was
4
>>> row = parse_setting("options.to_hit.rifled-musket={short: 3, medium: 4, long: 5}")
>>> apply_settings({"options": {"to_hit": {"rifled-musket": {"short": 2, "long": 6}}}}, [row])
{'options': {'to_hit': {'rifled-musket': {'short': 3, 'medium': 4, 'long': 5}}}}
"""

from __future__ import annotations

import copy
import datetime
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rangefire.core.errors import ScenarioError
from rangefire.core.numbers import dump_exact, parse_exact

#: A setting's text is short; anything longer is not a value a person types (and is refused before parsing).
MAX_SETTING_CHARS = 1000
#: Steps in a path: the deepest value of any game is a handful of steps down.
MAX_STEPS = 8


@dataclass(frozen=True)
class Setting:
    """One value of the scenario, named by its path, and what to set it to."""

    path: str
    value: Any

    @property
    def steps(self) -> tuple[str, ...]:
        return tuple(self.path.split("."))

    def __str__(self) -> str:
        return f"{self.path}={shown(self.value)}"


def shown(value: Any) -> str:
    """A value as a person would type it back (``3``, ``true``, ``[3, 4]``, ``heavy``, ``1.5``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return str(dump_exact(parse_exact(value)))
    return json.dumps(value, default=str)


def parse_setting(text: str, source: str = "setting") -> Setting:
    """``PATH=VALUE`` read into a :class:`Setting`; the value is read as a scenario value (YAML).

    >>> parse_setting("units.A.position=[3, 4.5]").value
    [3, 4.5]
    >>> parse_setting("units.A.stands")
    Traceback (most recent call last):
    ...
    rangefire.core.errors.ScenarioError: setting: 'units.A.stands' is not PATH=VALUE (e.g. options.cover_save.light=3)
    """
    if len(text) > MAX_SETTING_CHARS:
        raise ScenarioError([f"a setting of {len(text):,} characters; at most {MAX_SETTING_CHARS:,}"], source=source)
    path, sep, raw = text.partition("=")
    path = path.strip()
    if not sep or not path:
        raise ScenarioError([f"{text!r} is not PATH=VALUE (e.g. options.cover_save.light=3)"], source=source)
    check_path(path, source)
    return Setting(path, read_value(raw.strip(), path, source))


def given_twice(values: Sequence[Any]) -> tuple[Any] | None:
    """The first of ``values`` given again, in a tuple of one (it may be none itself, ``null``), or None where
    each is given once; values are compared as a scenario holds them (``[1, 2]`` and ``[1,2]`` are one)."""
    seen: set[str] = set()
    for value in values:
        said = json.dumps(value, sort_keys=True, default=str)
        if said in seen:
            return (value,)
        seen.add(said)
    return None


def check_path(path: str, source: str = "setting") -> None:
    """A path is names joined by dots, none empty, at most :data:`MAX_STEPS` of them."""
    steps = path.split(".")
    if any(not step.strip() or step != step.strip() for step in steps):
        raise ScenarioError([f"{path}: a path is names joined by dots (e.g. units.A.stands)"], source=source)
    if len(steps) > MAX_STEPS:
        raise ScenarioError([f"{path}: {len(steps)} steps; a path has at most {MAX_STEPS}"], source=source)


def read_value(raw: str, path: str, source: str = "setting") -> Any:
    """A value as typed after ``=``: read as a one-line YAML value (the scenario files' reading, exact decimals).
    ``null`` (``~``) is none, which the game's model takes where the value may be none and refuses where not, as it
    does in a file; it is not the text "null"."""
    import yaml

    if raw == "":
        raise ScenarioError([f"{path}: no value after '='"], source=source)
    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        # An anchor or alias makes a value that holds itself (no message can say it back) or one named over
        # and over (``&b [*a,*a,...]``: millions of values from a line); a value typed on a line needs neither.
        if any(isinstance(e, yaml.AliasEvent) or getattr(e, "anchor", None) is not None
               for e in yaml.parse(raw, Loader=loader)):
            raise ScenarioError([f"{path}: anchors and aliases (&name, *name) are not read in a value set by path; "
                                 f"write the value out{_as_text(raw)}"], source=source)
        value = yaml.load(raw, Loader=loader)
        # none, as YAML writes it (null, ~, !!null): no value, as in a scenario file, where the model says whether
        # the value may be none; a text YAML reads as nothing at all (a comment: #red) stays the text typed
        written_none = value is None and yaml.compose(raw, Loader=loader) is not None
    except (yaml.YAMLError, ValueError, TypeError, KeyError, IndexError, OverflowError, AttributeError):
        # besides YAML's own errors, a tag its value does not fit: "!!int x", "!!bool maybe", "!!timestamp 2001-02-30"
        raise ScenarioError([f"{path}: cannot read the value {raw!r}{_as_text(raw)}"], source=source) from None
    bad_key = _bad_key(value)
    if bad_key is not None:
        raise ScenarioError([f"{path}: {bad_key}"], source=source)
    strange = _not_a_value(value)
    if strange == _NOT_FINITE:
        raise ScenarioError([f"{path}: {raw!r} is read as {strange}; a scenario's numbers are finite"], source=source)
    if strange is not None:
        quote = f' (to set it as text, quote it: "{raw}")' if '"' not in raw else ""
        raise ScenarioError([f"{path}: {raw!r} is read as {strange}, which no scenario value is; write text, a "
                             f"number, true or false, or a list of them{quote}"], source=source)
    return None if written_none else raw if value is None else value


_NOT_FINITE = "a number that is not finite (NaN or infinity)"


def _bad_key(value: Any, at: str = "") -> str | None:
    """What is wrong with a key of a mapping given as a value (None where nothing is): a mapping replaces a whole
    table or row (``{short: 3, medium: 4, long: 5}``), whose keys are names as a scenario writes them.

    >>> _bad_key({"short": 3}), _bad_key({1: 3}), _bad_key([{"a": {"": 1}}])
    (None, "a mapping's keys are names, got 1", "a mapping's keys are names, got an empty one at [0].a")
    """
    if isinstance(value, list):
        return next((found for i, item in enumerate(value) if (found := _bad_key(item, f"{at}[{i}]")) is not None),
                    None)
    if not isinstance(value, dict):
        return None
    where = f" at {at.lstrip('.')}" if at else ""
    for key, item in value.items():
        if not isinstance(key, str):
            return f"a mapping's keys are names, got {shown(key)}{where}"
        if not key.strip():
            return f"a mapping's keys are names, got an empty one{where}"
        found = _bad_key(item, f"{at}.{key}")
        if found is not None:
            return found
    return None


def _not_a_value(value: Any) -> str | None:
    """What a value YAML read is, where it is none that a scenario holds (None where it is one): a number that is
    not finite (``.nan``, ``.inf``), or what a tag or a bare date makes (``!!binary``, ``!!set``, ``2001-01-01``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return _NOT_FINITE
    if value is None or isinstance(value, str | int | float):
        return None
    if isinstance(value, list):
        return next((found for item in value if (found := _not_a_value(item)) is not None), None)
    if isinstance(value, dict):  # a table or row set whole, or an item of a list of mappings (slots, say)
        return next((found for item in value.values() if (found := _not_a_value(item)) is not None), None)
    kinds = {bytes: "binary data (!!binary)", set: "a set (!!set)", tuple: "the pairs of !!omap or !!pairs",
             datetime.date: "a date"}
    return next((said for kind, said in kinds.items() if isinstance(value, kind)), f"a {type(value).__name__}")


def _as_text(raw: str) -> str:
    """How to set as text a value read as something else: a name with markup (``[bold]x``) starts as a YAML list."""
    if raw[:1] in _YAML_SIGNS and '"' not in raw:
        return f' (to set it as text, quote it: "{raw}")'
    return ""


#: A value starting with one of these is read as YAML's list, mapping, alias, tag... rather than as text.
_YAML_SIGNS = frozenset("[]{}*&!@`|>%,#?:-")


def apply_settings(doc: dict[str, Any], settings: Iterable[Setting], source: str = "setting") -> dict[str, Any]:
    """A copy of the scenario mapping with each setting made, in order (a later one wins).

    Mappings missing under ``options`` are made (the options' defaults fill the rest); a list of items with
    ids is stepped into by id. A path that cannot be followed is an error naming it; a name the game does not
    know is left for the game's model to report, as in a file.
    """
    settings = list(settings)
    if not settings:
        return doc
    result = copy.deepcopy(doc)
    problems = []
    for setting in settings:
        try:
            _set(result, setting.steps, setting.value)
        except _PathError as exc:
            problems.append(f"{setting.path}: {exc}")
    if problems:
        raise ScenarioError(problems, source=source)
    return result


class _PathError(Exception):
    """A path that cannot be followed in this scenario (the message says where it stops)."""


def _set(doc: dict[str, Any], steps: tuple[str, ...], value: Any) -> None:
    if steps[0] == "ruleset":
        # Another game reads none of this scenario's units or options: its model would list every key as
        # wrong. The game is the scenario's own; a setting changes a value within it.
        raise _PathError("the game is not a setting: a setting changes a value of the scenario's game "
                         "(write a scenario of the other game)")
    here: Any = doc
    for depth, step in enumerate(steps[:-1]):
        here = _step(here, step, steps[: depth + 1], creating=steps[0] == "options")
    last = steps[-1]
    if isinstance(here, list):
        raise _PathError(f"{'.'.join(steps[:-1])} is a list: name an item by its id, then a field of it")
    if not isinstance(here, dict):
        raise _PathError(f"{'.'.join(steps[:-1])} is a single value; it has no {last!r}")
    here[last] = value


def _step(here: Any, step: str, walked: tuple[str, ...], *, creating: bool) -> Any:
    if isinstance(here, dict):
        if step not in here:
            if not creating:
                raise _PathError(f"no {'.'.join(walked)} in this scenario")
            here[step] = {}
        return here[step]
    if isinstance(here, list):
        items = [item for item in here if isinstance(item, dict) and str(item.get("id")) == step]
        if not items:
            ids = [str(item["id"]) for item in here if isinstance(item, dict) and "id" in item]
            known = f"; ids: {', '.join(ids[:12])}{', ...' if len(ids) > 12 else ''}" if ids else ""
            raise _PathError(f"no item with id {step!r} in {'.'.join(walked[:-1])}{known}")
        return items[0]
    raise _PathError(f"{'.'.join(walked[:-1])} is a single value; it has no {step!r}")


__all__ = ["MAX_SETTING_CHARS", "Setting", "apply_settings", "check_path", "given_twice", "parse_setting", "read_value",
           "shown"]
