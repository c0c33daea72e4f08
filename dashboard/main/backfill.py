"""The backfill: the part of today before this dashboard saw the floor, and the same day
last week, read from the service's history (contract 6.3) into the dashboard's records.

A sink of the bridge beside the feed: from the first snapshot it learns when its live view
of the day began and each agent's state then (the live state counts each agent from that
state's start; the history fills what came before, so no second is counted twice). In the
background it pages through the service's calls, agents' states and QA, compliance and
coaching lists (bounded pages, a pause between them, so the service is never flooded and
the live feed never waits), and writes a day in short transactions of a few hundred rows
(SQLite has one writer: the journal, the recorder and the alerts write between them). What
a page or a write costs in Python runs on the event loop a slice at a time, never in a
thread, where it would hold the interpreter's lock against the live feed, and the slices
take at most a part of the loop's time (`LoopShare`). The
rows are keyed by the service's ids or checked against the journal, so written twice they
add nothing; the slots, which add up, go last in one transaction with the day's
`HistoryDay` row marked done: a restart finds the day done (nothing counted twice) or not
done, and reads again up to the same moment.

What it fills: today's 15-minute slots (calls, completions, handle time, busy and
available time: service level needs waits the history does not carry), each agent's
journal of states and calls, the QA, compliance and coaching tables, the completed calls
and their appointments (derived from the calls' outcomes: the service lists none), and
the same weekday of the last four weeks' slots for the comparisons and the normal. A call
the dashboard saw live, through a webhook and in the history is one row: every table is
keyed by the service's ids.
"""

import asyncio
import heapq
import logging
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from channels.db import database_sync_to_async
from django.db import transaction

from dashboard.drilldown.models import CallSeen
from dashboard.live.state import (
    BUSY_STATES,
    CALL_COUNTERS,
    SLOT,
    Counts,
    LiveState,
    day_start,
    slot_of,
)
from dashboard.main import bulk_rows
from dashboard.main.collector import full_passes_held
from dashboard.main.loop_share import LoopShare
from dashboard.quality.models import (
    Appointment,
    CoachingAlert,
    CompletedCall,
    ComplianceResult,
    Scorecard,
)
from dashboard.reports.models import FloorSlot, HistoryDay, add_to_slot
from dashboard.reports.recorder import Recorder
from dashboard.shared import metrics
from dashboard.shared.aio import pause, until_stopped
from dashboard.states import reader as states
from dashboard.states.codec import WINDOW, Change
from dashboard.states.models import AgentStates
from dashboard.upstream import contract as c
from dashboard.upstream import history as h
from dashboard.upstream.errors import NotOffered, UpstreamError

log = logging.getLogger("dashboard.main.backfill")


def in_thread(fn):
    """Work of seconds (a day of 1,000 agents): in a thread of its own, never in Django's
    one shared sync thread, which pages and the other background writers wait for."""
    return database_sync_to_async(fn, thread_sensitive=False)


PAGE_INTERVAL_S = 0.045  # between two requests' starts: at most 22 a second to the service
TODAY, PAST = 0, 1  # whose request goes first when both wait (the live view's day first)
LOOP_LATE_S = 0.01  # the pacer's timer woken later than this: the live feed first
RETRY_S = 10.0
BATCH = 500  # rows per insert, each in a transaction of its own (SQLite: one writer at a time)
WRITE_PAUSE_S = 0.02  # between two of them: the live writers' and the live feed's turn
SLICE = 500  # rows counted or made ready to write between two turns of the event loop
CALL_MARGIN = timedelta(hours=2)  # a call ended today may have started before midnight
PAST_WEEKS = 4  # same weekdays kept for the normal (docs/metrics.md)
DERIVED = "call:"  # an appointment known from its call's outcome, before any webhook


@dataclass
class Filled:
    """What one day's history gives, ready to write."""

    slots: dict = field(default_factory=dict)  # slot start -> Counts
    calls: list = field(default_factory=list)
    spans: list = field(default_factory=list)
    records: dict = field(default_factory=dict)
    changes: dict = field(default_factory=dict)  # agent id -> [(since, state, call id)]


