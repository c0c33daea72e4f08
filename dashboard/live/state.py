"""The live state of the floor: agents, active calls, queues and the KPIs derived from them.

Pure: no I/O and no clock of its own. Event times come from the events; the moment the
figures are asked for is passed in (`kpis(now)`), so states still under way count up to
it and the day follows the organisation's midnight even on a quiet floor. Every input
returns the `Changes` it made, which the publisher renders and fans out.

The day's counters survive restarts: the recorder hands back what the dashboard stored
(`restore`) and the calls the service lists for today (`fill`); each adds only what this
process did not count itself. KPI formulas and their windows: docs/metrics.md.
"""

from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime, time, timedelta, tzinfo

from dashboard.upstream import contract as c

from .tally import Agents, Tally, us

STATES = (*c.AGENT_STATUSES, "unknown")
BUSY_STATES = ("ringing", "on_call", "wrap_up")  # occupancy: time engaged with calls
OCCUPANCY_STATES = frozenset((*BUSY_STATES, "available"))  # the rest is left out
SLOT_S = 15 * 60  # intraday figures are kept per 15 minutes
SLOT = timedelta(seconds=SLOT_S)
CALL_COUNTERS = ("calls", "completed", "ai_completed", "handled")  # what the service can tell


@dataclass
class Changes:
    agents: set = field(default_factory=set)
    calls: set = field(default_factory=set)
    removed_calls: set = field(default_factory=set)
    queues: set = field(default_factory=set)
    kpis: bool = False
    board: bool = False  # the wallboard's own panels (campaigns, QA, alerts)
    full: bool = False  # everything may have changed: resend the whole view

    def merge(self, other: "Changes") -> "Changes":
        self.agents |= other.agents
        self.calls = (self.calls - other.removed_calls) | other.calls
        self.removed_calls = (self.removed_calls - other.calls) | other.removed_calls
        self.queues |= other.queues
        self.kpis |= other.kpis
        self.board |= other.board
        self.full |= other.full
        return self

    def __bool__(self):
        return bool(
            self.agents
            or self.calls
            or self.removed_calls
            or self.queues
            or self.kpis
            or self.board
            or self.full
        )


@dataclass
class Queue:
    id: str
    name: str
    waiting: int
    longest_wait_s: int
    agents_available: int
    at: datetime
    offered: int | None = None  # the queue's day so far, as its last queue.stats said
    answered: int | None = None
    abandoned: int | None = None


@dataclass
class Counts:
    """Counters of a day, or of one 15-minute slot of it."""

    calls: int = 0  # calls started
    completed: int = 0
    ai_completed: int = 0
    handled: int = 0  # calls ended that an agent handled
    handle_s: float = 0.0  # their talk time plus the agents' wrap-up after them
    inbound_answered: int = 0
    inbound_in_sl: int = 0
    busy_s: float = 0.0  # agent time ringing, on calls and in wrap-up
    available_s: float = 0.0  # agent time available

    def add(self, **amounts):
        for name, amount in amounts.items():
            setattr(self, name, getattr(self, name) + amount)
        return self

    def plus(self, other: "Counts", share: float = 1.0) -> "Counts":
        """A new Counts: these plus `share` of `other`'s."""
        return replace(self).add(**{f.name: share * getattr(other, f.name) for f in fields(self)})

    def minus(self, other: "Counts") -> dict:
        """What grew since `other`, by counter (unchanged ones left out)."""
        out = {}
        for f in fields(self):
            grown = getattr(self, f.name) - getattr(other, f.name)
            if grown:
                out[f.name] = grown
        return out


@dataclass
class Day:
    """One day in the organisation's zone: its totals (its 15-minute slots are the state's)."""

    date: object = None
    start: datetime | None = None
    end: datetime | None = None  # the next day's start
    totals: Counts = field(default_factory=Counts)


