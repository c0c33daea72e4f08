"""Typed shapes of everything the service sends, and parsers that trust nothing.

Unknown fields are ignored, missing optional fields get defaults, anything else wrong
raises `ContractError`. The group-by-group differences of the REST API (bare lists, `data`
envelopes, camelCase) end here: the rest of the dashboard sees only these dataclasses.
"""

import math
from dataclasses import dataclass
from datetime import datetime

from .errors import ContractError

AGENT_STATUSES = ("available", "ringing", "on_call", "wrap_up", "paused", "offline")
CALL_STATES = ("ringing", "in_progress", "on_hold", "wrap_up")
WEBHOOK_EVENTS = (
    "call_completed",
    "appointment_booked",
    "qa_scored",
    "compliance_checked",
    "coaching_alert",
)
REALTIME_EVENTS = ("agent.status", "call.started", "call.updated", "call.ended", "queue.stats")


# ---- Field readers ------------------------------------------------------------------------
# Limits the database keeps too (PostgreSQL refuses what SQLite would store): an id longer
# than ID_LIMIT or a number outside what a field may hold is refused, free text is cut.
ID_LIMIT = 200
TEXT_LIMIT = 2000
NAME_LIMIT = 120
MAX_SCORE = 100_000
# Direction overrides and isolates (U+202A-U+202E, U+2066-U+2069): a name holding them
# would turn the text after it around on the page. The marks (U+200E, U+200F) are harmless.
BIDI_CONTROLS = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def _obj(data, what="payload") -> dict:
    if not isinstance(data, dict):
        raise ContractError(f"{what} is not an object")
    return data


def _str(d: dict, key: str, *, optional=False, default=None, limit=ID_LIMIT):
    """An identifier or a code: non-empty, at most `limit` characters."""
    value = d.get(key)
    if value is None and optional:
        return default
    if not isinstance(value, str) or not value:
        raise ContractError(f"{key} must be a non-empty string")
    if len(value) > limit:
        raise ContractError(f"{key} is longer than {limit} characters")
    return value


def _text(d: dict, key: str, default="", limit=TEXT_LIMIT) -> str:
    """Free text from the service (names, messages): cut to `limit`, overrides removed."""
    value = d.get(key)
    if not isinstance(value, str):
        return default
    value = value.translate(BIDI_CONTROLS)
    return value if len(value) <= limit else value[: limit - 1] + "\u2026"


def _int(d: dict, key: str, *, default=None, low=None, high=2**31 - 1) -> int:
    """A whole number within [low, high] (by default what a PostgreSQL integer holds)."""
    value = d.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ContractError(f"{key} must be a number")
    if isinstance(value, float) and not math.isfinite(value):  # JSON's NaN and Infinity
        raise ContractError(f"{key} must be a finite number")
    if (low is not None and value < low) or value > high:
        raise ContractError(f"{key} must be between {low} and {high}, not {value}")
    return int(value)


def _bool(d: dict, key: str, default=False) -> bool:
    value = d.get(key, default)
    if not isinstance(value, bool):
        raise ContractError(f"{key} must be true or false")
    return value


