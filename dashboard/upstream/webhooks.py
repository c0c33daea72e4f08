"""The service's webhook deliveries: signature check over the raw body, then parsing.

The signature is verified before anything is parsed (spec 5.7): `sha256=` + hex
HMAC-SHA256 of the body exactly as received, compared in constant time against every
configured secret, so two may be valid during a rotation.
"""

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime

from . import contract as c
from . import fields
from .errors import ContractError

EVENT_HEADER = "X-Webhook-Event"
SIGNATURE_HEADER = "X-Webhook-Signature"
PREFIX = "sha256="


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


def parse_envelope(payload) -> Envelope:
    d = fields.obj(payload, "delivery")
    event = fields.string(d, "event")
    if event not in c.WEBHOOK_EVENTS:
        raise ContractError(f"unknown webhook event {event!r}")
    data = d.get("data")
    return Envelope(
        id=fields.string(d, "id"),
        event=event,
        organization_id=fields.text(d, "organization_id"),
        created_at=fields.timestamp(d, "created_at", optional=True),
        data=fields.obj(data, "data"),
    )


@dataclass(frozen=True, slots=True)
class CallCompleted:
    call_id: str
    agent_id: str | None
    campaign_id: str | None
    outcome: str
    duration_s: int


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
    """The typed `data` of one event (the transcript of call_completed is not kept)."""
    if event == "call_completed":
        return CallCompleted(
            fields.string(d, "call_id"),
            _opt(d, "agent_id"),
            _opt(d, "campaign_id"),
            fields.text(d, "outcome", "unknown"),
            max(0, fields.integer(d, "duration_s", default=0)),
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
        max_score = fields.integer(d, "max_score")
        if max_score <= 0:
            raise ContractError("max_score must be positive")
        return c.Scorecard(  # the REST row's shape; the delivery's time is when it was scored
            id=fields.string(d, "scorecard_id"),
            call_id=_opt(d, "call_id"),
            agent_id=_opt(d, "agent_id"),
            template_id=_opt(d, "template_id"),
            score=fields.integer(d, "score"),
            max_score=max_score,
            passed=fields.boolean(d, "passed"),
            scored_at=None,
        )
    if event == "compliance_checked":
        return ComplianceChecked(
            fields.string(d, "check_id"),
            _opt(d, "call_id"),
            _opt(d, "agent_id"),
            fields.string(d, "rule"),
            fields.boolean(d, "passed"),
            fields.text(d, "details"),
        )
    return c.parse_alert(d)
