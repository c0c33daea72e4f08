"""Starting and stopping a campaign from its page (Manager only, POST with CSRF), against
the simulated tenant: the service's answer shown as it is and recorded, never as success
unless it was one, and every viewer's page and the list pushed the new status."""

from html import unescape
from zoneinfo import ZoneInfo

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from dashboard.live.feed import LiveFeed
from dashboard.live.state import LiveState
from dashboard.reports.models import CampaignAction
from dashboard.reports.refresher import Refresher
from dashboard.shared import summaries
from dashboard.testing.sockets import socket_for
from dashboard.testing.upstream import session_for
from dashboard.upstream.rest import RestClient

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def service_of(settings):
    """Point the pages' service client at a simulator as the service user `email`; pull the
    summaries once, as the bridge's refresher would have; the campaigns as pulled."""

    async def point(sim, email=None):
        settings.UPSTREAM_BASE_URL = sim.base_url
        settings.UPSTREAM_AUTH_URL = sim.auth_url
        settings.UPSTREAM_ANON_KEY = sim.anon_key
        settings.UPSTREAM_EMAIL = email or sim.email_a
        settings.UPSTREAM_PASSWORD = sim.password
        async with httpx.AsyncClient() as client:
            rest = RestClient(sim.base_url, session_for(sim, client), client)
            await Refresher(rest, feed=LiveFeed(LiveState(ZoneInfo("UTC")))).refresh()
        return (await sync_to_async(summaries.load)("campaigns"))["data"]

    return point


async def act(async_client, user, campaign_id, action):
    """POST the action as `user`, follow to the page; (the page as text, the last record)."""
    await async_client.aforce_login(user)
    r = await async_client.post(f"/campaigns/{campaign_id}/{action}", follow=True)
    assert r.status_code == 200
    last = await CampaignAction.objects.select_related("by").order_by("-pk").afirst()
    return unescape(" ".join(r.content.decode().split())), last


async def received(ws, marker):
    html = await ws.receive_from(timeout=5)
    while marker not in html:
        html = await ws.receive_from(timeout=5)
    return html


async def test_a_manager_stops_and_starts_a_campaign_and_every_viewer_sees_it(
    simulator, service_of, async_client, alice, bob
):
    campaigns = await service_of(simulator)
    target = next(x for x in campaigns if x.status == "active")
    watching = await socket_for(bob, f"/ws/campaigns/{target.id}/")
    managing = await socket_for(alice, f"/ws/campaigns/{target.id}/")
    listing = await socket_for(bob, "/ws/campaigns/")
    for ws in (watching, managing, listing):
        assert (await ws.connect())[0]

    page, record = await act(async_client, alice, target.id, "stop")
    assert (
        f"Stopped “{target.name}”. The service answered 200: the campaign is stopped now." in page
    )
    assert (record.outcome, record.http_status, record.by.username) == ("done", 200, "alice")
    assert (record.action, record.status_before, record.campaign_name) == (
        "stop",
        "active",
        target.name,
    )
    seen = await received(watching, 'id="campaign-body"')
    assert 'data-status="stopped"' in seen and "data-confirm" not in seen  # no button for bob
    assert "Start…</button>" in await received(managing, 'id="campaign-body"')
    assert 'data-status="stopped"' in await received(listing, 'id="campaigns-body"')
    assert "200: the campaign is stopped now" in seen  # the record, listed on the page

    page, record = await act(async_client, alice, target.id, "stop")  # a stale page's click
    assert (
        f"“{target.name}” was not stopped. The service answered "
        "409 invalid_state: Campaign is already stopped." in page
    )
    assert (record.outcome, record.http_status) == ("refused", 409)
    assert "Stopped “" not in page

    page, record = await act(async_client, alice, target.id, "start")
    assert record.outcome == "done" and "the campaign is active now" in page
    assert 'data-status="active"' in await received(watching, "is active now")
    for ws in (watching, managing, listing):
        await ws.disconnect()


async def test_a_role_too_narrow_for_the_service_is_said_so(
    module_simulator, service_of, async_client, alice
):
    campaigns = await service_of(module_simulator, email=module_simulator.email_agent)
    target = campaigns[0]
    page, record = await act(async_client, alice, target.id, "stop")
    assert (record.outcome, record.http_status) == ("refused", 403)
    assert "403: the service user's role ('agent') is too narrow to stop it" in page
    assert f"“{target.name}” was not stopped" in page


async def test_a_timeout_is_no_success(simulator, service_of, async_client, alice, settings):
    campaigns = await service_of(simulator)
    settings.UPSTREAM_PAGE_TIMEOUT_S = 0.5
    target = next(x for x in campaigns if x.status == "active")
    await sync_to_async(simulator.control)("rest-delay", seconds=2, for_s=30)
    page, record = await act(async_client, alice, target.id, "stop")
    assert (record.outcome, record.http_status) == ("failed", None)
    assert "The service did not confirm: POST /campaigns/" in page
    assert "failed after 2 attempts: no answer within 0.5 s" in page
    assert "Stopped “" not in page
    cached = await sync_to_async(summaries.load)("campaigns")
    assert next(x for x in cached["data"] if x.id == target.id).status == "active"  # unchanged


async def test_a_service_without_starting_and_stopping_is_said_so(
    sim_factory, service_of, async_client, alice
):
    sim = sim_factory("--without", "campaign-control:405")
    campaigns = await service_of(sim)
    page, record = await act(async_client, alice, campaigns[0].id, "stop")
    assert (record.outcome, record.http_status) == ("refused", 405)
    assert "405: this service does not offer starting and stopping" in page


async def test_only_managers_may_and_only_by_post_with_the_token(
    module_simulator, service_of, async_client, alice, bob
):
    campaigns = await service_of(module_simulator)
    target = next(x for x in campaigns if x.status == "active")
    path = f"/campaigns/{target.id}/stop"
    r = await async_client.post(path)
    assert r.status_code == 302 and r["Location"].startswith("/accounts/login/")
    await async_client.aforce_login(bob)
    assert (await async_client.post(path)).status_code == 403
    await async_client.aforce_login(alice)
    assert (await async_client.get(path)).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    await sync_to_async(strict.force_login)(alice)
    assert (await sync_to_async(strict.post)(path)).status_code == 403
    assert not await CampaignAction.objects.aexists()
    token = module_simulator.sign_in()["access_token"]
    assert module_simulator.get(f"/campaigns/{target.id}", token).json()["status"] == "active"
