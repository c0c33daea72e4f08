"""Typed shapes of everything the service sends, and parsers that trust nothing.

Unknown fields are ignored, missing optional fields get defaults, anything else wrong
raises `ContractError`. The group-by-group differences of the REST API (bare lists, `data`
envelopes, camelCase) end here: the rest of the dashboard sees only these dataclasses.
"""

import logging
from dataclasses import dataclass, field
from datetime import datetime

from .errors import ContractError
from .fields import MAX_SCORE, NAME_LIMIT, boolean, integer, obj, score, string, text, timestamp

AGENT_STATUSES = ("available", "ringing", "on_call", "wrap_up", "paused", "offline")
CALL_STATES = ("ringing", "in_progress", "on_hold", "wrap_up")
WEBHOOK_EVENTS = (
    "call_completed",
    "appointment_booked",
    "qa_scored",
    "compliance_checked",
    "coaching_alert",
)
REALTIME_EVENTS = (
    "agent.status",
    "call.started",
    "call.updated",
    "call.ended",
    "queue.stats",
    "call.monitor",
)
# Events of the inbound side (contract 6.2): numbered in the same sequence, so the bridge
# follows them for their seq; what they say is read again over REST (upstream/inbound.py).
NOTICE_EVENTS = ("voicemail.received", "voicemail.transcribed")
log = logging.getLogger("dashboard.upstream.contract")
_told_counts: set[str] = set()  # queue.stats counters already logged as unusable
CALL_LIST_CAP = 200  # GET /calls?since= answers the newest calls, at most this many (contract 5)


def _rows(body, *, envelope: bool, what: str) -> list:
    rows = obj(body, what).get("data") if envelope else body
    if not isinstance(rows, list):
        raise ContractError(f"{what}: expected a list")
    return rows


def _each(rows, parse) -> list:
    """Parse every row; one bad row is left out rather than losing the whole answer."""
    out = []
    for row in rows:
        try:
            out.append(parse(row))
        except ContractError:
            continue
    return out


def agent_status_value(value) -> str:
    return value if value in AGENT_STATUSES else "unknown"


# ---- REST shapes --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Agent:
    agent_id: str
    name: str
    team: str
    status: str
    since: datetime | None
    call_id: str | None
    # contract 6.1: a pause asked during a call, and who set the state (None: the agent)
    pending_status: str | None = None
    changed_by: str | None = None


@dataclass(frozen=True, slots=True)
class Call:
    call_id: str
    agent_id: str | None
    campaign_id: str | None
    direction: str
    state: str
    ai_handled: bool
    started_at: datetime | None
    # GET /calls/{id} and the call history (contract 5): None while live, or not told
    ended_at: datetime | None = None
    outcome: str | None = None
    duration_s: int | None = None
    recording_id: str | None = None


@dataclass(frozen=True, slots=True)
class Campaign:
    id: str
    name: str
    status: str
    dial_mode: str
    total_contacts: int
    dialed_contacts: int
    connected_calls: int
    appointments_booked: int
    started_at: datetime | None


@dataclass(frozen=True, slots=True)
class Scorecard:
    id: str
    call_id: str | None
    agent_id: str | None
    template_id: str | None
    score: int
    max_score: int
    passed: bool
    scored_at: datetime | None


@dataclass(frozen=True, slots=True)
class Template:
    id: str
    name: str
    max_score: int


@dataclass(frozen=True, slots=True)
class ComplianceCheck:
    id: str
    call_id: str | None
    agent_id: str | None
    rule: str
    passed: bool
    checked_at: datetime | None


@dataclass(frozen=True, slots=True)
class CoachingAlert:
    id: str
    agent_id: str | None
    call_id: str | None
    kind: str
    severity: str
    message: str


@dataclass(frozen=True, slots=True)
class AiStatus:
    enabled: bool
    capabilities: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Webhook:
    id: str
    name: str
    url: str
    events: tuple[str, ...]
    secret: str


@dataclass(frozen=True, slots=True)
class Delivery:
    id: str
    event: str
    attempt: int
    status_code: int | None
    sent_at: datetime | None


