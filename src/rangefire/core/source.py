"""Dice sources: where the faces of a resolution come from.

- :class:`SeededSource`: random but reproducible, the same seed gives the same battle;
- :class:`ScriptedSource`: a fixed sequence, for tests;
- :class:`EnteredSource`: dice a player rolled by hand and typed in, stage by stage;
- :class:`AskedSource`: dice asked for when each stage is reached, through a callback (the command line asks at
  the terminal; the core knows no terminal).

Every game says, when it rolls, what the dice are for (a :class:`Need`), so that a player rolling by hand is told
"save: roll 3 dice, 4+ saves". A source that runs out, or holds a value that is not a face of the die, raises
:class:`~rangefire.core.errors.DiceError` naming the stage and the need.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from rangefire.core.errors import DiceError, LimitError

#: No single roll asks for more dice than this: a hostile "a million dice" is refused at once.
MAX_DICE_PER_ROLL = 10_000


@dataclass(frozen=True)
class Need:
    """What a roll is for, in the words a player rolling by hand needs.

    ``text`` says what the dice need ("4+ saves"); ``why`` where their count comes from ("3 hits on a natural
    5+"), told when the count is questioned.
    """

    text: str = ""
    why: str = ""


NeedLike = Need | str


def _need(need: NeedLike) -> Need:
    return need if isinstance(need, Need) else Need(need)


def _dice(count: int) -> str:
    return f"{count} {'die' if count == 1 else 'dice'}"


@dataclass(frozen=True)
class Question:
    """One roll a player is asked for: how many dice of how many sides, and what they need.

    ``faces`` are the values that may be given: 1 to ``sides`` for a roll, the options of a choice (a card's
    combat bonus). ``problem`` says why a stage entered beforehand is asked again.
    """

    stage: str
    count: int
    sides: int
    need: Need
    faces: tuple[int, ...]
    problem: str = ""
    what: str = "value"

    def prompt(self) -> str:
        """The line that asks: ``save: roll 3 dice, 4+ saves (3 hits on a natural 5+)``.

        >>> Question("save", 3, 6, Need("4+ saves"), tuple(range(1, 7))).prompt()
        'save: roll 3 dice, 4+ saves'
        """
        why = f" ({self.need.why})" if self.need.why else ""
        if not self.sides:  # a choice: what it is says it all
            return f"{self.stage}: {self.need.text or 'the ' + self.what}{why}"
        parts = [p for p in (f"roll {_dice(self.count)}", self.need.text) if p]
        return f"{self.stage}: {', '.join(parts)}{why}"

    def read(self, text: str) -> tuple[int, ...]:
        """The values typed, separated by spaces or commas; a wrong count or a value that cannot come up is a
        :class:`DiceError` with a one-line reason.

        >>> q = Question("save", 3, 6, Need("4+ saves"), tuple(range(1, 7)))
        >>> q.read("5, 2 6")
        (5, 2, 6)
        >>> q.read("5 2")
        Traceback (most recent call last):
        ...
        rangefire.core.errors.DiceError: 2 values given, 3 needed
        >>> q.read("5 2 7")
        Traceback (most recent call last):
        ...
        rangefire.core.errors.DiceError: 7 is not a face of a d6 (1 to 6)
        """
        parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
        if len(parts) > MAX_DICE_PER_ROLL:
            raise DiceError(f"{len(parts)} values given, {self.count} needed")
        values = []
        for part in parts:
            values.append(_face(part))
        if len(values) != self.count:
            raise DiceError(f"{_values(len(values))} given, {self.count} needed")
        for value in values:
            if value not in self.faces:
                raise DiceError(self.not_a_face(value))
        return tuple(values)

    def not_a_face(self, value: int) -> str:
        if self.sides:
            return f"{value} is not a face of a d{self.sides} (1 to {self.sides})"
        known = ", ".join(str(v) for v in sorted(set(self.faces)))
        return f"{value} is not a {self.what} that can come up ({known})"


def _values(count: int) -> str:
    return "no value" if count == 0 else f"{count} {'value' if count == 1 else 'values'}"


#: The callback an :class:`AskedSource` asks through: a question in, the values given out.
Ask = Callable[[Question], Sequence[int]]


class DiceSource(ABC):
    """Supplies die faces, stage by stage."""

    def roll(self, stage: str, count: int, sides: int = 6, need: NeedLike = "") -> tuple[int, ...]:
        """Roll ``count`` dice of ``sides`` faces for ``stage``; ``need`` says what they are for."""
        if count < 0:
            raise ValueError("count must be >= 0")
        if count > MAX_DICE_PER_ROLL:
            raise LimitError(f"stage {stage}: {count} dice asked for; at most {MAX_DICE_PER_ROLL} are rolled")
        if count == 0:
            return ()
        values = self._take(stage, count, sides, _need(need))
        for value in values:
            if not 1 <= value <= sides:
                raise DiceError(f"stage {stage}: {value} is not a face of a d{sides} (1 to {sides})")
        return values

    @abstractmethod
    def _take(self, stage: str, count: int, sides: int, need: Need) -> tuple[int, ...]: ...

    def choose(self, stage: str, options: Sequence[int], what: str = "value", need: NeedLike = "") -> int:
        """One of ``options`` (each entry equally likely; repeats weigh more): a card drawn, say.

        Random sources pick by position; entered, asked and scripted sources give the value itself, which must
        be one of the options. ``what`` names one option ("combat bonus left in the deck").
        """
        if not options:
            raise ValueError("nothing to choose from")
        return options[self.roll(stage, 1, len(options), need)[0] - 1]

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

    def _take(self, stage: str, count: int, sides: int, need: Need) -> tuple[int, ...]:
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

    def choose(self, stage: str, options: Sequence[int], what: str = "value", need: NeedLike = "") -> int:
        value = self._take(stage, 1, 0, _need(need))[0]
        return _check_choice(stage, value, options, what)

    def _take(self, stage: str, count: int, sides: int, need: Need) -> tuple[int, ...]:
        left = len(self._values) - self._used
        if count > left:
            raise DiceError(f"stage {stage}: needs {count} dice, the script has {left} left")
        out = tuple(self._values[self._used : self._used + count])
        self._used += count
        return out


class AskedSource(DiceSource):
    """Dice asked for when each stage is reached: ``ask`` gets a :class:`Question` and gives the values.

    The callback may check the values itself (``Question.read``) and ask again; whatever it gives is checked
    here once more. To give up (end of input), it raises.

    >>> AskedSource(lambda q: q.read("6 4")).roll("hit", 2, need="a natural 4+ hits")
    (6, 4)
    """

    def __init__(self, ask: Ask) -> None:
        self.ask = ask

    def __repr__(self) -> str:
        return f"AskedSource({self.ask!r})"

    def question(self, stage: str, count: int, sides: int, need: Need, problem: str = "") -> Question:
        return Question(stage, count, sides, need, tuple(range(1, sides + 1)), problem)

    def _take(self, stage: str, count: int, sides: int, need: Need) -> tuple[int, ...]:
        return self.answer(self.question(stage, count, sides, need))

    def answer(self, question: Question) -> tuple[int, ...]:
        values = tuple(self.ask(question))
        if len(values) != question.count:
            raise DiceError(f"stage {question.stage}: {_values(len(values))} given, {question.count} needed")
        for value in values:
            if value not in question.faces:
                raise DiceError(f"stage {question.stage}: {question.not_a_face(value)}")
        return values

    def choose(self, stage: str, options: Sequence[int], what: str = "value", need: NeedLike = "") -> int:
        if not options:
            raise ValueError("nothing to choose from")
        return self.answer(Question(stage, 1, 0, _need(need), tuple(options), what=what))[0]


class EnteredSource(DiceSource):
    """Dice the player rolled by hand, given by stage: ``EnteredSource({"hit": [6, 4, 3, 1]})``.

    Each stage's dice are used in the order given. The attack is played as far as the dice entered allow (the
    first N of too many, up to the first stage short of dice), and every problem met is reported in one
    :class:`DiceError`, in the order the stages were reached: a player who typed a wrong count learns every
    mistake at once.

    With ``then`` (an :class:`AskedSource`), a stage not entered is asked for instead, and a stage entered with
    the wrong count or a value that cannot come up is asked again with the reason (each stage is then one roll).

    >>> src = EnteredSource({"hit": [6, 4]}, stages=("hit", "save"))
    >>> src.roll("hit", 2)
    (6, 4)
    >>> src.roll("save", 1, need=Need("4+ saves", "1 hit"))
    Traceback (most recent call last):
    ...
    rangefire.core.errors.DiceError: entered dice: save: 1 needed (1 hit), none given
    """

    def __init__(self, dice: Mapping[str, Sequence[int]], stages: Sequence[str] | None = None,
                 then: AskedSource | None = None) -> None:
        if stages is not None:
            unknown = [s for s in dice if s not in stages]
            if unknown:
                raise DiceError(
                    f"unknown dice stage {unknown[0]!r}; the stages are: {', '.join(stages)}"
                )
        self._stages = tuple(stages) if stages is not None else tuple(dice)
        self._dice = {stage: list(values) for stage, values in dice.items()}
        self._used = dict.fromkeys(self._dice, 0)
        self._then = then
        self._reached: list[str] = []  # stages in the order the attack reached them
        self._short: dict[str, str] = {}  # stage -> the problem that stopped the attack there

    def __repr__(self) -> str:
        return f"EnteredSource({self._dice!r})"

    def choose(self, stage: str, options: Sequence[int], what: str = "value", need: NeedLike = "") -> int:
        question = Question(stage, 1, 0, _need(need), tuple(options), what=what)
        if self._then is not None and not self._left(stage):
            return self._then.choose(stage, options, what, need)
        if self._then is not None:
            value = self._take(stage, 1, 0, question.need)[0]
            if value in options:
                return value
            return self._then.answer(Question(stage, 1, 0, question.need, tuple(options),
                                              f"{stage}: {question.not_a_face(value)}", what))[0]
        value = self._take(stage, 1, 0, question.need)[0]
        if value not in options:
            self._stop(stage, question.not_a_face(value))
        return value

    def _left(self, stage: str) -> list[int]:
        return self._dice.get(stage, [])[self._used.get(stage, 0):]

    def roll(self, stage: str, count: int, sides: int = 6, need: NeedLike = "") -> tuple[int, ...]:
        if self._then is None or count == 0 or not self._left(stage):
            return super().roll(stage, count, sides, need)
        # Asking: an entered stage that does not fit this roll is asked again, saying why.
        values = self._left(stage)
        self._used[stage] = len(self._dice[stage])
        if stage not in self._reached:
            self._reached.append(stage)
        asked = self._then.question(stage, count, sides, _need(need))
        problem = ""
        if len(values) != count:
            problem = f"{stage}: {_dice(len(values))} entered, {count} needed"
        else:
            bad = [v for v in values if v not in asked.faces]
            if bad:
                problem = f"{stage}: {asked.not_a_face(bad[0])}"
        if not problem:
            return tuple(values)
        return self._then.answer(Question(stage, count, sides, asked.need, asked.faces, problem))

    def _take(self, stage: str, count: int, sides: int, need: Need) -> tuple[int, ...]:
        if self._then is not None and not self._left(stage):
            return self._then.roll(stage, count, sides, need)
        if stage not in self._reached:
            self._reached.append(stage)
        values = self._dice.get(stage, [])
        used = self._used.get(stage, 0)
        left = len(values) - used
        if count > left:
            why = f" ({need.why})" if need.why else ""
            given = "none" if not left else str(left)
            more = f" after the {used} used" if used else ""
            self._stop(stage, f"{count} needed{why}{more}, {given} given")
        taken = tuple(values[used : used + count])
        self._used[stage] = used + count
        for value in taken:
            if sides and not 1 <= value <= sides:
                self._stop(stage, f"{value} is not a face of a d{sides} (1 to {sides})")
        return taken

    def _stop(self, stage: str, problem: str) -> None:
        """The attack cannot go on past this stage: every problem met so far, in one error."""
        if stage not in self._reached:
            self._reached.append(stage)
        self._short[stage] = problem
        raise DiceError("entered dice: " + "; ".join(self._problems(finished=False)))

    def _problems(self, finished: bool) -> list[str]:
        problems = []
        for stage in self._reached:
            if stage in self._short:
                problems.append(f"{stage}: {self._short[stage]}")
            elif stage in self._dice and self._used[stage] < len(self._dice[stage]):
                problems.append(f"{stage}: {len(self._dice[stage])} given, {self._used[stage]} needed")
        if finished:  # stages entered that the attack never reached, in the game's order
            for stage in sorted((s for s in self._dice if s not in self._reached and self._dice[s]),
                                key=lambda s: self._stages.index(s) if s in self._stages else len(self._stages)):
                problems.append(f"{stage}: {len(self._dice[stage])} given, none needed (the attack rolled no "
                                f"{stage} dice)")
        return problems

    def finish(self) -> None:
        problems = self._problems(finished=True)
        if problems:
            raise DiceError("entered dice: " + "; ".join(problems))


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

    def _take(self, stage: str, count: int, sides: int, need: Need) -> tuple[int, ...]:
        values = self.inner.roll(stage, count, sides, need)
        self.record.setdefault(stage, []).extend(values)
        return values

    def choose(self, stage: str, options: Sequence[int], what: str = "value", need: NeedLike = "") -> int:
        value = self.inner.choose(stage, options, what, need)
        self.record.setdefault(stage, []).append(value)
        return value

    def finish(self) -> None:
        self.inner.finish()


#: ``--dice ask``: the stages not entered are asked for at the terminal.
ASK = "ask"


def parse_entered(items: Sequence[str], stages: Sequence[str], then: AskedSource | None = None) -> EnteredSource:
    """Read ``--dice`` options such as ``hit=6,4,3,1`` into an :class:`EnteredSource`; ``then`` asks for the
    stages not entered (an ``ask`` item among ``items`` is the caller's to read: skipped with ``then``, refused
    without).

    >>> parse_entered(["hit=6,4", "save=5"], ("hit", "save")).roll("hit", 2)
    (6, 4)
    >>> parse_entered(["hits=6"], ("hit", "save"))
    Traceback (most recent call last):
    ...
    rangefire.core.errors.DiceError: unknown dice stage 'hits'; the stages are: hit, save
    """
    dice: dict[str, list[int]] = {}
    for item in items:
        if item.strip() == ASK and then is not None:
            continue
        stage, sep, text = item.partition("=")
        stage = stage.strip()
        if not sep or not stage:
            raise DiceError(f"--dice {item!r}: write STAGE=v,v,... or ask (stages: {', '.join(stages)})")
        if len(text) > 6 * MAX_DICE_PER_ROLL:
            raise LimitError(f"--dice {stage}: more than {MAX_DICE_PER_ROLL} dice entered")
        values: list[int] = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            try:
                values.append(_face(part))
            except DiceError as exc:
                raise DiceError(f"--dice {stage}: {exc}") from None
        if len(values) > MAX_DICE_PER_ROLL:
            raise LimitError(f"--dice {stage}: more than {MAX_DICE_PER_ROLL} dice entered")
        dice.setdefault(stage, []).extend(values)
    return EnteredSource(dice, stages, then)


#: A die face of more digits than this is not a face of any die (and int() refuses past 4300 digits).
_MAX_FACE_DIGITS = 6


def _face(part: str) -> int:
    # ASCII digits only: str.isdigit also accepts '²' and other scripts' digits, which int() refuses or
    # reads as a number the player did not type; a face never needs more than a few digits.
    if not (part.isascii() and part.isdigit()) or len(part) > _MAX_FACE_DIGITS:
        raise DiceError(f"{_shown(part)} is not a die face (digits 0-9)")
    return int(part)


def _shown(part: str) -> str:
    return repr(part) if len(part) <= 20 else repr(part[:17]) + f"... ({len(part)} characters)"
