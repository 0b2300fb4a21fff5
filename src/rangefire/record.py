"""A battle's record: the actions played, one JSON line each, and the battle rebuilt from them.

A battle is its scenario and the actions played on it since: each attack with its choices, the dice by stage,
the outcome and every log line; each end of turn (or of an activation) with its log lines. ``append_action``
adds one action to a log file, ``read_log`` reads a log back whole, and ``replay`` plays the actions again on
the scenario, each attack with its recorded dice, checking that every step gives what was recorded.

One line of a log::

    {"format": 1, "action": "attack", "ruleset": "dress-on-the-colors", "attacker": "20th-maine",
     "target": "15th-alabama", "choices": {}, "dice": {"hit": [6, 4, 2]}, "outcome": {...},
     "log": [{"clause": "DC-3.1", "text": "..."}]}
    {"format": 1, "action": "end-turn", "activation": false, "log": [...]}

A line the command line writes also holds ``battle_before`` and ``battle_after``: the digests
(:func:`battle_digest`) of the battle the action was played on and of the battle after it. A command that reads
a battle with its log compares them with the battle it read (:func:`battle_positions`): a battle whose digest is
the last line's ``battle_before`` and not its ``battle_after`` is one the log has gone past (its action logged,
the battle after it never written there), which is said, never played on.

A line is appended by a single ``write`` on a file opened for appending, then synced: a writer that is
killed leaves at most an incomplete last line, with no newline, which ``read_log`` reports as such (it
never reads as a whole action).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, ValidationError, model_serializer

from rangefire.core import Attack, DiceError, LogLine, RangefireError, Resolution, Ruleset
from rangefire.core.source import EnteredSource
from rangefire.scenario.parsing import MAX_DIGITS
from rangefire.scenario.validation import format_error

FORMAT = 1
#: A log larger than this is refused before it is read (a turn is a few kilobytes; a long battle some hundreds).
MAX_LOG_BYTES = 8 * 1024 * 1024
#: No action's line is longer than this (an attack with every log line is a few kilobytes).
MAX_LINE_BYTES = 256 * 1024
#: No log holds more actions than this.
MAX_ACTIONS = 20_000

Clause = Annotated[str, Field(min_length=1, max_length=32)]
Text = Annotated[str, Field(max_length=4000)]
Name = Annotated[str, Field(min_length=1, max_length=64)]
Face = Annotated[int, Field(strict=True, ge=0, le=1_000_000)]
#: A battle's digest (:func:`battle_digest`): 32 hexadecimal digits.
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]
#: The keys of a line that are left out where they are not known (a line written before they were, or by the
#: HTTP API, which keeps the battle with its actions).
DIGESTS = ("battle_before", "battle_after")


class LogError(RangefireError):
    """A log that cannot be read or appended to, or whose replay does not give what it records."""

    kind = "invalid_log"


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_serializer(mode="wrap")
    def _known(self, handler: SerializerFunctionWrapHandler) -> Any:
        """The record as data, a digest that is not known left out (not written as null)."""
        data = handler(self)
        for key in DIGESTS:
            if isinstance(data, dict) and data.get(key, "") is None:
                del data[key]
        return data


class Line(_Record):
    """One log line of an action, with its clause."""

    clause: Clause
    text: Text

    def __str__(self) -> str:
        return f"[{self.clause}] {self.text}"


class AttackAction(_Record):
    """An attack as played: who, at whom, the player's choices, the dice by stage, the outcome, the log."""

    format: Literal[1] = 1
    action: Literal["attack"] = "attack"
    ruleset: Name
    attacker: Name
    target: Name | None = None
    choices: dict[Name, Any] = Field(default_factory=dict, max_length=20)
    dice: dict[Name, Annotated[tuple[Face, ...], Field(max_length=10_000)]] = Field(default_factory=dict,
                                                                                     max_length=20)
    outcome: dict[Name, Any] = Field(default_factory=dict, max_length=100)
    log: Annotated[tuple[Line, ...], Field(max_length=1000)] = ()
    battle_before: Digest | None = None
    battle_after: Digest | None = None

    def attack(self) -> Attack:
        """The attack to check and play again (the choices as the game reads them: lists as tuples)."""
        choices = tuple((name, tuple(v) if isinstance(v, list) else v) for name, v in self.choices.items())
        return Attack(self.attacker, self.target, choices)


