"""The outbound side of a simulated organisation (contract section 5): each campaign's
dialer queue, callbacks, the bookings its AI could not complete, the AI dialer's
concurrency, and starting and stopping campaigns.

The floor model (model.py) asks `may_dial` before each dial attempt and reports each
attempt and each ended call here. Draws (ids too) come from a generator of its own, so a
seed's floor events stay what they were wherever the outbound side does not change what
the floor does (a campaign out of leads, stopped, or at its AI concurrency does not dial).
"""

import heapq
import random
import uuid
from dataclasses import dataclass, field

from .clock import iso

MAX_ATTEMPTS = 3  # dial attempts per lead before it is exhausted
RETRY_AFTER_S = (300.0, 1800.0)  # an unanswered lead is tried again after this long
AI_MAX_CONCURRENT = 6  # AI calls one AI campaign may have at once
CALLBACK_AFTER_S = (900.0, 5400.0)  # a call that ended asking for a callback: due after
CALLBACK_GRACE_S = 900.0  # a due callback not made within this is missed
CALLBACKS_MADE = 0.8  # the share of callbacks agents make in time
CALLBACKS_KEPT_S = 24 * 3600.0  # older callbacks drop out of the service's list
BOOKINGS_KEPT = 100
BOOKING_FAILURES = [
    "No free slot in the calendar at the time asked for",
    "Customer wants to speak to a person before booking",
    "Address could not be confirmed",
    "The calendar service did not answer",
]
FIRST = ["Alex", "Sam", "Jordan", "Morgan", "Riley", "Casey", "Taylor", "Jamie", "Robin"]
LAST = ["Reid", "Evans", "Hughes", "Lopez", "Novak", "Sato", "Byrne", "Ortiz", "Walsh"]


@dataclass
class DialerQueue:
    """A campaign's leads: fresh ones never dialed, and unanswered ones waiting to be tried
    again (a heap of (due time, attempts so far))."""

    fresh: int
    retries: list = field(default_factory=list)
    exhausted: int = 0

    def due_retries(self, now: float) -> int:
        return sum(1 for due, _ in self.retries if due <= now)

    def has_lead(self, now: float) -> bool:
        return bool(self.fresh) or bool(self.retries and self.retries[0][0] <= now)

    def take(self, now: float) -> int:
        """One lead to dial now; its attempts so far (a due retry first, else a fresh one)."""
        if self.retries and self.retries[0][0] <= now:
            return heapq.heappop(self.retries)[1]
        self.fresh -= 1
        return 0

    def rest(self, campaign_id: str, dialing: bool, now: float) -> dict:
        due = self.due_retries(now)
        pending = self.fresh + due
        if dialing and pending:
            next_at = iso(now)
        else:
            later = [at for at, _ in self.retries if at > now]
            next_at = iso(min(later)) if later else None
        return {
            "campaignId": campaign_id,
            "pending": pending,
            "retryScheduled": len(self.retries) - due,
            "exhausted": self.exhausted,
            "nextAttemptAt": next_at,
        }


@dataclass
class Callback:
    id: str
    campaign_id: str
    agent_id: str | None
    contact_name: str
    phone: str
    due: float
    made_after: float | None  # seconds after due when the agent makes it; None: missed

    def status(self, now: float) -> str:
        if now < self.due:
            return "scheduled"
        if self.made_after is not None and now >= self.due + self.made_after:
            return "done"
        return "due" if now < self.due + CALLBACK_GRACE_S else "missed"

    def rest(self, now: float) -> dict:
        return {
            "id": self.id,
            "campaign_id": self.campaign_id,
            "agent_id": self.agent_id,
            "contact_name": self.contact_name,
            "phone": self.phone,
            "due_at": iso(self.due),
            "status": self.status(now),
        }


