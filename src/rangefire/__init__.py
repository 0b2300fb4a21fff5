"""rangefire: ranged combat for tabletop games, rule for rule, with the exact odds of every outcome."""

#: The package's version (the wheel's metadata reads it from here).
__version__ = "0.1.0"
