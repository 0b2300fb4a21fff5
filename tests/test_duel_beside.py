"""The duel's stepping forked off to a second core while its chain is solved
(``rangefire.analysis.duel_beside``): the same answer as in one process, for every game and order of fire; the
child ended and reaped however the parent's work ends; a child that fails is stepped for in the parent; no fork
where another thread runs."""

from __future__ import annotations

import os
import threading
from fractions import Fraction

import pytest

from rangefire.analysis import duel as duel_module
from rangefire.analysis import duel_beside
from rangefire.analysis.duel import duel, model_of, setting
from rangefire.analysis.duel_ahead import can_fork
from rangefire.analysis.duel_beside import ByTurn, Stepping, by_winner
from rangefire.analysis.duel_chain import build, step
from rangefire.rulesets import load_battle
from tests.conftest import gone
from tests.test_duel import CASES, UNITS, WHEATFIELD, _first_two

# a forked child left working would hold its parent in waitpid: a failure after two minutes, not a hung suite
pytestmark = [pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system"),
              pytest.mark.timeout(120)]


def _graph(case: str, first: str = "a"):
    ruleset, battle = CASES[case]()
    a, b = UNITS.get(case, _first_two(ruleset, battle))
    played = setting(ruleset, battle, a, b, "holds" if ruleset.chooses_target else None)
    return ruleset, battle, a, b, build(model_of(ruleset, played), a, b, first)


