"""A duel's checks worked out ahead in a second process while its chain is built
(``rangefire.analysis.duel_ahead``): the same chain, node for node, as one process builds; jobs taken back by the
parent when the child is behind; a child that fails leaves its work to the parent; the child ended and reaped
however the building ends."""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import suppress

import pytest

from rangefire.analysis import duel_ahead
from rangefire.analysis.duel import model_of, setting
from rangefire.analysis.duel_ahead import Ahead, beside
from rangefire.analysis.duel_chain import WorkLimit, build
from rangefire.core import Attack
from rangefire.rulesets.dress_on_the_colors.duel_states import States, dice
from tests.conftest import gone
from tests.test_duel import CASES, UNITS, _first_two

# a forked child left working would hold its parent in waitpid: a failure after two minutes, not a hung suite
pytestmark = [pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system"),
              pytest.mark.timeout(120)]

DC = ["dc-open", "dc-woods-disordered", "dc-wheatfield", "dc-gunsmoke"]


def _setting(case: str):
    ruleset, battle = CASES[case]()
    a, b = UNITS.get(case, _first_two(ruleset, battle))
    return ruleset, setting(ruleset, battle, a, b, "holds" if ruleset.chooses_target else None), a, b


def _built(case: str, first: str, on: bool, fails: bool = False):
    """The chain of ``case`` built with its checks shared with a second process (``on``) or not; the model and
    the child's process id (0: none forked); the child, where forked, did not fail unless ``fails``."""
    ruleset, played, a, b = _setting(case)
    model = model_of(ruleset, played)
    with Ahead(model, on) as ahead:
        pid = ahead.pid
        graph = build(model, a, b, first, found=ahead.found if ahead.pid else None)
    assert ahead.pid == 0 and ahead.failed == fails
    return graph, model, pid


def _same(built, alone) -> None:
    """Node for node the same battle (a state's number depends on the order its units were first made), with
    the same denominator, edges and ends."""
    (graph, model), (other, other_model) = built, alone
    assert [(model.battle_of(k), phase) for k, phase in graph.keys] == [
        (other_model.battle_of(k), phase) for k, phase in other.keys]
    assert graph.den == other.den and graph.lefts == other.lefts
    assert graph.edges == other.edges and graph.ends == other.ends


@pytest.mark.parametrize("first", ["a", "alternate", "b"])
@pytest.mark.parametrize("case", DC)
def test_the_chain_is_the_same_with_its_checks_worked_out_ahead_dc_4_3_dc_7_1(case, first):
    """DC-4.3, DC-5.3, DC-7.1, DC-9.3: every node, its denominator, edges and ends, as one process builds them;
    the child reaped once the chain is built."""
    alone, alone_model, none = _built(case, first, False)
    graph, model, pid = _built(case, first, True)
    assert none == 0 and pid > 0 and gone(pid)
    _same((graph, model), (alone, alone_model))
    assert not model._asked and model._until is None
    assert any(plan is None for plan in model._plan_list)  # answers came from the child


def test_a_plan_whose_dice_came_from_the_child_is_the_games_own_when_asked_for_dc_3_2():
    """DC-3.2, DC-5.2, DC-7.1: where only what the chain reads of a plan came from the child (its dice at a
    target calm and disordered, its gunsmoke marker), the plan itself is the game's check of the volley, asked for
    again: its dice and marker are the ones the child sent under its number."""
    ruleset, _, _, _ = _setting("dc-woods-disordered")
    _, model, _ = _built("dc-woods-disordered", "alternate", True)
    assert isinstance(model, States)
    from_child = [p for p, plan in enumerate(model._plan_list) if plan is None]
    assert from_child
    for p in from_child:
        shooter, target, turn, seen = model._plan_keys[p]
        expected = ruleset.check(model._battle_of((turn, seen)), Attack(shooter, target)).plan
        assert model._plan_of(p) == expected
        assert model._gunsmoke[p] == expected.places_gunsmoke
        for disordered in (False, True):
            assert model._dice[(p, disordered)] == dice(expected, disordered)


def test_the_parent_takes_back_the_last_jobs_when_the_child_is_behind_dc_4_3(monkeypatch):
    """DC-4.3: a child slowed down (each of its checks a millisecond longer) leaves the parent waiting: it takes
    back the jobs asked last and works them out itself, and the chain is the same."""
    real = duel_ahead._work

    def slow_child(model, jobs, answers):
        work = model.work

        def slow(job):
            time.sleep(0.001)
            return work(job)

        model.work = slow
        real(model, jobs, answers)

    monkeypatch.setattr(duel_ahead, "_work", slow_child)
    done_here = []
    real_work = States.work

    def counted(self, job):
        done_here.append(job)
        return real_work(self, job)

    monkeypatch.setattr(States, "work", counted)
    alone, alone_model, _ = _built("dc-wheatfield", "a", False)
    graph, model, _ = _built("dc-wheatfield", "a", True)
    _same((graph, model), (alone, alone_model))
    taken_back = [job for job in done_here if job in model._plans]
    assert taken_back and len(set(taken_back)) == len(taken_back)
    assert len(taken_back) < len(model._plans)  # the child answered the rest


