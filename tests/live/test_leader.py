"""The bridge lease, against a real Redis: one worker at a time, hand-over, fencing."""

import asyncio
import time
from datetime import UTC

import redis.asyncio as redis
from django.core.cache import cache

from dashboard.live.feed import LiveFeed
from dashboard.live.leader import Lease, lead
from dashboard.live.state import Changes, LiveState
from dashboard.shared.cache_keys import SNAPSHOT_KEY
from dashboard.testing.processes import await_until, each_moment, free_port, let_pass_async

KEY = "dashboard:bridge-leader:test"
TTL = 3.0


class Worker:
    """Work that records when it runs, as the bridge would publish."""

    def __init__(self, name, board):
        self.name, self.board = name, board
        self.stopped_at = None

    async def __call__(self, stop):
        self.board.append(self.name)
        try:
            await stop.wait()
        finally:
            self.board.remove(self.name)
            self.stopped_at = time.monotonic()


async def test_it_lets_one_bridge_work_and_hands_over_on_a_clean_stop(redis_url):
    client = redis.Redis.from_url(redis_url)
    board, stops, runs = [], [asyncio.Event(), asyncio.Event()], []
    for name, stop in zip("ab", stops, strict=True):
        runs.append(asyncio.ensure_future(lead(Worker(name, board), stop, Lease(client, KEY))))
    await await_until(lambda: board, 5)
    first = board[0]
    async for _ in each_moment(4, every=0.2):  # a few renewals: still exactly the one
        assert board == [first]
    stops["ab".index(first)].set()
    stopped = time.monotonic()
    await await_until(lambda: board and board[0] != first, 5)
    assert time.monotonic() - stopped < 2.5  # released, not left to lapse
    stops[0].set(), stops[1].set()
    await asyncio.gather(*runs)
    assert await client.get(KEY) is None
    await client.aclose()


async def test_it_stops_a_leader_whose_lease_was_taken(redis_url):
    client = redis.Redis.from_url(redis_url)
    board, stop = [], asyncio.Event()
    worker = Worker("a", board)
    run = asyncio.ensure_future(lead(worker, stop, Lease(client, KEY, ttl=TTL)))
    await await_until(lambda: board, 5)
    await client.set(KEY, "another bridge", px=int(TTL * 1000))
    taken = time.monotonic()
    await await_until(lambda: not board, 5)
    assert worker.stopped_at - taken < TTL
    await let_pass_async(0.5, "long enough to take the lease back, were it to")
    assert board == [] and await client.get(KEY) == b"another bridge"  # it follows now
    stop.set()
    await run
    await client.aclose()


async def test_it_stops_working_before_its_lease_lapses_when_redis_stalls(redis_url):
    client = redis.Redis.from_url(redis_url)
    board, stop = [], asyncio.Event()
    worker = Worker("a", board)
    lease = Lease(client, KEY, ttl=TTL)
    run = asyncio.ensure_future(lead(worker, stop, lease))
    await await_until(lambda: board, 5)
    admin = redis.Redis.from_url(redis_url)
    # Renewals hang past the lease's end: a leader that waited for them works on past it.
    await admin.execute_command("CLIENT", "PAUSE", int((TTL + 1) * 1000), "ALL")
    await await_until(lambda: not board, TTL * 2)
    assert worker.stopped_at < lease.valid_until  # fenced while the lease was still ours
    stop.set()
    await run
    await admin.aclose()
    await client.aclose()


async def test_it_publishes_nothing_when_a_frozen_leader_wakes_past_its_lease(redis_url):
    client = redis.Redis.from_url(redis_url)
    stop, pushed, runs = asyncio.Event(), asyncio.Event(), []
    await cache.adelete(SNAPSHOT_KEY)

    async def work(work_stop):
        runs.append(1)
        if len(runs) == 1:
            feed = LiveFeed(LiveState(UTC))
            await feed.publisher.publish(Changes(full=True))  # version 1, under the lease
            pushed.set()
            time.sleep(TTL)  # the whole process freezes (a stalled VM, a long GC)
            await feed.publisher.publish(Changes(full=True))  # the first thing it does on waking
        await work_stop.wait()

    run = asyncio.ensure_future(lead(work, stop, Lease(client, KEY, ttl=TTL)))
    await asyncio.wait_for(pushed.wait(), 10)
    await let_pass_async(2, "time for a push that should not have happened to land")
    stop.set()
    await run
    version, *_ = await cache.aget(SNAPSHOT_KEY)
    assert version == 1, "a leader past its lease published"
    await client.aclose()


async def test_it_waits_out_an_unreachable_redis_without_working(caplog):
    client = redis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens
    board, stop = [], asyncio.Event()
    run = asyncio.ensure_future(lead(Worker("a", board), stop, Lease(client, KEY), poll=0.2))
    await let_pass_async(2, "ten polls of a Redis that is not there")
    assert board == [] and not run.done()
    stop.set()
    await run
    assert sum("not reachable" in r.getMessage() for r in caplog.records) == 1  # said once
    await client.aclose()
