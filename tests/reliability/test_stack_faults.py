"""The production stack under its own parts' faults: two web workers, two bridges, the
simulator (its webhooks sent to the first worker), Redis and PostgreSQL started here.

For each fault: browsers that stayed connected were not told the floor was fresh while it
lasted (no push, or a status that is not "connected"); every signed webhook the service
sent before or during it is processed once afterwards; an agent paused during it raises
the pause rule's alert, posted to the chat webhook after it; and both workers' browsers show
the simulator's truth again soon after the part returns (the time is printed;
docs/reliability.md has the figures)."""

import asyncio
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass

import psycopg
import pytest

from dashboard.testing.alerts import Rules, alert_env, calm, wait_for_post
from dashboard.testing.live_view import ReconnectingBrowser
from dashboard.testing.processes import (
    Process,
    await_until,
    each_moment,
    free_port,
    let_pass_async,
    wait_until,
)
from dashboard.testing.receiver import Receiver
from dashboard.testing.servers import (
    WEBHOOK_SECRET,
    ready,
    session_cookie,
    signed_in_client,
    start_topology,
)
from dashboard.testing.simulator import Sim, start_simulator
from dashboard.testing.stores import RestartablePostgres, RestartableRedis

pytestmark = pytest.mark.timeout(300)  # the stack (first test), a fault and its recovery

# Past the bridge's 5 s lease and a page's 3 s without a message, with the pause rule's
# alert falling due in it (3 s): the service's retries (1, 2, 4 s on) deliver at 7 s.
OUTAGE_S = 6
BACK_WITHIN_S = 30  # generous on the shared machine; the figures measured are printed
STALE_AFTER_S = 3  # browsers call a screen stale after this long without a message
PAUSED = "Paused (faults)"
BURST = 20  # webhooks, the leading bridge killed half-way
LEASE_LINES = ("leading:", "following:", "was taken", "could not be renewed", "not reachable")


@dataclass
class Stack:
    sim: Sim
    store: RestartableRedis
    database: RestartablePostgres
    receiver: Receiver
    workers: list[str]
    processes: dict[str, Process]


@pytest.fixture(scope="module")
def stack():
    """One stack for the module's faults (its start is most of a fault test's CPU): each
    test takes it back as it found it, the part it stopped running again, and the
    bridge's kill comes last."""
    with ExitStack() as cleanup:
        ports = [free_port(), free_port()]
        hook = f"http://127.0.0.1:{ports[0]}/webhooks/service/"
        sim = start_simulator(
            "--faults", "--seed", "7", "--webhook-url", hook, "--webhook-secret", WEBHOOK_SECRET
        )
        cleanup.callback(sim.stop)
        receiver = Receiver()
        cleanup.callback(receiver.close)
        store = RestartableRedis(cleanup.enter_context(tempfile.TemporaryDirectory()))
        cleanup.callback(store.stop)
        database = RestartablePostgres()
        cleanup.callback(database.remove)
        workers, processes = started(sim, store.url, database.url, ports, alert_env(receiver))
        for process in processes.values():
            cleanup.callback(process.stop)
        yield Stack(sim, store, database, receiver, workers, processes)


@pytest.fixture
def topology(stack):
    """The stack with both stores up, the floor calm, the pause rule afresh and nothing
    posted to the chat webhook yet."""
    for part in (stack.store, stack.database):
        if not part.process.running:
            part.start()
    wait_until(lambda: all(ready(url) for url in stack.workers), 60, "both workers ready")
    watch_pauses(stack.workers[0], stack.sim)
    stack.receiver.received.clear()
    stack.receiver.received_at.clear()
    return stack


def started(simulator, redis_url, database_url, ports, settings=None):
    processes = start_topology(
        simulator,
        redis_url,
        database_url,
        ports,
        LIVE_HEARTBEAT_S=1,
        LIVE_STALE_AFTER_S=STALE_AFTER_S,
        people={"alice": "manager"},  # the rules' author (watch_pauses)
        **(settings or {}),
    )
    workers = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        wait_until(lambda: all(ready(url) for url in workers), 60, "both workers ready")
    except AssertionError:
        for process in processes.values():
            process.stop()
        raise
    return workers, processes


