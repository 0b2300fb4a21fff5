"""How much work a duel's exact chain is, known before any is done (:func:`estimate_duel`).

The chain (:mod:`rangefire.analysis.duel_chain`) works out each distinct state of the two units once, in each
place of the order of fire. Before it starts, the states are bounded from what each game says of one attack
(:meth:`~rangefire.core.Ruleset.duel_bounds`: the most states the target can take while it stands, and the most
results one attack can leave): at most the states of one unit times the other's, in each half-turn of the order
of fire. A duel whose bound passes :data:`MAX_NODES` is refused at once, rather than after the seconds it takes to
reach them; the limit on the states really reached stays, for a game that gives no bounds.

>>> from rangefire.rulesets import battle_from_mapping
>>> ruleset, battle = battle_from_mapping({"ruleset": "dress-on-the-colors", "units": [
...     {"id": "N", "side": "north", "stands": 2, "weapon": "rifled-musket", "formation": "line",
...      "position": [0, 0], "facing": 0},
...     {"id": "S", "side": "south", "stands": 2, "weapon": "rifled-musket", "formation": "line",
...      "position": [0, 8], "facing": 180}]})
>>> work = estimate_duel(ruleset, battle, "N", "S")
>>> work.nodes, work.weighed, work.fits
(128, 1152, True)
>>> big = battle.model_copy(update={"units": tuple(u.model_copy(update={"stands": 60}) for u in battle.units)})
>>> estimate_duel(ruleset, big, "N", "S").fits
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rangefire.core import Attack, LimitError, Ruleset

#: The most states (a state of both units, in one place of the order of fire) the exact chain works out: two
#: units of 20 stands each are some 13,000 of them (26,000 firing first in turn), 40 stands some 51,000. Its
#: answers are exact fractions of as many digits as it has states, or more: beyond, the Monte Carlo.
MAX_NODES = 30_000


@dataclass(frozen=True)
class DuelWork:
    """The bounds of a duel's exact chain: ``nodes`` states worked out at most, ``weighed`` results of attacks
    weighed at most; ``fits`` whether the states are within the limit."""

    nodes: int
    weighed: int
    limit: int = MAX_NODES

    @property
    def fits(self) -> bool:
        return self.nodes <= self.limit


class DuelTooLarge(LimitError):
    """A duel whose exact chain would pass its limits, refused before any of it is worked out."""

    def __init__(self, message: str, work: DuelWork) -> None:
        super().__init__(message)
        self.work = work


def estimate_duel(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, first: str = "a",
                  max_nodes: int = MAX_NODES) -> DuelWork | None:
    """The bounds of the duel of ``a`` and ``b`` (``first``: who fires first, see
    :data:`~rangefire.analysis.duel_chain.PATTERNS`); None where the game gives no bounds. Cheap: two calls to
    the game, then arithmetic."""
    from rangefire.analysis.duel_chain import PATTERNS

    start = ruleset.duel_begin(battle, a if PATTERNS[first][0] == "a" else b)  # the chain's own start
    on_b = ruleset.duel_bounds(start, Attack(a, b))
    on_a = ruleset.duel_bounds(start, Attack(b, a))
    if on_b is None or on_a is None:
        return None
    (states_b, results_b, spends_b), (states_a, results_a, spends_a) = on_b, on_a
    nodes = states_a * states_b * spent_together(spends_a, spends_b) * len(PATTERNS[first])
    return DuelWork(nodes, nodes * max(results_a, results_b), max_nodes)


def spent_together(a: int, b: int) -> int:
    """The pairs of what two units spend by one with each attack (``a`` and ``b`` values each: Ammo, orders
    paid) that a duel can reach, where each attacks once a turn: together, turn by turn, one at most an attack
    ahead of the other (three pairs for each value of the fewer), then the rest of the larger alone.

    >>> spent_together(41, 41), spent_together(1, 7), spent_together(3, 10)
    (124, 7, 17)
    """
    if min(a, b) <= 1:
        return a * b
    return 3 * min(a, b) + abs(a - b) + 1


def refuse_too_large(work: DuelWork | None, a: str, b: str, max_nodes: int = MAX_NODES) -> None:
    """Refuse (:class:`DuelTooLarge`) a duel whose bounds pass the limit, saying what would be answered."""
    if work is None or work.nodes <= max_nodes:
        return
    raise DuelTooLarge(f"the duel of {a} and {b} could reach some {work.nodes:,} distinct states of the two units, "
                       f"more than the {max_nodes:,} worked out exactly: too large to answer exactly (smaller "
                       "units would be answered), or a Monte Carlo of it, its dice rolled", work)
