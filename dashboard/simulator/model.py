"""A contact centre in miniature: agents, a predictive dialer, inbound queues, AI calls.

The model advances in fixed simulated steps, and every random draw comes from one
`random.Random(seed)` per organisation, so a seed always yields the same event sequence
(timestamps aside). It returns events; the server stamps `seq` and sends them. The REST
answers are read from the same objects, so counters always agree with the events.
"""

import random
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field

from .clock import iso
from .outbound import Outbound

FIRST = [
    "Ava",
    "Ben",
    "Chloe",
    "Dev",
    "Ella",
    "Finn",
    "Grace",
    "Hugo",
    "Isla",
    "Jack",
    "Kara",
    "Leo",
    "Maya",
    "Noah",
    "Olivia",
    "Priya",
    "Quinn",
    "Ravi",
    "Sofia",
    "Theo",
    "Uma",
    "Victor",
    "Willow",
    "Xavier",
    "Yara",
    "Zane",
    "Amir",
    "Bea",
    "Carlos",
    "Dina",
]
LAST = [
    "Patel",
    "Smith",
    "Okafor",
    "Nguyen",
    "Garcia",
    "Kowalski",
    "Murphy",
    "Silva",
    "Khan",
    "Jones",
    "Rossi",
    "Müller",
    "Haddad",
    "Brown",
    "Larsen",
    "Costa",
    "Wright",
    "Ito",
]
TEAMS = ["Sales North", "Sales South", "Retention", "Support"]


def team_names(teams: int) -> list[str]:
    """The floor's teams: the four named ones, or `teams` numbered ones (a large floor's)."""
    return TEAMS if teams <= 0 else [f"Team {n:03d}" for n in range(1, teams + 1)]


CAMPAIGNS = [
    ("Spring Renewals", "predictive"),
    ("Solar Leads", "progressive"),
    ("Win-back Q4", "preview"),
    ("AI Reminder Calls", "ai"),
]
QUEUES = ["Customer Service", "Billing"]
TEMPLATES = [("Sales call standard", 100), ("Compliance essentials", 20)]
RULES = ["recording_disclosure", "dnc_check", "identity_verification", "calling_hours"]
CONNECTED_OUTCOMES = [
    ("not_interested", 40),
    ("callback", 20),
    ("appointment_booked", 15),
    ("sale", 10),
    ("wrong_number", 5),
]
UNCONNECTED_OUTCOMES = [("no_answer", 55), ("voicemail", 30), ("busy", 15)]
ALERT_KINDS = ["long_hold", "script_deviation", "negative_sentiment", "compliance_miss"]
STATUS_LOG = 1_000_000  # states left, kept for GET /agent-status/history, oldest dropped first
HISTORY = 20_000  # calls kept for GET /calls/{id} and the call history, oldest dropped first


def pick(rng: random.Random, weighted):
    return rng.choices([v for v, _ in weighted], weights=[w for _, w in weighted])[0]


@dataclass
class Agent:
    id: str
    name: str
    team: str
    status: str
    since: float
    call_id: str | None = None
    until: float = 0.0  # simulated time of the next own move
    pending_status: str | None = None  # asked by a supervisor during a call (contract 6.1)
    pending_by: str | None = None
    changed_by: str | None = None  # who set the current state (None: the agent)

    def rest(self):
        return {
            "agentId": self.id,
            "name": self.name,
            "team": self.team,
            "status": self.status,
            "statusSince": iso(self.since),
            "callId": self.call_id,
            "pendingStatus": self.pending_status,
            "changedBy": self.changed_by,
        }

    def event(self):
        return (
            "agent.status",
            {
                "agent_id": self.id,
                "name": self.name,
                "team": self.team,
                "status": self.status,
                "since": iso(self.since),
                "call_id": self.call_id,
                "pending_status": self.pending_status,
                "changed_by": self.changed_by,
            },
        )