@pytest.mark.parametrize("after", [0, 5])
def test_a_child_that_fails_leaves_its_checks_to_the_parent_dc_4_3(monkeypatch, after):
    """DC-4.3: a child that leaves at once or after a few answers costs the chain nothing: the parent checks what
    is missing itself."""
    real = duel_ahead._work

    def failing(model, jobs, answers):
        work = model.work
        count = [0]

        def failing_work(job):
            count[0] += 1
            if count[0] > after:
                raise MemoryError
            return work(job)

        model.work = failing_work
        real(model, jobs, answers)

    monkeypatch.setattr(duel_ahead, "_work", failing)
    alone, alone_model, _ = _built("dc-wheatfield", "alternate", False)
    graph, model, pid = _built("dc-wheatfield", "alternate", True, fails=True)
    _same((graph, model), (alone, alone_model))
    assert gone(pid) and not model._asked


def test_the_child_is_ended_however_the_building_ends_dc_4_3():
    """DC-4.3: a chain past its states (:class:`WorkLimit`) or an interrupt while it is built ends and reaps the
    child."""
    ruleset, played, a, b = _setting("dc-wheatfield")
    model = model_of(ruleset, played)
    with pytest.raises(WorkLimit), Ahead(model, True) as ahead:
        pid = ahead.pid
        build(model, a, b, "a", max_nodes=300, found=ahead.found)
    assert pid > 0 and gone(pid)

    def interrupted(done: int) -> None:
        if done >= 512:
            raise KeyboardInterrupt

    model = model_of(ruleset, played)
    with pytest.raises(KeyboardInterrupt), Ahead(model, True) as ahead:
        pid = ahead.pid
        build(model, a, b, "a", progress=interrupted, found=ahead.found)
    assert pid > 0 and gone(pid) and model._until is None


def test_a_refused_fork_or_a_model_that_cannot_foresee_forks_nothing(monkeypatch):
    """A fork the system refuses leaves the checks to the one process, no pipe left open; a model without
    ``foresee`` (every game but Dress on the Colors) is never forked for; one core never forks."""
    ruleset, played, _, _ = _setting("bushido")
    with Ahead(model_of(ruleset, played), True) as ahead:
        assert ahead.pid == 0 and not ahead.on
    assert not beside(1, 10**6) and beside(2, 1)

    def refused() -> int:
        raise BlockingIOError("fork refused")

    opened = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    monkeypatch.setattr(os, "fork", refused)
    alone, alone_model, _ = _built("dc-open", "a", False)
    graph, model, pid = _built("dc-open", "a", True)
    assert pid == 0 and model._until is None
    _same((graph, model), (alone, alone_model))
    if opened is not None:
        assert len(os.listdir("/proc/self/fd")) == opened


def test_a_child_leaving_as_a_job_is_taken_back_leaves_the_check_to_the_parent_dc_4_3(monkeypatch):
    """DC-4.3: the child closes its end of the jobs (it is leaving) after the first volley's states are asked for;
    the parent, waiting for a check, takes back the job asked last and finds the child gone as it says so: the
    check it waits for is then its own to work out, and the chain is the same."""
    go_r, go_w = os.pipe()
    closed_r, closed_w = os.pipe()

    def leaving(model, jobs, answers):
        os.read(go_r, 1)
        os.close(jobs)  # its end of the jobs closed, its answers not yet: as a child does on its way out
        os.write(closed_w, b"x")
        time.sleep(60)  # ended by the parent

    monkeypatch.setattr(duel_ahead, "_work", leaving)
    alone, alone_model, _ = _built("dc-wheatfield", "a", False)
    ruleset, played, a, b = _setting("dc-wheatfield")
    model = model_of(ruleset, played)
    real = model.transitions
    calls = [0]

    def transitions(*args):
        calls[0] += 1
        if calls[0] == 2:  # the first volley's states asked for: the child now leaves
            os.write(go_w, b"x")
            os.read(closed_r, 1)
            assert len(model._asked) > 1
        return real(*args)

    model.transitions = transitions
    try:
        with Ahead(model, True) as ahead:
            pid = ahead.pid
            graph = build(model, a, b, "a", found=ahead.found if ahead.pid else None)
    finally:
        for fd in (go_r, go_w, closed_r, closed_w):
            os.close(fd)
    assert pid > 0 and gone(pid) and not model._asked
    _same((graph, model), (alone, alone_model))


