"""Exact integer arithmetic in doubles, by residues modulo several primes (multi-modular arithmetic).

A double holds every integer below 2**53 exactly. Residues modulo a prime p with ``2 * terms * p**2 <= 2**53``
can be multiplied and summed ``terms`` at a time (a matrix product through BLAS included) without any rounding;
reducing the sums again keeps every number within ``[-p, 2p)``. The exact integers come back at the end by the
Chinese remainder theorem, from enough primes that their product exceeds every value worked out. Nothing is
approximated: a wrong prime bound would show as counts that no longer sum to the total, which the callers check.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

#: Every integer of magnitude below this is a double exactly.
EXACT_BELOW = 2**53


def prime_bound(terms: int) -> int:
    """The largest modulus whose residues (kept within ``[-p, 2p)``) can be multiplied by reduced residues
    (within ``[0, p)``) and summed ``terms`` at a time below :data:`EXACT_BELOW`.

    >>> prime_bound(41) < 2**24 and 2 * 41 * prime_bound(41) ** 2 <= 2**53
    True
    """
    return math.isqrt(EXACT_BELOW // (2 * max(1, terms)))


#: The odd primes below 100 and their product, to turn most composite candidates away with a single gcd.
_SMALL_PRIMES = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97)
_SMALL_PRODUCT = math.prod(_SMALL_PRIMES)


def _is_prime(n: int) -> bool:
    """Miller-Rabin with the bases 2, 3, 5 and 7: exact for every n below 3,215,031,751 (far above any prime bound
    here, which stays below 2**26).

    >>> [n for n in range(40) if _is_prime(n)]
    [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
    """
    if n < 2 or n % 2 == 0:
        return n == 2
    if n > _SMALL_PRIMES[-1] and math.gcd(n, _SMALL_PRODUCT) != 1:
        return False  # a factor below 100, found by one gcd: most odd candidates end here, before any power
    if n >= 3_215_031_751:
        raise ValueError(f"{n} is beyond the exact range of this primality test")
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for base in (2, 3, 5, 7):
        if base % n == 0:
            continue
        x = pow(base, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


@lru_cache(maxsize=64)
def primes_for(terms: int, exceed: int) -> tuple[int, ...]:
    """Primes below :func:`prime_bound`, largest first, until their product exceeds ``exceed``.

    >>> ps = primes_for(10, 10**30); math.prod(ps) > 10**30 and len(set(ps)) == len(ps)
    True
    """
    bound = prime_bound(terms)
    out: list[int] = []
    product = 1
    candidate = bound if bound % 2 else bound - 1
    while product <= exceed:
        if candidate < 3:
            raise ValueError(f"too many terms ({terms}) for exact residues in doubles")
        if _is_prime(candidate):
            out.append(candidate)
            product *= candidate
        candidate -= 2
    return tuple(out)


def residues(values: list[int], primes: tuple[int, ...]) -> NDArray[np.float64]:
    """``values`` modulo each prime: an array of shape (primes, values)."""
    return np.array([[v % p for v in values] for p in primes], dtype=np.float64)


def reduce(values: NDArray[np.float64], primes: NDArray[np.float64] | float, inverses: NDArray[np.float64] | float,
           scratch: NDArray[np.float64]) -> None:
    """Reduce exact integers (below 2**53 in magnitude) modulo the primes, in place, into ``[-p, 2p)``.

    ``primes`` and ``inverses`` (1/p) broadcast against ``values`` (primes along the first axis). The quotient is
    rounded once, so it may be one off: the result is congruent and within ``[-p, 2p)``, which is all the next
    product needs; the subtraction itself is exact (integers below 2**53).
    """
    np.multiply(values, inverses, out=scratch)
    np.floor(scratch, out=scratch)
    np.multiply(scratch, primes, out=scratch)
    np.subtract(values, scratch, out=values)


@lru_cache(maxsize=64)
def _crt_basis(primes: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    modulus = math.prod(primes)
    return modulus, tuple((modulus // p) * pow(modulus // p, -1, p) for p in primes)


def reconstruct(rows: NDArray[np.float64], primes: tuple[int, ...]) -> list[int]:
    """The integers in ``[0, product of primes)`` with the given residues (one row per prime, one column per
    integer; residues may lie anywhere in ``[-p, 2p)``).

    >>> import numpy as np
    >>> ps = primes_for(4, 10**20)
    >>> reconstruct(np.array([[float(v % p - p) for v in (0, 7, 10**20)] for p in ps]), ps) == [0, 7, 10**20]
    True
    """
    modulus, basis = _crt_basis(primes)
    # residues into [0, p) (exact: integers below 2**53), then one product in Python integers (object arrays)
    per_prime = np.mod(rows, np.array(primes, dtype=np.float64)[:, None]).astype(np.int64).astype(object)
    counts: list[int] = (np.array(basis, dtype=object) @ per_prime % modulus).tolist()
    return counts
