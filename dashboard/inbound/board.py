"""The inbound board: part of the bridge, it pulls the service's inbound side on a short
interval (queues, schedules, each queue's figures since the start of the day, the day's
voicemail), works out each queue's row and its day per 15 minutes, keeps the board in the
cache for the pages, and hands it to `on_board` after each pass (the pushes, sent only
where a page's body changed) and its figures to `on_figures` (the live feed). Between
passes, a queue.stats event or a ring-group agent's change redraws the board from the last
pass's reads and the live state, without reading the service.

The service's figures cover the whole day. A queue's service level must leave out the
minutes its schedule was closed, so each pass adds what the counters grew since the last
one to the current 15-minute slot, to its open or to its closed part as the schedule
stood at that pass. The service gives totals since a time, never per 15 minutes, so the
day's first pass keeps what came before it as the day's baseline (`QueueBaseline`), whole,
in no slot: the queue's service level is the day's (baseline and open parts), and its day
per 15 minutes starts at that pass. Slots and baseline are kept in the database and add up
to the counters last pulled, so a restart goes on from them: the day so far stays where it
was and nothing is counted twice.
"""

import asyncio
import logging
import statistics
import time
from datetime import UTC, datetime, timedelta

from channels.db import database_sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from dashboard.live.state import slot_of
from dashboard.shared.aio import cache_work, pause
from dashboard.shared.cache_keys import QUEUE_SL_SLOTS_KEY
from dashboard.shared.charts import week_before, zone
from dashboard.shared.today import start_of_today
from dashboard.upstream import contract as c
from dashboard.upstream import inbound as up
from dashboard.upstream.errors import NotOffered

from .handled import handled, without
from .models import COUNTERS, QueueBaseline, QueueSlot, add_grown
from .ring import Rings
from .words import hours_text

log = logging.getLogger("dashboard.inbound.board")
BOARD_KEY = "inbound:board"
# Events redraw the board at most this often: at 200 events a second nearly every one moves
# a queue or a ring group's agent, and each redraw renders every inbound page.
REDRAW_GAP_S = 0.5
CLOSED_CALLS_FOR_S = 120  # a call that reached a closed queue is shown and alerted this long


def service_level(within: int, answered: int, abandoned: int, short: int) -> float | None:
    """Answered within the target ÷ (answered + abandoned − abandoned under 5 s), in %."""
    counted = answered + abandoned - short
    return round(100 * within / counted, 1) if counted > 0 else None


def floor_service_level(rows: list[dict]) -> float | None:
    """The queues' own service levels, weighted by the calls each was offered (open)."""
    weighted = [(r["sl_pct"], r["sl_offered"]) for r in rows if r["sl_pct"] is not None]
    total = sum(n for _, n in weighted)
    return round(sum(sl * n for sl, n in weighted) / total, 1) if total else None


def floor_figures(board: dict) -> dict:
    """What the live view and the wallboards show of the inbound side (the live feed's
    figures): the floor's service level, each queue's plan and hours, the voicemail tile
    (its oldest message's age in whole minutes, so it changes once a minute)."""
    voicemail = board["voicemail"]
    return {
        "floor_sl_pct": board["floor_sl_pct"],
        "queues": {
            r["id"]: {
                "name": r["name"],
                "offered": r["sl_offered"],
                "target_s": r["target_s"],
                "goal_pct": r["goal_pct"],
                "sl_pct": r["sl_pct"],
                "meets_goal": r["meets_goal"],
                "open": r["open"],
                "hours": hours_text(r),
                "closed_calls": r["closed_calls"],
            }
            for r in board["queues"]
        },
        "voicemail": None
        if voicemail is None
        else {
            "waiting": len(voicemail["messages"]),
            "oldest_min": None if voicemail["oldest_s"] is None else voicemail["oldest_s"] // 60,
        },
    }


