"""The floor's recorder: every live event, in order, and the whole state every 15 seconds,
but for the agents' states, which it hands to the state journal it carries (the one record
the agent's day reads too, dashboard/states/), telling it when it took each whole state.

A sink of the bridge after the live feed (the state has taken each event when the
recorder sees it). On the event loop it only keeps a reference to the event, or a shallow
copy of the state every STATE_EVERY of the floor's time (and after each reload of the
service's truth, or a change the events do not carry: restored or filled counters, last
week's slots). Every FLUSH_S what was kept is encoded, compressed and inserted in a worker
thread, a chunk of events a row, so the database never slows the live path.

When the database is away, what is kept waits and is tried again; a failure is logged
once, and so is its end. Past MAX_PENDING events waiting, new events are dropped: the
recorder then notes a gap, and starts again with the whole state, so a replay is exact
again from there and says what it misses in between.
"""

import asyncio
import logging
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from django.db import transaction

from dashboard.live.handshake import in_thread
from dashboard.live.leader import still_leading
from dashboard.shared.aio import pause
from dashboard.states import journal as states
from dashboard.states.journal import StateJournal
from dashboard.upstream import contract as c

from .codec import US, copy_state, pack, pack_events, state_doc, us
from .codec import at as from_us
from .models import Chunk, Gap

log = logging.getLogger("dashboard.replay.recorder")
FLUSH_S = 1.0
STATE_EVERY = timedelta(seconds=15)  # a seek applies at most 15 s of events (docs/replay.md)
MAX_PENDING = 120_000  # events waiting for the database: 10 minutes at 200 a second


def now() -> datetime:
    return datetime.now(UTC)


class Recorder:
    def __init__(
        self,
        state,
        *,
        states: StateJournal | None = None,
        every: float = FLUSH_S,
        limit: int = MAX_PENDING,
    ):
        self.state = state
        self.states = states or StateJournal()  # the agents' states, written with the chunks
        self.every, self.limit = every, limit
        self.items: list[
            tuple
        ] = []  # ("e", event) | ("s", state copy, at) | ("g", start, end, why)
        self.waiting = 0  # events in `items`
        self.next_state_at: datetime | None = None  # None: the next item is a whole state
        self.lost_since: datetime | None = None  # events dropped since then
        self.lost = 0
        self.outside = None  # what the state holds that no event brings, as last recorded
        self.failing = False
        self.last_state_at: datetime | None = None  # a replay shows that state from then on

    # ---- The bridge's sink (on the event loop: references and copies only) -------------------
    def snapshot(self, agents, calls):
        """A reload of the service's truth, stamped when the live view showed it: events
        emitted before it and applied after it (held during the reload) follow it."""
        at = max(self.state.last_event_at or now(), now())
        self.states.snapshot(agents, calls, at)
        self._take_state(at)

    def event(self, event: c.Event):
        at = event.emitted_at
        self.states.event(event)  # whatever the recorder keeps: the agent's day reads them
        if self.waiting >= self.limit:
            if self.lost_since is None:
                log.warning("replay: the recorder is behind; dropping events from %s", at)
                self.lost_since = at
            self.lost += 1
            self.next_state_at = None
            return
        if self.lost_since is not None:
            self.items.append(("g", self.lost_since, at, f"{self.lost} events not recorded"))
            log.warning("replay: %d events not recorded since %s", self.lost, self.lost_since)
            self.lost_since, self.lost = None, 0
        if self.next_state_at is None or at >= self.next_state_at:
            self._take_state(at)  # the state has this event already
            return
        if not isinstance(event.body, c.AgentChanged):  # those wait in the state journal
            self.items.append(("e", event))
        self.waiting += 1

    def status(self, state, reason=""):
        pass  # the connection's state is not the floor's

    def _take_state(self, at: datetime):
        self.items.append(("s", copy_state(self.state), at))
        self.states.whole_state(at)
        self.last_state_at = at
        self.outside = self._outside()
        every = STATE_EVERY // US
        self.next_state_at = from_us((us(at) // every + 1) * every)  # on the clock's quarter

    def _outside(self) -> tuple:
        """What changes the state without an event: restored and filled counters (the
        reports' recorder), last week's slots, the day's origin."""
        s = self.state
        return (replace(s.origin), s.snapshots, id(s.last_week), len(s.base))

    # ---- Writing ----------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event):
        while not stop.is_set():
            await pause(stop, self.every)
            await self.flush()
        await self.flush()  # what the last pass left

    async def flush(self):
        if self.outside is not None and self._outside() != self.outside:
            self._take_state(max(self.state.last_event_at or now(), now()))
        if not (self.items or self.states.pending()) or not still_leading():
            return
        items, self.items, waiting, self.waiting = self.items, [], self.waiting, 0
        work = self.states.take()
        try:
            written = await in_thread(write)(items, work)
        except Exception as exc:
            if not self.failing:
                log.warning("replay: not recorded, trying again: %s: %s", type(exc).__name__, exc)
                self.failing = True
            self.items[:0] = items  # in front of what arrived meanwhile, in order
            self.waiting += waiting
            self.states.failed(work)
            return
        self.states.written(written)
        if self.failing:
            log.info("replay: recording again")
            self.failing = False


def chunks(items: list[tuple]) -> tuple[list[Chunk], list[Gap]]:
    """The rows of what was kept: a chunk per whole state, with the events after it, and
    one for the events before the first state."""
    rows, gaps, events, state, start = [], [], [], None, None

    def close():
        if state is not None or events:
            end = events[-1][1].emitted_at if events else start
            rows.append(
                Chunk(
                    start=start,
                    end=end,
                    count=len(events),
                    events=pack_events([e for _, e in events]),
                    state=state,
                    has_state=state is not None,
                )
            )

    for item in items:
        if item[0] == "s":
            close()
            events, state, start = [], pack(state_doc(item[1])), item[2]
        elif item[0] == "e":
            if state is None and not events:
                start = item[1].emitted_at
            events.append(item)
        else:
            gaps.append(Gap(start=item[1], end=item[2], reason=item[3][:200]))
    close()
    return rows, gaps


@transaction.atomic
def write(items: list[tuple], states_work: tuple = ([], [])) -> list:
    """Stores what was kept and the state journal's work; what the state journal wrote."""
    rows, gaps = chunks(items)
    Chunk.objects.bulk_create(rows)
    Gap.objects.bulk_create(gaps)
    return states.write(states_work)
