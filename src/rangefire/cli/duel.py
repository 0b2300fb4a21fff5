"""``rangefire duel``: two units exchange fire turn by turn, to the end or to a turn limit; the exact odds of how
it ends (and a Monte Carlo beside them on request, or alone where the duel is too large to answer exactly). The
work is the library's (:mod:`rangefire.analysis.duel`); this maps flags."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from rangefire.cli.common import (
    JsonOpt,
    Scenario,
    SetOpt,
    _emit,
    app,
    load_set,
    option_named,
    out,
    parse_seed,
    text,
    user_errors,
    whole_number,
)
from rangefire.cli.figures import print_figures
from rangefire.cli.progress import Shown
from rangefire.core import LimitError, RangefireError
from rangefire.core.numbers import percent

if TYPE_CHECKING:
    from rich.text import Text

    from rangefire.analysis.duel import DuelResult
    from rangefire.analysis.duel_sample import DuelEstimate

# whole numbers read as text, so that a value that is none is refused in our words (see whole_number)
TurnsOpt = Annotated[Optional[str], typer.Option("--turns", "-n", metavar="INTEGER", help="the most turns played (a turn: both units fire); default: to the end, until a unit is destroyed", show_default=False)]  # noqa: E501, UP045
FirstOpt = Annotated[str, typer.Option("--first", metavar="a|b|alternate", help="who fires first in each turn: A, B, or A in the first turn, B in the second, and so on")]  # noqa: E501
ThirdOpt = Annotated[Optional[str], typer.Option("--third-unit", metavar="holds|ignored", help="Dress on the Colors: a unit whose target the rules choose to be a third unit holds its fire (holds, the rules' reading), or every other unit is taken off the table (ignored)", show_default=False)]  # noqa: E501, UP045
SamplesOpt = Annotated[str, typer.Option("--samples", metavar="INTEGER", help="also play this many duels with their dice rolled (a Monte Carlo beside the exact odds, or alone where the duel is too large to answer exactly)")]  # noqa: E501
SeedOpt = Annotated[Optional[str], typer.Option("--seed", help="the Monte Carlo's seed (default 0): the same seed, the same duels")]  # noqa: UP045, E501
PlotOpt = Annotated[Optional[str], typer.Option("--plot", metavar="FILE", help="write a chart of the probability of each end against the turn (.png, .svg, .pdf)")]  # noqa: UP045, E501


@app.command()
def duel(
    scenario: Scenario,
    a: Annotated[str, typer.Argument(help="one unit (it fires first unless --first says otherwise)", show_default=False)],  # noqa: E501
    b: Annotated[str, typer.Argument(help="the unit it duels with", show_default=False)],
    turns_text: TurnsOpt = None,
    first: FirstOpt = "a",
    third_unit: ThirdOpt = None,
    samples_text: SamplesOpt = "0",
    seed: SeedOpt = None,
    plot: PlotOpt = None,
    settings: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A and B exchange fire turn by turn, casualties, disorder, markers, ammunition and wounds carried over, until
    one is destroyed (or --turns N turns): the exact odds of each end, when it comes, and what each loses. Only A
    and B fire, and nothing moves or rallies; an attack the rules refuse does nothing. The model's assumptions are
    written in the answer (who fires first, --first; a third unit, --third-unit). In swerve the revealed card
    stays on top of its deck [SW-4.2], so where a deck's order is unknown its first reveal decides every later
    combat."""
    from rangefire.analysis.duel import FIRSTS, MAX_SAMPLES, MAX_TURNS, THIRD_UNITS, sample_duel
    from rangefire.analysis.duel_sample import sample_work

    with user_errors(as_json):
        # each option named in its refusal, before any work
        turns = whole_number("--turns", turns_text)
        samples = whole_number("--samples", samples_text) or 0
        if turns is not None and not 1 <= turns <= MAX_TURNS:
            raise RangefireError(f"--turns {turns:,}: must be between 1 and {MAX_TURNS:,} (or left out: to the end)")
        if samples < 0:
            raise RangefireError(f"--samples {samples:,}: must be 0 (none) or more")
        if samples > MAX_SAMPLES:
            raise RangefireError(f"--samples {samples:,}: must be at most {MAX_SAMPLES:,}")
        if first not in FIRSTS:
            raise RangefireError(f"--first {first[:40]!r}: must be a (A fires first), b (B fires first) or "
                                 "alternate (A in the first turn, B in the second, ...)")
        if third_unit is not None and third_unit not in THIRD_UNITS:
            raise RangefireError(f"--third-unit {third_unit[:40]!r}: must be holds (the rules' reading: a unit "
                                 "whose target is a third unit holds its fire) or ignored (the other units taken "
                                 "off the table)")
        seed_value = parse_seed(seed) or 0  # refused if negative, with samples or without: one rule for seeds
        if seed is not None and not samples:  # the exact odds roll no dice: a seed alone would be read and ignored
            raise RangefireError(f"--seed {seed_value}: the seed is the Monte Carlo's, and no --samples were asked "
                                 "for (the exact odds roll no dice): --samples N --seed S")
        if plot is not None:
            from rangefire.cli.writing import check_output

            check_output("--plot", plot, "chart", reading=(scenario,))
        ruleset, battle, _ = load_set(scenario, settings)
        if third_unit is not None and ruleset.chooses_target is None:
            raise RangefireError(f"--third-unit {third_unit}: {ruleset.key} does not choose a firer's target, so a "
                                 "third unit never takes the other's place (the option is Dress on the Colors', "
                                 "DC-2.3)")
        # the Monte Carlo's work weighed first: one too large is refused before the exact odds are worked out
        work = sample_work(ruleset, battle, a, b, turns, samples, seed_value, first, third_unit) if samples else None
        if work is not None:
            work.refuse()
        result, too_large = _exact(ruleset, battle, a, b, turns, first, third_unit, samples, as_json,
                                   plot is not None)
        estimate = None
        if samples:
            with Shown("turns, Monte Carlo", quiet=as_json) as shown:
                estimate = sample_duel(ruleset, battle, a, b, turns, samples, seed_value, progress=shown,
                                       first=first, third_unit=third_unit, work=work)
        if plot is not None:
            with option_named("--plot"):
                _plot(result, estimate, Path(plot), battle_name(battle, scenario), ruleset, a, b, first, third_unit)
    if as_json:
        data = result.to_dict() if result is not None else _sampled_only(estimate, too_large)
        data.pop("format", None)
        if estimate is not None:
            data["monte_carlo"] = estimate.to_dict()
        if plot is not None:
            data["plot"] = str(plot)
        _emit(data)
        return
    if result is None:
        render_sampled(estimate, too_large)
    else:
        render_duel(result, estimate)
    if plot is not None:
        out.print(text(f"chart written to {plot}"))