def stored_day(day: datetime, until: datetime | None = None) -> dict:
    """The day's baselines and slots (from `day`, before `until`) as the database keeps
    them, in `Day`'s shape; each queue's counters as last pulled are what they add up to."""
    data = {"day": day.isoformat(), "last": {}, "slots": {}, "closed_calls": {}, "base": {}}
    bases = QueueBaseline.objects.filter(day__gte=day)
    for row in bases.filter(day__lt=until) if until else bases:
        counters = [getattr(row, k) for k in COUNTERS]
        data["base"][row.queue_id] = {"at": row.read_at.isoformat(), "counters": counters}
        data["last"][row.queue_id] = counters
    rows = QueueSlot.objects.filter(start__gte=day)
    for row in rows.filter(start__lt=until) if until else rows:
        counters = [getattr(row, k) for k in COUNTERS]
        slots = data["slots"].setdefault(row.queue_id, {})
        slot = slots.setdefault(row.start.isoformat(), {"open": [0] * 5, "closed": [0] * 5})
        slot["open" if row.open else "closed"] = counters
        last = data["last"].get(row.queue_id, [0] * len(COUNTERS))
        data["last"][row.queue_id] = [a + b for a, b in zip(last, counters, strict=True)]
    return data


def slot_levels(slots: dict) -> dict[str, float]:
    """The floor's service level per slot start: the queues' own levels over their open
    parts, weighted by the calls each was offered while open (as `floor_service_level`)."""
    parts: dict[str, list] = {}
    for by_start in slots.values():
        for start, slot in by_start.items():
            sl = service_level(*_sl_args(slot["open"]))
            if sl is not None:
                parts.setdefault(start, []).append({"sl_pct": sl, "sl_offered": slot["open"][0]})
    levels = {start: floor_service_level(rows) for start, rows in parts.items()}
    return {start: sl for start, sl in levels.items() if sl is not None}


def chart_levels(day: datetime, slots: dict, since: datetime | None = None) -> dict:
    """Today's per-slot floor service level and the same weekday last week's (stored);
    `since`: the slots start then, the calls before it being in no slot."""
    week_from, week_to = week_before(day.astimezone(zone()).date())
    before = stored_day(week_from, week_to)["slots"]
    return {"today": slot_levels(slots), "last_week": slot_levels(before), "since": since}


def store_grown(grown: list[tuple], based: list[tuple]):
    """Write one pass's growth (`Day.grown`) and first reads (`Day.based`) at once: all of
    it or, failing, none. A baseline already written (by another bridge) stays."""
    with transaction.atomic():
        for queue_id, day, read_at, counters in based:
            QueueBaseline.objects.get_or_create(
                queue_id=queue_id,
                day=day,
                defaults={"read_at": read_at, **dict(zip(COUNTERS, counters, strict=True))},
            )
        for queue_id, start, is_open, counters in grown:
            add_grown(queue_id, start, is_open, dict(zip(COUNTERS, counters, strict=True)))


