"""Dice sources: where the faces of a resolution come from.

- :class:`SeededSource`: random but reproducible, the same seed gives the same battle;
- :class:`ScriptedSource`: a fixed sequence, for tests;
- :class:`EnteredSource`: dice a player rolled by hand and typed in, stage by stage.

Every source answers :meth:`DiceSource.roll` for a named stage; a source that runs out, or holds a value that
is not a face of the die, raises :class:`~rangefire.core.errors.DiceError` naming the stage and the need.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence

from rangefire.core.errors import DiceError, LimitError

#: No single roll asks for more dice than this: a hostile "a million dice" is refused at once.
MAX_DICE_PER_ROLL = 10_000


class DiceSource(ABC):
    """Supplies die faces, stage by stage."""

    def roll(self, stage: str, count: int, sides: int = 6) -> tuple[int, ...]:
        """Roll ``count`` dice of ``sides`` faces for ``stage``."""
        if count < 0:
            raise ValueError("count must be >= 0")
        if count > MAX_DICE_PER_ROLL:
            raise LimitError(f"stage {stage}: {count} dice asked for; at most {MAX_DICE_PER_ROLL} are rolled")
        if count == 0:
            return ()
        values = self._take(stage, count, sides)
        for value in values:
            if not 1 <= value <= sides:
                raise DiceError(f"stage {stage}: {value} is not a face of a d{sides} (1 to {sides})")
        return values

    @abstractmethod
    def _take(self, stage: str, count: int, sides: int) -> tuple[int, ...]: ...

    def choose(self, stage: str, options: Sequence[int], what: str = "value") -> int:
        """One of ``options`` (each entry equally likely; repeats weigh more): a card drawn, say.

        Random sources pick by position; entered and scripted sources give the value itself, which must
        be one of the options.
        """
        if not options:
            raise ValueError("nothing to choose from")
        return options[self.roll(stage, 1, len(options))[0] - 1]

    def finish(self) -> None:  # noqa: B027 - optional hook, most sources hold nothing to check
        """Called after a resolution: a source holding unused dice says so here."""


class SeededSource(DiceSource):
    """Pseudo-random dice from a seed; ``SeededSource(7)`` always rolls the same faces.

    >>> SeededSource(7).roll("hit", 4) == SeededSource(7).roll("hit", 4)
    True
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"SeededSource({self.seed!r})"

    def _take(self, stage: str, count: int, sides: int) -> tuple[int, ...]:
        return tuple(self._rng.randint(1, sides) for _ in range(count))


class ScriptedSource(DiceSource):
    """Faces from a fixed sequence, whatever the stage (tests).

    >>> ScriptedSource([6, 1, 4]).roll("hit", 2)
    (6, 1)
    """

    def __init__(self, values: Iterable[int]) -> None:
        self._values = list(values)
        self._used = 0

    def __repr__(self) -> str:
        return f"ScriptedSource({self._values!r})"

    def choose(self, stage: str, options: Sequence[int], what: str = "value") -> int:
        value = self._take(stage, 1, 0)[0]
        return _check_choice(stage, value, options, what)

    def _take(self, stage: str, count: int, sides: int) -> tuple[int, ...]:
        left = len(self._values) - self._used
        if count > left:
            raise DiceError(f"stage {stage}: needs {count} dice, the script has {left} left")
        out = tuple(self._values[self._used : self._used + count])
        self._used += count
        return out