def battle_name(battle: Any, scenario: str | Path) -> str:
    name = getattr(battle, "name", None)
    return str(name) if name else Path(scenario).name


def _exact(ruleset: Any, battle: Any, a: str, b: str, turns: int | None, first: str, third_unit: str | None,
           samples: int, as_json: bool, plotted: bool) -> tuple[DuelResult | None, str | None]:
    """The exact duel, its progress shown. One too large to answer exactly is refused before any work (from the
    game's bounds) or as soon as its chain passes the limit, naming --samples; where a Monte Carlo is asked for,
    it is said instead (None and why) and the Monte Carlo shown alone. To the end, a chart is stepped until 99%
    of each end is reached, the answer alone until 90%."""
    from rangefire.analysis.duel import duel as exact_duel

    try:
        with Shown("states", quiet=as_json, kind="exact") as shown:
            return exact_duel(ruleset, battle, a, b, turns, first, third_unit, progress=shown,
                              reach=Fraction(99, 100) if plotted else Fraction(9, 10)), None
    except LimitError as exc:
        if samples:
            return None, str(exc)
        raise LimitError(f"{exc} (--samples N for a Monte Carlo alone)") from None


def _plot(result: DuelResult | None, estimate: DuelEstimate | None, path: Path, name: str, ruleset: Any, a: str,
          b: str, first: str, third_unit: str | None) -> None:
    from rangefire.analysis.duel import assumptions
    from rangefire.analysis.duel_plot import plot_duel

    if third_unit is None and ruleset.chooses_target is not None:
        third_unit = "holds"
    said = [f"[{n.clause}] {n.text}" if n.clause != "duel" else n.text
            for n in assumptions(ruleset, a, b, first, third_unit)]
    plot_duel(result, estimate, path, battle=name, assumptions=said)


