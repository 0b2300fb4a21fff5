"""The engine's questions for the server (targets, advice, drawings, an attack's check and odds) answered in
worker processes, each question stopped at a hard limit of time.

A worker is a process of its own: its work holds no lock of the server's (the server's event loop, the threads
reading battles' states and recording actions go on beside it, on the other core), and a question that runs past
its limit is stopped by killing the process that works on it; a new one takes its place, the others carry on.
A question travels as data (:class:`Job`: the battle's stored row, its state after its actions, the asking role
and the question's arguments, all pickled), its answer as the JSON-ready value the route returns, or the error
it raised (said as the API says it).

Workers are started when the first question comes (a server that is only read starts none), each a fresh
interpreter (``python -m rangefire.web.engine``, talking over two pipes: nothing of the server's process, its
threads or its open files, is copied into it), and run at a lower priority than the server: a question never
slows the reading of a battle's state. One pool serves every application of a process (tests make many); its
workers end with the process (their pipe closes).

An answer is kept (the latest :data:`ANSWERS_KEPT`) under the very state it was worked out on, the asking role and
the question: the same question asked again on that state (a page asking again, another page of the same side,
a battle taken back by an undo to the state it was in before, which the server keeps as the same object) is
answered from it without the engine's work. A question's answer depends on nothing else (the workers never read
the store).
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import Any, cast

from rangefire.core import RangefireError
from rangefire.web.errors import ApiError, from_library
from rangefire.web.store import BattleRow, Role

log = logging.getLogger("rangefire.web")

#: How long a worker may take to start (importing the engine) before it is said to have failed.
START_SECONDS = 120.0
#: How much lower a worker's priority is than the server's (``nice``).
NICENESS = 5
#: How often a question waiting for a worker looks again whether one must be started (one that failed to start
#: again after a question stopped at the limit leaves a place that no worker comes back from).
LOOK_AGAIN_SECONDS = 0.5
#: The workers killed at the limit kept in :attr:`Engine.stopped` (the latest).
STOPPED_KEPT = 64
#: Answers kept, the latest, each under the state it was worked out on.
ANSWERS_KEPT = 256


@dataclass(frozen=True)
class Job:
    """One question, as data: the battle (its row, its state after ``actions`` actions at ``version``), who asks,
    and the question (``kind``, one of :data:`KINDS`, with its ``args``)."""

    kind: str
    ruleset: str
    row: BattleRow
    state: Any
    actions: int
    version: tuple[int, int]
    role: Role
    args: tuple[Any, ...]


class Stopped(ApiError):
    """A question stopped at the hard limit (its worker killed)."""


#: States a worker keeps (the latest used), so that the next question on the same battle and version neither
#: carries it again nor builds again what the game keeps on it (its geometry's indexes); the server counts on
#: fewer (:data:`SENT`), so that a state it does not send is always kept.
KEPT = 32
SENT = 16


def _answer(job: Job) -> Any:
    """The question answered (in a worker)."""
    from rangefire.rulesets import find_ruleset
    from rangefire.web import questions
    from rangefire.web.loaded import Loaded, for_role

    # the questions read the battle only, never the store
    loaded = for_role(Loaded(job.row, find_ruleset(job.ruleset), job.state, job.actions, job.version), job.role)
    asked: dict[str, Callable[..., Any]] = {
        "targets": lambda side, attacker: questions.targets(loaded, side, attacker),
        "advice": lambda side, outcome, refused: questions.advice(loaded, job.role, side, outcome, refused),
        "drawing": lambda attacker, target, choices: questions.drawing(loaded, attacker, target, choices),
        "check": lambda ask: questions.check(loaded, ask),
        "odds": lambda ask: questions.odds(loaded, ask)}
    return asked[job.kind](*job.args)


KINDS = frozenset({"targets", "advice", "drawing", "check", "odds"})


def _warm() -> None:
    """Each example's targets worked out once: what a game builds on its first question (its tables, its
    geometry's caches) built before the worker says it is ready, not in the time of a player's question."""
    from rangefire.analysis.targets import targets
    from rangefire.rulesets import battle_from_mapping
    from rangefire.scenario import parse_scenario
    from rangefire.web.games import examples

    for example in examples():
        with contextlib.suppress(Exception):  # a warm-up only: the question itself says what is wrong
            ruleset, battle = battle_from_mapping(parse_scenario(example.text, "yaml", example.name))
            targets(ruleset, battle)


def _state(job: Job, kept: OrderedDict[tuple[str, tuple[int, int]], Any]) -> Job | None:
    """The job with its state: the one it carries (kept for the next), else the one kept; None when neither."""
    key = (job.row.id, job.version)
    if job.state is None:
        state = kept.get(key)
        if state is None:
            return None
        kept.move_to_end(key)
        return replace(job, state=state)
    kept[key] = job.state
    kept.move_to_end(key)
    while len(kept) > KEPT:
        kept.popitem(last=False)
    return job


def _work(questions: Connection, answers: Connection) -> None:
    """A worker's life: the engine imported, then each question read, answered and its answer sent back, until
    the server closes its end."""
    with contextlib.suppress(AttributeError, OSError):  # a system without nice, or one that refuses it
        os.nice(NICENESS)
    # what every question needs, imported before the first one (not counted in its time)
    from rangefire.analysis import advise, targets  # noqa: F401
    from rangefire.draw import draw_battle  # noqa: F401
    from rangefire.rulesets import RULESETS
    from rangefire.web.questions import check  # noqa: F401

    for ruleset in RULESETS:
        ruleset.battle_model.model_json_schema  # noqa: B018  (each game's module loaded)
    _warm()

    try:
        answers.send(("ready", None))
    except OSError:  # the server stopped while this worker started
        return
    kept: OrderedDict[tuple[str, tuple[int, int]], Any] = OrderedDict()
    while True:
        try:
            sent = questions.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        job = _state(sent, kept)
        try:
            reply: tuple[str, Any] = ("ok", _answer(job)) if job is not None else ("missing", None)
        except ApiError as exc:
            reply = ("error", (exc.status, exc.kind, exc.message, exc.path, exc.clause, exc.extra))
        except RangefireError as exc:
            error = from_library(exc)
            reply = ("error", (error.status, error.kind, error.message, error.path, error.clause, error.extra))
        except Exception as exc:  # a fault: said to the server, which logs it; the worker carries on
            import traceback

            reply = ("fault", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        try:
            answers.send(reply)
        except (OSError, ValueError):
            return


class _Worker:
    """One worker process and the two ends of its pipes: ``to`` it (questions) and ``back`` from it (answers)."""

    def __init__(self) -> None:
        theirs_in, ours_out = os.pipe()
        ours_in, theirs_out = os.pipe()
        try:
            self.process = subprocess.Popen([sys.executable, "-m", "rangefire.web.engine", str(theirs_in),
                                             str(theirs_out)], pass_fds=(theirs_in, theirs_out),
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            start_new_session=True)  # a Ctrl-C stops the server, which ends it
        except BaseException:
            for fd in (theirs_in, ours_out, ours_in, theirs_out):
                os.close(fd)
            raise
        os.close(theirs_in)
        os.close(theirs_out)
        self.to = Connection(ours_out, readable=False)
        self.back = Connection(ours_in, writable=False)
        self.ready = False
        self.holds: OrderedDict[tuple[str, tuple[int, int]], None] = OrderedDict()  # states sent it, latest last

    def send(self, job: Job) -> None:
        """Send the job, without its state when the worker keeps it from an earlier one."""
        key = (job.row.id, job.version)
        if key in self.holds:
            self.holds.move_to_end(key)
            self.to.send(replace(job, state=None))
            return
        self.to.send(job)
        self.holds[key] = None
        while len(self.holds) > SENT:
            self.holds.popitem(last=False)

    def wait_ready(self) -> None:
        if self.ready:
            return
        if not self.back.poll(START_SECONDS) or self.back.recv() != ("ready", None):
            raise OSError("the engine's worker did not start")
        self.ready = True

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=30)
        self.to.close()
        self.back.close()


class Engine:
    """``size`` worker processes answering :class:`Job` questions, one at a time each; :meth:`ask` blocks (call
    it from a thread) until an answer or the limit."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._lock = threading.Lock()
        self._started = 0
        # the workers killed at the limit (their process ids, the latest :data:`STOPPED_KEPT`), for the record
        self.stopped: deque[int] = deque(maxlen=STOPPED_KEPT)
        self.working: set[int] = set()  # the workers answering a question now (their process ids)
        # question -> (the state it was asked on, held so that its id names no other; the answer, pickled)
        self._answers: OrderedDict[tuple[Any, ...], tuple[Any, bytes]] = OrderedDict()
        self._answers_lock = threading.Lock()

    def _take(self) -> _Worker:
        """A worker for a question: an idle one, else one started (when fewer than ``size`` are), else the first
        to come free; 503 ``unavailable`` when none can be started."""
        while True:
            with self._lock:
                if self._started < self.size:  # started when first needed, or again after one failed to start
                    self._started += 1
                    try:
                        return _Worker()
                    except OSError as exc:
                        self._started -= 1
                        log.error("the engine's worker could not be started: %s", exc)
                        raise ApiError(503, "unavailable", "the engine's worker could not be started for this "
                                                           "question; retry in a moment") from None
            try:  # looked at again now and then: a worker that failed to start again frees its place
                return self._idle.get(timeout=LOOK_AGAIN_SECONDS)
            except queue.Empty:
                continue

    def warm(self) -> None:
        """Start every worker now, in a thread (a server about to serve: its first question waits for none)."""
        def start() -> None:
            with self._lock:
                wanted, self._started = self.size - self._started, self.size
            for _ in range(wanted):
                try:
                    worker = _Worker()
                    worker.wait_ready()
                except OSError as exc:
                    log.error("the engine's worker could not be started: %s", exc)
                    with self._lock:
                        self._started -= 1
                    continue
                self._idle.put(worker)

        threading.Thread(target=start, daemon=True, name="rangefire-engine-start").start()

    def _replace(self, worker: _Worker) -> None:
        """Kill a worker (now) and start another in its place (in a thread: out of the way of the answer)."""
        worker.kill()

        def renew() -> None:
            try:
                fresh = _Worker()
                fresh.wait_ready()
            except OSError as exc:
                log.error("the engine's worker could not be started again: %s", exc)
                with self._lock:
                    self._started -= 1  # the next question starts one
                return
            self._idle.put(fresh)

        threading.Thread(target=renew, daemon=True, name="rangefire-engine-renew").start()

    def ask(self, job: Job, seconds: float, instead: str, written: Callable[[Any], bytes] | None = None) -> Any:
        """The answer to ``job``, or its error raised; stopped (:class:`Stopped`, 422 ``too_large``) once it has
        taken ``seconds``, saying what to ask ``instead``. An answer kept from the same question on the same state
        is given again (a copy: the caller may change its own). With ``written``, the answer as that writes it
        (an HTTP answer's JSON), kept so: a question asked again is neither worked out nor written again."""
        if not isinstance(job, Job):  # a question of another making (a test's): asked as it is
            return self._asked(job, seconds, instead)
        key = (job.row.id, job.ruleset, id(job.state), job.role, job.kind, pickle.dumps(job.args), written)
        with self._answers_lock:
            kept = self._answers.get(key)
            if kept is not None and kept[0] is job.state:
                self._answers.move_to_end(key)
                return kept[1] if written is not None else pickle.loads(kept[1])
        answer = self._asked(job, seconds, instead)
        if written is not None:
            answer = written(answer)
        with self._answers_lock:
            self._answers[key] = (job.state, answer if written is not None else pickle.dumps(answer))
            while len(self._answers) > ANSWERS_KEPT:
                self._answers.popitem(last=False)
        return answer

    def _asked(self, job: Job, seconds: float, instead: str) -> Any:
        """:meth:`ask`'s work: the question sent to a worker and its answer (or error) taken back."""
        worker = self._take()
        try:
            worker.wait_ready()
            worker.send(job)
            start = time.monotonic()
            self.working.add(worker.process.pid)
            try:
                answered = worker.back.poll(seconds)
            finally:
                self.working.discard(worker.process.pid)
            if not answered:
                self.stopped.append(worker.process.pid)
                log.warning("a question (%s) was stopped after %g s of the engine's time", job.kind, seconds)
                self._replace(worker)
                raise Stopped(422, "too_large", f"this question was stopped after {seconds:g} s of the engine's time, "
                                                f"the most this server gives one request; {instead}, or ask the "
                                                "command line, which takes its time")
            status, value = worker.back.recv()
            if status == "missing":  # the worker no longer keeps the state: sent again, with it
                worker.holds.clear()
                worker.send(job)
                if not worker.back.poll(max(0.0, seconds - (time.monotonic() - start))):
                    raise OSError("the engine's worker did not answer a question sent again")
                status, value = worker.back.recv()
        except (OSError, EOFError, ValueError) as exc:  # the worker died (killed from outside, out of memory)
            self._replace(worker)
            log.error("the engine's worker was lost while it answered a question: %s", exc or type(exc).__name__)
            raise ApiError(503, "unavailable", "the engine's worker was lost while it answered this question; "
                                               "retry in a moment") from None
        except Stopped:
            raise
        except BaseException:  # a question that could not be sent (or a thread stopped): the worker is replaced
            self._replace(worker)
            raise
        self._idle.put(worker)
        if status == "ok":
            return value
        if status == "error":
            code, kind, message, path, clause, extra = value
            raise ApiError(code, kind, message, path, clause, **cast(Mapping[str, Any], extra))
        log.error("the engine failed on a question (%s) after %.1f s: %s", job.kind, time.monotonic() - start, value)
        raise ApiError(500, "internal", "an unexpected error in the engine; nothing was recorded")


_shared: dict[int, Engine] = {}
_shared_lock = threading.Lock()


def shared_engine(size: int) -> Engine:
    """The process's pool of ``size`` workers (one for every application made in this process with that size)."""
    with _shared_lock:
        engine = _shared.get(size)
        if engine is None:
            engine = _shared[size] = Engine(size)
        return engine


if __name__ == "__main__":  # a worker: python -m rangefire.web.engine READ_FD WRITE_FD
    from rangefire.web import engine

    engine._work(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False))
