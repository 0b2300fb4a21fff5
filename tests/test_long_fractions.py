"""Long exact numbers (``rangefire.core.numbers``): a duel's answer runs to tens of thousands of bits, reduced,
added and written by GMP past a length; every result the same as Python's own ``Fraction`` and ``str`` give."""

from __future__ import annotations

import random
import sys
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rangefire.core.numbers import _LONG, fraction_str, lowest, total


def _same(found: Fraction, expected: Fraction) -> None:
    assert found == expected
    assert (found.numerator, found.denominator) == (expected.numerator, expected.denominator)
    assert type(found.numerator) is int and type(found.denominator) is int  # not GMP's: they pickle and hash alike
    assert hash(found) == hash(expected)


def _python_str(p: Fraction) -> str:
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(p)
    finally:
        sys.set_int_max_str_digits(limit)


@pytest.mark.parametrize("bits", [8, _LONG - 1, _LONG, _LONG + 1, 5_000, 40_000])
def test_long_fractions_equal_pythons_own(bits):
    """Around the length where GMP takes over and far past it: numerators with and without a common factor, of
    either sign, as Python's ``Fraction`` reduces them and ``str`` writes them."""
    rng = random.Random(bits)
    for _ in range(25):
        shared = rng.choice([1, 6, 2**60, 3**45 * 7])
        n = rng.getrandbits(bits) * shared * rng.choice([1, -1])
        d = rng.getrandbits(bits) * shared + shared
        expected = Fraction(n, d)
        _same(lowest(n, d), expected)
        assert fraction_str(expected) == _python_str(expected)
        parts = [Fraction(rng.getrandbits(bits), d) for _ in range(4)] + [1, -Fraction(1, 3)]
        _same(total(parts), sum(parts, Fraction(0)))


@given(st.integers(), st.integers(min_value=1))
def test_any_fraction_equals_pythons_own(n, d):
    _same(lowest(n, d), Fraction(n, d))
    assert fraction_str(Fraction(n, d)) == _python_str(Fraction(n, d))


def test_whole_numbers_and_zero_are_written_without_a_denominator():
    assert fraction_str(Fraction(0)) == "0" and fraction_str(1) == "1"
    assert fraction_str(Fraction(2**(3 * _LONG))) == _python_str(Fraction(2**(3 * _LONG)))
    _same(lowest(0, 2**(2 * _LONG)), Fraction(0))
    _same(total([]), Fraction(0))


@pytest.mark.parametrize("bits", [8, 3 * _LONG])
def test_a_negative_denominator_is_taken_as_fraction_takes_it(bits):
    """The sign goes to the numerator, the denominator positive, as ``Fraction`` has it, however long the two."""
    rng = random.Random(bits)
    for _ in range(10):
        n, d = rng.getrandbits(bits) * 6 * rng.choice([1, -1]), -(rng.getrandbits(bits) * 6 + 6)
        _same(lowest(n, d), Fraction(n, d))