@dataclass
class Origin:
    """Where today's figures came from, for the panels that explain them."""

    live_since: datetime | None = None  # this process's first look at the floor today
    restored_slots: int = 0  # 15-minute slots the dashboard had stored before that
    filled_calls: int = 0  # calls the service listed that no stored slot had counted
    service_listed: int = 0  # calls in the service's last list for today
    service_partial_before: datetime | None = None  # the list was capped: older calls may miss


def slot_of(when: datetime) -> datetime:
    """Start of the 15 minutes `when` falls in (every zone's offset is a multiple of 15 min)."""
    epoch = int(when.timestamp())
    return datetime.fromtimestamp(epoch - epoch % SLOT_S, UTC)


def day_start(day, tz: tzinfo) -> datetime:
    """00:00 of the date `day` in the zone `tz` (a DST change never falls on midnight here)."""
    return datetime.combine(day, time.min, tz)


def same_time_last_week(now: datetime, tz: tzinfo) -> datetime:
    """The same wall-clock time on the same weekday a week ago (not 168 h: a DST change
    in between would shift it by an hour)."""
    local = now.astimezone(tz)
    return datetime.combine(local.date() - timedelta(days=7), local.time(), tz)


# ---- The formulas of the live figures (docs/metrics.md), used for the day and per slot ----
def service_level_pct(counts: Counts) -> float | None:
    if not counts.inbound_answered:
        return None
    return round(100 * counts.inbound_in_sl / counts.inbound_answered, 1)


def aht_s(counts: Counts) -> int | None:
    return round(counts.handle_s / counts.handled) if counts.handled else None


def occupancy_pct(counts: Counts) -> float | None:
    engaged = counts.busy_s + counts.available_s
    return round(100 * counts.busy_s / engaged, 1) if engaged else None


def ai_share_pct(counts: Counts) -> float | None:
    return round(100 * counts.ai_completed / counts.completed, 1) if counts.completed else None


def difference(today, then):
    """today − then, or None when either is unknown."""
    if today is None or then is None:
        return None
    return round(today - then, 1)


