"""Whether today is still being read from the service's history, and how far, for the pages
that show today's slots (the intraday charts, the normal page, what changed).

The one source is the live feed's figure `filling_pct` (the backfill's progress, which the
live view's KPI strip shows). `FillingMirror`, a subscriber of the feed, hears it with the
feed's other figures and copies it to the cache, where the web processes read it
(`shared.filling.filling_pct`), then has the pushed charts rendered again (`on_moved`), so
they say it while it moves and show the true day once it is done."""

import asyncio
import logging
from contextlib import suppress

from asgiref.sync import sync_to_async
from django.core.cache import cache

from dashboard.live.subscribers import Board, Subscriber
from dashboard.shared.cache_keys import FILLING_KEY
from dashboard.shared.filling import filling_pct, filling_sentence

log = logging.getLogger("dashboard.reports.filling")
UNSET = object()
MOVED_GAP_S = 3.0  # between two passes of a moving progress to the pages


def noted(charts: dict, pct: int | None) -> dict:
    """Today's charts, each saying it is being filled while it is (its sentence replaced:
    a forecast or a comparison from part of the day would read as true)."""
    if pct is None:
        return charts
    note = f"Partial: {filling_sentence(pct)}."
    return {chart_id: {**chart, "note": note} for chart_id, chart in charts.items()}


class FillingMirror(Subscriber):
    """Copies the feed's `filling_pct` to the cache when it changes; `on_moved` (a
    coroutine function, the composition root's) then pushes what shows it again. The
    changes while one is passed on are taken together, the last one always; while the
    fill goes on, at most one every `gap_s` (the pages' pushes are work beside the fill's),
    its end at once."""

    def __init__(self, on_moved=None, gap_s: float = MOVED_GAP_S):
        self.on_moved = on_moved
        self.gap_s = gap_s
        self.pct = UNSET  # the newest heard
        self.task: asyncio.Task | None = None
        self.ended = asyncio.Event()

    def parts(self, board: Board) -> dict[str, str]:
        pct = board.figures.get("filling_pct")
        if pct != self.pct:
            self.pct = pct
            if pct is None:
                self.ended.set()
            if self.task is None or self.task.done():
                self.task = asyncio.ensure_future(self.follow())
        return {}

    async def follow(self):
        written = await self.shown()
        while written != self.pct:
            written = self.pct
            self.ended.clear()
            try:
                # In a thread of its own: never behind the views in Django's shared one.
                await sync_to_async(cache.set, thread_sensitive=False)(FILLING_KEY, written, None)
                if self.on_moved:
                    await self.on_moved()
            except Exception:
                log.exception("today's fill progress not passed on; the next change will be")
            if written is not None and self.pct is not None:
                with suppress(TimeoutError):
                    await asyncio.wait_for(self.ended.wait(), self.gap_s)

    @staticmethod
    async def shown():
        """What the pages show now: a figure they already show is not pushed again (a
        dashboard's start, with no fill, hears the figure's first None; the cache says None
        unless a process before it stopped during a fill)."""
        try:
            return await sync_to_async(filling_pct, thread_sensitive=False)()
        except Exception:
            log.warning("today's fill progress not read from the cache; passing it on")
            return UNSET
