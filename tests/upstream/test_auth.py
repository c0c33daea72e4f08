"""The auth session against the simulated tenant's auth provider."""

import asyncio
import logging

import httpx
import pytest

from dashboard.testing.processes import let_pass_async
from dashboard.testing.upstream import session_for
from dashboard.upstream.errors import AuthError


async def test_it_signs_in_and_learns_its_organisation(module_simulator):
    async with httpx.AsyncClient() as client:
        session = session_for(module_simulator, client)
        token = await session.token()
        assert token.count(".") == 2
        assert session.organization_id == module_simulator.org_a
        assert session.role == "supervisor"
        assert session.signed_in and session.error is None


@pytest.mark.parametrize(
    ("options", "kind"),
    [
        ({"email": "mfa-a@sim.local"}, AuthError.MFA_REQUIRED),
        ({"password": "wrong"}, AuthError.BAD_CREDENTIALS),
        ({"anon_key": "wrong"}, AuthError.BAD_ANON_KEY),
    ],
)
async def test_it_tells_the_three_sign_in_failures_apart(module_simulator, options, kind):
    async with httpx.AsyncClient() as client:
        session = session_for(module_simulator, client, **options)
        with pytest.raises(AuthError) as failure:
            await session.token()
        assert failure.value.kind == kind
        assert not session.signed_in and session.error.kind == kind
        assert str(session.error).startswith(kind)


async def test_it_refreshes_once_for_many_callers_and_rotates(sim_factory):
    sim = sim_factory("--token-ttl", "2")
    async with httpx.AsyncClient() as client:
        session = session_for(sim, client)
        first = await session.token()
        await let_pass_async(1.7, "past 80 % of the token's 2 s life")
        tokens = await asyncio.gather(*(session.token() for _ in range(20)))
        assert len(set(tokens)) == 1 and tokens[0] != first
        assert session.renewals == 2  # the sign-in, then exactly one refresh
        assert sim.get("/ai", tokens[0]).status_code == 200


async def test_it_signs_in_afresh_when_refresh_tokens_are_revoked(sim_factory):
    sim = sim_factory("--token-ttl", "2", "--faults")
    async with httpx.AsyncClient() as client:
        session = session_for(sim, client)
        await session.token()
        sim.control("revoke-refresh-tokens")
        await let_pass_async(1.7, "past 80 % of the token's 2 s life")
        token = await session.token()
        assert sim.get("/ai", token).status_code == 200
        assert session.error is None


async def test_it_waits_out_an_auth_provider_outage(simulator, caplog):
    simulator.control("auth-down", seconds=2)
    async with httpx.AsyncClient() as client:
        session = session_for(simulator, client, max_backoff=0.5)
        token = await asyncio.wait_for(session.token(), timeout=15)
        assert simulator.get("/ai", token).status_code == 200
    assert "auth provider unavailable" in caplog.text


async def test_it_never_logs_a_token_or_the_password(sim_factory, caplog):
    caplog.set_level(logging.DEBUG)
    sim = sim_factory("--token-ttl", "2", "--faults")
    async with httpx.AsyncClient() as client:
        session = session_for(sim, client)
        tokens = [await session.token()]
        sim.control("revoke-refresh-tokens")
        await let_pass_async(1.7, "past 80 % of the token's 2 s life")
        tokens.append(await session.token())
    logged = caplog.text
    for secret in [*tokens, sim.password]:
        assert secret not in logged
