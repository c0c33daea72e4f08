"""The service's webhook deliveries: signature check over the raw body, then parsing.

The signature is verified before anything is parsed (spec 5.7): `sha256=` + hex
HMAC-SHA256 of the body exactly as received, compared in constant time against every
configured secret, so two may be valid during a rotation.
"""

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.cache import cache

from . import contract as c
from . import fields
from .errors import ContractError

EVENT_HEADER = "X-Webhook-Event"
SIGNATURE_HEADER = "X-Webhook-Signature"
PREFIX = "sha256="
MAX_CALL_S = 86_400  # a call longer than a day is a wrong number, not a call
TRANSCRIPT_LIMIT = 100_000  # characters kept of a transcript (the body is at most 256 KiB)
FUTURE_SKEW = timedelta(minutes=5)  # clocks differ a little; a call dated 2099 is wrong


# The organisation this dashboard serves, as the service user's sign-in names it. The
# bridge remembers it where every web process reads it; a delivery naming another is
# refused (spec 1.2: one organisation's data never reaches another's screens).
ORGANIZATION_KEY = "upstream:organization"


def remember_organization(organization_id: str):
    cache.set(ORGANIZATION_KEY, organization_id, None)


def known_organization() -> str | None:
    """None until the bridge has signed in once (with Redis: any bridge, ever)."""
    return cache.get(ORGANIZATION_KEY)


def signature(secret: str, body: bytes) -> str:
    return PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(body: bytes, header: str | None, secrets: list[str]) -> bool:
    if not header or not header.startswith(PREFIX) or not secrets:
        return False
    given = header.encode()
    # Check every secret, always: the time taken says nothing about which one matched.
    matches = [hmac.compare_digest(signature(s, body).encode(), given) for s in secrets if s]
    return any(matches)


@dataclass(frozen=True, slots=True)
class Envelope:
    id: str
    event: str
    organization_id: str
    created_at: datetime | None
    data: dict


def parse_envelope(payload, received_at: datetime) -> Envelope:
    """The delivery's envelope; `created_at` may not be later than it arrived (with a little
    skew), or a record would count on a day still to come."""
    d = fields.obj(payload, "delivery")
    event = fields.string(d, "event")
    if event not in c.WEBHOOK_EVENTS:
        raise ContractError(f"unknown webhook event {event!r}")
    created_at = fields.timestamp(d, "created_at", optional=True)
    if created_at and created_at > received_at + FUTURE_SKEW:
        raise ContractError(f"created_at {created_at.isoformat()} is after it was received")
    return Envelope(
        id=fields.string(d, "id"),
        event=event,
        organization_id=fields.text(d, "organization_id", limit=fields.ID_LIMIT),
        created_at=created_at,
        data=fields.obj(d.get("data"), "data"),
    )


@dataclass(frozen=True, slots=True)
class CallCompleted:
    call_id: str
    agent_id: str | None
    campaign_id: str | None
    outcome: str
    duration_s: int
    transcript: str = ""


@dataclass(frozen=True, slots=True)
class AppointmentBooked:
    appointment_id: str
    call_id: str | None
    campaign_id: str | None
    agent_id: str | None
    starts_at: datetime | None


@dataclass(frozen=True, slots=True)
class ComplianceChecked:
    check_id: str
    call_id: str | None
    agent_id: str | None
    rule: str
    passed: bool
    details: str


def _opt(d, key):
    return fields.string(d, key, optional=True)


def parse_data(event: str, d: dict):
    """The typed `data` of one event."""
    if event == "call_completed":
        return CallCompleted(
            fields.string(d, "call_id"),
            _opt(d, "agent_id"),
            _opt(d, "campaign_id"),
            fields.string(d, "outcome", optional=True, default="unknown", limit=60),
            fields.integer(d, "duration_s", default=0, low=0, high=MAX_CALL_S),
            fields.text(d, "transcript", limit=TRANSCRIPT_LIMIT),
        )
    if event == "appointment_booked":
        return AppointmentBooked(
            fields.string(d, "appointment_id"),
            _opt(d, "call_id"),
            _opt(d, "campaign_id"),
            _opt(d, "agent_id"),
            fields.timestamp(d, "starts_at", optional=True),
        )
    if event == "qa_scored":
        return c.Scorecard(  # the REST row's shape; the delivery's time is when it was scored
            id=fields.string(d, "scorecard_id"),
            call_id=_opt(d, "call_id"),
            agent_id=_opt(d, "agent_id"),
            template_id=_opt(d, "template_id"),
            score=fields.score(d),
            max_score=fields.integer(d, "max_score", low=1, high=fields.MAX_SCORE),
            passed=fields.boolean(d, "passed"),
            scored_at=None,
        )
    if event == "compliance_checked":
        return ComplianceChecked(
            fields.string(d, "check_id"),
            _opt(d, "call_id"),
            _opt(d, "agent_id"),
            fields.string(d, "rule", limit=120),
            fields.boolean(d, "passed"),
            fields.text(d, "details"),
        )
    return c.parse_alert(d)
