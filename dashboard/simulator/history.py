"""The organisation's past: the 35 days before the simulator started and today up to then.

Each day is made in bulk, on first use, from the seed, the organisation and the date (one
`random.Random` per day), so the same seed always gives the same past, and paging through
it never replays events; the paged endpoints make the days a request needs an agent at a
time (`prepare`), so the live floor's feed keeps its pace meanwhile. Agents work shifts:
weekday mornings are busy, afternoons lighter, nights and weekends quiet; every shift,
call and follow-up of a day ends well before its midnight, so a window reads only the days
it overlaps. The day the simulator started stops, for each agent, where the live model
takes over (that agent's first live state's `since`); from then on the live
model's own calls, states and records are the history. Every call has the follow-ups the
live model gives one (QA, compliance, coaching, appointments) with the same odds.
"""

import asyncio
import base64
import bisect
import hashlib
import itertools
import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from operator import itemgetter
from zoneinfo import ZoneInfo

from . import shapes
from .clock import iso
from .model import ALERT_KINDS, CONNECTED_OUTCOMES, RULES

KEEP_DAYS = 35
DAY_S = 86_400
QUIET_FROM_H = 20  # shifts end by 18:30 and the AI dialer's calls by 18:05


@dataclass
class DayLog:
    """One day's past, each list in time order. Calls are REST rows (contract 5); states are
    (since, until, agent id, status, call id); records are (at, kind, row)."""

    calls: list = field(default_factory=list)
    states: list = field(default_factory=list)
    records: list = field(default_factory=list)
    by_agent: dict | None = None  # agent id -> its calls, made on first use
    by_id: dict | None = None  # call id -> its row, made on first use

    def agents_calls(self, agent_id: str) -> list:
        if self.by_agent is None:
            self.by_agent = {}
            for row in self.calls:
                self.by_agent.setdefault(row["agent_id"], []).append(row)
        return self.by_agent.get(agent_id, [])


def _uuid(bits: int, version: int) -> str:
    """`str(uuid.UUID(int=bits, version=version))`, without the object: a day makes 100,000."""
    bits = (bits & ~(0xC000 << 48) | 0x8000 << 48) & ~(0xF000 << 64) | version << 76
    h = f"{bits:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _recording_id(call_id: str) -> str:
    """`str(uuid.uuid5(uuid.NAMESPACE_URL, f"rec:{call_id}"))`, as the live model's."""
    digest = hashlib.sha1(uuid.NAMESPACE_URL.bytes + f"rec:{call_id}".encode()).digest()
    return _uuid(int.from_bytes(digest[:16]), 5)


class _Weighted:
    """A weighted draw from a fixed list, its cumulative weights made once."""

    def __init__(self, weighted):
        self.values = [v for v, _ in weighted]
        self.cum = list(itertools.accumulate(w for _, w in weighted))

    def pick(self, rng):
        return rng.choices(self.values, cum_weights=self.cum)[0]


OUTCOMES = _Weighted(CONNECTED_OUTCOMES)
SEVERITIES = _Weighted([("info", 50), ("warning", 35), ("critical", 15)])


def _mean_wait_s(hour: float, weekend: bool) -> float:
    """How long an agent waits between calls: short on busy weekday mornings."""
    if weekend:
        return 900.0
    if 9 <= hour < 12:
        return 240.0
    if 12 <= hour < 17:
        return 600.0
    return 900.0


async def _stepped(steps):
    """Run a generator to its end, the event loop free at each of its steps."""
    for _ in steps:
        await asyncio.sleep(0)


