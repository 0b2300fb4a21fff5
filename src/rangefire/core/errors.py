"""One error hierarchy: every failure a user can cause is a :class:`RangefireError`.

The command line prints ``str(error)`` on one line and exits non-zero; no traceback reaches a user.
"""

from __future__ import annotations

from collections.abc import Sequence


class RangefireError(Exception):
    """Base of every error rangefire raises on purpose."""

    exit_code = 2


#: A message lists at most this many problems (a hostile file may hold tens of thousands); all stay in
#: ``ScenarioError.problems``.
MAX_LISTED = 100


class ScenarioError(RangefireError):
    """A scenario file that cannot be read or does not validate; lists every problem at once.

    One problem makes one line; several are listed under a count.

    >>> str(ScenarioError(["units[2].stands: must be >= 1, got -3"], source="w.yaml"))
    'w.yaml: units[2].stands: must be >= 1, got -3'
    >>> print(ScenarioError(["a: is required", "b: unknown key"], source="w.yaml"))
    w.yaml: 2 errors
      a: is required
      b: unknown key
    """

    def __init__(self, problems: Sequence[str], source: str = "scenario") -> None:
        self.problems = tuple(problems)
        self.source = source
        if len(self.problems) == 1:
            super().__init__(f"{source}: {self.problems[0]}")
            return
        lines = [f"{source}: {len(self.problems)} errors", *(f"  {p}" for p in self.problems[:MAX_LISTED])]
        if len(self.problems) > MAX_LISTED:
            lines.append(f"  ... and {len(self.problems) - MAX_LISTED} more")
        super().__init__("\n".join(lines))


class UnknownRulesetError(RangefireError):
    """No ruleset has that key or alias."""


class UnknownUnitError(RangefireError):
    """An attacker, target or other unit id that the battle does not hold."""


class IllegalAttackError(RangefireError):
    """An attack the rules refuse; carries the refusals, each with its clause."""

    exit_code = 1

    def __init__(self, refusals: Sequence[object]) -> None:
        self.refusals = tuple(refusals)
        super().__init__("illegal attack: " + "; ".join(str(r) for r in self.refusals))


class DiceError(RangefireError):
    """Dice that cannot serve: too few, too many, not a face of the die, or for an unknown stage."""


class LimitError(RangefireError):
    """Input too large or too hostile to process: refused before any work is done."""


class ChoiceError(RangefireError):
    """A player's choice (a game's declared choice, by name) that is missing, unknown or not allowed here."""

    def __init__(self, choice: str, message: str) -> None:
        self.choice = choice
        super().__init__(message)
