"""Exact distributions and dice sources' shared pieces; never names a game."""

from rangefire.core.numbers import fraction_str
from rangefire.dice.dist import Dist

__all__ = ["Dist", "fraction_str"]