class Day:
    """Each queue's counters as last pulled, its baseline (the counters at its day's first
    read) and its 15-minute slots, open and closed parts; `grown` and `based` are what this
    pass added, for the database."""

    def __init__(self, stored: dict | None, day: datetime):
        fresh = not stored or stored.get("day") != day.isoformat()
        self.day = day
        self.data = {
            "day": day.isoformat(),
            "last": {},
            "slots": {},
            "closed_calls": {},
            "base": {},
        }
        if not fresh:
            self.data.update(stored)
        self.grown: list[tuple] = []  # (queue id, slot start, open, counters grown)
        self.based: list[tuple] = []  # (queue id, day, read at, counters)

    def add(self, figures: up.QueueFigures, is_open: bool, now: datetime) -> int:
        """What grew since the last pass, into the current slot; the calls offered. The
        day's first read after its first slot is the baseline, in no slot."""
        seen = [getattr(figures, k) for k in COUNTERS]
        if figures.queue_id not in self.data["last"]:
            whole = slot_of(now) > self.day  # what came before has no slot of its own
            base, at = (seen, now) if whole else ([0] * len(COUNTERS), self.day)
            self.data["base"][figures.queue_id] = {"at": at.isoformat(), "counters": base}
            self.data["last"][figures.queue_id] = base
            self.based.append((figures.queue_id, self.day, at, base))
        before = self.data["last"][figures.queue_id]
        self.data["last"][figures.queue_id] = seen
        grown = [max(0, a - b) for a, b in zip(seen, before, strict=True)]
        if not any(grown):
            return 0
        start = slot_of(now)
        slots = self.data["slots"].setdefault(figures.queue_id, {})
        slot = slots.setdefault(start.isoformat(), {"open": [0] * 5, "closed": [0] * 5})
        part = slot["open" if is_open else "closed"]
        slot["open" if is_open else "closed"] = [a + b for a, b in zip(part, grown, strict=True)]
        self.grown.append((figures.queue_id, start, is_open, grown))
        if not is_open and grown[0]:
            self.data["closed_calls"][figures.queue_id] = now.timestamp()
        return grown[0]

    def slots(self, queue_id: str) -> list[dict]:
        rows = []
        for start, parts in sorted(self.data["slots"].get(queue_id, {}).items()):
            both = [a + b for a, b in zip(parts["open"], parts["closed"], strict=True)]
            offered, answered, _, abandoned, short = both
            rows.append(
                {
                    "start": datetime.fromisoformat(start),
                    "offered": offered,
                    "answered": answered,
                    "abandoned": abandoned,
                    "short_abandoned": short,
                    "closed_offered": parts["closed"][0],
                    "sl_pct": service_level(*_sl_args(parts["open"])),
                }
            )
        return rows

    def before(self, queue_id: str) -> dict | None:
        """The baseline as a row of the day (None when nothing came before the first read)."""
        base = self.data["base"].get(queue_id)
        if not base or not any(base["counters"]):
            return None
        offered, answered, _, abandoned, short = base["counters"]
        return {
            "until": datetime.fromisoformat(base["at"]),
            "offered": offered,
            "answered": answered,
            "abandoned": abandoned,
            "short_abandoned": short,
            "sl_pct": service_level(*_sl_args(base["counters"])),
        }

    def slots_since(self) -> datetime | None:
        """When the day per 15 minutes starts, where calls came before it (the earliest
        first read with something before it); None for a whole day."""
        times = [self.before(q)["until"] for q in self.data["base"] if self.before(q)]
        return min(times) if times else None

    def open_totals(self, queue_id: str) -> list[int]:
        """The day's counters for its service level: the baseline (counted whole: the
        service says nothing of its closed minutes) and the slots' open parts."""
        totals = self.data["base"].get(queue_id, {}).get("counters", [0] * 5)
        for parts in self.data["slots"].get(queue_id, {}).values():
            totals = [a + b for a, b in zip(totals, parts["open"], strict=True)]
        return totals

    def closed_calls_at(self, queue_id: str) -> float:
        return self.data["closed_calls"].get(queue_id, 0.0)


def _sl_args(counters: list[int]) -> tuple:
    offered, answered, within, abandoned, short = counters
    return within, answered, abandoned, short


def _latest(pulled: int, live: int | None) -> int:
    """A count of the day: the last pass's, or the queue.stats event's since when it is
    ahead (both only grow during a day)."""
    return max(pulled, live or 0)


# What a queue's row holds that the queues list does not show: its freshness ("Last
# change") moves only with what the list shows.
NOT_LISTED = ("group_name", "schedule_name", "to_voicemail", "sl_offered")


def queue_row(queue: up.InboundQueue, figures, schedule, live, available, day: Day, now) -> dict:
    """One queue's row as the pages show it, with `available`, its ring group's agents
    available (ring.py keeps the count, and the members)."""
    is_open = schedule.open_now if schedule else True
    sl_counters = day.open_totals(queue.id)
    sl = service_level(*_sl_args(sl_counters))
    waiting = live.waiting if live else 0
    today = live if live and live.at >= datetime.fromisoformat(day.data["day"]) else None
    closed_calls = not is_open and (
        waiting > 0 or now.timestamp() - day.closed_calls_at(queue.id) < CLOSED_CALLS_FOR_S
    )
    return {
        "id": queue.id,
        "name": queue.name,
        "target_s": queue.target_s,
        "goal_pct": queue.goal_pct,
        "group_name": queue.group_name,
        "open": is_open,
        "opens_at": schedule.next_change_at if schedule and not is_open else None,
        "holiday": schedule.holiday if schedule else None,
        "schedule_name": schedule.name if schedule else "",
        "waiting": waiting,
        "longest_wait_s": max(live.longest_wait_s if live else 0, figures.longest_wait_s),
        "ring_available": available,
        "ring_size": len(queue.agent_ids),
        "offered": _latest(figures.offered, today and today.offered),
        "answered": _latest(figures.answered, today and today.answered),
        "abandoned": _latest(figures.abandoned, today and today.abandoned)
        - figures.short_abandoned,
        "short_abandoned": figures.short_abandoned,
        "average_wait_s": figures.average_wait_s,
        "to_voicemail": figures.to_voicemail,
        "sl_pct": sl,
        "sl_offered": sl_counters[0],
        "meets_goal": "none" if sl is None else ("yes" if sl >= queue.goal_pct else "no"),
        "closed_calls": closed_calls,
    }


