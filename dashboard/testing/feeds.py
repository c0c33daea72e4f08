"""The live state's inputs made by hand, and a live feed running on a test's event loop."""

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta

from asgiref.sync import sync_to_async
from django.core.cache import cache

from dashboard.live.state import LiveState
from dashboard.main.bridge_task import live_feed
from dashboard.shared.cache_keys import SNAPSHOT_KEY
from dashboard.testing.processes import await_until
from dashboard.upstream import contract as c

T0 = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


class Events:
    """Builds the service's events with growing seq numbers, at times relative to T0."""

    def __init__(self):
        self.seq = 0

    def event(self, kind, at_s, body):
        self.seq += 1
        return c.Event(kind, "org", self.seq, T0 + timedelta(seconds=at_s), body)

    def agent(self, at_s, agent_id, status, call_id=None, name="Ava", team="Sales"):
        agent = c.Agent(agent_id, name, team, status, T0 + timedelta(seconds=at_s), call_id)
        return self.event("agent.status", at_s, c.AgentChanged(agent))

    def started(self, at_s, call_id, agent_id=None, direction="outbound", ai=False):
        call = c.Call(
            call_id, agent_id, "camp", direction, "ringing", ai, T0 + timedelta(seconds=at_s)
        )
        return self.event("call.started", at_s, c.CallStarted(call))

    def updated(self, at_s, call_id, state, agent_id=None):
        return self.event("call.updated", at_s, c.CallUpdated(call_id, state, agent_id))

    def ended(self, at_s, call_id, duration_s):
        body = c.CallEnded(call_id, T0 + timedelta(seconds=at_s), "sale", duration_s)
        return self.event("call.ended", at_s, body)

    def queue(self, at_s, queue_id, waiting, longest, **day):
        """queue.stats; `day`: its offered, answered and abandoned counts, if any."""
        return self.event(
            "queue.stats", at_s, c.QueueStats(queue_id, "Billing", waiting, longest, 3, **day)
        )


@contextlib.asynccontextmanager
async def running_feed(agents):
    """A live feed on the test's loop, wired as the bridge wires it, its first push (the
    whole view) already cached."""
    await sync_to_async(cache.clear)()
    feed = live_feed(LiveState(UTC), tick=0.1, heartbeat=60)
    feed.snapshot(agents, [])
    feed.status("connected")
    stop = asyncio.Event()
    task = asyncio.create_task(feed.run(stop))
    # the first push writes the whole view to the cache, from a thread
    await await_until(lambda: cache.get(SNAPSHOT_KEY), 10, "the first push", interval=0.02)
    try:
        yield feed
    finally:
        stop.set()
        await task
