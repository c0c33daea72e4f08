"""The call evidence endpoints (contract 5) through the REST client, against the simulated
tenant: every shape, and every way they fail."""

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from dashboard.testing.processes import await_until
from dashboard.testing.upstream import session_for
from dashboard.upstream import contract as c
from dashboard.upstream.errors import Forbidden, NotOffered, UpstreamError
from dashboard.upstream.rest import RestClient

AN_HOUR_AGO = datetime.now(UTC) - timedelta(hours=1)


def rest_for(sim, client, **options):
    session = session_for(sim, client, email=options.pop("email", None))
    return RestClient(sim.base_url, session, client, max_backoff=0.3, **options)


def completed_call(sim, agent_id=None) -> dict:
    """A call that ended just now, made by the simulator (and delivered as a webhook)."""
    return sim.control("webhook", event="call_completed", agent_id=agent_id)["data"]


async def test_it_reads_an_ended_call_with_its_outcome_and_recording(module_simulator):
    made = completed_call(module_simulator)
    async with httpx.AsyncClient() as client:
        call = await rest_for(module_simulator, client).call(made["call_id"])
    assert isinstance(call, c.Call) and call.call_id == made["call_id"]
    assert call.agent_id == made["agent_id"] and call.outcome == "callback"
    assert call.duration_s == 120 and call.ended_at is not None
    assert call.recording_id and call.started_at < call.ended_at


async def first(read, timeout=60.0):
    """The first non-empty answer of `read()`, asked again every 0.3 s (the model's pace)."""
    return await await_until(read, timeout, f"{read.__name__} not empty", interval=0.3)


async def test_it_reads_a_live_call_with_no_end_yet(module_simulator):
    async with httpx.AsyncClient() as client:
        rest = rest_for(module_simulator, client)
        live = await first(rest.active_calls)
        call = await rest.call(live[0].call_id)
    assert call.call_id == live[0].call_id
    assert (call.ended_at, call.outcome, call.duration_s, call.recording_id) == (None,) * 4


async def test_a_missing_or_foreign_call_is_absent(module_simulator):
    async with httpx.AsyncClient() as client:
        theirs = rest_for(module_simulator, client, email=module_simulator.email_b)
        [foreign, *_] = await first(lambda: theirs.calls(since=AN_HOUR_AGO))
        rest = rest_for(module_simulator, client)
        assert await rest.call(foreign.call_id) is None
        assert await rest.recordings(foreign.call_id) == []
        assert await rest.call("no-such-call") is None
        assert await rest.call("a/b?c=d") is None  # quoted into one path segment


async def test_it_lists_an_agents_calls_since_a_time_newest_first(module_simulator):
    agent = module_simulator.agents()[3]["agentId"]
    made = [completed_call(module_simulator, agent)["call_id"] for _ in range(3)]
    async with httpx.AsyncClient() as client:
        rest = rest_for(module_simulator, client)
        mine = await rest.calls(since=AN_HOUR_AGO, agent_id=agent)
        everyone = await rest.calls(since=AN_HOUR_AGO)
        later = await rest.calls(since=datetime.now(UTC) + timedelta(minutes=1), agent_id=agent)
    assert set(made) <= {x.call_id for x in mine}
    assert {x.agent_id for x in mine} == {agent}
    starts = [x.started_at for x in mine]
    assert starts == sorted(starts, reverse=True)
    assert len(everyone) <= 200 and {x.call_id for x in mine} <= {x.call_id for x in everyone}
    assert later == []


async def test_it_reads_a_recordings_short_lived_address_which_plays(module_simulator):
    made = completed_call(module_simulator)
    async with httpx.AsyncClient() as client:
        rest = rest_for(module_simulator, client)
        [recording] = await rest.recordings(made["call_id"])
        assert recording.call_id == made["call_id"] and recording.duration_s == 120
        assert recording.expires_at > datetime.now(UTC)
        assert recording.url not in repr(recording)  # never in a log line by accident
        audio = await client.get(recording.url)  # no bearer token: the address is the key
        assert audio.status_code == 200 and audio.headers["content-type"] == "audio/wav"
        assert audio.content.startswith(b"RIFF")
        tampered = await client.get(recording.url.replace("sig=", "sig=0"))
        assert tampered.status_code == 403
        assert await rest.recordings("no-such-call") == []


async def test_it_says_which_feature_a_service_lacks_on_404_or_405(simulator):
    async with httpx.AsyncClient() as client:
        rest = rest_for(simulator, client, attempts=1)
        made = completed_call(simulator)["call_id"]
        for status in (404, 405):
            simulator.control("missing-endpoint", path="recordings", status=status, seconds=30)
            with pytest.raises(NotOffered, match="this service does not offer recordings"):
                await rest.recordings(made)
        simulator.control("missing-endpoint", path="calls", status=404, seconds=30)
        with pytest.raises(NotOffered, match="does not offer call history"):
            await rest.calls(since=AN_HOUR_AGO, agent_id="x")
        assert await rest.call(made) is None  # 404 on one call reads as "absent"
        simulator.control("missing-endpoint", path="calls", status=405, seconds=30)
        with pytest.raises(NotOffered, match="does not offer call records"):
            await rest.call(made)
        simulator.control("missing-endpoint", path="calls", seconds=0)
        simulator.control("missing-endpoint", path="recordings", seconds=0)
        assert (await rest.call(made)).call_id == made  # the rest kept working throughout


async def test_it_fails_clearly_when_the_service_errs_is_slow_or_refuses(simulator):
    async with httpx.AsyncClient() as client:
        made = completed_call(simulator)["call_id"]
        rest = rest_for(simulator, client, attempts=2, timeout=0.5)
        await rest.call(made)  # signed in
        simulator.control("rest-errors", status=503, seconds=5)
        with pytest.raises(UpstreamError, match="GET /recordings failed after 2 attempts"):
            await rest.recordings(made)
        simulator.control("rest-errors", status=500, seconds=0)
        simulator.control("rest-delay", seconds=2, for_s=5)
        with pytest.raises(UpstreamError, match="no answer within 0.5 s"):
            await rest.call(made)
        simulator.control("rest-delay", seconds=0, for_s=0)
        simulator.control("rest-errors", status=403, seconds=5)
        with pytest.raises(Forbidden, match="GET /calls"):
            await rest.calls(since=AN_HOUR_AGO)