def parse_agent_rest(d) -> Agent:  # GET /agent-status rows: camelCase
    d = obj(d, "agent")
    return Agent(
        agent_id=string(d, "agentId"),
        name=text(d, "name", limit=NAME_LIMIT) or "Unnamed agent",
        team=text(d, "team", limit=NAME_LIMIT),
        status=agent_status_value(d.get("status")),
        since=timestamp(d, "statusSince", optional=True),
        call_id=string(d, "callId", optional=True),
        pending_status=settable_status(d.get("pendingStatus")),
        changed_by=text(d, "changedBy", limit=NAME_LIMIT) or None,
    )


def parse_call(d) -> Call:
    d = obj(d, "call")
    return Call(
        call_id=string(d, "id"),
        agent_id=string(d, "agent_id", optional=True),
        campaign_id=string(d, "campaign_id", optional=True),
        direction=text(d, "direction", "outbound"),
        state=text(d, "state", "in_progress"),
        ai_handled=boolean(d, "ai_handled"),
        started_at=timestamp(d, "started_at", optional=True),
        ended_at=timestamp(d, "ended_at", optional=True),
        outcome=string(d, "outcome", optional=True, limit=60),
        duration_s=None if d.get("duration_s") is None else integer(d, "duration_s", low=0),
        recording_id=string(d, "recording_id", optional=True),
    )


def parse_campaign(d) -> Campaign:  # camelCase, like /agent-status
    d = obj(d, "campaign")
    return Campaign(
        id=string(d, "id"),
        name=text(d, "name", limit=NAME_LIMIT) or "Unnamed campaign",
        status=text(d, "status", "unknown"),
        dial_mode=text(d, "dialMode", "unknown"),
        total_contacts=integer(d, "totalContacts", default=0),
        dialed_contacts=integer(d, "dialedContacts", default=0),
        connected_calls=integer(d, "connectedCalls", default=0),
        appointments_booked=integer(d, "appointmentsBooked", default=0),
        started_at=timestamp(d, "startedAt", optional=True),
    )


def parse_scorecard(d) -> Scorecard:
    d = obj(d, "scorecard")
    return Scorecard(
        id=string(d, "id"),
        call_id=string(d, "call_id", optional=True),
        agent_id=string(d, "agent_id", optional=True),
        template_id=string(d, "template_id", optional=True),
        score=score(d),
        max_score=integer(d, "max_score", low=1, high=MAX_SCORE),
        passed=boolean(d, "passed"),
        scored_at=timestamp(d, "scored_at", optional=True),
    )


def parse_template(d) -> Template:
    d = obj(d, "template")
    return Template(
        id=string(d, "id"),
        name=text(d, "name", limit=NAME_LIMIT),
        max_score=integer(d, "max_score"),
    )


def parse_check(d) -> ComplianceCheck:
    d = obj(d, "compliance check")
    return ComplianceCheck(
        id=string(d, "id"),
        call_id=string(d, "call_id", optional=True),
        agent_id=string(d, "agent_id", optional=True),
        rule=string(d, "rule", limit=120),
        passed=boolean(d, "passed"),
        checked_at=timestamp(d, "checked_at", optional=True),
    )


def parse_alert(d) -> CoachingAlert:
    d = obj(d, "coaching alert")
    severity = d.get("severity")
    return CoachingAlert(
        id=string(d, "alert_id"),
        agent_id=string(d, "agent_id", optional=True),
        call_id=string(d, "call_id", optional=True),
        kind=string(d, "kind", optional=True, default="other", limit=80),
        severity=severity if severity in ("info", "warning", "critical") else "info",
        message=text(d, "message"),
    )


def parse_ai(d) -> AiStatus:
    d = obj(d, "ai status")
    caps = d.get("capabilities")
    caps = tuple(cap for cap in caps if isinstance(cap, str)) if isinstance(caps, list) else ()
    return AiStatus(enabled=boolean(d, "enabled"), capabilities=caps)


def parse_webhook(d) -> Webhook:
    d = obj(d, "webhook")
    events = d.get("events")
    return Webhook(
        id=string(d, "id"),
        name=text(d, "name", limit=NAME_LIMIT),
        url=text(d, "url"),
        events=tuple(events) if isinstance(events, list) else (),
        secret=text(d, "secret"),
    )


