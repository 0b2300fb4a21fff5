"""Confidence intervals for estimates: an estimate says how sure it is, never passes for exact."""

from __future__ import annotations

import math

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959964


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (sound near 0 and 1, where rare events are).

    >>> low, high = wilson(50, 100)
    >>> round(low, 4), round(high, 4)
    (0.4038, 0.5962)
    """
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
