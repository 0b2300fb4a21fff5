"""Errors as the API answers them: a status code and ``{"format": 1, "error": {"kind", "message", "path",
"clause"}}``, from the library's own errors (each kind of failure one status) or from the server's checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rangefire.core import (
    FORMAT,
    ChoiceError,
    DiceError,
    IllegalAttackError,
    LimitError,
    RangefireError,
    Refusal,
    ScenarioError,
    UnknownRulesetError,
    UnknownUnitError,
)
from rangefire.web.store import ConflictError


class ApiError(Exception):
    """A refusal by the server itself (no token, the wrong side, a body too large), with its status."""

    def __init__(self, status: int, kind: str, message: str, path: str | None = None, clause: str | None = None,
                 **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.path = path
        self.clause = clause
        self.extra = extra

    def body(self) -> dict[str, Any]:
        error = {"kind": self.kind, "message": self.message, "path": self.path, "clause": self.clause, **self.extra}
        return {"format": FORMAT, "error": error}


def refused(refusals: Sequence[Refusal]) -> ApiError:
    """An attack the rules refuse: 409 with the first clause and every refusal."""
    return ApiError(409, "illegal-attack", "illegal attack: " + "; ".join(str(r) for r in refusals),
                    clause=refusals[0].clause if refusals else None, refusals=[r.to_dict() for r in refusals])


def from_library(exc: RangefireError) -> ApiError:
    """The library's error as the API answers it (the message is the library's own, as the command line's)."""
    message = str(exc)
    if isinstance(exc, IllegalAttackError):
        return refused([r for r in exc.refusals if isinstance(r, Refusal)])
    if isinstance(exc, ConflictError):
        return ApiError(409, "conflict", message)
    if isinstance(exc, UnknownUnitError):
        return ApiError(404, "unknown-unit", message)
    if isinstance(exc, ScenarioError):
        path = exc.problems[0].split(":", 1)[0] if len(exc.problems) == 1 and ":" in exc.problems[0] else None
        return ApiError(422, "scenario", message, path=path, problems=list(exc.problems))
    if isinstance(exc, UnknownRulesetError):
        return ApiError(404, "not-found", message)
    if isinstance(exc, ChoiceError):
        return ApiError(422, "choice", message, path=f"choices.{exc.choice}")
    if isinstance(exc, LimitError):
        return ApiError(422, "limit", message)
    if isinstance(exc, DiceError):
        return ApiError(400, "dice", message, path="dice")
    return ApiError(400, "bad-request", message)


def validation_path(loc: Sequence[Any]) -> str | None:
    """A pydantic error location as a path into the body (``choices.order``, ``dice.hit[2]``)."""
    from rangefire.scenario import format_path

    parts = tuple(part for part in loc if part != "body")
    return format_path(parts) if parts else None