@dataclass
class Call:
    id: str
    agent_id: str | None
    campaign_id: str | None
    direction: str
    ai_handled: bool
    started: float
    state: str = "ringing"
    ends: float = 0.0
    outcome: str = ""
    ended: float = 0.0  # when it ended (0: still live)
    duration: int = 0

    @property
    def recording_id(self) -> str | None:
        """Every ended call was recorded (derived from the id: no draw from the model's rng)."""
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"rec:{self.id}")) if self.ended else None

    def rest(self):
        ended = bool(self.ended)
        return {
            "id": self.id,
            "agent_id": self.agent_id,
            "campaign_id": self.campaign_id,
            "direction": self.direction,
            "state": "ended" if ended else self.state,
            "ai_handled": self.ai_handled,
            "started_at": iso(self.started),
            "ended_at": iso(self.ended) if ended else None,
            "outcome": self.outcome if ended else None,
            "duration_s": self.duration if ended else None,
            "recording_id": self.recording_id,
        }

    def transcript(self) -> str:
        """A short conversation with a phone number in it (the dashboard keeps its last four)."""
        number = int(self.id.replace("-", "")[:6], 16) % 1_000_000
        return (
            "Agent: Hello, this is a call about your account. This call is recorded.\n"
            "Customer: Hi. You can reach me later on 07700 " + f"{number:06d}.\n"
            f"Agent: Thank you. I have noted the outcome: {self.outcome.replace('_', ' ')}."
        )


@dataclass
class Campaign:
    id: str
    name: str
    dial_mode: str
    total: int
    started: float
    status: str = "active"
    dialed: int = 0
    connected: int = 0
    booked: int = 0

    def rest(self):
        return {
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "dialMode": self.dial_mode,
            "totalContacts": self.total,
            "dialedContacts": self.dialed,
            "connectedCalls": self.connected,
            "appointmentsBooked": self.booked,
            "startedAt": iso(self.started),
        }


@dataclass
class Queue:
    id: str
    name: str
    waiting: list = field(default_factory=list)  # arrival times
    held: bool = False  # loaded by the control API: the model neither adds nor answers callers
    closed: bool = False  # its schedule is closed: callers go to voicemail (inbound.py)
    arrivals: int = 0  # callers the model put in the queue, ever
    answered: list = field(default_factory=list)  # waits of answered callers, not yet counted

    def event(self, now, agents_available):
        longest = int(now - self.waiting[0]) if self.waiting else 0
        return (
            "queue.stats",
            {
                "queue_id": self.id,
                "name": self.name,
                "waiting": len(self.waiting),
                "longest_wait_s": longest,
                "agents_available": agents_available,
            },
        )


