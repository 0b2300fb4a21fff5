"""What a command writes: every output checked before any work, and a battle written with its log so that no
interruption leaves the two disagreeing unsaid.

- :func:`check_output` refuses, before any work (odds, a duel, dice asked for, a PNG drawn) and before anything is
  written, an output a command could not write or must not: ``-`` where a file is needed, a name of another kind
  (a CSV named ``.yaml``), a file being read (the scenario), a folder, a missing folder, a read-only file, a file
  that exists and is of another kind.
- :func:`check_log` refuses a log the battle read is behind: its last action logged, the battle after it never
  written (a run stopped between its two writes), with the command that finishes the write.
- :class:`Writes` appends the action to the log first (synced), then writes the battle; stopped (Ctrl-C) or
  failing after the first write, the command says what was written and, where the battle was not, the command
  that finishes it. Only a command stopped before any write says "nothing changed".

CSV, Parquet, charts and drawings are written as the battle is (``atomic_write_bytes``: a temporary file beside
the target, synced, renamed over it).
"""

from __future__ import annotations

import json
import os
import shlex
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rangefire.core import RangefireError

if TYPE_CHECKING:
    from rangefire.record import Action


# -- outputs checked before any work ------------------------------------------------------------------------
@dataclass(frozen=True)
class Kind:
    """A kind of file a command writes: its name for people, the suffixes it is named by (and how a name of
    another is refused), and whether a file's first bytes are of that kind (a file of another kind is not written
    over)."""

    name: str
    suffixes: tuple[str, ...]
    looks: Callable[[bytes], bool]
    named: str  # "a chart is written as .png, .svg or .pdf"


def _csv(head: bytes) -> bool:
    """Text whose first line is a header of comma-separated names (a scenario's, a log's or JSON's is not)."""
    first = head.split(b"\n", 1)[0].strip()
    return b"\0" not in head and b"," in first and not first.startswith((b"{", b"[", b"#", b"---")) \
        and b": " not in first


def _chart(head: bytes) -> bool:
    return head.startswith((b"\x89PNG\r\n\x1a\n", b"%PDF-")) or b"<svg" in head


KINDS = {
    "csv": Kind("CSV", (".csv",), _csv, "CSV is written to a .csv file (or - for standard output)"),
    "parquet": Kind("Parquet", (".parquet",), lambda head: head.startswith(b"PAR1"), "name the file .parquet"),
    "chart": Kind("chart", (".png", ".svg", ".pdf"), _chart, "a chart is written as .png, .svg or .pdf"),
    "drawing": Kind("drawing", (".svg", ".png"), _chart, "a drawing is written as .svg or .png"),
    # a battle: a scenario file (by its suffix; what it holds is the battle's, written over the file read)
    "battle": Kind("battle", (".yaml", ".yml", ".toml", ".json"), lambda head: True,
                   "a battle is written as .yaml, .yml, .toml or .json"),
}
BATTLE = "battle"
#: Bytes of an existing file read to tell its kind.
HEAD_BYTES = 4096


def typed_path(option: str, typed: str | Path) -> Path:
    """A path option as typed (a ``str`` option, so that an empty one is seen: read as a path, ``""`` is ``.``,
    the folder one is in, and would be refused as a folder): an empty path is refused, naming the option."""
    if isinstance(typed, str) and not typed:
        raise RangefireError(f"{option}: the path is empty; name a file")
    if isinstance(typed, str) and typed.endswith(("/", os.sep)) and typed.strip("/" + os.sep):
        # read as a path the slash is dropped, and the file written where a folder was named
        raise RangefireError(f"{option} {typed}: ends in {typed[-1]}, which names a folder; name the file to write")
    return Path(typed)


