"""The lineup's dynamic programme as matrix products in exact residue arithmetic (see :mod:`rangefire.dice.lineup`
for what is counted and why each step is one binomial matrix along one axis).

The states (a, d, s) sit in one of two arrangements: for Y's steps, columns (a, s) of rows d; for X's, columns
(d, u = s - phi(a, d)) of rows a. A step gathers the state into the arrangement it needs, multiplies every column
by the value's binomial matrix at once, and reduces the products modulo the prime. The whole walk runs once per
prime, on arrays small enough to stay in the processor's cache; the counts come back by the Chinese remainder
theorem (:mod:`rangefire.dice.modular`).
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
                   _binomials(A, v.w_x, primes) if v.w_x else None,
                   _critical_columns(v.firsts, primes) if v.firsts else None) for v in plan]
    lattice = _lattice(A, D, extra)
    buffers = _Buffers(lattice)
    counts = reconstruct(np.array([_Run(lattice, p, buffers).walk(steps, i) for i, p in enumerate(primes)]), primes)
    assert sum(counts) == total, "the residues lost a count: the prime bound is wrong"
    return counts


def _critical_columns(steps: list[list[tuple[int, int]]], primes: tuple[int, ...]) -> list[tuple[int, Array]]:
    """For each number of critical hits, the weights of k X dice on the top face bringing that many."""
    by_extra: dict[int, list[int]] = {}
    for k, step in enumerate(steps):
        for extra, weight in step:
            by_extra.setdefault(extra, [0] * len(steps))[k] += weight
    return [(extra, residues(column, primes)) for extra, column in sorted(by_extra.items())]


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
        #: for each column, its outer and inner index
        self.col_outer = np.repeat(np.arange(len(bounds)), counts)
        self.col_inner = np.arange(self.columns) - np.repeat(np.cumsum(counts) - counts, counts)
        self.table = np.full((len(bounds), max(bounds) + 1), -1, dtype=np.int64)
        self.table[self.col_outer, self.col_inner] = np.arange(self.columns)
        # where each column's run starts, for flat positions: (chunk * rows + row) * width + place in the chunk
        every = np.arange(self.columns + 1)
        self._column_start = every // self.width * rows * self.width + every % self.width
        self.sentinel = int(self._column_start[self.columns])
        shape = (self.chunks, rows, self.width)
        column = np.arange(self.chunks)[:, None, None] * self.width + np.arange(self.width)[None, None, :]
        column = np.broadcast_to(np.minimum(column, self.columns), shape).ravel()
        #: for each flat position: whether a column is there, its row, outer and inner index
        self.valid = column < self.columns
        self.row = np.broadcast_to(np.arange(rows)[None, :, None], shape).ravel()
        self.outer = np.append(self.col_outer, 0)[column]
        self.inner = np.append(self.col_inner, 0)[column]

    def flat(self, row: Index, column: Index) -> Index:
        return self._column_start[column] + row * self.width

    def find(self, row: Index, outer: Index, inner: Index, ok: NDArray[np.bool_]) -> Index:
        """The flat positions of states (the sentinel where ``ok`` is false or the state lies outside)."""
        ok = ok & (inner >= 0) & (inner <= self.bounds[outer])
        column = self.table[outer, np.where(ok, inner, 0)]
        return np.where(ok, self.flat(row, column), self.sentinel)


class _Lattice:
    """The two arrangements of the states (a, d, s) for A against D dice with up to ``extra`` critical hits
    (for Y's steps columns (a, s) of rows d; for X's, columns (d, u = s - phi(a, d)) of rows a) and the gathers
    from one to the other, worked out once per shape."""

    def __init__(self, A: int, D: int, extra: int) -> None:
        self.A, self.D, self.top = A, D, A + extra
        self.y = _Layout(D + 1, [min(self.top, a + extra) for a in range(A + 1)])
        # u <= min(a, d) + extra, and up to A - D more where phantoms of equal or higher value never lose
        self.x = _Layout(A + 1, [min(self.top, d + extra + max(0, A - D)) for d in range(D + 1)])
        self.origin = int(self.y.find(np.array(0), np.array(0), np.array(0), np.array(True)))
        column = np.arange(self.y.columns)
        #: the flat positions of one row's columns, in order, in the Y arrangement reshaped to that row
        self.y_columns = column // self.y.width * self.y.width + column % self.y.width
        self._maps: dict[tuple[str, bool, int], Index] = {}

    def phi(self, beats_phantom: bool, a: Index, d: Index) -> Index:
        """The pairs X has won by placing a dice against Y's d, were every die placed so far its highest."""
        return np.maximum((a if beats_phantom else np.minimum(a, self.D)) - d, 0)

    def to_x(self, beats_phantom: bool, shift: int = 0) -> Index:
        """Where each state of the X arrangement (its u raised by ``shift``) lies in the Y arrangement."""
        key = ("x", beats_phantom, shift)
        if key not in self._maps:
            x = self.x
            s = x.inner + self.phi(beats_phantom, x.row, x.outer) - shift
            self._maps[key] = self.y.find(x.outer, x.row, s, x.valid)
        return self._maps[key]

    def to_x_row0(self, beats_phantom: bool, shift: int) -> Index:
        """:meth:`to_x` for row a = 0 only (shaped to broadcast against the rows): X's first value."""
        key = ("x0", beats_phantom, shift)
        if key not in self._maps:
            x = self.x
            at = (np.arange(x.chunks)[:, None] * x.rows * x.width + np.arange(x.width)[None, :]).ravel()
            row, d, u, valid = x.row[at], x.outer[at], x.inner[at], x.valid[at]
            s = u + self.phi(beats_phantom, row, d) - shift
            self._maps[key] = self.y.find(d, row, s, valid).reshape(x.chunks, 1, x.width)
        return self._maps[key]

    def final_scores(self, beats_phantom: bool, shift: int) -> Index:
        """For each column (a, s) of row D, the score once X places its last A - a dice (``shift`` more)."""
        key = ("f", beats_phantom, shift)
        if key not in self._maps:
            a, s, full = self.y.col_outer, self.y.col_inner, np.array(self.D)
            self._maps[key] = s + shift + self.phi(beats_phantom, np.array(self.A), full) - self.phi(beats_phantom,
                                                                                                       a, full)
        return self._maps[key]

    def to_y(self, beats_phantom: bool) -> Index:
        """Where each state of the Y arrangement lies in the X arrangement of that kind of phi."""
        key = ("y", beats_phantom, 0)
        if key not in self._maps:
            y = self.y
            u = y.inner - self.phi(beats_phantom, y.outer, y.row)
            self._maps[key] = self.x.find(y.outer, y.row, u, y.valid)
        return self._maps[key]

