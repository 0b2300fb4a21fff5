"""The lineup's dynamic programme as matrix products in exact residue arithmetic (see :mod:`rangefire.dice.lineup`
for what is counted and why each step is one binomial matrix along one axis).

The states (a, d, s) sit in one of two arrangements: for Y's steps, columns (a, s) of rows d; for X's, columns
(d, u = s - phi(a, d)) of rows a. A step gathers the state into the arrangement it needs, multiplies every column
by the value's binomial matrix at once, and reduces the products modulo the prime. The walk runs for several
primes at once (one more axis) where their arrays stay in the processor's cache together, one prime at a time
beyond; the counts come back by the Chinese remainder theorem (:mod:`rangefire.dice.modular`). A first call's
setting up (binomial tables, prime sets, the arrangements and the gathers between them) is a few vectorised
operations each, as it counts against every answer of a new shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from rangefire.dice.modular import primes_for, reconstruct, reduce, residues

Array = NDArray[np.float64]
Index = NDArray[np.int64]


class ValueStep(NamedTuple):
    """One die value, highest first: whether X's dice there beat a phantom, the weights of Y's and X's face
    showing it (0 where that side has none), and for X's top face the weights of k dice by critical hits."""

    beats_phantom: bool
    w_y: int
    w_x: int
    firsts: list[list[tuple[int, int]]] | None


def score_counts(A: int, D: int, plan: list[ValueStep], total: int) -> list[int]:
    """The weight of each score 0, 1, ... once A dice of X and D of Y (D may be 0) are all placed."""
    extra = max((e for step in plan if step.firsts for ways in step.firsts for e, _ in ways), default=0)
    primes = primes_for(max(A, D, extra) + 1, total)
    # with no more dice than Y has, X's dice never meet a phantom: phi is the same either side of it
    steps = [_Step(v.beats_phantom or A <= D, _binomials(D, v.w_y, primes) if v.w_y else None,
                   _binomials(A, v.w_x, primes) if v.w_x else None, *_critical_columns(v.firsts, primes))
             for v in plan]
    lattice = _lattice(A, D, extra)
    size = max(lattice.y.size, lattice.x.size)
    group = _group_size(size, len(primes))
    buffers = (np.empty(group * size), np.empty(group * size))
    rows = [_Run(lattice, primes[lo:lo + group], buffers).walk(steps, lo) for lo in range(0, len(primes), group)]
    counts = reconstruct(np.concatenate(rows), primes)
    assert sum(counts) == total, "the residues lost a count: the prime bound is wrong"
    return counts


def _critical_columns(steps: list[list[tuple[int, int]]] | None,
                      primes: tuple[int, ...]) -> tuple[tuple[int, ...], Array | None]:
    """The numbers of critical hits X's top face can bring and, modulo each prime, the weights of k X dice on it
    bringing each: shape (primes, k, numbers of hits). None where the value is not X's top face."""
    if not steps:
        return (0,), None
    by_extra: dict[int, list[int]] = {}
    for k, step in enumerate(steps):
        for extra, weight in step:
            by_extra.setdefault(extra, [0] * len(steps))[k] += weight
    shifts = tuple(sorted(by_extra))
    return shifts, np.ascontiguousarray(residues([w for e in shifts for w in by_extra[e]], primes)
                                        .reshape(len(primes), len(shifts), len(steps)).transpose(0, 2, 1))


@lru_cache(maxsize=32)
def _binomials(n: int, w: int, primes: tuple[int, ...]) -> Array:
    """``M[i', i] = C(n - i, i' - i) * w**(i' - i)`` modulo each prime: from i dice placed, i' - i more show
    the value (of weight w) among the n - i left, in as many ways.

    Written ``(n - i)! / (n - i')! * w**k / k!`` (k = i' - i): factorials, inverse factorials and powers of w
    modulo each prime (every prime exceeds n, so the factorials are invertible) are 3n products a prime in
    Python, then one product of three tables in integers (each factor below p < 2**26: below 2**52, exact)."""
    facts, invs, ratios = [], [], []
    for p in primes:
        fact = [1] * (n + 1)
        for m in range(1, n + 1):
            fact[m] = fact[m - 1] * m % p
        inv = [1] * (n + 1)  # 1 / m! modulo p, down from 1 / n!
        inv[n] = pow(fact[n], -1, p)
        for m in range(n, 0, -1):
            inv[m - 1] = inv[m] * m % p
        ratio = [0] * n + [1] * (n + 1)  # w**k / k! at n + k, after n zeros
        power = 1
        for k in range(n + 1):
            ratio[n + k] = power * inv[k] % p
            power = power * w % p
        facts.append(fact)
        invs.append(inv)
        ratios.append(ratio)
    q = np.array(primes, dtype=np.int64)[:, None, None]
    # [i', i] = ratio[i' - i] (0 where i' < i): windows over the padded ratios, read backwards
    toeplitz = sliding_window_view(np.array(ratios, dtype=np.int64), n + 1, axis=1)[:, :, ::-1]
    left = np.array(facts, dtype=np.int64)[:, None, ::-1]  # (n - i)! along the columns
    right = np.array(invs, dtype=np.int64)[:, ::-1, None]  # 1 / (n - i')! along the rows
    out: Array = (toeplitz * left % q * right % q).astype(np.float64)
    return out


