"""Exact distributions and dice sources' shared pieces; never names a game."""

from rangefire.dice.dist import Dist, fraction_str

__all__ = ["Dist", "fraction_str"]