@lru_cache(maxsize=16)
def _lattice(A: int, D: int, extra: int) -> _Lattice:
    return _Lattice(A, D, extra)


@dataclass(frozen=True)
class _Step:
    """One die value: whether X's dice there beat a phantom, and the binomial matrices of Y's and X's dice
    showing it (None where that side has no such face), with the critical hits of X's top face."""

    beats_phantom: bool
    y: Array | None
    x: Array | None
    firsts: list[tuple[int, Array]] | None


class _Buffers:
    """Arrays for a walk, two of each arrangement and a scratch one, shared by the primes in turn."""

    def __init__(self, lattice: _Lattice) -> None:
        y, x = lattice.y, lattice.x
        self.ys = [np.empty((y.chunks, y.rows, y.width)) for _ in range(2)]
        self.xs = [np.empty((x.chunks, x.rows, x.width)) for _ in range(2)]
        self.scratch = np.empty(max(y.size, x.size))


class _Run:
    """One lineup modulo one prime: the state in the Y arrangement, or in the X one for a kind of phi
    (``self.phi``: None for Y), in buffers reused step after step (each written whole before it is read)."""

    def __init__(self, lattice: _Lattice, prime: int, buffers: _Buffers) -> None:
        self.lattice = lattice
        self.prime, self.inverse = float(prime), 1.0 / prime
        self.ys, self.xs, self.scratch = buffers.ys, buffers.xs, buffers.scratch
        self.state = self.ys[0]
        self.state.fill(0.0)
        self.state.reshape(-1)[lattice.origin] = 1.0
        self.phi: bool | None = None
        self.placed_x = self.placed_y = False

    def _reduce(self, values: Array) -> Array:
        reduce(values, self.prime, self.inverse, self.scratch[:values.size].reshape(values.shape))
        return values

    def _spare(self, pair: list[Array]) -> Array:
        return pair[1] if self.state is pair[0] else pair[0]

    def _in_y(self) -> Array:
        if self.phi is not None:
            out = self.ys[0]
            np.take(self.state.reshape(-1), self.lattice.to_y(self.phi), out=out.reshape(-1), mode="clip")
            self.state, self.phi = out, None
        return self.state

    def _in_x(self, phi: bool) -> Array:
        if self.phi != phi:
            self._in_y()
            out = self.xs[0]
            np.take(self.state.reshape(-1), self.lattice.to_x(phi), out=out.reshape(-1), mode="clip")
            self.state, self.phi = out, phi
        return self.state

    def walk(self, plan: list[_Step], i: int) -> Array:
        """Every value but the last as steps, then the last into the weights of each score."""
        for step in plan[:-1]:
            if step.y is not None:
                self.y_step(step.y[i])
            if step.x is not None:
                self.x_step(step.beats_phantom, step.x[i], [(e, c[i]) for e, c in step.firsts or []])
        return self.last(plan[-1], i)

    def y_step(self, matrix: Array) -> None:
        """Y places dice of one value (the score does not move)."""
        cur = self._in_y()
        out = self._spare(self.ys)
        if self.placed_y:
            np.matmul(matrix, cur, out=out)
        else:  # nothing placed yet: only row 0 holds anything
            np.multiply(matrix[:, :1], cur[:, :1, :], out=out)
        if self.placed_y or self.placed_x:  # else the state was the origin's 1: the products are reduced already
            self._reduce(out)
        self.state, self.placed_y = out, True

    def x_step(self, beats_phantom: bool, matrix: Array, firsts: list[tuple[int, Array]]) -> None:
        """X places dice of one value (``score - phi`` does not move); ``firsts``: the critical hits of X's top
        face, each number of them a shift of the score."""
        if self.placed_x:
            cur = self._in_x(beats_phantom)
            out = self._spare(self.xs)
            np.matmul(matrix, cur, out=out)
        else:  # nothing placed yet: only row 0 holds anything, gathered once per shift
            out = self.xs[1]
            out.fill(0.0)
            source = self._in_y().reshape(-1)
            for shift, column in firsts or [(0, matrix[:, 0])]:
                out += column[:, None] * source.take(self.lattice.to_x_row0(beats_phantom, shift), mode="clip")
        self.state, self.phi, self.placed_x = self._reduce(out), beats_phantom, True

    def last(self, step: _Step, i: int) -> Array:
        """The last value places every die left: Y's to D, then X's to A; the residues of each score's weight."""
        lat = self.lattice
        cur = self._in_y()
        if step.y is None:
            row = cur[:, lat.D, :]
        elif self.placed_y:
            row = self._reduce(np.matmul(step.y[i][lat.D], cur))
        else:
            row = self._reduce(step.y[i][lat.D, 0] * cur[:, 0, :])
        row = row.reshape(-1)[lat.y_columns]
        if step.x is None:
            weights = [(0, (np.arange(lat.A + 1) == lat.A).astype(np.float64))]
        elif self.placed_x:
            weights = [(0, step.x[i][lat.A])]
        else:  # X places all its dice at its only value, criticals included
            only = [(e, c[i][lat.A]) for e, c in step.firsts or []] or [(0, step.x[i][lat.A, 0])]
            weights = [(e, np.where(np.arange(lat.A + 1) == 0, w, 0.0)) for e, w in only]
        out = np.zeros(lat.top + 1)
        for shift, vec in weights:
            gained = lat.final_scores(step.beats_phantom, shift)
            out += np.bincount(gained, self._reduce(row * vec[lat.y.col_outer]), minlength=lat.top + 1)[:lat.top + 1]
        return np.mod(out, self.prime)


