"""A model's slowest work shared with a second process while the duel's chain is built.

The chain is built breadth first (:func:`~rangefire.analysis.duel_chain.build`): each state is found some while
before it is worked out, and its volley then needs what the model works out once for all the states that share
it (Dress on the Colors: the game's own check of the volley, and its dice: half of the building's time). A model
that can say so (:class:`Foreseeing`) is told of every state as it is found and says what it will need (a
**job**). A forked child works the jobs out in the order asked, which is the order the parent comes to them, while
the parent goes on building. When the parent comes to a state whose job has no answer yet, it takes the job asked
last from the child (the one the child would come to last: it tells the child to leave it) and works it out
itself, and so on until the answer it waits for arrives: both processes are busy until the chain is built.
Should the child fail, the parent works out whatever is missing itself: the chain is the same either way.

The child only computes and writes to its pipe, and leaves by ``os._exit`` (nothing of the parent's run at its
end), when the parent closes its end of the jobs or ends it. Ctrl-C is the parent's: held as the child is forked
(until the parent knows it, to end it), then ignored by the child. The pipes are waited on by ``poll``, whatever
their numbers.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import sys
import threading
from collections import deque
from collections.abc import Callable, Hashable
from contextlib import suppress
from types import TracebackType
from typing import Any, Protocol

#: The fewest states a duel is foreseen to reach for its work to be shared with a second process: below it the
#: whole duel takes some tenths of a second, and a process costs more than it saves.
BESIDE_NODES = 2_000
_LENGTH = struct.Struct("<I")
_READ = 1 << 16  # a pipe's whole buffer on Linux; a larger read would be a fresh mapping of memory each time


def can_fork() -> bool:
    """Whether this process may fork off work: Linux, more than one core to run on, and no other thread (a thread
    holding a lock as the process forks would leave the child waiting for it)."""
    return (sys.platform.startswith("linux") and hasattr(os, "fork") and len(os.sched_getaffinity(0)) > 1
            and threading.active_count() == 1)


def beside(cores: int | None, nodes: int) -> bool:
    """Whether to fork: ``cores`` 1 never, 2 wherever ``os.fork`` exists, None (the default) where
    :func:`can_fork` and the duel reaches at least :data:`BESIDE_NODES` states."""
    if cores is None:
        return nodes >= BESIDE_NODES and can_fork()
    return cores >= 2 and hasattr(os, "fork")


class Foreseeing(Protocol):
    """A duel model that can say, of a state as it is found, what its volley will need worked out."""

    def foresee(self, state: Hashable, shooter: str, target: str) -> list[tuple[Any, Any]]:
        """What the volley from ``state`` will need that is neither known nor asked for yet, each job with what
        the child must learn first to work it out as this process would (None: nothing); each job then counted as
        asked."""

    def learn(self, news: Any) -> None:
        """What a job's :meth:`foresee` said to learn, learnt (in the child), whether the job is worked out or
        taken back."""

    def work(self, job: Any) -> Any:
        """A job worked out, in either process: what :meth:`take` is given."""

    def take(self, answer: Any) -> None:
        """An answer of :meth:`work` kept (in the parent), its job no longer counted as asked."""

    def ahead(self, until: Callable[[Callable[[], bool]], bool] | None) -> None:
        """Told, as the child is forked, how to wait for answers (``until(done)``: answers taken, and jobs taken
        back and worked out, until ``done()``; False once the child is gone, where the model works it out itself);
        None once it ends."""


class Forking:
    """What forks a child for the length of a ``with`` block (:func:`fork_child`): the child ended and reaped by
    :meth:`_end` as the block ends, however it ends."""

    def _end(self) -> None:
        raise NotImplementedError

    def _known(self, held: set[int | signal.Signals] | None) -> None:
        """The child's id kept: a Ctrl-C held across the fork is raised here, the child ended first."""
        try:
            release(held)
        except BaseException:
            self._end()
            raise

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._end()