def watch_pauses(url, simulator):
    """Only the test moves agents, and one rule watches them: an agent paused for 2 s. No
    agent is paused before the rule, so its first alert is the one the fault's pause raises."""
    calm(simulator)
    rules = Rules(client=signed_in_client(url, "alice"))  # started() added her
    rules.delete_all()
    rules.add(PAUSED, "agent_paused", warn=2, hold_s=1, clear_s=1)


async def raised_after(receiver, agent: str, since: float):
    """The pause rule's alert, raised for `agent`'s team and posted after `since`."""
    raised = await asyncio.to_thread(wait_for_post, receiver, PAUSED, "raised", 30)
    assert agent in raised.payload["members"] and raised.verifies()
    assert raised.received_at >= since
    return raised


def leads(bridge: Process) -> bool:
    """Whether the bridge's last word about the lease is that it holds it."""
    said = [line for line in bridge.lines if any(text in line for text in LEASE_LINES)]
    return bool(said) and "leading: this bridge holds" in said[-1]


def sim_states(sim):
    return {a["agentId"]: a["status"] for a in sim.agents()}


def processed_once(database, ids) -> bool:
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT status FROM quality_delivery WHERE delivery_id = ANY(%s)", [ids]
        ).fetchall()
    return len(rows) == len(set(ids)) and all(status == "processed" for (status,) in rows)


async def said_not_fresh(browsers, seconds: float) -> list[bool]:
    """Over `seconds`, whether each page would have said it is not fresh: a gap of
    STALE_AFTER_S without a message (the page's own rule), or an upstream status other
    than "connected"."""
    now = time.monotonic()
    changed, seen = [now] * len(browsers), [b.frames for b in browsers]
    said, drops = [False] * len(browsers), [b.drops for b in browsers]
    async for now in each_moment(seconds, every=0.2):
        for n, b in enumerate(browsers):
            if b.frames != seen[n]:
                seen[n], changed[n] = b.frames, now
            status = b.view.upstream[-1][0] if b.view.upstream else ""
            if now - changed[n] >= STALE_AFTER_S or status != "connected" or b.drops > drops[n]:
                said[n] = True
    return said


async def browsers_on(workers):
    cookies = [await asyncio.to_thread(session_cookie, url, "bob") for url in workers]
    browsers = [
        await ReconnectingBrowser(url).open(c) for url, c in zip(workers, cookies, strict=True)
    ]
    await await_until(lambda: all(b.states for b in browsers), 15, "the snapshot on both")
    return browsers


async def settled(browsers):
    """Sockets past their handshake, following the pushes (as most are when a fault
    comes): two heartbeats each."""
    seen = [b.frames for b in browsers]
    await await_until(
        lambda: all(b.frames >= n + 2 for b, n in zip(browsers, seen, strict=True)),
        15,
        "the heartbeats on both",
    )


async def back_to_truth(sim, browsers, since: float) -> float:
    """Seconds from `since` until every browser shows the simulator's truth, live."""
    agent = sorted(sim_states(sim))[0]
    sim.control("agent-status", agent_id=agent, status="available")  # a change after the fault
    truth = sim_states(sim)
    await await_until(
        lambda: all(b.states == truth for b in browsers), BACK_WITHIN_S, "every screen right"
    )
    return time.monotonic() - since


async def test_redis_stopped_for_6_s(topology):
    simulator, store, receiver = topology.sim, topology.store, topology.receiver
    browsers = await browsers_on(topology.workers)
    await settled(browsers)
    agent, pausing = sorted(sim_states(simulator))[:2]
    before = simulator.control("webhook", event="coaching_alert")["deliveries"]

    store.stop()
    stopped = time.monotonic()
    simulator.control("agent-status", agent_id=agent, status="offline")
    simulator.control("agent-status", agent_id=pausing, status="paused")  # due in the outage
    during = simulator.control("webhook", event="coaching_alert")["deliveries"]
    said = await said_not_fresh(browsers, OUTAGE_S - (time.monotonic() - stopped))
    assert all(said), f"a screen kept saying it was fresh: {said}"
    store.start()
    back, back_at = time.monotonic(), time.time()

    took = await back_to_truth(simulator, browsers, back)
    print(f"redis: screens right {took:.1f} s after it came back")
    database = topology.database.url
    await await_until(
        lambda: processed_once(database, before + during), 60, "the webhooks processed once"
    )
    await raised_after(receiver, pausing, back_at)
    web = topology.processes["web-1"].log()
    assert '"POST /webhooks/service/" 500' not in web  # 503: retry later
    assert all(ready(url) for url in topology.workers)
    for b in browsers:
        await b.close()