class Backfill:
    def __init__(
        self,
        rest,
        state: LiveState,
        recorder: Recorder,
        on_progress=None,
        on_filled=None,
        on_past_progress=None,
        interval_s=PAGE_INTERVAL_S,
    ):
        self.rest = rest
        self.state = state
        self.recorder = recorder
        self.on_progress = on_progress or (lambda pct: None)
        self.on_filled = on_filled  # a coroutine function: a day was written
        self.on_past_progress = on_past_progress or (lambda pct: None)
        self.pacer = Pacer(interval_s)
        self.share = LoopShare()  # the fill's slices: at most a part of the loop's time
        self.reached: dict[str, tuple[float, float]] = {}  # list -> (its share, how far)
        self.live_from: datetime | None = None
        self.first: dict[str, datetime] = {}  # agent id -> start of its first live state
        self.progress: float | None = None  # share of today read, while filling
        self.past_reached: dict[tuple, float] = {}  # (past day's precedence, list) -> how far
        self.past_days = 0  # past days being read
        self.offered = True
        self.last_week_done = None  # the day whose last week was filled
        self.journal_mark: int | None = None  # the journal's last row before this process
        self.gap_done = False

    # ---- The bridge's sink (on the event loop: notes only) ----------------------------------
    def snapshot(self, agents: list[c.Agent], calls: list[c.Call]):
        now = datetime.now(UTC)
        self.live_from = self.live_from or now
        for agent in agents:
            self.first.setdefault(agent.agent_id, agent.since or now)

    def event(self, event: c.Event):
        self.live_from = self.live_from or event.emitted_at
        if isinstance(event.body, c.AgentChanged):
            agent = event.body.agent
            self.first.setdefault(agent.agent_id, agent.since or event.emitted_at)

    def status(self, state: str, reason: str = ""):
        pass

    # ---- The background work ------------------------------------------------------------------
    async def run(self, stop: asyncio.Event):
        """Reads what today and the weeks compared with lack. Today's figures say "filling"
        from the first push (the feed starts at 0 %) until today is known: read before
        this process (a restart shows what it stored at once), or read now."""
        self.journal_mark = await in_thread(last_journal_row)()
        start = self.state.start_of_day(datetime.now(UTC))
        if await in_thread(day_read)(start.astimezone(self.state.tz).date()):
            self.moved(None)
        while not stop.is_set() and self.offered:
            if self.live_from is None:
                await pause(stop, 0.5)
                continue
            try:
                with full_passes_held():  # the collector's, stalls of the live feed
                    fill = together(self.fill_today(), self.fill_last_week())
                    if not await until_stopped(stop, fill):
                        today = "read" if self.progress is None else f"{self.progress:.0%} read"
                        log.info(
                            "history fill stopped with the process (today %s); the "
                            "next start takes it up again",
                            today,
                        )
                        return
            except NotOffered as absent:
                log.info("the service offers no history (%s): today is what was seen live", absent)
                self.offered, self.progress = False, None
                self.moved(None)
                self.past_moved(None)
                return
            except (UpstreamError, c.ContractError) as exc:
                log.warning("history not read yet (%s); trying again in %g s", exc, RETRY_S)
                await pause(stop, RETRY_S)
                continue
            except Exception:
                log.exception("history fill failed; trying again in %g s", RETRY_S)
                await pause(stop, RETRY_S)
                continue
            await pause(stop, 60)  # a new day's last week, after a midnight

    async def fill_today(self):
        start = self.state.start_of_day(self.live_from)
        day = start.astimezone(self.state.tz).date()
        first = {a: since.isoformat() for a, since in self.first.items()}
        row = await in_thread(claim_day)(day, start, self.live_from, first)
        if row.done:
            self.moved(None)
            if not self.gap_done:  # a restart: the states the agents went through meanwhile
                await self.fill_gap(start)
                self.gap_done = True
            return
        self.gap_done = True  # this process's live view follows straight on from the history
        self.progress, self.reached = 0.0, {}
        self.moved(0)
        until = row.until
        cuts = {a: datetime.fromisoformat(since) for a, since in row.agents_since.items()}
        filled = Filled()
        # Each page of states counted and noted for the journal as it comes, and let go:
        # kept whole until the write, a day's 150,000 of them would make every full pass of
        # the collector (set off by what the fill allocates) a longer stall of the loop;
        # the plain tuples noted are out of its sight.
        known = await in_thread(states.known)(start - timedelta(days=1), until)

        def count_page_of_states(rows):
            count_states(Filled(filled.slots, spans=rows), start, until, cuts)
            note_changes(rows, cuts, until, known, filled.changes)

        # The lists side by side (their requests paced together); the progress is the
        # lists' shares, each as far as its rows reached.
        filled.calls, _, *records = await together(
            self.read(h.calls_page, start - CALL_MARGIN, until, 0.4),
            self.read(h.states_page, start, until, 0.45, count=count_page_of_states, keep=False),
            *(self.read(h.records_page, start, until, 0.05, name=name) for name in h.RECORDS),
        )
        filled.records = dict(zip(h.RECORDS, records, strict=True))
        read = len(filled.calls), sum(len(x) for x in filled.changes.values())
        async with self.recorder.counting:  # not while the recorder compares the calls
            await self.count_and_write(day, filled, start, until, cuts)
        await let_go(filled, known, self.share.rest)
        self.progress = None
        await self.filled()
        log.info(
            "today filled from the service's history up to %s: %d calls, %d states",
            until.isoformat(timespec="seconds"),
            *read,
        )

    async def count_and_write(self, day, filled: Filled, start, until, cuts: dict):
        """Today's history counted beside what the live state holds, written, taken in."""
        # Counted and made into rows on the event loop a slice at a time (a day of 1,000
        # agents is a few hundred thousand rows: in a thread, that work would hold the
        # interpreter's lock against the loop for seconds), from copies of what the live
        # state counted so far, taken here.
        seen = (set(self.state.seen_started), set(self.state.seen_ended))
        base = {at: replace(x) for at, x in self.state.base.items()}
        found: dict[datetime, Counts] = {}
        for at in range(0, len(filled.calls), SLICE):
            since = time.thread_time()
            tally_calls(filled.calls[at : at + SLICE], start, until, *seen, found)
            await self.share.rest(since)
        add_calls(filled, found, base)
        have = await in_thread(appointments_of)(filled.calls)
        # Short transactions (rows keyed by the service's ids or checked against the journal,
        # so a batch written twice after a restart adds nothing), a pause between them so
        # the live writers get the database; the additive slots go last, with the day done.
        async for model, items, make, ignore in day_rows(filled, until, have, self.share.rest):
            rows = await bulk_rows.ready(model, items, make, self.share.rest)
            await in_thread(insert)(model, rows, ignore)
            await asyncio.sleep(WRITE_PAUSE_S)
        await in_thread(finish_day)(day, filled)
        self.recorder.add_stored(filled.slots)  # taken in before the recorder compares again

    async def fill_gap(self, start: datetime):
        """After a restart: the states each agent began and left while no dashboard
        followed the floor (from its last state in the journal to its first live one).
        The state it was in then was never counted (a state counts when it ends), so it
        counts here; calls ended meanwhile come from the service's call list
        (`LiveState.fill`)."""
        lasts = await in_thread(last_states)(self.journal_mark, self.live_from)
        lasts = {a: since for a, since in lasts.items() if a in self.first}
        if not lasts:
            return
        since = max(min(lasts.values()), start - timedelta(days=1))
        filled = Filled()
        spans = await self.read(h.states_page, since, self.live_from)
        filled.spans = [
            x
            for x in spans
            if x.agent_id in lasts and lasts[x.agent_id] <= x.since < self.first[x.agent_id]
        ]
        await in_thread(count_states)(filled, start, self.live_from, dict(self.first))
        await in_thread(write_gap)(filled, start, self.first, self.live_from)
        self.recorder.add_stored(filled.slots)
        log.info("the states of %d agents while no dashboard followed filled", len(lasts))

    async def fill_last_week(self):
        """The same weekday of each of the last `PAST_WEEKS` weeks, when the dashboard
        stored none of it: last week's for the comparisons, all of them for the floor's
        normal (dashboard/normal/). Read side by side with today's lists and each other,
        today's requests first, then the nearest week's."""
        tz = self.state.tz
        today = self.state.day.date or self.state.start_of_day(self.live_from).astimezone(tz).date()
        if today == self.last_week_done:
            return
        weeks = range(1, PAST_WEEKS + 1)
        days = {w: today - timedelta(days=7 * w) for w in weeks}
        unknown = [w for w in weeks if not await in_thread(day_known)(*past_day(days[w], tz))]
        self.past_days, self.past_reached = len(unknown), {}
        if unknown:
            self.past_moved(0)
        await together(*(self.fill_past(days[w], w) for w in unknown))
        if unknown:  # the recorder's next pass loads last week's slots into the comparisons
            await self.filled()
        self.past_moved(None)  # once the comparisons hold them
        self.last_week_done = today
        log.info(
            "last week's and the %d weeks before in from the service's history (%d requests "
            "so far, %d turns given to the live feed first)",
            PAST_WEEKS - 1,
            self.pacer.arrivals,
            self.pacer.deferred,
        )

    async def fill_past(self, day, weeks: int):
        """The same weekday `weeks` weeks ago (`day`, not known yet): read and written."""
        _, start, end = past_day(day, self.state.tz)
        await in_thread(write_past_day)(day, await self.past_slots(start, end, PAST + weeks), end)
        self.recorder.add_stored({}, last_week=weeks == 1)
        log.info("the past %s filled from the service's history", f"{day:%a %d %b}")

    async def past_slots(self, start: datetime, end: datetime, first=PAST) -> dict:
        """A past day's slots: its calls and states read side by side, each page counted
        as it comes (a day of 1,000 agents is 150,000 states) and let go."""
        calls, spans = Filled(), Filled()

        def count_page_of_calls(rows):
            count_calls(Filled(calls.slots, calls=rows), start, end)

        def count_page_of_states(rows):
            count_states(Filled(spans.slots, spans=rows), start, end)

        calls_of_day = h.calls_page, start - CALL_MARGIN, end
        await together(
            self.read(*calls_of_day, 0.5, count=count_page_of_calls, keep=False, first=first),
            self.read(
                h.states_page, start, end, 0.5, count=count_page_of_states, keep=False, first=first
            ),
        )
        return merged(calls.slots, spans.slots)

    async def filled(self):
        """The day's records are in: the recorder takes the slots in on its next pass."""
        while self.recorder.arrived:
            await asyncio.sleep(0.2)
        if self.progress is None:  # not a past day's end while today is still read
            self.moved(None)
        if self.on_filled:
            await self.on_filled()

    def moved(self, pct: int | None):
        """The progress in whole percent (None: done), to the page and the metrics."""
        self.on_progress(pct)
        metrics.backfill_progress(pct)

    def past_moved(self, pct: int | None):
        """The past days' progress in whole percent (None: none being read), to the page:
        the comparisons with them say they are being filled meanwhile."""
        self.on_past_progress(pct)

    async def read(
        self, page, since, until, share=0.0, count=None, keep=True, first=TODAY, **kwargs
    ) -> list:
        """Every row of one history list, page by page, each request in its turn (`Pacer`,
        `first`: its precedence); each page goes to `count` as it comes, a slice at a time
        (on the event loop, free between two slices, where a thread would make the loop
        wait for the interpreter's lock), and is kept or let go. The progress moves through
        the list's `share` by how far its rows reached."""
        rows, cursor, name = [], None, kwargs.get("name", page.__name__)
        while True:
            await self.pacer.turn(first)
            got = await page(
                self.rest, since=since, until=until, cursor=cursor, pause=self.share.rest, **kwargs
            )
            for at in range(0, len(got.rows) if count else 0, h.SLICE):
                began = time.thread_time()
                count(got.rows[at : at + h.SLICE])  # a slice at a time, the loop free between
                await self.share.rest(began)
            if keep:
                rows += got.rows
            at = _when(got.rows[-1]) if share and got.rows else None
            if at is not None:
                reach = (at - since) / (until - since) if until > since else 1
                reach = min(1.0, max(0.0, reach))
                if first >= PAST:  # a past day's list: its share of the past days read
                    self.past_reached[first, name] = share * reach
                    days = max(1, self.past_days)
                    self.past_moved(int(100 * sum(self.past_reached.values()) / days))
                else:
                    self.reached[name] = (share, reach)
                    self.progress = sum(part * done for part, done in self.reached.values())
                    self.moved(int(100 * self.progress))
            cursor = got.next_cursor
            if not cursor:
                return rows


