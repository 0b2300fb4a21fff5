"""Errors as the API answers them: a status code and ``{"format": 1, "error": {"kind", "message", "path",
"clause"}}``, from the library's own errors (each kind of failure one status) or from the server's checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from rangefire.core import (
    FORMAT,
    ChoiceError,
    DiceError,
    IllegalAttackError,
    IllegalMoveError,
    LimitError,
    RangefireError,
    Refusal,
    ScenarioError,
    UnknownRulesetError,
    UnknownUnitError,
)
from rangefire.core.errors import error_data
from rangefire.web.store import ConflictError, FullError, StoreError, UnavailableError


class ErrorDetail(BaseModel):
    """What went wrong: its kind (stable), a message, where in the request (``path``) and the rule (``clause``)."""

    model_config = ConfigDict(extra="allow")

    kind: str
    message: str
    path: str | None = None
    clause: str | None = None


class ErrorBody(BaseModel):
    """Every error's body (the OpenAPI description of each 4XX and 5XX answer)."""

    format: int = FORMAT
    error: ErrorDetail


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
    """An attack the rules refuse: 409 with the first clause and every refusal (as the library words it)."""
    return from_library(IllegalAttackError(refusals))


#: The status of each kind of the library's errors (the most specific class first); any other is a 400.
STATUS: tuple[tuple[type[RangefireError], int], ...] = (
    (ConflictError, 409),
    (FullError, 503),
    (IllegalAttackError, 409),
    (IllegalMoveError, 409),
    (UnknownUnitError, 404),
    (UnknownRulesetError, 404),
    (ScenarioError, 422),
    (ChoiceError, 422),
    (LimitError, 422),
    (DiceError, 400),
    (UnavailableError, 503),
    (StoreError, 500),
)


#: The kinds of the router's own refusals (an address nothing is served at, a method it does not take), by status;
#: any other is ``invalid_input``.
ROUTER_KINDS = {404: "not_found", 405: "method_not_allowed"}


def from_library(exc: RangefireError) -> ApiError:
    """The library's error as the API answers it: the body of :func:`rangefire.core.errors.error_data` (the
    command line's ``--json`` errors), with the status of its kind."""
    status = next((code for kind, code in STATUS if isinstance(exc, kind)), 400)
    error = dict(error_data(exc)["error"])
    if isinstance(exc, ChoiceError):
        error["path"] = f"choices.{exc.choice}"
    elif isinstance(exc, DiceError):
        error["path"] = "dice"
    fields = {k: error.pop(k) for k in ("kind", "message", "path", "clause")}
    return ApiError(status, fields["kind"], fields["message"], fields["path"], fields["clause"], **error)


def validation_path(loc: Sequence[Any]) -> str | None:
    """A pydantic error location as a path into the body (``choices.order``, ``dice.hit[2]``)."""
    from rangefire.scenario import format_path

    parts = tuple(part for part in loc if part != "body")
    return format_path(parts) if parts else None
