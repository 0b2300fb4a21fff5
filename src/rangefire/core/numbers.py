"""Exact numbers at the edges: decimals read as ``Fraction``, fractions written back losslessly."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from numbers import Rational
from typing import Any, cast

from gmpy2 import gcd, mpq, mpz  # type: ignore[import-untyped]  # GMP's integers (no type stubs)

#: Table coordinates and lengths beyond this magnitude are refused (a hostile ``1e999999`` never expands).
MAX_MAGNITUDE = 10**6
_MAX_TEXT = 40


#: Integers longer than this (bits) are reduced and written by GMP (gmpy2), whose greatest common divisor and
#: decimal writing grow more slowly with the length than Python's own: a duel's exact answer runs to some 40,000
#: bits, where GMP is about four times quicker at the one and seven times at the other.
_LONG = 2_000


class _Reduced:
    """A numerator and a positive denominator already in lowest terms, taken by ``Fraction`` as they are (as of any
    rational: no common divisor sought again)."""

    __slots__ = ("denominator", "numerator")

    def __init__(self, numerator: int, denominator: int) -> None:
        self.numerator, self.denominator = numerator, denominator


Rational.register(_Reduced)


def _reduced(numerator: int, denominator: int) -> Fraction:
    return Fraction(cast(Rational, _Reduced(numerator, denominator)))


def lowest(numerator: int, denominator: int) -> Fraction:
    """``Fraction(numerator, denominator)``, the common divisor of long integers found by GMP (the sign, as there,
    the numerator's).

    >>> lowest(2**3000 * 3, 2**3001) == Fraction(3, 2)
    True
    """
    if denominator.bit_length() < _LONG or numerator.bit_length() < _LONG:
        return Fraction(numerator, denominator)
    common = gcd(numerator, denominator)
    if denominator < 0:
        common = -common
    return _reduced(int(numerator // common), int(denominator // common))


def total(values: Iterable[Fraction | int]) -> Fraction:
    """The exact sum of fractions, added over GMP's rationals: each sum of two long fractions is reduced by a
    common divisor, which GMP finds some four times quicker than Python.

    >>> total([Fraction(1, 3), Fraction(1, 6), 1])
    Fraction(3, 2)
    """
    out = mpq(0)
    for v in values:
        out += mpq(v.numerator, v.denominator)
    return _reduced(int(out.numerator), int(out.denominator))


def _int_str(n: int) -> str:
    return str(n) if n.bit_length() < _LONG else mpz(n).digits()


def fraction_str(p: Fraction | int) -> str:
    """An exact probability as the JSON contract writes it: ``"0"``, ``"1"`` or ``"n/d"`` in lowest terms, however
    many digits it has (long integers written by GMP, past the length Python writes by default).

    >>> fraction_str(Fraction(2, 4)), fraction_str(Fraction(0)), fraction_str(1)
    ('1/2', '0', '1')
    """
    p = Fraction(p)
    if p.denominator == 1:
        return _int_str(p.numerator)
    return f"{_int_str(p.numerator)}/{_int_str(p.denominator)}"


#: The ending of the key that holds an exact value's float beside it: ``mean`` and ``mean_float``.
FLOAT_SUFFIX = "_float"


def with_float(key: str, value: Any, write: Callable[[Fraction], str] = fraction_str) -> dict[str, Any]:
    """An exact value under ``key`` as the contract writes it, and beside it under ``key_float`` the same as a
    float, for drawing (not exact): every output holds its probabilities and means so. ``value`` is a number (a
    ``Fraction``, an int or its fraction string), None (kept None in both), or a mapping of them (the same keys in
    both, as text); ``write`` writes each exact value.

    >>> with_float("mean", Fraction(4, 3))
    {'mean': '4/3', 'mean_float': 1.3333333333333333}
    >>> with_float("distribution", {0: Fraction(1, 4), 1: Fraction(3, 4)})
    {'distribution': {'0': '1/4', '1': '3/4'}, 'distribution_float': {'0': 0.25, '1': 0.75}}
    >>> with_float("values", {"rules": "1/2", "refused": None})
    {'values': {'rules': '1/2', 'refused': None}, 'values_float': {'rules': 0.5, 'refused': None}}
    """
    return {key: _each(value, write), key + FLOAT_SUFFIX: _each(value, float)}


def _each(value: Any, how: Callable[[Fraction], Any]) -> Any:
    if value is None:
        return None
    if isinstance(value, Mapping):
        return {str(k): _each(v, how) for k, v in value.items()}
    return how(value if isinstance(value, Fraction) else Fraction(value))


def percent(p: Fraction | float, places: int = 1) -> str:
    """A probability for people, to ``places`` decimal places: exactly 0 and 1 as ``0%`` and ``100%``, and a
    chance that is there but would round to either shown as ``<0.1%`` or ``>99.9%`` (rounded exactly, half to
    even, as the web table rounds it).

    >>> percent(Fraction(1, 3)), percent(Fraction(1, 3), 2), percent(0), percent(Fraction(1))
    ('33.3%', '33.33%', '0%', '100%')
    >>> percent(Fraction(1, 3000)), percent(Fraction(2999, 3000)), percent(0.00004, 2), percent(0.99996, 2)
    ('<0.1%', '>99.9%', '<0.01%', '>99.99%')
    >>> percent(Fraction(1999, 2000)), percent(Fraction(19999, 20000), 2), percent(Fraction(1, 200), 0)
    ('>99.9%', '>99.99%', '<1%')
    >>> percent(Fraction(3, 2000)), percent(Fraction(1, 400))  # 0.15% and 0.25%: half to even
    ('0.2%', '0.2%')
    >>> percent(1.5)
    Traceback (most recent call last):
    ...
    ValueError: a probability is between 0 and 1, got 1.5
    """
    if p != p or not 0 <= p <= 1:  # p != p: not a number
        raise ValueError(f"a probability is between 0 and 1, got {p!r}")
    if p == 0 or p == 1:
        return f"{int(p) * 100}%"
    shown = round(Fraction(p) * 100, places)
    least = Fraction(1, 10**places)  # the last place shown, in percent
    if shown == 0:
        return f"<{float(least):.{places}f}%"
    if shown == 100:
        return f">{float(100 - least):.{places}f}%"
    return f"{float(shown):.{places}f}%"


def parse_exact(value: Any) -> Fraction:
    """Read a scenario number exactly: ints, decimals (``10.1`` is 101/10, not the float) and ``"n/d"``.

    A decimal may have at most :data:`MAX_PLACES` decimal places, however it is written (``0.001`` or
    ``1e-3``), and a magnitude of at most :data:`MAX_MAGNITUDE`; both are checked on the digits before any
    large number is built.

    >>> parse_exact(10.1), parse_exact("1/3"), parse_exact(6), parse_exact("1e-13")
    (Fraction(101, 10), Fraction(1, 3), Fraction(6, 1), Fraction(1, 10000000000000))
    >>> parse_exact("1e999999")
    Traceback (most recent call last):
    ...
    ValueError: must be a number of magnitude at most 1000000, got '1e999999'
    >>> parse_exact("1e-41")
    Traceback (most recent call last):
    ...
    ValueError: must be a number of at most 40 decimal places, got '1e-41'
    """
    if isinstance(value, bool):
        raise ValueError(f"must be a number, got {_shown_other(value)}")
    if isinstance(value, Fraction):
        result = value
    elif isinstance(value, int):
        if abs(value) > MAX_MAGNITUDE:
            raise ValueError(f"must be a number of magnitude at most {MAX_MAGNITUDE}, got {_shown_int(value)}")
        result = Fraction(value)
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"must be a finite number, got {value!r}")
        # repr is the shortest text that reads back as this float: the decimal the user wrote.
        result = _from_text(repr(value))
    elif isinstance(value, str):
        result = _from_text(value.strip())
    else:
        raise ValueError(f"must be a number, got {_shown_other(value)}")
    if abs(result) > MAX_MAGNITUDE:
        raise ValueError(f"must be a number of magnitude at most {MAX_MAGNITUDE}, got {_shown_other(value)}")
    return result


#: Decimal places beyond this are refused: the precision a 40-character decimal can write, however the
#: number is written (``1e-13`` is read exactly; ``1e-999999`` would build a huge denominator).
MAX_PLACES = 40
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?", re.ASCII)
_RATIO = re.compile(r"([+-]?[0-9]+)\s*/\s*([0-9]+)", re.ASCII)


@functools.lru_cache(maxsize=4096)  # a battle's numbers are read again at every check of it (the same texts)
def _from_text(text: str) -> Fraction:
    if len(text) > _MAX_TEXT:
        raise ValueError(f"must be a number of at most {_MAX_TEXT} characters, got {text[:20]!r}...")
    ratio = _RATIO.fullmatch(text)
    if ratio:
        if int(ratio.group(2)) == 0:
            raise ValueError(f"must be a number, got {text!r} (a division by zero)")
        return Fraction(int(ratio.group(1)), int(ratio.group(2)))
    found = _DECIMAL.fullmatch(text)
    if not found or not (found.group(2) or found.group(3)):
        raise ValueError(f"must be a number, got {text!r}")
    sign, whole, frac, exp = found.group(1), found.group(2), found.group(3) or "", found.group(4) or "0"
    digits = (whole + frac).lstrip("0")
    if not digits:
        return Fraction(0)
    # the value is int(digits) * 10**shift; judge its size and precision on the digits, before building it
    shift = int(exp) - len(frac)
    stripped = digits.rstrip("0")
    shift += len(digits) - len(stripped)
    if len(stripped) + shift > len(str(MAX_MAGNITUDE)):
        raise ValueError(f"must be a number of magnitude at most {MAX_MAGNITUDE}, got {text!r}")
    if -shift > MAX_PLACES:
        raise ValueError(f"must be a number of at most {MAX_PLACES} decimal places, got {text!r}")
    value = Fraction(int(stripped)) * Fraction(10) ** shift
    return -value if sign == "-" else value


def _shown_int(value: int) -> str:
    # str() of a whole number past 4300 digits raises; a message never needs more than its size
    return str(value) if value.bit_length() < 200 else f"a number of about {int(value.bit_length() * 0.30103)} digits"


def _shown_other(value: Any) -> str:
    """A value that is no number, as a scenario writes it (``null``, ``true``), at most 60 characters."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return _shown_int(value) if isinstance(value, int) else repr(value)[:60]


def dump_exact(value: Fraction) -> int | float | str:
    """Write a number back so that :func:`parse_exact` reads the same value.

    >>> dump_exact(Fraction(21, 2)), dump_exact(Fraction(4)), dump_exact(Fraction(1, 3))
    (10.5, 4, '1/3')
    """
    if value.denominator == 1:
        return int(value)
    as_float = float(value)
    if Fraction(repr(as_float)) == value:
        return as_float
    return f"{value.numerator}/{value.denominator}"