class EndTurnAction(_Record):
    """A turn (or, with ``activation``, an activation) ended, with the log of what that did."""

    format: Literal[1] = 1
    action: Literal["end-turn"] = "end-turn"
    activation: Annotated[bool, Field(strict=True)] = False  # "yes" or 1 is not read as true
    log: Annotated[tuple[Line, ...], Field(max_length=10_000)] = ()
    battle_before: Digest | None = None
    battle_after: Digest | None = None


Action = AttackAction | EndTurnAction


def _lines(log: Sequence[LogLine]) -> tuple[Line, ...]:
    return tuple(Line(clause=line.clause, text=line.text) for line in log)


def _json_ready(value: Any) -> Any:
    """A value as JSON gives it back (tuples as lists), so that a record compares equal to its reading."""
    return json.loads(json.dumps(value))


def attack_action(ruleset: Ruleset[Any, Any], attack: Attack, resolution: Resolution,
                  battle_before: str | None = None, battle_after: str | None = None) -> AttackAction:
    """The record of an attack played: the attack as asked (the target the rules chose where none was named);
    with the digests of the battle it was played on and of the battle after it, where they are given."""
    return AttackAction(ruleset=ruleset.key, attacker=attack.attacker,
                        target=attack.target if attack.target is not None else resolution.plan.target,
                        choices=_json_ready(dict(attack.choices)),
                        dice={stage: tuple(values) for stage, values in resolution.dice.items()},
                        outcome=_json_ready(resolution.outcome.to_dict()), log=_lines(resolution.log),
                        battle_before=battle_before, battle_after=battle_after)


def end_turn_action(log: Sequence[LogLine], activation: bool = False, battle_before: str | None = None,
                    battle_after: str | None = None) -> EndTurnAction:
    return EndTurnAction(activation=activation, log=_lines(log), battle_before=battle_before,
                         battle_after=battle_after)


def battle_digest(data: Mapping[str, Any]) -> str:
    """A battle's digest: its dump (``Ruleset.dump``) as canonical JSON, hashed (SHA-256, 32 hexadecimal
    digits). Equal battles have equal digests, whatever file and format they were read from."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:32]


def describe(action: Action) -> str:
    """An action in a few words: ``20th-maine's attack``, ``the end of the turn``."""
    if isinstance(action, AttackAction):
        return f"{action.attacker}'s attack"
    return "the end of the activation" if action.activation else "the end of the turn"


def action_line(action: Action) -> bytes:
    """The action as one line of JSON, ASCII only (no character of a name can split or end the line)."""
    data = action.model_dump(mode="json")
    text = json.dumps(data, separators=(", ", ": "), ensure_ascii=True) + "\n"
    line = text.encode("ascii")
    if len(line) > MAX_LINE_BYTES:
        raise LogError(f"the action is {len(line)} bytes as a line; a log line may be at most {MAX_LINE_BYTES}")
    return line


# -- appending --------------------------------------------------------------------------------------
def check_appendable(path: str | Path, apart_from: Sequence[str | Path | None] = ()) -> None:
    """Refuse, before anything is played, a log that an action could not be appended to: in a missing folder,
    not a regular file, marked read-only, too large, not a log (a scenario), ending in an incomplete line (a new
    line would join it), or the same file as one of ``apart_from`` (the scenario read, the battle written)."""
    path = Path(path)
    for other in apart_from:
        if other is not None and _same_file(path, Path(other)):
            raise LogError(f"--log {path}: the log is the battle's own file ({other}); a log is a file of its own")
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    except FileNotFoundError:
        if not path.parent.is_dir():
            raise LogError(f"{path}: cannot write: the folder {path.parent} does not exist") from None
        return
    except OSError as exc:
        raise LogError(f"{path}: cannot read: {(exc.strerror or str(exc)).lower()}") from None
    try:
        _check_end(path, fd)
    finally:
        os.close(fd)


