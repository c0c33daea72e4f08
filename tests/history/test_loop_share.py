"""The fill's slices rest in proportion to the CPU they took, on one account for all of
the fill's tasks, so that together they take at most their part of the event loop."""

import asyncio

import pytest

from dashboard.main import loop_share
from dashboard.main.loop_share import LoopShare


class Clocks:
    """The loop's clock and the loop thread's CPU clock, moved by the test; each rest asked
    for is noted (and lets the loop's clock run on, as a rest does)."""

    def __init__(self):
        self.now, self.cpu, self.rests = 100.0, 5.0, []

    def time(self):
        return self.now

    def thread_time(self):
        return self.cpu

    def get_running_loop(self):
        return self

    async def sleep(self, seconds):
        self.rests.append(round(seconds, 6))


@pytest.fixture
def clocks(monkeypatch):
    clocks = Clocks()
    monkeypatch.setattr(loop_share, "asyncio", clocks)
    monkeypatch.setattr(loop_share, "time", clocks)
    return clocks


def work(clocks, cpu_s):
    """A slice of the fill's work: its start on the CPU clock, then its CPU spent."""
    since = clocks.cpu
    clocks.cpu += cpu_s
    return since


def test_a_slice_rests_in_proportion_to_its_cpu(clocks):
    share = LoopShare(part=0.4)
    asyncio.run(share.rest(work(clocks, 0.010)))
    assert clocks.rests == [0.015]  # 10 ms of work is 0.4 of 25 ms


def test_slices_of_tasks_side_by_side_rest_on_one_account(clocks):
    share = LoopShare(part=0.4)

    async def two_tasks():
        await share.rest(work(clocks, 0.010))
        await share.rest(work(clocks, 0.010))  # another task's, before the first rest ends

    asyncio.run(two_tasks())
    assert clocks.rests == [0.015, 0.030]


def test_an_idle_loop_is_no_credit_for_later_slices(clocks):
    share = LoopShare(part=0.4)
    asyncio.run(share.rest(work(clocks, 0.010)))
    clocks.now += 10  # the fill waited on the service meanwhile
    asyncio.run(share.rest(work(clocks, 0.002)))
    asyncio.run(share.rest(work(clocks, 0.0)))
    assert clocks.rests == [0.015, 0.003, 0.003]  # the last: still owed from the one before
