"""Fingerprints of immutable battles: a key that is cheap to hash, equal for two battles only where they are equal.

A duel (``rangefire.analysis.duel``) merges the thousands of battles it reaches by such a key. Hashing a battle
itself hashes every coordinate (a :class:`~fractions.Fraction` hashes slowly); a fingerprint takes plain values
(bools, ints, strings, None, and tuples of them: a turn's order of sides) by value, walks into models and the
tuples and mappings of models they hold, and takes everything else (coordinates, polygons) by identity: a battle
copied field by field (``model_copy``) shares those objects with the battle it came from. Equal fingerprints mean
equal battles; equal battles built apart may have different fingerprints (they are then only not merged). Whoever
keeps a fingerprint keeps its battle too, so that no identity in it is reused meanwhile.

Each kind of part is told apart in the key (a model's key begins with its class, a mapping's with ``dict``, an
identity with a marker of its own), so that parts of different kinds never share a key.

>>> from fractions import Fraction
>>> from pydantic import BaseModel, ConfigDict
>>> class Piece(BaseModel):
...     model_config = ConfigDict(frozen=True)
...     id: str
...     stands: int
...     position: tuple[Fraction, Fraction]
>>> class Table(BaseModel):
...     model_config = ConfigDict(frozen=True)
...     name: str | None = None
...     pieces: tuple[Piece, ...]
>>> battle = Table(pieces=(Piece(id="N", stands=2, position=(Fraction(0), Fraction(0))),))
>>> same = battle.model_copy(update={"name": battle.name})
>>> fingerprint(same) == fingerprint(battle)
True
>>> fewer = battle.model_copy(update={"pieces": (battle.pieces[0].model_copy(update={"stands": 1}),)})
>>> fingerprint(fewer) == fingerprint(battle)
False
>>> fingerprint(tuple(["union", "confederate"])) == fingerprint(tuple(["union", "confederate"]))  # by value
True
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from pydantic import BaseModel

_PLAIN = frozenset((bool, int, str, type(None)))
#: The marker of a part taken by identity (an object of its own: no plain value or model key equals it).
_BY_IDENTITY = object()
#: Classes already seen to be models, and classes seen not to be (a lookup is quicker than ``isinstance`` against
#: a model's metaclass, asked of every coordinate).
_MODEL_KINDS: set[type] = set()
_OTHER_KINDS: set[type] = set()
#: Each model's fingerprint by its identity, the model kept beside it (so no identity is reused while it is
#: here); a copied battle keeps most of its models, so most are looked up, not walked (bounded).
_MODELS: dict[int, tuple[BaseModel, tuple[Any, ...]]] = {}
MAX_KEPT = 50_000


def _is_model(kind: type, value: Any) -> bool:
    if kind in _MODEL_KINDS:
        return True
    if kind in _OTHER_KINDS:
        return False
    (_MODEL_KINDS if isinstance(value, BaseModel) else _OTHER_KINDS).add(kind)
    return kind in _MODEL_KINDS


def fingerprint(value: Any, skip: tuple[str, ...] = ()) -> Hashable:
    """The fingerprint of a model (its fields but those named in ``skip``), a tuple or mapping of models, or a
    plain value."""
    kind = type(value)
    if kind in _PLAIN:
        return value  # type: ignore[no-any-return]  # a bool, int, str or None
    if _is_model(kind, value):
        if not skip:
            found = _MODELS.get(id(value))
            if found is not None and found[0] is value:
                return found[1]
        # plain fields (most of a unit's) are taken here, without a call each
        fp = (kind, *[v if type(v) in _PLAIN else fingerprint(v)
                      for k, v in value.__dict__.items() if k not in skip])
        if not skip:
            if len(_MODELS) >= MAX_KEPT:
                _MODELS.clear()
            _MODELS[id(value)] = (value, fp)
        return fp
    if kind is tuple:
        if all(type(v) in _PLAIN for v in value):
            return value  # type: ignore[no-any-return]  # plain values (an order of sides): by value
        if _is_model(type(value[0]), value[0]):
            return tuple([fingerprint(v) for v in value])
    if isinstance(value, dict):
        return (dict, *[(k, fingerprint(v)) for k, v in value.items()])
    return (_BY_IDENTITY, id(value))
