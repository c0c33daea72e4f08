"""Small asyncio helpers shared by the long-lived tasks."""

import asyncio
import contextlib


async def pause(stop: asyncio.Event, seconds: float):
    """Sleep for `seconds`, or less if `stop` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