class Ahead(Forking):
    """The jobs ``model`` foresees, shared with a forked child within the ``with`` block where ``on``; elsewhere
    nothing is forked and :meth:`found` asks nothing."""

    def __init__(self, model: Any, on: bool) -> None:
        self.model = model
        self.on = on and hasattr(model, "foresee")
        self.pid = 0
        self._jobs_fd = -1
        self._answers_fd = -1
        self._out = bytearray()
        self._in = bytearray()
        #: The jobs asked and neither answered nor taken back, by number, oldest first.
        self._asked: dict[int, Any] = {}
        self._count = 0
        #: Whether the child left of itself with a failure (its work then done here).
        self.failed = False

    def __enter__(self) -> Ahead:
        if not self.on:
            return self
        jobs_r, jobs_w = os.pipe()
        answers_r, answers_w = os.pipe()
        self.model.ahead(self.until)  # before the fork: the child's copy of the model starts where this one is

        def child() -> None:
            os.close(jobs_w)
            os.close(answers_r)
            _work(self.model, jobs_r, answers_w)

        pid, held = fork_child(child)
        if not pid:  # no process to be had: the parent works it all out
            for fd in (jobs_r, jobs_w, answers_r, answers_w):
                os.close(fd)
            self.model.ahead(None)
            self.on = False
            return self
        os.close(jobs_r)
        os.close(answers_w)
        self.pid, self._jobs_fd, self._answers_fd = pid, jobs_w, answers_r
        try:
            os.set_blocking(jobs_w, False)
        except BaseException:
            self._end()
            release(held)
            raise
        self._known(held)
        return self

    def found(self, state: Hashable, shooter: str, target: str) -> None:
        """A state found as the chain is built, its volley ``shooter`` at ``target``: the jobs it will need
        asked for."""
        if self.pid:
            for news, job in self.model.foresee(state, shooter, target):
                self._asked[self._count] = job
                self._frame(("job", self._count, news, job))
                self._count += 1
            self._send()

    def until(self, done: Callable[[], bool]) -> bool:
        """The child's answers given to the model as they come, and the jobs asked last taken back and worked out
        here meanwhile, until ``done()``; False (nothing more to wait for) once the child is gone."""
        while not done():
            if not self.pid:
                return False
            if not self._poll(0):
                return False
            if done():
                return True
            if len(self._asked) > 1:  # the oldest is likely the child's at this moment: take the newest
                number, job = self._asked.popitem()
                self._frame(("back", number))
                self._send()
                self.model.take(self.model.work(job))
                continue
            if not self._poll(None):
                return False
        return True

    def _frame(self, message: tuple[Any, ...]) -> None:
        self._out += _framed(message)

    def _poll(self, timeout: float | None) -> bool:
        """Jobs written and answers read as the pipes allow, waiting at most ``timeout`` (None: until the child
        answers); False once the child is gone."""
        waiting = select.poll()  # not select(): a pipe may be numbered past the 1,024 it can wait on
        waiting.register(self._answers_fd, select.POLLIN)
        if self._out:
            waiting.register(self._jobs_fd, select.POLLOUT)
        ready = dict(waiting.poll(None if timeout is None else timeout * 1000))
        readable, writable = self._answers_fd in ready, self._jobs_fd in ready  # at an end too (hung up, error)
        if writable:
            self._send()
            if not self.pid:  # the child gone as the jobs were written: its pipes are closed, nothing to read
                return False
        if readable and not self._receive():
            self._end(left=True)
            return False
        return bool(self.pid)

    def _send(self) -> None:
        if not self._out:
            return
        try:
            sent = os.write(self._jobs_fd, self._out)
        except BlockingIOError:  # the pipe is full: the rest goes when the child has read some
            return
        except OSError:  # the child is gone: what is asked, the parent works out
            self._end()
            return
        del self._out[:sent]

    def _receive(self) -> bool:
        """Whatever the child has written, its whole answers taken; False at its end."""
        chunk = os.read(self._answers_fd, _READ)
        if not chunk:
            return False
        self._in += chunk
        for number, answer in _frames(self._in):
            self._asked.pop(number, None)
            self.model.take(answer)
        return True

    def _end(self, left: bool = False) -> None:
        """The child ended (``left``: it has closed its end of the answers, so is leaving of itself) and reaped."""
        if self.pid:
            self.model.ahead(None)
            for fd in (self._jobs_fd, self._answers_fd):
                with suppress(OSError):
                    os.close(fd)
            self._jobs_fd = self._answers_fd = -1  # never read or written again: the numbers may be reused
            if not left:
                with suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
            _, status = os.waitpid(self.pid, 0)
            # failed: it left of itself, other than by a success (found gone at either pipe, or ended by
            # something else than this process's kill)
            ended_here = not left and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            self.failed = status != 0 and not ended_here
            self.pid = 0
            self._asked.clear()