def _pct(p: Any) -> str:
    """A probability for people, to hundredths of a percent (a chance that is never met, None, is 0%)."""
    return percent(p or 0, 2)


def _turn(value: Any) -> str:
    return "" if value is None else f"{float(value):.2f}" if isinstance(value, Fraction | float) else str(value)


def _head(result: DuelResult | DuelEstimate, how: str) -> None:
    from rangefire.cli.common import line

    limit = f"at most {result.turn_limit} {'turn' if result.turn_limit == 1 else 'turns'}" if result.turn_limit \
        else "to the end"
    out.print(text(f"{result.a} against {result.b}, {limit} ({result.ruleset}, {how})", "bold"))
    from rangefire.analysis.duel import assumptions
    from rangefire.rulesets import find_ruleset

    for note in assumptions(find_ruleset(result.ruleset), result.a, result.b, result.first, result.third_unit):
        out.print(line(note.clause, note.text))


def render_duel(result: DuelResult, estimate: DuelEstimate | None) -> None:
    """The duel for people: the model's assumptions, why a unit cannot fire, then how it ends (each end's
    probability and turns), what each loses and what is left of it (exactly N, at least N), the Monte Carlo's
    estimate beside them when asked for; the exact fractions are in ``--json``."""
    from rangefire.cli.common import line

    _head(result, "exact")
    for role in ("a", "b"):
        for refusal in result.refusals.get(role, ()):
            other = result.b if role == "a" else result.a
            out.print(line(refusal.clause, f"{result.unit(role)} cannot fire at {other}: {refusal.reason}"))
        for note in result.notes.get(role, ()):
            out.print(line(note.clause, note.text))
    if result.refusals.get("a") and result.refusals.get("b") and result.winner["neither"] == 1:
        out.print(text("neither unit can fire at the other: no unit is destroyed (neither wins)"))
    n = estimate.samples if estimate is not None else 1

    def sampled(counts: Mapping[Any, int] | None, key: Any) -> str:
        if counts is None or estimate is None:
            return ""
        lo, hi = estimate.interval(counts.get(key, 0))
        return f"{_pct(counts.get(key, 0) / n)} ({lo:.1%}-{hi:.1%})"

    out.print(text("how it ends", "bold"))
    rows: list[list[Text | str]] = []
    labels = {"a": f"{result.a} wins", "b": f"{result.b} wins", "both": "both destroyed", "neither": "neither"}
    for k in ("a", "b", "both", "neither"):
        stats = result.ends.get(k)
        cells: list[Text | str] = [text(labels[k]), _pct(result.winner[k])]
        if stats is not None and stats.probability:
            beyond = f">{result.turns_stepped}"
            cells += [_turn(stats.mean), _turn(stats.median) if stats.median else beyond,
                      _turn(stats.p90) if stats.p90 else beyond]
        else:
            cells += ["", "", ""]
        if estimate is not None:
            cells.append(sampled(estimate.winner, k))
        rows.append(cells)
    print_figures(("end",), ("P", "mean turn", "median", "90%", *(("sampled (95%)",) if estimate is not None else ())),
                  rows)
    out.print(text(f"neither: none destroyed in {result.turn_limit} {'turn' if result.turn_limit == 1 else 'turns'}"
                   if result.turn_limit else "neither: neither can ever destroy the other"))
    ends = result.ends.get("any")
    if ends is not None and ends.probability:
        out.print(text(f"the end comes in turn {_turn(ends.mean)} on average (median {ends.median or '?'}, 90% by "
                       f"turn {ends.p90 or f'>{result.turns_stepped}'})"
                       + ("" if result.turn_limit or not result.turns_after
                          else f"; {_pct(result.turns_after)} after turn {result.turns_stepped}")))

    def table(title: str, rows: list[tuple[str, Any, Any, str]]) -> None:
        out.print(text(title, "bold"))  # above the table, not its title: a title wraps to the table's width
        print_figures(("",), ("exactly", "at least", *(("sampled",) if estimate is not None else ())),
                      [[text(label), _pct(p), _pct(at_least), *((s,) if estimate is not None else ())]
                       for label, p, at_least, s in rows])

    def dist_rows(d: Mapping[int, Fraction], counts: Mapping[int, int] | None) -> list[tuple[str, Any, Any, str]]:
        rows, tail = [], Fraction(1)
        for k, p in sorted(d.items()):
            rows.append((str(k), p, tail, _pct(counts.get(k, 0) / n) if counts is not None else ""))
            tail -= p
        return rows

    if result.turn_limit is not None and result.turn_limit <= 12:
        table(f"turn of the end (mean {float(result.mean_turns):.2f})",
              dist_rows(result.turns, estimate.turns if estimate else None))
    for role in ("a", "b"):
        table(f"{result.left_name} left of {result.unit(role)} (mean {float(result.mean_left(role)):.2f}, "
              f"expected losses {float(result.losses[role]):.2f})",
              dist_rows(result.left[role], estimate.left[role] if estimate else None))
    if estimate is not None:
        out.print(text(f"sampled: {estimate.samples:,} duels with their dice rolled (seed {estimate.seed}): "
                       "estimates, with their 95% intervals"))


