"""An independent oracle for duels: every dice sequence played through the game's real ``resolve`` and ``apply``.

Each attack is resolved again and again with a source that hands out a fixed prefix of faces and stops, naming
the die's sides, where the prefix runs out; every prefix is then extended by each face in turn. A complete
sequence of k dice of s sides weighs 1/s**k. Nothing here reads the game's exact distributions (``odds``,
``exchanges``): only the rules as the resolver plays them. The turn passes by ``end_turn`` until the other
unit's side is to act. Battles are merged by their scenario text (``dump``), so small units stay quick.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache
from typing import Any

from rangefire.core import Attack, DiceSource


class _Runs(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class _Prefix(DiceSource):
    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = faces
        self.used = 0

    def _take(self, stage: str, count: int, sides: int, need: Any) -> tuple[int, ...]:
        if self.used + count > len(self.faces):
            raise _Runs(sides)
        out = self.faces[self.used : self.used + count]
        self.used += count
        return out


def every_roll(ruleset: Any, battle: Any, attack: Attack) -> list[tuple[Fraction, Any]]:
    """Every battle the attack leaves behind by brute force over its dice (refused: the battle as it is)."""
    checked = ruleset.check(battle, attack)
    if checked.plan is None:
        return [(Fraction(1), battle)]
    out: list[tuple[Fraction, Any]] = []
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        faces, weight = stack.pop()
        try:
            resolution = ruleset.resolve(checked.plan, _Prefix(faces))
        except _Runs as more:
            stack.extend(((*faces, v), weight / more.sides) for v in range(1, more.sides + 1))
            continue
        out.append((weight, ruleset.apply(battle, resolution)))
    return out


def left_of(ruleset: Any, battle: Any, uid: str) -> int:
    return ruleset.duel_left(battle, uid)


def brute_duel(ruleset: Any, battle: Any, a: str, b: str, turns: int) -> dict[tuple[str, int, int, int], Fraction]:
    """The joint distribution of (winner role, turns taken, left of a, left of b), a firing first."""

    def pass_to(state: Any, uid: str) -> Any:
        side = ruleset.side_of(state, uid)
        for _ in range(5):
            state, _log = ruleset.end_turn(state)
            if ruleset.side_to_act(state) in (None, side):
                return state
        raise AssertionError("the turn never passed")

    states: dict[str, Any] = {}

    def key(state: Any) -> str:
        text = json.dumps(ruleset.dump(state), sort_keys=True)
        states[text] = state
        return text

    @cache
    def walk(text: str, turn: int, role: str) -> tuple[tuple[tuple[str, int, int, int], Fraction], ...]:
        state = states[text]
        shooter, target, other = (a, b, "b") if role == "a" else (b, a, "a")
        out: dict[tuple[str, int, int, int], Fraction] = {}
        for p, after in every_roll(ruleset, state, Attack(shooter, target)):
            if left_of(ruleset, after, target) == 0:
                ends = [((role, turn, left_of(ruleset, after, a), left_of(ruleset, after, b)), Fraction(1))]
            elif role == "b" and turn == turns:
                ends = [(("neither", turn, left_of(ruleset, after, a), left_of(ruleset, after, b)), Fraction(1))]
            else:
                nxt = pass_to(after, target)
                ends = list(walk(key(nxt), turn + (role == "b"), other))
            for end, q in ends:
                out[end] = out.get(end, Fraction(0)) + p * q
        return tuple(out.items())

    start = battle
    if ruleset.side_to_act(start) not in (None, ruleset.side_of(start, a)):
        start = pass_to(start, a)
    return dict(walk(key(start), 1, "a"))


def marginals(joint: dict[tuple[str, int, int, int], Fraction]) -> dict[str, dict[Any, Fraction]]:
    out: dict[str, dict[Any, Fraction]] = {"winner": {}, "turns": {}, "a": {}, "b": {}}
    for (winner, turns, left_a, left_b), p in joint.items():
        for name, value in (("winner", winner), ("turns", turns), ("a", left_a), ("b", left_b)):
            out[name][value] = out[name].get(value, Fraction(0)) + p
    return out


def nonzero(d: Any) -> dict[Any, Fraction]:
    """A distribution without its impossible values (the chain keeps them, a brute force never reaches them)."""
    return {k: v for k, v in d.items() if v}


def assert_chain_is(result: Any, joint: dict[tuple[str, int, int, int], Fraction]) -> None:
    """The exact chain's winner, turns and what is left of each equal the brute force's, every one summing to 1."""
    assert sum(joint.values()) == 1
    m = marginals(joint)
    assert nonzero(result.winner) == m["winner"]
    assert nonzero(result.turns) == m["turns"]
    assert nonzero(result.left["a"]) == m["a"]
    assert nonzero(result.left["b"]) == m["b"]
    for d in (result.winner, result.turns, result.left["a"], result.left["b"]):
        assert sum(d.values()) == 1


def assert_sample_agrees(result: Any, estimate: Any, n: int, parts: tuple[str, ...] = ("winner", "turns", "a", "b"),
                         p_min: float = 0.001) -> None:
    """The Monte Carlo's counts agree with the exact chain by chi-square (p above ``p_min``), for each of
    ``parts``: the winner, the turns taken and what is left of unit a and of unit b."""
    from tests.oracles import chi_square

    for part in parts:
        exact, counts = ((result.left[part], estimate.left[part]) if part in ("a", "b") else
                         (getattr(result, part), getattr(estimate, part)))
        assert chi_square(counts, exact, n) > p_min, part


# -- the duel as it was first worked out: unrolled half-turn by half-turn ------------------------------------
def unrolled_duel(ruleset: Any, battle: Any, a: str, b: str, turns: int) -> dict[str, Any]:
    """The duel's first algorithm, kept as a reference for the chain over distinct states: the battles reached
    are walked breadth first, one half-turn at a time (``a`` first, the turn passed by ``duel_pass``), equal
    battles (the game's ``duel_key``, the turn's number included) merged within a half-turn only; every attack the
    game's ``exchanges``. Returns ``winner`` ("a", "b", "neither"), ``turns`` and ``left`` for each role, and the
    battles visited."""
    winner: dict[str, Fraction] = {"a": Fraction(0), "b": Fraction(0), "neither": Fraction(0)}
    taken: dict[int, Fraction] = {}
    left: dict[str, dict[int, Fraction]] = {"a": {}, "b": {}}

    def add(table: dict[Any, Fraction], k: Any, p: Fraction) -> None:
        table[k] = table.get(k, Fraction(0)) + p

    start = ruleset.duel_begin(battle, a)
    frontier: dict[Any, tuple[Any, Fraction]] = {ruleset.duel_key(start): (start, Fraction(1))}
    visited = 0
    for turn in range(1, turns + 1):
        for role, shooter, other, target in (("a", a, "b", b), ("b", b, "a", a)):
            after_half: dict[Any, tuple[Any, Fraction]] = {}
            for state, weight in frontier.values():
                for q, after in ruleset.exchanges(state, Attack(shooter, target)):
                    w = weight * q
                    if ruleset.duel_left(after, target) == 0:  # the target is destroyed: absorbing
                        add(winner, role, w)
                        add(taken, turn, w)
                        add(left[other], 0, w)
                        add(left[role], ruleset.duel_left(after, shooter), w)
                    else:
                        k = ruleset.duel_key(after)
                        seen = after_half.get(k)
                        after_half[k] = (after, w) if seen is None else (seen[0], seen[1] + w)
            if turn == turns and role == "b":
                frontier = after_half
            else:
                frontier = {}
                for s, w in after_half.values():
                    passed = ruleset.duel_pass(s, target)
                    k = ruleset.duel_key(passed)
                    seen = frontier.get(k)
                    frontier[k] = (passed, w) if seen is None else (seen[0], seen[1] + w)
            visited += len(frontier)
    for state, weight in frontier.values():  # the turn limit: neither is destroyed
        add(winner, "neither", weight)
        add(taken, turns, weight)
        add(left["a"], ruleset.duel_left(state, a), weight)
        add(left["b"], ruleset.duel_left(state, b), weight)
    return {"winner": winner, "turns": dict(sorted(taken.items())),
            "left": {r: dict(sorted(d.items())) for r, d in left.items()}, "visited": visited}


# -- the duel to its end, by brute force ----------------------------------------------------------------------
def brute_to_the_end(ruleset: Any, battle: Any, a: str, b: str) -> dict[str, Fraction]:
    """The duel to its end (``a`` first in every turn), sharing no code with the chain: each turn played by
    every dice sequence through the game's ``resolve`` and ``apply`` (:func:`every_roll`), the turn ended by
    ``end_turn``; battles told apart by their scenario text without the turn's number. From each battle at the
    start of a turn, where a turn that changes nothing comes back to it with probability ``q``, ``P(s) = (sum of
    the other ways) / (1 - q)``; recursively (a duel's battles never come back otherwise). Returns the
    probability that a wins, that b wins, and ``E[turns; a]``, ``E[turns; b]`` (the mean turn times the
    probability)."""

    def pass_to(state: Any, uid: str) -> Any:
        side = ruleset.side_of(state, uid)
        for _ in range(5):
            state, _log = ruleset.end_turn(state)
            if ruleset.side_to_act(state) in (None, side):
                return state
        raise AssertionError("the turn never passed")

    def text(state: Any) -> str:
        data = ruleset.dump(state)
        if isinstance(data.get("turn"), dict):
            data["turn"] = {k: v for k, v in data["turn"].items() if k != "number"}
        return json.dumps(data, sort_keys=True)

    done: dict[str, tuple[Fraction, Fraction, Fraction, Fraction]] = {}
    busy: set[str] = set()

    def turn(state: Any) -> list[tuple[Fraction, str | None, Any]]:
        """One whole turn: (p, winner or None, battle at the next turn's start)."""
        out = []
        for p, after in every_roll(ruleset, state, Attack(a, b)):
            if ruleset.duel_left(after, b) == 0:
                out.append((p, "a", None))
                continue
            back = pass_to(after, b)
            for q, again in every_roll(ruleset, back, Attack(b, a)):
                if ruleset.duel_left(again, a) == 0:
                    out.append((p * q, "b", None))
                else:
                    out.append((p * q, None, pass_to(again, a)))
        return out

    def solve(state: Any) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        key = text(state)
        if key in done:
            return done[key]
        assert key not in busy, "a duel's battle came back after a turn that changed it"
        busy.add(key)
        stay = Fraction(0)
        pa = pb = ta = tb = Fraction(0)
        for p, who, nxt in turn(state):
            if who == "a":
                pa += p
                ta += p
            elif who == "b":
                pb += p
                tb += p
            elif text(nxt) == key:
                stay += p
            else:
                na, nb, sa, sb = solve(nxt)
                pa, pb = pa + p * na, pb + p * nb
                ta, tb = ta + p * (na + sa), tb + p * (nb + sb)
        assert stay < 1, "neither unit can harm the other"
        # E[turns; w](s) = sum of p over the ends now + sum of p (P_w(next) + E[turns; w](next)), the turn that
        # changes nothing among them: E (1 - stay) = that sum + stay P_w(s)
        busy.discard(key)
        done[key] = (pa / (1 - stay), pb / (1 - stay), (ta + stay * pa / (1 - stay)) / (1 - stay),
                     (tb + stay * pb / (1 - stay)) / (1 - stay))
        return done[key]

    start = battle
    if ruleset.side_to_act(start) not in (None, ruleset.side_of(start, a)):
        start = pass_to(start, a)
    pa, pb, ta, tb = solve(start)
    return {"a": pa, "b": pb, "turns_a": ta, "turns_b": tb}
