"""A battle's log: actions appended one line each (synced, a killed writer leaving at most an incomplete last
line), and read back whole, each line checked as a record."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rangefire.record.actions import (
    FORMAT,
    KINDS,
    MAX_ACTIONS,
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    Action,
    LogError,
    action_line,
)
from rangefire.scenario.parsing import MAX_DIGITS
from rangefire.scenario.validation import format_error


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


def check_log_game(path: str | Path, game: str) -> None:
    """Refuse to append an action of ``game`` to a log whose lines are another game's: every later replay of it
    would stop at that line. Read cheaply, as :func:`log_digests` is; a line that names no game is not judged."""
    path = Path(path)
    if not path.exists():
        return
    for number, text in enumerate(_read_limited(path).split(b"\n")[:-1], start=1):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            continue
        other = data.get("ruleset") if isinstance(data, dict) else None
        if isinstance(other, str) and other != game:
            raise LogError(f"--log {path}: the log is of a game of {other} (line {number}), and this battle is "
                           f"{game}: an action of it would make the log unreplayable; name the log of this battle, "
                           "or a new file to start another log")


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
    model = KINDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise LogError(f"{where}: action: must be one of {', '.join(KINDS)}, got {_short(kind)}")
    try:
        return model.model_validate(data)  # type: ignore[return-value]
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
