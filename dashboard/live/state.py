"""The live state of the floor: agents, active calls, queues and the KPIs derived from them.

Pure: no I/O, no clock of its own (times come from the events), so it is easy to test.
Every input returns the `Changes` it made, which the publisher renders and fans out.
KPI formulas and their windows are written down in docs/metrics.md.
"""

from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo

from dashboard.upstream import contract as c

STATES = (*c.AGENT_STATUSES, "unknown")


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
class Day:
    """Counters of one day in the organisation's zone, from the events seen that day."""

    date: object = None
    completed: int = 0
    ai_completed: int = 0
    handled: int = 0  # calls ended that an agent handled
    handle_s: float = 0.0  # their talk time plus the agents' wrap-up after them
    inbound_answered: int = 0
    inbound_in_sl: int = 0


class LiveState:
    def __init__(self, tz: tzinfo, service_level_s: int = 20):
        self.tz = tz
        self.service_level_s = service_level_s
        self.agents: dict[str, c.Agent] = {}
        self.calls: dict[str, c.Call] = {}
        self.queues: dict[str, Queue] = {}
        self.day = Day()
        self.version = 0
        self.last_seq: int | None = None
        self.last_emitted_at: datetime | None = None

    # ---- Inputs ------------------------------------------------------------------------------
    def load_snapshot(self, agents: list[c.Agent], calls: list[c.Call]) -> Changes:
        """Replace agents and calls with the service's truth (queues have no REST row)."""
        self.agents = {a.agent_id: a for a in agents}
        self.calls = {x.call_id: x for x in calls}
        self.version += 1
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
            changes = self._call_ended(body)
        else:
            changes = self._queue(body, event.emitted_at)
        self.last_seq = event.seq
        self.last_emitted_at = event.emitted_at
        self.version += 1
        return changes

    def _agent(self, agent: c.Agent, at: datetime) -> Changes:
        before = self.agents.get(agent.agent_id)
        wrap_ended = before and before.status == "wrap_up" and agent.status != "wrap_up"
        if wrap_ended and before.since and self._is_today(before.since):
            self.day.handle_s += max(0.0, ((agent.since or at) - before.since).total_seconds())
        self.agents[agent.agent_id] = agent
        return Changes(agents={agent.agent_id}, kpis=True)

    def _call_started(self, call: c.Call, at: datetime) -> Changes:
        self.calls[call.call_id] = call
        if call.direction == "inbound" and call.agent_id:
            self.day.inbound_answered += 1
            if self._estimated_wait(at) <= self.service_level_s:
                self.day.inbound_in_sl += 1
        return Changes(calls={call.call_id}, agents=self._agent_ids(call), kpis=True)

    def _call_updated(self, update: c.CallUpdated) -> Changes:
        call = self.calls.get(update.call_id)
        if call is None:
            return Changes()
        self.calls[call.call_id] = replace(
            call, state=update.state, agent_id=update.agent_id or call.agent_id
        )
        return Changes(calls={call.call_id}, agents=self._agent_ids(self.calls[call.call_id]))

    def _call_ended(self, ended: c.CallEnded) -> Changes:
        call = self.calls.pop(ended.call_id, None)
        self.day.completed += 1
        if call and call.ai_handled:
            self.day.ai_completed += 1
        elif call is None or call.agent_id:
            self.day.handled += 1
            self.day.handle_s += ended.duration_s
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

    def _roll_day(self, at: datetime):
        today = at.astimezone(self.tz).date()
        if self.day.date != today:
            self.day = Day(date=today)

    def call_of(self, agent: c.Agent) -> c.Call | None:
        return self.calls.get(agent.call_id or "")

    # ---- KPIs --------------------------------------------------------------------------------
    def kpis(self) -> dict:
        by_state = dict.fromkeys(STATES, 0)
        for agent in self.agents.values():
            by_state[agent.status] += 1
        waiting = sum(q.waiting for q in self.queues.values())
        day = self.day
        return {
            "agents": by_state,
            "agents_total": len(self.agents),
            "active_calls": len(self.calls),
            "ai_calls": sum(x.ai_handled for x in self.calls.values()),
            "waiting": waiting,
            "longest_wait_s": max((q.longest_wait_s for q in self.queues.values()), default=0),
            "service_level_pct": (
                round(100 * day.inbound_in_sl / day.inbound_answered, 1)
                if day.inbound_answered
                else None
            ),
            "completed_today": day.completed,
            "aht_s": round(day.handle_s / day.handled) if day.handled else None,
        }
