"""Fingerprints of immutable battles: a key that is cheap to hash, equal for two battles only where they are equal.

A duel (``rangefire.analysis.duel``) merges the thousands of battles it reaches by such a key. Hashing a battle
itself hashes every coordinate (a :class:`~fractions.Fraction` hashes slowly); a fingerprint takes plain values
(bools, ints, strings) by value, walks into models and the tuples and mappings of models they hold, and takes
everything else (coordinates, polygons) by identity: a battle copied field by field (``model_copy``) shares those
objects with the battle it came from. Equal fingerprints mean equal battles; equal battles built apart may have
different fingerprints (they are then only not merged). Whoever keeps a fingerprint keeps its battle too, so that
no identity in it is reused meanwhile.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from pydantic import BaseModel

_PLAIN = frozenset((bool, int, str, type(None)))
#: Each model's fingerprint by its identity, the model kept beside it (so no identity is reused while it is
#: here); a copied battle keeps most of its models, so most are looked up, not walked (bounded).
_MODELS: dict[int, tuple[BaseModel, tuple[Any, ...]]] = {}
MAX_KEPT = 50_000


def fingerprint(value: Any, skip: tuple[str, ...] = ()) -> Hashable:
    """The fingerprint of a model (its fields but those named in ``skip``), a tuple or mapping of models, or a
    plain value."""
    kind = type(value)
    if kind in _PLAIN:
        return value  # type: ignore[no-any-return]  # a bool, int, str or None
    if isinstance(value, BaseModel):
        if skip:
            return tuple(fingerprint(v) for k, v in value.__dict__.items() if k not in skip)
        found = _MODELS.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
        fp = tuple(fingerprint(v) for v in value.__dict__.values())
        if len(_MODELS) >= MAX_KEPT:
            _MODELS.clear()
        _MODELS[id(value)] = (value, fp)
        return fp
    if kind is tuple and value and isinstance(value[0], BaseModel):
        return tuple(fingerprint(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, fingerprint(v)) for k, v in value.items())
    return ("id", id(value))
