"""The live state of the floor: agents, active calls, queues and the KPIs derived from them.

Pure: no I/O, no clock of its own (times come from the events), so it is easy to test.
Every input returns the `Changes` it made, which the publisher renders and fans out.
KPI formulas and their windows are written down in docs/metrics.md.
"""

from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime, time, tzinfo

from dashboard.upstream import contract as c

STATES = (*c.AGENT_STATUSES, "unknown")
BUSY_STATES = ("ringing", "on_call", "wrap_up")  # occupancy: time engaged with calls
SLOT_S = 15 * 60  # intraday figures are kept per 15 minutes


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


@dataclass
class Counts:
    """Counters of a day, or of one 15-minute slot of it, from the events seen."""

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
    """One day in the organisation's zone: its totals and its 15-minute slots."""

    date: object = None
    start: datetime | None = None
    totals: Counts = field(default_factory=Counts)
    slots: dict[datetime, Counts] = field(default_factory=dict)


def slot_of(when: datetime) -> datetime:
    """Start of the 15 minutes `when` falls in (every zone's offset is a multiple of 15 min)."""
    epoch = int(when.timestamp())
    return datetime.fromtimestamp(epoch - epoch % SLOT_S, UTC)


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


class LiveState:
    def __init__(self, tz: tzinfo, service_level_s: int = 20):
        self.tz = tz
        self.service_level_s = service_level_s
        self.agents: dict[str, c.Agent] = {}
        self.calls: dict[str, c.Call] = {}
        self.queues: dict[str, Queue] = {}
        self.day = Day()

    # ---- Inputs ------------------------------------------------------------------------------
    def load_snapshot(self, agents: list[c.Agent], calls: list[c.Call]) -> Changes:
        """Replace agents and calls with the service's truth (queues have no REST row)."""
        self.agents = {a.agent_id: a for a in agents}
        self.calls = {x.call_id: x for x in calls}
        return Changes(full=True, kpis=True)

    def apply(self, event: c.Event) -> Changes:
        self._roll_day(event.emitted_at)
        body = event.body
        if isinstance(body, c.AgentChanged):
            changes = self._agent(body.agent, event.emitted_at)
        elif isinstance(body, c.CallStarted):
            changes = self._call_started(body.call, event.emitted_at)
        elif isinstance(body, c.CallUpdated):
            changes = self._call_updated(body)
        elif isinstance(body, c.CallEnded):
            changes = self._call_ended(body, event.emitted_at)
        else:
            changes = self._queue(body, event.emitted_at)
        return changes

    def _agent(self, agent: c.Agent, at: datetime) -> Changes:
        before = self.agents.get(agent.agent_id)
        if before and before.since and before.status != agent.status:
            ended = agent.since or at
            spent = max(0.0, (ended - max(before.since, self.day.start)).total_seconds())
            if before.status == "wrap_up" and self._is_today(before.since):
                self._count(ended, handle_s=spent)
            if before.status in BUSY_STATES:
                self._count(ended, busy_s=spent)
            elif before.status == "available":
                self._count(ended, available_s=spent)
        self.agents[agent.agent_id] = agent
        return Changes(agents={agent.agent_id}, kpis=True)

    def _call_started(self, call: c.Call, at: datetime) -> Changes:
        self.calls[call.call_id] = call
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
        self._count(at, completed=1)
        if call and call.ai_handled:
            self._count(at, ai_completed=1)
        elif call is None or call.agent_id:
            self._count(at, handled=1, handle_s=ended.duration_s)
        agents = self._agent_ids(call) if call else set()
        return Changes(removed_calls={ended.call_id}, agents=agents, kpis=True)

    def _queue(self, stats: c.QueueStats, at: datetime) -> Changes:
        self.queues[stats.queue_id] = Queue(
            stats.queue_id,
            stats.name,
            stats.waiting,
            stats.longest_wait_s,
            stats.agents_available,
            at,
        )
        return Changes(queues={stats.queue_id}, kpis=True)

    # ---- Helpers -----------------------------------------------------------------------------
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

    def _is_today(self, when: datetime) -> bool:
        return when.astimezone(self.tz).date() == self.day.date

    def _count(self, at: datetime, **amounts):
        """Add to today's totals and to the 15-minute slot of `at`."""
        self.day.totals.add(**amounts)
        self.day.slots.setdefault(slot_of(at), Counts()).add(**amounts)

    def _roll_day(self, at: datetime):
        today = at.astimezone(self.tz).date()
        if self.day.date != today:
            start = datetime.combine(today, time.min, self.tz)
            self.day = Day(date=today, start=start)

    def call_of(self, agent: c.Agent) -> c.Call | None:
        return self.calls.get(agent.call_id or "")

    # ---- KPIs --------------------------------------------------------------------------------
    def kpis(self) -> dict:
        by_state = dict.fromkeys(STATES, 0)
        for agent in self.agents.values():
            by_state[agent.status] += 1
        waiting = sum(q.waiting for q in self.queues.values())
        day = self.day.totals
        return {
            "agents": by_state,
            "agents_total": len(self.agents),
            "active_calls": len(self.calls),
            "ai_calls": sum(x.ai_handled for x in self.calls.values()),
            "waiting": waiting,
            "longest_wait_s": max((q.longest_wait_s for q in self.queues.values()), default=0),
            "service_level_pct": service_level_pct(day),
            "completed_today": day.completed,
            "aht_s": aht_s(day),
            "occupancy_pct": occupancy_pct(day),
            "ai_share_pct": ai_share_pct(day),
        }
