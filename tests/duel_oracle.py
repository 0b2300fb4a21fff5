"""An independent oracle for duels: every dice sequence played through the game's real ``resolve`` and ``apply``.

Each attack is resolved again and again with a source that hands out a fixed prefix of faces and stops, naming
the die's sides, where the prefix runs out; every prefix is then extended by each face in turn. A complete
sequence of k dice of s sides weighs 1/s**k. Nothing here reads the game's exact distributions (``odds``,
``exchanges``): only the rules as the resolver plays them. The turn passes by ``end_turn`` until the other
unit's side is to act. Battles are merged by their scenario text (``dump``), so small units stay quick.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from rangefire.analysis.duel_solve import _adjugate_over_fractions as _adjugate  # the Gauss-Jordan inverse
from rangefire.analysis.duel_solve import _closed
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


# -- the chain to its end as it was first solved: over the product of every part's determinant -----------------
@dataclass
class ProductSolved:
    """The chain to its end: for every end (``("neither", left a, left b)``: a closed part of the chain reached,
    from which neither unit can ever destroy the other) its probability, and the expected turn of the end times
    its indicator, ``E[turn; end]``, each as an integer over ``denominator``; :meth:`probability` makes the exact
    fraction of any sum of them (a mean turn is the ratio of two sums, over the same denominator)."""

    ends: dict[Any, int]
    turn_sums: dict[Any, int]
    denominator: int

    def probability(self, numerator: int) -> Fraction:
        return Fraction(numerator, self.denominator) if numerator else Fraction(0)


def _product(values: list[int]) -> int:
    """The product of many integers, pairwise (a balanced tree: quick for big ones)."""
    while len(values) > 1:
        values = [values[i] * values[i + 1] if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0] if values else 1




def product_solve(graph: Any) -> ProductSolved:
    """The chain to its end, exactly (see the module's text).

    In each part C of the graph with a way out, ``B = diag(den) - N`` (the integer weights among its nodes) gives
    the expected visits ``M`` of its nodes through ``y = M / den``: ``y B = inflow``; and the expected turns
    counted on arriving, ``V``, through ``v = V / den``: ``v B = turns in + M`` at the nodes that begin a turn.
    Every value is kept as an integer over one common denominator, ``D**2``, ``D`` the product of the parts'
    determinants: each part's determinant divides every value reaching it (at most once a probability, twice a
    turn sum), so each division is exact, no two big numbers are ever multiplied, and nothing is reduced until
    the end."""
    from rangefire.analysis.duel_chain import components

    parts = components(graph)
    n = graph.size
    den, edges, ends_of = graph.den, graph.edges, graph.ends
    dets: list[int] = []
    plans: list[tuple[int, list[list[int]], dict[int, int]] | None] = []
    for part in parts:
        members = set(part)
        if _closed(graph, part, members):
            plans.append(None)
            continue
        pos = {i: r for r, i in enumerate(part)}
        if len(part) == 1:
            i = part[0]
            plans.append((den[i] - sum(num for num, j in edges[i] if j == i), [[1]], pos))
        else:
            b = [[den[i] * int(r == c) for c in range(len(part))] for r, i in enumerate(part)]
            for i in part:
                for num, j in edges[i]:
                    if j in pos:
                        b[pos[i]][pos[j]] -= num
            if len(part) == 2:  # the usual part: a volley each way that changes nothing
                (p, q), (r, t) = b
                det, adj = p * t - q * r, [[t, -q], [-r, p]]
            else:
                det, adj = _adjugate(b)
            plans.append((det, adj, pos))
        dets.append(plans[-1][0])  # type: ignore[index]  # just appended
    common = _product(list(dets))
    inflow = [0] * n  # probability arriving from outside a node's part
    turned = [0] * n  # turns counted so far times that probability
    inflow[0] = common * common
    ends: dict[Any, int] = {}
    sums: dict[Any, int] = {}
    for k in range(len(parts) - 1, -1, -1):  # sources first
        part = parts[k]
        plan = plans[k]
        if plan is None:  # no way out: neither unit can ever destroy the other
            mass = sum(inflow[i] for i in part)
            if mass:
                la, lb = graph.lefts[part[0]]
                ends[("neither", la, lb)] = ends.get(("neither", la, lb), 0) + mass
            continue
        det, adj, pos = plan
        ins = [inflow[i] // det for i in part]
        y = [sum(ins[r] * adj[r][c] for r in range(len(part))) for c in range(len(part))]
        # each visit of a node beginning a turn counts a turn: (turns in + M at those nodes) B^-1, over D**2
        base = [turned[i] + (den[i] * y[pos[i]] if graph.turn_start(i) else 0) for i in part]
        scaled = [t // det for t in base]
        v = [sum(scaled[r] * adj[r][c] for r in range(len(part))) for c in range(len(part))]
        for i in part:
            yi, vi = y[pos[i]], v[pos[i]]
            if not yi:
                continue
            for num, j in edges[i]:
                if j not in pos:
                    inflow[j] += yi * num
                    turned[j] += vi * num
            for num, e in ends_of[i]:
                ends[e] = ends.get(e, 0) + yi * num
                sums[e] = sums.get(e, 0) + vi * num
    return ProductSolved(ends, sums, common * common)