def _sampled_only(estimate: DuelEstimate | None, too_large: str | None) -> dict[str, Any]:
    """The JSON of a duel too large to answer exactly: why, and the Monte Carlo alone (``monte_carlo``, added as
    beside exact odds)."""
    assert estimate is not None  # a duel too large to answer exactly is answered only with a Monte Carlo
    return {"ruleset": estimate.ruleset, "a": estimate.a, "b": estimate.b,
            "turn_limit": estimate.turn_limit, "first": estimate.first, "third_unit": estimate.third_unit,
            "exact": False, "exact_refused": too_large, "left_measure": estimate.left_name}


def render_sampled(estimate: DuelEstimate | None, too_large: str | None) -> None:
    """A duel too large to answer exactly, for people: why, then the Monte Carlo's ends (with their 95%
    intervals and turns), and what is left of each."""
    assert estimate is not None  # a duel too large to answer exactly is answered only with a Monte Carlo
    n = estimate.samples
    _head(estimate, f"a Monte Carlo of {n:,} duels with their dice rolled, seed {estimate.seed}: estimates")
    out.print(text(f"no exact odds: {too_large}"))
    out.print(text("how it ends", "bold"))
    rows: list[list[Text | str]] = []
    labels = {"a": f"{estimate.a} wins", "b": f"{estimate.b} wins", "both": "both destroyed", "neither": "neither"}
    for k in ("a", "b", "both", "neither"):
        count = estimate.winner.get(k, 0)
        lo, hi = estimate.interval(count)
        stats = estimate.end_turns(k) if k != "neither" else {"mean": None, "median": None, "p90": None}
        rows.append([text(labels[k]), _pct(count / n), f"{lo:.1%}-{hi:.1%}", _turn(stats["mean"]),
                     _turn(stats["median"]), _turn(stats["p90"])])
    print_figures(("end",), ("sampled", "95%", "mean turn", "median", "90%"), rows)
    out.print(text(f"neither: none destroyed in {estimate.turn_limit} "
                   f"{'turn' if estimate.turn_limit == 1 else 'turns'}" if estimate.turn_limit
                   else "neither: undecided after 1,000 turns"))
    for role in ("a", "b"):
        counts = estimate.left[role]
        out.print(text(f"{estimate.left_name} left of {estimate.a if role == 'a' else estimate.b} "
                       f"(mean {sum(k * c for k, c in counts.items()) / n:.2f})", "bold"))
        left: list[list[Text | str]] = []
        remaining = n
        for value, c in sorted(counts.items()):
            left.append([str(value), _pct(c / n), _pct(remaining / n)])
            remaining -= c
        print_figures(("",), ("exactly", "at least"), left)