#: Opening a log never blocks (a FIFO), never takes a terminal, never leaks into a child process.
_OPEN_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def _check_end(path: Path, fd: int, locked: bool = False) -> None:
    """The checks of :func:`check_appendable` on an open log, under a lock that writers hold while they
    append, so that another process's line half-way through its write is never taken for a torn one."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise LogError(f"{path}: not a regular file; a log is appended only to a regular file")
    # as --out does not replace a read-only file, a log marked read-only (even for the superuser) stays as it is
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise LogError(f"{path}: the log is read-only; nothing is appended to it")
    with _locked(fd, exclusive=False) if not locked else nullcontext():
        size = os.fstat(fd).st_size
        if size + MAX_LINE_BYTES > MAX_LOG_BYTES:
            raise LogError(f"{path}: {size} bytes; a log may grow to at most {MAX_LOG_BYTES} bytes")
        if size and os.pread(fd, 1, size - 1) != b"\n":
            raise LogError(f"{path}: the last line is incomplete (a write was cut short); remove it before "
                           "appending")
        if size and (why := _not_a_log(os.pread(fd, min(size, MAX_LINE_BYTES + 1), 0))):
            raise LogError(f"{path}: not a log (its first line is no action: {why}); nothing is appended to it")


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve() or (one.exists() and other.exists() and one.samefile(other))
    except (OSError, RuntimeError):  # a loop of links: not the same as anything that can be written
        return False


@contextmanager
def _locked(fd: int, exclusive: bool) -> Iterator[None]:
    """An advisory lock on the whole log (shared to read, exclusive to append), where the system has one."""
    try:
        import fcntl
    except ImportError:  # no advisory locks here: appends are still single writes
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def append_action(path: str | Path, action: Action) -> int:
    """Append one action as one line: a single write to a file opened for appending, then synced. Returns the
    line's number.

    The line is written whole or not at all as far as any reader can tell: writers (and readers) hold a lock
    on the log while they write (or read) it, a short write (a full disk) is reported, and what it left is a
    last line without a newline, which ``read_log`` reports as incomplete.
    """
    path = Path(path)
    line = action_line(action)
    check_appendable(path)
    new = not path.exists()
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | _OPEN_FLAGS  # read too: its last byte is checked
    try:
        fd = os.open(path, flags, 0o666)
        try:
            with _locked(fd, exclusive=True):
                _check_end(path, fd, locked=True)  # again, now that no other writer can be half-way through a line
                written = os.write(fd, line)
                os.fsync(fd)
                number = _count_lines(fd)
        finally:
            os.close(fd)
        if new:
            _sync_folder(path.parent)
    except OSError as exc:
        raise LogError(f"{path}: cannot append: {(exc.strerror or str(exc)).lower()}") from None
    if written != len(line):
        raise LogError(f"{path}: only {written} of the {len(line)} bytes of the action were written (is the disk "
                       "full?); the log now ends in an incomplete line")
    return number


def _count_lines(fd: int) -> int:
    count, offset = 0, 0
    while chunk := os.pread(fd, 1 << 20, offset):
        count += chunk.count(b"\n")
        offset += len(chunk)
    return count


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # a file system that cannot sync a folder: the line itself is synced
    finally:
        os.close(fd)


def _not_a_log(head: bytes) -> str | None:
    """Why a file's first line is not an action, as every log's is (None where it is one): a JSON file whose
    first line merely holds an ``action`` key (a scenario, a note) is no log, and nothing is appended to it."""
    try:
        _parse_line(Path("log"), 1, head.split(b"\n", 1)[0])
    except LogError as exc:
        return str(exc).removeprefix("log: line 1: ")
    return None


# -- reading ----------------------------------------------------------------------------------------
def log_digests(path: str | Path) -> list[tuple[str | None, str | None]]:
    """The battle digests of every line of a log, in order (``(None, None)`` for a line that records none or
    cannot be read); a log that does not exist yet has none. Read cheaply, without checking the actions:
    ``read_log`` does that."""
    path = Path(path)
    if not path.exists():
        return []
    found: list[tuple[str | None, str | None]] = []
    for text in _read_limited(path).split(b"\n")[:-1]:  # after the last newline: nothing, or a torn line
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict):
            found.append((None, None))
            continue
        before, after = data.get("battle_before"), data.get("battle_after")
        found.append((before if isinstance(before, str) else None, after if isinstance(after, str) else None))
    return found


def battle_positions(digests: Sequence[tuple[str | None, str | None]], digest: str) -> set[int]:
    """Where in a log a battle of this digest stands, as the numbers of the lines it comes before: ``n`` where
    line ``n`` was played on it, ``n + 1`` where it is the battle after line ``n`` (so ``len(digests) + 1``:
    the battle after the whole log). Empty where no line records it (a log of other battles, or one whose
    lines record no digests)."""
    found = set()
    for number, (before, after) in enumerate(digests, start=1):
        if before == digest:
            found.add(number)
        if after == digest:
            found.add(number + 1)
    return found


def read_log(path: str | Path) -> list[Action]:
    """Every action of a log, in order; the n-th action is on line n.

    Refused with a one-line :class:`LogError` naming the file and the line: a file that is not regular or
    larger than ``MAX_LOG_BYTES``, a line longer than ``MAX_LINE_BYTES``, more than ``MAX_ACTIONS`` lines, an
    incomplete last line (no newline: a write was cut short), a line that is not an action of this format.
    """
    path = Path(path)
    raw = _read_limited(path)
    if not raw:
        return []
    lines = raw.split(b"\n")
    torn = lines.pop()  # after the last newline: empty when the file ends with one
    if len(lines) + bool(torn) > MAX_ACTIONS:
        raise LogError(f"{path}: more than {MAX_ACTIONS} lines; a log holds at most {MAX_ACTIONS} actions")
    actions = []
    for number, text in enumerate(lines, start=1):
        actions.append(_parse_line(path, number, text))
    if torn:
        number = len(lines) + 1
        raise LogError(f"{path}: line {number} is incomplete (no newline at the end: a write was cut short); "
                       f"the {len(lines)} lines before it are whole")
    return actions


def _read_limited(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise LogError(f"{path}: not a regular file; a log is read only from a regular file")
            if info.st_size > MAX_LOG_BYTES:
                raise LogError(f"{path}: {info.st_size} bytes; a log may be at most {MAX_LOG_BYTES} bytes")
            chunks, left = [], MAX_LOG_BYTES + 1
            with _locked(fd, exclusive=False):  # never half of a line another process is appending
                while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
                    chunks.append(chunk)
                    left -= len(chunk)
        finally:
            os.close(fd)
    except OSError as exc:
        raise LogError(f"{path}: cannot read: {(exc.strerror or str(exc)).lower()}") from None
    data = b"".join(chunks)
    if len(data) > MAX_LOG_BYTES:
        raise LogError(f"{path}: more than {MAX_LOG_BYTES} bytes; a log may be at most {MAX_LOG_BYTES} bytes")
    return data


def _parse_line(path: Path, number: int, text: bytes) -> Action:
    where = f"{path}: line {number}"
    if len(text) > MAX_LINE_BYTES:
        raise LogError(f"{where}: {len(text)} bytes; a log line may be at most {MAX_LINE_BYTES}")
    if not text.strip():
        raise LogError(f"{where}: empty; every line is one action")
    try:
        data = json.loads(text.decode("utf-8"), object_pairs_hook=_once_each, parse_int=_bounded_int)
    except UnicodeDecodeError:
        raise LogError(f"{where}: not UTF-8 text") from None
    except _Refused as exc:
        raise LogError(f"{where}: {exc}") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        reason = exc.msg.lower() if isinstance(exc, json.JSONDecodeError) else "nested too deep"
        raise LogError(f"{where}: not JSON ({reason})") from None
    if not isinstance(data, dict):
        raise LogError(f"{where}: must be a JSON object, one action")
    if type(data.get("format")) is not int or data["format"] != FORMAT:  # true and 1.0 are not the format 1
        raise LogError(f"{where}: format: must be {FORMAT}, got {_short(data.get('format'))}")
    kind = data.get("action")
    model: type[_Record]
    if kind == "attack":
        model = AttackAction
    elif kind == "end-turn":
        model = EndTurnAction
    else:
        raise LogError(f"{where}: action: must be attack or end-turn, got {_short(kind)}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise LogError(f"{where}: {format_error(first)}{more}") from None  # in the scenario's words


class _Refused(ValueError):
    """A line that is JSON but not one this format reads: a key given twice, a number too long to read."""


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of a log line, each of its keys given once: a key given twice is refused, never the later taken."""
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the key {_short(key)} is given twice; a record holds each key once")
            seen.add(key)
    return found


