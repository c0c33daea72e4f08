"""The tray's offer to listen or whisper on a coaching alert's call while it is live: the
open coaching alerts (quality) on the calls the floor shows live (the feed's cache),
handed to the alerts room as rows, rendered once when they change and pushed to the
tray's group (every signed-in page). A sink beside the feed: every event wakes it (a call
ending takes its offer away), and a tick picks up coaching alerts the webhook processor
stored meanwhile."""

import asyncio
import logging

from dashboard.alerts import offers
from dashboard.live.handshake import in_thread
from dashboard.live.names import agent_names
from dashboard.live.publish import live_calls
from dashboard.quality.models import CoachingAlert
from dashboard.shared.aio import pause

log = logging.getLogger("dashboard.main.coaching_offers")
TICK_S = 1.0
GAP_S = 0.5  # at most two passes a second under a burst of events


def rows() -> list[dict]:
    """The open (or acknowledged) coaching alerts on live calls, the newest to arrive first."""
    calls = live_calls()
    if not calls:
        return []
    names = agent_names()
    found = (
        CoachingAlert.objects.filter(call_id__in=list(calls))
        .exclude(status=CoachingAlert.RESOLVED)
        .order_by("-id")[: offers.SHOWN]  # as they arrived: the service's clock may run ahead
    )
    return [
        {
            "alert": a.alert_id,
            "call": a.call_id,
            "team": calls[a.call_id][1],
            "agent": names.get(a.agent_id, a.agent_id or "an agent"),
            "kind": a.kind,
            "severity": a.severity,
        }
        for a in found
    ]


def render_and_store() -> str:
    html = offers.render(rows())
    offers.store(html)
    return html


class CoachingOffers:
    def __init__(self, tick: float = TICK_S, gap: float = GAP_S):
        self.tick, self.gap = tick, gap
        self.wakeup = asyncio.Event()
        self.published = None
        self.failing = False

    def snapshot(self, agents, calls):
        self.wakeup.set()

    def event(self, event):
        self.wakeup.set()

    def status(self, state, reason=""):
        pass

    async def run(self, stop: asyncio.Event):
        while not stop.is_set():
            await pause(self.wakeup, self.tick)
            self.wakeup.clear()
            try:
                html = await in_thread(render_and_store)()
                if html != self.published:
                    await offers.push(html)
                    self.published = html
                self.failing = False
            except Exception:
                if not self.failing:  # logged once until it works again
                    log.exception("coaching offers: rendering or pushing failed; going on")
                    self.failing = True
            await pause(stop, self.gap)