class EnteredSource(DiceSource):
    """Dice the player rolled by hand, given by stage: ``EnteredSource({"hit": [6, 4, 3, 1]})``.

    Each stage's dice are used in the order given. Too few raises at once; dice left unused are reported
    by :meth:`finish`, since a player who typed more than the attack used has made a mistake somewhere.

    >>> src = EnteredSource({"hit": [6, 4]}, stages=("hit", "save"))
    >>> src.roll("hit", 2)
    (6, 4)
    >>> src.roll("save", 1)
    Traceback (most recent call last):
    ...
    rangefire.core.errors.DiceError: stage save: needs 1 die, 0 entered (--dice save=v,v,...)
    """

    def __init__(self, dice: Mapping[str, Sequence[int]], stages: Sequence[str] | None = None) -> None:
        if stages is not None:
            unknown = [s for s in dice if s not in stages]
            if unknown:
                raise DiceError(
                    f"unknown dice stage {unknown[0]!r}; the stages are: {', '.join(stages)}"
                )
        self._dice = {stage: list(values) for stage, values in dice.items()}
        self._used = dict.fromkeys(self._dice, 0)

    def __repr__(self) -> str:
        return f"EnteredSource({self._dice!r})"

    def choose(self, stage: str, options: Sequence[int], what: str = "value") -> int:
        value = self._take(stage, 1, 0)[0]
        return _check_choice(stage, value, options, what)

    def _take(self, stage: str, count: int, sides: int) -> tuple[int, ...]:
        values = self._dice.get(stage, [])
        used = self._used.get(stage, 0)
        left = len(values) - used
        if count > left:
            entered = len(values)
            raise DiceError(
                f"stage {stage}: needs {count} {'die' if count == 1 else 'dice'}"
                + (f" more after the {used} used" if used else "")
                + f", {left if used else entered} entered (--dice {stage}=v,v,...)"
            )
        self._used[stage] = used + count
        return tuple(values[used : used + count])

    def finish(self) -> None:
        for stage, values in self._dice.items():
            used = self._used[stage]
            if used < len(values):
                raise DiceError(
                    f"stage {stage}: {len(values)} dice entered but the attack used {used}"
                )


def _check_choice(stage: str, value: int, options: Sequence[int], what: str) -> int:
    if value not in options:
        known = ", ".join(str(v) for v in sorted(set(options)))
        raise DiceError(f"stage {stage}: {value} is not a {what} that can come up ({known})")
    return value


class RecordingSource(DiceSource):
    """Wraps a source and records every face it gives, by stage (the ``dice`` of a resolution)."""

    def __init__(self, inner: DiceSource) -> None:
        self.inner = inner
        self.record: dict[str, list[int]] = {}

    def _take(self, stage: str, count: int, sides: int) -> tuple[int, ...]:
        values = self.inner.roll(stage, count, sides)
        self.record.setdefault(stage, []).extend(values)
        return values

    def choose(self, stage: str, options: Sequence[int], what: str = "value") -> int:
        value = self.inner.choose(stage, options, what)
        self.record.setdefault(stage, []).append(value)
        return value

    def finish(self) -> None:
        self.inner.finish()


def parse_entered(items: Sequence[str], stages: Sequence[str]) -> EnteredSource:
    """Read ``--dice`` options such as ``hit=6,4,3,1`` into an :class:`EnteredSource`.

    >>> parse_entered(["hit=6,4", "save=5"], ("hit", "save")).roll("hit", 2)
    (6, 4)
    >>> parse_entered(["hits=6"], ("hit", "save"))
    Traceback (most recent call last):
    ...
    rangefire.core.errors.DiceError: unknown dice stage 'hits'; the stages are: hit, save
    """
    dice: dict[str, list[int]] = {}
    for item in items:
        stage, sep, text = item.partition("=")
        stage = stage.strip()
        if not sep or not stage:
            raise DiceError(f"--dice {item!r}: write STAGE=v,v,... (stages: {', '.join(stages)})")
        if len(text) > 6 * MAX_DICE_PER_ROLL:
            raise LimitError(f"--dice {stage}: more than {MAX_DICE_PER_ROLL} dice entered")
        values: list[int] = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            # ASCII digits only: str.isdigit also accepts '²' and other scripts' digits, which int() refuses or
            # reads as a number the player did not type; a face never needs more than a few digits.
            if not (part.isascii() and part.isdigit()) or len(part) > _MAX_FACE_DIGITS:
                raise DiceError(f"--dice {stage}: {_shown(part)} is not a die face (digits 0-9)")
            values.append(int(part))
        if len(values) > MAX_DICE_PER_ROLL:
            raise LimitError(f"--dice {stage}: more than {MAX_DICE_PER_ROLL} dice entered")
        dice.setdefault(stage, []).extend(values)
    return EnteredSource(dice, stages)


#: A die face of more digits than this is not a face of any die (and int() refuses past 4300 digits).
_MAX_FACE_DIGITS = 6


def _shown(part: str) -> str:
    return repr(part) if len(part) <= 20 else repr(part[:17]) + f"... ({len(part)} characters)"
