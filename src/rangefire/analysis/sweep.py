"""Sweeps: the exact odds of one attack at every point of a grid of scenario values, in chunks.

A grid file names a scenario, an attack and axes: each axis a path of the scenario (the paths of
:mod:`rangefire.scenario.paths`: ``units.A.stands``, ``units.A.position``, ``options.discipline_pass``) and its
values, listed or as a range ``{from, to, step}``. The points are every combination of the axes' values, the
last axis turning fastest; point ``i`` is always the same combination, so results come in one order whatever
ran them. Each point is checked and its odds computed as :func:`rangefire.rulesets.load_battle` with the
point's settings, then ``ruleset.check`` and ``ruleset.odds`` would do it (the plain loop), and gives the same
fractions; what points share is computed once:

- the check (the geometry, the expensive part) is made once for each combination of the axes that can change
  it; an axis the game copies unread into one field of the plan (a discipline value, DC-5.2) is set in the plan
  instead (see :data:`SHORTCUTS`);
- the odds are computed once for each distinct content of the plan that the odds read (the dice, the need, the
  save, the target's state and discipline: DC-3 to DC-5), and the row's numbers with them.

Running the chunks on processes or a dask cluster, and writing them, is :mod:`rangefire.analysis.sweep_run`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import ConfigDict, Field, model_validator

from rangefire.core import Attack, LimitError, RangefireError, Ruleset, ScenarioError
from rangefire.core.numbers import dump_exact, fraction_str, parse_exact
from rangefire.rulesets import battle_from_mapping
from rangefire.scenario import Id, Model, read_scenario, validate
from rangefire.scenario.files import source_name
from rangefire.scenario.paths import Setting, check_path, shown

if TYPE_CHECKING:
    import pyarrow as pa

#: A grid of more points than this is refused before any is computed.
MAX_POINTS = 10_000_000
MAX_AXES = 12
#: Values validated one by one before the sweep starts, shared among the axes (each axis's first and last among
#: its share, at least 20); the values of an axis of more are checked by the game's model as their points are
#: computed. About a second's work on this machine (a scenario validated in 1.5 ms).
MAX_VALIDATED = 2_000
#: Thresholds of an "at least N" column are at most this (no outcome of any game comes near it).
MAX_THRESHOLD = 10_000
#: Plans and rows kept in a worker's memory; a cache that fills up is emptied and filled again.
MAX_CACHED_PLANS = 50_000
MAX_CACHED_ROWS = 400_000

#: The shape of a grid's hash: a change here makes every interrupted sweep start over.
_HASH_VERSION = 1


class SweepError(RangefireError):
    """A sweep that cannot start or go on: an output that cannot be written, a folder of another grid's
    chunks, a cluster that does not answer, a library missing, a point whose values the game refuses."""

    kind = "sweep"


# -- the grid file -------------------------------------------------------------------------------------
class Range(Model):
    """An axis's values from ``from`` to ``to`` (a step must land on it) by ``step``; each a number,
    or for a point (``units.A.position``) a list of numbers, component by component."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    start: Any = Field(alias="from")
    to: Any
    step: Any


class Axis(Model):
    """One path of the scenario and the values it takes: listed (``values``) or a ``range``."""

    path: Annotated[str, Field(min_length=1, max_length=200)]
    values: Annotated[list[Any], Field(min_length=1, max_length=MAX_POINTS)] | None = None
    range: Range | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Axis:
        if (self.values is None) == (self.range is None):
            raise ValueError("give either values: [...] or range: {from, to, step}")
        return self


class Record(Model):
    """What each row records: the mean of each outcome named, its "at least N" odds, each event's probability
    (by default every outcome's mean, every event, and the main outcome at least 1)."""

    outcomes: Annotated[list[str], Field(max_length=20)] | None = None
    events: Annotated[list[str], Field(max_length=20)] | None = None
    at_least: dict[str, Annotated[list[Annotated[int, Field(strict=True, ge=0, le=MAX_THRESHOLD)]],
                                  Field(min_length=1, max_length=50)]] | None = None


class GridFile(Model):
    """A sweep as written in a grid file (YAML, TOML or JSON)."""

    scenario: Annotated[str, Field(min_length=1, max_length=1000)]
    attacker: Id
    target: Id | None = None
    axes: Annotated[list[Axis], Field(min_length=1, max_length=MAX_AXES)]
    record: Record = Record()