class Pacer:
    """The backfill's requests start `interval_s` apart, however many lists it reads at
    once, so the service is never flooded; the waiting request of the lowest precedence
    number goes first (today's before the past days'); and only while the event loop has
    time to spare: the pacer's own timer woken more than `LOOP_LATE_S` late means the
    loop's callbacks (the live feed's, or the pages being parsed) held it over the
    interval, or the process waited for a core, and the live feed goes first."""

    def __init__(self, interval_s: float):
        self.interval_s = interval_s
        self.waiting: list[tuple] = []  # a heap of (precedence, arrival, future)
        self.arrivals = 0
        self.deferred = 0  # turns the live feed took first
        self.task: asyncio.Task | None = None

    async def turn(self, first: int = TODAY):
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self.waiting, (first, self.arrivals, future))
        self.arrivals += 1
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self.give_turns())
        await future

    async def give_turns(self):
        loop = asyncio.get_running_loop()
        while self.waiting:
            due = loop.time() + self.interval_s
            await asyncio.sleep(self.interval_s)
            if loop.time() - due >= LOOP_LATE_S:
                self.deferred += 1
                continue
            _, _, future = heapq.heappop(self.waiting)
            if not future.done():  # not a reader stopped meanwhile
                future.set_result(None)


async def let_go(filled: Filled, known: set, pause):
    """The day's rows and the states noted let go a slice at a time, the event loop free
    between two: freed at once as the fill returned, a day of 1,000 agents (some 36,000
    calls, 150,000 states noted) held the loop for 25 to 40 ms of CPU."""
    for rows in (filled.calls, *filled.records.values()):
        while rows:
            since = time.thread_time()
            del rows[-SLICE:]
            await pause(since)
    while known:
        since = time.thread_time()
        for _ in range(min(SLICE, len(known))):
            known.pop()
        await pause(since)


