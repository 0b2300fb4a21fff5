"""What the best-play search of a swerve combat sees [SW-6.2]: the moves open at the start and how they group,
what they may still add, and how much work a search of them is (a position beyond the bounds is refused
before any search).

:class:`~rangefire.rulesets.swerve.combat.Combat` does the search; this module holds its pieces that need
no combat: each is a plain function of the moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from itertools import combinations
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rangefire.rulesets.swerve.combat import Action

Role = Literal["attacker", "defender"]
ROLES: tuple[Role, Role] = ("attacker", "defender")
#: The most work the reference search (:meth:`Combat.exhaustive_score`) is given, in the units of
#: :func:`exhaustive_work`. It visits every set of the k actions open to the players (2**k positions, each weighing
#: k actions) and judges every finished one against each different combat bonus left in the deck (D), so its work
#: is about 2**k * (10 k + D). Measured in CPU time on a small machine: 10 actions with 10 different bonuses
#: (113,000 units) 0.5 s, 11 with 10 (246,000) 1.1 s, 11 with 50 (328,000) 2.0 s, 12 with 4 (508,000) 2.7 s. This
#: bound admits 10 actions with any deck, 11 with up to 46 different bonuses and never 12.
MAX_EXHAUSTIVE_WORK = 320_000
#: The most work the best-play search is given, in the units of :func:`search_work`. Its work grows with the square
#: of the actions open (the best line has at most 2 (k + 1) turns, each weighing at most k + 1 actions, each worth
#: a leaf or, after a pass, k + 1 of them), not with the number of sets of cards. Measured in CPU time on a small
#: machine, with the best line as long as it can be (the attacker must play every card: each adds damage): 61
#: actions (15,000 units) 22 ms, 121 (60,000) 70 ms, 241 (234,000) 0.35 s, 499 (1,000,000) 2.2 s. This bound
#: admits about 350 actions with cards that only help or only hinder, so that every answer comes within about a
#: second; a position beyond it is refused before any search.
MAX_SEARCH_WORK = 500_000


def search_work(actions: int, frontier: int = 1) -> int:
    """The best-play search's work, in units of about 2 microseconds, for ``actions`` actions open to the
    players, when the attacker's choices are weighed as ``frontier`` (accuracy, damage) pairs (1 unless some of
    its cards add to one of those totals and take from the other)."""
    return 4 * (actions + 1) ** 2 * frontier


def max_search_actions(frontier: int = 1) -> int:
    """The most open actions the best-play search takes on with ``frontier`` (accuracy, damage) pairs."""
    k = 0
    while search_work(k + 1, frontier) <= MAX_SEARCH_WORK:
        k += 1
    return k


def exhaustive_work(actions: int, bonuses: int) -> int:
    """The reference search's work, in units of about 5 microseconds, for ``actions`` actions open to the
    players and ``bonuses`` different combat bonuses the reveal may show."""
    return (1 << actions) * (10 * actions + bonuses)


def max_exhaustive_actions(bonuses: int) -> int:
    """The most open actions the reference search takes on with ``bonuses`` different combat bonuses."""
    k = 0
    while exhaustive_work(k + 1, bonuses) <= MAX_EXHAUSTIVE_WORK:
        k += 1
    return k



Score = tuple[Fraction, Fraction]
#: What the moves still open may add: the defender's most speed, the attacker's sure accuracy and damage, and
#: the (accuracy, damage) pairs its mixed groups may add.
Completion = tuple[int, int, int, tuple[tuple[int, int], ...]]
#: A position as the search sees it: turn, passes in succession, accuracy, speed, damage, the open moves' bits.
Position = tuple[Role, int, int, int, int, int]


@dataclass(frozen=True)
class Move:
    """An action open at the start, as the search sees it: what it adds to the totals (the same in every
    position, SW-1.3), its bit, the bits of the moves it closes (itself, and any move paying with the same
    card: swerving the target closes the target's own swerve-this ability and the other way round), and the
    cards it spends and uses."""

    action: Action
    accuracy: int
    speed: int
    damage: int
    bit: int
    closes: int
    spent: frozenset[str]
    used: frozenset[str]


@dataclass(frozen=True)
class Group:
    """One side's moves naming the same card: they close none outside the group, so it is chosen from apart
    from the rest.
    Mixed: an attacker's group whose best choice depends on the position (a card adding to one of accuracy
    and damage and taking from the other, or several moves); the search weighs each of its choices."""

    role: Role
    moves: tuple[Move, ...]

    @cached_property
    def mixed(self) -> bool:
        if self.role == "defender":
            return False  # only its speed counts: the most is always best for the defender
        m = self.moves[0]
        return len(self.moves) > 1 or m.accuracy * m.damage < 0

    def gain(self, mask: int) -> tuple[int, int, int]:
        """What the group's best legal choice among its open moves adds (not for a mixed group): for the
        defender the most speed, for the attacker its one move if that move only helps it."""
        if self.role == "defender":
            return max(group_options(self.moves, mask), key=lambda o: o[1])
        m = self.moves[0]
        helps = mask & m.bit and m.accuracy >= 0 and m.damage >= 0
        return (m.accuracy, 0, m.damage) if helps else (0, 0, 0)


def group_options(group: tuple[Move, ...], mask: int) -> list[tuple[int, int, int]]:
    """What each legal set of a group's open moves adds: (accuracy, speed, damage), the empty set first."""
    out = [(0, 0, 0)]
    open_moves = [m for m in group if mask & m.bit]
    if len(open_moves) == 1:  # nearly every group: one card, one move
        m = open_moves[0]
        return [(0, 0, 0), (m.accuracy, m.speed, m.damage)]
    for r in range(1, len(open_moves) + 1):
        for chosen in combinations(open_moves, r):
            if all(not a.closes & b.bit for a, b in combinations(chosen, 2)):
                out.append((sum(m.accuracy for m in chosen), sum(m.speed for m in chosen),
                            sum(m.damage for m in chosen)))
    return out


def undominated(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (accuracy, damage) pairs no other pair equals or betters in both, by accuracy falling."""
    out: list[tuple[int, int]] = []
    for acc, dmg in sorted(set(pairs), reverse=True):
        if not out or dmg > out[-1][1]:
            out.append((acc, dmg))
    return out


def frontier_bound(mixed: tuple[Group, ...]) -> int:
    """At most how many (accuracy, damage) pairs the search weighs for the attacker's mixed groups: each
    multiplies them by at most its legal sets; and each pair has its own accuracy, so there are at most as many
    as the accuracies a set of those cards can sum to."""
    bound = 1
    for group in mixed:
        bound *= len(group_options(group.moves, sum(m.bit for m in group.moves)))
    spread = sum(abs(m.accuracy) for g in mixed for m in g.moves) + 1
    return min(bound, spread)