def _bounded_int(digits: str) -> int:
    """A whole number of a log line: no record holds one of more than :data:`MAX_DIGITS` digits (Python would
    not read it back as a number)."""
    if (count := len(digits.removeprefix("-"))) > MAX_DIGITS:
        raise _Refused(f"a number of {count:,} digits; a record's numbers have at most {MAX_DIGITS:,}")
    return int(digits)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


# -- replaying --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One action replayed: its line in the log, what it was, and the battle after it."""

    line: int
    action: Action
    battle: Any
    summary: str


def replay_steps(ruleset: Ruleset[Any, Any], battle: Any, actions: Sequence[Action],
                 first_line: int = 1) -> Iterator[Step]:
    """Play the actions again on ``battle``, one step at a time, checking each against its record.

    An attack is checked, resolved with its recorded dice stage by stage, and must give the recorded dice,
    outcome and log lines; an end of turn must give its recorded log lines. Any difference is a
    :class:`LogError` naming the line and what differs.
    """
    for index, action in enumerate(actions):
        line = first_line + index
        if isinstance(action, AttackAction):
            battle, summary = _replay_attack(ruleset, battle, action, line)
        else:
            if action.activation:
                battle, log = _step(line, lambda b=battle: ruleset.end_activation(b))
            else:
                battle, log = _step(line, lambda b=battle: ruleset.end_turn(b))
            _same_log(line, action.log, _lines(log))
            side = ruleset.side_to_act(battle)
            what = "activation" if action.activation else "turn"
            summary = f"end of the {what}" + (f": {side} to act" if side else "")
        yield Step(line, action, battle, summary)