async def together(*steps):
    """The steps side by side, their results in order; the first to fail stops the others."""
    tasks = [asyncio.ensure_future(step) for step in steps]
    try:
        return await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()


# ---- Counting, as the live state counts (dashboard/live/state.py) -------------------------
def count_calls(filled: Filled, start, until, seen_started=(), seen_ended=(), base=None):
    """Calls started and ended in [start, until) that the live state did not count;
    per slot and counter only what `base` (counted from elsewhere) does not hold."""
    add_calls(filled, tally_calls(filled.calls, start, until, seen_started, seen_ended), base)


def tally_calls(calls, start, until, seen_started=(), seen_ended=(), found=None) -> dict:
    """`calls` counted into `found` (slot start -> Counts) as `count_calls` counts them."""
    found = {} if found is None else found
    for call in calls:
        started = call.started_at
        if started and start <= started < until and call.call_id not in seen_started:
            _slot(found, started).calls += 1
        ended = call.ended_at
        if ended and start <= ended < until and call.call_id not in seen_ended:
            slot = _slot(found, ended)
            slot.completed += 1
            if call.ai_handled:
                slot.ai_completed += 1
            elif call.agent_id:
                slot.handled += 1
                slot.handle_s += call.duration_s or 0
    return found


def _slot(slots: dict, when: datetime) -> Counts:
    """The Counts of `when`'s slot in `slots`, made the first time (a page of 1,000 rows
    is counted a few thousand times: attributes added in place, no Counts made in vain)."""
    at = slot_of(when)
    counts = slots.get(at)
    if counts is None:
        counts = slots[at] = Counts()
    return counts


