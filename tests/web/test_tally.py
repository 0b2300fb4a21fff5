"""The tally of a server's workers (:mod:`rangefire.web.tally`): counts taken by several processes add up, a bound
is never passed by processes racing for its last place, and a worker that died holds nothing any more."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from rangefire.web import tally
from rangefire.web.tally import LocalTally, SharedTally

pytestmark = pytest.mark.skipif(tally.fcntl is None, reason="a shared tally needs fcntl's locks")

#: Guards against a test that hangs, never measurements.
WAIT = 60


def child(path: str, script: str) -> subprocess.Popen[str]:
    """A process of its own taking counts in the tally ``path`` (``script`` with ``t`` its tally)."""
    code = f"from rangefire.web.tally import SharedTally\nt = SharedTally({path!r})\n" + textwrap.dedent(script)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)


@pytest.fixture
def path(tmp_path):
    return str(tally.create(tmp_path))


def test_a_local_tally_counts_each_name_up_to_its_bound():
    counts = LocalTally()
    assert [counts.take("connections", "a", 2) for _ in range(3)] == [None, None, 2]
    assert counts.take("connections", "b", 2) is None  # a name of its own
    assert counts.take("streams", "a", 0) is None  # 0: no bound
    counts.give("connections", "a")
    assert counts.take("connections", "a", 2) is None


def test_the_counts_of_two_processes_add_up_and_a_dead_ones_are_let_go(path):
    other = child(path, """
        print(*(t.take("connections", "192.0.2.1", 10) for _ in range(3)), flush=True)
        input()
    """)
    try:
        assert other.stdout is not None
        assert other.stdout.readline().split() == ["None"] * 3
        here = SharedTally(path)
        assert here.take("connections", "192.0.2.1", 4) is None  # three there, one here: four
        assert here.take("connections", "192.0.2.1", 4) == 4  # refused: nothing counted
        assert here.take("streams", "", 4) is None  # another kind: counted apart
        other.send_signal(signal.SIGKILL)
        other.wait(WAIT)
        assert here.take("connections", "192.0.2.1", 4) is None  # the dead one's three are let go
        assert here.take("connections", "192.0.2.1", 2) == 2
        here.give("connections", "192.0.2.1")
        assert here.take("connections", "192.0.2.1", 2) is None
        here.close()
    finally:
        if other.poll() is None:
            other.kill()
            other.wait(WAIT)


def test_processes_racing_for_the_last_places_never_pass_the_bound(path):
    racers = [child(path, """
        import sys
        sys.stdin.readline()  # all start at once
        print(sum(t.take("battle", "b1", 300) is None for _ in range(400)), flush=True)
        sys.stdin.readline()  # the counts kept until every one has counted
    """) for _ in range(3)]
    try:
        for racer in racers:
            assert racer.stdin is not None
            racer.stdin.write("go\n")
            racer.stdin.flush()
        taken = [int(racer.stdout.readline()) for racer in racers if racer.stdout is not None]
        assert sum(taken) == 300, taken  # every place taken once, none twice
        assert SharedTally(path).take("battle", "b1", 300) == 300
    finally:
        for racer in racers:
            racer.kill()
            racer.wait(WAIT)


def test_a_file_that_is_no_tally_is_refused(tmp_path):
    other = tmp_path / "other"
    other.write_bytes(bytes(tally.SIZE))
    with pytest.raises(ValueError, match="not a tally"):
        SharedTally(other)


def test_the_tallies_of_servers_gone_are_cleared(tmp_path):
    kept = tally.create(tmp_path)  # this process's
    gone = tmp_path / "serve-999999999-0badc0de.tally"
    gone.write_bytes(b"")
    tally.clear_stale(tmp_path)
    assert kept.exists() and not gone.exists()
