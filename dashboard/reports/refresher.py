"""The refresher: part of the bridge, it pulls the service's summaries on an interval.

Each summary is pulled on its own, so one failing endpoint never holds the others back;
a good answer replaces the cached copy, a failure only records its error beside the last
good copy (dashboard/shared/summaries.py), and a group the service does not offer (404 or
405 on its whole path) is kept as not offered. After each pass `on_refreshed` is called (the
composition root pushes the pages that show summaries), and campaign counters that grew
are added to their 15-minute slots and their dial counters to the dial rate's samples.
"""

import asyncio
import logging
from datetime import UTC, datetime

from channels.db import database_sync_to_async
from django.conf import settings

from dashboard.live.feed import LiveFeed
from dashboard.live.state import slot_of
from dashboard.shared import summaries
from dashboard.shared.aio import pause
from dashboard.shared.today import start_of_today
from dashboard.upstream import contract as c
from dashboard.upstream.errors import NotOffered
from dashboard.upstream.rest import RestClient

from . import outbound
from .models import CampaignSlot, add_to_slot

log = logging.getLogger("dashboard.reports.refresher")

PULLS = {  # summary name -> how to pull it; the QA-side ones cover today only
    "campaigns": lambda rest, since: rest.campaigns(),
    "scorecards": lambda rest, since: rest.scorecards(since),
    "templates": lambda rest, since: rest.templates(),
    "compliance": lambda rest, since: rest.compliance_checks(since),
    "coaching": lambda rest, since: rest.coaching_alerts(since),
    "ai": lambda rest, since: rest.ai_status(),
    # Outbound operations: groups a service may not offer
    "dialer_queue": lambda rest, since: rest.dialer_queue(),
    "callbacks": lambda rest, since: rest.callbacks(datetime.now(UTC) + outbound.CALLBACKS_AHEAD),
    "pending_bookings": lambda rest, since: rest.pending_bookings(),
    "ai_dialer": lambda rest, since: rest.ai_dialer(),
}


class Refresher:
    def __init__(self, rest: RestClient, feed: LiveFeed, on_refreshed=None):
        self.rest = rest
        self.feed = feed
        self.on_refreshed = on_refreshed  # called (in a thread) after every pass
        self.counters: dict[str, tuple[int, int, int]] = {}  # campaign id -> last seen
        self.failing: dict[str, str] = {}  # summary -> its error, logged once until it recovers

    async def run(self, stop: asyncio.Event):
        while not stop.is_set():
            try:
                await self.refresh()
            except Exception:  # never let one pass end the refresher
                log.exception("summary refresh pass failed; the next one tries again")
            await pause(stop, settings.UPSTREAM_REFRESH_INTERVAL_S)

    async def refresh(self):
        since = await database_sync_to_async(start_of_today)()
        results = await asyncio.gather(*(self.pull(name, since) for name in PULLS))
        got = dict(zip(PULLS, results, strict=True))
        if got["campaigns"] is not None:
            self.feed.campaigns(got["campaigns"])
            await database_sync_to_async(self.record_campaigns)(got["campaigns"], datetime.now(UTC))
            await outbound.record_dialing(got["campaigns"], datetime.now(UTC))
        if got["ai"] is not None:
            self.feed.ai_status(got["ai"].enabled)
        if self.on_refreshed:
            await database_sync_to_async(self.on_refreshed)()

    async def pull(self, name: str, since: datetime):
        """The fresh data, or None when the pull failed (its error is stored instead)."""
        try:
            data = await PULLS[name](self.rest, since)
        except NotOffered as absent:  # no failure: the page hides the panel and says why
            if self.failing.get(name) != str(absent):
                log.info("summary %s: %s", name, absent)
            self.failing[name] = str(absent)
            await summaries.store_not_offered(name, datetime.now(UTC))
            return None
        except Exception as exc:
            error = str(exc) or type(exc).__name__
            if self.failing.get(name) != error:
                log.warning("summary %s not refreshed, keeping the last good copy: %s", name, error)
            self.failing[name] = error
            await summaries.store_failure(name, error, datetime.now(UTC))
            return None
        if self.failing.pop(name, None):
            log.info("summary %s refreshed again", name)
        await summaries.store_good(name, data, datetime.now(UTC))
        return data

    def record_campaigns(self, campaigns: list[c.Campaign], now: datetime):
        """Add what each campaign's counters grew since the last pull to the current slot.
        The first pull after a start only sets the baseline: growth before it is unknown."""
        slot = slot_of(now)
        for x in campaigns:
            seen = (x.dialed_contacts, x.connected_calls, x.appointments_booked)
            before = self.counters.get(x.id)
            self.counters[x.id] = seen
            if before is None:
                continue
            names = ("dialed", "connected", "booked")
            grown = {k: max(0, a - b) for k, a, b in zip(names, seen, before, strict=True)}
            if not any(grown.values()):
                continue
            add_to_slot(CampaignSlot, grown, campaign_id=x.id, start=slot)
