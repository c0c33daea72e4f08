"""Property: the replayed floor at any moment equals the live floor at that moment.

The real bridge follows the simulated tenant over its sockets (at speed 10, its sockets
dropped once and a seq skipped once, so the recording also holds two reloads of the
service's truth, the second with the events held during it applied after it) into
the live state, with the recorder beside it, as the leading bridge runs them. Meanwhile a
sink after them keeps a copy of the live floor after every change, with the moment the
live view showed it from. Then Hypothesis draws moments across the run (derandomized: the
same draws on every run) and each one's replay must equal the live floor of that moment,
KPIs included.
"""

import asyncio
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from dashboard.live.state import LiveState
from dashboard.main.bridge_task import Sinks
from dashboard.replay import reader
from dashboard.replay.codec import copy_state
from dashboard.replay.recorder import Recorder
from dashboard.testing.processes import await_until, let_pass_async
from dashboard.testing.upstream import bridge_for

RUN_S = 12


class Live:
    """The live state as the feed keeps it (the feed's own `snapshot` and `event`)."""

    def __init__(self, state):
        self.state = state

    def snapshot(self, agents, calls):
        self.state.load_snapshot(agents, calls, datetime.now(UTC))

    def event(self, event):
        self.state.apply(event)

    def status(self, state, reason=""):
        pass


class Seen:
    """The live floor after every change, from the moment the live view showed it: an
    event's time, or a reload's as the recorder stamped it (the clock's, when the state was
    replaced); an event held during a reload and applied after it shows from the reload."""

    def __init__(self, state, recorder):
        self.state, self.recorder = state, recorder
        self.floors: list[tuple[datetime, LiveState]] = []
        self.reloaded_at: datetime | None = None

    def snapshot(self, agents, calls):
        self.reloaded_at = self.recorder.last_state_at
        self.floors.append((self.reloaded_at, copy_state(self.state)))

    def event(self, event):
        shown = max(event.emitted_at, self.reloaded_at or event.emitted_at)
        self.floors.append((shown, copy_state(self.state)))

    def status(self, state, reason=""):
        pass

    @property
    def reloads(self) -> int:
        return self.state.snapshots


async def record(sim) -> Seen:
    state = LiveState(ZoneInfo(settings.TIME_ZONE), settings.SERVICE_LEVEL_THRESHOLD_S)
    recorder = Recorder(state)
    seen = Seen(state, recorder)
    async with httpx.AsyncClient() as client:
        bridge, _ = bridge_for(sim, client, Sinks(Live(state), recorder, seen))
        stop = asyncio.Event()
        tasks = [asyncio.create_task(bridge.run(stop)), asyncio.create_task(recorder.run(stop))]
        await await_until(lambda: len(seen.floors) >= 20, what="the first events")
        await let_pass_async(RUN_S / 3, "a third of the run")
        sim.control("drop-sockets")
        await await_until(lambda: seen.reloads >= 2, what="the reload after the drop")
        await let_pass_async(RUN_S / 3, "a third of the run")
        sim.control("skip-seq")  # a reload with the events held meanwhile applied after it
        await await_until(lambda: seen.reloads >= 3, what="the reload after the seq gap")
        await let_pass_async(RUN_S / 3, "a third of the run")
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=10)
    return seen


def view_of(state: LiveState, when: datetime) -> tuple:
    """What a screen shows of the floor at `when`: compared field by field."""
    return (
        state.agents,
        state.calls,
        state.queues,
        state.day.totals,
        state.slots,
        state.kpis(when),
    )


@pytest.mark.django_db(transaction=True)
def test_the_replayed_floor_equals_the_live_floor_at_any_moment(sim_factory):
    sim = sim_factory("--faults", "--seed", "11", "--agents", "60", "--speed", "10")
    seen = asyncio.run(record(sim))
    floors = seen.floors[1:]  # from the first event on (the first reload precedes them)
    times = [at for at, _ in floors]
    assert times == sorted(times) and len(floors) > 100
    first, last = times[0], times[-1]

    def live_at(when: datetime) -> LiveState:
        return next(state for at, state in reversed(floors) if at <= when)

    @hypothesis_settings(max_examples=120, deadline=None, derandomize=True, database=None)
    @given(
        st.one_of(
            st.floats(0, 1).map(lambda share: first + (last - first) * share),
            st.sampled_from(times),  # exactly at a change, where it is easiest to be off by one
            st.sampled_from(times).map(lambda at: at - timedelta(microseconds=1)),
        ).filter(lambda when: when >= first)
    )
    def replayed_equals_live(when):
        replayed = reader.state_at(when)
        assert replayed.gap is None
        assert view_of(replayed.state, when) == view_of(copy_state(live_at(when)), when)

    replayed_equals_live()
