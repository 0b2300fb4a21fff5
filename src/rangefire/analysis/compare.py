"""One attack under several variants of the rules or the scenario, side by side, with the differences.

A variant is a name and a list of :class:`~rangefire.scenario.paths.Setting` (``options.cover_save.light = 3``,
``units.20th-maine.stands = 4``) applied to a base scenario, or a whole scenario of its own. Each variant's
attack is checked and, where legal, its odds worked out exactly; where the rules refuse it, its refusals (each
with its clause) stand in its place. Every variant is set against the baseline (the first unless named): the
difference of each "exactly N", "at least N", mean and event probability, as exact fractions.

>>> from rangefire.scenario.paths import Setting
>>> from rangefire.scenario import read_scenario
>>> from rangefire.rulesets.dress_on_the_colors import EXAMPLE  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rangefire.core import NO_CHOICES, Check, Odds, RangefireError, Ruleset, UnknownUnitError, fraction_str
from rangefire.core.numbers import with_float
from rangefire.core.options import HouseRule, house_rules
from rangefire.rulesets import battle_from_mapping
from rangefire.scenario.paths import Setting

#: A comparison holds at most this many variants, the baseline included.
MAX_VARIANTS = 8
#: The longest name of a variant: it heads a column of every table (a file named beside another of its name is
#: named by its whole path).
MAX_NAME = 200


@dataclass(frozen=True)
class Variant:
    """A named variant: ``settings`` applied to the base scenario, or to ``scenario`` where it has one of its own
    (a second scenario file)."""

    name: str
    settings: tuple[Setting, ...] = ()
    scenario: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "settings": [{"path": s.path, "value": s.value} for s in self.settings]}


@dataclass(frozen=True)
class VariantOdds:
    """One variant's attack: its check, and its odds where the rules allow it (None where they refuse it)."""

    variant: Variant
    check: Check
    odds: Odds | None
    #: The options this variant's battle sets away from the rules' values (its house rules), with their clauses.
    house_rules: tuple[HouseRule, ...] = ()

    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def legal(self) -> bool:
        return self.odds is not None

    def to_dict(self, ruleset: str) -> dict[str, Any]:
        out: dict[str, Any] = {**self.variant.to_dict(), "legal": self.legal,
                               "refusals": [r.to_dict() for r in self.check.refusals]}
        if self.odds is not None:
            data = self.odds.to_dict()
            out.update({key: data[key] for key in ("plan", "outcomes", "events", "events_float", "exact")})
        out["house_rules"] = [h.to_dict() for h in self.house_rules]
        return out


def attack_odds(ruleset: Ruleset[Any, Any], battle: Any, attacker: str, target: str | None,
                choices: Mapping[str, object] = NO_CHOICES) -> tuple[Check, Odds | None]:
    """The check of one attack, and its odds where it is legal."""
    checked = ruleset.check(battle, ruleset.attack(attacker, target, choices))
    return checked, (ruleset.odds(checked.plan) if checked.plan is not None else None)


