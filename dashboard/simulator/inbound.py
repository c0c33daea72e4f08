"""The inbound side of a simulated organisation (contract section 6.2): each queue's own
service-level target and goal, its ring group and business-hours schedule, the day's calls
per queue, and voicemail with transcripts.

The floor model (model.py) puts callers in the queues and answers them; `step` counts
what it did (arrivals, answers with their waits), lets waiting callers abandon, sends a
queue's overflow and every caller of a closed queue to voicemail, and transcribes each
message a few seconds after it arrives. Draws come from a generator of its own.

Today before the simulator started has its queue calls too (`morning`): each inbound call
of the past's today (history.py) was answered from a queue after a wait, and some callers
gave up, drawn from the seed, so `GET /inbound/queues/{id}/stats?since=` the start of the
day counts the whole day, as the service's would.
"""

import random
import statistics
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from .clock import iso
from .model import Queue

# queue name -> (service-level target in s, goal in %, schedule, ring group)
PLANS = {
    "Customer Service": (20, 80, "Main hours", "Service desk"),
    "Billing": (10, 90, "Main hours", "Billing desk"),
    "Sales": (30, 70, "Sales hours", "Sales line"),
}
SCHEDULES = {"Main hours": None, "Sales hours": (8 * 60, 18 * 60)}  # open minutes (UTC)
OVERFLOW = 8  # a caller finding this many waiting is sent to voicemail
ABANDON_RATE = 0.004  # per waiting caller per second
CLOSED_CALLS = 0.02  # callers per second trying a closed queue (they leave a message)
SHORT_ABANDON_S = 5
TRANSCRIBE_AFTER_S = 3.0
MORNING_WAIT = 0.6  # the morning's mean wait, as a share of the queue's target
MORNING_ABANDONS = 0.15  # callers who gave up, per answered call of the morning
COUNTED = ("offered", "answered", "answered_within_target", "abandoned", "abandoned_within_5s")
CALLERS = ["Alex Reid", "Sam Evans", "Jordan Hughes", "Morgan Lopez", "Riley Novak", "Casey Sato"]
TRANSCRIPTS = [
    "Hi, I was charged twice this month, please call me back.",
    "Calling about my order, it has not arrived yet.",
    "I would like to upgrade my plan, call me after five.",
    "Please cancel tomorrow's appointment, thanks.",
]


