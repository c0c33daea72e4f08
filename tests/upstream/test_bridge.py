"""The realtime bridge against the simulated tenant over real sockets.

After each disturbance the model is paused and the live state must equal the simulator's
truth as its REST API tells it.
"""

import asyncio

import httpx
import pytest

from dashboard.testing import SOAK_S
from dashboard.testing.processes import await_until, let_pass_async
from dashboard.testing.upstream import StateSink, bridge_for, seen, truth


@pytest.fixture
def simulator(sim_factory):
    """The test's own simulated tenant at four times real speed: the events these tests
    wait for (ten of them, a gap, one after a malformed one) come within a second or two."""
    return sim_factory("--faults", "--seed", "7", "--speed", "4")


class Running:
    """A bridge running in the background for the length of a `with` block."""

    def __init__(self, sim, **options):
        self.sim, self.options = sim, options
        self.sink = StateSink()

    async def __aenter__(self):
        self.client = httpx.AsyncClient()
        self.bridge, self.rest = bridge_for(self.sim, self.client, self.sink, **self.options)
        self.stop = asyncio.Event()
        self.task = asyncio.create_task(self.bridge.run(self.stop))
        await await_until(lambda: self.bridge.joined and self.sink.snapshots >= 1)
        return self

    async def __aexit__(self, *exc):
        self.stop.set()
        await asyncio.wait_for(self.task, timeout=10)
        await self.client.aclose()

    async def matches_truth(self):
        self.sim.control("pause")
        expected = truth(self.sim)  # the floor stands still now
        await await_until(  # the last events may still be on their way: not a fixed 0.5 s
            lambda: seen(self.sink) == expected,
            10,
            lambda: f"the bridge's state {seen(self.sink)} to be the truth {expected}",
        )
        self.sim.control("resume")


async def test_it_loads_the_state_on_join_and_follows_events(simulator):
    async with Running(simulator) as run:
        await await_until(lambda: len(run.sink.seqs) >= 10)
        await run.matches_truth()
        assert run.sink.statuses[-1][0] == "connected"


async def test_an_event_is_handled_in_the_loop_turn_that_reads_its_frame(simulator):
    """No task per event: on a loop that also writes to a thousand screens each task is a
    turn of that loop, and the bridge's lag is made of those turns."""
    loop = asyncio.get_running_loop()
    created = []

    def counted(loop, coro, **kwargs):
        created.append(getattr(coro, "__qualname__", coro))
        return asyncio.Task(coro, loop=loop, **kwargs)

    async with Running(simulator) as run:
        start = len(run.sink.seqs)
        loop.set_task_factory(counted)
        try:
            await await_until(lambda: len(run.sink.seqs) >= start + 30)
        finally:
            loop.set_task_factory(None)
        applied = run.sink.seqs[start:]
        assert applied == sorted(applied) and len(created) < len(applied) / 3, created
        await run.matches_truth()


async def test_it_reconnects_and_resyncs_after_a_socket_drop(simulator):
    async with Running(simulator) as run:
        simulator.control("drop-sockets")
        await await_until(lambda: run.bridge.counters["connects"] >= 2 and run.bridge.joined)
        assert any(s == "disconnected" for s, _ in run.sink.statuses)
        await await_until(lambda: run.sink.snapshots >= 2)
        await run.matches_truth()


async def test_it_keeps_trying_while_sockets_are_refused(simulator):
    async with Running(simulator) as run:
        simulator.control("refuse-sockets", seconds=3)
        simulator.control("drop-sockets")
        await let_pass_async(1.5, "half the refusal")
        assert not run.bridge.joined
        await await_until(lambda: run.bridge.joined, timeout=20)
        await run.matches_truth()


async def test_it_reloads_on_a_seq_gap(simulator):
    async with Running(simulator) as run:
        await await_until(lambda: len(run.sink.seqs) >= 3)
        resyncs = run.bridge.counters["resyncs"]
        simulator.control("skip-seq")
        await await_until(lambda: run.bridge.counters["gaps"] == 1)
        await await_until(lambda: run.bridge.counters["resyncs"] == resyncs + 1)
        await run.matches_truth()


async def test_it_drops_and_counts_another_organisations_event(simulator):
    async with Running(simulator) as run:
        simulator.control("pause")
        await let_pass_async(0.3, "the events sent before the pause arrive first")
        before = set(run.sink.state.agents)
        simulator.control("foreign-event")
        await await_until(lambda: run.bridge.counters["foreign"] == 1)
        assert set(run.sink.state.agents) == before
        simulator.control("resume")


async def test_it_skips_a_malformed_event_and_carries_on(simulator, caplog):
    async with Running(simulator) as run:
        simulator.control("malformed-event")
        await await_until(lambda: run.bridge.counters["malformed"] == 1)
        count = len(run.sink.seqs)
        await await_until(lambda: len(run.sink.seqs) > count + 2)
        await run.matches_truth()
    assert "malformed agent.status event skipped" in caplog.text


async def test_it_survives_a_rest_outage_during_reload(simulator):
    async with Running(simulator) as run:
        simulator.control("rest-errors", status=500, seconds=2)
        simulator.control("drop-sockets")
        await await_until(lambda: run.sink.snapshots >= 2, timeout=25)
        assert run.sink.statuses[-1][0] == "connected"
        await run.matches_truth()


async def test_it_reports_a_refused_sign_in_as_a_configuration_error(simulator):
    sink = StateSink()
    async with httpx.AsyncClient() as client:
        bridge, _ = bridge_for(simulator, client, sink, email="mfa-a@sim.local")
        stop = asyncio.Event()
        task = asyncio.create_task(bridge.run(stop))
        await await_until(lambda: any(s == "config_error" for s, _ in sink.statuses))
        stop.set()
        await asyncio.wait_for(task, timeout=10)
    reason = next(r for s, r in sink.statuses if s == "config_error")
    assert reason.startswith("mfa_required")


@pytest.mark.timeout(90 + 1.5 * SOAK_S)
async def test_it_loses_no_event_over_a_soak_of_two_second_tokens(sim_factory):
    """SOAK_S seconds (TEST_SOAK_S: 20 s by default, a minute with TEST_SOAK_S=60)."""
    sim = sim_factory("--token-ttl", "2", "--faults", "--speed", "4", "--seed", "3")
    async with Running(sim) as run:
        await let_pass_async(SOAK_S, "the soak")
        seqs = run.sink.seqs
        assert len(seqs) > 100 * SOAK_S / 60
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # contiguous: none dropped
        assert run.bridge.session.renewals >= 25 * SOAK_S / 60  # it refreshed all along
        assert run.bridge.counters["gaps"] == 0
        await run.matches_truth()
