"""Running a sweep: chunks on local processes or a dask.distributed cluster, each written as it arrives.

Each chunk of points is written atomically as its own Parquet file in a folder beside the output
(``results.parquet.parts/part-000012.parquet``), under a manifest naming the grid's hash. A sweep interrupted
(a kill, a lost cluster) leaves whole parts only; run again on the same grid, it computes only the chunks
missing; on another grid it is refused. When every chunk is there, they are joined into the output in the
points' order (written atomically too) and the folder is removed. pyarrow (and dask, for a cluster) are
imported only here, when a sweep runs.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rangefire.analysis.sweep import Sweep, SweepError, run_chunk
from rangefire.core import RangefireError
from rangefire.scenario.files import atomic_write_bytes

if TYPE_CHECKING:
    import pyarrow as pa

#: Points a chunk holds at most: a part file of a few hundred kilobytes, a few seconds of a worker's time.
MAX_CHUNK = 10_000
MANIFEST = "manifest.json"
#: What to install, said wherever a sweep's libraries are missing.
INSTALL = "pip install 'rangefire[sweep]'"


@dataclass(frozen=True)
class SweepReport:
    """What a finished sweep did: where its rows are, how many points and chunks (and how many chunks were
    already written by an interrupted run), how long it took."""

    out: Path
    points: int
    chunks: int
    resumed_chunks: int
    chunk_size: int
    seconds: float
    columns: tuple[str, ...]
    grid_hash: str
    where: str

    @property
    def computed_points(self) -> int:
        return max(0, self.points - self.resumed_chunks * self.chunk_size)

    def to_dict(self) -> dict[str, Any]:
        return {"out": str(self.out), "points": self.points, "chunks": self.chunks,
                "resumed_chunks": self.resumed_chunks, "chunk_size": self.chunk_size,
                "seconds": round(self.seconds, 3),
                "points_per_second": round(self.computed_points / self.seconds, 1) if self.seconds else None,
                "columns": list(self.columns), "grid_hash": self.grid_hash, "ran_on": self.where}


def needs_pyarrow() -> None:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise SweepError(f"a sweep writes Parquet with pyarrow, which is not installed: {INSTALL}") from None


def parts_folder(out: Path) -> Path:
    """Where the chunks of a sweep writing ``out`` are kept until they are joined."""
    return out.parent / f"{out.name}.parts"


def chunk_size_for(points: int, workers: int) -> int:
    """Chunks of at most :data:`MAX_CHUNK` points, at least eight a worker where the grid allows (a worker
    that finishes early finds another)."""
    return max(1, min(MAX_CHUNK, -(-points // (8 * max(1, workers)))))


def connect(address: str, timeout: float = 10) -> Any:
    """A client of the dask scheduler at ``address`` (``tcp://HOST:PORT``); a scheduler that does not answer
    within ``timeout`` seconds is a :class:`SweepError` naming it."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise SweepError(f"a sweep on a cluster needs dask.distributed, which is not installed: {INSTALL}") from None
    _reachable(address, timeout)
    try:
        return Client(address, timeout=timeout, set_as_default=False)  # type: ignore[no-untyped-call]
    except Exception as exc:
        _forget_client(exc, Client)
        reason = str(exc).split("\n")[0][:120] or type(exc).__name__
        raise SweepError(f"no dask scheduler answered at {address} within {timeout:g} s ({reason})") from None


def _forget_client(exc: BaseException, kind: type) -> None:
    """A client whose start failed would try to close its connection again when collected, for seconds, and
    print a traceback: it is marked closed and its loop stopped here."""
    import contextlib

    tb = exc.__traceback__
    while tb is not None:
        client = tb.tb_frame.f_locals.get("self")
        if isinstance(client, kind):
            with contextlib.suppress(Exception):
                client.status = "closed"  # type: ignore[attr-defined]
                client._loop_runner.stop()  # type: ignore[attr-defined]
            return
        tb = tb.tb_next


def scheduler_address(address: str) -> tuple[str, int] | None:
    """The host and port of a TCP scheduler's address (``tcp://HOST:PORT`` or ``HOST:PORT``), refused where it is
    none; None for another scheme's (``tls://``, ``inproc://``: left to dask)."""
    from urllib.parse import urlsplit

    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return None
    try:
        parts = urlsplit(f"//{rest}")
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or port is None:
        raise SweepError(f"{address}: a scheduler's address is tcp://HOST:PORT")
    return host, port


def _reachable(address: str, timeout: float) -> None:
    """Knock at a TCP scheduler's port first and wait for its greeting (a dask scheduler speaks first, the
    length of its handshake in 8 bytes): where nothing listens, nothing answers in time, or what answers is
    no scheduler, say so in our words, within the time given (a client dask gives up on waits longer, and
    complains again when it is collected)."""
    import socket

    found = scheduler_address(address)
    if found is None:
        return  # tls://, inproc://...: left to dask
    host, port = found
    greeting = b""
    try:
        with socket.create_connection((host, port), timeout=timeout) as knock:
            knock.settimeout(timeout)
            while len(greeting) < 8:
                got = knock.recv(8 - len(greeting))
                if not got:
                    break
                greeting += got
    except TimeoutError:
        raise SweepError(f"no dask scheduler answered at {address} within {timeout:g} s") from None
    except OSError as exc:
        raise SweepError(f"no dask scheduler answered at {address} ({exc.strerror or exc})") from None
    if len(greeting) < 8 or int.from_bytes(greeting, "little") > 1 << 20:
        raise SweepError(f"what answers at {address} is not a dask scheduler")


def run_sweep(sweep: Sweep, out: str | Path, *, workers: int = 1, client: Any = None, chunk_size: int | None = None,
              progress: Callable[[int, int], None] | None = None) -> SweepReport:
    """Compute every point of ``sweep`` and write the rows to the Parquet file ``out``, in the points' order.

    The chunks run on ``client`` (a ``dask.distributed.Client``) when one is given, else on ``workers`` local
    processes (1: in this process). Chunks already written by an interrupted run of the same grid are kept
    (the manifest's chunk size is kept with them). ``progress(done, total)`` is called with the points done
    whenever a chunk is written, once before the first.
    """
    needs_pyarrow()
    out = Path(out)
    started = time.perf_counter()
    folder = _prepare(out)
    total = sweep.points
    if client is not None:  # chunks enough for the cluster's workers
        workers = max(1, len(client.scheduler_info().get("workers", {})))
    size = _manifest(folder, sweep, chunk_size or chunk_size_for(total, workers))
    chunks = [(i, i * size, min(total, (i + 1) * size)) for i in range(-(-total // size))]
    done = {i for i, start, stop in chunks if _part_ok(folder, i, stop - start)}
    todo = [c for c in chunks if c[0] not in done]
    points = sum(stop - start for i, start, stop in chunks if i in done)
    where = "a dask cluster" if client is not None else f"{workers} local process{'es' if workers > 1 else ''}"
    runs = _Runs(_on_cluster(client, sweep, todo)) if client is not None else \
        _Runs(_in_process(sweep, todo)) if workers <= 1 or len(todo) <= 1 else _on_processes(sweep, todo, workers)
    try:
        if progress:
            progress(points, total)
        for index, table in runs:
            _write_part(folder, index, table)
            points += table.num_rows
            if progress:
                progress(points, total)
    except (RangefireError, KeyboardInterrupt):
        raise
    except _LOST as exc:  # a worker or the cluster lost: what was written stays, the same run goes on from it
        said = str(exc).split("\n")[0][:200]
        raise SweepError(f"the sweep stopped on {where} ({type(exc).__name__}: {said}); the chunks written are "
                         f"kept in {folder}: run it again to go on from them") from None
    finally:
        runs.close()
    _join(folder, out, len(chunks), results_metadata(sweep))
    return SweepReport(out=out, points=total, chunks=len(chunks), resumed_chunks=len(done), chunk_size=size,
                       seconds=time.perf_counter() - started, columns=tuple(sweep.columns()),
                       grid_hash=sweep.grid_hash, where=where)


#: What losing a worker, a process or the cluster raises (a process pool's BrokenProcessPool is a RuntimeError;
#: dask's KilledWorker, CommClosedError and time-outs are among these too).
_LOST = (RuntimeError, OSError, EOFError, ConnectionError, TimeoutError, ValueError, LookupError)


# -- the output and its folder of parts -----------------------------------------------------------------
def _is_parquet(path: Path) -> bool:
    """Whether ``path`` begins with Parquet's magic bytes (``PAR1``): only such a file is overwritten."""
    try:
        with path.open("rb") as f:
            return f.read(4) == b"PAR1"
    except OSError:
        return False


def _prepare(out: Path) -> Path:
    """The folder of parts beside ``out``, made if need be; an output that cannot be written is refused here,
    before any point is computed (:func:`check_out`)."""
    check_out(out)
    folder = parts_folder(out)
    try:
        folder.mkdir(exist_ok=True)
        probe = folder / ".probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SweepError(f"{out}: cannot write the chunks' folder {folder}: {exc.strerror or exc}") from None
    return folder


def check_out(out: Path) -> None:
    """Refuse an output a sweep could not write, or must not write over (anything but a Parquet file), before
    anything is read or made."""
    shown = str(out)
    if out.is_dir():
        raise SweepError(f"{shown}: is a folder; name the Parquet file to write")
    if out.suffix.lower() != ".parquet":  # a Parquet file named .csv would be opened as text and misread
        raise SweepError(f"{shown}: a sweep writes Parquet: name the file .parquet")
    # The output is renamed over what is there: a device, a pipe or a socket would be replaced by a file (as the
    # administrator, /dev/null itself), and a file that is not Parquet (the grid, its scenario) would be lost.
    if out.exists() and not out.is_file():
        raise SweepError(f"{shown}: not a regular file; a sweep writes its Parquet file only as a regular file")
    if out.is_file() and out.stat().st_size > 0 and not _is_parquet(out):
        raise SweepError(f"{shown}: exists and is not a Parquet file; refused (name a new file or a Parquet one)")
    parent = out.parent
    if not parent.is_dir():
        raise SweepError(f"{shown}: cannot write: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise SweepError(f"{shown}: cannot write here (permission denied)")


def _manifest(folder: Path, sweep: Sweep, size: int) -> int:
    """Write the manifest of a new sweep, or read that of an interrupted one: the same grid resumes (with its
    chunk size), another grid is refused. Returns the chunk size."""
    path = folder / MANIFEST
    if path.exists():
        try:
            found = json.loads(path.read_text())
            grid_hash, old_size, points = found["grid_hash"], found["chunk_size"], int(found["points"])
            if not isinstance(grid_hash, str):
                raise TypeError(grid_hash)
        except (OSError, ValueError, KeyError, TypeError):
            raise SweepError(f"{folder}: holds no readable {MANIFEST}; remove the folder to start over") from None
        if type(old_size) is not int or not 1 <= old_size <= 1_000_000:  # the chunks are cut by it: 0 divides by 0
            raise SweepError(f"{folder / MANIFEST}: chunk_size: must be a whole number from 1 to 1,000,000, got "
                             f"{json.dumps(old_size)[:40]}; remove the folder to start over")
        if grid_hash != sweep.grid_hash or points != sweep.points:
            raise SweepError(f"{folder} holds the chunks of an interrupted sweep of another grid (hash "
                             f"{grid_hash[:12]}, this grid's is {sweep.grid_hash[:12]}); run that grid again to "
                             "finish it, or remove the folder to start over")
        return old_size
    if any(folder.glob("part-*.parquet")):
        raise SweepError(f"{folder}: holds chunks but no {MANIFEST}; remove the folder to start over")
    manifest = {"format": 1, "grid_hash": sweep.grid_hash, "points": sweep.points, "chunk_size": size,
                "columns": sweep.columns()}
    atomic_write_bytes(path, (json.dumps(manifest, indent=2) + "\n").encode())
    return size


def _part(folder: Path, index: int) -> Path:
    return folder / f"part-{index:06d}.parquet"


def _part_ok(folder: Path, index: int, rows: int) -> bool:
    """Whether chunk ``index`` is written whole (a part is written atomically; one of the wrong length is
    computed again)."""
    import pyarrow.parquet as pq

    path = _part(folder, index)
    if not path.is_file():
        return False
    try:
        return int(pq.ParquetFile(path).metadata.num_rows) == rows
    except (OSError, ValueError):
        return False


def _write_part(folder: Path, index: int, table: pa.Table) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    atomic_write_bytes(_part(folder, index), sink.getvalue().to_pybytes())


#: The key of a results file's metadata saying what its rows are of (``rangefire plot`` reads it).
RESULTS_KEY = "rangefire"


def results_metadata(sweep: Sweep) -> dict[str, str]:
    """What a sweep's rows are of, for the file's metadata: the game, the battle's name, the attack, the paths
    swept, the house rules in force at every point (the scenario's, those swept left out; null where the
    scenario as written does not load alone), the outcomes and events, the unit of length."""
    from rangefire.analysis.compare import battle_name
    from rangefire.analysis.odds_table import house_rules_in_force
    from rangefire.core.options import house_rules
    from rangefire.rulesets import battle_from_mapping, find_ruleset

    ruleset = find_ruleset(sweep.ruleset)
    paths = [a.path for a in sweep.axes]
    try:
        _, battle = battle_from_mapping(dict(sweep.doc), source=sweep.source)
        rules: list[dict[str, Any]] | None = [
            rule.to_dict() for rule in house_rules_in_force(house_rules(battle.options), paths)]  # type: ignore[attr-defined]
    except RangefireError:  # a scenario that loads only with the axes' values
        rules = None
    described = {"format": 1, "kind": "sweep", "ruleset": sweep.ruleset, "battle": battle_name(sweep.doc),
                 "scenario": sweep.source, "attacker": sweep.attacker, "target": sweep.target, "axes": paths,
                 "house_rules": rules, "outcomes": list(ruleset.outcome_names), "events": list(sweep.events),
                 "main_outcome": ruleset.main_outcome, "conditions": dict(ruleset.conditions),
                 "length_unit": ruleset.move_unit, "grid_hash": sweep.grid_hash}
    return {RESULTS_KEY: json.dumps(described)}


def _join(folder: Path, out: Path, chunks: int, metadata: dict[str, str] | None = None) -> None:
    """The parts, in order, as one Parquet file at ``out`` (written beside it, then renamed over it), with
    ``metadata`` in its schema; the folder is removed once the output is whole."""
    import pyarrow.parquet as pq

    tmp = out.parent / f".{out.name}.joining.tmp"
    try:
        writer = None
        for index in range(chunks):
            table = pq.read_table(_part(folder, index))
            if metadata:
                table = table.replace_schema_metadata(metadata)
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema)
            writer.write_table(table)
        if writer is not None:
            writer.close()
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SweepError(f"{out}: cannot write: {exc.strerror or exc}") from None
    shutil.rmtree(folder, ignore_errors=True)


# -- where chunks run -------------------------------------------------------------------------------------
Chunk = tuple[int, int, int]


class _Runs:
    """The chunks' results as they come, and what stops their workers when the sweep ends or is stopped
    (even before the first result was asked for)."""

    def __init__(self, results: Generator[tuple[int, pa.Table], None, None],
                 stop: Callable[[], None] = lambda: None) -> None:
        self.results = results
        self.stop = stop

    def __iter__(self) -> Generator[tuple[int, pa.Table], None, None]:
        return self.results

    def close(self) -> None:
        try:
            self.results.close()
        finally:
            self.stop()


def _in_process(sweep: Sweep, todo: list[Chunk]) -> Generator[tuple[int, pa.Table], None, None]:
    for index, start, stop in todo:
        yield index, run_chunk(sweep, start, stop)


def _quiet_worker() -> None:
    """A worker process leaves an interrupt (Ctrl-C reaches the whole process group) to the parent, which
    stops the sweep and says how to resume; the worker prints nothing."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _on_processes(sweep: Sweep, todo: list[Chunk], workers: int) -> _Runs:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork where there is one: the workers start with the game already loaded, and the caller's main module is
    # not run again (a console script's is, under spawn). They are all started here, at the first task, before
    # the caller's progress display starts a thread (a fork copies no thread, but may copy a lock one holds).
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                               initializer=_quiet_worker)
    try:
        pool.submit(os.getpid).result()
    except BaseException:
        _stop(pool)
        raise
    return _Runs(_results(pool, sweep, todo, workers), lambda: _stop(pool))


def _stop(pool: Any) -> None:
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()  # an interrupted sweep stops now, not after the chunks in flight
    pool.shutdown(wait=True, cancel_futures=True)


def _results(pool: Any, sweep: Sweep, todo: list[Chunk], workers: int) -> Generator[tuple[int, pa.Table], None, None]:
    from concurrent.futures import FIRST_COMPLETED, Future, wait

    pending: dict[Future[Any], int] = {}
    queue = list(todo)
    # a few chunks a worker in flight: results arrive in any order and are written as they come
    while queue or pending:
        while queue and len(pending) < 2 * workers:
            index, start, stop = queue.pop(0)
            pending[pool.submit(run_chunk, sweep, start, stop)] = index
        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished:
            yield pending.pop(future), future.result()


def _on_cluster(client: Any, sweep: Sweep, todo: list[Chunk]) -> Generator[tuple[int, pa.Table], None, None]:
    from dask.distributed import as_completed

    shared = client.scatter(sweep, broadcast=True)  # the scenario and axes sent to each worker once
    futures = {client.submit(run_chunk, shared, start, stop, pure=False, key=f"rangefire-sweep-{sweep.grid_hash[:12]}-"
                             f"{index}"): index for index, start, stop in todo}
    try:
        # the client's own loop: the client need not be the process's default one
        for future in as_completed(futures, loop=client.loop):  # type: ignore[no-untyped-call]
            yield futures[future], future.result()
            future.release()
    finally:
        for future in futures:
            future.cancel()


__all__ = ["INSTALL", "MAX_CHUNK", "SweepError", "SweepReport", "chunk_size_for", "connect", "needs_pyarrow",
           "parts_folder", "run_sweep"]
