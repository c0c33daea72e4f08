"""The backfill's share of the event loop.

The fill's own work (a page parsed and counted, today's rows made ready to write) runs on
the event loop a slice at a time. With only a turn of the loop between two slices, a fill
takes whatever the loop has to spare, and the live feed's pushes then wait behind it and
beside it for a core (the process, the service and the browsers share few). `LoopShare`
makes each slice followed by a rest in proportion to the CPU it took, counted over all of
the fill's tasks together, so the fill's slices take at most `part` of the loop's time
while the live feed has the rest, however fast or loaded the machine is.
"""

import asyncio
import time

FILL_PART = 0.4  # the most of the event loop's time the fill's slices take


class LoopShare:
    def __init__(self, part: float = FILL_PART):
        self.ratio = (1 - part) / part  # seconds of rest per second of work
        self.free_at = 0.0  # the loop's clock when the fill may work again

    async def rest(self, since: float):
        """After a slice of the fill's work begun at `since` (the loop thread's
        `time.thread_time()`): a rest as long as its CPU asks, after any owed before
        (the fill's tasks share one account); a turn of the loop at least."""
        now = asyncio.get_running_loop().time()
        self.free_at = max(self.free_at, now) + (time.thread_time() - since) * self.ratio
        await asyncio.sleep(self.free_at - now)
