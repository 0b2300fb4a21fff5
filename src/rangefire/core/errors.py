"""One error hierarchy: every failure a user can cause is a :class:`RangefireError`.

The command line prints ``str(error)`` on one line and exits non-zero; no traceback reaches a user. Programs
(``--json``, the HTTP API) get the same error as data from :func:`error_data`: each class has a stable ``kind``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


class RangefireError(Exception):
    """Base of every error rangefire raises on purpose."""

    exit_code = 2
    #: The error's class as a stable snake_case name (the ``kind`` of :func:`error_data`).
    kind = "invalid_input"


#: A message lists at most this many problems (a hostile file may hold tens of thousands); all stay in
#: ``ScenarioError.problems``.
MAX_LISTED = 100


class ScenarioError(RangefireError):
    """A scenario file that cannot be read or does not validate; lists every problem at once.

    Each problem reads ``path: what is wrong`` where it concerns one place of the scenario
    (``units[2].stands``), or is a sentence of its own (``line 3: not valid JSON``).

    One problem makes one line; several are listed under a count.

    >>> str(ScenarioError(["units[2].stands: must be >= 1, got -3"], source="w.yaml"))
    'w.yaml: units[2].stands: must be >= 1, got -3'
    >>> print(ScenarioError(["a: is required", "b: unknown key"], source="w.yaml"))
    w.yaml: 2 errors
      a: is required
      b: unknown key
    """

    kind = "invalid_scenario"

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

    kind = "unknown_ruleset"


class UnknownUnitError(RangefireError):
    """An attacker, target or other unit id that the battle does not hold."""

    kind = "unknown_unit"


class IllegalAttackError(RangefireError):
    """An attack the rules refuse; carries the refusals, each with its clause."""

    exit_code = 1
    kind = "illegal_attack"

    def __init__(self, refusals: Sequence[object]) -> None:
        self.refusals = tuple(refusals)
        super().__init__("illegal attack: " + "; ".join(str(r) for r in self.refusals))


class DiceError(RangefireError):
    """Dice that cannot serve: too few, too many, not a face of the die, or for an unknown stage."""

    kind = "invalid_dice"


class LimitError(RangefireError):
    """Input too large or too hostile to process: refused before any work is done."""

    kind = "too_large"


class ChoiceError(RangefireError):
    """A player's choice (a game's declared choice, by name) that is missing, unknown or not allowed here."""

    kind = "invalid_choice"

    def __init__(self, choice: str, message: str) -> None:
        self.choice = choice
        super().__init__(message)


# A problem that concerns one place of a scenario starts with that place as ``format_path`` writes it
# (``units[2].stands``, ``players["Mr. X"].deck``, ``(top level)``), then ``": "``.
_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_INDEX = r'\[(?:\d+|"(?:[^"\\]|\\.)*")\]'
_PATH = re.compile(rf"((?:{_NAME}|{_INDEX})(?:\.{_NAME}|{_INDEX})*|\(top level\)): (.*)\Z", re.S)


def problem_data(problem: str) -> dict[str, Any]:
    """A scenario problem as ``{"path", "message"}``: the path of the place it concerns ("" for the top level,
    None where it names no place, as in a syntax error's line).

    >>> problem_data("units[2].stands: must be a whole number >= 1, got -3")
    {'path': 'units[2].stands', 'message': 'must be a whole number >= 1, got -3'}
    >>> problem_data('players["Mr. X"].deck: must be a list, got 3')["path"]
    'players["Mr. X"].deck'
    >>> problem_data("line 3: not valid JSON (Expecting value)")
    {'path': None, 'message': 'line 3: not valid JSON (Expecting value)'}
    """
    found = _PATH.match(problem)
    if found is None:
        return {"path": None, "message": problem}
    path = found.group(1)
    return {"path": "" if path == "(top level)" else path, "message": found.group(2)}


def error_data(exc: RangefireError) -> dict[str, Any]:
    """An error as the data programs read (the command line's ``--json``, the HTTP API's error bodies):
    ``{"format", "error": {"kind", "message", "path", "clause", ...}}``.

    ``path`` is the scenario place of the first problem (all of them under ``problems``), ``clause`` that of
    the first refusal of an attack the rules refuse (all of them under ``refusals``); either is None where it
    does not apply. ``kind`` is stable per error class.

    >>> data = error_data(ScenarioError(["units[2].stands: must be >= 1, got -3", "b: unknown key"], source="w.yaml"))
    >>> data["format"], data["error"]["kind"], data["error"]["path"], data["error"]["clause"]
    (1, 'invalid_scenario', 'units[2].stands', None)
    >>> data["error"]["problems"][1]
    {'path': 'b', 'message': 'unknown key'}
    >>> error_data(UnknownUnitError("'x' is not in this battle"))["error"]["kind"]
    'unknown_unit'
    """
    from rangefire.core.types import FORMAT

    error: dict[str, Any] = {"kind": exc.kind, "message": str(exc), "path": None, "clause": None}
    if isinstance(exc, ScenarioError):
        problems = [problem_data(p) for p in exc.problems]
        error["path"] = next((p["path"] for p in problems if p["path"] is not None), None)
        error["source"] = exc.source
        error["problems"] = problems
    elif isinstance(exc, IllegalAttackError):
        refusals = [{"clause": str(getattr(r, "clause", "")), "reason": str(getattr(r, "reason", r))}
                    for r in exc.refusals]
        error["clause"] = refusals[0]["clause"] if refusals else None
        error["refusals"] = refusals
    elif isinstance(exc, ChoiceError):
        error["choice"] = exc.choice
    return {"format": FORMAT, "error": error}
