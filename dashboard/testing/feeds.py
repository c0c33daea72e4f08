"""A live feed running on the test's loop, its first push (the whole view) already cached."""

import asyncio
import contextlib
from datetime import UTC

from asgiref.sync import sync_to_async
from django.core.cache import cache

from dashboard.live.feed import LiveFeed
from dashboard.live.state import LiveState


@contextlib.asynccontextmanager
async def running_feed(agents):
    await sync_to_async(cache.clear)()
    feed = LiveFeed(LiveState(UTC), tick=0.1, heartbeat=60)
    feed.snapshot(agents, [])
    feed.status("connected")
    stop = asyncio.Event()
    task = asyncio.create_task(feed.run(stop))
    await asyncio.sleep(0.2)  # the first push writes the whole view to the cache
    try:
        yield feed
    finally:
        stop.set()
        await task
