"""The campaigns pages and their sockets, fed from the summaries cache as the refresher
leaves it; the live view's AI status in the header."""

from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from dashboard.reports import publish
from dashboard.shared import summaries
from dashboard.testing.sockets import closed_with, following, socket_for
from dashboard.upstream import contract as c

NOW = datetime.now(UTC)
CAMPAIGNS = [
    c.Campaign("k1", "Solar <Leads>", "active", "predictive", 400, 100, 40, 10, NOW),
    c.Campaign("k2", "Win-back", "paused", "ai", 50, 0, 0, 0, None),
]


def stored(ago=timedelta(0), error=None):
    """The campaigns as a pull `ago` before now left them (now: when the test runs, not
    when the module was imported, which may be minutes earlier)."""
    at = datetime.now(UTC) - ago
    async_to_sync(summaries.store_good)("campaigns", CAMPAIGNS, at)
    if error:
        async_to_sync(summaries.store_failure)("campaigns", error, at + timedelta(seconds=5))
    return at


def test_it_shows_campaigns_to_supervisors_and_managers(alice, bob, carol, client):
    stored()
    assert client.get("/campaigns/").status_code == 302
    for user, status in ((carol, 403), (bob, 200), (alice, 200)):
        client.force_login(user)
        assert client.get("/campaigns/").status_code == status
        assert client.get("/campaigns/k1/").status_code == status


def test_it_lists_each_campaign_with_its_figures_and_denominators(bob, client_for):
    at = stored()
    page = " ".join(client_for(bob).get("/campaigns/").content.decode().split())  # as one line
    assert "Solar &lt;Leads&gt;" in page  # escaped
    assert '<progress max="400" value="100"' in page
    assert "40.0%" in page and "40 / 100" in page  # connect rate: connected ÷ dialed
    assert "25.0%" in page and "10 / 40" in page  # conversion: booked ÷ connected
    assert "connected ÷ dialed" in page and "booked ÷ connected" in page
    assert f">{at:%H:%M:%S}</time>" in page  # "as of HH:MM:SS"; TIME_ZONE is UTC here
    assert '<span class="badge badge-stale" hidden>' in page and "Last pull failed" not in page


def test_it_says_when_the_service_was_never_reached(bob, client_for):
    page = client_for(bob).get("/campaigns/").content.decode()
    assert "not fetched from the service yet" in page
    assert '<span class="badge badge-stale">stale</span>' in page
    assert client_for(bob).get("/campaigns/any-id/").status_code == 200  # nothing to judge by


def test_it_keeps_figures_and_shows_the_error_and_stale_badge_after_failures(bob, client_for):
    stored(ago=timedelta(minutes=5), error="403 on GET /campaigns: role 'agent'")
    page = client_for(bob).get("/campaigns/k1/").content.decode()
    assert "Solar &lt;Leads&gt;" in page and "10 booked ÷ 40 connected" in page
    assert '<span class="badge badge-stale">stale</span>' in page
    assert "Last pull failed at" in page and "403 on GET /campaigns: role &#x27;agent&#x27;" in page


def test_it_answers_404_for_a_campaign_the_service_does_not_have(bob, client_for):
    stored()
    assert client_for(bob).get("/campaigns/nope/").status_code == 404


@pytest.mark.django_db(transaction=True)
async def test_it_pushes_the_list_and_each_campaign_page_once_per_refresh(bob):
    await sync_to_async(stored)()
    listing = await socket_for(bob, "/ws/campaigns/")
    one = await socket_for(bob, "/ws/campaigns/k1/")
    for ws in (listing, one):
        assert (await ws.connect())[0]
    for group in (publish.CAMPAIGNS, publish.campaign_group("k1")):
        await following(group)  # the sockets join after their snapshot
    await sync_to_async(publish.campaigns_changed)()
    got_list = await listing.receive_from(timeout=5)
    while 'id="campaigns-body"' not in got_list:  # the status fragment may come first
        got_list = await listing.receive_from(timeout=5)
    got_one = await one.receive_from(timeout=5)
    while 'id="campaign-body"' not in got_one:
        got_one = await one.receive_from(timeout=5)
    assert "Win-back" in got_list and "Solar &lt;Leads&gt;" in got_one
    assert "Win-back" not in got_one  # each campaign's page gets its own campaign only
    for ws in (listing, one):
        await ws.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_it_keeps_campaign_sockets_from_wallboard_viewers(carol):
    for path in ("/ws/campaigns/", "/ws/campaigns/cmp-1/"):
        assert await closed_with(await socket_for(carol, path)) == 4403


def test_it_puts_ai_dialing_and_the_ai_share_of_todays_calls_in_the_header():
    from html import unescape
    from zoneinfo import ZoneInfo

    from dashboard.live.feed import LiveFeed
    from dashboard.live.state import LiveState
    from dashboard.testing.feeds import Events

    feed, events = LiveFeed(LiveState(ZoneInfo("UTC"))), Events()
    assert "AI status unknown · no calls ended today" in unescape(feed.view.upstream_html())
    for event in (
        events.started(0, "c1", ai=True),
        events.started(1, "c2", "a1"),
        events.started(2, "c3", "a2"),
        events.ended(30, "c1", 30),
        events.ended(40, "c2", 40),
        events.ended(50, "c3", 50),
    ):
        feed.event(event)
    feed.ai_status(True)
    shown = unescape(feed.view.upstream_html())  # as the browser reads it
    assert "AI dialing on · 33.3% of today's calls AI-handled" in shown
    feed.ai_status(False)
    assert 'data-enabled="off"' in feed.view.upstream_html()


@pytest.mark.django_db(transaction=True)
async def test_it_extends_the_qa_trend_on_the_qa_pages_push(bob):
    import json

    from django.utils import timezone

    from dashboard.quality.models import Scorecard
    from dashboard.quality.publish import QA, publish_qa

    ws = await socket_for(bob, "/ws/qa/")
    assert (await ws.connect())[0]
    await following(QA)  # the socket joins after its snapshot
    await Scorecard.objects.acreate(
        scorecard_id="s1", score=15, max_score=20, passed=True, scored_at=timezone.now()
    )
    await sync_to_async(publish_qa)()
    html = await ws.receive_from(timeout=5)
    while 'id="qa-body"' not in html:
        html = await ws.receive_from(timeout=5)
    start = html.index('<script id="chart-qa" type="application/json">')
    data = html[start:].split(">", 1)[1].split("</script>", 1)[0]
    assert json.loads(data)["series"][0]["values"] == [75.0]
    await ws.disconnect()