def add_calls(filled: Filled, found: dict, base=None):
    """The calls `found` into the day's slots, less what `base` holds already."""
    for at, got in found.items():  # what a list read earlier already added is not again
        had = (base or {}).get(at, Counts())
        more = {n: getattr(got, n) - getattr(had, n) for n in CALL_COUNTERS}
        more = {n: v for n, v in more.items() if v > 0}
        if more.get("handled"):
            more["handle_s"] = got.handle_s * more["handled"] / got.handled
        if more:
            filled.slots.setdefault(at, Counts()).add(**more)


def count_states(filled: Filled, start, until, cuts=None):
    """Time in each state up to where the live state counts the agent from."""
    cuts = cuts or {}
    for span in filled.spans:
        cut = min(until, cuts.get(span.agent_id, until))
        begin, end = max(span.since, start), min(span.until or cut, cut)
        if end <= begin:
            continue
        if span.status == "wrap_up" and span.since >= start:
            _slot(filled.slots, end).handle_s += (end - begin).total_seconds()
        name = (
            "busy_s"
            if span.status in BUSY_STATES
            else "available_s"
            if span.status == "available"
            else ""
        )
        while name and begin < end:
            counts = _slot(filled.slots, begin)
            part = min(slot_of(begin) + SLOT, end)
            setattr(counts, name, getattr(counts, name) + (part - begin).total_seconds())
            begin = part