def replay(ruleset: Ruleset[Any, Any], battle: Any, actions: Sequence[Action], first_line: int = 1) -> Any:
    """The battle after every action, replayed and checked (see :func:`replay_steps`)."""
    for step in replay_steps(ruleset, battle, actions, first_line):
        battle = step.battle
    return battle


def _step(line: int, run: Any) -> Any:
    try:
        return run()
    except RangefireError as exc:
        raise LogError(f"line {line}: {exc}") from None


def _replay_attack(ruleset: Ruleset[Any, Any], battle: Any, action: AttackAction, line: int) -> tuple[Any, str]:
    if action.ruleset != ruleset.key:
        raise LogError(f"line {line}: an attack of {action.ruleset}, but the scenario is {ruleset.key}")
    attack = action.attack()
    checked = _step(line, lambda: ruleset.check(battle, attack))
    if checked.plan is None:
        reasons = "; ".join(str(r) for r in checked.refusals)
        raise LogError(f"line {line}: the attack of {attack.attacker} is refused here: {reasons}")
    try:
        source = EnteredSource(dict(action.dice), ruleset.stages)
        resolution = ruleset.resolve(checked.plan, source)
    except DiceError as exc:
        raise LogError(f"line {line}: the recorded dice do not fit the attack: {exc}") from None
    except RangefireError as exc:
        raise LogError(f"line {line}: {exc}") from None
    replayed = {stage: tuple(v) for stage, v in resolution.dice.items()}
    if replayed != {k: v for k, v in action.dice.items() if v}:
        raise LogError(f"line {line}: dice: the attack used {_short(replayed)}, the record holds "
                       f"{_short(dict(action.dice))}")
    outcome = _json_ready(resolution.outcome.to_dict())
    if outcome != action.outcome:
        keys = sorted(set(outcome) | set(action.outcome))
        name = next(k for k in keys if outcome.get(k) != action.outcome.get(k))
        raise LogError(f"line {line}: outcome.{name}: the replay gives {_short(outcome.get(name))}, the record "
                       f"holds {_short(action.outcome.get(name))}")
    _same_log(line, action.log, _lines(resolution.log))
    after = ruleset.apply(battle, resolution)
    target = checked.plan.target
    dice = ", ".join(f"{stage} {' '.join(map(str, v))}" for stage, v in replayed.items()) or "no dice"
    return after, f"{attack.attacker} at {target}: {dice}"


def _same_log(line: int, recorded: Sequence[Line], replayed: Sequence[Line]) -> None:
    for i, (old, new) in enumerate(zip(recorded, replayed, strict=False), start=1):
        if old != new:
            raise LogError(f"line {line}: log line {i}: the replay gives {str(new)!r}, the record holds "
                           f"{str(old)!r}")
    if len(recorded) != len(replayed):
        raise LogError(f"line {line}: the replay logs {len(replayed)} lines, the record {len(recorded)}")


__all__ = ["FORMAT", "MAX_ACTIONS", "MAX_LINE_BYTES", "MAX_LOG_BYTES", "Action", "AttackAction", "EndTurnAction",
           "Line", "LogError", "Step", "action_line", "append_action", "attack_action", "battle_digest",
           "battle_positions", "check_appendable", "describe", "end_turn_action", "log_digests", "read_log",
           "replay", "replay_steps"]