class LiveState:
    def __init__(self, tz: tzinfo, service_level_s: int = 20):
        self.tz = tz
        self.service_level_s = service_level_s
        self.agents: dict[str, c.Agent] = {}
        self.calls: dict[str, c.Call] = {}
        self.queues: dict[str, Queue] = {}
        self.day = Day()
        # Per 15 minutes, today's and yesterday's (the recorder adds what grew to FloorSlot).
        self.slots: dict[datetime, Counts] = {}
        # Today's per-slot counts that did not come from this process's events (stored, or
        # from the service's list): what the service's list is compared with.
        self.base: dict[datetime, Counts] = {}
        self.seen_started: set[str] = set()  # calls whose start this process counted today
        self.seen_ended: set[str] = set()
        self.origin = Origin()
        self.snapshots = 0  # loads of the service's truth: each may follow a gap in events
        self.last_event_at: datetime | None = None
        self.last_week: dict[datetime, Counts] = {}  # the same weekday last week, stored
        # Monitoring sessions open on live calls (call.monitor events), by call and session,
        # and when each was first heard of (its running time starts there).
        self.monitors: dict[str, dict[str, c.CallMonitor]] = {}
        self.monitor_started: dict[str, datetime] = {}
        self._last_week_sum: tuple = (None, None)  # (slot, sum of the slots before it)

    # ---- Inputs ------------------------------------------------------------------------------
    def load_snapshot(self, agents: list[c.Agent], calls: list[c.Call], now: datetime) -> Changes:
        """Replace agents and calls with the service's truth (queues have no REST row).
        States that ended while the events were not followed count up to the new state's
        start, as an event would have counted them."""
        self._roll_day(now)
        fresh = {a.agent_id: a for a in agents}
        followed_until = self.last_event_at or now  # the events stopped, at the latest, here
        for agent_id, before in self.agents.items():
            after = fresh.get(agent_id)
            if after is None or (after.status, after.since) != (before.status, before.since):
                self._left(before, min((after and after.since) or now, followed_until))
        self.agents = fresh
        self.calls = {x.call_id: x for x in calls}
        for call_id in [k for k in self.monitors if k not in self.calls]:
            self._drop_monitors(call_id)
        self.snapshots += 1
        self.origin.live_since = self.origin.live_since or now
        return Changes(full=True, kpis=True)

    def apply(self, event: c.Event) -> Changes:
        self._roll_day(event.emitted_at)
        self.last_event_at = event.emitted_at
        self.origin.live_since = self.origin.live_since or event.emitted_at
        body = event.body
        if isinstance(body, c.AgentChanged):
            changes = self._agent(body.agent, event.emitted_at)
        elif isinstance(body, c.CallStarted):
            changes = self._call_started(body.call, event.emitted_at)
        elif isinstance(body, c.CallUpdated):
            changes = self._call_updated(body)
        elif isinstance(body, c.CallEnded):
            changes = self._call_ended(body, event.emitted_at)
        elif isinstance(body, c.CallMonitor):
            changes = self._monitor(body, event.emitted_at)
        else:
            changes = self._queue(body, event.emitted_at)
        return changes

    def _agent(self, agent: c.Agent, at: datetime) -> Changes:
        before = self.agents.get(agent.agent_id)
        if before and before.status != agent.status:
            self._left(before, agent.since or at)
        self.agents[agent.agent_id] = agent
        return Changes(agents={agent.agent_id}, kpis=True)

    def _left(self, before: c.Agent, ended: datetime):
        """Count the time `before` spent in its state, split over the slots it spans."""
        if not before.since:
            return
        start = max(before.since, self.day.start)
        if before.status == "wrap_up" and before.since >= self.day.start:
            self._count(ended, handle_s=max(0.0, (ended - start).total_seconds()))
        if before.status in BUSY_STATES:
            self._count_span(start, ended, "busy_s")
        elif before.status == "available":
            self._count_span(start, ended, "available_s")

    def _call_started(self, call: c.Call, at: datetime) -> Changes:
        self.calls[call.call_id] = call
        self.seen_started.add(call.call_id)
        self._count(at, calls=1)
        if call.direction == "inbound" and call.agent_id:
            in_sl = self._estimated_wait(at) <= self.service_level_s
            self._count(at, inbound_answered=1, inbound_in_sl=int(in_sl))
        return Changes(calls={call.call_id}, agents=self._agent_ids(call), kpis=True)

    def _call_updated(self, update: c.CallUpdated) -> Changes:
        call = self.calls.get(update.call_id)
        if call is None:
            return Changes()
        self.calls[call.call_id] = replace(
            call, state=update.state, agent_id=update.agent_id or call.agent_id
        )
        return Changes(calls={call.call_id}, agents=self._agent_ids(self.calls[call.call_id]))

    def _call_ended(self, ended: c.CallEnded, at: datetime) -> Changes:
        call = self.calls.pop(ended.call_id, None)
        at = ended.ended_at or at
        self.seen_ended.add(ended.call_id)
        self._count(at, completed=1)
        if call and call.ai_handled:
            self._count(at, ai_completed=1)
        elif call is None or call.agent_id:
            self._count(at, handled=1, handle_s=ended.duration_s)
        agents = self._agent_ids(call) if call else set()
        self._drop_monitors(ended.call_id)  # the service ends them too
        return Changes(removed_calls={ended.call_id}, agents=agents, kpis=True)

    def _monitor(self, m: c.CallMonitor, at: datetime) -> Changes:
        """A session on a live call: kept while dialing or connected, gone once ended."""
        call = self.calls.get(m.call_id)
        sessions = self.monitors.get(m.call_id, {})
        if m.state == "ended" or call is None:
            if sessions.pop(m.session_id, None) is None:
                return Changes()
            self.monitor_started.pop(m.session_id, None)
            if not sessions:
                self.monitors.pop(m.call_id, None)
        else:
            self.monitors.setdefault(m.call_id, {})[m.session_id] = m
            self.monitor_started.setdefault(m.session_id, m.at or at)
        if call is None:
            return Changes()
        return Changes(calls={m.call_id}, agents=self._agent_ids(call))

    def _drop_monitors(self, call_id: str):
        for session_id in self.monitors.pop(call_id, {}):
            self.monitor_started.pop(session_id, None)

    def monitors_of(self, call_id: str | None) -> list[c.CallMonitor]:
        """The open sessions on a call, oldest first."""
        sessions = self.monitors.get(call_id or "")
        if not sessions:
            return []
        return sorted(sessions.values(), key=lambda m: self.monitor_started[m.session_id])

    def _queue(self, stats: c.QueueStats, at: datetime) -> Changes:
        self.queues[stats.queue_id] = Queue(
            stats.queue_id,
            stats.name,
            stats.waiting,
            stats.longest_wait_s,
            stats.agents_available,
            at,
            stats.offered,
            stats.answered,
            stats.abandoned,
        )
        return Changes(queues={stats.queue_id}, kpis=True)

    # ---- What the dashboard stored, and what the service lists ------------------------------
    def restore(self, stored: dict[datetime, Counts], now: datetime) -> Changes:
        """Today's 15-minute slots as the dashboard stored them (an earlier process, or
        another bridge before a failover): added to what this process counted so far."""
        self._roll_day(now)
        restored = 0
        for start, counts in stored.items():
            if self._today(start):
                self._add_to_slot(start, vars(counts))
                self.base.setdefault(start, Counts()).add(**vars(counts))
                restored += 1
        self.origin.restored_slots += restored
        return Changes(kpis=True) if restored else Changes()

    def fill(self, listed: list[c.Call], now: datetime, partial_before=None) -> Changes:
        """Calls the service lists for today that neither this process's events nor the
        stored slots counted (a gap while no bridge followed the floor), added per slot.
        Per slot and counter, only what the list holds beyond what was counted before is
        added, so a list that misses calls (capped) never lowers a figure and nothing is
        counted twice. Service level and occupancy need waits and states the list does not
        carry: they keep what the events gave."""
        self._roll_day(now)
        found = self._per_slot(listed)
        added = 0
        for start, got in found.items():
            base = self.base.setdefault(start, Counts())
            more = {
                name: getattr(got, name) - getattr(base, name)
                for name in CALL_COUNTERS
                if getattr(got, name) > getattr(base, name)
            }
            if more.get("handled"):  # the missed calls' talk time (their wrap-up is unknown)
                more["handle_s"] = got.handle_s * more["handled"] / got.handled
            if more:
                self._add_to_slot(start, more)
                base.add(**more)
                added += more.get("completed", 0)
        self.origin.filled_calls += added
        self.origin.service_listed = len(listed)
        self.origin.service_partial_before = partial_before
        return Changes(kpis=True)

    # ---- Helpers -----------------------------------------------------------------------------
    def _per_slot(self, listed: list[c.Call]) -> dict[datetime, Counts]:
        """`listed` counted per slot, the calls this process's events did not count. A
        day's 36,000 calls in one turn of the event loop: plain numbers per slot number,
        the day's bounds in UTC (compared without a zone's offset)."""
        first, end = self.day.start.astimezone(UTC), self.day.end.astimezone(UTC)
        seen_started, seen_ended = self.seen_started, self.seen_ended
        slots: dict[int, list] = {}  # slot number -> [calls, completed, ai, handled, handle_s]
        for call in listed:
            started, ended = call.started_at, call.ended_at
            if started is not None and first <= started < end and call.call_id not in seen_started:
                slot = int(started.timestamp()) // SLOT_S
                slots.setdefault(slot, [0, 0, 0, 0, 0.0])[0] += 1
            if ended is not None and first <= ended < end and call.call_id not in seen_ended:
                slot = int(ended.timestamp()) // SLOT_S
                got = slots.setdefault(slot, [0, 0, 0, 0, 0.0])
                got[1] += 1
                if call.ai_handled:
                    got[2] += 1
                elif call.agent_id:
                    got[3] += 1
                    got[4] += call.duration_s or 0
        return {
            datetime.fromtimestamp(slot * SLOT_S, UTC): Counts(
                calls=n, completed=done, ai_completed=ai, handled=handled, handle_s=handle_s
            )
            for slot, (n, done, ai, handled, handle_s) in slots.items()
        }

    def _agent_ids(self, call: c.Call) -> set:
        return {call.agent_id} if call.agent_id and call.agent_id in self.agents else set()

    def _estimated_wait(self, at: datetime) -> float:
        """The answered caller's wait. The contract carries no per-call queue time, so, as
        queues answer the longest waiting caller first, it is the longest wait of the last
        queue statistics plus the time since them (0 when nobody was waiting)."""
        waits = [
            q.longest_wait_s + max(0.0, (at - q.at).total_seconds())
            for q in self.queues.values()
            if q.waiting > 0
        ]
        return max(waits, default=0.0)

    def _today(self, when: datetime | None) -> bool:
        return when is not None and self.day.start <= when < self.day.end

    def _count(self, at: datetime, **amounts):
        """Add to the 15-minute slot of `at`, and to today's totals if `at` is today."""
        self.slots.setdefault(slot_of(at), Counts()).add(**amounts)
        if at >= self.day.start:
            self.day.totals.add(**amounts)

    def _count_span(self, start: datetime, end: datetime, name: str):
        """Time from `start` to `end`, each part in the slot it falls in."""
        while start < end:
            part_end = min(slot_of(start) + SLOT, end)
            self._count(start, **{name: (part_end - start).total_seconds()})
            start = part_end

    def _add_to_slot(self, start: datetime, amounts: dict):
        self.slots.setdefault(start, Counts()).add(**amounts)
        self.day.totals.add(**amounts)

    def _roll_day(self, at: datetime):
        today = at.astimezone(self.tz).date()
        if self.day.date != today:
            start = day_start(today, self.tz)
            # Yesterday's slots stay until the recorder has written their last growth.
            keep_from = day_start(today - timedelta(days=1), self.tz)
            self.slots = {s: x for s, x in self.slots.items() if s >= keep_from}
            self.day = Day(
                date=today, start=start, end=day_start(today + timedelta(days=1), self.tz)
            )
            self.base = {}
            self.seen_started, self.seen_ended = set(), set()
            self.origin = Origin(live_since=max(at, start) if self.origin.live_since else None)

    def start_of_day(self, now: datetime) -> datetime:
        """00:00 today in the organisation's zone, the day following `now`."""
        self._roll_day(now)
        return self.day.start

    def call_of(self, agent: c.Agent) -> c.Call | None:
        return self.calls.get(agent.call_id or "")

    # ---- KPIs --------------------------------------------------------------------------------
    @property
    def agents(self) -> dict[str, c.Agent]:
        return self._agents

    @agents.setter
    def agents(self, agents: dict[str, c.Agent]):
        """A new floor: counted afresh as it changes (tally.py)."""
        self.tally = Tally(STATES, OCCUPANCY_STATES)
        self._agents = Agents(agents, self.tally)

    def today(self, now: datetime) -> tuple[Counts, int, int]:
        """Today's counters with the states under way counted up to `now`; how many agents'
        current states and how many wrap-ups under way that adds. From the running tally
        of the agents (tally.py), or a walk of them when `now` is before a moment asked."""
        self._roll_day(now)
        start, tally = self.day.start, self.tally
        if tally.start != us(start):
            tally.restart(start, self.agents.values())
        spent = tally.spent(now)
        if spent is None:
            return self.walk_today(now)
        busy = sum(sum(spent[s]) for s in BUSY_STATES)
        counted = sum(tally.before[s] + tally.since[s] for s in OCCUPANCY_STATES)
        day = replace(self.day.totals).add(
            busy_s=busy / 1e6,
            available_s=sum(spent["available"]) / 1e6,
            handle_s=spent["wrap_up"][1] / 1e6,
        )
        return day, counted, tally.since["wrap_up"]

    def walk_today(self, now: datetime) -> tuple[Counts, int, int]:
        """`today`, from a walk of every agent."""
        self._roll_day(now)
        day, start = self.day.totals, self.day.start
        busy = available = handle = 0.0
        counted = wrapping = 0
        for agent in self.agents.values():
            status, since = agent.status, agent.since
            if not since or status not in OCCUPANCY_STATES:
                continue
            spent = max(0.0, (now - (since if since > start else start)).total_seconds())
            counted += 1
            if status == "available":
                available += spent
            else:
                busy += spent
                if status == "wrap_up" and since >= start:
                    handle += spent
                    wrapping += 1
        day = replace(day).add(busy_s=busy, available_s=available, handle_s=handle)
        return day, counted, wrapping

    def set_last_week(self, stored: dict[datetime, Counts]):
        """The same weekday last week's stored slots, to compare today with."""
        self.last_week = stored
        self._last_week_sum = (None, None)

    def same_time_last_week(self, now: datetime) -> Counts | None:
        """Last week's stored counters up to the same time of day (the slot under way
        counted pro rata), or None when nothing was stored by then."""
        then = same_time_last_week(now, self.tz)
        current = slot_of(then)
        cached, before = self._last_week_sum
        if cached != current:
            earlier = [x for s, x in self.last_week.items() if s < current]
            before = None
            if earlier:
                before = Counts()
                for x in earlier:
                    before = before.plus(x)
            self._last_week_sum = (current, before)
        if before is None:
            return None
        share = (then - current).total_seconds() / SLOT_S
        return before.plus(self.last_week.get(current, Counts()), share)

    def kpis(self, now: datetime) -> dict:
        by_state = dict(self.tally.by_state)
        waits = [q.longest_wait_s for q in self.queues.values()]
        day, counted, wrapping = self.today(now)
        then = self.same_time_last_week(now)
        figures = {
            "service_level_pct": service_level_pct,
            "aht_s": aht_s,
            "occupancy_pct": occupancy_pct,
            "ai_share_pct": ai_share_pct,
        }
        out = {
            "agents": by_state,
            "agents_total": len(self.agents),
            "active_calls": len(self.calls),
            "ai_calls": sum(x.ai_handled for x in self.calls.values()),
            "waiting": sum(q.waiting for q in self.queues.values()),
            "longest_wait_s": round(max([self._estimated_wait(now), *waits], default=0)),
            "completed_today": day.completed,
            **{name: formula(day) for name, formula in figures.items()},
            "day": day,
            "ongoing": {"states": counted, "wrap_ups": wrapping},
            "last_week": then,
        }
        out["vs_last_week"] = None
        if then is not None:
            out["vs_last_week"] = {
                "completed_today": day.completed - round(then.completed),
                **{name: difference(out[name], f(then)) for name, f in figures.items()},
            }
        return out

    def team_figures(self) -> dict[str, dict]:
        """Per team, what can be told of it now: agents by state, and the active calls its
        agents are on. The day's counters, the waits and the queues stay the whole floor's:
        queues carry no team in the service's contract, nor calls a queue."""
        teams = {
            team: {"agents": dict(counts), "active_calls": 0, "ai_calls": 0}
            for team, counts in self.tally.by_team.items()
        }
        for call in self.calls.values():
            agent = self.agents.get(call.agent_id or "")
            if agent is not None:
                teams[agent.team]["active_calls"] += 1
                teams[agent.team]["ai_calls"] += call.ai_handled
        return teams


def scoped(kpis: dict, by_team: dict[str, dict], teams: tuple[str, ...]) -> dict:
    """The floor's KPIs with what is told per team (`LiveState.team_figures`) summed over
    `teams`."""
    by_state = dict.fromkeys(STATES, 0)
    active = ai = 0
    for name in teams:
        team = by_team.get(name)
        if team:
            for status, n in team["agents"].items():
                by_state[status] += n
            active += team["active_calls"]
            ai += team["ai_calls"]
    return {
        **kpis,
        "agents": by_state,
        "agents_total": sum(by_state.values()),
        "active_calls": active,
        "ai_calls": ai,
    }
