"""Charts of exact odds (matplotlib, imported only when a chart is asked for)."""

from __future__ import annotations

from pathlib import Path

from rangefire.core import Odds, RangefireError


def plot_odds(odds: Odds, path: Path) -> None:
    """A bar chart per named outcome (exactly N), the events in the title; written to ``path``."""
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise RangefireError(f"--plot {path}: write .png, .svg or .pdf")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(odds.outcomes)
    fig, axes = plt.subplots(1, len(names), figsize=(4 * len(names), 3.2), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        probs = odds.outcomes[name].probabilities()  # type: ignore[attr-defined]
        ax.bar([str(k) for k in probs], [float(p) for p in probs.values()], color="#3b6ea5")
        ax.set_title(name)
        ax.set_xlabel("N")
        ax.set_ylabel("P(exactly N)")
    events = ", ".join(f"P({k}) = {float(v):.3f}" for k, v in odds.events.items())
    fig.suptitle(f"{odds.plan.attacker} -> {odds.plan.target}: {events}", fontsize=9)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise RangefireError(f"--plot {path}: cannot write ({exc.strerror or exc})") from None
    finally:
        plt.close(fig)