class History:
    """The past of one `ContactCentre` (model.py), read by the paged endpoints."""

    def __init__(
        self,
        centre,
        seed: int,
        zone: str,
        start: float,
        keep_days: int = KEEP_DAYS,
        shape: shapes.Shape = shapes.NONE,
    ):
        self.centre = centre
        self.shape = shape  # a known shape (shapes.py), for tests
        self.keep_days = keep_days  # 0: no past at all, not even today's before the start
        self.seed = seed
        self.tz = ZoneInfo(zone)
        self.start = start
        self.start_day = self.day_of(start)
        self.days: dict[date, DayLog] = {}
        self.making: dict[date, asyncio.Future] = {}  # days being made by `prepare`
        self.maker: asyncio.Lock | None = None  # one day made at a time (`prepare`)
        self.windows: dict[tuple, tuple] = {}  # query window -> (kept until, its rows)

    # ---- Days ------------------------------------------------------------------------------
    def day_of(self, ts: float) -> date:
        return datetime.fromtimestamp(ts, self.tz).date()

    def day_start(self, day: date) -> float:
        return datetime.combine(day, time.min, self.tz).timestamp()

    def day(self, day: date) -> DayLog:
        """The day's past, made on first use (empty outside the kept days and after the start)."""
        if day not in self.days:
            for _ in self._make(day):
                pass
        return self.days[day]

    def dates(self, since: float, until: float, evenings: bool = True):
        """The days [since, until) overlaps (everything of a day happens within it);
        without `evenings`, not a day it meets only after `QUIET_FROM_H` (no call starts
        then, nor any follow-up: only agents' offline states)."""
        day = self.day_of(since)
        while self.day_start(day) < until:
            if evenings or since < self.day_start(day) + QUIET_FROM_H * 3600:
                yield day
            day += timedelta(days=1)

    def days_between(self, since: float, until: float, evenings: bool = True):
        for day in self.dates(since, until, evenings):
            yield self.day(day)

    async def prepare(self, since: float, until: float, evenings: bool = True):
        """Make the days a read of [since, until) needs an agent at a time, the event loop
        (the live floor's feed) free between two: a day of 1,000 agents takes seconds (in
        a thread it would make the loop wait for the interpreter's lock at every socket
        call). Reads of the same day wait for the one making it; days asked for at once
        are made one after the other: made side by side, each took a turn of the loop per
        agent, and the live floor's events (one a turn) fell seconds behind their schedule,
        then went out in a burst."""
        for day in self.dates(since, until, evenings):
            if day not in self.days:
                if day not in self.making:
                    self.making[day] = asyncio.ensure_future(self._make_in_turn(day))
                await asyncio.shield(self.making[day])
                self.making.pop(day, None)

    async def _make_in_turn(self, day: date):
        self.maker = self.maker or asyncio.Lock()
        async with self.maker:
            if day not in self.days:  # made meanwhile by a read that could not wait (`day`)
                await _stepped(self._make(day))

    def _make(self, day: date):
        """Make the day into `days`, yielding after each agent's (empty outside the kept
        days and after the start)."""
        first = self.start_day - timedelta(days=self.keep_days)
        if not (self.keep_days and first <= day <= self.start_day):
            self.days[day] = DayLog()
            return
        c = self.centre
        rng = random.Random(shapes.day_seed(self.shape, f"history:{self.seed}:{c.org_id}", day))
        # Ids from the date, even when the draws repeat each week (steady): never twice.
        ids = random.Random(f"ids:{self.seed}:{c.org_id}:{day}") if self.shape.steady else rng
        d0, d1 = self.day_start(day), self.day_start(day + timedelta(days=1))
        weekend = day.weekday() >= 5
        today = day == self.start_day
        log = DayLog()
        campaigns = [x for x in c.campaigns.values() if x.dial_mode != "ai"]
        ai_campaign = next((x for x in c.campaigns.values() if x.dial_mode == "ai"), None)

        def uid():
            return _uuid(ids.getrandbits(128), 4)

        def state(since, until, agent_id, status, call_id=None):
            if until > since:
                log.states.append((since, until, agent_id, status, call_id))

        def call(started, ended, agent_id, campaign, direction, ai):
            row = {
                "id": uid(),
                "agent_id": agent_id,
                "campaign_id": campaign.id if campaign else None,
                "direction": direction,
                "state": "ended",
                "ai_handled": ai,
                "started_at": iso(started),
                "ended_at": iso(ended),
                "outcome": OUTCOMES.pick(rng),
                "duration_s": max(1, int(ended - started)),
                "recording_id": None,
            }
            row["recording_id"] = _recording_id(row["id"])
            log.calls.append(row)
            self._follow_up(rng, uid, row, ended, log)
            return row

        for agent in c.agents.values():
            yield
            if self.shape.steady:  # each its own draws: one stopping early changes no other
                rng = random.Random(shapes.day_seed(self.shape, f"{c.org_id}:{agent.id}", day))
            stop = min(d1, agent.since) if today else d1
            t = d0
            if rng.random() < (0.25 if weekend else 0.9):
                begin = d0 + 3600 * (rng.uniform(10, 12) if weekend else rng.uniform(7.5, 9.5))
                end = begin + 3600 * (rng.uniform(4, 6) if weekend else rng.uniform(7.5, 9))
                begin, end = min(begin, stop), min(end, stop)
                state(d0, begin, agent.id, "offline")
                t = begin
                while t < end:
                    hour = (t - d0) / 3600
                    mean = _mean_wait_s(hour, weekend) * shapes.wait_factor(self.shape, today, hour)
                    wait = rng.expovariate(1 / mean)
                    if rng.random() < 0.06:
                        pause = rng.uniform(120, 900)
                        state(t, min(t + pause, end), agent.id, "paused")
                        t = min(t + pause, end)
                        continue
                    ring, talk, wrap = rng.uniform(2, 12), rng.uniform(60, 360), rng.uniform(10, 90)
                    inbound = rng.random() < 0.3
                    campaign = None if inbound else rng.choice(campaigns)
                    answered = t + wait
                    if answered + ring + talk + wrap >= end:
                        state(t, end, agent.id, "available")
                        t = end
                        break
                    state(t, answered, agent.id, "available")
                    ended = answered + ring + talk
                    row = call(
                        answered,
                        ended,
                        agent.id,
                        campaign,
                        "inbound" if inbound else "outbound",
                        False,
                    )
                    state(answered, answered + ring, agent.id, "ringing", row["id"])
                    state(answered + ring, ended, agent.id, "on_call", row["id"])
                    state(ended, ended + wrap, agent.id, "wrap_up", row["id"])
                    t = ended + wrap
            state(t, stop, agent.id, "offline")
        if ai_campaign is not None:  # the AI dialer's own calls follow the floor's load
            if self.shape.steady:
                rng = random.Random(shapes.day_seed(self.shape, f"{c.org_id}:ai", day))
            slot = 900
            for s in range(int(d0), int(d1), slot):
                hour = (s - d0) / 3600
                busy = 0 if weekend or not 8 <= hour < 18 else (3 if 9 <= hour < 12 else 1)
                for _ in range(rng.randint(0, busy)):
                    started = s + rng.uniform(0, slot)
                    ended = started + rng.uniform(30, 180)
                    if not today or ended < self.start:
                        call(started, ended, None, ai_campaign, "outbound", True)
        log.calls.sort(key=lambda row: (row["started_at"], row["id"]))
        log.states.sort(key=itemgetter(0, 2))
        log.records.sort(key=lambda r: r[0])
        self.days[day] = log

    def _follow_up(self, rng, uid, call: dict, ended: float, log: DayLog):
        """What follows a finished call, as the live model's `_follow_up` makes it."""
        c = self.centre
        base = {"call_id": call["id"], "agent_id": call["agent_id"]}
        if call["outcome"] == "appointment_booked":
            at = ended + rng.uniform(1, 4)
            row = {
                "appointment_id": uid(),
                **base,
                "campaign_id": call["campaign_id"],
                "starts_at": iso(at + rng.uniform(DAY_S, 7 * DAY_S)),
                "booked_at": iso(at),
            }
            log.records.append((at, "appointment", row))
        if call["agent_id"] and rng.random() < 0.4:
            template = rng.choice(c.templates)
            score = rng.randint(int(template["max_score"] * 0.45), template["max_score"])
            at = ended + rng.uniform(5, 20)
            row = {
                "id": uid(),
                **base,
                "template_id": template["id"],
                "score": score,
                "max_score": template["max_score"],
                "passed": score >= 0.7 * template["max_score"],
                "scored_at": iso(at),
            }
            log.records.append((at, "scorecard", row))
        if rng.random() < 0.5:
            at = ended + rng.uniform(3, 10)
            row = {
                "id": uid(),
                **base,
                "rule": rng.choice(RULES),
                "passed": rng.random() > 0.12,
                "checked_at": iso(at),
            }
            log.records.append((at, "check", row))
        if call["agent_id"] and rng.random() < 0.08:
            at = ended + rng.uniform(5, 15)
            kind = rng.choice(ALERT_KINDS)
            row = {
                "alert_id": uid(),
                **base,
                "kind": kind,
                "severity": SEVERITIES.pick(rng),
                "message": f"{kind.replace('_', ' ').capitalize()} detected on a recent call",
                "created_at": iso(at),
            }
            log.records.append((at, "alert", row))

    # ---- Reads (the past, then what the live model did since the start) ----------------------
    def calls(self, since: float, until: float, agent_id: str | None = None) -> list[dict]:
        """Calls started in [since, until) (one agent's, or all), oldest first (ties by id)."""
        lo, hi = iso(since), iso(until)
        rows = [
            row
            for day in self.days_between(since, until, evenings=False)
            for row in (day.calls if agent_id is None else day.agents_calls(agent_id))
            if lo <= row["started_at"] < hi
        ]
        live = [x.rest() for x in self.centre.history.values() if agent_id in (None, x.agent_id)]
        rows += [row for row in live if lo <= row["started_at"] < hi]
        rows.sort(key=lambda row: (row["started_at"], row["id"]))
        return rows

    def find(self, call_id: str) -> dict | None:
        """A past call by its id, among the days made so far."""
        for day in self.days.values():
            if day.by_id is None:
                day.by_id = {row["id"]: row for row in day.calls}
            if call_id in day.by_id:
                return day.by_id[call_id]
        return None

    def states(self, since: float, until: float) -> list[tuple]:
        """Every state an agent held in [since, until), by start; the current ones end None."""
        rows = [
            s
            for day in self.days_between(since, until)
            for s in day.states
            if s[1] > since and s[0] < until
        ]
        rows += [s for s in self.centre.status_log if s[1] > since and s[0] < until]
        rows += [
            (a.since, None, a.id, a.status, a.call_id)
            for a in self.centre.agents.values()
            if a.since < until
        ]
        rows.sort(key=itemgetter(0, 2))
        return rows

    def records(self, kind: str, since: float, until: float, stamp: str) -> list[dict]:
        """The follow-up rows of one kind stamped in [since, until), oldest first."""
        lo, hi = iso(since), iso(until)
        rows = [
            row
            for day in self.days_between(since, until, evenings=False)
            for at, k, row in day.records
            if k == kind and lo <= row[stamp] < hi
        ]
        live = {
            "scorecard": self.centre.scorecards,
            "check": self.centre.checks,
            "alert": self.centre.alerts,
            "appointment": self.centre.appointments,
        }[kind]
        rows += [row for row in live if lo <= row[stamp] < hi]
        rows.sort(key=lambda row: row[stamp])
        return rows