def check_output(option: str, path: str | Path, kind: str, reading: Sequence[str | Path | None] = ()) -> Path:
    """Refuse, before any work, an output ``option`` could not write or must not replace (see the module); the
    path as it will be written. An empty path is refused (:func:`typed_path`).

    ``kind`` is a key of :data:`KINDS` (:data:`BATTLE` for ``--out``'s battle); ``reading`` the files the command
    reads (a scenario, a log), which are not written over. ``-`` is refused here: a caller that writes it to
    standard output says so before it calls. A named pipe is written to as it is (``--csv >(gzip > rows.csv.gz)``)
    where the kind is text (CSV).
    """
    from rangefire.scenario.files import STDIN, check_writable

    path = typed_path(option, path)
    said, of = f"{option} {path}", KINDS[kind]
    if str(path) == STDIN:
        what = "a battle" if kind == BATTLE else f"{of.name} output"
        raise RangefireError(f"{said}: cannot write {what} to '-': it stands for standard input or output; "
                             "name a file")
    if kind == "csv" and _is_fifo(path):
        return path
    if path.suffix.lower() not in of.suffixes:
        if path.is_dir():
            raise RangefireError(f"{said}: is a folder; name the file to write")
        if path.name.lower() in of.suffixes:  # ".png": a hidden file's name, no suffix
            raise RangefireError(f"{said}: a suffix alone, no name; name the file (NAME{path.name})")
        raise RangefireError(f"{said}: {of.named}, not {path.suffix or 'a name without a suffix'}")
    for other in reading:
        if other is not None and str(other) != STDIN and same_file(path, Path(other)):
            raise RangefireError(f"{said}: that is {other}, which this command reads; name another file")
    from rangefire.core.errors import ScenarioError

    try:
        check_writable(path)
    except ScenarioError as exc:  # the file named once: "--csv rows.csv: cannot write: it is read-only; ..."
        problem, target = exc.problems[0], os.path.realpath(path)
        for spelt in (target, json.dumps(target)):
            problem = problem.replace(f" {spelt} is ", " it is ")
        raise RangefireError(f"{said}: {problem}") from None
    if not _of_kind(path, of):
        raise RangefireError(f"{said}: exists and is not a {of.name} file; refused (name a new file or a {of.name} "
                             "one)")
    return path


def same_file(one: Path, other: Path) -> bool:
    """Whether two paths name one file (through links too)."""
    try:
        return one.resolve() == other.resolve() or (one.exists() and other.exists() and one.samefile(other))
    except (OSError, RuntimeError):  # a loop of links: the same as nothing that can be written
        return False