# -- axes as the sweep uses them -----------------------------------------------------------------------------
@dataclass(frozen=True)
class AxisValues:
    """An axis's values by index: listed, or computed from a range's start and step (a range of millions of
    values is never held in memory)."""

    path: str
    listed: tuple[Any, ...] | None
    start: tuple[Fraction, ...] = ()
    step: tuple[Fraction, ...] = ()
    count: int = 0
    scalar: bool = True

    def __len__(self) -> int:
        return len(self.listed) if self.listed is not None else self.count

    def value(self, index: int) -> Any:
        """The value set at this index, as a scenario file would hold it (``12.5``, ``[10, 2.5]``, ``true``)."""
        if self.listed is not None:
            return self.listed[index]
        parts = [dump_exact(s + d * index) for s, d in zip(self.start, self.step, strict=True)]
        return parts[0] if self.scalar else parts

    def label(self, index: int) -> str:
        """The value as a person types it, the text of its column where it is not a whole number."""
        return shown(self.value(index))

    @property
    def kind(self) -> str:
        """The column's type: ``int`` where every value is a whole number, ``bool`` where every one is true or
        false, ``str`` (the value as typed) otherwise."""
        if self.listed is not None:
            if all(isinstance(v, bool) for v in self.listed):
                return "bool"
            return "int" if all(isinstance(v, int) and not isinstance(v, bool) for v in self.listed) else "str"
        whole = all(s.denominator == 1 and d.denominator == 1 for s, d in zip(self.start, self.step, strict=True))
        return "int" if self.scalar and whole else "str"

    def spec(self) -> Any:
        """What the grid's hash reads of the axis (a range by its ends, not its million values)."""
        if self.listed is not None:
            return {"path": self.path, "values": list(self.listed)}
        return {"path": self.path, "start": [str(s) for s in self.start], "step": [str(d) for d in self.step],
                "count": self.count, "scalar": self.scalar}


def range_values(path: str, spec: Range, where: str) -> AxisValues:
    """The values of a range, counted before any is made: exact decimals (``0.1`` steps land exactly on
    ``to``); a range of more than :data:`MAX_POINTS` values is refused."""
    scalar = not isinstance(spec.start, list)
    parts: dict[str, list[Fraction]] = {}
    for key, raw in (("from", spec.start), ("to", spec.to), ("step", spec.step)):
        items = raw if isinstance(raw, list) else [raw]
        if isinstance(raw, list) == scalar or not 1 <= len(items) <= 4:
            raise ScenarioError([f"{where}.{key}: must be a number, as 'from' is"
                                 if scalar else f"{where}.{key}: must be a list of 1 to 4 numbers, as 'from' is"])
        try:
            parts[key] = [parse_exact(v) for v in items]
        except ValueError as exc:
            raise ScenarioError([f"{where}.{key}: {exc}"]) from None
    start, stop, step = parts["from"], parts["to"], parts["step"]
    if not len(start) == len(stop) == len(step):
        raise ScenarioError([f"{where}: from, to and step must have as many numbers each"])
    counts = set()
    for i, (a, b, d) in enumerate(zip(start, stop, step, strict=True)):
        at = f"{where}.step" if scalar else f"{where}.step[{i}]"
        if d == 0:
            if a != b:
                raise ScenarioError([f"{at}: is 0, but from and to differ"])
            continue
        if (b - a) / d < 0:
            raise ScenarioError([f"{at}: {dump_exact(d)} leads away from 'to' ({dump_exact(a)} to {dump_exact(b)})"])
        if ((b - a) / d).denominator != 1:  # 1 to 8 by 3 would stop at 7: a range ends on its 'to'
            steps = (b - a) // d
            last, past = a + d * steps, a + d * (steps + 1)
            raise ScenarioError([f"{at}: {dump_exact(d)} from {dump_exact(a)} never lands on 'to' {dump_exact(b)} "
                                 f"(it stops at {dump_exact(last)}); make 'to' {dump_exact(last)} or "
                                 f"{dump_exact(past)}, or a step that lands on it"])
        counts.add(int((b - a) / d) + 1)
    if not counts:
        raise ScenarioError([f"{where}.step: must not be 0"])
    if len(counts) > 1:
        listed = ", ".join(map(str, sorted(counts)))
        raise ScenarioError([f"{where}: the numbers give different counts of values ({listed}); make their steps "
                             "agree"])
    count = counts.pop()
    if count > MAX_POINTS:
        raise LimitError(f"{where}: {count:,} values; a sweep has at most {MAX_POINTS:,} points")
    return AxisValues(path, None, tuple(start), tuple(step), count, scalar)


