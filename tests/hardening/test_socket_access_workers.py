"""Across workers: a sign-out on one Daphne worker closes the person's sockets on another,
and so does a role change made by a third process; Redis carries the word."""

import asyncio

import httpx
import pytest
import websockets

from dashboard.testing.processes import await_until, free_port
from dashboard.testing.servers import dashboard_env, manage, session_cookie, start_topology


def up(url):
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


DEMOTE = """
from django.contrib.auth.models import Group, User
User.objects.get(username="bob").groups.set([Group.objects.get(name="Wallboard viewer")])
"""


@pytest.fixture
def workers(simulator, redis_url, postgres_url):
    ports = [free_port(), free_port()]
    processes = start_topology(simulator, redis_url, postgres_url, ports, bridges=0)
    env = dashboard_env(simulator, postgres_url, REDIS_URL=redis_url)
    yield [f"http://127.0.0.1:{port}" for port in ports], env
    for process in processes.values():
        process.stop()


async def open_qa(url, cookie):
    ws = await websockets.connect(
        url.replace("http://", "ws://") + "/ws/qa/",
        additional_headers={"Cookie": cookie, "Origin": url},
    )
    return ws


async def close_code(ws, timeout=5.0):
    async def drain():
        try:
            async for _ in ws:
                pass
        except websockets.ConnectionClosed:
            pass

    await asyncio.wait_for(drain(), timeout)
    return ws.close_code


async def test_a_sign_out_on_one_worker_closes_the_socket_on_another(workers):
    (one, two), env = workers
    await await_until(lambda: up(one) and up(two), 30, "both workers")
    cookie = await asyncio.to_thread(session_cookie, one, "bob")
    qa = await open_qa(one, cookie)
    csrf = cookie.partition("csrftoken=")[2].partition(";")[0]
    async with httpx.AsyncClient(base_url=two, timeout=10, headers={"Cookie": cookie}) as client:
        r = await client.post("/accounts/logout/", data={"csrfmiddlewaretoken": csrf})
        assert r.status_code == 302
    assert await close_code(qa) == 4401

    cookie = await asyncio.to_thread(session_cookie, two, "bob")
    qa = await open_qa(one, cookie)
    manage(env, "shell", "-c", DEMOTE)
    assert await close_code(qa) == 4403