def _is_fifo(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(path.stat().st_mode)
    except OSError:
        return False


def _of_kind(path: Path, kind: Kind) -> bool:
    """Whether an existing file may be written over: empty, or of the kind (a missing one may be written)."""
    try:
        with path.open("rb") as stream:
            head = stream.read(HEAD_BYTES)
    except FileNotFoundError:
        return True
    except OSError:
        return True  # unreadable but writable: the write says what is wrong
    return not head.strip() or kind.looks(head)


def check_log_name(log: str | None) -> Path | None:
    """``--log`` as typed: ``-`` is refused (a file named ``-`` is ``./-``), as ``--out -`` is."""
    if log is None:
        return None
    if log == "-":
        raise RangefireError("--log -: a log is appended to its file, never to standard output; name a file "
                             "(./- for a file named -)")
    return Path(log)


# -- a log the battle is behind ----------------------------------------------------------------------------
def check_log(log: Path, scenario: Path, out: Path | None, digest: str) -> None:
    """Refuse a log that has gone past the battle read (its digest ``digest``): the last line played on this
    battle and the battle after it not written here, or several lines. Says the command that rebuilds the
    battle at the end of the log (``replay --from``). A log whose lines record no digests is not judged."""
    from rangefire.record import LogError, battle_positions, describe, log_digests, read_log

    digests = log_digests(log)
    places = battle_positions(digests, digest)
    last = len(digests)
    if not places or last + 1 in places:
        return
    first = max(places)
    finish = command("replay", scenario, log, "--from", first, "--out", out if out is not None else "FILE")
    other = "or, if the log is of another play of this battle, name a new file to start another log"
    if first == last:
        action = describe(read_log(log)[-1])
        raise LogError(f"--log {log}: the log is one action ahead of {scenario}: its last line ({last}, {action}) "
                       f"was played on this battle, but the battle after it was not written (a run stopped between "
                       f"its two writes?). Nothing was played now. Finish that write: {finish}; {other}")
    raise LogError(f"--log {log}: the log goes on past {scenario}: lines {first} to {last} were played on this "
                   f"battle and after it, but the battle after them was not written. Nothing was played now. "
                   f"Rebuild the battle at the end of the log: {finish}; {other}")


def command(*words: object) -> str:
    """A command line to run, each word quoted for a shell where it needs it."""
    return " ".join(["rangefire", *(shlex.quote(str(w)) for w in words)])


# -- the writes of an action -------------------------------------------------------------------------------
class Stopped(RangefireError):
    """Ctrl-C after a command began to write: what it wrote, and how to finish what it did not (exit 130)."""

    exit_code = 130
    kind = "interrupted"


@dataclass
class Writes:
    """The writes of a command that plays an action: the log line first (synced), then the battle.

    Every write, and what follows it, is made inside :meth:`guarded`: stopped there by Ctrl-C, the command says
    what was written (exit 130), never "nothing changed"; failing there, its error says it too; and where the
    action is logged but the battle after it is not written, both say the command that finishes the write.
    """

    scenario: Path
    log: Path | None
    out: Path | None
    what: str  # "the attack", "the end of the turn"
    after: str | None = None  # the digest of the battle after the action, to tell whether --out holds it
    ruleset: Any = None
    logged: int | None = None
    written: bool = False
    _size: int | None = field(default=None, repr=False)

    def append(self, action: Action) -> None:
        from rangefire.record import append_action

        assert self.log is not None
        self._size = _size(self.log) or 0  # a log not there yet: appended to from nothing
        self.logged = append_action(self.log, action)

    def write(self, write: Callable[[], None]) -> None:
        write()
        self.written = True

    @contextmanager
    def guarded(self) -> Iterator[None]:
        try:
            yield
        except KeyboardInterrupt:
            self._settle()
            if not self._any():
                raise  # nothing written: "interrupted; nothing changed" is true
            raise Stopped(f"interrupted: {self.said()}") from None
        except RangefireError as exc:
            self._settle()
            if self._any():
                exc.args = (f"{exc}; {self.said()}",)
            raise

    def _any(self) -> bool:
        return self.logged is not None or self.written

    def _settle(self) -> None:
        """What was written when a write was cut short inside: the log grown by a whole line, the battle file
        holding the battle after the action."""
        if self.log is not None and self.logged is None and self._size is not None:
            now = _size(self.log)
            if now is not None and now > self._size and _ends_whole(self.log):
                from rangefire.record import log_digests

                self.logged = len(log_digests(self.log))
        if self.out is not None and not self.written and self.after is not None:
            self.written = _holds(self.ruleset, self.out, self.after)

    def said(self) -> str:
        """What was written, and the command that finishes what was not."""
        if self.logged is None:
            return f"the battle after {self.what} is written to {self.out}"
        logged = f"{self.what} is logged in {self.log} (line {self.logged})"
        if self.out is None:
            return logged
        if self.written:
            return f"{logged} and the battle after it written to {self.out}"
        finish = command("replay", self.scenario, self.log, "--from", self.logged, "--out", self.out)
        return (f"{logged}, but the battle after it is not written to {self.out}: the log is one action ahead "
                f"of the battle. Finish the write: {finish}")


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _ends_whole(path: Path) -> bool:
    try:
        with path.open("rb") as stream:
            stream.seek(-1, os.SEEK_END)
            return stream.read(1) == b"\n"
    except OSError:
        return False


def _holds(ruleset: Any, path: Path, digest: str) -> bool:
    """Whether the battle file holds the battle of this digest."""
    from rangefire.record import battle_digest
    from rangefire.rulesets import load_battle

    try:
        found, battle = load_battle(path)
        return found.key == getattr(ruleset, "key", None) and battle_digest(found.dump(battle)) == digest
    except (RangefireError, OSError):
        return False