@pytest.mark.parametrize("first", ["a", "alternate"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_game_answers_the_same_on_two_cores_dc_4_3(case, first):
    """DC-4.3, BU-3.5, AL-7.2, SW-4.2: the duel to its end forked or not is the same answer, figure for figure
    (every winner, each end's turns, what is left, the turns stepped)."""
    ruleset, battle, a, b, _ = _graph(case, first)
    one = duel(ruleset, battle, a, b, first=first, cores=1)
    two = duel(ruleset, battle, a, b, first=first, cores=2)
    assert two.to_dict() == one.to_dict()
    assert two.by_turn == one.by_turn and two.turns_stepped == one.turns_stepped


def test_the_forked_turns_are_the_stepping_turn_for_turn_dc_4_3():
    """DC-4.3: each turn's weights by winner and its common denominator, as the stepping in one process gives
    them; the child is reaped once read."""
    _, _, _, _, graph = _graph("dc-wheatfield")
    alone = step(graph, 12)
    with Stepping(graph, 12, None, cores=2) as stepping:
        pid = stepping.pid
        assert pid > 0
        forked = stepping.collect(lambda stepped, _: False)
    assert gone(pid) and stepping.pid == 0
    assert forked.ended == [by_winner(e) for e in alone.ended]
    assert forked.denominators == alone.denominators and not forked.cut
    assert forked.ended == ByTurn.of(alone).ended


def test_the_work_limit_cuts_the_forked_stepping_as_it_would_the_other_dc_4_3():
    """DC-4.3: a work limit met in the child is the same cut, after the same turns."""
    _, _, _, _, graph = _graph("dc-wheatfield")
    alone = ByTurn.of(step(graph, 500, max_work=2_000_000, partial=True))
    with Stepping(graph, 500, 2_000_000, cores=2) as stepping:
        forked = stepping.collect(lambda stepped, _: False)
    assert alone.cut and forked.cut
    assert forked.ended == alone.ended and forked.denominators == alone.denominators


def test_enough_stops_the_reading_and_the_child_is_ended_dc_4_3():
    """DC-4.3: the parent reads no further than enough says, then ends the child, which is stepping on."""
    _, _, _, _, graph = _graph("dc-wheatfield")
    with Stepping(graph, 1_000, None, cores=2) as stepping:
        pid = stepping.pid
        forked = stepping.collect(lambda stepped, _: stepped.turns == 3)
        assert not gone(pid) or forked.turns == 3
    assert forked.turns == 3 and gone(pid)


def _written(graph, reach: Fraction) -> int:
    """The turns the child's work writes (into a file here, not a pipe), stepping alone until it stops."""
    import pickle
    import tempfile

    with tempfile.TemporaryFile() as f:
        duel_beside._step_into(graph, 1_000, None, os.dup(f.fileno()), reach)
        f.seek(0)
        records = []
        while not records or records[-1][0] != "end":
            records.append(pickle.load(f))
    assert records[-1] == ("end", False)
    return len(records) - 1


@pytest.mark.parametrize("reach", [Fraction(9, 10), Fraction(99, 100)])
@pytest.mark.parametrize("case", ["dc-wheatfield", "dc-gunsmoke", "bushido", "arcane-legions"])
def test_the_child_stops_once_every_end_is_surely_reached_dc_4_3(case, reach, monkeypatch):
    """DC-4.3: the child steps no further than the first turn by which ``reach`` of each end is reached whatever
    the duels still undecided become (each winner's chance so far at least ``reach`` of itself and all that is
    undecided), worked out here in fractions from the stepping in one process; and by then the answer's own
    "enough", which knows each end's whole chance, holds: the same answer as in one process."""
    ruleset, battle, a, b, graph = _graph(case)
    alone = step(graph, 400)
    possible = {w for found in graph.ends for _, (w, _, _) in found}
    so_far = dict.fromkeys(possible, Fraction(0))
    sure = None
    for t in range(1, alone.turns + 1):
        for (w, _, _), p in alone.ended_in(t).items():
            so_far[w] += p
        undecided = 1 - sum(so_far.values())
        if all(c >= reach * (c + undecided) for c in so_far.values()):
            sure = t
            break
    assert sure is not None and sure > 1
    assert _written(graph, reach) == sure
    answer = duel(ruleset, battle, a, b, reach=reach, cores=1)
    assert answer.turns_stepped <= sure
    told = []

    class Told(Stepping):  # the duel tells its stepping the share it will ask for
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            told.append(self.reach)

    monkeypatch.setattr(duel_module, "Stepping", Told)
    assert duel(ruleset, battle, a, b, reach=reach, cores=2).to_dict() == answer.to_dict()
    assert told == [reach]


def test_a_failure_in_the_parent_ends_the_child_dc_4_3():
    """DC-4.3: whatever stops the parent's work (an interrupt, an error) ends and reaps the child."""
    _, _, _, _, graph = _graph("dc-wheatfield")
    with pytest.raises(KeyboardInterrupt), Stepping(graph, 1_000, None, cores=2) as stepping:
        pid = stepping.pid
        raise KeyboardInterrupt
    assert gone(pid)


def test_a_child_that_fails_is_stepped_for_in_the_parent_dc_4_3(monkeypatch):
    """DC-4.3: a child that leaves without its turns (here its work raises at once) costs the answer nothing:
    the parent steps them itself."""
    ruleset, battle, a, b, _ = _graph("dc-wheatfield")

    def broken(*_args):
        raise MemoryError

    monkeypatch.setattr(duel_beside, "_step_into", broken)
    assert duel(ruleset, battle, a, b, cores=2).to_dict() == duel(ruleset, battle, a, b, cores=1).to_dict()


def test_a_fork_refused_by_the_system_steps_in_the_one_process(monkeypatch):
    """A fork the system refuses (a limit on processes or memory) leaves the duel to one process: the same
    answer, no pipe left open."""
    ruleset, battle, a, b, _ = _graph("dc-wheatfield")
    one = duel(ruleset, battle, a, b, cores=1)
    opened = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None

    def refused() -> int:
        raise BlockingIOError("fork refused")

    monkeypatch.setattr(os, "fork", refused)
    assert duel(ruleset, battle, a, b, cores=2).to_dict() == one.to_dict()
    if opened is not None:
        assert len(os.listdir("/proc/self/fd")) == opened


def test_no_fork_while_another_thread_runs():
    """A process with another thread running does not fork of itself (the thread could hold a lock the child
    would then wait for); one core, or a small graph, keeps the stepping in the process."""
    _, _, _, _, graph = _graph("dc-wheatfield")
    assert not Stepping(graph, 10, None, cores=1).beside
    assert not Stepping(graph, 10, None).beside  # the Wheatfield is below BESIDE_NODES
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not can_fork()
    finally:
        stop.set()
        other.join()


def test_the_wheatfield_to_its_end_is_the_same_forked():
    """The example's regiments to the end: the same answer forked and not (the command line's case)."""
    ruleset, battle = load_battle(WHEATFIELD)
    one = duel(ruleset, battle, "15th-alabama", "20th-maine", cores=1)
    assert duel(ruleset, battle, "15th-alabama", "20th-maine", cores=2).to_dict() == one.to_dict()
