"""The inbound side of the service (contract 6.2): queues with their own service-level
target and goal and their ring groups, each queue's figures for a period, business-hours
schedules, and voicemail messages, marked handled.

Every payload is untrusted: a field that is missing or of the wrong type takes its
default and is logged once per endpoint and field; a row without an id is left out. A
service that answers 404 or 405 for a whole group raises `NotOffered`, so the page hides
that part with a note.
"""

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import quote

from dashboard.shared.privacy import last_four, mask_phone_numbers

from . import fields as f
from .errors import Conflict, ContractError, NotOffered
from .rest import RestClient

log = logging.getLogger("dashboard.upstream.inbound")
WAITING_DAYS = timedelta(days=30)  # how far back a waiting message is looked for
_told: set[tuple[str, str]] = set()  # (what, field) already logged


@dataclass(frozen=True, slots=True)
class InboundQueue:
    id: str
    name: str
    target_s: int
    goal_pct: int
    schedule_id: str | None
    group_name: str
    agent_ids: tuple


@dataclass(frozen=True, slots=True)
class QueueFigures:
    queue_id: str
    offered: int = 0
    answered: int = 0
    within_target: int = 0
    abandoned: int = 0
    short_abandoned: int = 0
    average_wait_s: float = 0.0
    longest_wait_s: int = 0
    to_voicemail: int = 0


@dataclass(frozen=True, slots=True)
class Schedule:
    id: str
    name: str
    timezone: str
    open_now: bool
    next_change_at: datetime | None
    holiday: str | None


@dataclass(frozen=True, slots=True)
class Voicemail:
    id: str
    queue_id: str
    caller_name: str
    phone: str  # its last four digits only
    received_at: datetime | None
    duration_s: int
    transcript: str
    handled_by: str
    handled_at: datetime | None

    @property
    def handled(self) -> bool:
        return bool(self.handled_by or self.handled_at)


class Reader:
    """Fields of one row: each bad one gives its default and is logged once."""

    def __init__(self, what: str, row):
        self.what = what
        self.row = row if isinstance(row, dict) else {}
        if not isinstance(row, dict):
            self.told("row")

    def told(self, name: str, why: str = "not an object"):
        if (self.what, name) not in _told:
            _told.add((self.what, name))
            log.warning("%s: %s %s; using its default", self.what, name, why)

    def get(self, read, name, default, **options):
        try:
            return read(self.row, name, **options)
        except ContractError as bad:
            if name in self.row or default is not None:
                self.told(name, f"is unusable ({bad})")
            return default

    def id(self, name="id") -> str:
        return self.get(f.string, name, "")

    def text(self, name, default="") -> str:
        value = self.row.get(name)
        if value is not None and not isinstance(value, str):
            self.told(name, "is not text")
        return f.text(self.row, name, default, limit=f.NAME_LIMIT)

    def number(self, name, default=0, high=10**9):
        return self.get(f.integer, name, default, low=0, high=high)

    def seconds(self, name) -> float:
        value = self.row.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            self.told(name, "is not a number of seconds")
            return 0.0
        return float(min(value, 10**7))

    def time(self, name) -> datetime | None:
        return self.get(f.timestamp, name, None, optional=True)


def parse_queue(row) -> InboundQueue | None:
    r = Reader("GET /inbound/queues", row)
    group = Reader("GET /inbound/queues ring_group", r.row.get("ring_group") or {})
    members = group.row.get("agent_ids")
    if not isinstance(members, list):
        group.told("agent_ids", "is not a list")
        members = []
    queue_id = r.id()
    return (
        InboundQueue(
            id=queue_id,
            name=r.text("name") or queue_id,
            target_s=r.number("service_level_target_s", 20, high=3600) or 20,
            goal_pct=min(100, r.number("service_level_goal_pct", 80, high=100) or 80),
            schedule_id=r.get(f.string, "schedule_id", None, optional=True),
            group_name=group.text("name"),
            agent_ids=tuple(x for x in members if isinstance(x, str) and 0 < len(x) <= f.ID_LIMIT),
        )
        if queue_id
        else None
    )


def parse_figures(queue_id: str, row) -> QueueFigures:
    r = Reader("GET /inbound/queues/{id}/stats", row)
    return QueueFigures(
        queue_id=queue_id,
        offered=r.number("offered"),
        answered=r.number("answered"),
        within_target=r.number("answered_within_target"),
        abandoned=r.number("abandoned"),
        short_abandoned=r.number("abandoned_within_5s"),
        average_wait_s=r.seconds("average_wait_s"),
        longest_wait_s=int(r.seconds("longest_wait_s")),
        to_voicemail=r.number("to_voicemail"),
    )


