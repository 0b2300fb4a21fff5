"""Scenario files on disk: read (regular files only, never more than the size limit) and written back
atomically (a failure or a kill leaves the old file whole), over the file the battle was read from where
there is one, so that only what changed changes (see :mod:`rangefire.scenario.rewrite`).

A file is refused before it is parsed when it is too large or not a regular file, and after parsing when it
holds too many values; every failure is a :class:`~rangefire.core.errors.RangefireError` naming the file.

The name ``-`` is standard input (JSON or YAML, told apart by the first character; the same limits as a file),
for reading only: a battle is never written to a file named ``-``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from rangefire.core.errors import LimitError, RangefireError, ScenarioError
from rangefire.scenario.parsing import parse_scenario

# The limits keep every file that is read within a second. Measured on the reference machine (2 cores, CPU
# time of read_scenario; the slowest case of each kind, built to be slow, in tests/test_files.py):
#   YAML with libyaml, 1 MiB: a flow list of numbers refused at the value limit 0.10 s; at the value limit,
#     a flow list of 13,000 small mappings 0.45 s, of 40,000 numbers 0.32 s; 17,000 long keys 0.35 s;
#     one 1 MiB string 0.01 s; lists nested 60 deep 0.11 s; aliases of a large anchor refused at once.
#   JSON, 1 MiB: a list of 500,000 numbers refused 0.50 s; small objects 0.33 s; one long string 0.00 s.
#   TOML, 256 KiB: an array of 130,000 numbers refused 0.55 s; inline tables 0.36 s; 29,000 keys 0.27 s.
#   YAML without libyaml, 16 KiB: lists nested 60 deep 0.44 s, a flow list of numbers 0.25 s (64 KiB: 1.5 s).
#: Scenario files larger than this are refused before they are parsed (JSON, and YAML read by libyaml).
#: Real scenarios are a few kilobytes (the examples: 1 to 2 KB).
MAX_FILE_BYTES = 1024 * 1024
#: TOML is parsed in pure Python (tomllib, about 4 µs a value): its files are held to this size.
MAX_TOML_BYTES = 256 * 1024
#: Without libyaml, PyYAML's pure-Python parser is about 25 times slower: YAML files are held to this size.
MAX_PURE_YAML_BYTES = 16 * 1024

FORMATS = {".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json"}

#: Temporary files are named ``.NAME.rangefire-XXXXXXXX.tmp`` beside the target; ones older than this (left
#: by a writer that was killed) are removed by the next write to the same target.
STALE_SECONDS = 60
_TMP_MARK = ".rangefire-"


#: The name that stands for standard input, and how errors about it name it.
STDIN = "-"
STDIN_SOURCE = "standard input"


def source_name(path: str | Path) -> str:
    """How errors name a scenario: its path, or ``standard input`` for ``-``."""
    return STDIN_SOURCE if str(path) == STDIN else str(path)


def file_format(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ScenarioError([f"unknown file type {path.suffix or '(none)'!r}; use .yaml, .yml, .toml or .json"],
                            source=str(path))
    return fmt


def size_limit(fmt: str) -> int:
    """The largest file of a format that is read (smaller for YAML without the C parser)."""
    from rangefire.scenario import parsing

    if fmt == "yaml" and parsing.YAML_LOADER is yaml.SafeLoader:
        return min(MAX_FILE_BYTES, MAX_PURE_YAML_BYTES)
    if fmt == "toml":
        return min(MAX_FILE_BYTES, MAX_TOML_BYTES)
    return MAX_FILE_BYTES


def read_scenario(path: str | Path) -> dict[str, Any]:
    """The mapping a scenario file holds, parsed by its extension; errors name the file and the line."""
    if str(path) == STDIN:
        if sys.stdin is None:  # the process was started with standard input closed (``<&-``)
            raise ScenarioError(["is closed, so nothing can be read from it; give the scenario there (rangefire "
                                 "... - < FILE) or name its file in place of -"], source=STDIN_SOURCE)
        return read_stream(sys.stdin.buffer)
    path = Path(path)
    fmt = file_format(path)
    limit = size_limit(fmt)
    raw = read_limited(path, limit, _hint(fmt, limit))
    return _parse_bytes(raw, fmt, str(path))


def read_stream(stream: BinaryIO, source: str = STDIN_SOURCE) -> dict[str, Any]:
    """The mapping a stream holds (standard input): JSON when it starts with ``{``, YAML otherwise, held to the
    limits of a file of that format; an empty stream is an error of its own."""
    raw = _read_at_most(stream, MAX_FILE_BYTES + 1)
    start = raw.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not start:
        raise ScenarioError(["nothing was given; write the scenario there as JSON or YAML"], source=source)
    fmt = "json" if start.startswith(b"{") else "yaml"
    limit = size_limit(fmt)
    if len(raw) > limit:
        raise LimitError(f"{source}: more than {limit} bytes; scenarios may be at most {limit} bytes"
                         f"{_hint(fmt, limit)}")
    return _parse_bytes(raw, fmt, source)


def _read_at_most(stream: BinaryIO, limit: int) -> bytes:
    """At most ``limit`` bytes of a stream (an endless one, such as /dev/zero, is cut there)."""
    chunks: list[bytes] = []
    left = limit
    try:
        while left > 0:
            chunk = stream.read(min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise ScenarioError([f"cannot read: {_reason(exc)}"], source=STDIN_SOURCE) from None
    return b"".join(chunks)


def _hint(fmt: str, limit: int) -> str:
    return "; install libyaml, or write the scenario as JSON" if limit < MAX_FILE_BYTES and fmt == "yaml" else ""


def _parse_bytes(raw: bytes, fmt: str, source: str) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ScenarioError([f"line {line}: not UTF-8 text (byte {exc.start})"], source=source) from None
    return parse_scenario(text, fmt, source=source)


def special_kind(mode: int) -> str | None:
    """What a path of that mode is when it is no regular file ("a folder", "a pipe (FIFO)", "a device", "a
    socket", "a special file"); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    return ("a pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a special file")


def _not_regular(mode: int) -> str | None:
    kind = special_kind(mode)
    if kind is None:
        return None
    if kind == "a folder":
        return "is a folder, not a scenario file"
    return f"not a regular file ({kind}); refused"


def read_limited(path: Path, limit: int, hint: str = "") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Whatever the path is (a link to /dev/zero, a FIFO, a file still growing), it is checked after links are
    followed, opened without blocking, checked again on the open descriptor, and at most ``limit + 1`` bytes
    are read from it.
    """
    source = str(path)
    try:
        info = os.stat(path)
        problem = _not_regular(info.st_mode)
        if problem:
            raise ScenarioError([problem], source=source)
        if info.st_size > limit:
            raise LimitError(f"{source}: {info.st_size} bytes; scenario files may be at most {limit} bytes{hint}")
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags)  # O_NONBLOCK: a FIFO swapped in after the check still never blocks the open
        try:
            problem = _not_regular(os.fstat(fd).st_mode)
            if problem:
                raise ScenarioError([problem], source=source)
            chunks: list[bytes] = []
            left = limit + 1
            while left > 0:
                chunk = os.read(fd, min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
    except OSError as exc:
        raise ScenarioError([f"cannot read: {_reason(exc)}"], source=source) from None
    data = b"".join(chunks)
    if len(data) > limit:
        raise LimitError(f"{source}: more than {limit} bytes; scenario files may be at most {limit} bytes{hint}")
    return data


def _reason(exc: OSError) -> str:
    """An operating-system error in a few words of ours."""
    words = {errno.ENOENT: "no such file or folder", errno.EACCES: "permission denied",
             errno.EPERM: "permission denied", errno.ENOSPC: "no space left on the device",
             errno.EROFS: "the file system is read-only", errno.EISDIR: "is a folder",
             errno.ENOTDIR: "a part of the path is not a folder", errno.ELOOP: "too many levels of symbolic links",
             errno.ENAMETOOLONG: "the name is too long", errno.EDQUOT: "the disk quota is exceeded",
             errno.EIO: "input/output error"}
    return words.get(exc.errno or 0, (exc.strerror or str(exc)).lower())


# -- writing -------------------------------------------------------------------------------------------
#: libyaml's emitter where it is installed: about four times faster than PyYAML's (0.3 s for 1 MiB).
YAML_DUMPER: type[Any] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_text(data: Mapping[str, Any], fmt: str) -> str:
    if fmt == "yaml":
        return yaml.dump(dict(data), Dumper=YAML_DUMPER, sort_keys=False, default_flow_style=None, width=110,
                         allow_unicode=False)
    if fmt == "toml":
        import tomli_w  # only a TOML file written needs it: a start that reads a scenario does not load it

        return tomli_w.dumps(dict(data))
    return json.dumps(data, indent=2) + "\n"


def write_scenario(path: str | Path, data: Mapping[str, Any], original: str | Path | None = None,
                   before: Mapping[str, Any] | None = None) -> None:
    """Write a battle atomically in the format its extension names, over the file it was read from where it
    can: ``original`` names that file (it may be ``path`` itself), ``before`` is the battle as read, dumped as
    ``data`` is.

    Given the original of the same format, only what the command changed changes: values equal in ``before``
    and ``data`` stay as the user wrote them (a default left out stays out); YAML keeps its comments, layout,
    quoting and number spelling (see :mod:`rangefire.scenario.rewrite`), JSON and TOML their key order.
    Otherwise, or when the original cannot be read, ``data`` is written plainly. See :func:`atomic_write_bytes`.
    """
    if str(path) == STDIN:
        raise RangefireError(f"cannot write a battle to {STDIN!r}: it stands for standard input, which is read, "
                             "never written; name a file")
    path = Path(path)
    fmt = file_format(path)
    from_stdin = original is not None and str(original) == STDIN  # its text is gone: the battle is written plainly
    text = _like_original(Path(original), fmt, data, before) if original is not None and not from_stdin else None
    atomic_write_bytes(path, (text if text is not None else dump_text(data, fmt)).encode("utf-8"))


#: A battle of more values than this is written plainly, its original not read again (so without the file's
#: comments, key order or left-out defaults). Editing parses the original into nodes, compares every value and
#: reads the edited text again, 25 to 50 µs a value: measured on the reference machine (CPU time, a file of
#: units on one line each, the machine shared) 0.19 to 0.27 s for 10,000 values, 0.5 to 0.74 s for 16,000,
#: 0.75 to 1.1 s for 19,000; plain writing of the reader's limit (40,000) takes 0.45 s. The largest scenario a
#: game accepts (400 Dress on the Colors units, defaults included) holds about 7,600.
MAX_EDITED_VALUES = 10_000


def _like_original(original: Path, fmt: str, data: Mapping[str, Any], before: Mapping[str, Any] | None) -> str | None:
    """The battle's text written over the original's (None to write plainly)."""
    from rangefire.scenario import parsing, rewrite
    from rangefire.scenario.order import as_if_unrecorded

    if FORMATS.get(original.suffix.lower()) != fmt:
        return None  # another format: nothing of the original's writing carries over
    if _values(data) > MAX_EDITED_VALUES:
        return None
    try:
        raw = read_limited(original, size_limit(fmt))
        text = raw.decode("utf-8")
        mark = "\ufeff" if text.startswith("\ufeff") else ""  # a byte-order mark the user's editor wrote stays
        text = text.removeprefix(mark)
        # one parse gives both the mapping and, to edit the text, where each value stands
        root, parsed = parsing.parse_yaml_nodes(text, str(original)) if fmt == "yaml" else (None, parse_scenario(
            text, fmt, source=str(original)))
    except (RangefireError, UnicodeDecodeError):
        return None  # gone or changed since it was read: the battle alone is written
    old: Any = rewrite.MISSING if before is None else as_if_unrecorded(dict(before))  # [DC-9.4, AL-9.3, BU-8.4]
    if root is not None:
        edited = rewrite.edit_yaml(text, root, parsed, old, dict(data), parsing.YAML_LOADER)
        if edited is not None:
            return mark + edited
    merged = rewrite.merge(parsed, old, dict(data))
    if fmt == "json":
        return _json_like(merged, text)
    return dump_text(merged, fmt)


def _json_like(data: Any, original: str) -> str:
    """JSON indented as the original is (on one line if it was), with its characters written as it wrote
    them (escaped only if it escaped them)."""
    found = re.search(r"\n([ \t]+)\S", original)
    indent: str | None = found.group(1) if found else ("  " if "\n" in original.strip() else None)
    ascii_only = original.isascii()
    if indent is None:
        return json.dumps(data, ensure_ascii=ascii_only) + "\n"
    return json.dumps(data, indent=indent, ensure_ascii=ascii_only) + "\n"


def _values(data: Any) -> int:
    """How many values (mappings, lists and scalars) data holds."""
    count = 0
    stack = [data]
    while stack:
        node = stack.pop()
        count += 1
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return count


def check_writable(path: str | Path) -> None:
    """Refuse what :func:`atomic_write_bytes` would refuse, before any work is done: a missing folder, a folder,
    a file that is not a regular file, a read-only file, a folder nothing can be written in. A
    :class:`ScenarioError` naming the path."""
    path = Path(path)
    target = Path(os.path.realpath(path))
    try:
        _existing(target, str(path))
        folder = _folder_of(path, target)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ScenarioError([f"cannot write: permission denied (in the folder {_shown(folder)})"],
                                source=str(path))
    except OSError as exc:
        raise ScenarioError([f"cannot write: {_reason(exc)}"], source=str(path)) from None


def _folder_of(path: Path, target: Path) -> Path:
    """The folder the target is written in, which must exist."""
    if not target.parent.is_dir():
        folder = target.parent if path.is_symlink() else path.parent  # a link's target's, not the link's own
        where = f" (where the link {_shown(path)} leads)" if path.is_symlink() else ""
        raise ScenarioError([f"cannot write: the folder {_shown(folder)} does not exist{where}"], source=str(path))
    return target.parent


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically.

    The bytes go to a temporary file beside the target, which is flushed and synced, then renamed over the
    target; the folder is synced before and after the rename. A failure, or a kill at any moment, leaves the
    old file whole. A link is written through to its target; an existing file keeps its mode, a new one takes
    the umask's; a read-only file is not replaced (:func:`check_writable` says so before any work). Failures
    are a :class:`ScenarioError` naming the path.
    """
    path = Path(path)
    source = str(path)
    target = Path(os.path.realpath(path))  # through a symbolic link, to the file it names
    tmp: Path | None = None
    try:
        mode, owner = _existing(target, source)
        folder = _folder_of(path, target)
        _remove_stale(folder, target.name)
        tmp = folder / f".{target.name}{_TMP_MARK}{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o666 if mode is None else mode)
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # exactly the old mode, whatever the umask
                _keep_owner(fd, owner)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        _sync_folder(folder)
        os.replace(tmp, target)
        tmp = None
        _sync_folder(folder)
    except OSError as exc:
        raise ScenarioError([f"cannot write: {_reason(exc)}"], source=source) from None
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)


def _shown(path: Path) -> str:
    return json.dumps(str(path)) if any(not c.isprintable() for c in str(path)) else str(path)


def _existing(target: Path, source: str) -> tuple[int | None, tuple[int, int] | None]:
    """The mode and owner of the file being replaced (None when there is none); refuses what must not be
    replaced."""
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None, None
    if stat.S_ISDIR(info.st_mode):
        raise ScenarioError([f"cannot write: {_shown(target)} is a folder"], source=source)
    if not stat.S_ISREG(info.st_mode):
        raise ScenarioError([f"cannot write: {_shown(target)} is not a regular file"], source=source)
    # The write bits, not os.access: a user with every right (root) must not silently replace a file
    # someone marked read-only either.
    if not info.st_mode & 0o222 or not os.access(target, os.W_OK):
        raise ScenarioError([f"cannot write: {_shown(target)} is read-only; not replaced"], source=source)
    return stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid)


def _keep_owner(fd: int, owner: tuple[int, int] | None) -> None:
    if owner is None or not hasattr(os, "fchown"):
        return
    with contextlib.suppress(OSError):  # only a privileged user may give a file away; others own what they write
        os.fchown(fd, *owner)


def _sync_folder(folder: Path) -> None:
    """Make the folder's entries (the temporary file, then the rename) durable."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # a platform that cannot open folders has no folder to sync
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _remove_stale(folder: Path, name: str) -> None:
    """Remove temporary files of our naming for this target that a killed writer left behind."""
    prefix = f".{name}{_TMP_MARK}"
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
            continue
        try:
            old = now - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS
            if entry.is_file(follow_symlinks=False) and old:
                os.unlink(entry.path)
        except OSError:
            continue  # another writer removed or renamed it