#: Primes walked at once: as many as keep a walk's state within this many numbers (256 KiB a buffer, in the
#: processor's cache). Small pools (20 against 20: all their primes at once) take fewer steps in Python; large
#: ones (40 against 40) walk one prime at a time, as they would gain nothing and overflow the cache.
GROUP_STATES = 2**15


def _group_size(states: int, primes: int) -> int:
    """How many of ``primes`` to walk at once, for ``states`` numbers a prime."""
    return max(1, min(primes, GROUP_STATES // states))


#: OpenBLAS runs a matrix product on one thread up to this many multiply-adds. Products this small gain nothing
#: from a second thread, and on a busy machine a thread waiting for a core costs many times the product.
_ONE_THREAD_WORK = 4 * 65536


class _Layout:
    """One arrangement of the states in a flat array: columns ``(outer, inner)`` (inner from 0 to
    ``bounds[outer]``), each a run of ``rows`` numbers along the axis the step's matrix acts on, the columns cut
    into chunks of ``width`` so that each product stays within :data:`_ONE_THREAD_WORK`. At least one column is
    spare: it stays zero and stands for every state outside the arrangement (the sentinel)."""

    def __init__(self, rows: int, bounds: list[int]) -> None:
        counts = np.array(bounds) + 1
        self.columns = int(counts.sum())
        self.rows = rows
        self.width = max(1, min(self.columns + 1, _ONE_THREAD_WORK // (rows * rows)))
        self.chunks = -(-(self.columns + 1) // self.width)
        self.size = self.chunks * rows * self.width
        self.bounds = np.array(bounds)
        #: the first column of each outer index
        self.start = np.cumsum(counts) - counts
        #: for each column (and the spare ones after them, as outer 0, inner 0), its outer and inner index
        padded = self.chunks * self.width
        self.col_outer = np.zeros(padded, dtype=np.int64)
        self.col_outer[self.start[1:]] = 1
        self.col_outer = np.cumsum(self.col_outer)
        self.col_outer[self.columns:] = 0
        self.col_inner = np.arange(padded) - self.start[self.col_outer]
        self.col_inner[self.columns:] = 0
        #: the flat position of each column's first number: (chunk * rows) * width + place in the chunk
        every = np.arange(padded)
        self.column_start = every // self.width * rows * self.width + every % self.width
        self.sentinel = int(self.column_start[self.columns])

    def grid(self, values: Index) -> Index:
        """Values worked out for every (row, column) as a (rows, columns) grid, laid out flat as the states are."""
        return values.reshape(self.rows, self.chunks, self.width).transpose(1, 0, 2).ravel()


class _Lattice:
    """The two arrangements of the states (a, d, s) for A against D dice with up to ``extra`` critical hits
    (for Y's steps columns (a, s) of rows d; for X's, columns (d, u = s - phi(a, d)) of rows a) and the gathers
    from one to the other, worked out once per shape."""

    def __init__(self, A: int, D: int, extra: int) -> None:
        self.A, self.D, self.top = A, D, A + extra
        self.y = _Layout(D + 1, [min(self.top, a + extra) for a in range(A + 1)])
        # u <= min(a, d) + extra, and up to A - D more where phantoms of equal or higher value never lose
        self.x = _Layout(A + 1, [min(self.top, d + extra + max(0, A - D)) for d in range(D + 1)])
        self.origin = 0  # (d, a, s) = (0, 0, 0): row 0 of the first column
        y = self.y
        #: the a of each column of the Y arrangement
        self.y_outer = y.col_outer[:y.columns]
        self._maps: dict[tuple[str, bool, object], Index] = {}

    def phi(self, beats_phantom: bool, a: Index, d: Index) -> Index:
        """The pairs X has won by placing a dice against Y's d, were every die placed so far its highest."""
        return np.maximum((a if beats_phantom else np.minimum(a, self.D)) - d, 0)

    def _in_y(self, a: Index, d: Index, s: Index, ok: NDArray[np.bool_]) -> Index:
        """The flat positions in the Y arrangement of states (a, d, s) (the sentinel where ``ok`` is false or
        the state lies outside)."""
        y = self.y
        ok = ok & (s >= 0) & (s <= y.bounds[a])
        return np.where(ok, y.column_start[np.where(ok, y.start[a] + s, 0)] + d * y.width, y.sentinel)

    def to_x(self, beats_phantom: bool) -> Index:
        """Where each state of the X arrangement lies in the Y arrangement."""
        key = ("x", beats_phantom, 0)
        if key not in self._maps:
            x = self.x
            a = np.arange(x.rows)[:, None]
            d, u = x.col_outer[None, :], x.col_inner[None, :]
            valid = np.arange(x.chunks * x.width)[None, :] < x.columns
            self._maps[key] = x.grid(self._in_y(a, d, u + self.phi(beats_phantom, a, d), valid))
        return self._maps[key]

    def to_x_row0(self, beats_phantom: bool, shifts: tuple[int, ...]) -> Index:
        """:meth:`to_x` for row a = 0 only (where phi is 0), once for each shift of the score: shaped (chunks,
        shifts, width), to be multiplied by the columns of X's first value."""
        key = ("x0", beats_phantom, shifts)
        if key not in self._maps:
            x = self.x
            s = x.col_inner[None, :] - np.array(shifts)[:, None]
            valid = np.arange(x.chunks * x.width)[None, :] < x.columns
            found = self._in_y(np.zeros_like(s), x.col_outer[None, :], s, valid)
            self._maps[key] = np.ascontiguousarray(found.reshape(len(shifts), x.chunks, x.width).transpose(1, 0, 2))
        return self._maps[key]

    def final_scores(self, beats_phantom: bool, shift: int) -> Index:
        """For each column (a, s) of row D, the score once X places its last A - a dice (``shift`` more)."""
        key = ("f", beats_phantom, shift)
        if key not in self._maps:
            y, full = self.y, np.array(self.D)
            a, s = self.y_outer, y.col_inner[:y.columns]
            self._maps[key] = s + shift + self.phi(beats_phantom, np.array(self.A), full) - self.phi(beats_phantom,
                                                                                                       a, full)
        return self._maps[key]

    def to_y(self, beats_phantom: bool) -> Index:
        """Where each state of the Y arrangement lies in the X arrangement of that kind of phi: the same pairs of
        states as :meth:`to_x`, the other way (every state of one found in the other), the sentinel elsewhere."""
        key = ("y", beats_phantom, 0)
        if key not in self._maps:
            to_x = self.to_x(beats_phantom)
            found = np.flatnonzero(to_x != self.y.sentinel)
            out = np.full(self.y.size, self.x.sentinel, dtype=np.int64)
            out[to_x[found]] = found
            self._maps[key] = out
        return self._maps[key]


@lru_cache(maxsize=16)
def _lattice(A: int, D: int, extra: int) -> _Lattice:
    return _Lattice(A, D, extra)


@dataclass(frozen=True)
class _Step:
    """One die value: whether X's dice there beat a phantom, and the binomial matrices of Y's and X's dice
    showing it (None where that side has no such face); for X's top face, the numbers of critical hits and, for
    each, the weights of k dice bringing that many (one column a number of hits)."""

    beats_phantom: bool
    y: Array | None
    x: Array | None
    shifts: tuple[int, ...] = (0,)
    firsts: Array | None = None


class _Run:
    """One lineup modulo a group of primes at once (the first axis of every array): the state in the Y
    arrangement, or in the X one for a kind of phi (``self.phi``: None for Y).

    Two buffers take turns: a gather or a product writes the one the state is not in, and a reduction uses the one
    it has just left as scratch. Each is written whole before it is read."""

    def __init__(self, lattice: _Lattice, primes: tuple[int, ...], buffers: tuple[Array, Array]) -> None:
        self.lattice = lattice
        g = self.group = len(primes)
        self.prime = np.array(primes, dtype=np.float64)
        self.inverse = 1.0 / self.prime
        y, x = lattice.y, lattice.x
        self.ys = [b[:g * y.size].reshape(g, y.chunks, y.rows, y.width) for b in buffers]
        self.xs = [b[:g * x.size].reshape(g, x.chunks, x.rows, x.width) for b in buffers]
        self.at = 0  # the buffer the state is in
        self.state = self.ys[0]
        self.state.fill(0.0)
        self.state.reshape(g, -1)[:, lattice.origin] = 1.0
        self.phi: bool | None = None
        self.placed_x = self.placed_y = False

    def _reduce(self, values: Array, scratch: Array) -> Array:
        shape = (self.group,) + (1,) * (values.ndim - 1)
        reduce(values, self.prime.reshape(shape), self.inverse.reshape(shape), scratch)
        return values

    def _moved(self, out: Array, phi: bool | None) -> None:
        """The state is now ``out``, in the other buffer."""
        self.state, self.phi, self.at = out, phi, 1 - self.at

    def _in_y(self) -> Array:
        if self.phi is not None:
            out = self.ys[1 - self.at]
            np.take(self.state.reshape(self.group, -1), self.lattice.to_y(self.phi), axis=1,
                    out=out.reshape(self.group, -1), mode="clip")
            self._moved(out, None)
        return self.state

    def _in_x(self, phi: bool) -> Array:
        if self.phi != phi:
            self._in_y()
            out = self.xs[1 - self.at]
            np.take(self.state.reshape(self.group, -1), self.lattice.to_x(phi), axis=1,
                    out=out.reshape(self.group, -1), mode="clip")
            self._moved(out, phi)
        return self.state

    def walk(self, plan: list[_Step], lo: int) -> Array:
        """Every value but the last as steps, then the last into the weights of each score (primes ``lo`` to
        ``lo + group`` of the plan's matrices)."""
        hi = lo + self.group
        for step in plan[:-1]:
            if step.y is not None:
                self.y_step(step.y[lo:hi])
            if step.x is not None:
                self.x_step(step, lo, hi)
        return self.last(plan[-1], lo, hi)

    def y_step(self, matrix: Array) -> None:
        """Y places dice of one value (the score does not move)."""
        cur = self._in_y()
        if not (self.placed_y or self.placed_x):  # the origin's 1 alone, at row 0 of column 0: M's first column
            cur[:, 0, :, 0] = matrix[:, :, 0]
            self.placed_y = True
            return
        out = self.ys[1 - self.at]
        if self.placed_y:
            np.matmul(matrix[:, None], cur, out=out)
        else:  # nothing placed yet: only row 0 holds anything
            np.multiply(matrix[:, None, :, :1], cur[:, :, :1, :], out=out)
        self._moved(out, None)
        self._reduce(out, self.ys[1 - self.at])
        self.placed_y = True

    def x_step(self, step: _Step, lo: int, hi: int) -> None:
        """X places dice of one value (``score - phi`` does not move); X's first value places them from row 0
        only, once for each number of critical hits (a shift of the score)."""
        assert step.x is not None
        if self.placed_x:
            cur = self._in_x(step.beats_phantom)
            out = self.xs[1 - self.at]
            np.matmul(step.x[lo:hi, None], cur, out=out)
        else:  # row 0 gathered once per shift, then every row as one product: columns by shifts
            source = self._in_y().reshape(self.group, -1)
            gathered = source.take(self.lattice.to_x_row0(step.beats_phantom, step.shifts), axis=1, mode="clip")
            columns = step.firsts[lo:hi] if step.firsts is not None else step.x[lo:hi, :, :1]
            out = self.xs[1 - self.at]
            np.matmul(columns[:, None], gathered, out=out)
        self._moved(out, step.beats_phantom)
        self._reduce(out, self.xs[1 - self.at])
        self.placed_x = True

    def last(self, step: _Step, lo: int, hi: int) -> Array:
        """The last value places every die left: Y's to D, then X's to A; the residues of each score's weight
        (one row a prime)."""
        lat, g = self.lattice, self.group
        cur = self._in_y()
        if step.y is None:
            row = cur[:, :, lat.D, :].reshape(g, -1)
        elif self.placed_y:
            row = np.matmul(step.y[lo:hi, None, lat.D:lat.D + 1], cur).reshape(g, -1)
        else:
            row = (step.y[lo:hi, lat.D, 0, None, None] * cur[:, :, 0, :]).reshape(g, -1)
        row = self._reduce(row, np.empty_like(row))[:, :lat.y.columns]  # one row: its columns in order
        if step.x is None:
            weights = [(0, np.broadcast_to((np.arange(lat.A + 1) == lat.A).astype(np.float64), (g, lat.A + 1)))]
        elif self.placed_x:
            weights = [(0, step.x[lo:hi, lat.A])]
        else:  # X places all its dice at its only value, criticals included
            firsts = step.firsts if step.firsts is not None else step.x[:, :, :1]
            weights = [(e, np.where(np.arange(lat.A + 1) == 0, firsts[lo:hi, lat.A, j, None], 0.0))
                       for j, e in enumerate(step.shifts)]
        size = lat.top + 2  # scores 0 to top, and a bin for any beyond (unreachable: weight 0), one row a prime
        out = np.zeros(g * size)
        offsets = (np.arange(g) * size)[:, None]
        for shift, vec in weights:
            gained = np.minimum(lat.final_scores(step.beats_phantom, shift), lat.top + 1)
            terms = row * vec[:, lat.y_outer]
            out += np.bincount((offsets + gained).ravel(), self._reduce(terms, np.empty_like(terms)).ravel(),
                               minlength=g * size)
        return np.mod(out.reshape(g, size)[:, :-1], self.prime[:, None])