# -- game knowledge: what the check copies unread into the plan, what the odds read -----------------------
@dataclass(frozen=True)
class Copied:
    """A scenario value the game's check copies into one field of the plan and reads for nothing else (for a
    unit's value, only when that unit is the plan's target)."""

    field: str
    of_target: bool = False


def _same_odds(fields: Sequence[Any]) -> tuple[Any, ...]:
    """By default plans equal in every field the odds read have the same odds."""
    return tuple(fields)


@dataclass(frozen=True)
class Shortcuts:
    """What a game lets a sweep share between points.

    ``options`` and ``target``: paths under ``options.`` and fields of the target unit that the check copies
    into the plan, each with the plan's field; ``odds_fields``: every field of the plan the odds read, and
    ``odds_key`` what of their values the odds depend on (plans of equal keys have the same odds). Tests hold
    each against the plain loop and the game's code."""

    options: Mapping[str, str]
    target: Mapping[str, str]
    odds_fields: tuple[str, ...]
    odds_key: Callable[[Sequence[Any]], tuple[Any, ...]] = _same_odds
    #: Whether a unit's fields (other than its id and side) are checked by the unit's model alone: nothing
    #: of the battle's validation reads them, so a unit changed is validated on its own.
    units_alone: bool = False

    def copied(self, path: str, attacker: str) -> Copied | None:
        if path in self.options:
            return Copied(self.options[path])
        steps = path.split(".")
        if len(steps) == 3 and steps[0] == "units" and steps[1] != attacker and steps[2] in self.target:
            return Copied(self.target[steps[2]], of_target=True)
        return None


def _volley_odds_key(fields: Sequence[Any]) -> tuple[Any, ...]:
    """What a Dress on the Colors volley's odds depend on: the to-hit dice (stands and enfilade dice alike
    [DC-3.1, DC-6.2]), the need, the save, the target's stands and micro-hit, the discipline check's dice, and
    its margin: the check fails when the dice + discipline (+ the penalty, -1 by the rules, if disordered) fall
    short of the pass mark, so only pass - discipline - penalty counts [DC-5.2]; and the house rules of the dice,
    a second roll [DC-3.4] and natural 6s unsaved [DC-4.1]."""
    (stands, enfilade, need, save, target_stands, micro_hit, disordered, discipline, dice, pass_mark, per_stand,
     penalty, reroll, sixes_unsaved) = fields
    return (stands * per_stand + enfilade, need, save, target_stands, micro_hit, dice,
            pass_mark - discipline - (penalty if disordered else 0), reroll, sixes_unsaved)


#: By game. Dress on the Colors: the discipline check's dice and pass mark, and the target's discipline,
#: disorder and micro-hit, go into the plan as they are [DC-4.3, DC-5.2] (the check reads none of them: the
#: firer's disorder, a to-hit modifier [DC-3.3], is not among them); the odds read the dice, need and save and
#: the target's state [DC-3 to DC-5].
SHORTCUTS: dict[str, Shortcuts] = {
    "dress-on-the-colors": Shortcuts(
        options={"options.discipline_dice": "discipline_dice", "options.discipline_pass": "discipline_pass"},
        target={"discipline": "target_discipline", "disordered": "target_disordered",
                "micro_hits": "target_micro_hits"},
        odds_fields=("stands_firing", "enfilade_dice", "need", "save", "target_stands", "target_micro_hits",
                     "target_disordered", "target_discipline", "discipline_dice", "discipline_pass", "dice_per_stand",
                     "discipline_disordered", "reroll_to_hit", "sixes_ignore_cover"),
        odds_key=_volley_odds_key,
        units_alone=True,  # the battle model has no validator of its own; its raw checks read ids and sides
    ),
}