def parse_delivery(d) -> Delivery:
    d = obj(d, "delivery")
    status = d.get("status_code")
    return Delivery(
        id=string(d, "id"),
        event=text(d, "event"),
        attempt=integer(d, "attempt", default=1),
        status_code=status if isinstance(status, int) and not isinstance(status, bool) else None,
        sent_at=timestamp(d, "sent_at", optional=True),
    )


# ---- Call evidence (contract 5): a recording's short-lived address ---------------------------
@dataclass(frozen=True, slots=True)
class Recording:
    """`url` is a signed address that expires: handed to the person who asked, never kept."""

    id: str
    call_id: str | None
    duration_s: int | None
    url: str = field(repr=False)
    expires_at: datetime | None


def parse_recording(d) -> Recording:
    d = obj(d, "recording")
    url = string(d, "url", limit=4000)  # signed addresses are long; a cut one would not play
    if not url.startswith(("https://", "http://")):
        raise ContractError("url must be an http(s) address")
    return Recording(
        id=string(d, "id"),
        call_id=string(d, "call_id", optional=True),
        duration_s=None if d.get("duration_s") is None else integer(d, "duration_s", low=0),
        url=url,
        expires_at=timestamp(d, "expires_at", optional=True),
    )


def recordings_from(body) -> list[Recording]:
    return _each(_rows(body, envelope=True, what="/recordings"), parse_recording)


# Each REST row: how its answer is wrapped, and how one item parses.
def agents_from(body) -> list[Agent]:
    return _each(_rows(body, envelope=False, what="/agent-status"), parse_agent_rest)


def calls_from(body) -> list[Call]:
    return _each(_rows(body, envelope=True, what="/calls"), parse_call)


def campaigns_from(body) -> list[Campaign]:
    return _each(_rows(body, envelope=False, what="/campaigns"), parse_campaign)


def scorecards_from(body) -> list[Scorecard]:
    return _each(_rows(body, envelope=True, what="/qa/scorecards"), parse_scorecard)


def templates_from(body) -> list[Template]:
    return _each(_rows(body, envelope=True, what="/qa/templates"), parse_template)


def checks_from(body) -> list[ComplianceCheck]:
    return _each(_rows(body, envelope=True, what="/compliance/checks"), parse_check)


def alerts_from(body) -> list[CoachingAlert]:
    return _each(_rows(body, envelope=True, what="/coaching/alerts"), parse_alert)


def deliveries_from(body) -> list[Delivery]:
    return _each(_rows(body, envelope=True, what="deliveries"), parse_delivery)


# ---- Outbound operations: contract section 5 ----------------------------------------------
CALLBACK_STATUSES = ("scheduled", "due", "missed", "done")


@dataclass(frozen=True, slots=True)
class DialerQueue:
    campaign_id: str
    pending: int
    retry_scheduled: int
    exhausted: int
    next_attempt_at: datetime | None


@dataclass(frozen=True, slots=True)
class Callback:
    """`phone_last4` is all the dashboard keeps of the number: the whole one never leaves
    the parser, so no cache, page or log can hold it."""

    id: str
    campaign_id: str | None
    agent_id: str | None
    contact_name: str
    phone_last4: str
    due_at: datetime
    status: str  # one of CALLBACK_STATUSES, or "unknown"


@dataclass(frozen=True, slots=True)
class PendingBooking:
    id: str
    call_id: str | None
    campaign_id: str | None
    contact_name: str
    reason: str
    created_at: datetime | None


@dataclass(frozen=True, slots=True)
class AiDialerCampaign:
    campaign_id: str
    active: bool
    concurrent_calls: int
    max_concurrent: int


def _count(d: dict, key: str) -> int:
    return integer(d, key, default=0, low=0)


def last_four(phone) -> str:
    """The last four digits of a phone number ("" when it has fewer)."""
    digits = "".join(ch for ch in phone if ch in "0123456789") if isinstance(phone, str) else ""
    return digits[-4:] if len(digits) >= 4 else ""


def parse_dialer_queue(d) -> DialerQueue:  # camelCase, like /campaigns
    d = obj(d, "dialer queue")
    return DialerQueue(
        campaign_id=string(d, "campaignId"),
        pending=_count(d, "pending"),
        retry_scheduled=_count(d, "retryScheduled"),
        exhausted=_count(d, "exhausted"),
        next_attempt_at=timestamp(d, "nextAttemptAt", optional=True),
    )


