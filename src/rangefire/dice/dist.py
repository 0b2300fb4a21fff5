"""Exact discrete distributions: integer weights inside, ``Fraction`` at the boundary.

Like icepool, a pool of identical dice is never enumerated roll by roll: counts of successes come from
binomial coefficients over die faces, and stages are chained with :meth:`Dist.bind`.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any, Generic, TypeVar, cast

from rangefire.core.numbers import with_float

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

    def at_most(self, threshold: Any) -> Fraction:
        return self.p(lambda k: cast(Any, k) <= threshold)

    def mean(self) -> Fraction:
        """The expected value (numeric outcomes only)."""
        return sum((Fraction(cast(Any, k)) * w for k, w in self._weights.items()), Fraction(0)) / self._total

    def variance(self) -> Fraction:
        """The variance, exactly: the mean square distance from the mean (numeric outcomes only).

        >>> Dist.die(6).variance()
        Fraction(35, 12)
        """
        return variance(self.probabilities())

    def sd(self) -> float:
        """The standard deviation: the square root of :meth:`variance`, the float nearest it (it is seldom a
        fraction)."""
        return square_root(self.variance())

    def quantile(self, share: Fraction) -> T:
        """The least outcome that at least ``share`` of the weight is at or below: a value the outcome takes,
        never one between two (``share`` from 0 exclusive to 1 inclusive; numeric or ordered outcomes).

        >>> Dist({0: 1, 1: 1}).quantile(Fraction(1, 2)), Dist({0: 1, 1: 1}).quantile(Fraction(9, 10))
        (0, 1)
        """
        return quantile(self.probabilities(), share)

    def median(self) -> T:
        """The least outcome with at least half the weight at or below it (the lower median)."""
        return self.quantile(Fraction(1, 2))

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
        """The JSON contract: ``{"distribution": {"0": "16/81", ...}, "mean": "4/3"}``, and beside them (added to
        the contract, never in place of its keys) the spread and the tails: ``variance`` (exact), ``sd`` (its
        square root, a float), ``median`` and ``percentile_90`` (values of the outcome, see :meth:`quantile`),
        ``at_least`` and ``at_most`` (each value's odds of the outcome at or above it, at or below it). Each exact
        value has its float beside it, for drawing (``mean_float``, ``distribution_float``...: see
        :func:`~rangefire.core.numbers.with_float`)."""
        return distribution_dict(self.probabilities())


def distribution_dict(probabilities: Mapping[Any, Fraction]) -> dict[str, Any]:
    """:meth:`Dist.to_dict` of a distribution given as ``{value: P(exactly value)}`` (values whole numbers,
    in order), each tail summed once."""
    values = _sorted(probabilities)
    at_most: dict[Any, Fraction] = {}
    running = Fraction(0)
    for k in values:
        running += probabilities[k]
        at_most[k] = running
    at_least: dict[Any, Fraction] = {}
    running = Fraction(0)
    for k in reversed(values):
        running += probabilities[k]
        at_least[k] = running
    spread = variance(probabilities)
    return {
        **with_float("distribution", {k: probabilities[k] for k in values}),
        **with_float("mean", _mean(probabilities)),
        **with_float("variance", spread),
        "sd": square_root(spread),
        **with_float("median", quantile(probabilities, Fraction(1, 2))),
        **with_float("percentile_90", quantile(probabilities, Fraction(9, 10))),
        **with_float("at_least", {k: at_least[k] for k in values}),
        **with_float("at_most", at_most),
    }


def _mean(probabilities: Mapping[Any, Fraction]) -> Fraction:
    return sum((Fraction(k) * p for k, p in probabilities.items()), Fraction(0))


def variance(probabilities: Mapping[Any, Fraction]) -> Fraction:
    """The exact variance of ``{value: probability}``: E[(X - mean)^2].

    >>> variance({0: Fraction(1, 2), 2: Fraction(1, 2)})
    Fraction(1, 1)
    """
    mean = _mean(probabilities)
    return sum(((Fraction(k) - mean) ** 2 * p for k, p in probabilities.items()), Fraction(0))


def square_root(value: Fraction) -> float:
    """The float nearest the square root of a non-negative fraction, from its digits (never the rounded float's
    root).

    >>> square_root(Fraction(35, 12))
    1.707825127659933
    """
    if value < 0:
        raise ValueError(f"no square root of {value}")
    with decimal.localcontext() as context:
        context.prec = 40
        return float((decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)).sqrt())


def quantile(probabilities: Mapping[T, Fraction], share: Fraction) -> T:
    """The least value of ``{value: probability}`` with at least ``share`` of the probability at or below it.

    >>> quantile({1: Fraction(1, 4), 2: Fraction(1, 4), 5: Fraction(1, 2)}, Fraction(1, 2))
    2
    """
    if not 0 < share <= 1:
        raise ValueError(f"a quantile's share is more than 0 and at most 1, got {share}")
    running = Fraction(0)
    values = _sorted(probabilities)
    for k in values:
        running += probabilities[k]
        if running >= share:
            return k
    return values[-1]  # the probabilities sum to 1: reached only where they fall short of it


def _sorted(keys: Iterable[T]) -> list[T]:
    try:
        return sorted(keys)  # type: ignore[type-var]
    except TypeError:
        return sorted(keys, key=repr)
