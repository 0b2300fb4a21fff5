"""The duel as an absorbing Markov chain over the distinct states of its two units.

A **node** is a state of the duel (what the rules can tell apart: stands, micro-hits, disorder, markers, order
points, ammunition, wounds, turn marks, the side to act; never the turn's number, which no rule of a duel reads)
together with its place in the order of fire (``phase``: which half-turn of the firing pattern comes next). Each
node is worked out once, however many turns reach it: its **edges** are the nodes one attack and the turn's
passing lead to, and its **ends** the results that destroy a unit, each with an exact integer weight over the
node's denominator (``den``). A game gives its states through a :class:`DuelModel`.

Two ways over the same graph, each exact:

- :func:`step`: the exact distribution half-turn after half-turn, as integer weights over one common denominator
  (as icepool keeps its weights), every node's mass moved along its edges; the ends reached in each turn are
  recorded. A turn limit is answered so, the mass still undecided at it reported exactly.
- :func:`~rangefire.analysis.duel_solve.solve`: the chain to its end, by the strongly connected parts of the graph
  (:func:`components`) in order, sources first (most are two nodes, a volley each way that changes nothing): the
  expected visits of each node give the probability of every end exactly, and the expected turns counted on
  arriving give each end's expected turn. A closed part with no way out (neither unit can ever harm the other)
  ends "never".
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from gmpy2 import mpz  # type: ignore[import-untyped]  # GMP's integers (no type stubs)

#: Who fires in each half-turn, by the ``first`` option: a turn is two half-turns, one for each unit.
PATTERNS: dict[str, tuple[str, ...]] = {"a": ("a", "b"), "b": ("b", "a"), "alternate": ("a", "b", "b", "a")}
#: An end of the duel: who is left standing ("a", "b", "both" destroyed, or "neither" at a limit or never), with
#: what is left of unit a and of unit b.
End = tuple[str, int, int]


class DuelModel(Protocol):
    """A game's states in a duel of units ``a`` and ``b`` (by id), each a hashable key."""

    def start(self, first: str) -> Hashable:
        """The state as the duel begins, ``first`` (a unit's id) to fire."""

    def fire(self, state: Hashable, shooter: str, target: str, then: str) -> tuple[int, list[tuple[int, Hashable]]]:
        """``shooter`` fires at ``target``; where neither is destroyed the turn then passes to ``then`` (the same
        unit as ``shooter``: the turn passes round to it again). Returns a denominator and the states left behind
        with integer weights summing to it; a state where a unit is destroyed is returned as it is after the
        attack (never passed on)."""

    def left(self, state: Hashable, uid: str) -> int:
        """What is left of a unit in a state: 0 when it is destroyed."""


#: What a model may give beside :meth:`DuelModel.fire`, for :func:`build` to ask instead:
#: ``transitions(state, shooter, target, then)``, the same volley split: the denominator; the weights, the
#: states where both units stand, each state once, in the order ``fire`` gives them, and what is left of the
#: shooter and of the target in each; and the ends, each as (weight, what is left of the shooter, what is left of
#: the target). A model without it is asked ``fire`` and ``left`` of every state (:func:`transitions`).
Split = tuple[int, Sequence[int], Sequence[Hashable], Sequence[tuple[int, int]], list[tuple[int, int, int]]]
Transitions = Callable[[Hashable, str, str, str], Split]


def transitions(model: DuelModel) -> Transitions:
    """The model's ``transitions``, or its ``fire`` split so, ``left`` asked of each state."""
    found: Transitions | None = getattr(model, "transitions", None)
    if found is not None:
        return found

    def split(state: Hashable, shooter: str, target: str, then: str) -> Split:
        den, found = model.fire(state, shooter, target, then)
        moved: dict[Hashable, int] = {}
        lefts: dict[Hashable, tuple[int, int]] = {}
        ends = []
        for weight, after in found:
            ls, lt = model.left(after, shooter), model.left(after, target)
            if ls and lt:
                moved[after] = moved.get(after, 0) + weight
                lefts[after] = (ls, lt)
            else:
                ends.append((weight, ls, lt))
        return den, list(moved.values()), list(moved), list(lefts.values()), ends

    return split


class WorkLimit(Exception):
    """The chain passed a limit while it was being built or stepped (the caller refuses the duel)."""


@dataclass
class Graph:
    """The chain's nodes (state key, phase), each node's denominator, edges and ends."""

    pattern: tuple[str, ...]
    ids: tuple[str, str]
    keys: list[tuple[Hashable, int]] = field(default_factory=list)
    den: list[int] = field(default_factory=list)
    edges: list[list[tuple[int, int]]] = field(default_factory=list)
    ends: list[list[tuple[int, End]]] = field(default_factory=list)
    lefts: list[tuple[int, int]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.keys)

    @property
    def weighed(self) -> int:
        return sum(len(e) for e in self.edges) + sum(len(e) for e in self.ends)

    def turn_start(self, node: int) -> bool:
        """Whether the node begins a turn (the first half-turn of a turn is next)."""
        return self.keys[node][1] % 2 == 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's collector of cycles paused for a duel's work, resumed as it was whatever happens: the graph, the
    model's tables and the numbers worked out over them only grow or are let go whole (no cycle is left behind),
    and each of the collector's full passes would go over every object of the process again (some 0.8 s of a
    duel of 20 stands against 20, most of it while the chain is solved and stepped)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


