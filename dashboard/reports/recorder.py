"""Writes the live state's 15-minute counters to FloorSlot rows and pushes the day's chart.

The live state counts in memory; every few seconds what grew since the last write is
added to the rows (never overwritten: a restarted bridge adds to what it finds). The copy
of the counters is taken on the event loop, so the database thread never reads the state
while events change it.
"""

import asyncio
import logging
from dataclasses import replace

from asgiref.sync import sync_to_async
from django.db import transaction

from dashboard.live.state import Counts, LiveState
from dashboard.shared.aio import pause

from . import publish
from .models import FloorSlot, add_to_slot

log = logging.getLogger("dashboard.reports.recorder")
RECORD_S = 5.0


class Recorder:
    def __init__(self, state: LiveState, every: float = RECORD_S):
        self.state = state
        self.every = every
        self.written: dict = {}  # slot start -> the counters already in the database

    async def run(self, stop: asyncio.Event):
        while not stop.is_set():
            await pause(stop, self.every)
            try:
                await self.record()
            except Exception:  # the next pass writes what this one could not
                log.exception("intraday counters not written; retrying")

    async def record(self) -> bool:
        slots = {start: replace(counts) for start, counts in self.state.day.slots.items()}
        grown = {s: x.minus(self.written.get(s, Counts())) for s, x in slots.items()}
        grown = {s: g for s, g in grown.items() if g}
        if grown:
            await sync_to_async(write)(grown)
            await sync_to_async(publish.floor_changed)()
        self.written = slots
        return bool(grown)


@transaction.atomic
def write(grown: dict):
    for start, amounts in grown.items():
        add_to_slot(FloorSlot, amounts, start=start)
