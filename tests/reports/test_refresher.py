"""The refresher against the simulated tenant: 5xx, 429, 403 and timeouts keep the last
good copy, say clearly what failed, and turn the pages' badge to stale."""

import asyncio
from zoneinfo import ZoneInfo

import httpx
import pytest
from asgiref.sync import sync_to_async

from dashboard.live.feed import LiveFeed
from dashboard.live.state import LiveState
from dashboard.reports.refresher import Refresher
from dashboard.shared import summaries
from dashboard.testing.processes import let_pass_async
from dashboard.testing.upstream import session_for
from dashboard.upstream.rest import RestClient

pytestmark = pytest.mark.django_db(transaction=True)

FAULTS = {
    "5xx": (("rest-errors", {"status": 503, "seconds": 30}), "failed after 2 attempts: HTTP 503"),
    "429": (
        ("rest-errors", {"status": 429, "seconds": 30, "retry_after": 0.2}),
        "failed after 2 attempts: HTTP 429",
    ),
    "403": (
        ("rest-errors", {"status": 403, "seconds": 30}),
        "403 on GET /campaigns: the service user's role 'supervisor' may not use it",
    ),
    "timeout": (
        ("rest-delay", {"seconds": 3, "for_s": 30}),
        "failed after 2 attempts: no answer within 0.5 s",
    ),
}


@pytest.fixture
def short_interval(settings):
    settings.UPSTREAM_REFRESH_INTERVAL_S = 1


def load(name):
    return sync_to_async(summaries.load)(name)


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_it_keeps_the_last_good_copy_and_says_what_failed(
    fault, simulator, short_interval, bob, async_client
):
    async with httpx.AsyncClient() as client:
        session = session_for(simulator, client)
        rest = RestClient(
            simulator.base_url, session, client, attempts=2, max_backoff=0.2, timeout=0.5
        )
        feed = LiveFeed(LiveState(ZoneInfo("UTC")))
        refresher = Refresher(rest, feed)
        await refresher.refresh()
        good = {name: await load(name) for name in summaries.NAMES}
        assert all(e["fetched_at"] and not e["error"] for e in good.values())
        assert feed.inbox.ai_enabled is True and feed.inbox.campaign_names

        (control, body), expected = FAULTS[fault]
        await asyncio.to_thread(simulator.control, control, **body)
        await refresher.refresh()  # every pull fails

        for name in summaries.NAMES:
            entry = await load(name)
            assert entry["data"] == good[name]["data"], name  # the last good copy is kept
            assert entry["fetched_at"] == good[name]["fetched_at"]
            assert entry["failed_at"] > entry["fetched_at"]
        campaigns = await load("campaigns")
        assert "GET /campaigns" in campaigns["error"] and expected in campaigns["error"]
        assert feed.inbox.ai_enabled is True  # the header keeps the last known AI status

        await let_pass_async(2.3, "past twice the interval")
        assert (await load("campaigns"))["stale"]
        await async_client.aforce_login(bob)
        page = (await async_client.get("/campaigns/")).content.decode()
        assert all(x.name in page for x in good["campaigns"]["data"])  # not blanked
        assert '<span class="badge badge-stale">stale</span>' in page
        assert "Last pull failed at" in page and expected.replace("'", "&#x27;") in page


async def test_it_is_fresh_again_after_the_next_good_pull(simulator, short_interval):
    async with httpx.AsyncClient() as client:
        rest = RestClient(simulator.base_url, session_for(simulator, client), client, attempts=1)
        refresher = Refresher(rest, LiveFeed(LiveState(ZoneInfo("UTC"))))
        await asyncio.to_thread(simulator.control, "rest-errors", status=500, seconds=1)
        await refresher.refresh()
        failed = await load("campaigns")
        assert failed["data"] is None and failed["stale"] and "HTTP 500" in failed["error"]
        await let_pass_async(1.2, "past the 1 s of errors")
        await refresher.refresh()
        fresh = await load("campaigns")
        assert fresh["data"] and not fresh["error"] and not fresh["stale"]