def state_row(s: tuple) -> dict:
    """A state as GET /agent-status/history answers it (camelCase, like its group)."""
    since, until, agent_id, status, call_id = s
    return {
        "agentId": agent_id,
        "status": status,
        "since": iso(since),
        "until": iso(until) if until is not None else None,
        "callId": call_id,
    }


def parse_time(value: str | None) -> float | None:
    """An ISO 8601 query parameter as a timestamp; None when absent; ValueError when bad."""
    if not value:
        return None
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError("needs a time zone")
    return moment.astimezone(UTC).timestamp()


# ---- Paging (contract 6.3) ----------------------------------------------------------------
MAX_LIMIT = 1000
WINDOW_KEPT_S = 120.0
STATES_PAGE = 1000


def cursor_of(key: tuple) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode()


def after_cursor(cursor: str | None) -> tuple | None:
    """The key a cursor stands for; ValueError for one this simulator did not give."""
    if not cursor:
        return None
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, TypeError):
        raise ValueError("cursor is not one this service gave") from None
    if not isinstance(key, list) or len(key) != 2 or not all(isinstance(x, str) for x in key):
        raise ValueError("cursor is not one this service gave")
    return tuple(key)


def page(rows: list, key, cursor: str | None, limit: int) -> tuple[list, str | None]:
    """The `limit` rows after the cursor's key (rows sorted by `key`), and the next cursor."""
    after = after_cursor(cursor)
    if after is not None:
        rows = rows[bisect.bisect_right(rows, after, key=key) :]
    out = rows[:limit]
    return out, (cursor_of(key(out[-1])) if len(rows) > limit else None)