# -- a sweep, ready to run --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sweep:
    """A grid read and checked: the scenario's mapping, the attack, the axes, the quantities each row records
    (``outcomes``' means, ``at_least`` thresholds, ``events``), and for each axis the value its game copies
    into the plan (``copied``, None where the check must be made again). Plain data: sent to every worker."""

    doc: dict[str, Any]
    source: str
    ruleset: str
    attacker: str
    target: str | None
    axes: tuple[AxisValues, ...]
    outcomes: tuple[str, ...]
    at_least: tuple[tuple[str, int], ...]
    events: tuple[str, ...]
    copied: tuple[tuple[Copied, tuple[Any, ...]] | None, ...]
    grid_hash: str

    @property
    def points(self) -> int:
        total = 1
        for axis in self.axes:
            total *= len(axis)
        return total

    def columns(self) -> list[str]:
        """The columns of every row, in order."""
        names = ["point", *(a.path for a in self.axes), "target", "legal", "refusal_clause", "refusal"]
        for quantity in self.quantities():
            names += [quantity, f"{quantity}_float"]
        return names

    def quantities(self) -> list[str]:
        """The names of the recorded numbers, each a column of exact fractions beside one of floats."""
        return ([f"{o}_mean" for o in self.outcomes] + [f"{o}_at_least_{n}" for o, n in self.at_least]
                + list(self.events))

    def settings(self, index: int) -> list[Setting]:
        """The settings of point ``index`` (the last axis turning fastest)."""
        out = []
        for axis, digit in zip(self.axes, self.digits(index), strict=True):
            out.append(Setting(axis.path, axis.value(digit)))
        return out

    def digits(self, index: int) -> list[int]:
        digits = []
        for axis in reversed(self.axes):
            index, digit = divmod(index, len(axis))
            digits.append(digit)
        return digits[::-1]


def load_grid(path: str | Path) -> Sweep:
    """Read a grid file and its scenario (named relative to the grid file) and check them whole, before any
    point is computed: the file's keys, every path, the values of each axis (every one of an axis of at most
    :data:`MAX_VALIDATED`, against the game's model), the attack, the names recorded, the grid's size."""
    source = source_name(path)
    grid = validate(GridFile, read_scenario(path), source=source)
    scenario = Path(grid.scenario)
    if not scenario.is_absolute():
        scenario = Path(path).resolve().parent / scenario
    return sweep_from(grid, read_scenario(scenario), scenario_source=str(grid.scenario), source=source)


def sweep_from(grid: GridFile, doc: dict[str, Any], scenario_source: str = "scenario",
               source: str = "grid") -> Sweep:
    """A :class:`Sweep` from a grid already read and its scenario's mapping (see :func:`load_grid`)."""
    ruleset, battle = battle_from_mapping(doc, source=scenario_source)
    attack = ruleset.attack(grid.attacker, grid.target)
    ids = ruleset.unit_ids(battle)
    for role, uid in (("attacker", grid.attacker), ("target", grid.target)):
        if uid is not None and uid not in ids:
            raise ScenarioError([f"{role}: {uid!r} is not in {scenario_source} (units: {', '.join(ids)})"],
                                source=source)
    axes = []
    seen: dict[str, int] = {}
    for i, axis in enumerate(grid.axes):
        where = f"axes[{i}]"
        try:
            check_path(axis.path)
        except ScenarioError as exc:
            raise ScenarioError([f"{where}.path: {p}" for p in exc.problems], source=source) from None
        if axis.path in seen:
            raise ScenarioError([f"{where}.path: {axis.path} is already axes[{seen[axis.path]}]"], source=source)
        seen[axis.path] = i
        if axis.values is not None:
            axes.append(AxisValues(axis.path, tuple(axis.values)))
        else:
            assert axis.range is not None
            try:
                axes.append(range_values(axis.path, axis.range, f"{where}.range"))
            except ScenarioError as exc:
                raise ScenarioError(exc.problems, source=source) from None
            except LimitError as exc:
                raise LimitError(f"{source}: {exc}") from None
    total = 1
    for values in axes:
        total *= len(values)
        if total > MAX_POINTS:
            sizes = " x ".join(f"{len(a):,}" for a in axes)
            raise LimitError(f"{source}: {sizes} points (axes[0] to axes[{len(axes) - 1}]); a sweep has at most "
                             f"{MAX_POINTS:,} points")
    shortcuts = SHORTCUTS.get(ruleset.key)
    copied = [_check_axis(ruleset, doc, scenario_source, source, f"axes[{i}]", axis, shortcuts, grid.attacker,
                          len(axes)) for i, axis in enumerate(axes)]
    outcomes, at_least, events = _recorded(ruleset, grid.record, source)
    del attack  # made above only to refuse an attack the game cannot describe, before any point
    content = {"version": _HASH_VERSION, "scenario": doc, "attacker": grid.attacker, "target": grid.target,
               "axes": [a.spec() for a in axes], "outcomes": outcomes, "at_least": at_least, "events": events}
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()
    return Sweep(doc=doc, source=scenario_source, ruleset=ruleset.key, attacker=grid.attacker, target=grid.target,
                 axes=tuple(axes), outcomes=tuple(outcomes), at_least=tuple(at_least), events=tuple(events),
                 copied=tuple(copied), grid_hash=digest)


