"""The REST client against the simulated tenant's outbound groups (contract section 5):
every shape, and every answer that is not one (403, 404, 405, 409, a timeout)."""

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from dashboard.testing.upstream import session_for
from dashboard.upstream import contract as c
from dashboard.upstream.errors import Conflict, Forbidden, NotOffered, UpstreamError
from dashboard.upstream.rest import RestClient


def rest_for(sim, client, **options):
    return RestClient(sim.base_url, session_for(sim, client, **options), client, max_backoff=0.5)


async def test_it_reads_every_outbound_row_typed(module_simulator):
    async with httpx.AsyncClient() as client:
        rest = rest_for(module_simulator, client)
        campaigns = {x.id: x for x in await rest.campaigns()}
        queues = await rest.dialer_queue()
        assert {q.campaign_id for q in queues} == set(campaigns)
        assert all(isinstance(q, c.DialerQueue) and q.pending >= 0 for q in queues)
        assert any(q.retry_scheduled and q.exhausted for q in queues)

        soon = datetime.now(UTC) + timedelta(hours=1)
        callbacks = await rest.callbacks(soon)
        assert callbacks and all(x.due_at < soon for x in callbacks)
        assert {x.status for x in callbacks} <= set(c.CALLBACK_STATUSES)
        assert {"missed", "scheduled"} <= {x.status for x in callbacks}
        assert all(len(x.phone_last4) == 4 and x.phone_last4.isdigit() for x in callbacks)
        later = await rest.callbacks(soon + timedelta(days=1))
        assert {x.id for x in callbacks} < {x.id for x in later}  # due_before is honoured

        ai = [x for x in campaigns.values() if x.dial_mode == "ai"]
        bookings = await rest.pending_bookings()
        assert bookings and {b.campaign_id for b in bookings} <= {x.id for x in ai}
        assert all(b.reason and b.contact_name for b in bookings)
        dialer = await rest.ai_dialer()
        assert [d.campaign_id for d in dialer] == [x.id for x in ai]
        assert all(0 <= d.concurrent_calls <= d.max_concurrent for d in dialer)


async def test_it_starts_and_stops_and_names_a_409_on_the_same_state(simulator):
    async with httpx.AsyncClient() as client:
        rest = rest_for(simulator, client)
        active = next(x for x in await rest.campaigns() if x.status == "active")
        stopped = await rest.stop_campaign(active.id)
        assert (stopped.id, stopped.status) == (active.id, "stopped")
        with pytest.raises(Conflict) as again:
            await rest.stop_campaign(active.id)
        assert (again.value.code, again.value.message) == (
            "invalid_state",
            "Campaign is already stopped",
        )
        assert str(again.value) == "409 invalid_state: Campaign is already stopped"
        assert (await rest.start_campaign(active.id)).status == "active"
        with pytest.raises(Conflict, match="already running"):
            await rest.start_campaign(active.id)
        assert (await rest.campaign(active.id)).status == "active"


async def test_it_treats_an_unknown_or_foreign_campaign_as_absent(module_simulator):
    async with httpx.AsyncClient() as client:
        foreign = (
            await rest_for(module_simulator, client, email=module_simulator.email_b).campaigns()
        )[0]
        rest = rest_for(module_simulator, client)
        assert await rest.stop_campaign(foreign.id) is None
        assert await rest.start_campaign("no/such id?") is None  # quoted into one segment


async def test_it_names_endpoint_and_role_when_the_role_is_too_narrow(module_simulator):
    async with httpx.AsyncClient() as client:
        rest = rest_for(module_simulator, client, email=module_simulator.email_agent)
        campaign = (await rest.campaigns())[0]
        with pytest.raises(Forbidden) as refused:
            await rest.stop_campaign(campaign.id)
        assert f"POST /campaigns/{campaign.id}/stop" in str(refused.value)
        assert refused.value.role == "agent"
        assert (await rest.campaign(campaign.id)).status == campaign.status  # nothing changed


async def test_a_group_the_service_lacks_is_not_offered_and_the_rest_still_works(sim_factory):
    sim = sim_factory(
        "--without",
        "dialer-queue",
        "--without",
        "ai-dialer:405",
        "--without",
        "campaign-control:405",
    )
    async with httpx.AsyncClient() as client:
        rest = rest_for(sim, client)
        with pytest.raises(NotOffered) as absent:
            await rest.dialer_queue()
        assert absent.value.status == 404 and "GET /dialer-queue/summary" in str(absent.value)
        with pytest.raises(NotOffered) as absent:
            await rest.ai_dialer()
        assert absent.value.status == 405
        campaign = (await rest.campaigns())[0]
        with pytest.raises(NotOffered):
            await rest.stop_campaign(campaign.id)
        assert await rest.callbacks(datetime.now(UTC)) is not None
        assert await rest.pending_bookings()


async def test_it_gives_up_on_a_slow_start_with_the_time_it_waited(simulator):
    async with httpx.AsyncClient() as client:
        rest = RestClient(
            simulator.base_url, session_for(simulator, client), client, attempts=2, timeout=0.5
        )
        campaign = (await rest.campaigns())[0]
        simulator.control("rest-delay", seconds=2, for_s=10)
        with pytest.raises(UpstreamError, match="failed after 2 attempts: no answer within 0.5 s"):
            await rest.start_campaign(campaign.id)