def kept(past: History, name: str, since: float, until: float, now: float, make) -> list:
    """The rows of one query window, made once while a client pages through it, kept
    `WINDOW_KEPT_S` after its last page (a window that ends in the past only: one still
    open grows with the live floor)."""
    if until > now:
        return make()
    key = (name, since, until)
    found = past.windows.get(key)
    if found is None or found[0] < now:
        if len(past.windows) > 20:
            past.windows.clear()
        found = (0, make())
    past.windows[key] = (now + WINDOW_KEPT_S, found[1])
    return found[1]


def window(query: dict, now: float) -> tuple[float, float, int]:
    """since, until and limit of a paged request (ValueError with a sentence when bad)."""
    try:
        since = parse_time(query.get("since"))
        until = parse_time(query.get("until"))
    except ValueError:
        raise ValueError("since and until must be ISO 8601 times with a zone") from None
    limit = query.get("limit", str(MAX_LIMIT))
    if not limit.isdigit() or not 1 <= int(limit) <= MAX_LIMIT:
        raise ValueError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    since = now - KEEP_DAYS * DAY_S if since is None else since
    return since, now + 1 if until is None else until, int(limit)


def paged_calls(past: History, query: dict, now: float) -> dict:
    since, until, limit = window(query, now)
    rows = kept(past, "calls", since, until, now, lambda: past.calls(since, until))
    out, nxt = page(rows, lambda r: (r["started_at"], r["id"]), query.get("cursor"), limit)
    return {"data": out, "count": len(out), "next_cursor": nxt}