class ContactCentre:
    """One organisation's floor. `step(dt)` advances it and returns (kind, payload) events
    and business records (webhook events) that fell due."""

    def __init__(self, org_id: str, seed: int, agents: int, start: float, teams: int = 0):
        self.org_id = org_id
        names = team_names(teams)
        self.rng = random.Random(f"{seed}:{org_id}")
        self.now = start
        self._ids = random.Random(f"ids:{seed}:{org_id}")
        self.agents: dict[str, Agent] = {}
        for i in range(agents):
            name = f"{FIRST[i % len(FIRST)]} {LAST[(i * 7 + i // len(FIRST)) % len(LAST)]}"
            status = "offline" if self.rng.random() < 0.1 else "available"
            agent = Agent(
                self.uid(), name, names[i % len(names)], status, start - self.rng.uniform(0, 600)
            )
            agent.until = start + self.rng.uniform(1, 60)
            self.agents[agent.id] = agent
        self.campaigns = {
            campaign.id: campaign
            for campaign in (
                Campaign(
                    self.uid(),
                    name,
                    mode,
                    self.rng.randint(2000, 9000),
                    start - self.rng.uniform(3600, 4 * 3600),
                )
                for name, mode in CAMPAIGNS
            )
        }
        list(self.campaigns.values())[2].status = "paused"
        self.queues = {q.id: q for q in (Queue(self.uid(), name) for name in QUEUES)}
        self.templates = [{"id": self.uid(), "name": n, "max_score": m} for n, m in TEMPLATES]
        self.calls: dict[str, Call] = {}
        self.history: OrderedDict[str, Call] = OrderedDict()  # live and ended, by call id
        self.scorecards: list[dict] = []
        self.checks: list[dict] = []
        self.alerts: list[dict] = []
        self.appointments: list[dict] = []
        self.pending: list[tuple[float, str, dict]] = []  # (due, webhook event, data)
        # States the agents left since the start: (since, until, agent id, status, call id)
        self.status_log: list[tuple] = []
        self.outbound = Outbound(f"{seed}:{org_id}", self.campaigns, self.agents, start)

    def uid(self) -> str:
        return str(uuid.UUID(int=self._ids.getrandbits(128), version=4))

    # ---- REST views -------------------------------------------------------------------
    def agents_available(self) -> int:
        return sum(a.status == "available" for a in self.agents.values())

    # ---- Moves ------------------------------------------------------------------------
    def step(self, dt: float):
        """Advance by dt simulated seconds."""
        self.now += dt
        events, records = [], []
        for agent in self.agents.values():
            if agent.until <= self.now:
                events += self._agent_moves(agent)
        for call in list(self.calls.values()):
            if call.ai_handled and call.ends <= self.now:
                events += self._end_call(call)
        events += self._dial(dt)
        events += self._inbound(dt)
        due = [p for p in self.pending if p[0] <= self.now]
        if due:
            self.pending = [p for p in self.pending if p[0] > self.now]
            records += [(event, data) for _, event, data in due]
        return events, records

    def set_status(self, agent: Agent, status: str, call_id=None):
        if self.now > agent.since:
            self.status_log.append((agent.since, self.now, agent.id, agent.status, agent.call_id))
            if len(self.status_log) > STATUS_LOG:
                del self.status_log[: STATUS_LOG // 10]
        agent.changed_by = None
        if status == "available" and agent.pending_status:  # asked during the call: now
            status, agent.changed_by = agent.pending_status, agent.pending_by
            agent.pending_status = agent.pending_by = None
            agent.until = self.now + 3600
        agent.status, agent.since, agent.call_id = status, self.now, call_id
        return agent.event()

    def _agent_moves(self, agent: Agent):
        r = self.rng
        if agent.status == "available":
            if r.random() < 0.08:
                agent.until = self.now + r.uniform(120, 900)
                return [self.set_status(agent, "paused")]
            if r.random() < 0.01:
                agent.until = self.now + r.uniform(300, 1800)
                return [self.set_status(agent, "offline")]
            agent.until = self.now + r.uniform(5, 30)
            return []
        if agent.status in ("paused", "offline"):
            agent.until = self.now + r.uniform(5, 30)
            return [self.set_status(agent, "available")]
        call = self.calls.get(agent.call_id or "")
        if agent.status == "ringing" and call:
            call.state = "in_progress"
            agent.until = self.now + r.uniform(60, 360)
            return [
                self.set_status(agent, "on_call", call.id),
                (
                    "call.updated",
                    {"call_id": call.id, "state": "in_progress", "agent_id": agent.id},
                ),
            ]
        if agent.status == "on_call" and call:
            return self._end_call(call)
        if agent.status == "wrap_up":
            agent.until = self.now + r.uniform(5, 20)
            return [self.set_status(agent, "available")]
        agent.until = self.now + 5  # a state with no call behind it: free the agent
        return [self.set_status(agent, "available")]

    def _start_call(self, agent, campaign, direction, ai=False):
        call = Call(
            self.uid(),
            agent.id if agent else None,
            campaign.id if campaign else None,
            direction,
            ai,
            self.now,
        )
        self.calls[call.id] = call
        self.remember(call)
        events = [
            (
                "call.started",
                {
                    "call_id": call.id,
                    "agent_id": call.agent_id,
                    "campaign_id": call.campaign_id,
                    "direction": direction,
                    "ai_handled": ai,
                    "started_at": iso(call.started),
                },
            )
        ]
        if agent:
            agent.until = self.now + self.rng.uniform(2, 12)
            events.append(self.set_status(agent, "ringing", call.id))
        else:
            call.state = "in_progress"
            call.ends = self.now + self.rng.uniform(30, 180)
            events.append(
                ("call.updated", {"call_id": call.id, "state": "in_progress", "agent_id": None})
            )
        return events

    def _end_call(self, call: Call, outcome: str | None = None):
        r = self.rng
        self.calls.pop(call.id, None)
        duration = max(1, int(self.now - call.started))
        call.outcome = outcome or pick(r, CONNECTED_OUTCOMES)
        call.ended, call.duration = self.now, duration
        campaign = self.campaigns.get(call.campaign_id or "")
        events = [
            (
                "call.ended",
                {
                    "call_id": call.id,
                    "ended_at": iso(self.now),
                    "outcome": call.outcome,
                    "duration_s": duration,
                },
            )
        ]
        agent = self.agents.get(call.agent_id or "")
        if agent:
            agent.until = self.now + r.uniform(10, 90)
            events.append(self.set_status(agent, "wrap_up", call.id))
        self._follow_up(call, duration, campaign)
        self.outbound.call_ended(call, self.now)
        return events

    def _follow_up(self, call: Call, duration: int, campaign):
        """Webhook records that follow a finished call after realistic delays."""
        r, later = self.rng, (lambda lo, hi: self.now + r.uniform(lo, hi))
        base = {"call_id": call.id, "agent_id": call.agent_id}
        self.pending.append(
            (
                later(1, 3),
                "call_completed",
                {
                    **base,
                    "campaign_id": call.campaign_id,
                    "outcome": call.outcome,
                    "duration_s": duration,
                    "transcript": call.transcript(),
                },
            )
        )
        if call.outcome == "appointment_booked":
            if campaign:
                campaign.booked += 1
            self.pending.append(
                (
                    later(1, 4),
                    "appointment_booked",
                    {
                        "appointment_id": self.uid(),
                        **base,
                        "campaign_id": call.campaign_id,
                        "starts_at": iso(self.now + r.uniform(86400, 7 * 86400)),
                    },
                )
            )
        if call.agent_id and r.random() < 0.4:
            template = r.choice(self.templates)
            score = r.randint(int(template["max_score"] * 0.45), template["max_score"])
            self.pending.append(
                (
                    later(5, 20),
                    "qa_scored",
                    {
                        "scorecard_id": self.uid(),
                        **base,
                        "template_id": template["id"],
                        "score": score,
                        "max_score": template["max_score"],
                        "passed": score >= 0.7 * template["max_score"],
                    },
                )
            )
        if r.random() < 0.5:
            passed = r.random() > 0.12
            self.pending.append(
                (
                    later(3, 10),
                    "compliance_checked",
                    {
                        "check_id": self.uid(),
                        **base,
                        "rule": r.choice(RULES),
                        "passed": passed,
                        "details": "" if passed else "Required statement not detected",
                    },
                )
            )
        if call.agent_id and r.random() < 0.08:
            self.pending.append((later(5, 15), "coaching_alert", self.alert_data(call)))

    def remember(self, call: Call):
        self.history[call.id] = call
        while len(self.history) > HISTORY:
            self.history.popitem(last=False)

    def alert_data(self, call: Call | None = None):
        r = self.rng
        agent_id = call.agent_id if call else r.choice(list(self.agents))
        kind = r.choice(ALERT_KINDS)
        return {
            "alert_id": self.uid(),
            "agent_id": agent_id,
            "call_id": call.id if call else None,
            "kind": kind,
            "severity": pick(r, [("info", 50), ("warning", 35), ("critical", 15)]),
            "message": f"{kind.replace('_', ' ').capitalize()} detected on a recent call",
        }

    def _dial(self, dt):
        """The predictive dialer: attempts per active campaign; connects ring a free agent."""
        events = []
        free = [a for a in self.agents.values() if a.status == "available"]
        for campaign in self.campaigns.values():
            if not self.outbound.may_dial(campaign, self.calls, self.now):
                continue
            ai = campaign.dial_mode == "ai"
            if self.rng.random() >= dt * (0.15 if ai else 0.25 + 0.03 * len(free)):
                continue
            connected = self.rng.random() < 0.35
            if self.outbound.dialed(campaign, connected, self.now):  # the contact's first
                campaign.dialed += 1
            if connected:
                campaign.connected += 1
                if ai:
                    events += self._start_call(None, campaign, "outbound", ai=True)
                elif free:
                    events += self._start_call(
                        free.pop(self.rng.randrange(len(free))), campaign, "outbound"
                    )
        return events

    def _inbound(self, dt):
        events, free = [], [a for a in self.agents.values() if a.status == "available"]
        for queue in self.queues.values():
            if queue.held or queue.closed:
                continue
            changed = False
            if self.rng.random() < dt * 0.12:
                queue.waiting.append(self.now)
                queue.arrivals += 1
                changed = True
            if queue.waiting and free:
                queue.answered.append(self.now - queue.waiting.pop(0))
                events += self._start_call(free.pop(), None, "inbound")
                changed = True
            if changed:
                events.append(queue.event(self.now, len(free)))
        return events

    # ---- Forced moves (control API) ----------------------------------------------------
    def force_status(self, agent_id: str, status: str, name: str | None = None):
        agent = self.agents[agent_id]
        if name is not None:
            agent.name = name
        events = []
        call = self.calls.get(agent.call_id or "")
        if call and status not in ("ringing", "on_call", "wrap_up"):
            events += self._end_call(call)
        agent.until = self.now + 3600  # stays put until the model moves it on much later
        events.append(self.set_status(agent, status, agent.call_id if call else None))
        return events

    def load_queue(self, queue_id: str, waiting: int, longest_wait_s: float):
        """Put `waiting` callers in a queue, the first waiting `longest_wait_s` already, and
        hold it so (the model answers none) until it is loaded with 0; its stats event."""
        queue = self.queues[queue_id]
        queue.waiting = [self.now - longest_wait_s] + [self.now] * (waiting - 1) if waiting else []
        queue.held = waiting > 0
        free = sum(1 for a in self.agents.values() if a.status == "available")
        return [queue.event(self.now, free)]

    def business_event(self, event: str, agent_id: str | None = None):
        """One webhook record of the given kind, made now and consistent with the REST truth
        (its call is in the call history); `agent_id` picks the agent, else one at random."""
        agent = self.rng.choice(list(self.agents.values()))
        agent = self.agents.get(agent_id or "", agent)
        campaign = next(iter(self.campaigns.values()))
        call = Call(self.uid(), agent.id, campaign.id, "outbound", False, self.now - 120)
        call.ended, call.duration = self.now, 120
        call.outcome = "appointment_booked" if event == "appointment_booked" else "callback"
        self.remember(call)
        if event == "coaching_alert":
            return self.alert_data(call)
        before = len(self.pending)
        self._follow_up(call, 120, campaign)
        made = [p for p in self.pending[before:] if p[1] == event]
        self.pending = self.pending[:before]
        if made:
            return made[0][2]
        if event == "qa_scored":
            template = self.templates[0]
            return {
                "scorecard_id": self.uid(),
                "call_id": call.id,
                "agent_id": agent.id,
                "template_id": template["id"],
                "score": 62,
                "max_score": template["max_score"],
                "passed": False,
            }
        return {
            "check_id": self.uid(),
            "call_id": call.id,
            "agent_id": agent.id,
            "rule": RULES[0],
            "passed": False,
            "details": "Required statement not detected",
        }

    def record(self, event: str, data: dict):
        """Keep a delivered business event in the REST truth."""
        stamp = iso(self.now)
        if event == "qa_scored":
            self.scorecards.append(
                {
                    "id": data["scorecard_id"],
                    "call_id": data["call_id"],
                    "agent_id": data["agent_id"],
                    "template_id": data["template_id"],
                    "score": data["score"],
                    "max_score": data["max_score"],
                    "passed": data["passed"],
                    "scored_at": stamp,
                }
            )
        elif event == "compliance_checked":
            self.checks.append(
                {
                    "id": data["check_id"],
                    "call_id": data["call_id"],
                    "agent_id": data["agent_id"],
                    "rule": data["rule"],
                    "passed": data["passed"],
                    "checked_at": stamp,
                }
            )
        elif event == "coaching_alert":
            self.alerts.append({**data, "created_at": stamp})
        elif event == "appointment_booked":
            self.appointments.append({**data, "booked_at": stamp})
