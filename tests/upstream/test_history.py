"""The service's history (contract 6.3) through the adapter, against the simulated tenant
with its past: every page read, untrusted rows left out, and a service without it."""

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from dashboard.testing.simulator import start_simulator
from dashboard.testing.upstream import session_for
from dashboard.upstream import history as h
from dashboard.upstream.errors import ContractError, NotOffered
from dashboard.upstream.rest import RestClient


@pytest.fixture(scope="module")
def past_sim():
    sim = start_simulator("--faults", "--seed", "4", "--agents", "8", "--history-days", "35")
    yield sim
    sim.stop()


def rest_for(sim, client):
    return RestClient(sim.base_url, session_for(sim, client), client, max_backoff=0.3)


async def every(read, **kwargs):
    rows, cursor, pages = [], None, 0
    while True:
        page = await read(cursor=cursor, **kwargs)
        rows += page.rows
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            return rows, pages


async def test_it_pages_through_a_days_calls_states_and_records(past_sim):
    until = datetime.now(UTC)
    since = until - timedelta(days=3)
    async with httpx.AsyncClient() as client:
        rest = rest_for(past_sim, client)
        calls, pages = await every(lambda **k: h.calls_page(rest, since, until, limit=100, **k))
        spans, _ = await every(lambda **k: h.states_page(rest, since, until, **k))
        cards, _ = await every(
            lambda **k: h.records_page(rest, "scorecards", since, until, limit=50, **k)
        )
        alerts, _ = await every(lambda **k: h.records_page(rest, "alerts", since, until, **k))
    assert pages > 1 and len({x.call_id for x in calls}) == len(calls)
    starts = [x.started_at for x in calls]
    assert starts == sorted(starts) and since <= starts[0] and starts[-1] < until
    assert {x.status for x in spans} >= {"on_call", "wrap_up", "available", "offline"}
    assert all(x.until is None or x.since <= x.until for x in spans)
    # every agent was in some state at the window's end (its current one, or one left since)
    at_end = {x.agent_id for x in spans if x.since < until and (x.until or until) >= until}
    assert at_end == {a["agentId"] for a in past_sim.agents()}
    assert cards and all(since <= x.scored_at < until for x in cards)
    assert alerts and all(raised is not None for _, raised in alerts)


async def test_bad_rows_are_left_out_and_a_bad_page_is_refused():
    good = {
        "agentId": "a1",
        "status": "on_call",
        "since": "2026-01-05T09:00:00Z",
        "until": "2026-01-05T09:05:00Z",
        "callId": "c1",
    }
    rows = [
        good,
        {**good, "since": "not a time"},
        {**good, "until": "2026-01-05T08:00:00Z"},
        {**good, "status": "dancing"},
        42,
    ]
    page = await h._page({"data": rows, "nextCursor": "abc"}, h.parse_span, "nextCursor")
    assert [x.status for x in page.rows] == ["on_call", "unknown"] and page.next_cursor == "abc"
    empty = await h._page({"data": [], "nextCursor": None}, h.parse_span, "nextCursor")
    assert empty.next_cursor is None
    for body in ({"data": "x"}, [], {"data": [], "next_cursor": 5}):
        with pytest.raises(ContractError):
            await h._page(body, h.parse_span, "next_cursor")


async def test_a_service_without_history_says_so(past_sim):
    past_sim.control("missing-endpoint", path="agent-status", status=404, seconds=5)
    async with httpx.AsyncClient() as client:
        rest = rest_for(past_sim, client)
        now = datetime.now(UTC)
        with pytest.raises(NotOffered):
            await h.states_page(rest, now - timedelta(hours=1), now)