def _check_axis(ruleset: Ruleset[Any, Any], doc: dict[str, Any], scenario_source: str, source: str, where: str,
                axis: AxisValues, shortcuts: Shortcuts | None, attacker: str,
                axes: int) -> tuple[Copied, tuple[Any, ...]] | None:
    """Each value of the axis (up to its share of :data:`MAX_VALIDATED`, the last included) set alone in the
    scenario and validated by the game's model: an unknown path or a bad value names the axis. Where the game
    copies the axis's value into the plan unread, the values as the model reads them (``true`` for ``yes``)."""
    n, share = len(axis), max(20, MAX_VALIDATED // axes)
    indices = range(n) if n <= share else sorted({*range(0, n, -(-n // share)), n - 1})
    shortcut = shortcuts.copied(axis.path, attacker) if shortcuts else None
    read = []
    for index in indices:
        setting = Setting(axis.path, axis.value(index))
        try:
            _, battle = battle_from_mapping(doc, source=scenario_source, settings=[setting])
        except ScenarioError as exc:
            problems = "; ".join(exc.problems[:3]) + ("; ..." if len(exc.problems) > 3 else "")
            raise ScenarioError([f"{where} ({axis.path}), value {axis.label(index)}: {problems}"],
                                source=source) from None
        if shortcut is not None:
            read.append(_read(battle, axis.path))
    if shortcut is None or n > share:  # a value copied into the plan unvalidated could be one no file could hold
        return None
    return shortcut, tuple(read)


def _read(battle: Any, path: str) -> Any:
    """The value at ``path`` in a validated battle (a list of items stepped into by id)."""
    here = battle
    for step in path.split("."):
        if isinstance(here, tuple):
            here = next(item for item in here if getattr(item, "id", None) == step)
        else:
            here = getattr(here, step)
    return here


def _recorded(ruleset: Ruleset[Any, Any], record: Record,
              source: str) -> tuple[list[str], list[tuple[str, int]], list[str]]:
    outcomes = list(ruleset.outcome_names) if record.outcomes is None else record.outcomes
    events = list(ruleset.event_names) if record.events is None else record.events
    at_least = {ruleset.main_outcome: [1]} if record.at_least is None else record.at_least
    problems = []
    for key, names, known in (("outcomes", outcomes, ruleset.outcome_names), ("events", events, ruleset.event_names),
                              ("at_least", list(at_least), ruleset.outcome_names)):
        for i, name in enumerate(names):
            if name not in known:
                at = f"record.{key}[{i}]" if key != "at_least" else f"record.at_least.{name}"
                what = "an event" if key == "events" else "an outcome"
                problems.append(f"{at}: {name!r} is not {what} of {ruleset.key} ({', '.join(known)})")
    if problems:
        raise ScenarioError(problems, source=source)
    pairs = [(name, n) for name, ns in at_least.items() for n in dict.fromkeys(ns)]
    return list(dict.fromkeys(outcomes)), pairs, list(dict.fromkeys(events))


# -- computing points -----------------------------------------------------------------------------------
@dataclass
class _Planned:
    """A check shared by points: the row's target, legality and refusal (``head``), and for a legal one the
    plan, its odds-relevant fields, where each copied axis goes into them, and the numbers found so far by the
    copied axes' values."""

    head: tuple[Any, ...]
    plan: Any = None
    fields: list[Any] = dataclasses.field(default_factory=list)
    patches: list[tuple[int, int, tuple[Any, ...]]] = dataclasses.field(default_factory=list)
    numbers: dict[tuple[int, ...], tuple[Any, ...]] = dataclasses.field(default_factory=dict)
    pick: Callable[[Sequence[int]], tuple[int, ...]] = lambda digits: ()


class Evaluator:
    """Computes the rows of a sweep's points, sharing checks and odds between them (one per worker process,
    kept between chunks)."""

    def __init__(self, sweep: Sweep) -> None:
        from rangefire.rulesets import find_ruleset

        self.sweep = sweep
        self.ruleset: Ruleset[Any, Any] = find_ruleset(sweep.ruleset)
        self.attack = self.ruleset.attack(sweep.attacker, sweep.target)
        self.shortcuts = SHORTCUTS.get(sweep.ruleset)
        self.fields = self.shortcuts.odds_fields if self.shortcuts else None
        self.checked_axes = [i for i, c in enumerate(sweep.copied) if c is None]
        self.copied_axes = [(i, c) for i, c in enumerate(sweep.copied) if c is not None]
        self.plans: dict[tuple[int, ...], _Planned] = {}
        self.rows: dict[Any, tuple[Any, ...]] = {}
        self.blank = (None,) * (2 * len(sweep.quantities()))
        self.units = self._units_alone()

    def _units_alone(self) -> tuple[Any, dict[str, tuple[int, dict[str, Any]]]] | None:
        """Where every axis the check reads is a field of a unit that its model checks alone: the scenario's
        battle, validated once, and each unit's place and mapping, to validate a changed unit on its own."""
        if self.shortcuts is None or not self.shortcuts.units_alone:
            return None
        for i in self.checked_axes:
            steps = self.sweep.axes[i].path.split(".")
            if len(steps) != 3 or steps[0] != "units" or steps[2] in ("id", "side"):
                return None
        _, battle = battle_from_mapping(self.sweep.doc, source=self.sweep.source)
        raw = [u for u in self.sweep.doc.get("units", ()) if isinstance(u, dict)]
        places = {str(u.get("id")): (i, u) for i, u in enumerate(raw)}
        if len(raw) != len(battle.units) or any(str(u.id) not in places for u in battle.units):  # type: ignore[attr-defined]
            return None
        return battle, places

    def battle(self, settings: Sequence[Setting]) -> Any:
        """The battle with these settings: each changed unit validated alone where the game allows it (the
        same battle as the whole scenario validated: a test holds them equal), else the whole scenario."""
        if self.units is not None:
            base, places = self.units
            changed: dict[str, dict[str, Any]] = {}
            for setting in settings:
                _, uid, field = setting.path.split(".")
                changed.setdefault(uid, dict(places[uid][1]))[field] = setting.value
            units = list(base.units)
            try:
                for uid, mapping in changed.items():
                    index = places[uid][0]
                    units[index] = type(units[index]).model_validate(mapping)
            except ValueError:  # a value its model refuses: the whole scenario's validation says where
                pass
            else:
                return base.model_copy(update={"units": tuple(units)})
        return battle_from_mapping(self.sweep.doc, source=self.sweep.source, settings=settings)[1]

    def planned(self, digits: Sequence[int]) -> _Planned:
        """The check at these axis values (those the check reads; the copied ones are set by :meth:`numbers`)."""
        key = tuple(digits[i] for i in self.checked_axes)
        found = self.plans.get(key)
        if found is not None:
            return found
        settings = [Setting(self.sweep.axes[i].path, self.sweep.axes[i].value(digits[i])) for i in self.checked_axes]
        checked = self.ruleset.check(self.battle(settings), self.attack)
        if checked.plan is None:
            reasons = "; ".join(f"{r.clause}: {r.reason}" for r in checked.refusals)
            found = _Planned((checked.target, False, checked.refusals[0].clause, reasons))
        else:
            plan = checked.plan
            found = _Planned((plan.target, True, None, None), plan)
            if self.fields is not None:
                found.fields = [getattr(plan, f) for f in self.fields]
                for axis, (copied, values) in self.copied_axes:
                    if not copied.of_target or self.sweep.axes[axis].path.split(".")[1] == plan.target:
                        found.patches.append((axis, self.fields.index(copied.field), values))
                found.pick = _picker([axis for axis, _, _ in found.patches])
        if len(self.plans) >= MAX_CACHED_PLANS:
            self.plans.clear()
        self.plans[key] = found
        return found

    def numbers(self, planned: _Planned, digits: Sequence[int]) -> tuple[Any, ...]:
        """The recorded numbers of a legal point: exact text and float of each quantity."""
        copied = planned.pick(digits)
        found = planned.numbers.get(copied)
        if found is not None:
            return found
        plan = planned.plan
        key: Any = plan
        if self.shortcuts is not None:
            fields = list(planned.fields)
            for axis, position, values in planned.patches:
                fields[position] = values[digits[axis]]
            key = self.shortcuts.odds_key(fields)
        else:
            try:
                hash(plan)
            except TypeError:  # a plan holding a mapping: nothing to share it by
                key = None
        found = self.rows.get(key) if key is not None else None
        if found is None:
            if planned.patches:
                assert self.fields is not None
                plan = dataclasses.replace(plan, **{self.fields[p]: fields[p] for _, p, _ in planned.patches})
            found = self._numbers(plan)
            if len(self.rows) >= MAX_CACHED_ROWS:
                self.rows.clear()
            if key is not None:
                self.rows[key] = found
        if len(planned.numbers) < MAX_CACHED_PLANS:
            planned.numbers[copied] = found
        return found

    def _numbers(self, plan: Any) -> tuple[Any, ...]:
        odds = self.ruleset.odds(plan)
        values: list[Fraction] = []
        dists = {name: _probabilities(odds.outcomes[name]) for name in {*self.sweep.outcomes,
                                                                         *(o for o, _ in self.sweep.at_least)}}
        for name in self.sweep.outcomes:
            values.append(sum((Fraction(k) * p for k, p in dists[name].items()), Fraction(0)))
        for name, n in self.sweep.at_least:
            values.append(sum((p for k, p in dists[name].items() if k >= n), Fraction(0)))
        values += [Fraction(odds.events[name]) for name in self.sweep.events]
        out: list[Any] = []
        for value in values:
            out += [fraction_str(value), float(value)]
        return tuple(out)

    def chunk(self, start: int, stop: int) -> dict[str, list[Any]]:
        """The rows of points ``start`` to ``stop - 1``, as columns."""
        sweep = self.sweep
        labels = [_Labels(axis) for axis in sweep.axes]
        rows = []
        last: tuple[int, ...] | None = None
        planned: _Planned | None = None
        checked = _picker(self.checked_axes)
        for index, digits in zip(range(start, stop), _odometer(sweep, start), strict=False):
            key = checked(digits)
            if key != last or planned is None:  # the copied axes turn fastest: most points share the last check
                try:
                    planned = self.planned(digits)
                except RangefireError as exc:  # a combination of values the game refuses, each alone passed
                    said = ", ".join(map(str, sweep.settings(index)))
                    raise SweepError(f"point {index} ({said}): {exc}") from None
                last = key
            if planned.plan is None:
                numbers = self.blank
            else:
                numbers = planned.numbers.get(planned.pick(digits)) or self.numbers(planned, digits)
            rows.append((index, *map(dict.__getitem__, labels, digits), *planned.head, *numbers))
        names = sweep.columns()
        if not rows:
            return {name: [] for name in names}
        return {name: list(column) for name, column in zip(names, zip(*rows, strict=True), strict=True)}


def _picker(indices: Sequence[int]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """A function picking these positions of a tuple, as a tuple (itemgetter's speed, whatever their number)."""
    if not indices:
        return lambda digits: ()
    if len(indices) == 1:
        only = indices[0]
        return lambda digits: (digits[only],)
    return operator.itemgetter(*indices)


class _Labels(dict[int, Any]):
    """An axis's column values by index, each worked out at its first use (whole numbers and true/false as
    they are, anything else as typed); a dict, so that a value found costs one lookup in C."""

    def __init__(self, axis: AxisValues) -> None:
        super().__init__()
        self.axis = axis
        self.as_is = axis.kind != "str"

    def __missing__(self, index: int) -> Any:
        found = self[index] = self.axis.value(index) if self.as_is else self.axis.label(index)
        return found


def _odometer(sweep: Sweep, start: int) -> Iterator[tuple[int, ...]]:
    """The axes' indices of point ``start``, then of each point after it (the last axis turning fastest)."""
    digits = sweep.digits(start)
    sizes = [len(a) for a in sweep.axes]
    while True:
        yield tuple(digits)
        for a in range(len(sizes) - 1, -1, -1):
            digits[a] += 1
            if digits[a] < sizes[a]:
                break
            digits[a] = 0
        else:
            return


def _probabilities(dist: Any) -> dict[int, Fraction]:
    """An outcome's exact distribution, ``{value: probability}``."""
    if hasattr(dist, "probabilities"):
        return {int(k): Fraction(p) for k, p in dist.probabilities().items()}
    return {int(k): Fraction(p) for k, p in dist.to_dict()["distribution"].items()}


#: One evaluator a process, kept while the sweep it serves runs (its caches are what chunks share).
_EVALUATORS: dict[str, Evaluator] = {}


def evaluator(sweep: Sweep) -> Evaluator:
    found = _EVALUATORS.get(sweep.grid_hash)
    if found is None:
        _EVALUATORS.clear()
        found = _EVALUATORS[sweep.grid_hash] = Evaluator(sweep)
    return found


def run_chunk(sweep: Sweep, start: int, stop: int) -> pa.Table:
    """The rows of points ``start`` to ``stop - 1`` as an Arrow table (what a worker computes)."""
    import pyarrow as pa

    return pa.Table.from_pydict(evaluator(sweep).chunk(start, stop), schema=schema(sweep))


def schema(sweep: Sweep) -> pa.Schema:
    """The columns' types: the point's index, the axes (whole numbers, true/false or the value as typed),
    the target, legality and refusal, then each quantity as an exact fraction (text) and a float."""
    import pyarrow as pa

    kinds = {"int": pa.int64(), "bool": pa.bool_(), "str": pa.string()}
    fields = [pa.field("point", pa.int64(), nullable=False)]
    fields += [pa.field(a.path, kinds[a.kind]) for a in sweep.axes]
    fields += [pa.field("target", pa.string()), pa.field("legal", pa.bool_()),
               pa.field("refusal_clause", pa.string()), pa.field("refusal", pa.string())]
    for quantity in sweep.quantities():
        fields += [pa.field(quantity, pa.string()), pa.field(f"{quantity}_float", pa.float64())]
    return pa.schema(fields)


def plain_rows(sweep: Sweep, points: Sequence[int]) -> list[dict[str, Any]]:
    """The rows of these points computed plainly, nothing shared: the scenario loaded with the point's
    settings, checked, its odds computed (the reference the shortcuts are held to)."""
    from rangefire.rulesets import find_ruleset

    ruleset = find_ruleset(sweep.ruleset)
    numbers_of = Evaluator(sweep)._numbers  # the odds as a row's numbers, nothing kept between points
    rows = []
    for index in points:
        _, battle = battle_from_mapping(sweep.doc, source=sweep.source, settings=sweep.settings(index))
        checked = ruleset.check(battle, Attack(sweep.attacker, sweep.target))
        row: dict[str, Any] = {"point": index, "target": checked.target, "legal": checked.is_legal}
        for axis, digit in zip(sweep.axes, sweep.digits(index), strict=True):
            row[axis.path] = axis.value(digit) if axis.kind != "str" else axis.label(digit)
        if checked.plan is None:
            row["refusal_clause"] = checked.refusals[0].clause
            row["refusal"] = "; ".join(f"{r.clause}: {r.reason}" for r in checked.refusals)
            row.update({name: None for name in sweep.columns()[len(sweep.axes) + 5:]})
        else:
            row["refusal_clause"] = row["refusal"] = None
            numbers = numbers_of(checked.plan)
            row.update(zip(sweep.columns()[len(sweep.axes) + 5:], numbers, strict=True))
        rows.append(row)
    return rows


__all__ = ["MAX_POINTS", "SHORTCUTS", "Axis", "AxisValues", "Evaluator", "GridFile", "Range", "Record",
           "Sweep", "SweepError", "evaluator", "load_grid", "plain_rows", "range_values", "run_chunk",
           "schema", "sweep_from"]
