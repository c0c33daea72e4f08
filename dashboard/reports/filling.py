"""Whether today is still being read from the service's history, and how far, for the pages
that show today's slots (the intraday charts, the normal page, what changed).

The one source is the live feed's figures `filling_pct` and `filling_past_pct` (the
backfill's progress, which the live view's KPI strip shows). `FillingMirror`, a subscriber
of the feed, hears them with the feed's other figures and copies them to the cache, where
the web processes read them (`shared.filling.filling_pct`), then has the pushed charts
rendered again (`on_moved`), so they say it while it moves and show the true day once it is
done. The copy expires (FILLING_EXPIRY_S): while a fill goes on the mirror writes it again
before then, moved or not, so a bridge that dies mid-fill leaves no progress behind."""

import asyncio
import logging
from contextlib import suppress

from django.conf import settings

from dashboard.live.subscribers import Board, Subscriber
from dashboard.shared.aio import cache_work
from dashboard.shared.filling import (
    filling_past_pct,
    filling_pct,
    filling_sentence,
    store_progress,
)

log = logging.getLogger("dashboard.reports.filling")
UNSET = object()
IDLE = (None, None)  # (today's, the past weeks') progress: nothing being read
MOVED_GAP_S = 3.0  # between two passes of a moving progress to the pages


def noted(charts: dict, pct: int | None) -> dict:
    """Today's charts, each saying it is being filled while it is (its sentence replaced:
    a forecast or a comparison from part of the day would read as true)."""
    if pct is None:
        return charts
    note = f"Partial: {filling_sentence(pct)}."
    return {chart_id: {**chart, "note": note} for chart_id, chart in charts.items()}


class FillingMirror(Subscriber):
    """Copies the feed's (`filling_pct`, `filling_past_pct`) to the cache when they change;
    `on_moved` (a coroutine function, the composition root's) then pushes what shows them
    again, or `on_past_moved` when only the past weeks' moved (fewer pages show it). The
    changes while one is passed on are taken together, the last one always; while a fill
    goes on, at most one every `gap_s` (the pages' pushes are work beside the fill's),
    today's end at once."""

    def __init__(self, on_moved=None, gap_s: float = MOVED_GAP_S, on_past_moved=None):
        self.on_moved = on_moved
        self.on_past_moved = on_past_moved
        self.gap_s = gap_s
        self.pct = UNSET  # the newest heard
        self.task: asyncio.Task | None = None
        self.ended = asyncio.Event()
        self.changed = asyncio.Event()

    def parts(self, board: Board) -> dict[str, str]:
        pct = (board.figures.get("filling_pct"), board.figures.get("filling_past_pct"))
        if pct != self.pct:
            was, self.pct = self.pct, pct
            if pct == IDLE or (pct[0] is None and was is not UNSET and was[0] is not None):
                self.ended.set()
            self.changed.set()
            if self.task is None or self.task.done():
                self.task = asyncio.ensure_future(self.follow())
        return {}

    async def follow(self):
        written = await self.shown()
        while written != self.pct or written != IDLE:
            if written == self.pct:  # still filling, not moved: written again before it expires
                self.changed.clear()
                with suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), settings.FILLING_EXPIRY_S / 4)
                if written == self.pct:
                    await self.store(written)
                continue
            was, written = written, self.pct
            self.ended.clear()
            today_moved = was is UNSET or was[0] != written[0]
            pushed = self.on_moved if today_moved else self.on_past_moved
            if await self.store(written) and pushed:
                try:
                    await pushed()
                except Exception:
                    log.exception("the fill's progress not pushed; the next change will be")
            if written != IDLE and self.pct != IDLE:
                with suppress(TimeoutError):
                    await asyncio.wait_for(self.ended.wait(), self.gap_s)

    async def store(self, pct: tuple) -> bool:
        try:
            await cache_work(store_progress, *pct)
        except Exception:
            log.exception("the fill's progress not written; it will be again")
            return False
        return True

    @staticmethod
    async def shown():
        """What the pages show now, passed on only if it differs: a dashboard's start with
        no fill hears IDLE first, which the cache already says unless a process stopped
        during a fill (its progress kept until it expires)."""
        try:
            return await cache_work(shown_progress)
        except Exception:
            log.warning("the fill's progress not read from the cache; passing it on")
            return UNSET


def shown_progress() -> tuple:
    return filling_pct(), filling_past_pct()