def parse_callback(d) -> Callback:
    d = obj(d, "callback")
    status = d.get("status")
    return Callback(
        id=string(d, "id"),
        campaign_id=string(d, "campaign_id", optional=True),
        agent_id=string(d, "agent_id", optional=True),
        contact_name=text(d, "contact_name", limit=NAME_LIMIT),
        phone_last4=last_four(d.get("phone")),
        due_at=timestamp(d, "due_at"),
        status=status if status in CALLBACK_STATUSES else "unknown",
    )


def parse_pending_booking(d) -> PendingBooking:
    d = obj(d, "pending booking")
    return PendingBooking(
        id=string(d, "id"),
        call_id=string(d, "call_id", optional=True),
        campaign_id=string(d, "campaign_id", optional=True),
        contact_name=text(d, "contact_name", limit=NAME_LIMIT),
        reason=text(d, "reason", limit=500),
        created_at=timestamp(d, "created_at", optional=True),
    )


def parse_ai_dialer_campaign(d) -> AiDialerCampaign:
    d = obj(d, "AI dialer campaign")
    return AiDialerCampaign(
        campaign_id=string(d, "campaign_id"),
        active=boolean(d, "active"),
        concurrent_calls=_count(d, "concurrent_calls"),
        max_concurrent=_count(d, "max_concurrent"),
    )


def dialer_queue_from(body) -> list[DialerQueue]:
    return _each(_rows(body, envelope=False, what="/dialer-queue/summary"), parse_dialer_queue)


def callbacks_from(body) -> list[Callback]:
    return _each(_rows(body, envelope=True, what="/callbacks"), parse_callback)


def pending_bookings_from(body) -> list[PendingBooking]:
    return _each(_rows(body, envelope=True, what="/pending-bookings"), parse_pending_booking)


def ai_dialer_from(body) -> list[AiDialerCampaign]:
    rows = obj(body, "/ai-dialer").get("campaigns")
    if not isinstance(rows, list):
        raise ContractError("/ai-dialer: expected a list of campaigns")
    return _each(rows, parse_ai_dialer_campaign)


# ---- Interventions (contract 6.1) ---------------------------------------------------------
MONITOR_MODES = ("listen", "whisper", "barge")
MONITOR_STATES = ("dialing", "connected", "ended")
SETTABLE_STATUSES = ("available", "paused", "offline")


def settable_status(value) -> str | None:
    """A state a supervisor may set (a pending one), or None for anything else."""
    return value if value in SETTABLE_STATUSES else None


@dataclass(frozen=True, slots=True)
class CallMonitor:
    """One monitoring session as the service last told it (a `call.monitor` event)."""

    call_id: str
    session_id: str
    supervisor_id: str
    supervisor_name: str
    mode: str  # one of MONITOR_MODES, or "unknown"
    state: str  # one of MONITOR_STATES; anything else reads as "ended"
    at: datetime | None


