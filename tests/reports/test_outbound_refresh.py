"""The refresher pulls the outbound groups with the other summaries; a group the service
lacks is kept as not offered (no error, not stale, said once in the log) and the rest goes
on; the pages then show each panel or its one-line note."""

import logging
from zoneinfo import ZoneInfo

import httpx
import pytest
from asgiref.sync import sync_to_async

from dashboard.live.feed import LiveFeed
from dashboard.live.state import LiveState
from dashboard.reports import outbound
from dashboard.reports.refresher import Refresher
from dashboard.shared import summaries
from dashboard.testing.processes import let_pass_async
from dashboard.testing.upstream import session_for
from dashboard.upstream.rest import RestClient

pytestmark = pytest.mark.django_db(transaction=True)


def load(name):
    return sync_to_async(summaries.load)(name)


async def test_it_pulls_the_outbound_groups_and_measures_the_dial_rate(
    sim_factory, bob, async_client
):
    sim = sim_factory("--seed", "7", "--speed", "20")
    async with httpx.AsyncClient() as client:
        refresher = Refresher(
            RestClient(sim.base_url, session_for(sim, client), client),
            LiveFeed(LiveState(ZoneInfo("UTC"))),
        )
        await refresher.refresh()
        await let_pass_async(1.5, "dials between the two pulls")
        await refresher.refresh()
    for name in summaries.OUTBOUND:
        entry = await load(name)
        assert entry["data"] and entry["offered"] and not entry["error"], name
    rows = await sync_to_async(outbound.queue_rows)()
    campaigns = (await load("campaigns"))["data"]
    active = next(x for x in campaigns if x.status == "active" and x.dial_mode != "ai")
    assert rows[active.id]["rate"].per_min > 0 and rows[active.id]["runway_min"] > 0
    await async_client.aforce_login(bob)
    page = (await async_client.get(f"/campaigns/{active.id}/")).content.decode()
    assert "leads run out in about" in page and "does not offer" not in page


async def test_a_group_the_service_lacks_is_not_offered_and_the_rest_is_pulled(
    sim_factory, caplog, bob, async_client
):
    sim = sim_factory("--without", "callbacks", "--without", "ai-dialer:405")
    async with httpx.AsyncClient() as client:
        refresher = Refresher(
            RestClient(sim.base_url, session_for(sim, client), client),
            LiveFeed(LiveState(ZoneInfo("UTC"))),
        )
        with caplog.at_level(logging.INFO, logger="dashboard.reports.refresher"):
            await refresher.refresh()
            await refresher.refresh()
    for name, status in (("callbacks", 404), ("ai_dialer", 405)):
        entry = await load(name)
        assert not entry["offered"] and entry["data"] is None and not entry["error"], name
        assert not entry["stale"]
        said = [r for r in caplog.records if f"summary {name}:" in r.getMessage()]
        assert len(said) == 1 and f"answered {status}" in said[0].getMessage()
    assert (await load("dialer_queue"))["data"] and (await load("pending_bookings"))["data"]
    assert (await load("campaigns"))["data"]
    ai = next(x for x in (await load("campaigns"))["data"] if x.dial_mode == "ai")
    await async_client.aforce_login(bob)
    page = (await async_client.get(f"/campaigns/{ai.id}/")).content.decode()
    assert "This service does not offer callbacks." in page
    assert "This service does not offer AI dialer figures." in page
    assert "Pending leads" in page and "Why the AI could not book" in page