def message_row(m: up.Voicemail, names: dict, now: datetime) -> dict:
    age = int((now - m.received_at).total_seconds()) if m.received_at else 0
    return {
        "id": m.id,
        "queue": names.get(m.queue_id, m.queue_id),
        "caller": m.caller_name,
        "phone": m.phone,
        "received_at": m.received_at,
        "age_s": max(0, age),
        "duration_s": m.duration_s,
        "transcript": m.transcript,
        "handled_by": m.handled_by,
        "handled_at": m.handled_at,
    }


def voicemail_part(messages: list[up.Voicemail], names: dict, now: datetime) -> dict:
    waiting = [message_row(m, names, now) for m in messages if not m.handled]
    waiting.sort(key=lambda r: r["received_at"] or now)
    handled = [m for m in messages if m.handled and m.handled_at and m.received_at]
    handled = [m for m in handled if m.handled_at >= start_of_today()]
    times = [(m.handled_at - m.received_at).total_seconds() for m in handled]
    return {
        "messages": waiting,
        "oldest_s": waiting[0]["age_s"] if waiting else None,
        "handled_today": len(handled),
        "median_handle_s": int(statistics.median(times)) if times else None,
    }


class InboundBoard:
    def __init__(self, rest, state, on_board=None, on_figures=None):
        self.rest = rest
        self.state = state  # the live state: queues' waiting callers, agents' statuses
        self.on_board = on_board  # called (in a thread) with the board after each pass
        self.on_figures = on_figures  # called with {"inbound": floor_figures} (the live feed)
        self.told: dict[str, str] = {}  # group -> what was last logged about it
        self.absent: set[str] = set()  # the groups the service does not offer
        self.woken = asyncio.Event()
        self.noticed = False  # a voicemail event came: read the service at once
        self.last: tuple | None = None  # the last pass's reads, for `compose`
        self.drawn_at = 0.0  # when events last redrew the board
        self.rings = Rings()  # the ring groups' members, for the queue pages
        self.shown: tuple | None = None  # what the queues list last showed, and since when
        self.changed_at: datetime | None = None
        self.closed_calls: dict[str, float] = {}  # queue id -> when a call last reached it closed

    def notice(self, event):
        """A voicemail event from the bridge: read the service again now, not at the next pass."""
        self.noticed = True
        self.woken.set()

    # The bridge's sink: events that move a queue's row or its ring group's agents (a
    # member's name or status) redraw the board from the last pass, without reading the
    # service again.
    def event(self, event):
        body = event.body
        if isinstance(body, c.QueueStats) or (
            isinstance(body, c.AgentChanged) and self.rings.changed(body.agent)
        ):
            self.woken.set()

    def snapshot(self, agents, calls):
        self.rings.whole = True  # members may have left the floor
        self.woken.set()

    def status(self, state, reason=""):
        pass

    async def run(self, stop: asyncio.Event):
        due = 0.0  # when the next pass reads the service
        while not stop.is_set():
            self.woken.clear()
            try:
                if self.noticed or time.monotonic() >= due:
                    self.noticed = False
                    due = time.monotonic() + settings.INBOUND_POLL_S
                    await self.refresh()
                elif self.last is not None:
                    await pause(stop, self.drawn_at + REDRAW_GAP_S - time.monotonic())
                    self.woken.clear()  # what came meanwhile is in this redraw
                    await self.compose(*self.last)
                    self.drawn_at = time.monotonic()
            except Exception:  # never let one pass end the board
                log.exception("inbound pass failed; the next one tries again")
            waits = {asyncio.ensure_future(self.woken.wait())}
            waits.add(asyncio.ensure_future(pause(stop, max(0.0, due - time.monotonic()))))
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for wait in waits:
                wait.cancel()

    async def pull(self, group: str, work):
        """(data, note): the data, or None and why (a group the service lacks, or an error)."""
        try:
            data = await work
        except NotOffered as absent:
            self.absent.add(group)
            note = (
                f"This service does not offer {absent.feature} "
                f"({absent.endpoint} answered {absent.status})."
            )
            self.tell(group, note, logging.INFO)
            return None, note
        except Exception as exc:
            note = f"Could not read the {group} from the service: {exc or type(exc).__name__}"
            self.tell(group, note, logging.WARNING)
            return None, note
        self.absent.discard(group)
        if self.told.pop(group, None):
            log.info("inbound %s read again", group)
        return data, None

    def tell(self, group: str, note: str, level: int):
        if self.told.get(group) != note:
            log.log(level, "inbound %s: %s", group, note)
        self.told[group] = note

    async def refresh(self):
        since = await database_sync_to_async(start_of_today)()
        now = datetime.now(UTC)
        (queues, q_note), (schedules, s_note), (messages, v_note) = await asyncio.gather(
            self.pull("queues", up.queues(self.rest)),
            self.pull("schedules", up.schedules(self.rest)),
            # Since yesterday's start: a message left last night and handled this morning
            # is one of today's handled.
            self.pull("voicemail", up.voicemail(self.rest, since - timedelta(days=1))),
        )
        queues = queues or []
        pulled = await asyncio.gather(
            *(self.pull("queues", up.figures(self.rest, q.id, since)) for q in queues)
        )
        by_schedule = {s.id: s for s in schedules or []}
        day = Day(await database_sync_to_async(stored_day)(since), since)
        day.data["closed_calls"] = self.closed_calls
        for queue, (figures, _) in zip(queues, pulled, strict=True):
            if figures is not None:
                schedule = by_schedule.get(queue.schedule_id or "")
                day.add(figures, schedule.open_now if schedule else True, now)
        if day.grown or day.based:
            await database_sync_to_async(store_grown)(day.grown, day.based)
        if queues:
            levels = await database_sync_to_async(chart_levels)(
                since, day.data["slots"], day.slots_since()
            )
            await cache_work(cache.set, QUEUE_SL_SLOTS_KEY, levels, None)
        elif "queues" in self.absent:  # the chart as without queues
            await cache_work(cache.set, QUEUE_SL_SLOTS_KEY, None, None)
        self.last = (queues, pulled, by_schedule, messages, (q_note, s_note, v_note), day)
        await self.compose(*self.last)

    async def compose(self, queues, pulled, by_schedule, messages, notes, day):
        """The board from one pass's reads and the live state as it stands: kept for the
        pages, pushed, and its figures handed to the live feed."""
        now = datetime.now(UTC)
        q_note, s_note, v_note = notes
        await self.rings.write(queues, self.state.agents)
        rows = []
        for queue, (figures, note) in zip(queues, pulled, strict=True):
            if figures is None:
                q_note = q_note or note
                continue
            schedule = by_schedule.get(queue.schedule_id or "")
            live = self.state.queues.get(queue.id)
            available = self.rings.available.get(queue.id, 0)
            rows.append(queue_row(queue, figures, schedule, live, available, day, now))
        names = {q.id: q.name for q in queues}
        listed = [{k: v for k, v in r.items() if k not in NOT_LISTED} for r in rows]
        shown = (listed, q_note, s_note)
        if shown != self.shown:  # the queues list's freshness: when it last changed
            self.shown, self.changed_at = shown, now
        voicemail = None
        if messages is not None:  # less what was marked handled since this pass's read
            voicemail = voicemail_part(messages, names, now)
            gone = await cache_work(handled, [m["id"] for m in voicemail["messages"]])
            voicemail = without(voicemail, gone)
        board = {
            "at": now,
            "changed_at": self.changed_at,
            "queues": rows,
            "floor_sl_pct": floor_service_level(rows),
            "slots": {q.id: day.slots(q.id) for q in queues},
            "before": {q.id: day.before(q.id) for q in queues},
            "voicemail": voicemail,
            "notes": {"queues": q_note, "schedules": s_note, "voicemail": v_note},
        }
        await cache_work(cache.set, BOARD_KEY, board, None)
        if self.on_figures and "queues" in self.absent:  # the live view as without queues
            self.on_figures({"inbound": None})
        elif self.on_figures and q_note is None:  # a failed read keeps the last figures
            self.on_figures({"inbound": floor_figures(board)})
        if self.on_board:
            await database_sync_to_async(self.on_board)(board)