def _time(d: dict, key: str, *, optional=False) -> datetime | None:
    value = d.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ContractError(f"{key} must be an ISO 8601 time")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ContractError(f"{key} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        raise ContractError(f"{key} has no time zone")
    return parsed


def _rows(body, *, envelope: bool, what: str) -> list:
    rows = _obj(body, what).get("data") if envelope else body
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


@dataclass(frozen=True, slots=True)
class Call:
    call_id: str
    agent_id: str | None
    campaign_id: str | None
    direction: str
    state: str
    ai_handled: bool
    started_at: datetime | None


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
    d = _obj(d, "agent")
    return Agent(
        agent_id=_str(d, "agentId"),
        name=_text(d, "name", limit=NAME_LIMIT) or "Unnamed agent",
        team=_text(d, "team", limit=NAME_LIMIT),
        status=agent_status_value(d.get("status")),
        since=_time(d, "statusSince", optional=True),
        call_id=_str(d, "callId", optional=True),
    )


def parse_call(d) -> Call:
    d = _obj(d, "call")
    return Call(
        call_id=_str(d, "id"),
        agent_id=_str(d, "agent_id", optional=True),
        campaign_id=_str(d, "campaign_id", optional=True),
        direction=_text(d, "direction", "outbound"),
        state=_text(d, "state", "in_progress"),
        ai_handled=_bool(d, "ai_handled"),
        started_at=_time(d, "started_at", optional=True),
    )


def parse_campaign(d) -> Campaign:  # camelCase, like /agent-status
    d = _obj(d, "campaign")
    return Campaign(
        id=_str(d, "id"),
        name=_text(d, "name", limit=NAME_LIMIT) or "Unnamed campaign",
        status=_text(d, "status", "unknown"),
        dial_mode=_text(d, "dialMode", "unknown"),
        total_contacts=_int(d, "totalContacts", default=0),
        dialed_contacts=_int(d, "dialedContacts", default=0),
        connected_calls=_int(d, "connectedCalls", default=0),
        appointments_booked=_int(d, "appointmentsBooked", default=0),
        started_at=_time(d, "startedAt", optional=True),
    )


def parse_scorecard(d) -> Scorecard:
    d = _obj(d, "scorecard")
    return Scorecard(
        id=_str(d, "id"),
        call_id=_str(d, "call_id", optional=True),
        agent_id=_str(d, "agent_id", optional=True),
        template_id=_str(d, "template_id", optional=True),
        score=_score(d),
        max_score=_int(d, "max_score", low=1, high=MAX_SCORE),
        passed=_bool(d, "passed"),
        scored_at=_time(d, "scored_at", optional=True),
    )


def _score(d: dict) -> int:
    """A score between 0 and its own maximum (a score over it would make averages lie)."""
    return _int(d, "score", low=0, high=_int(d, "max_score", low=1, high=MAX_SCORE))


def parse_template(d) -> Template:
    d = _obj(d, "template")
    return Template(
        id=_str(d, "id"), name=_text(d, "name", limit=NAME_LIMIT), max_score=_int(d, "max_score")
    )


def parse_check(d) -> ComplianceCheck:
    d = _obj(d, "compliance check")
    return ComplianceCheck(
        id=_str(d, "id"),
        call_id=_str(d, "call_id", optional=True),
        agent_id=_str(d, "agent_id", optional=True),
        rule=_str(d, "rule", limit=120),
        passed=_bool(d, "passed"),
        checked_at=_time(d, "checked_at", optional=True),
    )


def parse_alert(d) -> CoachingAlert:
    d = _obj(d, "coaching alert")
    severity = d.get("severity")
    return CoachingAlert(
        id=_str(d, "alert_id"),
        agent_id=_str(d, "agent_id", optional=True),
        call_id=_str(d, "call_id", optional=True),
        kind=_str(d, "kind", optional=True, default="other", limit=80),
        severity=severity if severity in ("info", "warning", "critical") else "info",
        message=_text(d, "message"),
    )


def parse_ai(d) -> AiStatus:
    d = _obj(d, "ai status")
    caps = d.get("capabilities")
    caps = tuple(c for c in caps if isinstance(c, str)) if isinstance(caps, list) else ()
    return AiStatus(enabled=_bool(d, "enabled"), capabilities=caps)


def parse_webhook(d) -> Webhook:
    d = _obj(d, "webhook")
    events = d.get("events")
    return Webhook(
        id=_str(d, "id"),
        name=_text(d, "name", limit=NAME_LIMIT),
        url=_text(d, "url"),
        events=tuple(events) if isinstance(events, list) else (),
        secret=_text(d, "secret"),
    )


def parse_delivery(d) -> Delivery:
    d = _obj(d, "delivery")
    status = d.get("status_code")
    return Delivery(
        id=_str(d, "id"),
        event=_text(d, "event"),
        attempt=_int(d, "attempt", default=1),
        status_code=status if isinstance(status, int) and not isinstance(status, bool) else None,
        sent_at=_time(d, "sent_at", optional=True),
    )


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


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    organization_id: str
    seq: int
    emitted_at: datetime
    body: AgentChanged | CallStarted | CallUpdated | CallEnded | QueueStats


def _event_body(kind: str, d: dict):
    if kind == "agent.status":
        return AgentChanged(
            Agent(
                agent_id=_str(d, "agent_id"),
                name=_text(d, "name", limit=NAME_LIMIT) or "Unnamed agent",
                team=_text(d, "team", limit=NAME_LIMIT),
                status=agent_status_value(d.get("status")),
                since=_time(d, "since", optional=True),
                call_id=_str(d, "call_id", optional=True),
            )
        )
    if kind == "call.started":
        return CallStarted(
            Call(
                call_id=_str(d, "call_id"),
                agent_id=_str(d, "agent_id", optional=True),
                campaign_id=_str(d, "campaign_id", optional=True),
                direction=_text(d, "direction", "outbound"),
                state="ringing",
                ai_handled=_bool(d, "ai_handled"),
                started_at=_time(d, "started_at", optional=True),
            )
        )
    if kind == "call.updated":
        return CallUpdated(
            call_id=_str(d, "call_id"),
            state=_text(d, "state", "in_progress"),
            agent_id=_str(d, "agent_id", optional=True),
        )
    if kind == "call.ended":
        return CallEnded(
            call_id=_str(d, "call_id"),
            ended_at=_time(d, "ended_at", optional=True),
            outcome=_text(d, "outcome", "unknown"),
            duration_s=max(0, _int(d, "duration_s", default=0)),
        )
    if kind == "queue.stats":
        return QueueStats(
            queue_id=_str(d, "queue_id"),
            name=_text(d, "name", limit=NAME_LIMIT) or "Queue",
            waiting=max(0, _int(d, "waiting", default=0)),
            longest_wait_s=max(0, _int(d, "longest_wait_s", default=0)),
            agents_available=max(0, _int(d, "agents_available", default=0)),
        )
    raise ContractError(f"unknown event {kind!r}")


def parse_event(kind: str, data) -> Event:
    d = _obj(data, kind)
    return Event(
        kind=kind,
        organization_id=_str(d, "organization_id"),
        seq=_int(d, "seq"),
        emitted_at=_time(d, "emitted_at"),
        body=_event_body(kind, d),
    )