@dataclass(frozen=True)
class Comparison:
    """Every variant's odds of one attack, and each set against the baseline's.

    Probabilities are exact ``Fraction`` s; a variant the rules refuse has none (its methods answer None), nor
    has any difference where the variant or the baseline is refused.
    """

    ruleset: str
    attacker: str
    target: str | None
    baseline: str
    variants: tuple[VariantOdds, ...]
    outcome_names: tuple[str, ...]
    event_names: tuple[str, ...]
    #: Outcomes that hold only given an event, with the words saying so (the game's ``conditions``).
    conditions: Mapping[str, str] = field(default_factory=dict)
    #: The battle's name as its scenario gives it (the base scenario's), or "" where it gives none.
    battle: str = ""

    def shared_house_rules(self) -> list[HouseRule]:
        """The house rules in force in every variant (set in the scenario or with ``--set``, not by a variant)."""
        if not self.variants:
            return []
        rest = [list(v.house_rules) for v in self.variants[1:]]  # a value may be a list: compared, not hashed
        return [rule for rule in self.variants[0].house_rules if all(rule in others for others in rest)]

    def variant(self, name: str) -> VariantOdds:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [v.name for v in self.variants]

    def values(self, outcome: str) -> list[int]:
        """Every value the outcome takes under any legal variant, from the least to the greatest with none
        skipped."""
        seen = [k for v in self.variants if v.odds is not None
                for k in v.odds.outcomes[outcome].probabilities()]
        return list(range(min(seen), max(seen) + 1)) if seen else []

    def exactly(self, name: str, outcome: str, n: int) -> Fraction | None:
        odds = self.variant(name).odds
        return None if odds is None else odds.outcomes[outcome].probability(n)

    def at_least(self, name: str, outcome: str, n: int) -> Fraction | None:
        odds = self.variant(name).odds
        return None if odds is None else odds.outcomes[outcome].at_least(n)

    def mean(self, name: str, outcome: str) -> Fraction | None:
        odds = self.variant(name).odds
        return None if odds is None else odds.outcomes[outcome].mean()

    def at_most(self, name: str, outcome: str, n: int) -> Fraction | None:
        odds = self.variant(name).odds
        return None if odds is None else odds.outcomes[outcome].at_most(n)  # type: ignore[attr-defined]

    def event(self, name: str, event: str) -> Fraction | None:
        odds = self.variant(name).odds
        return None if odds is None else odds.events[event]

    def statistic(self, name: str, kind: str, outcome: str) -> Fraction | float | None:
        """One of an outcome's :data:`STATISTICS`: ``mean`` and ``variance`` exact, ``median`` and
        ``percentile_90`` values of the outcome (as fractions), ``sd`` a float (the root of the variance)."""
        odds = self.variant(name).odds
        if odds is None:
            return None
        dist: Any = odds.outcomes[outcome]
        if kind == "mean":
            return Fraction(dist.mean())
        if kind == "variance":
            return Fraction(dist.variance())
        if kind == "sd":
            return float(dist.sd())
        if kind == "median":
            return Fraction(dist.median())
        if kind == "percentile_90":
            return Fraction(dist.quantile(Fraction(9, 10)))
        raise ValueError(f"no statistic {kind!r}")

    def value(self, variant: str, kind: str, name: str, n: int | None = None) -> Fraction | float | None:
        """One value by its kind: ``exactly``, ``at_least`` and ``at_most`` (of outcome ``name`` at ``n``), one
        of the :data:`STATISTICS` (``mean``, ``sd``...), ``event`` (the probability of event ``name``). Every
        value is an exact fraction but ``sd``'s, a float."""
        if kind in ("exactly", "at_least", "at_most"):
            assert n is not None
            return {"exactly": self.exactly, "at_least": self.at_least, "at_most": self.at_most}[kind](variant, name, n)
        if kind in STATISTICS:
            return self.statistic(variant, kind, name)
        if kind == "event":
            return self.event(variant, name)
        raise ValueError(f"no value of kind {kind!r}")

    def difference(self, variant: str, kind: str, name: str, n: int | None = None) -> Fraction | float | None:
        """The variant's value less the baseline's; None where either is refused."""
        value, base = self.value(variant, kind, name, n), self.value(self.baseline, kind, name, n)
        return None if value is None or base is None else value - base

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: each variant's own odds, then per outcome and event the values side by side with the
        differences from the baseline (the baseline's own difference is ``"0"``). Every value is an exact
        fraction string, with its float beside it (``values_float``, ``differences_float``), but the standard
        deviation's (``sd``), a float."""

        def side(kind: str, name: str, n: int | None = None) -> dict[str, Any]:
            values = {v: self.value(v, kind, name, n) for v in self.names}
            differences = {v: self.difference(v, kind, name, n) for v in self.names}
            if kind == "sd":  # floats already
                return {"values": values, "differences": differences}
            return {**with_float("values", values), **with_float("differences", differences)}

        outcomes: dict[str, Any] = {}
        for outcome in self.outcome_names:
            rows = [{"n": n, "exactly": side("exactly", outcome, n), "at_least": side("at_least", outcome, n),
                     "at_most": side("at_most", outcome, n)}
                    for n in self.values(outcome)]
            outcomes[outcome] = {"mean": side("mean", outcome), "rows": rows,
                                 **{kind: side(kind, outcome) for kind in STATISTICS if kind != "mean"}}
            if outcome in self.conditions:
                outcomes[outcome]["condition"] = self.conditions[outcome]
        return {"ruleset": self.ruleset, "attacker": self.attacker, "target": self.target,
                "baseline": self.baseline,
                "variants": [v.to_dict(self.ruleset) for v in self.variants],
                "outcomes": outcomes, "events": {event: side("event", event) for event in self.event_names}}

    def records(self) -> list[dict[str, Any]]:
        """One flat record per value shown (for a CSV or a data frame): ``kind`` (mean, variance, sd, median,
        percentile_90, exactly, at_least, at_most, event, refused), ``name`` (the outcome or event; a refusal's
        clause), ``n``, ``variant``, then ``value`` and ``difference`` as exact fraction strings beside their
        floats (``value_float``, ``difference_float``; ``sd``'s value is a float, written as one); empty where
        there is none (a refusal's ``value`` is its reason)."""
        out: list[dict[str, Any]] = []

        def add(kind: str, name: str, n: int | None = None) -> None:
            for variant in self.names:
                value, diff = self.value(variant, kind, name, n), self.difference(variant, kind, name, n)
                out.append({"kind": kind, "name": name, "n": "" if n is None else n, "variant": variant,
                            "value": _text(value), "value_float": "" if value is None else float(value),
                            "difference": _text(diff),
                            "difference_float": "" if diff is None else float(diff)})

        for outcome in self.outcome_names:
            add("mean", outcome)
            for kind in STATISTICS[1:]:
                add(kind, outcome)
            for n in self.values(outcome):
                add("exactly", outcome, n)
                add("at_least", outcome, n)
                add("at_most", outcome, n)
        for event in self.event_names:
            add("event", event)
        for v in self.variants:
            for refusal in v.check.refusals:
                out.append({"kind": "refused", "name": refusal.clause, "n": "", "variant": v.name,
                            "value": refusal.reason, "value_float": "", "difference": "", "difference_float": ""})
        return out


#: The columns of :meth:`Comparison.records`, in order.
RECORD_COLUMNS = ("kind", "name", "n", "variant", "value", "value_float", "difference", "difference_float")


#: An outcome's statistics, in the order they are shown: the mean and the variance (exact), the standard
#: deviation (a float), the median and the 90th percentile (values of the outcome).
STATISTICS = ("mean", "variance", "sd", "median", "percentile_90")


def _text(value: Fraction | float | None) -> str:
    """A value as a CSV cell: an exact fraction, a float's shortest repr, or empty."""
    return "" if value is None else repr(value) if isinstance(value, float) else fraction_str(value)


def compare(base: Mapping[str, Any], attacker: str, target: str | None, variants: Sequence[Variant], *,
            baseline: str | None = None, choices: Mapping[str, object] = NO_CHOICES) -> Comparison:
    """The odds of ``attacker``'s attack on ``target`` under each variant of the scenario mapping ``base``.

    ``baseline`` names the variant the others are set against (default: the first). Every variant must be of the
    same game. Errors (:class:`RangefireError`), each naming the variant: no variants, more than
    :data:`MAX_VARIANTS`, a name given twice, a baseline that is none of them, a setting whose path cannot be
    followed or whose value the game refuses (the scenario's own messages), a unit id the battle lacks. A variant
    whose attack the rules refuse is not an error: it carries its refusals with their clauses.
    """
    if not variants:
        raise RangefireError("a comparison needs at least one variant")
    if len(variants) > MAX_VARIANTS:
        raise RangefireError(f"a comparison holds at most {MAX_VARIANTS} variants, not {len(variants)}")
    names = [v.name for v in variants]
    for v in variants:
        if not v.name.strip():
            raise RangefireError("a variant needs a name")
        if len(v.name) > MAX_NAME:  # it heads a column of every table
            raise RangefireError(f"variant {v.name[:30]!r}...: a name of {len(v.name):,} characters; at most "
                                 f"{MAX_NAME}")
        if not v.name.isprintable():  # a control character would be dropped from a table, or act on the terminal
            raise RangefireError(f"variant {v.name!r}: a name is printable text (no tab, newline or other "
                                 "control character)")
        paths = [s.path for s in v.settings]
        twice = next((p for i, p in enumerate(paths) if p in paths[:i]), None)
        if twice is not None:  # the last would win unsaid
            raise RangefireError(f"variant {v.name!r} sets {twice} twice: give each path once")
        if names.count(v.name) > 1:
            raise RangefireError(f"variant {v.name!r} is named twice: give each variant a name of its own")
    chosen = names[0] if baseline is None else baseline
    if chosen not in names:
        raise RangefireError(f"baseline {chosen!r} is none of the variants ({', '.join(names)})")
    results: list[VariantOdds] = []
    game: Ruleset[Any, Any] | None = None
    for v in variants:
        data = dict(v.scenario if v.scenario is not None else base)
        ruleset, battle = battle_from_mapping(data, source=f"variant {v.name}", settings=v.settings)
        if game is not None and ruleset.key != game.key:
            raise RangefireError(f"variant {v.name!r} is a scenario of {ruleset.key}, the others of {game.key}: "
                                 "a comparison is of one game")
        game = ruleset
        try:
            checked, odds = attack_odds(ruleset, battle, attacker, target, choices)
        except UnknownUnitError as exc:  # a unit one variant's scenario lacks: say which variant
            raise UnknownUnitError(f"variant {v.name}: {exc}") from None
        results.append(VariantOdds(v, checked, odds, tuple(house_rules(battle.options))))  # type: ignore[attr-defined]
    assert game is not None
    ordered = [r for r in results if r.name == chosen] + [r for r in results if r.name != chosen]
    chosen_target = next((r.check.target for r in ordered if r.check.target is not None), target)
    # the events as the odds name them (a game may report more than its required ones), in their order
    events = dict.fromkeys(name for r in ordered if r.odds is not None for name in r.odds.events)
    return Comparison(game.key, attacker, chosen_target, chosen, tuple(ordered), tuple(game.outcome_names),
                      tuple(events or game.event_names), dict(game.conditions), battle_name(base))


def battle_name(scenario: Mapping[str, Any]) -> str:
    """The battle's name as its scenario gives it (``name``), or "" where it gives none."""
    name = scenario.get("name")
    return name.strip() if isinstance(name, str) else ""


def settings_text(settings: Iterable[Setting]) -> str:
    """Settings as people read them: ``options.cover_save.light=3, units.a.stands=4``."""
    return ", ".join(f"{s.path}={value_text(s.value)}" for s in settings)


def value_text(value: Any) -> str:
    """A setting's value as people type it: ``3``, ``true``, ``[10,12]``, ``heavy``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:  # none, as it is typed (--set PATH=null)
        return "null"
    if isinstance(value, list | tuple):
        return "[" + ",".join(value_text(v) for v in value) + "]"
    return str(value)
