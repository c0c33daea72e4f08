"""The production topology on one machine: Redis, PostgreSQL, two Daphne workers and two
`manage.py bridge` processes against the simulated tenant, driven like browsers would."""

import asyncio
import time

import httpx
import psycopg
import pytest

from dashboard.testing.live_view import LiveBrowser
from dashboard.testing.processes import await_until
from dashboard.testing.servers import ready, session_cookie, start_topology

HANDOVER_S = 10


def sim_states(sim):
    return {a["agentId"]: a["status"] for a in sim.agents()}


@pytest.fixture
def topology(hooked_simulator, redis_url, postgres_url, worker_ports):
    processes = start_topology(hooked_simulator, redis_url, postgres_url, worker_ports)
    yield [f"http://127.0.0.1:{port}" for port in worker_ports], processes, postgres_url
    for proc in processes.values():
        proc.stop()


async def test_it_serves_browsers_on_every_worker_and_hands_over_when_the_bridge_dies(
    hooked_simulator, topology
):
    workers, processes, database = topology
    bridges = [processes["bridge-1"], processes["bridge-2"]]
    await await_until(lambda: all(ready(url) for url in workers), 30, "both workers ready")
    leaders = [b for b in bridges if b.said("leading: this bridge holds")]
    assert len(leaders) == 1, "exactly one bridge leads"
    active, standby = leaders[0], next(b for b in bridges if b is not leaders[0])
    await await_until(lambda: standby.said("following: another bridge holds"), 10, "the standby")

    cookies = [await asyncio.to_thread(session_cookie, url, "bob") for url in workers]
    browsers = [await LiveBrowser(url).open(c) for url, c in zip(workers, cookies, strict=True)]
    await await_until(lambda: all(b.states for b in browsers), 10, "the snapshot on both workers")

    agent = sorted(sim_states(hooked_simulator))[0]
    hooked_simulator.control("pause")  # the behaviour model stops: only forced changes from here
    hooked_simulator.control("agent-status", agent_id=agent, status="offline")
    await await_until(
        lambda: all(b.states.get(agent) == "offline" for b in browsers), 10, "the same change"
    )

    active.kill()
    killed = time.monotonic()
    hooked_simulator.control("agent-status", agent_id=agent, status="paused")  # while no one leads
    await await_until(
        lambda: all(b.states.get(agent) == "paused" for b in browsers),
        HANDOVER_S + 5,
        "the change made during the hand-over",
    )
    seen = time.monotonic()
    assert standby.said("leading: this bridge holds")
    assert seen - killed < HANDOVER_S, f"hand-over took {seen - killed:.1f} s"
    print(f"hand-over seen by both browsers {seen - killed:.1f} s after the kill")

    # After the resync, every agent on both workers is in the state the service has.
    truth = sim_states(hooked_simulator)
    await await_until(lambda: all(b.states == truth for b in browsers), 10, "every agent right")
    hooked_simulator.control("agent-status", agent_id=agent, status="available")
    await await_until(
        lambda: all(b.states.get(agent) == "available" for b in browsers), 10, "a later change"
    )
    assert all(ready(url) for url in workers)

    # Webhooks reach a web worker and are processed by the new leader, once, in PostgreSQL.
    ids = hooked_simulator.control("webhook", event="coaching_alert")["deliveries"]
    await await_until(lambda: processed(database, ids), 15, "the delivery processed")
    for b in browsers:
        await b.close()

    # With no bridge left, /readyz stops repeating the last one's word.
    standby.kill()
    await await_until(lambda: not any(ready(url) for url in workers), 30, "both workers unready")
    assert httpx.get(f"{workers[0]}/readyz").json()["upstream"] == "starting"


def processed(database, ids):
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT status FROM quality_delivery WHERE delivery_id = ANY(%s)", [ids]
        ).fetchall()
    return len(rows) == len(ids) and all(status == "processed" for (status,) in rows)
