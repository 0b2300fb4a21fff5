"""The chart of a duel: the probability of each end against the turn.

One line for each end from turn 0, cumulative (the probability that unit a has won by turn t, that unit b has,
that both are destroyed) and one for the duels still undecided after turn t; to the end, each winner's probability
at the end as a dotted level that its line climbs to. A Monte Carlo beside the exact answer is drawn dashed in the
same colours, or alone where the exact chain refused the duel. The title names the battle, the two units and the
model's assumptions (who fires first, a third unit's place).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from rangefire.core import RangefireError

#: The colour of each end, the same for the exact lines and the sampled steps.
COLOURS = {"a": "#1f77b4", "b": "#d62728", "both": "#7f7f7f", "neither": "#2ca02c"}


def _cumulative(by_turn: Mapping[str, Sequence[float]]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for k, values in by_turn.items():
        running, line = 0.0, []
        for v in values:
            running += v
            line.append(running)
        out[k] = line
    return out


def exact_lines(result: Any) -> tuple[list[int], dict[str, list[float]]]:
    """The exact result's cumulative probability of each end by turn, and the undecided after each turn."""
    turns = list(range(result.turns_stepped + 1))
    per: dict[str, list[float]] = {w: [] for w in ("a", "b", "both")}
    for t in turns:
        p = result.ended_by_winner(t)
        for w in per:
            per[w].append(float(p.get(w, Fraction(0))) if t else 0.0)
    lines = _cumulative(per)
    lines["neither"] = [1 - lines["a"][i] - lines["b"][i] - lines["both"][i] for i in range(len(turns))]
    return turns, lines


def sampled_lines(estimate: Any) -> tuple[list[int], dict[str, list[float]]]:
    """The Monte Carlo's share of each end by turn, and of the undecided after each turn."""
    last = max((t for counts in estimate.ends.values() for t in counts), default=0)
    last = max(last, estimate.turn_limit or 0) if estimate.turn_limit else last
    turns = list(range(last + 1))
    per = {w: [estimate.ends.get(w, {}).get(t, 0) / estimate.samples for t in turns] for w in ("a", "b", "both")}
    lines = _cumulative(per)
    lines["neither"] = [1 - lines["a"][i] - lines["b"][i] - lines["both"][i] for i in range(len(turns))]
    return turns, lines


def plot_duel(result: Any, estimate: Any, path: Path, *, battle: str, assumptions: Sequence[str]) -> None:
    """Draw the duel (``result`` exact, or None; ``estimate`` sampled, or None) to ``path`` (.png, .svg, .pdf),
    written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rangefire.analysis.plots import check_chart_path, show_written_out
    from rangefire.core.errors import ScenarioError
    from rangefire.scenario.files import atomic_write_bytes

    check_chart_path(path)
    head = result if result is not None else estimate
    names = {"a": f"{head.a} has won", "b": f"{head.b} has won", "both": "both destroyed",
             "neither": "undecided"}
    fig, ax = plt.subplots(figsize=(11, 5.6), layout="constrained")
    try:
        if result is not None:
            turns, lines = exact_lines(result)
            for k in ("a", "b", "both", "neither"):
                if any(lines[k]):
                    ax.plot(turns, lines[k], color=COLOURS[k], lw=2, marker="o" if len(turns) <= 30 else None,
                            ms=3, label=f"{names[k]} (exact)")
            if result.turn_limit is None:
                for k in ("a", "b", "both"):
                    p = float(result.winner[k])
                    if p:
                        ax.axhline(p, color=COLOURS[k], ls=":", lw=1,
                                   label=f"{head.a if k == 'a' else head.b if k == 'b' else 'both'}: "
                                         f"{p:.1%} at the end")
        if estimate is not None:
            turns, lines = sampled_lines(estimate)
            for k in ("a", "b", "both", "neither"):
                if any(lines[k]):
                    ax.plot(turns, lines[k], color=COLOURS[k], ls="--", lw=1.2, marker="x" if len(turns) <= 30
                            else None, ms=4, label=f"{names[k]} (Monte Carlo, {estimate.samples:,} duels)")
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # turns are whole
        ax.set_xlabel("turn")
        ax.set_ylabel("probability")
        ax.set_ylim(0, 1)
        ax.set_xlim(left=0)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, borderaxespad=0)
        limit = f"at most {head.turn_limit} turns" if head.turn_limit else "to the end"
        fig.suptitle(f"duel: {head.a} against {head.b}, {limit} ({battle})", fontsize=11)
        ax.set_title("\n".join(assumptions), fontsize=8, loc="left")
        drawn = io.BytesIO()
        show_written_out(fig)
        fig.savefig(drawn, dpi=110, format=Path(path).suffix.lower().removeprefix("."))
    finally:
        plt.close(fig)
    try:  # as a battle is written: a kill mid-write leaves the old chart whole, never an empty file
        atomic_write_bytes(path, drawn.getvalue())
    except ScenarioError as exc:
        raise RangefireError(str(exc)) from None