@collector_paused()
def build(model: DuelModel, a: str, b: str, first: str, max_nodes: int | None = None,
          progress: Callable[[int], None] | None = None,
          found: Callable[[Hashable, str, str], None] | None = None) -> Graph:
    """Every node the duel can reach from its start, each worked out once; :class:`WorkLimit` past ``max_nodes``.
    ``progress(nodes)`` is told every 256 nodes worked out (Python's collector paused meanwhile:
    :func:`collector_paused`); ``found(state, shooter, target)`` of every node as it is found, some while before
    it is worked out (:class:`~rangefire.analysis.duel_ahead.Ahead`)."""
    return _build(model, a, b, first, max_nodes, progress, found)


def _build(model: DuelModel, a: str, b: str, first: str, max_nodes: int | None,
           progress: Callable[[int], None] | None, found: Callable[[Hashable, str, str], None] | None) -> Graph:
    pattern = PATTERNS[first]
    ids = {"a": a, "b": b}
    graph = Graph(pattern, (a, b))
    keys, lefts, dens, all_edges, all_ends = graph.keys, graph.lefts, graph.den, graph.edges, graph.ends
    index: list[dict[Hashable, int]] = [{} for _ in pattern]  # each phase's nodes by their state
    limit = math.inf if max_nodes is None else max_nodes
    fire = transitions(model)
    # each phase: who fires at whom, to whom the turn then passes, the next phase, and whether a fires
    phases = [(ids[role], ids["b" if role == "a" else "a"], ids[pattern[(phase + 1) % len(pattern)]],
               (phase + 1) % len(pattern), role == "a") for phase, role in enumerate(pattern)]
    start = model.start(ids[pattern[0]])
    index[0][start] = 0
    keys.append((start, 0))
    lefts.append((model.left(start, a), model.left(start, b)))
    done = 0
    while done < len(keys):
        state, phase = keys[done]
        shooter, target, then, nxt, a_fires = phases[phase]
        den, weights, afters, left, ended = fire(state, shooter, target, then)
        at = index[nxt]
        js: list[int | None] = list(map(at.get, afters))
        if None in js:  # new nodes, numbered in the order they are reached
            for i in [i for i, j in enumerate(js) if j is None]:
                after = afters[i]
                j = js[i] = at[after] = len(keys)
                if j >= limit:
                    raise WorkLimit(f"more than {max_nodes:,} states")
                keys.append((after, nxt))
                lefts.append(left[i] if a_fires else left[i][::-1])
                if found is not None:
                    found(after, *phases[nxt][:2])
        edges = list(zip(weights, js, strict=True))
        ends: dict[End, int] = {}
        for weight, ls, lt in ended:
            la, lb = (ls, lt) if a_fires else (lt, ls)
            end: End = ("both" if la == lb == 0 else "a" if lb == 0 else "b", la, lb)
            ends[end] = ends.get(end, 0) + weight
        common = math.gcd(den, *weights, *ends.values())  # the weights in lowest terms: smaller sums
        if common == 1:
            dens.append(den)
            all_edges.append(edges)  # type: ignore[arg-type]  # every j is a node's number now
        else:
            dens.append(den // common)
            all_edges.append([(w // common, j) for w, j in edges])  # type: ignore[misc]
        all_ends.append([(w // common, e) for e, w in ends.items()])
        done += 1
        if progress is not None and done % 256 == 0:
            progress(done)
    return graph


# -- stepping the exact distribution --------------------------------------------------------------------------
@dataclass
class Stepped:
    """The exact distribution half-turn by half-turn: ``ended[t]`` the ends reached in turn ``t + 1`` (weights over
    ``denominators[t]``, the common denominator at that turn's end), ``undecided`` the nodes' weights after the last
    turn stepped, over ``denominator``."""

    turns: int = 0
    ended: list[dict[End, int]] = field(default_factory=list)
    denominators: list[int] = field(default_factory=list)
    undecided: dict[int, int] = field(default_factory=dict)
    denominator: int = 1
    #: Whether the stepping stopped at its work limit (``partial``) before ``enough`` said so.
    cut: bool = False

    def ended_in(self, t: int) -> dict[End, Fraction]:
        """The ends reached in turn ``t`` (from 1), as exact probabilities."""
        d = self.denominators[t - 1]
        return {e: Fraction(w, d) for e, w in self.ended[t - 1].items()}


def step(graph: Graph, turns: int, enough: Callable[[Stepped, dict[str, int]], bool] | None = None,
         max_work: int | None = None, partial: bool = False) -> Stepped:
    """The exact distribution stepped for at most ``turns`` turns (two half-turns each), all mass as integer
    weights over one common denominator. ``enough(stepped, ended_by_winner)`` is asked after each turn (the
    weights by winner so far, over ``stepped.denominator``) and stops the stepping when it says so;
    :class:`WorkLimit` once the work (weights multiplied, by their size in machine words) passes ``max_work``, or
    where ``partial``, the turns stepped until then (``cut``)."""
    out = Stepped(undecided={0: 1})
    cumulative = {"a": 0, "b": 0, "both": 0}
    work = 0
    den, edges, ends = graph.den, graph.edges, graph.ends
    # the weights are GMP's integers (gmpy2), some three times quicker than Python's at a long weight times a
    # short one, every edge's work; what is given back is in Python's integers
    zero = mpz(0)
    active = [(0, mpz(1))]
    for _ in range(turns):
        if max_work is not None:
            size = out.denominator.bit_length() // 64 + 1
            work += sum(len(edges[i]) + len(ends[i]) for i, _ in active) * size * 2
            if work > max_work:
                if partial:
                    out.cut = True
                    out.undecided = {j: int(w) for j, w in active}
                    return out
                raise WorkLimit(f"more than {max_work:,} steps of work")
        ended: dict[End, Any] = {}
        for _half in range(2):
            lcm = math.lcm(*{den[i] for i, _ in active})
            moved = [zero] * graph.size
            if lcm != 1:  # what ended earlier is brought over the new common denominator
                ended = {e: w * lcm for e, w in ended.items()}
                for k in cumulative:
                    cumulative[k] *= lcm
            for i, w in active:
                wf = w * (lcm // den[i])
                for num, j in edges[i]:
                    moved[j] += wf * num
                for num, e in ends[i]:
                    ended[e] = ended.get(e, zero) + wf * num
            out.denominator *= lcm
            active = [(j, w) for j, w in enumerate(moved) if w]
        out.turns += 1
        out.ended.append({e: int(w) for e, w in ended.items()})
        out.denominators.append(out.denominator)
        for (winner, _, _), w in ended.items():
            cumulative[winner] += int(w)
        if enough is not None and enough(out, cumulative):
            break
    out.undecided = {j: int(w) for j, w in active}
    return out


# -- the chain to its end (:mod:`rangefire.analysis.duel_solve`) -----------------------------------------
def components(graph: Graph) -> list[list[int]]:
    """The strongly connected parts of the graph (Tarjan's, without recursion), each part after every part it
    leads to (sinks first)."""
    index = [-1] * graph.size
    low = [0] * graph.size
    on_stack = [False] * graph.size
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(graph.size):
        if index[root] != -1:
            continue
        work: list[tuple[int, Iterator[tuple[int, int]]]] = [(root, iter(graph.edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, it = work[-1]
            for _, w in it:
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, iter(graph.edges[w])))
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    part = []
                    while True:
                        w = stack.pop()
                        on_stack[w] = False
                        part.append(w)
                        if w == v:
                            break
                    out.append(part)
    return out


# -- a game's battles as the chain's states -------------------------------------------------------------------
class BattleModel:
    """The states of a duel as the game's own battles, merged by the game's ``state_key`` (the battle but the
    turn's number), every attack the game's ``exchanges`` and every passing of the turn its ``duel_pass``: for a
    game whose duel module has no states of its own (``chain_model``)."""

    def __init__(self, ruleset: Any, battle: Any, key: Callable[[Any], Hashable]) -> None:
        self.ruleset, self.battle, self.key = ruleset, battle, key
        self.battles: dict[Hashable, Any] = {}
        self.lefts: dict[tuple[Hashable, str], int] = {}

    def _keep(self, battle: Any) -> Hashable:
        k = self.key(battle)
        self.battles.setdefault(k, battle)
        return k

    def start(self, first: str) -> Hashable:
        return self._keep(self.ruleset.duel_begin(self.battle, first))

    def left(self, state: Hashable, uid: str) -> int:
        found = self.lefts.get((state, uid))
        if found is None:
            found = self.lefts[(state, uid)] = self.ruleset.duel_left(self.battles[state], uid)
        return found

    def fire(self, state: Hashable, shooter: str, target: str, then: str) -> tuple[int, list[tuple[int, Hashable]]]:
        from rangefire.core import Attack

        found = self.ruleset.exchanges(self.battles[state], Attack(shooter, target))
        den = 1
        for p, _ in found:
            den = math.lcm(den, p.denominator)
        out = []
        for p, after in found:
            weight = p.numerator * (den // p.denominator)
            if self.ruleset.duel_left(after, shooter) and self.ruleset.duel_left(after, target):
                if then == shooter:  # the turn passes round to the unit that fired last
                    after = self.ruleset.duel_pass(after, target)
                after = self.ruleset.duel_pass(after, then)
            out.append((weight, self._keep(after)))
        return den, out