class _Echo:
    """A model whose jobs are long strings (more than a pipe holds) and whose answers are the jobs themselves."""

    def __init__(self) -> None:
        self.asked: set[int] = set()
        self.taken: list[int] = []
        self.until = None

    def foresee(self, state, shooter, target):
        self.asked.add(state)
        return [(None, (state, b"x" * 200_000))]

    def learn(self, news):
        pass

    def work(self, job):
        return job[0]

    def take(self, answer):
        self.asked.discard(answer)
        self.taken.append(answer)

    def ahead(self, until):
        self.until = until
        if until is None:
            self.asked.clear()


@pytest.mark.skipif(not hasattr(os, "waitid"), reason="no waitid on this system")
def test_a_child_gone_while_jobs_wait_to_be_written_leaves_no_pipe_read_after_it_is_closed(monkeypatch):
    """The jobs pipe full (the child not reading) and the child then gone: the parent finds both its pipes at an
    end at once, and ends the child once, reading nothing from a pipe it has closed; the wait says the child is
    gone (False)."""
    go_r, go_w = os.pipe()

    def leaves(model, jobs, answers):
        os.read(go_r, 1)

    monkeypatch.setattr(duel_ahead, "_work", leaves)
    model = _Echo()
    try:
        with Ahead(model, True) as ahead:
            pid = ahead.pid
            ahead.found(1, "a", "b")
            assert ahead._out  # more than the pipe holds: the rest waits
            os.write(go_w, b"x")
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # gone, not yet reaped
            assert ahead.until(lambda: 1 not in model.asked) is False
            assert ahead.pid == 0 and model.until is None
    finally:
        os.close(go_r)
        os.close(go_w)
    assert gone(pid)


def test_pipes_numbered_past_1024_are_waited_on_as_any_dc_4_3():
    """DC-4.3: a process with many files open (a limit raised past 1,024) has pipes numbered past what
    ``select`` can wait on: the chain is built with its checks ahead all the same."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1_200:
        pytest.skip("no more than 1,200 files may be open here")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1_200) if soft != resource.RLIM_INFINITY else soft, hard))
    null = os.open(os.devnull, os.O_RDONLY)
    held = [null]
    try:
        while held[-1] < 1_100:
            held.append(os.dup(null))
        alone, alone_model, _ = _built("dc-open", "alternate", False)
        graph, model, pid = _built("dc-open", "alternate", True)
        assert pid > 0 and gone(pid)
        _same((graph, model), (alone, alone_model))
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _interrupted_checks():
    ruleset, played, _, _ = _setting("dc-open")
    model = model_of(ruleset, played)
    return Ahead(model, True), lambda: model._until is None


def _interrupted_stepping():
    from rangefire.analysis.duel_beside import Stepping

    ruleset, played, a, b = _setting("dc-open")
    return Stepping(build(model_of(ruleset, played), a, b, "a"), 10**6, None, cores=2), lambda: True


@pytest.mark.parametrize("forking", [_interrupted_checks, _interrupted_stepping], ids=["checks", "stepping"])
def test_an_interrupt_as_the_child_is_forked_ends_it_dc_4_3(monkeypatch, forking):
    """DC-4.3: Ctrl-C arriving as a child is forked (here: sent by the forking thread to itself the moment the
    fork returns), for the checks worked out ahead and for the stepping beside the solving, is the parent's
    interrupt, raised once the child is known: the child ended and reaped, no pipe left open."""
    block, ended = forking()
    real = os.fork
    forked = []

    def fork() -> int:
        pid = real()
        if pid:
            forked.append(pid)
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # to this thread, the one forking
        return pid

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    opened = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    monkeypatch.setattr(os, "fork", fork)
    try:
        with pytest.raises(KeyboardInterrupt), block:
            pass
        assert forked and gone(forked[0]) and ended()
        if opened is not None:
            assert len(os.listdir("/proc/self/fd")) == opened
    finally:
        signal.signal(signal.SIGINT, before)
        for pid in forked:  # a child left behind: ended here, not left to hold the suite
            with suppress(ChildProcessError, ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


@pytest.mark.skipif(not hasattr(os, "waitid"), reason="no waitid on this system")
def test_a_child_found_gone_as_a_job_is_written_is_said_to_have_failed(monkeypatch):
    """A child that failed is said so (``failed``) whichever end of its pipes the parent finds it gone by: here
    the jobs', as the next job is written."""
    def failing(model, jobs, answers):
        raise MemoryError

    monkeypatch.setattr(duel_ahead, "_work", failing)
    model = _Echo()
    with Ahead(model, True) as ahead:
        pid = ahead.pid
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # gone, not yet reaped
        ahead.found(1, "a", "b")
        assert ahead.pid == 0 and ahead.failed and model.until is None
    assert gone(pid)
    # one ended by its parent has not failed (a child waiting on its jobs: the failing one could leave first)
    monkeypatch.setattr(duel_ahead, "_work", lambda model, jobs, answers: os.read(jobs, 1))
    with Ahead(_Echo(), True) as ahead:
        pid = ahead.pid
    assert gone(pid) and not ahead.failed