def _id_text(value) -> str:
    """An id the dashboard gave (a user's), as text; "" when it is not one."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and len(value) <= 200 else ""


def parse_monitor(d) -> CallMonitor:
    d = obj(d, "call.monitor")
    mode, state = d.get("mode"), d.get("state")
    return CallMonitor(
        call_id=string(d, "call_id"),
        session_id=string(d, "session_id"),
        supervisor_id=_id_text(d.get("supervisor_id")),
        supervisor_name=text(d, "supervisor_name", limit=NAME_LIMIT) or "A supervisor",
        mode=mode if mode in MONITOR_MODES else "unknown",
        state=state if state in MONITOR_STATES else "ended",
        at=_moment(d, "at"),
    )


def _moment(d: dict, key: str) -> datetime | None:
    """An optional time; a wrong one is None (the event's own time stands in)."""
    try:
        return timestamp(d, key, optional=True)
    except ContractError:
        return None


@dataclass(frozen=True, slots=True)
class MonitorSession:
    """The answer to starting or switching a session (what was asked, as accepted)."""

    session_id: str
    call_id: str
    mode: str
    state: str
    started_at: datetime | None


def parse_session(d) -> MonitorSession:
    d = obj(d, "monitoring session")
    mode, state = d.get("mode"), d.get("state")
    return MonitorSession(
        session_id=string(d, "session_id"),
        call_id=string(d, "call_id"),
        mode=mode if mode in MONITOR_MODES else "unknown",
        state=state if state in MONITOR_STATES else "dialing",
        started_at=_moment(d, "started_at"),
    )


# ---- Realtime events ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AgentChanged:
    agent: Agent


@dataclass(frozen=True, slots=True)
class CallStarted:
    call: Call


@dataclass(frozen=True, slots=True)
class CallUpdated:
    call_id: str
    state: str
    agent_id: str | None


@dataclass(frozen=True, slots=True)
class CallEnded:
    call_id: str
    ended_at: datetime | None
    outcome: str
    duration_s: int


@dataclass(frozen=True, slots=True)
class QueueStats:
    queue_id: str
    name: str
    waiting: int
    longest_wait_s: int
    agents_available: int
    # The queue's day so far (contract 6.2); None where the event does not carry them.
    offered: int | None = None
    answered: int | None = None
    abandoned: int | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """An event the live state does not apply (NOTICE_EVENTS): its kind only."""

    kind: str


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    organization_id: str
    seq: int
    emitted_at: datetime
    body: AgentChanged | CallStarted | CallUpdated | CallEnded | QueueStats | CallMonitor | Notice


def _event_body(kind: str, d: dict):
    if kind == "agent.status":
        return AgentChanged(
            Agent(
                agent_id=string(d, "agent_id"),
                name=text(d, "name", limit=NAME_LIMIT) or "Unnamed agent",
                team=text(d, "team", limit=NAME_LIMIT),
                status=agent_status_value(d.get("status")),
                since=timestamp(d, "since", optional=True),
                call_id=string(d, "call_id", optional=True),
                pending_status=settable_status(d.get("pending_status")),
                changed_by=text(d, "changed_by", limit=NAME_LIMIT) or None,
            )
        )
    if kind == "call.started":
        return CallStarted(
            Call(
                call_id=string(d, "call_id"),
                agent_id=string(d, "agent_id", optional=True),
                campaign_id=string(d, "campaign_id", optional=True),
                direction=text(d, "direction", "outbound"),
                state="ringing",
                ai_handled=boolean(d, "ai_handled"),
                started_at=timestamp(d, "started_at", optional=True),
            )
        )
    if kind == "call.updated":
        return CallUpdated(
            call_id=string(d, "call_id"),
            state=text(d, "state", "in_progress"),
            agent_id=string(d, "agent_id", optional=True),
        )
    if kind == "call.ended":
        return CallEnded(
            call_id=string(d, "call_id"),
            ended_at=timestamp(d, "ended_at", optional=True),
            outcome=text(d, "outcome", "unknown"),
            duration_s=max(0, integer(d, "duration_s", default=0)),
        )
    if kind == "queue.stats":
        return QueueStats(
            queue_id=string(d, "queue_id"),
            name=text(d, "name", limit=NAME_LIMIT) or "Queue",
            waiting=max(0, integer(d, "waiting", default=0)),
            longest_wait_s=max(0, integer(d, "longest_wait_s", default=0)),
            agents_available=max(0, integer(d, "agents_available", default=0)),
            **{k: _day_count(d, k) for k in ("offered", "answered", "abandoned")},
        )
    if kind == "call.monitor":
        return parse_monitor(d)
    if kind in NOTICE_EVENTS:
        return Notice(kind)
    raise ContractError(f"unknown event {kind!r}")


def _day_count(d: dict, key: str) -> int | None:
    """A count of the queue's day, or None when it is missing or not a count (a service
    without the inbound side's counters still sends the rest of the event)."""
    value = d.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        if value is not None and key not in _told_counts:
            _told_counts.add(key)
            log.warning("queue.stats: %s is not a count (%r); left unknown", key, value)
        return None
    return value


def parse_event(kind: str, data) -> Event:
    d = obj(data, kind)
    return Event(
        kind=kind,
        organization_id=string(d, "organization_id"),
        seq=integer(d, "seq"),
        emitted_at=timestamp(d, "emitted_at"),
        body=_event_body(kind, d),
    )
