"""The REST client against every contract row of the simulated tenant, and its failures."""

import time

import httpx
import pytest

from dashboard.testing.upstream import session_for
from dashboard.upstream import contract as c
from dashboard.upstream.errors import Forbidden, UpstreamError
from dashboard.upstream.rest import RestClient


def rest_for(sim, client, **options):
    return RestClient(sim.base_url, session_for(sim, client, **options), client, max_backoff=0.5)


async def test_it_reads_every_row_typed(module_simulator):
    async with httpx.AsyncClient() as client:
        rest = rest_for(module_simulator, client)
        agents = await rest.agents()
        assert len(agents) == 40 and all(isinstance(a, c.Agent) for a in agents)
        assert all(isinstance(x, c.Call) for x in await rest.active_calls())
        campaigns = await rest.campaigns()
        assert {x.dial_mode for x in campaigns} >= {"predictive", "ai"}
        assert (await rest.campaign(campaigns[0].id)).name == campaigns[0].name
        assert [t.max_score for t in await rest.templates()] == [100, 20]
        assert isinstance(await rest.scorecards(), list)
        assert isinstance(await rest.compliance_checks(), list)
        assert isinstance(await rest.coaching_alerts(), list)
        ai = await rest.ai_status()
        assert ai.enabled and "dialer" in ai.capabilities


async def test_it_treats_a_missing_or_foreign_campaign_as_absent(module_simulator):
    async with httpx.AsyncClient() as client:
        rest_b = rest_for(module_simulator, client, email=module_simulator.email_b)
        foreign = (await rest_b.campaigns())[0].id
        rest_a = rest_for(module_simulator, client)
        assert await rest_a.campaign(foreign) is None
        assert await rest_a.campaign("no-such-id") is None


async def test_it_names_endpoint_and_role_on_403(module_simulator):
    async with httpx.AsyncClient() as client:
        rest = rest_for(module_simulator, client, email=module_simulator.email_agent)
        with pytest.raises(Forbidden) as refused:
            await rest.create_webhook("x", "http://127.0.0.1:9/hook")
        assert "POST /webhooks/outbound" in str(refused.value)
        assert "'agent'" in str(refused.value)


async def test_it_manages_webhooks_and_reports_invalid_events(module_simulator):
    async with httpx.AsyncClient() as client:
        rest = rest_for(module_simulator, client)
        hook = await rest.create_webhook("dash", "http://127.0.0.1:9/hook")
        assert hook.secret and set(hook.events) == set(c.WEBHOOK_EVENTS)
        assert await rest.test_webhook(hook.id)
        assert await rest.deliveries("nope") is None
        with pytest.raises(UpstreamError, match="422"):
            await rest.create_webhook("dash", "http://127.0.0.1:9/hook", events=["call_done"])


async def test_it_rides_out_a_burst_of_500s(simulator):
    async with httpx.AsyncClient() as client:
        rest = RestClient(
            simulator.base_url, session_for(simulator, client), client, attempts=8, max_backoff=0.6
        )
        await rest.agents()  # signed in before the burst
        simulator.control("rest-errors", status=500, seconds=1.5)
        started = time.monotonic()
        assert len(await rest.agents()) == 40
        assert time.monotonic() - started >= 1.0


async def test_it_honours_retry_after_on_429(simulator):
    async with httpx.AsyncClient() as client:
        rest = rest_for(simulator, client)
        await rest.agents()
        simulator.control("rest-errors", status=429, seconds=1, retry_after=2)
        started = time.monotonic()
        assert len(await rest.agents()) == 40
        assert time.monotonic() - started >= 1.9  # waited what Retry-After asked


async def test_it_gives_up_with_a_clear_error_when_the_service_stays_down(simulator):
    async with httpx.AsyncClient() as client:
        rest = RestClient(
            simulator.base_url, session_for(simulator, client), client, attempts=2, max_backoff=0.2
        )
        simulator.control("rest-errors", status=503, seconds=30)
        with pytest.raises(UpstreamError, match="GET /agent-status failed after 2 attempts"):
            await rest.agents()


async def test_it_renews_the_token_and_retries_once_on_401(simulator):
    async with httpx.AsyncClient() as client:
        session = session_for(simulator, client)
        rest = RestClient(simulator.base_url, session, client)
        await rest.agents()
        simulator.control("expire-access-tokens")
        assert len(await rest.agents()) == 40
        assert session.renewals == 2


async def test_pages_share_one_signed_in_client_per_loop(module_simulator, settings):
    """What pages ask the service goes through one client per event loop, signed in once."""
    from dashboard.upstream.on_request import service

    settings.UPSTREAM_BASE_URL = module_simulator.base_url
    settings.UPSTREAM_AUTH_URL = module_simulator.auth_url
    settings.UPSTREAM_ANON_KEY = module_simulator.anon_key
    settings.UPSTREAM_EMAIL = module_simulator.email_a
    settings.UPSTREAM_PASSWORD = module_simulator.password
    rest = service()
    assert len(await rest.agents()) == 40
    token = await rest.session.token()
    assert service() is rest and await service().session.token() == token