@dataclass
class Schedule:
    id: str
    name: str
    hours: tuple | None  # (open, close) in minutes of the UTC day; None: always open
    forced: bool | None = None  # set by the control API: open (True) or closed (False)
    holiday: str | None = None  # today's holiday: closed all day

    def open_at(self, now: float) -> bool:
        if self.holiday:
            return False
        if self.forced is not None:
            return self.forced
        if self.hours is None:
            return True
        minute = int(now % 86400 // 60)
        return self.hours[0] <= minute < self.hours[1]

    def next_change(self, now: float) -> float | None:
        """When it next opens or closes by its hours (None: always open, or held shut)."""
        if self.hours is None:
            return None
        day = now - now % 86400
        edges = [day + m * 60 for m in self.hours] + [day + 86400 + self.hours[0] * 60]
        is_open = self.open_at(now)
        if not is_open:  # only an opening ends a closure
            edges = [day + self.hours[0] * 60, day + 86400 + self.hours[0] * 60]
        later = [t for t in edges if t > now]
        return later[0] if later else None

    def rest(self, now: float) -> dict:
        change = self.next_change(now)
        return {
            "id": self.id,
            "name": self.name,
            "timezone": "UTC",
            "openNow": self.open_at(now),
            "nextChangeAt": iso(change) if change else None,
            "holidayToday": self.holiday,
        }


@dataclass
class Line:
    """One queue's inbound plan and its day: records are (time, kind, wait)."""

    queue: Queue
    target_s: int
    goal_pct: int
    schedule: Schedule
    group_id: str
    group_name: str
    agent_ids: list
    records: list = field(default_factory=list)
    counted: int = 0  # the queue's arrivals already recorded

    def rest(self) -> dict:
        return {
            "id": self.queue.id,
            "name": self.queue.name,
            "service_level_target_s": self.target_s,
            "service_level_goal_pct": self.goal_pct,
            "schedule_id": self.schedule.id,
            "ring_group": {
                "id": self.group_id,
                "name": self.group_name,
                "agent_ids": self.agent_ids,
            },
        }

    def stats(self, since: float, now: float, until: float | None = None) -> dict:
        rows = [r for r in self.records if since <= r[0] and (until is None or r[0] < until)]
        answered = [w for _, kind, w in rows if kind == "answered"]
        abandoned = [w for _, kind, w in rows if kind == "abandoned"]
        waiting = self.queue.waiting
        return {
            "queue_id": self.queue.id,
            "offered": sum(kind == "offered" for _, kind, _ in rows),
            "answered": len(answered),
            "answered_within_target": sum(w <= self.target_s for w in answered),
            "abandoned": len(abandoned),
            "abandoned_within_5s": sum(w < SHORT_ABANDON_S for w in abandoned),
            "average_wait_s": round(statistics.fmean(answered), 1) if answered else 0,
            "longest_wait_s": int(now - waiting[0]) if waiting else 0,
            "to_voicemail": sum(kind == "voicemail" for _, kind, _ in rows),
        }


class Inbound:
    def __init__(self, seed: str, queues: dict, agents: dict, start: float, zone: str = "UTC"):
        self.seed = seed
        self.tz = ZoneInfo(zone)  # the organisation's days
        self.rng = random.Random(f"inbound:{seed}")
        self._ids = random.Random(f"inbound-ids:{seed}")
        self.queues = queues
        self.agents = agents
        self.now = start
        self.quiet = False  # the control API's reset: no calls or messages of its own
        self.schedules = {
            name: Schedule(self.uid(), name, hours) for name, hours in SCHEDULES.items()
        }
        for name in PLANS:
            if not any(q.name == name for q in queues.values()):
                queue = Queue(self.uid(), name)
                queues[queue.id] = queue
        agent_ids = list(agents)
        self.lines: dict[str, Line] = {}
        for i, queue in enumerate(queues.values()):
            target, goal, schedule, group = PLANS.get(queue.name, (20, 80, "Main hours", "Desk"))
            members = agent_ids[i :: len(queues)] + agent_ids[(i + 1) :: 3 * len(queues)]
            self.lines[queue.id] = Line(
                queue, target, goal, self.schedules[schedule], self.uid(), group, members
            )
        self.voicemail: OrderedDict[str, dict] = OrderedDict()
        self.untranscribed: list[tuple[float, str]] = []  # (due, message id)

    def uid(self) -> str:
        return str(uuid.UUID(int=self._ids.getrandbits(128), version=4))

    def start_of_day(self, at: float | None = None) -> float:
        day = datetime.fromtimestamp(self.now if at is None else at, self.tz).date()
        return datetime.combine(day, datetime.min.time(), self.tz).timestamp()

    def morning(self, calls: list[dict], start: float):
        """Today's queue calls before `start`: each inbound call of the past's today
        (`calls`, REST rows) answered from a queue open then (its agent's ring group's when
        it can) after a wait, and after some of them a caller who gave up."""
        rng = random.Random(f"inbound-morning:{self.seed}")
        day = self.start_of_day(start)
        for row in calls:
            answered_at = datetime.fromisoformat(row["started_at"]).timestamp()
            if row["direction"] != "inbound" or not row["agent_id"] or answered_at >= start:
                continue
            lines = [x for x in self.lines.values() if x.schedule.open_at(answered_at)]
            own = [x for x in lines if row["agent_id"] in x.agent_ids]
            if not lines:
                continue
            line = rng.choice(own or lines)
            wait = min(rng.expovariate(1 / (MORNING_WAIT * line.target_s)), answered_at - day)
            line.records += [(answered_at - wait, "offered", 0), (answered_at, "answered", wait)]
            if rng.random() < MORNING_ABANDONS:
                arrived = max(day, answered_at - rng.uniform(0, 600))
                gave_up = rng.expovariate(1 / 40)
                if arrived + gave_up < start and line.schedule.open_at(arrived):
                    line.records.append((arrived, "offered", 0))
                    line.records.append((arrived + gave_up, "abandoned", gave_up))
        for line in self.lines.values():
            line.records.sort(key=lambda r: r[0])

    def service_levels(self, since: float, at: float) -> dict:
        """Each queue's service level over [since, at) and the floor's, by the dashboard's
        formulas (metrics doc): answered within the target ÷ (answered + abandoned −
        abandoned under 5 s); the floor's the queues' own, rounded, weighted by calls
        offered. The truth a test compares the inbound pages with."""
        levels, weighted = {}, []
        for line in self.lines.values():
            day = {k: v for k, v in line.stats(since, at, until=at).items() if k in COUNTED}
            counted = day["answered"] + day["abandoned"] - day["abandoned_within_5s"]
            sl = round(100 * day["answered_within_target"] / counted, 1) if counted else None
            levels[line.queue.id] = {"name": line.queue.name, "sl_pct": sl, **day}
            if sl is not None:
                weighted.append((sl, day["offered"]))
        total = sum(n for _, n in weighted)
        floor = round(sum(sl * n for sl, n in weighted) / total, 1) if total else None
        return {"queues": levels, "floor_sl_pct": floor}

    def line(self, wanted) -> Line | None:
        return next((x for x in self.lines.values() if wanted in (x.queue.id, x.queue.name)), None)

    def schedule(self, wanted) -> Schedule | None:
        return next((s for s in self.schedules.values() if wanted in (s.id, s.name)), None)

    # ---- Moves ------------------------------------------------------------------------
    def step(self, now: float, dt: float, events: list) -> list:
        """Count what the floor model did this step; (kind, payload) events to add. The
        model's own queue.stats events get the day's counts."""
        self.now = now
        out, changed = [], set()
        for line in self.lines.values():
            if self._line_step(line, dt, out):
                changed.add(line.queue.id)
        for kind, payload in events:
            if kind == "queue.stats" and payload.get("queue_id") in self.lines:
                payload.update(self.counts(self.lines[payload["queue_id"]]))
                changed.discard(payload["queue_id"])
        out += [self.stats_event(self.lines[qid]) for qid in changed]
        due = [mid for at, mid in self.untranscribed if at <= now]
        if due:
            self.untranscribed = [(at, mid) for at, mid in self.untranscribed if at > now]
            out += [self.transcribe(self.voicemail[mid]) for mid in due if mid in self.voicemail]
        return out

    def _line_step(self, line: Line, dt: float, out: list) -> bool:
        queue, now, changed = line.queue, self.now, False
        is_open = line.schedule.open_at(now)
        if queue.closed == is_open:
            queue.closed = not is_open
            changed = True
            if queue.closed and not queue.held:  # the service sends the waiting to voicemail
                while queue.waiting:
                    out.append(self.leave_message(line, now - queue.waiting.pop()))
        if queue.arrivals > line.counted:
            line.records += [(now, "offered", 0)] * (queue.arrivals - line.counted)
            line.counted, changed = queue.arrivals, True
        if queue.answered:
            line.records += [(now, "answered", wait) for wait in queue.answered]
            queue.answered.clear()
            changed = True
        if queue.held or self.quiet:
            return changed
        if queue.closed and self.rng.random() < dt * CLOSED_CALLS:
            out.append(self.leave_message(line, 0))
        while len(queue.waiting) > OVERFLOW:
            out.append(self.leave_message(line, now - queue.waiting.pop()))
            changed = True
        for arrived in list(queue.waiting):
            if self.rng.random() < dt * ABANDON_RATE:
                queue.waiting.remove(arrived)
                line.records.append((now, "abandoned", now - arrived))
                changed = True
        return changed

    def counts(self, line: Line) -> dict:
        day = line.stats(self.start_of_day(), self.now)
        return {k: day[k] for k in ("offered", "answered", "abandoned")}

    def stats_event(self, line: Line):
        queue = line.queue
        waiting = queue.waiting
        return (
            "queue.stats",
            {
                "queue_id": queue.id,
                "name": queue.name,
                "waiting": len(waiting),
                "longest_wait_s": int(self.now - waiting[0]) if waiting else 0,
                "agents_available": sum(a.status == "available" for a in self.agents.values()),
                **self.counts(line),
            },
        )

    def leave_message(self, line: Line, waited: float, **given):
        """A caller leaves a message on `line`'s queue: its voicemail.received event."""
        line.records.append((self.now, "voicemail", waited))
        phone = f"+44 7700 {self.rng.randrange(900000, 999999)}"
        message = {
            "id": self.uid(),
            "queue_id": line.queue.id,
            "caller_name": given.get("caller_name") or self.rng.choice(CALLERS),
            "phone": given.get("phone") or phone,
            "received_at": iso(self.now - given.get("age_s", 0)),
            "duration_s": given.get("duration_s") or self.rng.randint(8, 90),
            "transcript": None,
            "status": "new",
            "handled_by": None,
            "handled_at": None,
        }
        self.voicemail[message["id"]] = message
        text = given.get("transcript") or self.rng.choice(TRANSCRIPTS)
        message["_text"] = text
        self.untranscribed.append((self.now + TRANSCRIBE_AFTER_S, message["id"]))
        return "voicemail.received", self.public(message, transcript=False)

    def transcribe(self, message: dict):
        message["transcript"] = message["_text"]
        return "voicemail.transcribed", {"id": message["id"], "transcript": message["transcript"]}

    @staticmethod
    def public(message: dict, transcript=True) -> dict:
        out = {k: v for k, v in message.items() if not k.startswith("_")}
        if not transcript:
            out.pop("transcript")
        return out

    # ---- REST -------------------------------------------------------------------------
    def messages(self, since: str = "", status: str = "") -> list[dict]:
        return [
            self.public(m)
            for m in self.voicemail.values()
            if (not since or m["received_at"] >= since) and (not status or m["status"] == status)
        ]

    def handle(self, message_id: str, by: str):
        """(200, the message) or (409, who handled it already); None for no such message."""
        message = self.voicemail.get(message_id)
        if message is None:
            return None
        if message["status"] == "handled":
            return 409, {"error": "already_handled", "handled_by": message["handled_by"]}
        message.update(status="handled", handled_by=by, handled_at=iso(self.now))
        return 200, self.public(message)

    def since(self, value: str) -> float:
        """An ISO time as seconds (the start of the day for nothing or nonsense)."""
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except (ValueError, AttributeError):
            return self.start_of_day()
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()

    # ---- The control API's moves and truth --------------------------------------------
    def reset(self, hold: bool):
        """Forget the day and the messages; with `hold`, the model's callers stop too."""
        self.quiet = hold
        self.voicemail.clear()
        self.untranscribed.clear()
        for line in self.lines.values():
            line.records.clear()
            line.queue.held = hold
            line.queue.waiting.clear()
            line.queue.answered.clear()
            line.counted = line.queue.arrivals
        for schedule in self.schedules.values():
            schedule.forced, schedule.holiday = None, None

    def add_calls(self, line: Line, calls: list[dict]):
        """Calls that reached the queue, each answered or abandoned after its wait."""
        for call in calls:
            line.records.append((self.now, "offered", 0))
            line.records.append((self.now, call["outcome"], float(call["wait_s"])))

    def truth(self) -> dict:
        day = self.start_of_day()
        return {
            "queues": [
                {
                    **line.rest(),
                    "open": line.schedule.open_at(self.now),
                    "waiting": len(line.queue.waiting),
                    "today": line.stats(day, self.now),
                }
                for line in self.lines.values()
            ],
            "schedules": [s.rest(self.now) for s in self.schedules.values()],
            "voicemail": [self.public(m) for m in self.voicemail.values()],
        }
