"""A table of odds over a grid of values: every combination of the values given for some paths of the
scenario (a unit's stands, its position, a cover grade, a house rule), the mean and the "at least N" odds of each
outcome and the events' probabilities, exactly.

Many combinations come to the same plan (a cover grade of terrain the line of fire does not cross, two distances
in one range band with nothing else changed): each distinct plan's odds are worked out once. The grid is bounded
(:data:`MAX_COMBINATIONS`); grids beyond it are a sweep's work, in chunks.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rangefire.analysis.compare import battle_name, settings_text, value_text
from rangefire.core import NO_CHOICES, Check, LimitError, Odds, RangefireError
from rangefire.core.numbers import with_float
from rangefire.core.options import HouseRule, house_rules
from rangefire.dice.dist import quantile, square_root, variance
from rangefire.rulesets import battle_from_mapping
from rangefire.scenario.paths import Setting, given_twice

#: A table holds at most this many combinations (each a scenario validated and an attack checked, its odds
#: worked out unless another row shares its plan); a larger grid is refused before any is worked out.
MAX_COMBINATIONS = 1000


@dataclass(frozen=True)
class Axis:
    """One path of the scenario and the values it takes in the table, in order."""

    path: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class TableRow:
    """One combination: the settings made, the attack's check, and its odds where legal (None where refused)."""

    settings: tuple[Setting, ...]
    check: Check
    odds: Odds | None
    _kept: dict[str, tuple[Fraction, float, int, int]] = field(default_factory=dict, compare=False, repr=False)

    def mean(self, outcome: str) -> Fraction | None:
        return None if self.odds is None else self.odds.outcomes[outcome].mean()

    def at_least(self, outcome: str, n: int) -> Fraction | None:
        return None if self.odds is None else self.odds.outcomes[outcome].at_least(n)

    def at_most(self, outcome: str, n: int) -> Fraction | None:
        return None if self.odds is None else self.odds.outcomes[outcome].at_most(n)  # type: ignore[attr-defined]

    def variance(self, outcome: str) -> Fraction | None:
        found = self._spread(outcome)
        return None if found is None else found[0]

    def sd(self, outcome: str) -> float | None:
        """The standard deviation: the square root of the exact variance, a float."""
        found = self._spread(outcome)
        return None if found is None else found[1]

    def median(self, outcome: str) -> int | None:
        """The least value of the outcome with at least half the odds at or below it."""
        found = self._spread(outcome)
        return None if found is None else found[2]

    def percentile_90(self, outcome: str) -> int | None:
        """The least value of the outcome with at least nine tenths of the odds at or below it."""
        found = self._spread(outcome)
        return None if found is None else found[3]

    def _spread(self, outcome: str) -> tuple[Fraction, float, int, int] | None:
        """The variance, standard deviation, median and 90th percentile of an outcome, from one reading of its
        distribution, kept: the JSON and the records both ask for them."""
        if self.odds is None:
            return None
        found = self._kept.get(outcome)
        if found is None:
            probabilities = self.odds.outcomes[outcome].probabilities()
            spread = variance(probabilities)
            found = self._kept[outcome] = (spread, square_root(spread), int(quantile(probabilities, Fraction(1, 2))),
                                           int(quantile(probabilities, Fraction(9, 10))))
        return found

    def event(self, name: str) -> Fraction | None:
        return None if self.odds is None else self.odds.events.get(name)