def paged_states(past: History, query: dict, now: float) -> dict:
    since, until, _ = window({**query, "limit": str(STATES_PAGE)}, now)
    rows = kept(past, "states", since, until, now, lambda: past.states(since, until))
    out, nxt = page(rows, lambda s: (iso(s[0]), s[2]), query.get("cursor"), STATES_PAGE)
    return {"data": [state_row(s) for s in out], "nextCursor": nxt}


RECORDS = {  # list -> (kind in the history, its time field, its id field)
    "scorecards": ("scorecard", "scored_at", "id"),
    "checks": ("check", "checked_at", "id"),
    "alerts": ("alert", "created_at", "alert_id"),
}


def paged_records(past: History, name: str, query: dict, now: float) -> dict:
    kind, stamp, ident = RECORDS[name]
    since, until, limit = window(query, now)
    rows = kept(past, name, since, until, now, lambda: past.records(kind, since, until, stamp))
    out, nxt = page(rows, lambda r: (r[stamp], r[ident]), query.get("cursor"), limit)
    return {"data": out, "count": len(out), "next_cursor": nxt}


def is_paged(query: dict) -> bool:
    return any(name in query for name in ("until", "cursor", "limit"))


# ---- The simulator's own figures of a day (what a test compares the dashboard with) ------
BUSY = ("ringing", "on_call", "wrap_up")


def day_figures(past: History, at: float) -> dict:
    """The day of `at` up to `at`, from the simulator's own history: the day figures and
    each agent's seconds in each state, by the formulas of the dashboard's metrics doc."""
    d0 = past.day_start(past.day_of(at))
    ended = [
        row
        for row in past.calls(d0 - DAY_S, at)
        if row["ended_at"] and iso(d0) <= row["ended_at"] < iso(at)
    ]
    handled = [row for row in ended if row["agent_id"] and not row["ai_handled"]]
    per_agent: dict[str, dict[str, float]] = {}
    busy = available = wrap = 0.0
    for since, until, agent_id, status, _ in past.states(d0, at):
        start, end = max(since, d0), min(at if until is None else until, at)
        spent = max(0.0, end - start)
        mine = per_agent.setdefault(agent_id, {})
        mine[status] = mine.get(status, 0.0) + spent
        if status in BUSY:
            busy += spent
        elif status == "available":
            available += spent
        if status == "wrap_up" and since >= d0:
            wrap += spent
    cards = past.records("scorecard", d0, at, "scored_at")
    talk = sum(row["duration_s"] for row in handled)
    return {
        "day_start": iso(d0),
        "at": iso(at),
        "completed": len(ended),
        "ai_completed": sum(row["ai_handled"] for row in ended),
        "handled": len(handled),
        "aht_s": round((talk + wrap) / len(handled)) if handled else None,
        "occupancy_pct": round(100 * busy / (busy + available), 1) if busy + available else None,
        "appointments": len(past.records("appointment", d0, at, "booked_at")),
        "qa_scored": len(cards),
        "qa_average_pct": round(
            sum(100 * r["score"] / r["max_score"] for r in cards) / len(cards), 1
        )
        if cards
        else None,
        "qa_pass_rate_pct": round(100 * sum(r["passed"] for r in cards) / len(cards), 1)
        if cards
        else None,
        "agents": {
            a: {s: round(v, 3) for s, v in states.items()} for a, states in per_agent.items()
        },
    }
