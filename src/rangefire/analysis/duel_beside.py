"""A duel's turn-by-turn distribution stepped on a second core while its chain is solved.

The chain's solution (:func:`~rangefire.analysis.duel_solve.solve`) and its stepping
(:func:`~rangefire.analysis.duel_chain.step`) read the same graph and nothing of each other, until the stepping is
asked whether it has gone far enough, which needs the solution's totals. So on Linux, with more than one core to
run on, a process of one thread forks once the graph is built: the child steps turn after turn and writes each
turn's weights by winner down a pipe (it waits there when the pipe is full), while the parent solves, and stops
once the share of each end the parent will ask for is surely reached; the parent then reads the turns until it
has enough, and ends the child. The turns are the very ones the stepping in one
process gives (the same function steps them); where no fork can be had (another thread runs, one core, no
``fork``), or the graph is small enough that a fork would cost more than it saves, the stepping runs after the
solution in the one process.

The child only computes and writes to its pipe, and leaves by ``os._exit``: it runs nothing of the parent's at its
end (no ``atexit``, no buffered output flushed twice).
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from fractions import Fraction
from typing import IO, Any

from rangefire.analysis.duel_ahead import Forking, beside, fork_child
from rangefire.analysis.duel_chain import End, Graph, Stepped, step

WINNERS = ("a", "b", "both")


@dataclass
class ByTurn:
    """The ends reached turn by turn, by winner: ``ended[t]`` the weights ("a", "b", "both") of the ends reached in
    turn ``t + 1``, over ``denominators[t]``; ``cut`` where the stepping stopped at its work limit."""

    ended: list[dict[str, int]] = field(default_factory=list)
    denominators: list[int] = field(default_factory=list)
    cut: bool = False

    @property
    def turns(self) -> int:
        return len(self.ended)

    @property
    def denominator(self) -> int:
        return self.denominators[-1] if self.denominators else 1

    @classmethod
    def of(cls, stepped: Stepped) -> ByTurn:
        return cls([by_winner(e) for e in stepped.ended], list(stepped.denominators), stepped.cut)


#: Asked after each turn, with the turns so far and the weights of each winner's ends to it (over the last
#: denominator), whether the stepping has gone far enough.
Enough = Callable[[ByTurn, dict[str, int]], bool]


def by_winner(ended: Mapping[End, int]) -> dict[str, int]:
    """The weights of one turn's ends summed by winner."""
    out: dict[str, int] = {}
    for (winner, _, _), w in ended.items():
        out[winner] = out.get(winner, 0) + w
    return out


class Stepping(Forking):
    """The stepping of ``graph`` for at most ``turns`` turns, within ``max_work`` (as :func:`step` with
    ``partial``), begun beside whatever runs within the ``with`` block and read by :meth:`collect`.

    ``cores``: 1 steps in this process (after the block's work); 2 forks where ``os.fork`` exists, whatever else
    runs; None (the default) forks where :func:`~rangefire.analysis.duel_ahead.can_fork` and the graph has at
    least :data:`~rangefire.analysis.duel_ahead.BESIDE_NODES` nodes (:func:`~rangefire.analysis.duel_ahead.beside`).

    ``reach``: the share of each end that the reader's ``enough`` asks for, if it asks for no more; the child then
    stops by itself once that share is surely reached (:func:`surely_reached`), not stepping on (taking a core
    and the memory's bandwidth from the work beside it) until it is read."""

    def __init__(self, graph: Graph, turns: int, max_work: int | None, cores: int | None = None,
                 reach: Fraction | None = None) -> None:
        self.graph, self.turns, self.max_work, self.reach = graph, turns, max_work, reach
        self.beside = beside(cores, graph.size)
        self.pid = 0
        self.pipe: IO[bytes] | None = None

    def __enter__(self) -> Stepping:
        if self.beside:
            read, write = os.pipe()

            def child() -> None:
                os.close(read)
                _step_into(self.graph, self.turns, self.max_work, write, self.reach)

            pid, held = fork_child(child)
            if not pid:  # no process to be had (a limit on processes, or on memory): one process then
                os.close(read)
                os.close(write)
                self.beside = False
                return self
            os.close(write)
            self.pid, self.pipe = pid, os.fdopen(read, "rb")
            self._known(held)
        return self

    def _end(self) -> None:
        if self.pid:
            with suppress(ProcessLookupError):  # it may have left already
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self.pipe is not None:
            self.pipe.close()
            self.pipe = None

    def collect(self, enough: Enough) -> ByTurn:
        """The turns until ``enough`` says so, the turn limit or the work limit. Should the child fail (a fault of
        the machine, not of the duel), the turns are stepped here instead."""
        if self.pipe is not None:
            try:
                return _read(self.pipe, enough)
            except (EOFError, pickle.UnpicklingError, OSError):
                self._end()

        so_far = ByTurn()

        def asked(stepped: Stepped, cumulative: dict[str, int]) -> bool:
            so_far.ended.append(by_winner(stepped.ended[-1]))
            so_far.denominators.append(stepped.denominators[-1])
            return enough(so_far, cumulative)

        so_far.cut = step(self.graph, self.turns, asked, self.max_work, partial=True).cut
        return so_far


def surely_reached(graph: Graph, reach: Fraction) -> Callable[[Stepped, dict[str, int]], bool]:
    """Whether ``reach`` of every end is surely reached, whatever becomes of the duels still undecided: for each
    winner the graph can end with (each end of its nodes is reached with a chance above 0), its weight so far
    ``c`` and the weight still undecided ``u`` (over the same denominator) with ``c >= reach * (c + u)``. Its end's
    whole chance is at most ``c + u``, so the reader's ``enough`` (``c >= reach * P``) holds by then, for "any" too
    (the undecided weight counted once at least)."""
    possible = {winner for found in graph.ends for _, (winner, _, _) in found}
    n, d = reach.numerator, reach.denominator

    def reached(stepped: Stepped, cumulative: dict[str, int]) -> bool:
        undecided = stepped.denominator - sum(cumulative.values())
        return all(cumulative[w] * (d - n) >= n * undecided for w in possible)

    return reached


def _step_into(graph: Graph, turns: int, max_work: int | None, fd: int, reach: Fraction | None = None) -> None:
    """The child's work: each turn's weights by winner and the common denominator, then whether it was cut;
    stopped once ``reach`` of every end is surely reached (:func:`surely_reached`), where it is given."""
    done = surely_reached(graph, reach) if reach is not None else None
    with os.fdopen(fd, "wb") as pipe:
        def send(stepped: Stepped, cumulative: dict[str, int]) -> bool:
            pickle.dump(("turn", by_winner(stepped.ended[-1]), stepped.denominators[-1]), pipe)
            pipe.flush()
            return done is not None and done(stepped, cumulative)

        stepped = step(graph, turns, send, max_work, partial=True)
        pickle.dump(("end", stepped.cut), pipe)


def _read(pipe: IO[bytes], enough: Enough) -> ByTurn:
    out = ByTurn()
    cumulative = dict.fromkeys(WINNERS, 0)
    while True:
        record: tuple[Any, ...] = pickle.load(pipe)
        if record[0] == "end":
            out.cut = bool(record[1])
            return out
        _, weights, denominator = record
        scale = denominator // out.denominator  # the common denominator only grows, by whole factors
        for w in WINNERS:
            cumulative[w] = cumulative[w] * scale + weights.get(w, 0)
        out.ended.append(weights)
        out.denominators.append(denominator)
        if enough(out, cumulative):
            return out
