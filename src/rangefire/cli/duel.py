"""``rangefire duel``: two units exchange fire turn by turn; the exact odds of how it ends (and a Monte Carlo
beside them on request). The work is the library's (:mod:`rangefire.analysis.duel`); this maps flags."""

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
from rangefire.cli.progress import Shown
from rangefire.core import LimitError, RangefireError
from rangefire.core.numbers import percent

if TYPE_CHECKING:
    from rich.text import Text

    from rangefire.analysis.duel import DuelEstimate, DuelResult

# whole numbers read as text, so that a value that is none is refused in our words (see whole_number)
TurnsOpt = Annotated[str, typer.Option("--turns", "-n", metavar="INTEGER", help="the most turns played (a turn: both units fire)")]  # noqa: E501
SamplesOpt = Annotated[str, typer.Option("--samples", metavar="INTEGER", help="also play this many duels with their dice rolled (a Monte Carlo beside the exact odds, or alone where the duel is too large to answer exactly)")]  # noqa: E501
SeedOpt = Annotated[Optional[str], typer.Option("--seed", help="the Monte Carlo's seed (default 0)")]  # noqa: UP045
PlotOpt = Annotated[Optional[Path], typer.Option("--plot", help="write a chart of the distributions (.png, .svg, .pdf)")]  # noqa: UP045, E501


