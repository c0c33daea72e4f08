"""The live feed: what the bridge learns, applied, rendered once per change and pushed.

Three parts, each in a module of its own: the inbox (inbox.py) applies each input and
coalesces what arrives between pushes; the view (view.py) renders what changed once and
keeps the whole; the publisher (publish.py) caches the whole view and sends each push once
to the group `live` and to the subscribers. Here the push loop ties them together.

Coalescing is on the leading edge: a change after a quiet tick goes out at once; changes
that arrive within the tick go out as one push. A heartbeat keeps browsers' freshness
honest when the floor is quiet. The composition root hands the feed its subscribers
(subscribers.py: the wallboard's panels, the agent pages).
"""

import asyncio
import logging
import time

from dashboard.shared.aio import pause
from dashboard.upstream import contract as c

from .inbox import Inbox
from .publish import Publisher
from .state import LiveState
from .subscribers import Subscriber
from .view import FloorView

log = logging.getLogger("dashboard.live.feed")

TICK_S = 0.05  # the coalescing tick; docs/performance.md measured 0.1, 0.05 and 0.033 s


class LiveFeed:
    def __init__(
        self,
        state: LiveState,
        *,
        tick: float = TICK_S,
        heartbeat: float = 5.0,
        figures=None,
        subscribers: tuple[Subscriber, ...] = (),
    ):
        self.tick = tick
        self.heartbeat = heartbeat
        self.wakeup = asyncio.Event()
        self.inbox = Inbox(state, figures=figures, wake=self.wakeup.set)
        self.view = FloorView(self.inbox, heartbeat=heartbeat, subscribers=subscribers)
        self.publisher = Publisher(self.view, heartbeat=heartbeat, subscribers=subscribers)

    # ---- What the bridge and the other tasks hand the feed: the inbox's --------------------
    def snapshot(self, agents, calls):
        self.inbox.snapshot(agents, calls)

    def event(self, event: c.Event):
        self.inbox.event(event)

    def status(self, state: str, reason: str = ""):
        self.inbox.status(state, reason)

    def campaigns(self, campaigns: list[c.Campaign]):
        self.inbox.campaigns(campaigns)

    def ai_status(self, enabled: bool):
        self.inbox.ai_status(enabled)

    def set_figures(self, figures: dict):
        self.inbox.set_figures(figures)

    # ---- Pushing ----------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event):
        last = 0.0
        watcher = asyncio.ensure_future(stop.wait())
        watcher.add_done_callback(lambda _: self.wakeup.set())  # stopping wakes the loop
        while not stop.is_set():
            wait = self.heartbeat  # on a quiet floor: a heartbeat push
            if self.view.kpis_due is not None:
                wait = max(0.0, min(wait, self.view.kpis_due - time.monotonic()))
            await pause(self.wakeup, wait)
            gap = time.monotonic() - last
            if gap < self.tick:
                await asyncio.sleep(self.tick - gap)  # coalesce what else arrives
            changes = self.inbox.take()
            self.wakeup.clear()
            try:
                await self.publisher.publish(changes)
            except Exception:
                log.exception("live push failed; the next one resends what changed")
                self.inbox.keep(changes)
            last = time.monotonic()
