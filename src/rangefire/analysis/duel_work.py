"""How much work a duel's exact chain is, known before any is done (:func:`estimate_duel`).

The chain is walked one half-turn at a time, and its work grows with the battles each half-turn holds and the
results of attacks it weighs. Before it starts, both are bounded from what each game says of one attack
(:meth:`~rangefire.core.Ruleset.duel_bounds`: the most states the target can take while it stands, and the most
battles one attack can leave): half-turn after half-turn, the battles held are at most those of the half-turn
before times the results of an attack, and never more than the states of both units together. A duel whose
bounds pass the limits is refused at once, saying the most turns that would be answered, rather than after the
seconds it takes to reach them; the limits on what the chain really reaches stay, for a game that gives no bounds.

>>> from rangefire.rulesets import battle_from_mapping
>>> ruleset, battle = battle_from_mapping({"ruleset": "dress-on-the-colors", "units": [
...     {"id": "N", "side": "north", "stands": 2, "weapon": "rifled-musket", "formation": "line",
...      "position": [0, 0], "facing": 0},
...     {"id": "S", "side": "south", "stands": 2, "weapon": "rifled-musket", "formation": "line",
...      "position": [0, 8], "facing": 180}]})
>>> work = estimate_duel(ruleset, battle, "N", "S", turns=3)
>>> work.states, work.weighed, work.fits
(330, 2394, True)
>>> estimate_duel(ruleset, battle, "N", "S", turns=200).fits
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rangefire.core import Attack, LimitError, Ruleset

#: The most battles the exact chain is estimated to reach (the chain itself stops at
#: :data:`rangefire.analysis.duel.MAX_STATES` too).
MAX_STATES = 10_000
#: The most results of attacks the exact chain is estimated to weigh. The bound counts, for every battle, every
#: result the attack could have, where battles with fewer stands have fewer: it is some four times what the chain
#: weighs (the Wheatfield's regiments over five turns: a bound of some 140,000, 34,000 weighed, a few seconds).
MAX_WEIGHED = 160_000


@dataclass(frozen=True)
class DuelWork:
    """The bounds of a duel's exact chain over ``turns`` turns: ``states`` battles reached at most, ``weighed``
    results of attacks weighed at most; ``turns_within`` the most turns whose bounds are within the limits (0:
    not even one), ``fits`` whether all ``turns`` are."""

    turns: int
    states: int
    weighed: int
    turns_within: int

    @property
    def fits(self) -> bool:
        return self.turns_within >= self.turns


class DuelTooLarge(LimitError):
    """A duel whose exact chain would pass its limits, refused before any of it is worked out."""

    def __init__(self, message: str, work: DuelWork) -> None:
        super().__init__(message)
        self.work = work


def estimate_duel(ruleset: Ruleset[Any, Any, Any], battle: Any, a: str, b: str, turns: int,
                  max_states: int = MAX_STATES, max_weighed: int = MAX_WEIGHED) -> DuelWork | None:
    """The bounds of the duel of ``a`` (firing first) and ``b`` over ``turns`` turns, half-turn by half-turn; None
    where the game gives no bounds. Cheap: two calls to the game, then arithmetic."""
    start = ruleset.duel_begin(battle, a)
    on_b = ruleset.duel_bounds(start, Attack(a, b))
    on_a = ruleset.duel_bounds(start, Attack(b, a))
    if on_b is None or on_a is None:
        return None
    (states_b, results_b), (states_a, results_a) = on_b, on_a
    most = states_a * states_b  # battles one half-turn can hold: both units' states together
    held, states, weighed, within = 1, 1, 0, 0
    for turn in range(1, turns + 1):  # at most MAX_TURNS: arithmetic on a few numbers
        for results in (results_b, results_a):
            weighed += held * results
            held = min(held * results, most)
            states += held
        if states <= max_states and weighed <= max_weighed:
            within = turn
    return DuelWork(turns, states, weighed, within)


def refuse_too_large(work: DuelWork | None, a: str, b: str, max_states: int = MAX_STATES,
                     max_weighed: int = MAX_WEIGHED) -> None:
    """Refuse (:class:`DuelTooLarge`) a duel whose bounds pass the limits, saying what would be answered."""
    if work is None or work.fits:
        return
    turns = f"{work.turns} {'turn' if work.turns == 1 else 'turns'}"
    past = (f"could reach some {work.states:,} battles, more than the {max_states:,}" if work.states > max_states
            else f"could weigh some {work.weighed:,} results of attacks, more than the {max_weighed:,}")
    fewer = (f"; {work.turns_within} {'turn' if work.turns_within == 1 else 'turns'} or fewer would be answered"
             if work.turns_within else ", even over one turn; smaller units would be answered")
    raise DuelTooLarge(f"the duel of {a} and {b} over {turns} {past} worked out exactly: too large to answer "
                       f"exactly{fewer}, or a Monte Carlo of it, its dice rolled", work)
