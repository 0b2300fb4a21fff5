"""Every exact value of an output has its float beside it: ``"mean": "4/3", "mean_float": 1.3333333333333333``;
``"events": {"suppression": "671/1296"}, "events_float": {"suppression": 0.5177...}``. The exact strings are the
answer; the floats, in the same shape (the same keys, None where the exact value is None), are there so that a
client can draw a bar without reading fractions, and are not exact.

:func:`rangefire.core.numbers.with_float` writes both keys. In the models of :mod:`rangefire.core.schemas`, a field
typed ``Probability`` or ``Rational`` (or a mapping of them) is declared with its sibling right after it, in the
same shape with ``float`` in place of the exact type, its value :func:`as_float`::

    mean: Rational
    mean_float: float = as_float(number=True)

:func:`float_pairs` holds every model to that as it is defined (a missing or misshapen sibling is an error at
import), and :func:`check_floats` makes a model refuse an output that gives an exact value without its float, or a
float that is not the exact value's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from pydantic import BaseModel, Field
from pydantic_core import PydanticUndefined

from rangefire.core.numbers import FLOAT_SUFFIX

#: Exact values longer than this are checked for their shape alone: Python reads no longer whole number from text
#: by default (a duel to its end has fractions of thousands of digits).
_LONGEST = 4000


def as_float(default: Any = PydanticUndefined, *, number: bool = False, each: bool = False) -> Any:
    """The field of an exact value's float: described as such, ``default`` as the exact value's (None where that
    one may be left out). ``number`` for a ``Rational`` (a mean), ``each`` for a mapping of them."""
    what = "number" if number else "probability"
    said = f"the same {what}s as floats" if each else f"the same {what} as a float"
    return Field(default, description=f"{said}, for drawing; not exact")


def float_pairs(model: type[Any], module: str, twins: Mapping[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """Each exact field of ``model`` declared in ``module``'s models, with its float sibling; an error naming the
    field where a sibling is missing, of another shape, or required where its exact value is not (or the other way
    round). ``twins``: models whose every field is exact, read as a mapping of exact values (their floats beside
    them in the model named, not each beside its own); such a model says so with ``__floats_beside_it__``.

    >>> from pydantic import BaseModel
    >>> from rangefire.core.schemas import Probability
    >>> class Chance(BaseModel):
    ...     p: Probability
    ...     p_float: float = as_float()
    >>> float_pairs(Chance, __name__)
    (('p', 'p_float'),)
    >>> class Forgot(BaseModel):
    ...     p: Probability
    >>> float_pairs(Forgot, __name__)
    Traceback (most recent call last):
    ...
    TypeError: Forgot.p is exact: declare p_float: float = as_float(...) right after it
    """
    twins = twins or {}
    if getattr(model, "__floats_beside_it__", False):
        return ()
    exact = re.compile(r"\b(" + "|".join(["Probability", "Rational", *twins]) + r")\b")
    written: dict[str, str] = {}
    for klass in reversed(model.__mro__):
        if klass.__module__ == module:
            for name, kind in vars(klass).get("__annotations__", {}).items():
                written[name] = kind if isinstance(kind, str) else repr(kind)
    fields = model.model_fields
    pairs = []
    for name, kind in written.items():
        if name not in fields or not exact.search(kind):
            continue
        sibling = name + FLOAT_SUFFIX
        shape = exact.sub(lambda found: twins.get(found.group(0), "float"), kind)
        if written.get(sibling) != shape:
            raise TypeError(f"{model.__name__}.{name} is exact: declare {sibling}: {shape} = as_float(...) right "
                            f"after it")
        if fields[sibling].is_required() != fields[name].is_required():
            raise TypeError(f"{model.__name__}.{sibling} is required where {name} is, and only there")
        pairs.append((name, sibling))
    floats = {name for name in written if name.endswith(FLOAT_SUFFIX) and name in fields}
    stray = floats - {sibling for _, sibling in pairs}
    if stray:
        raise TypeError(f"{model.__name__}: {', '.join(sorted(stray))} beside no exact value")
    return tuple(pairs)


def check_floats(data: Any, pairs: tuple[tuple[str, str], ...], given: set[str]) -> None:
    """Refuse (ValueError) an exact value given without its float (``given``: the keys given), or a float that is
    not the exact value's, or not in its shape."""
    for name, sibling in pairs:
        exact = getattr(data, name)
        if exact is not None and sibling not in given:
            raise ValueError(f"{sibling} is missing beside {name}")
        if sibling in given:
            _same(exact, getattr(data, sibling), sibling)


def _same(exact: Any, floated: Any, where: str) -> None:
    if exact is None or floated is None:
        if exact is not floated:
            raise ValueError(f"{where} is None where the exact value is not, or the other way round")
    elif isinstance(exact, BaseModel):
        _same(exact.model_dump(), floated.model_dump(), where)
    elif isinstance(exact, Mapping):
        if not isinstance(floated, Mapping) or list(exact) != list(floated):
            raise ValueError(f"{where} has other keys than the exact value's")
        for key, value in exact.items():
            _same(value, floated[key], f"{where}.{key}")
    elif len(exact) <= _LONGEST and float(Fraction(exact)) != floated:
        raise ValueError(f"{where} is {floated!r}, not the exact value's float {float(Fraction(exact))!r}")
