"""Small asyncio helpers shared by the long-lived tasks."""

import asyncio
import contextlib
import time

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache


async def pause(stop: asyncio.Event, seconds: float):
    """Sleep for `seconds`, or less if `stop` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


async def turn(since: float):
    """Between two slices of work on the event loop: a turn of it. `since` (the loop
    thread's `time.thread_time()` as the slice began) is for a pause that paces by the
    slice's CPU instead (main/loop_share.py), which callers may give in its place."""
    await asyncio.sleep(0)


class Slices:
    """Work on the event loop cut into slices of `budget_s` of the loop thread's CPU, a
    turn of the loop between two: what waits for the loop (the service's events) waits a
    slice at most. `took` is the CPU of the slices so far, not the loop's turns between."""

    def __init__(self, budget_s: float):
        self.budget_s = budget_s
        self.began = time.thread_time()
        self.took = 0.0

    def spent(self) -> bool:
        return time.thread_time() - self.began >= self.budget_s

    def end(self):
        """This slice ends (a generator's, whose caller turns the loop): `took` counts it."""
        self.took += time.thread_time() - self.began

    def begin(self):
        self.began = time.thread_time()

    async def turn(self):
        """End this slice, let the loop turn, begin the next."""
        self.end()
        await turn(self.began)
        self.begin()


async def cache_work(work, *args):
    """`work(*args)`, a piece of the cache's work (sync), done without blocking the loop.

    A cache in this process's memory (the one-machine demo's) does it on the loop at once:
    it waits for nothing, so a worker thread would only add the hops there and back and
    hand the GIL to and fro while the loop waits. Any other cache (Redis) is reached over
    the network: in a worker thread, and not Django's one sync thread, where it would queue
    behind every view's database work (a sign-in's password hash alone takes 0.3 s)."""
    if isinstance(caches["default"], LocMemCache):
        return work(*args)
    return await sync_to_async(work, thread_sensitive=False)(*args)


async def until_stopped(stop: asyncio.Event, work) -> bool:
    """Await the coroutine `work`, or cancel it as soon as `stop` is set (False): a process
    that stops does not wait for a page of history or a webhook's backoff. Its exception,
    if it raised, is raised here."""
    task = asyncio.ensure_future(work)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        return False
    task.result()
    return True


DAY_S = 24 * 3600
RETRY_S = 600  # after a failed purge (the database away): try again this soon


async def daily_purge(stop: asyncio.Event, purge, log, what: str):
    """Run `purge` (sync: counts of what it deleted, by kind) in a worker thread now, then
    once a day until `stop`; a failure is logged with `what` and tried again in RETRY_S."""
    while not stop.is_set():
        try:
            counts = await database_sync_to_async(purge, thread_sensitive=False)()
        except Exception:
            log.exception("purging %s failed; trying again in %d s", what, RETRY_S)
            await pause(stop, RETRY_S)
            continue
        if any(counts.values()):
            log.info("purged %s: %s", what, counts)
        await pause(stop, DAY_S)
