"""The service's history (contract 6.3): paged reads of calls, agents' states and the QA,
compliance and coaching lists over a period, oldest first.

Each read gives one page and the cursor of the next (None: the last page). A cursor is
the service's opaque string, handed back as it came. Rows are parsed as untrusted: a bad
row is left out, a bad envelope is a `ContractError`, and a service without the path
(404 or 405) raises `NotOffered`, so the caller can say the history is not offered.
A page of 1,000 rows is parsed on the event loop a slice at a time, the loop free between
slices: in a thread it would hold the interpreter's lock against the loop, whose every
socket call (the live feed's) would then wait up to the 5 ms switch interval for it.
"""

import asyncio
import time
from dataclasses import dataclass
from datetime import datetime

from dashboard.shared.aio import turn

from . import contract as c
from .errors import ContractError, NotOffered
from .fields import obj, string, timestamp
from .rest import RestClient

PAGE_LIMIT = 1000  # the most rows the service gives in one page
CURSOR_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class StateSpan:
    """One state an agent held: from `since` to `until` (None: the current one)."""

    agent_id: str
    status: str
    since: datetime
    until: datetime | None
    call_id: str | None


@dataclass(frozen=True, slots=True)
class Page:
    rows: list
    next_cursor: str | None


def parse_span(d) -> StateSpan:  # camelCase, like /agent-status
    d = obj(d, "agent state")
    since = timestamp(d, "since")
    until = timestamp(d, "until", optional=True)
    if until is not None and until < since:
        raise ContractError("until is before since")
    return StateSpan(
        agent_id=string(d, "agentId"),
        status=c.agent_status_value(d.get("status")),
        since=since,
        until=until,
        call_id=string(d, "callId", optional=True),
    )


def _cursor(body: dict, key: str) -> str | None:
    value = body.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > CURSOR_LIMIT:
        raise ContractError(f"{key} must be a string")
    return value


SLICE = 100  # rows parsed between two turns of the event loop (about a millisecond)


async def _page(body, parse, cursor_key: str, pause=turn) -> Page:
    body = obj(body, "history page")
    rows = body.get("data")
    if not isinstance(rows, list):
        raise ContractError("history page: expected a list in data")
    cursor, parsed = _cursor(body, cursor_key), []
    for at in range(0, len(rows), SLICE):
        since = time.thread_time()
        parsed += c._each(rows[at : at + SLICE], parse)
        await pause(since)
    return Page(parsed, cursor)


async def _read(rest: RestClient, feature: str, path: str, **params) -> dict:
    params = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in params.items()}
    body = await rest._optional(feature, path, **params)
    if body is None:
        raise NotOffered(f"GET {path}", 404, feature)
    return body


async def calls_page(
    rest: RestClient,
    since: datetime,
    until: datetime,
    cursor: str | None = None,
    limit=PAGE_LIMIT,
    pause=turn,
) -> Page:
    """Calls started in [since, until), oldest first (`pause`: between two slices)."""
    body = await _read(
        rest, "call history", "/calls", since=since, until=until, limit=limit, cursor=cursor
    )
    return await _page(body, c.parse_call, "next_cursor", pause)


async def states_page(
    rest: RestClient, since: datetime, until: datetime, cursor: str | None = None, pause=turn
) -> Page:
    """Every state an agent held in [since, until), oldest first."""
    body = await _read(
        rest,
        "agents' state history",
        "/agent-status/history",
        since=since,
        until=until,
        cursor=cursor,
    )
    return await _page(body, parse_span, "nextCursor", pause)


async def all_calls(
    rest: RestClient, since: datetime, until: datetime, pause_s: float = 0.1
) -> list[c.Call]:
    """Every call started in [since, until), page by page with a pause between pages: one
    request per 1,000 calls, where the capped list (contract 5) needs one per agent."""
    rows, cursor = [], None
    while True:
        got = await calls_page(rest, since=since, until=until, cursor=cursor)
        rows += got.rows
        cursor = got.next_cursor
        if not cursor:
            return rows
        await asyncio.sleep(pause_s)


def parse_alert_row(d) -> tuple[c.CoachingAlert, datetime | None]:
    """A coaching alert of the list and when it was raised (`created_at`)."""
    return c.parse_alert(d), timestamp(obj(d, "coaching alert"), "created_at", optional=True)


RECORDS = {  # name -> (path, parser)
    "scorecards": ("/qa/scorecards", c.parse_scorecard),
    "checks": ("/compliance/checks", c.parse_check),
    "alerts": ("/coaching/alerts", parse_alert_row),
}


async def records_page(
    rest: RestClient,
    name: str,
    since: datetime,
    until: datetime,
    cursor: str | None = None,
    limit=PAGE_LIMIT,
    pause=turn,
) -> Page:
    """QA scorecards, compliance checks or coaching alerts of [since, until), oldest first."""
    path, parse = RECORDS[name]
    body = await _read(
        rest, f"{name} history", path, since=since, until=until, limit=limit, cursor=cursor
    )
    return await _page(body, parse, "next_cursor", pause)