class Outbound:
    def __init__(self, seed: str, campaigns: dict, agents: dict, now: float):
        self.rng = random.Random(f"outbound:{seed}")
        self.campaigns = campaigns
        self.queues = {x.id: self._worked_before(x, now) for x in campaigns.values()}
        self.concurrency = {
            x.id: AI_MAX_CONCURRENT for x in campaigns.values() if x.dial_mode == "ai"
        }
        self.callbacks: list[Callback] = []
        self.bookings: list[dict] = []
        # The day so far: callbacks made, missed, due and to come (some beyond the next
        # hour, so `due_before` has something to leave out); bookings left pending.
        for campaign in campaigns.values():
            if campaign.dial_mode == "ai":
                for _ in range(3):
                    self._booking(campaign.id, None, now - self.rng.uniform(300, 7200))
                continue
            for _ in range(12):
                agent = self.rng.choice(list(agents))
                self._callback(campaign.id, agent, now + self.rng.uniform(-4 * 3600, 3 * 3600))

    def _worked_before(self, campaign, now: float) -> DialerQueue:
        """The campaign's queue and counters after the hours it ran before the simulator
        started: most of its list dialed, some leads waiting for a retry, some exhausted."""
        worked = int(campaign.total * self.rng.uniform(0.3, 0.95))
        campaign.dialed = worked
        campaign.connected = int(worked * self.rng.uniform(0.35, 0.5))
        campaign.booked = int(campaign.connected * self.rng.uniform(0.06, 0.14))
        retries = [
            (now + self.rng.uniform(0, RETRY_AFTER_S[1]), self.rng.randint(1, MAX_ATTEMPTS - 1))
            for _ in range(int(worked * 0.05))
        ]
        heapq.heapify(retries)
        exhausted = int((worked - campaign.connected - len(retries)) * 0.4)
        return DialerQueue(campaign.total - worked, retries, exhausted)

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    # ---- What the floor model asks and tells --------------------------------------------
    def may_dial(self, campaign, calls: dict, now: float) -> bool:
        if campaign.status != "active" or not self.queues[campaign.id].has_lead(now):
            return False
        limit = self.concurrency.get(campaign.id)
        return limit is None or self.ai_calls(campaign.id, calls) < limit

    def dialed(self, campaign, connected: bool, now: float) -> bool:
        """One dial attempt: its lead is done when it connected, else tried again later or,
        after MAX_ATTEMPTS, exhausted. True when it was the lead's first (`dialedContacts`
        counts contacts, not attempts)."""
        queue = self.queues[campaign.id]
        attempts = queue.take(now) + 1
        if connected:
            pass
        elif attempts < MAX_ATTEMPTS:
            heapq.heappush(queue.retries, (now + self.rng.uniform(*RETRY_AFTER_S), attempts))
        else:
            queue.exhausted += 1
        return attempts == 1

    def call_ended(self, call, now: float):
        """A call that ended with "callback": the agent's callback, or a booking the AI
        could not complete (half of its calls that ended so)."""
        if call.campaign_id not in self.queues or call.outcome != "callback":
            return
        if call.agent_id:
            self._callback(
                call.campaign_id, call.agent_id, now + self.rng.uniform(*CALLBACK_AFTER_S)
            )
        elif call.ai_handled and self.rng.random() < 0.5:
            self._booking(call.campaign_id, call.id, now)

    # ---- Starting and stopping ----------------------------------------------------------
    def start_or_stop(self, campaign, action: str) -> bool:
        """Start or stop; False when the campaign already is in that state."""
        if (action == "start") == (campaign.status == "active"):
            return False
        campaign.status = "active" if action == "start" else "stopped"
        return True

    # ---- REST views ---------------------------------------------------------------------
    def queue_summary(self, now: float) -> list[dict]:
        return [
            queue.rest(campaign_id, self.campaigns[campaign_id].status == "active", now)
            for campaign_id, queue in self.queues.items()
        ]

    def callbacks_due_before(self, before: float | None, now: float) -> list[dict]:
        cut = now - CALLBACKS_KEPT_S
        self.callbacks = [x for x in self.callbacks if x.due >= cut]
        return [x.rest(now) for x in self.callbacks if before is None or x.due < before]

    def pending_bookings(self) -> list[dict]:
        return [{**x, "created_at": iso(x["created_at"])} for x in self.bookings]

    def ai_dialer(self, calls: dict) -> dict:
        return {
            "campaigns": [
                {
                    "campaign_id": campaign_id,
                    "active": self.campaigns[campaign_id].status == "active",
                    "concurrent_calls": self.ai_calls(campaign_id, calls),
                    "max_concurrent": limit,
                }
                for campaign_id, limit in self.concurrency.items()
            ]
        }

    @staticmethod
    def ai_calls(campaign_id: str, calls: dict) -> int:
        return sum(1 for x in calls.values() if x.campaign_id == campaign_id and x.ai_handled)

    # ---- Made up: contacts, callbacks, bookings -----------------------------------------
    def _contact(self) -> tuple[str, str]:
        name = f"{self.rng.choice(FIRST)} {self.rng.choice(LAST)}"
        return name, f"+44 7700 {self.rng.randrange(1_000_000):06d}"

    def _callback(self, campaign_id: str, agent_id: str | None, due: float):
        name, phone = self._contact()
        made = self.rng.uniform(0, CALLBACK_GRACE_S)
        if self.rng.random() >= CALLBACKS_MADE:
            made = None
        self.callbacks.append(Callback(self.uid(), campaign_id, agent_id, name, phone, due, made))
        self.callbacks.sort(key=lambda x: x.due)

    def _booking(self, campaign_id: str, call_id: str | None, at: float):
        name, _ = self._contact()
        self.bookings.append(
            {
                "id": self.uid(),
                "call_id": call_id or self.uid(),
                "campaign_id": campaign_id,
                "contact_name": name,
                "reason": self.rng.choice(BOOKING_FAILURES),
                "created_at": at,
            }
        )
        del self.bookings[:-BOOKINGS_KEPT]