def parse_schedule(row) -> Schedule | None:
    r = Reader("GET /schedules", row)
    schedule_id = r.id()
    return (
        Schedule(
            id=schedule_id,
            name=r.text("name") or schedule_id,
            timezone=r.text("timezone", "UTC"),
            open_now=r.get(f.boolean, "openNow", True),
            next_change_at=r.time("nextChangeAt"),
            holiday=r.text("holidayToday") or None,
        )
        if schedule_id
        else None
    )


def parse_voicemail(row) -> Voicemail | None:
    r = Reader("GET /voicemail-messages", row)
    message_id = r.id()
    return (
        Voicemail(
            id=message_id,
            queue_id=r.get(f.string, "queue_id", "", optional=True) or "",
            caller_name=r.text("caller_name"),
            phone=last_four(r.text("phone")),
            received_at=r.time("received_at"),
            duration_s=r.number("duration_s", 0, high=24 * 3600),
            transcript=mask_phone_numbers(f.text(r.row, "transcript")),
            handled_by=r.text("handled_by"),
            handled_at=r.time("handled_at"),
        )
        if message_id
        else None
    )


def _listed(body, what: str, envelope=True) -> list:
    rows = body.get("data") if envelope and isinstance(body, dict) else body
    if not isinstance(rows, list):
        Reader(what, {}).told("list", "is not a list")
        return []
    return rows


async def _offered(rest: RestClient, path: str, feature: str, **params):
    """A GET on a path of the inbound groups: a 404 or 405 there is a group the service lacks."""
    try:
        body = await rest.request("GET", path, params={k: v for k, v in params.items() if v})
    except NotOffered as lacking:
        raise NotOffered(lacking.endpoint, lacking.status, feature) from None
    if body is None:
        raise NotOffered(f"GET {path}", 404, feature)
    return body


async def queues(rest: RestClient) -> list[InboundQueue]:
    body = await _offered(rest, "/inbound/queues", "inbound queues")
    return [q for q in map(parse_queue, _listed(body, "GET /inbound/queues")) if q]


async def figures(rest: RestClient, queue_id: str, since: datetime) -> QueueFigures:
    """The queue's totals from `since` to now: the service offers no end to the period and
    nothing per 15 minutes, and the history's calls carry no queue."""
    path = f"/inbound/queues/{quote(queue_id, safe='')}/stats"
    body = await _offered(rest, path, "inbound queues", since=_iso(since))
    return parse_figures(queue_id, body)


async def schedules(rest: RestClient) -> list[Schedule]:
    body = await _offered(rest, "/schedules", "business hours")
    return [s for s in map(parse_schedule, _listed(body, "GET /schedules", False)) if s]


async def voicemail(rest: RestClient, since: datetime) -> list[Voicemail]:
    """Every message still waiting from the last WAITING_DAYS (a backlog does not end at
    midnight), and those received since `since`, handled or not; each once. Both reads
    give `since`, as the contract shows the list asked."""
    path = "/voicemail-messages"
    waiting, recent = await asyncio.gather(
        _offered(rest, path, "voicemail", since=_iso(since - WAITING_DAYS), status="new"),
        _offered(rest, path, "voicemail", since=_iso(since)),
    )
    rows = [*_listed(waiting, f"GET {path}"), *_listed(recent, f"GET {path}")]
    found = {m.id: m for m in map(parse_voicemail, rows) if m}
    return list(found.values())


async def mark_handled(rest: RestClient, message_id: str, by: str) -> tuple[bool, str]:
    """(True, who) when this call marked it handled; (False, who) when someone else had
    already (the service's 409 already_handled). A message the service does not know
    raises LookupError."""
    path = f"/voicemail-messages/{quote(message_id, safe='')}/handled"
    try:
        body = await rest.request("POST", path, json={"handled_by": by})
    except Conflict as refused:
        if refused.code != "already_handled":
            raise
        return False, await _handled_by(rest, message_id)
    if body is None:
        raise LookupError(message_id)
    return True, Reader(f"POST {path}", body).text("handled_by") or by


async def _handled_by(rest: RestClient, message_id: str) -> str:
    """Who handled a message, from the list (a 409's body is not kept by the client)."""
    body = await rest.request("GET", "/voicemail-messages")
    rows = [m for m in map(parse_voicemail, _listed(body, "GET /voicemail-messages")) if m]
    return next((m.handled_by for m in rows if m.id == message_id), "")


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")