def fork_child(child: Callable[[], None]) -> tuple[int, set[int | signal.Signals] | None]:
    """A forked process running ``child``, its process id (0 where the system refuses one) and the signals held
    before, to :func:`release` once the parent has kept the id: Ctrl-C is held across the fork, as arriving then
    it would leave the child unknown to its parent (never ended) and run the parent's own handling in the child.
    The child leaves Ctrl-C to its parent, which ends it, and leaves by ``os._exit`` (0: done, 1: failed): nothing
    of the parent's is run at its end."""
    held = hold(signal.SIGINT)
    try:
        pid = os.fork()
    except OSError:  # no process to be had (a limit on processes, or on memory)
        release(held)
        return 0, None
    if pid == 0:
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            release(held)
            child()
            code = 0
        finally:
            os._exit(code)
    return pid, held


def hold(signum: int) -> set[int | signal.Signals] | None:
    """The signal held (blocked) in this thread; the signals held before, to :func:`release` (None: no way to)."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signum})


def release(held: set[int | signal.Signals] | None) -> None:
    """The signals held as before :func:`hold` (one that arrived meanwhile is then delivered)."""
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _framed(message: Any) -> bytes:
    """A message as it goes down a pipe: its length, then its pickle (read back by :func:`_frames`)."""
    payload = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(payload)) + payload


def _frames(buffer: bytearray) -> list[Any]:
    """The whole messages at the start of ``buffer``, taken out of it (a part of one is left for later)."""
    out = []
    at = 0
    while len(buffer) - at >= _LENGTH.size:
        (size,) = _LENGTH.unpack_from(buffer, at)
        start = at + _LENGTH.size
        if len(buffer) - start < size:
            break
        out.append(pickle.loads(buffer[start:start + size]))
        at = start + size
    del buffer[:at]
    return out


def _work(model: Foreseeing, jobs_fd: int, answers_fd: int) -> None:
    """The child's loop: every message read as it comes (a job's news learnt at once; a job taken back left), the
    oldest job worked out and its answer written, until the parent closes its end."""
    buffer = bytearray()
    waiting: deque[tuple[int, Any]] = deque()
    back: set[int] = set()
    jobs = select.poll()
    jobs.register(jobs_fd, select.POLLIN)
    with os.fdopen(answers_fd, "wb") as answers:
        while True:
            if not waiting or jobs.poll(0):
                chunk = os.read(jobs_fd, _READ)  # waits where nothing is left to do
                if not chunk:
                    return
                buffer += chunk
                for message in _frames(buffer):
                    if message[0] == "job":
                        _, number, news, job = message
                        if news is not None:
                            model.learn(news)
                        waiting.append((number, job))
                    else:
                        back.add(message[1])
            while waiting:
                number, job = waiting.popleft()
                if number in back:
                    back.discard(number)
                    continue
                answers.write(_framed((number, model.work(job))))
                answers.flush()
                break
