"""What the live feed is handed, applied and coalesced until the next push.

The bridge's events and snapshots change the live state; the service's status, the AI's,
the campaigns and the figures from outside the feed (webhook records, the inbound board,
what changed against the normal) change what the pages show beside it. Each input's
`Changes` are merged per row into those pending (the newest state wins), so whatever
arrives between two pushes goes out as one. No I/O here: the push loop (feed.py) takes
what is pending, and `wake` tells it that something is.
"""

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from dashboard.shared import metrics
from dashboard.upstream import contract as c

from .render import iso
from .state import Changes, LiveState

log = logging.getLogger("dashboard.live.inbox")


class Inbox:
    def __init__(self, state: LiveState, *, figures=None, wake: Callable[[], None] = lambda: None):
        self.state = state
        self.wake = wake
        self.pending = Changes(full=True)  # the first push is the whole view
        self.figures = dict(figures or {})  # from outside the feed (webhook records, settings)
        self.upstream = {"state": "connecting", "reason": "", "since": iso(now())}
        self.ai_enabled: bool | None = None  # GET /ai, as the refresher last read it
        # agent id -> the seq and emitted time (epoch ms) of the event its tile shows
        self.stamps: dict[str, tuple[int, int]] = {}
        self.campaign_rows: list[c.Campaign] = []
        self.campaign_names: dict[str, str] = {}  # campaign id -> name, on each call row

    # ---- The bridge's sink ---------------------------------------------------------------------
    def snapshot(self, agents, calls):
        self.merge(self.state.load_snapshot(agents, calls, now()))

    def event(self, event: c.Event):
        changes = self.state.apply(event)
        metrics.PENDING_EVENTS.note(event.emitted_at)
        stamp = (event.seq, round(event.emitted_at.timestamp() * 1000))
        for agent_id in changes.agents:
            self.stamps[agent_id] = stamp
        self.merge(changes)

    def status(self, state: str, reason: str = ""):
        if state != self.upstream["state"] or reason != self.upstream["reason"]:
            log.info("upstream %s%s", state, f": {reason}" if reason else "")
            self.upstream = {"state": state, "reason": reason, "since": iso(now())}
            self.wake()  # every push carries the status

    # ---- The other tasks' inputs ---------------------------------------------------------------
    def campaigns(self, campaigns: list[c.Campaign]):
        names = {x.id: x.name for x in campaigns}
        if names != self.campaign_names:
            self.campaign_names = names
            # Every call row names its campaign, as does the tile of the agent on it: those
            # are redrawn, not the whole view (a thousand tiles on each screen).
            calls = self.state.calls
            on_calls = {x.agent_id for x in calls.values() if x.agent_id in self.state.agents}
            self.merge(Changes(agents=on_calls, calls=set(calls)))
        if campaigns != self.campaign_rows:
            self.campaign_rows = campaigns
            self.merge(Changes(board=True))

    def ai_status(self, enabled: bool):
        if enabled != self.ai_enabled:
            self.ai_enabled = enabled
            self.wake()  # every push carries the header's status

    def set_figures(self, figures: dict):
        """Figures from outside the feed (appointments, alerts) may have changed."""
        changed = {k for k, v in figures.items() if self.figures.get(k) != v}
        if changed:
            self.figures.update(figures)
            # The inbound side's figures show on each queue's row too.
            queues = set(self.state.queues) if "inbound" in changed else set()
            self.merge(Changes(kpis=True, board=True, queues=queues))

    # ---- Coalescing ------------------------------------------------------------------------------
    def merge(self, changes: Changes):
        self.pending.merge(changes)
        self.wake()

    def take(self) -> Changes:
        """What is pending, for one push; later inputs gather for the next."""
        changes, self.pending = self.pending, Changes()
        return changes

    def keep(self, changes: Changes):
        """A push that failed: what it carried goes out with the next one, under what
        arrived while it was on its way (a call that ended meanwhile is removed, not kept)."""
        self.pending = changes.merge(self.pending)


def now() -> datetime:
    return datetime.now(UTC)
