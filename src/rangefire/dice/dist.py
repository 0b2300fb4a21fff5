"""Exact discrete distributions: integer weights inside, ``Fraction`` at the boundary.

Like icepool, a pool of identical dice is never enumerated roll by roll: counts of successes come from
binomial coefficients over die faces, and stages are chained with :meth:`Dist.bind`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any, Generic, TypeVar, cast

from rangefire.core.numbers import fraction_str

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)



class Dist(Generic[T]):
    """A finite distribution over hashable outcomes with positive integer weights.

    >>> d6 = Dist.die(6)
    >>> (d6 + d6).probability(7)
    Fraction(1, 6)
    >>> Dist.binomial(2, hit_faces=2, faces=6)
    Dist({0: 4, 1: 4, 2: 1})
    >>> Dist.binomial(2, hit_faces=2, faces=6).mean()
    Fraction(2, 3)
    """

    __slots__ = ("_total", "_weights")

    def __init__(self, weights: Mapping[T, int]) -> None:
        items = {k: int(w) for k, w in weights.items() if w}
        if not items:
            raise ValueError("a distribution needs at least one outcome of positive weight")
        if any(w < 0 for w in items.values()):
            raise ValueError("weights must be non-negative")
        g = 0
        for w in items.values():
            g = math.gcd(g, w)
        self._weights: dict[T, int] = {k: w // g for k, w in items.items()}
        self._total = sum(self._weights.values())

    # -- constructors --------------------------------------------------------------------------------
    @classmethod
    def constant(cls, outcome: T) -> Dist[T]:
        return cls({outcome: 1})

    @staticmethod
    def die(sides: int) -> Dist[int]:
        """A fair die numbered 1 to ``sides``."""
        if sides < 1:
            raise ValueError("a die needs at least one side")
        return Dist(dict.fromkeys(range(1, sides + 1), 1))

    @staticmethod
    def binomial(n: int, hit_faces: int, faces: int) -> Dist[int]:
        """Successes among ``n`` dice of ``faces`` sides of which ``hit_faces`` succeed.

        Weights are ``C(n, k) * hit^k * miss^(n-k)`` over the total ``faces^n``: no roll is enumerated.
        """
        if n < 0 or faces < 1 or not 0 <= hit_faces <= faces:
            raise ValueError(f"bad binomial: n={n}, hit_faces={hit_faces}, faces={faces}")
        miss = faces - hit_faces
        return Dist({k: math.comb(n, k) * hit_faces**k * miss ** (n - k) for k in range(n + 1)})

    # -- reading -------------------------------------------------------------------------------------
    @property
    def total(self) -> int:
        return self._total

    def weights(self) -> dict[T, int]:
        return dict(self._weights)

    def outcomes(self) -> list[T]:
        return _sorted(self._weights)

    def __iter__(self) -> Iterator[T]:
        return iter(self.outcomes())

    def __len__(self) -> int:
        return len(self._weights)

    def probability(self, outcome: T) -> Fraction:
        return Fraction(self._weights.get(outcome, 0), self._total)

    def probabilities(self) -> dict[T, Fraction]:
        return {k: Fraction(self._weights[k], self._total) for k in self.outcomes()}

    def p(self, predicate: Callable[[T], bool]) -> Fraction:
        """The probability that ``predicate`` holds."""
        return Fraction(sum(w for k, w in self._weights.items() if predicate(k)), self._total)

    def at_least(self, threshold: Any) -> Fraction:
        return self.p(lambda k: cast(Any, k) >= threshold)

    def mean(self) -> Fraction:
        """The expected value (numeric outcomes only)."""
        return sum((Fraction(cast(Any, k)) * w for k, w in self._weights.items()), Fraction(0)) / self._total

    # -- combining -----------------------------------------------------------------------------------
    def map(self, f: Callable[[T], U]) -> Dist[U]:
        out: dict[U, int] = {}
        for k, w in self._weights.items():
            key = f(k)
            out[key] = out.get(key, 0) + w
        return Dist(out)

    def bind(self, f: Callable[[T], Dist[U]]) -> Dist[U]:
        """Each outcome leads to a further distribution (a later stage); the mixture, exactly.

        Totals are brought to their least common multiple so that every weight stays an integer.
        """
        parts = [(w, f(k)) for k, w in self._weights.items()]
        common = 1
        for _, d in parts:
            common = math.lcm(common, d._total)
        out: dict[U, int] = {}
        for w, d in parts:
            scale = w * (common // d._total)
            for k2, w2 in d._weights.items():
                out[k2] = out.get(k2, 0) + scale * w2
        return Dist(out)

    def combine(self, other: Dist[U], f: Callable[[T, U], Any]) -> Dist[Any]:
        """The distribution of ``f(a, b)`` for independent ``a`` from self and ``b`` from other."""
        out: dict[Any, int] = {}
        for a, wa in self._weights.items():
            for b, wb in other._weights.items():
                key = f(a, b)
                out[key] = out.get(key, 0) + wa * wb
        return Dist(out)

    def __add__(self, other: Dist[Any]) -> Dist[Any]:
        return self.combine(other, lambda a, b: a + b)

    def repeat_sum(self, n: int) -> Dist[Any]:
        """The sum of ``n`` independent copies (``n >= 1``), by repeated doubling."""
        if n < 1:
            raise ValueError("repeat_sum needs n >= 1")
        result: Dist[Any] | None = None
        power: Dist[Any] = self
        while n:
            if n & 1:
                result = power if result is None else result + power
            n >>= 1
            if n:
                power = power + power
        assert result is not None
        return result

    # -- identity and output -------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dist) and self._weights == other._weights

    def __hash__(self) -> int:
        return hash(frozenset(self._weights.items()))

    def __repr__(self) -> str:
        body = ", ".join(f"{k!r}: {self._weights[k]}" for k in self.outcomes())
        return f"Dist({{{body}}})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract: ``{"distribution": {"0": "16/81", ...}, "mean": "4/3"}``."""
        return {
            "distribution": {str(k): fraction_str(p) for k, p in self.probabilities().items()},
            "mean": fraction_str(self.mean()),
        }


def _sorted(keys: Iterable[T]) -> list[T]:
    try:
        return sorted(keys)  # type: ignore[type-var]
    except TypeError:
        return sorted(keys, key=repr)
