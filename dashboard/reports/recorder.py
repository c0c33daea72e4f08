"""Keeps the floor's day: writes the live state's 15-minute counters to FloorSlot rows,
gives them back after a restart, fills gaps from the service, and loads last week's day
to compare with. Pushes the day's chart when it grew.

The live state counts in memory; every few seconds what grew since the last write is
added to the rows (never overwritten: two writers never lose each other's additions).
When the bridge starts (a restart, or a new leader after a failover) the rows stored
today are handed back to the state first, so the day's figures go on from where they
were. After each reload of the service's truth (a start, a reconnect, a gap in the
events) the service's call list for today fills in the calls no stored row counted.
Copies of the counters are taken on the event loop, so the database thread never reads
the state while events change it.
"""

import asyncio
import logging
from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta

from channels.db import database_sync_to_async
from django.db import transaction

from dashboard.live.state import Counts, LiveState, day_start
from dashboard.shared.aio import pause
from dashboard.upstream.errors import UpstreamError

from . import publish
from .metrics import floor_charts
from .models import FloorSlot, add_to_slot

log = logging.getLogger("dashboard.reports.recorder")
RECORD_S = 5.0
COUNTERS = [f.name for f in fields(Counts)]


class Recorder:
    def __init__(self, state: LiveState, every: float = RECORD_S, list_calls=None, charts=None):
        self.state = state
        self.charts = charts or floor_charts  # (since, now) -> the charts' data, pushed
        self.every = every
        # (since, agent ids) -> (the service's calls since then, the time before which the
        # list may lack some); None: nothing to fill gaps from.
        self.list_calls = list_calls
        self.written: dict = {}  # slot start -> the counters already in the database
        self.filled_after = 0  # the state's snapshot count when gaps were last filled
        self.compared_day = None  # the day whose last week the state holds
        self.restored = False
        self.failing: set[str] = set()
        self.arrived: list[dict] = []  # slots another writer stored (the history), to take in
        # Held while the day's calls are compared with what was counted (the gap fill here,
        # the history's count in the backfill): two at once would each miss what the other
        # adds, and count it again.
        self.counting = asyncio.Lock()

    async def run(self, stop: asyncio.Event):
        while True:  # one last pass after `stop`: what grew since the last one is written
            for step in (self.restore, self.fill_gaps, self.load_last_week, self.record):
                await self.attempt(step)
            if stop.is_set():
                return
            await pause(stop, self.every)

    async def attempt(self, step):
        """One step; a failure is logged once until that step succeeds, and retried. The
        service being away is expected (a line, no traceback); anything else is a bug."""
        name = step.__name__
        try:
            await step()
        except UpstreamError as exc:
            if name not in self.failing:
                log.warning("day figures: %s waits for the service (%s); retrying", name, exc)
            self.failing.add(name)
        except Exception:
            if name not in self.failing:
                log.exception("day figures: %s failed; retrying every %g s", name, self.every)
            self.failing.add(name)
        else:
            if name in self.failing:
                log.info("day figures: %s done again", name)
            self.failing.discard(name)

    async def restore(self):
        """Once: today's stored slots back into the state (and counted as written)."""
        if self.restored:
            return
        now = datetime.now(UTC)
        start = self.state.start_of_day(now)
        stored = await database_sync_to_async(stored_slots)(start, self.state.day.end)
        self.state.restore(stored, now)
        for start, counts in stored.items():
            self.written[start] = self.written.get(start, Counts()).plus(counts)
        self.restored = True

    async def fill_gaps(self):
        """After a reload of the service's truth: the calls it lists for today that no
        stored slot and no event counted."""
        self.take_arrived()
        snapshots = self.state.snapshots
        if self.list_calls is None or not self.restored or snapshots == self.filled_after:
            return
        if self.counting.locked():
            return  # the history is being counted: the next pass
        async with self.counting:
            since = self.state.start_of_day(datetime.now(UTC)).astimezone(UTC)
            calls, partial_before = await self.list_calls(since, list(self.state.agents))
            self.take_arrived()
            self.state.fill(calls, datetime.now(UTC), partial_before)
        self.filled_after = snapshots

    async def load_last_week(self):
        """The same weekday last week's stored slots, once a day."""
        day = self.state.day.date
        if day is None or day == self.compared_day:
            return
        tz = self.state.tz
        then = day - timedelta(days=7)
        stored = await database_sync_to_async(stored_slots)(
            day_start(then, tz), day_start(then + timedelta(days=1), tz)
        )
        self.state.set_last_week(stored)
        self.compared_day = day

    def add_stored(self, stored: dict[datetime, Counts], last_week: bool = False):
        """Counters another writer has already added to FloorSlot (the service's history):
        taken into the state and counted as written on the next pass; `last_week`: the
        comparison day was filled, so it is loaded again."""
        if stored or last_week:  # else nothing to take in, nor wait for (`Backfill.filled`)
            self.arrived.append(stored)
        if last_week:
            self.compared_day = None

    def take_arrived(self):
        """What `add_stored` handed in, into the state: before the service's list is
        compared with the state (`fill_gaps`) and before the state is copied (`record`)."""
        now = datetime.now(UTC)
        for stored in self.arrived:
            self.state.restore(stored, now)
            for start, counts in stored.items():
                self.written[start] = self.written.get(start, Counts()).plus(counts)
        self.arrived = []

    async def record(self) -> bool:
        self.take_arrived()  # before the copy below, so none is written twice
        slots = {start: replace(counts) for start, counts in self.state.slots.items()}
        grown = {s: x.minus(self.written.get(s, Counts())) for s, x in slots.items()}
        grown = {s: g for s, g in grown.items() if g}
        if grown:
            await database_sync_to_async(write)(grown)
            await database_sync_to_async(publish.floor_changed)(self.charts)
        self.written = slots
        return bool(grown)


@transaction.atomic
def write(grown: dict):
    for start, amounts in grown.items():
        add_to_slot(FloorSlot, amounts, start=start)


def stored_slots(since: datetime, until: datetime) -> dict[datetime, Counts]:
    """The FloorSlot rows from `since` to before `until`, as counters."""
    rows = FloorSlot.objects.filter(start__gte=since, start__lt=until).values("start", *COUNTERS)
    return {row.pop("start"): Counts(**row) for row in rows}