@app.command()
def duel(
    scenario: Scenario,
    a: Annotated[str, typer.Argument(help="the unit that fires first", show_default=False)],
    b: Annotated[str, typer.Argument(help="the unit that fires back", show_default=False)],
    turns_text: TurnsOpt = "5",
    samples_text: SamplesOpt = "0",
    seed: SeedOpt = None,
    plot: PlotOpt = None,
    settings: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A and B exchange fire turn by turn, A first, casualties, disorder, markers and ammunition carried over,
    until one is destroyed or the turn limit: the exact odds of the winner, of the turns taken and of what is
    left of each. Only A and B fire, and nothing moves or rallies; an attack the rules refuse does nothing (a
    Dress on the Colors unit whose target the rules choose to be a third unit does not fire [DC-2.3]). In swerve
    the revealed card stays on top of its deck [SW-4.2], so where a deck's order is unknown its first reveal
    decides every later combat."""
    from rangefire.analysis.duel import MAX_SAMPLES, MAX_TURNS, sample_duel

    with user_errors(as_json):
        # each option named in its refusal (the library's 'turns must be...' names none), before any work
        turns, samples = whole_number("--turns", turns_text) or 0, whole_number("--samples", samples_text) or 0
        if not 1 <= turns <= MAX_TURNS:
            raise RangefireError(f"--turns {turns:,}: must be between 1 and {MAX_TURNS}")
        if samples < 0:
            raise RangefireError(f"--samples {samples:,}: must be 0 (none) or more")
        if samples > MAX_SAMPLES:
            raise RangefireError(f"--samples {samples:,}: must be at most {MAX_SAMPLES:,}")
        seed_value = parse_seed(seed) or 0  # refused if negative, with samples or without: one rule for seeds
        if plot is not None:
            from rangefire.cli.writing import check_output

            check_output("--plot", plot, "chart", reading=(scenario,))
        ruleset, battle, _ = load_set(scenario, settings)
        result, too_large = _exact(ruleset, battle, a, b, turns, samples, as_json)
        estimate = None
        if samples:
            with Shown("half-turns, Monte Carlo", quiet=as_json) as shown:
                estimate = sample_duel(ruleset, battle, a, b, turns, samples, seed_value, progress=shown)
        if plot is not None:
            with option_named("--plot"):
                _plot(result, estimate, plot)
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


def _exact(ruleset: Any, battle: Any, a: str, b: str, turns: int, samples: int,
           as_json: bool) -> tuple[DuelResult | None, str | None]:
    """The exact duel, its progress shown. One too large to answer exactly is refused before any work, naming the
    options that would be answered; where a Monte Carlo is asked for, it is said instead (None and why) and the
    Monte Carlo shown alone."""
    from rangefire.analysis.duel import duel as exact_duel
    from rangefire.analysis.duel_work import DuelTooLarge

    try:
        with Shown("half-turns, exact", quiet=as_json) as shown:
            return exact_duel(ruleset, battle, a, b, turns, progress=shown), None
    except DuelTooLarge as exc:
        if samples:
            return None, str(exc)
        within = exc.work.turns_within
        raise LimitError(f"{exc} ({f'--turns {within}, or ' if within else ''}--samples N for a Monte Carlo "
                         "alone)") from None


def _names(result: DuelResult | DuelEstimate) -> dict[str, str]:
    return {"a": result.a, "b": result.b, "neither": "neither"}


def _plot(result: DuelResult | None, estimate: DuelEstimate | None, path: Path) -> None:
    """The exact distributions, and the Monte Carlo's beside them: winner, turns taken, what is left of each (the
    Monte Carlo's alone where the duel is too large to answer exactly)."""
    from rangefire.analysis.plots import Series, plot_series

    head = result if result is not None else estimate
    assert head is not None  # a duel too large to answer exactly is shown only with a Monte Carlo
    names = _names(head)
    left = head.left_name
    labels = {"winner": "winner", "turns": "turns taken", "a": f"{left} left of {head.a}",
              "b": f"{left} left of {head.b}"}

    def outcomes(winner: Mapping[str, Any], turns: Mapping[int, Any], lefts: Mapping[str, Mapping[int, Any]],
                 total: int | None) -> dict[str, dict[Any, Fraction]]:
        def share(d: Mapping[Any, Any]) -> dict[Any, Fraction]:
            return {k: Fraction(v) if total is None else Fraction(v, total) for k, v in d.items()}
        return {"winner": share({names[k]: v for k, v in winner.items()}), "turns": share(turns),
                "a": share(lefts["a"]), "b": share(lefts["b"])}

    series = [] if result is None else [Series("exact", outcomes(result.winner, result.turns, result.left, None))]
    if estimate is not None:
        series.append(Series(f"Monte Carlo ({estimate.samples:,} duels, an estimate)",
                             outcomes(estimate.winner, estimate.turns, estimate.left, estimate.samples)))
    plot_series(series, path, title=f"duel: {head.a} fires first, {head.b} fires back, at most "
                                    f"{head.turn_limit} turns", labels=labels)


def _pct(p: Any) -> str:
    """A probability for people, to hundredths of a percent (a chance that is never met, None, is 0%)."""
    return percent(p or 0, 2)


def render_duel(result: DuelResult, estimate: DuelEstimate | None) -> None:
    """The duel for people: why a unit cannot fire, then one small table per distribution (exactly N, at least
    N, and the Monte Carlo's estimate beside them when asked for); the exact fractions are in ``--json``."""
    from rich.table import Table

    from rangefire.cli.common import line

    names = _names(result)
    turn_word = "turn" if result.turn_limit == 1 else "turns"
    out.print(text(f"{result.a} against {result.b}: {result.a} fires first, at most {result.turn_limit} "
                   f"{turn_word} ({result.ruleset}, exact)", "bold"))
    for role in ("a", "b"):
        for refusal in result.refusals.get(role, ()):
            other = result.b if role == "a" else result.a
            out.print(line(refusal.clause, f"{result.unit(role)} cannot fire at {other}: {refusal.reason}"))
        for note in result.notes.get(role, ()):
            out.print(line(note.clause, note.text))
    if result.refusals.get("a") and result.refusals.get("b") and result.winner["neither"] == 1:
        out.print(text("neither unit can fire at the other: no unit is destroyed (neither wins)"))

    def table(title: str, rows: list[tuple[str, Any, Any, Any]], cumulative: bool) -> None:
        out.print(text(title, "bold"))  # above the table, not its title: a title wraps to the table's width
        t = Table()
        t.add_column("", overflow="fold")
        t.add_column("exactly" if cumulative else "P", justify="right")
        if cumulative:
            t.add_column("at least", justify="right")
        if estimate is not None:
            t.add_column("sampled", justify="right")
        for label, p, at_least, sampled in rows:
            cells: list[Text | str] = [text(label), _pct(p)]
            if cumulative:
                cells.append(_pct(at_least))
            if estimate is not None:
                cells.append(_pct(sampled))
            t.add_row(*cells)
        out.print(t)

    n = estimate.samples if estimate is not None else 1

    def sampled(counts: Mapping[Any, int] | None, key: Any) -> float:
        return 0.0 if counts is None else counts.get(key, 0) / n

    table("winner", [(names[k] + (f" (none destroyed in {result.turn_limit} {turn_word})" if k == "neither"
                                  else ""), p, None, sampled(estimate.winner if estimate else None, k))
                     for k, p in result.winner.items()], cumulative=False)

    def dist_rows(d: Mapping[int, Fraction], counts: Mapping[int, int] | None) -> list[tuple[str, Any, Any, Any]]:
        rows, tail = [], Fraction(1)
        for k, p in sorted(d.items()):
            rows.append((str(k), p, tail, sampled(counts, k)))
            tail -= p
        return rows

    table(f"turns taken (mean {float(result.mean_turns):.2f})",
          dist_rows(result.turns, estimate.turns if estimate else None), cumulative=True)
    for role in ("a", "b"):
        table(f"{result.left_name} left of {result.unit(role)} (mean {float(result.mean_left(role)):.2f})",
              dist_rows(result.left[role], estimate.left[role] if estimate else None), cumulative=True)
    if estimate is not None:
        out.print(text(f"sampled: {estimate.samples:,} duels with their dice rolled (seed {estimate.seed}): "
                       "estimates"))


def _sampled_only(estimate: DuelEstimate | None, too_large: str | None) -> dict[str, Any]:
    """The JSON of a duel too large to answer exactly: why, and the Monte Carlo alone (``monte_carlo``, added as
    beside exact odds)."""
    assert estimate is not None  # a duel too large to answer exactly is answered only with a Monte Carlo
    return {"ruleset": estimate.ruleset, "a": estimate.a, "b": estimate.b,
            "turn_limit": estimate.turn_limit, "exact": False, "exact_refused": too_large,
            "left_measure": estimate.left_name}


def render_sampled(estimate: DuelEstimate | None, too_large: str | None) -> None:
    """A duel too large to answer exactly, for people: why, then the Monte Carlo's distributions alone (a share
    of the duels played, and at least N)."""
    from rich.table import Table

    assert estimate is not None  # a duel too large to answer exactly is answered only with a Monte Carlo
    n = estimate.samples
    turn_word = "turn" if estimate.turn_limit == 1 else "turns"
    out.print(text(f"{estimate.a} against {estimate.b}: {estimate.a} fires first, at most {estimate.turn_limit} "
                   f"{turn_word} ({estimate.ruleset}, a Monte Carlo of {n:,} duels with their dice rolled, seed "
                   f"{estimate.seed}: estimates)", "bold"))
    out.print(text(f"no exact odds: {too_large}"))

    def table(title: str, counts: Mapping[Any, int], cumulative: bool) -> None:
        out.print(text(title, "bold"))
        t = Table()
        t.add_column("", overflow="fold")
        t.add_column("sampled" if not cumulative else "exactly", justify="right")
        if cumulative:
            t.add_column("at least", justify="right")
        tail = n
        for key, count in counts.items() if not cumulative else sorted(counts.items()):
            label = _names(estimate)[key] if not cumulative else str(key)
            cells: list[Text | str] = [text(label), _pct(count / n)]
            if cumulative:
                cells.append(_pct(tail / n))
                tail -= count
            t.add_row(*cells)
        out.print(t)

    def mean(counts: Mapping[int, int]) -> float:
        return sum(k * c for k, c in counts.items()) / n

    table("winner", estimate.winner, cumulative=False)
    table(f"turns taken (mean {mean(estimate.turns):.2f})", estimate.turns, cumulative=True)
    for role in ("a", "b"):
        table(f"{estimate.left_name} left of {_names(estimate)[role]} (mean {mean(estimate.left[role]):.2f})",
              estimate.left[role], cumulative=True)