def merged(*slots: dict) -> dict:
    """Slots counted apart, added together."""
    out: dict[datetime, Counts] = {}
    for each in slots:
        for at, counts in each.items():
            out.setdefault(at, Counts()).add(**vars(counts))
    return out


def _when(row):
    if isinstance(row, tuple):  # a coaching alert and when it was raised
        return row[1]
    for name in ("started_at", "since", "scored_at", "checked_at"):
        value = getattr(row, name, None)
        if value is not None:
            return value
    return None


# ---- Writing (in a thread, short transactions) ------------------------------------------
def claim_day(day, start: datetime, live_from: datetime, first: dict) -> HistoryDay:
    """Today's row: made by the first dashboard to see the day, with where its live view
    began; a restart reads up to the same moment. A day a dashboard recorded before it
    read history is read only up to its first stored slot."""
    recorded = FloorSlot.objects.filter(start__gte=start, start__lt=live_from).first()
    if recorded is not None:
        live_from, first = recorded.start, {}
    row, _ = HistoryDay.objects.get_or_create(
        day=day, defaults={"until": live_from, "agents_since": first}
    )
    return row


def day_read(day) -> bool:
    return HistoryDay.objects.filter(day=day, done=True).exists()


def last_journal_row() -> int:
    return AgentStates.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def last_states(mark: int | None, before: datetime) -> dict[str, datetime]:
    """Each agent's last state in the journal as an earlier process left it."""
    rows = AgentStates.objects.filter(pk__lte=mark or 0, start__lt=before)
    latest: dict[str, datetime] = {}  # each agent's newest row
    for agent_id, start in rows.values_list("agent_id", "start").iterator():
        latest[agent_id] = max(start, latest.get(agent_id, start))
    found: dict[str, datetime] = {}
    for agent_id, start in latest.items():
        newest = rows.filter(agent_id=agent_id, start__gte=start - WINDOW)
        changes = states.changes_of(newest.values_list("agent_id", "start", "states"))
        earlier = [x.since for x in changes.get(agent_id, []) if x.since < before]
        if earlier:
            found[agent_id] = earlier[-1]
    return found


@transaction.atomic
def write_gap(filled: Filled, start: datetime, cuts: dict, until: datetime):
    for at, counts in filled.slots.items():
        add_to_slot(FloorSlot, {k: v for k, v in vars(counts).items() if v}, start=at)
    known = states.known(start - timedelta(days=1), until)
    new = note_changes(filled.spans, cuts, until, known, {})
    rows = [row for a, xs in new.items() for row in states.rows_for(a, changes_of(xs))]
    AgentStates.objects.bulk_create(rows, batch_size=BATCH)


def past_day(day, tz) -> tuple:
    """A past day, its start and its end in the organisation's zone."""
    return day, day_start(day, tz), day_start(day + timedelta(days=1), tz)


def day_known(day, start: datetime, end: datetime) -> bool:
    """Whether a past day is in the dashboard already (filled, or recorded live)."""
    if day_read(day):
        return True
    return FloorSlot.objects.filter(start__gte=start, start__lt=end).exists()


async def day_rows(filled: Filled, until: datetime, have: set, pause):
    """The day's journal, calls and QA records, in batches of `BATCH` items to insert (a
    model, its items, what makes an item its row, whether a row there already is left
    out), on the event loop a slice at a time, `pause` between two (`have`: the calls'
    appointments already recorded)."""
    journal, changes = [], filled.changes
    while changes:  # an agent's day: some 60 rows; its notes let go once they are rows
        since = time.thread_time()
        for _ in range(min(AGENTS_SLICE, len(changes))):
            agent_id, noted = changes.popitem()
            journal += states.rows_for(agent_id, changes_of(noted))
        await pause(since)
        while len(journal) >= BATCH or (journal and not changes):
            batch, journal = journal[:BATCH], journal[BATCH:]
            yield AgentStates, batch, None, False
    for model, items, make in record_rows(filled, until, have):
        for at in range(0, len(items), BATCH):
            yield model, items[at : at + BATCH], make, True


AGENTS_SLICE = 2  # agents whose journal rows are made between two turns of the event loop


def appointments_of(calls: list) -> set:
    """The calls booked (by their outcome) whose appointment is recorded already."""
    booked = [x.call_id for x in calls if x.outcome == "appointment_booked"]
    return set(Appointment.objects.filter(call_id__in=booked).values_list("call_id", flat=True))