async def test_postgresql_stopped_for_6_s(topology):
    """The live floor does not go through PostgreSQL: the pages stay live through it.
    Webhooks are stored there: the service's retries deliver those refused meanwhile. An
    alert that falls due meanwhile is posted to the chat webhook after it."""
    simulator, database, receiver = topology.sim, topology.database, topology.receiver
    web = topology.processes["web-1"]  # the worker the service posts to
    log_from = len(web.lines)  # this test's part of its log
    browsers = await browsers_on(topology.workers)
    await settled(browsers)
    agent = sorted(sim_states(simulator))[0]
    before = simulator.control("webhook", event="coaching_alert")["deliveries"]

    database.stop()
    stopped = time.monotonic()
    during = simulator.control("webhook", event="coaching_alert")["deliveries"]
    simulator.control("agent-status", agent_id=agent, status="paused")  # falls due in 3 s
    await await_until(
        lambda: all(b.states.get(agent) == "paused" for b in browsers),
        OUTAGE_S,
        "a change shown during the outage",
    )
    await let_pass_async(OUTAGE_S - (time.monotonic() - stopped), "the rest of the outage")
    database.start()
    back, back_at = time.monotonic(), time.time()

    took = await back_to_truth(simulator, browsers, back)
    print(f"postgresql: screens right {took:.1f} s after it came back")
    await await_until(
        lambda: processed_once(database.url, before + during), 60, "the webhooks processed once"
    )
    await await_until(lambda: all(ready(url) for url in topology.workers), 10, "both ready")
    assert '"POST /webhooks/service/" 503' in "".join(web.lines[log_from:])
    assert "Internal Server Error" not in web.log()
    # The rule is about agents: its alert is the agent's team's, listing the agent.
    raised = await raised_after(receiver, agent, back_at)  # posted once it could be recorded
    assert raised.fell_due.timestamp() < back_at  # due in the outage
    for b in browsers:
        await b.close()


async def test_the_leading_bridge_killed_during_a_burst_of_webhooks(topology):
    """Last of the module: the stack keeps one bridge from here."""
    simulator, receiver, database = topology.sim, topology.receiver, topology.database.url
    browsers = await browsers_on(topology.workers)
    await settled(browsers)
    pausing = sorted(sim_states(simulator))[1]
    bridges = [topology.processes["bridge-1"], topology.processes["bridge-2"]]
    (active,) = [b for b in bridges if leads(b)]
    standby = next(b for b in bridges if b is not active)
    with psycopg.connect(database) as conn:
        alerts_sql = "SELECT count(*), count(DISTINCT alert_id) FROM quality_coachingalert"
        stored = conn.execute(alerts_sql).fetchone()  # the earlier faults' alerts

    ids = []
    for n in range(BURST):
        ids += simulator.control("webhook", event="coaching_alert")["deliveries"]
        if n == BURST // 2:
            active.kill()  # SIGKILL: its claimed deliveries are left mid-way
            killed, killed_at = time.monotonic(), time.time()
            simulator.control("agent-status", agent_id=pausing, status="paused")
    said = await said_not_fresh(browsers, STALE_AFTER_S + 1)
    assert all(said), f"a screen kept saying it was fresh: {said}"
    await await_until(lambda: leads(standby), 15, "the hand-over")

    took = await back_to_truth(simulator, browsers, killed)
    print(f"bridge killed: screens right {took:.1f} s after the kill")
    await await_until(lambda: processed_once(database, ids), 60, "the webhooks processed once")
    with psycopg.connect(database) as conn:
        alerts = conn.execute(alerts_sql).fetchone()
    assert len(set(ids)) == BURST and alerts == (stored[0] + BURST, stored[1] + BURST)
    await raised_after(receiver, pausing, killed_at)
    assert all(ready(url) for url in topology.workers)
    for b in browsers:
        await b.close()
