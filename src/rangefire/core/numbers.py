"""Exact numbers at the edges: decimals read as ``Fraction``, fractions written back losslessly."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

#: Table coordinates and lengths beyond this magnitude are refused (a hostile ``1e999999`` never expands).
MAX_MAGNITUDE = 10**6
_MAX_TEXT = 40


def fraction_str(p: Fraction | int) -> str:
    """An exact probability as the JSON contract writes it: ``"0"``, ``"1"`` or ``"n/d"`` in lowest terms.

    >>> fraction_str(Fraction(2, 4)), fraction_str(Fraction(0)), fraction_str(1)
    ('1/2', '0', '1')
    """
    return str(Fraction(p))


def parse_exact(value: Any) -> Fraction:
    """Read a scenario number exactly: ints, decimals (``10.1`` is 101/10, not the float) and ``"n/d"``.

    >>> parse_exact(10.1), parse_exact("1/3"), parse_exact(6)
    (Fraction(101, 10), Fraction(1, 3), Fraction(6, 1))
    >>> parse_exact("1e999999")
    Traceback (most recent call last):
    ...
    ValueError: must be a number of magnitude at most 1000000, got '1e999999'
    """
    if isinstance(value, bool):
        raise ValueError(f"must be a number, got {value!r}")
    if isinstance(value, Fraction):
        result = value
    elif isinstance(value, int):
        if abs(value) > MAX_MAGNITUDE:
            raise ValueError(f"must be a number of magnitude at most {MAX_MAGNITUDE}, got {value}")
        result = Fraction(value)
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"must be a finite number, got {value!r}")
        # repr is the shortest text that reads back as this float: the decimal the user wrote.
        result = _from_text(repr(value))
    elif isinstance(value, str):
        result = _from_text(value.strip())
    else:
        raise ValueError(f"must be a number, got {value!r}")
    if abs(result) > MAX_MAGNITUDE:
        raise ValueError(f"must be a number of magnitude at most {MAX_MAGNITUDE}, got {value!r}")
    return result


def _from_text(text: str) -> Fraction:
    if len(text) > _MAX_TEXT:
        raise ValueError(f"must be a number of at most {_MAX_TEXT} characters, got {text[:20]!r}...")
    exponent = text.lower().partition("e")[2]
    if exponent and (not exponent.lstrip("+-").isdigit() or abs(int(exponent)) > 12):
        raise ValueError(f"must be a number of magnitude at most {MAX_MAGNITUDE}, got {text!r}")
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"must be a number, got {text!r}") from None


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