@transaction.atomic
def insert(model, rows: list[tuple], ignore: bool):
    bulk_rows.insert(model, rows, ignore)


@transaction.atomic
def finish_day(day, filled: Filled):
    """The slots (additions: written once, with the day marked done in the same
    transaction)."""
    row = HistoryDay.objects.select_for_update().get(day=day)
    if row.done:  # another bridge (a failover) got there first
        filled.slots = {}
        return
    for at, counts in filled.slots.items():
        add_to_slot(FloorSlot, {k: v for k, v in vars(counts).items() if v}, start=at)
    row.done, row.filled_at = True, datetime.now(UTC)
    row.save(update_fields=["done", "filled_at"])


@transaction.atomic
def write_past_day(day, slots: dict, end: datetime):
    for at, counts in slots.items():
        add_to_slot(FloorSlot, {k: v for k, v in vars(counts).items() if v}, start=at)
    HistoryDay.objects.update_or_create(
        day=day, defaults={"until": end, "done": True, "filled_at": datetime.now(UTC)}
    )


def note_changes(spans, cuts: dict, until: datetime, known: set, new: dict) -> dict:
    """Each agent's states before its first live one into `new` (agent id -> [(since,
    state, call id)]), as the journal keeps them: a state already there (`known`) is not
    noted again."""
    for span in spans:
        cut = cuts.get(span.agent_id, until)
        if span.since < cut and (span.agent_id, span.since) not in known:
            new.setdefault(span.agent_id, []).append((span.since, span.status, span.call_id or ""))
            known.add((span.agent_id, span.since))
    return new


def changes_of(noted: list) -> list[Change]:
    return [Change(*x) for x in noted]


def record_rows(filled: Filled, until: datetime, have: set):
    """The day's calls and the records a webhook would have brought, keyed by the service's
    ids (a webhook for the same record later changes nothing twice): (model, items, how
    each item makes its row)."""
    ended = [x for x in filled.calls if x.ended_at and x.ended_at < until and x.outcome]
    records = filled.records
    return [
        (CallSeen, [x for x in filled.calls if x.started_at and x.started_at < until], call_seen),
        (CompletedCall, ended, completed_call),
        (
            Appointment,
            [x for x in ended if x.outcome == "appointment_booked" and x.call_id not in have],
            appointment,
        ),
        (Scorecard, [x for x in records.get("scorecards", []) if x.scored_at], scorecard),
        (ComplianceResult, [x for x in records.get("checks", []) if x.checked_at], check),
        (CoachingAlert, [x for x in records.get("alerts", []) if x[1]], alert),
    ]


def call_seen(x) -> CallSeen:
    return CallSeen(
        call_id=x.call_id,
        agent_id=x.agent_id or "",
        campaign_id=x.campaign_id or "",
        direction=x.direction[:20],
        ai_handled=x.ai_handled,
        started_at=x.started_at,
        ended_at=x.ended_at,
        outcome=(x.outcome or "")[:60],
        duration_s=x.duration_s,
    )


def completed_call(x) -> CompletedCall:
    return CompletedCall(
        call_id=x.call_id,
        agent_id=x.agent_id or "",
        campaign_id=x.campaign_id or "",
        outcome=x.outcome,
        duration_s=x.duration_s or 0,
        completed_at=x.ended_at,
    )


def appointment(x) -> Appointment:
    return Appointment(
        appointment_id=DERIVED + x.call_id,
        call_id=x.call_id,
        campaign_id=x.campaign_id or "",
        agent_id=x.agent_id or "",
        booked_at=x.ended_at,
    )


def scorecard(x) -> Scorecard:
    return Scorecard(
        scorecard_id=x.id,
        call_id=x.call_id or "",
        agent_id=x.agent_id or "",
        template_id=x.template_id or "",
        score=x.score,
        max_score=x.max_score,
        passed=x.passed,
        scored_at=x.scored_at,
    )


def check(x) -> ComplianceResult:
    return ComplianceResult(
        check_id=x.id,
        call_id=x.call_id or "",
        agent_id=x.agent_id or "",
        rule=x.rule,
        passed=x.passed,
        checked_at=x.checked_at,
    )


def alert(row) -> CoachingAlert:
    x, at = row
    return CoachingAlert(
        alert_id=x.id,
        agent_id=x.agent_id or "",
        call_id=x.call_id or "",
        kind=x.kind,
        severity=x.severity,
        message=x.message,
        raised_at=at,
    )