@dataclass(frozen=True)
class OddsTable:
    """The rows of a grid, in the order of the axes (the last varies fastest), and how many distinct plans
    were worked out (``computed``; at most one per row, fewer where rows share a plan)."""

    ruleset: str
    attacker: str
    target: str | None
    axes: tuple[Axis, ...]
    rows: tuple[TableRow, ...]
    outcome_names: tuple[str, ...]
    event_names: tuple[str, ...]
    computed: int
    conditions: Mapping[str, str] = field(default_factory=dict)
    #: The battle's name as its scenario gives it, or "" where it gives none.
    battle: str = ""
    #: The house rules in force in every row: the scenario's (with its ``--set``), those varied left out.
    house_rules: tuple[HouseRule, ...] = ()
    #: The game's main outcome, the one a chart draws unless told another.
    main_outcome: str = ""
    #: The unit lengths are measured in (positions, the range): "in", "steps", or None.
    length_unit: str | None = None

    def thresholds(self, outcome: str) -> list[int]:
        """The N of "at least N" worth a column: from 1 to the greatest value any row's outcome takes."""
        return list(range(1, self._tops.get(outcome, 0) + 1))

    def thresholds_at_most(self, outcome: str) -> list[int]:
        """The N of "at most N" worth a column: from the least value any row's outcome takes (0 at most) to one
        below the greatest (at most the greatest is certain)."""
        return list(range(min(0, self._bottoms.get(outcome, 0)), self._tops.get(outcome, 0)))

    @functools.cached_property
    def _tops(self) -> dict[str, int]:
        """The greatest value each outcome takes in any row, found once: the JSON, the records and the columns ask
        it for every row, and asking every row's distribution each time made a table of 1,000 rows take a minute."""
        return self._ends[1]

    @functools.cached_property
    def _bottoms(self) -> dict[str, int]:
        return self._ends[0]

    @functools.cached_property
    def _ends(self) -> tuple[dict[str, int], dict[str, int]]:
        """The least and the greatest value each outcome takes in any row."""
        bottoms: dict[str, int] = {}
        tops: dict[str, int] = {}
        for row in self.rows:
            if row.odds is not None:
                for name in self.outcome_names:
                    values = list(row.odds.outcomes[name])  # type: ignore[call-overload]  # its values, in order
                    if values:
                        bottoms[name] = min(bottoms.get(name, 0), values[0])
                        tops[name] = max(tops.get(name, 0), values[-1])
        return bottoms, tops

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the axes, then a row per combination with its settings, check and exact values (each
        with its float beside it, ``mean_float``...)."""
        rows = []
        for row in self.rows:
            item: dict[str, Any] = {"settings": {s.path: s.value for s in row.settings}, "legal": row.odds is not None,
                                    "target": row.check.target, "refusals": [r.to_dict() for r in row.check.refusals]}
            if row.odds is not None:
                item["outcomes"] = {o: {**with_float("mean", row.mean(o) or 0),
                                        **with_float("at_least", {n: row.at_least(o, n) or 0
                                                                  for n in self.thresholds(o)}),
                                        **with_float("variance", row.variance(o) or 0), "sd": row.sd(o),
                                        **with_float("median", row.median(o) or 0),
                                        **with_float("percentile_90", row.percentile_90(o) or 0),
                                        **with_float("at_most", {n: row.at_most(o, n) or 0
                                                                 for n in self.thresholds_at_most(o)})}
                                    for o in self.outcome_names}
                item.update(with_float("events", row.odds.events))
                item["exact"] = row.odds.exact
                if row.odds.estimate is not None:
                    item["estimate"] = dict(row.odds.estimate)
            rows.append(item)
        out: dict[str, Any] = {"ruleset": self.ruleset, "attacker": self.attacker, "target": self.target,
                               "axes": [{"path": a.path, "values": list(a.values)} for a in self.axes],
                               "combinations": len(self.rows), "plans_worked_out": self.computed, "rows": rows}
        if self.conditions:
            out["conditions"] = dict(self.conditions)
        return out

    def columns(self) -> list[str]:
        """The columns of :meth:`records`, in order."""
        cols = [a.path for a in self.axes] + ["legal", "exact", "target", "refusals"]
        for o in self.outcome_names:
            cols += [f"{o}_mean", f"{o}_mean_float"]
            for n in self.thresholds(o):
                cols += [f"{o}_at_least_{n}", f"{o}_at_least_{n}_float"]
            cols += [f"{o}_variance", f"{o}_variance_float", f"{o}_sd", f"{o}_median", f"{o}_percentile_90"]
            for n in self.thresholds_at_most(o):
                cols += [f"{o}_at_most_{n}", f"{o}_at_most_{n}_float"]
        for e in self.event_names:
            cols += [e, f"{e}_float"]
        return cols

    def records(self) -> list[dict[str, Any]]:
        """One flat record per row (for a CSV, a Parquet file or a data frame): each axis's value as text, the
        check, then every exact value as a fraction string beside its float, the standard deviation as a float,
        the median and 90th percentile as whole numbers (None where the rules refuse)."""
        out = []
        for row in self.rows:
            values = {s.path: value_text(s.value) for s in row.settings}
            record: dict[str, Any] = {a.path: values[a.path] for a in self.axes}
            record.update({"legal": row.odds is not None, "exact": None if row.odds is None else row.odds.exact,
                           "target": row.check.target,
                           "refusals": "; ".join(f"{r.clause}: {r.reason}" for r in row.check.refusals) or None})
            for o in self.outcome_names:
                _exact(record, f"{o}_mean", row.mean(o))
                for n in self.thresholds(o):
                    _exact(record, f"{o}_at_least_{n}", row.at_least(o, n))
                _exact(record, f"{o}_variance", row.variance(o))
                record.update({f"{o}_sd": row.sd(o), f"{o}_median": row.median(o),
                               f"{o}_percentile_90": row.percentile_90(o)})
                for n in self.thresholds_at_most(o):
                    _exact(record, f"{o}_at_most_{n}", row.at_most(o, n))
            for e in self.event_names:
                _exact(record, e, row.event(e))
            out.append(record)
        return out


def _exact(record: dict[str, Any], name: str, value: Fraction | None) -> None:
    record.update(with_float(name, value))


def combinations(axes: Sequence[Axis]) -> int:
    """How many rows the axes make."""
    return math.prod(len(a.values) for a in axes)


def check_axes(axes: Sequence[Axis], limit: int = MAX_COMBINATIONS) -> None:
    """Refuse a grid that is no table: no axes, an axis without values, a path given twice, more than ``limit``
    combinations (before any is worked out)."""
    if not axes:
        raise RangefireError("a table needs at least one path to vary")
    seen: set[str] = set()
    for axis in axes:
        if not axis.values:
            raise RangefireError(f"{axis.path}: no values to vary it over")
        if axis.path in seen:
            raise RangefireError(f"{axis.path} is varied twice: give all its values at once")
        seen.add(axis.path)
        again = given_twice(axis.values)
        if again is not None:  # a row for each value: the same row twice
            raise RangefireError(f"{axis.path}: the value {value_text(again[0])} is given twice; give each value "
                                 "once")
    count = combinations(axes)
    if count > limit:
        sizes = " x ".join(str(len(a.values)) for a in axes)
        raise LimitError(f"{sizes} = {count:,} combinations; a table holds at most {limit:,} (a sweep works "
                         "through larger grids in chunks)")


def odds_table(base: Mapping[str, Any], attacker: str, target: str | None, axes: Sequence[Axis], *,
               choices: Mapping[str, object] = NO_CHOICES, source: str = "scenario",
               limit: int = MAX_COMBINATIONS, progress: Callable[[int, int], None] | None = None) -> OddsTable:
    """The odds of ``attacker``'s attack on ``target`` for every combination of the axes' values over the
    scenario mapping ``base``. A combination the rules refuse is a row with its refusals; a value the scenario
    cannot take (an unknown path, a bad value) is an error naming it, as for a file. ``progress(done, total)`` is
    told of each row worked out (a row is a scenario validated and an attack checked: some 15 ms, so a table of
    1,000 rows takes seconds)."""
    check_axes(axes, limit)
    total = combinations(axes)
    worked: dict[str, Odds] = {}
    rows: list[TableRow] = []
    game = None
    rules: list[HouseRule] = []
    for values in itertools.product(*(a.values for a in axes)):
        settings = tuple(Setting(a.path, v) for a, v in zip(axes, values, strict=True))
        ruleset, battle = battle_from_mapping(dict(base), source=source, settings=settings)
        if game is None:  # what every row holds: the first row's house rules, those varied left out
            rules = house_rules_in_force(house_rules(battle.options), [a.path for a in axes])  # type: ignore[attr-defined]
        game = ruleset
        checked = ruleset.check(battle, ruleset.attack(attacker, target, choices))
        odds = None
        if checked.plan is not None:
            # the plan whole, as data, names everything its odds depend on: rows alike in it share them
            key = json.dumps(checked.plan.to_dict(), sort_keys=True, default=str)
            odds = worked.get(key)
            if odds is None:
                odds = worked[key] = ruleset.odds(checked.plan)
        rows.append(TableRow(settings, checked, odds))
        if progress is not None:
            progress(len(rows), total)
    assert game is not None
    events = dict.fromkeys(name for r in rows if r.odds is not None for name in r.odds.events)
    return OddsTable(game.key, attacker, target, tuple(axes), tuple(rows), tuple(game.outcome_names),
                     tuple(events or game.event_names), len(worked), dict(game.conditions), battle_name(base),
                     tuple(rules), game.main_outcome, game.move_unit)


def house_rules_in_force(rules: Sequence[HouseRule], varied: Sequence[str]) -> list[HouseRule]:
    """The house rules that hold at every point of a grid: those of its scenario not under a varied path (nor
    holding one: a whole table varied)."""
    return [rule for rule in rules
            if not any(rule.path == path or rule.path.startswith(path + ".") or path.startswith(rule.path + ".")
                       for path in varied)]


def row_name(row: TableRow) -> str:
    """A row as people name it: its settings."""
    return settings_text(row.settings)
