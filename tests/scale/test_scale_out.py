"""The production topology on one machine: Redis, PostgreSQL, two Daphne workers and two
`manage.py bridge` processes against the simulated tenant, driven like browsers would."""

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import httpx
import psycopg
import pytest
import websockets

from tests.servers import ROOT, USER_PASSWORD
from tests.simulator_process import free_port

AGENT = re.compile(r'<div id="agent-([^"]+)" class="agent"[^>]*? data-state="([^"]*)"')
HANDOVER_S = 10
WEBHOOK_SECRET = "scale-webhook-secret"


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    lines: list = field(default_factory=list)

    @classmethod
    def start(cls, name, args, env):
        popen = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        proc = cls(name, popen)
        threading.Thread(target=lambda: proc.lines.extend(popen.stdout), daemon=True).start()
        return proc

    def said(self, text):
        return any(text in line for line in self.lines)

    def stop(self):
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


class Browser:
    """A signed-in browser's live socket: keeps the agents' states as the page would."""

    def __init__(self, url):
        self.url, self.states, self.frames = url, {}, 0

    async def open(self, username):
        async with httpx.AsyncClient(base_url=self.url, timeout=10) as client:
            await client.get("/accounts/login/")
            await client.post(
                "/accounts/login/",
                data={
                    "username": username,
                    "password": USER_PASSWORD,
                    "csrfmiddlewaretoken": client.cookies["csrftoken"],
                },
            )
            cookie = f"sessionid={client.cookies['sessionid']}"
        ws_url = self.url.replace("http://", "ws://") + "/ws/live/"
        self.socket = await websockets.connect(
            ws_url, additional_headers={"Cookie": cookie, "Origin": self.url}
        )
        self.reader = asyncio.ensure_future(self._read())
        return self

    async def _read(self):
        async for frame in self.socket:
            self.frames += 1
            self.states.update(AGENT.findall(frame))

    async def close(self):
        self.reader.cancel()
        await self.socket.close()


async def until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)
    return time.monotonic()


def sim_states(sim):
    return {a["agentId"]: a["status"] for a in sim.agents()}


@pytest.fixture
def ports():
    return [free_port(), free_port()]


@pytest.fixture
def simulator(sim_factory, ports):
    """The simulated tenant, its webhooks sent to the first web worker."""
    hook = f"http://127.0.0.1:{ports[0]}/webhooks/service/"
    return sim_factory(
        "--faults", "--seed", "7", "--webhook-url", hook, "--webhook-secret", WEBHOOK_SECRET
    )


@pytest.fixture
def topology(simulator, redis_url, postgres_url, ports):
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "DATABASE_URL": postgres_url,
        "UPSTREAM_BASE_URL": simulator.base_url,
        "UPSTREAM_AUTH_URL": simulator.auth_url,
        "UPSTREAM_ANON_KEY": simulator.anon_key,
        "UPSTREAM_EMAIL": simulator.email_a,
        "UPSTREAM_PASSWORD": simulator.password,
        "UPSTREAM_WEBHOOK_SECRETS": WEBHOOK_SECRET,
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run(
        [*manage, "adduser", "bob", "--role", "supervisor", "--password", USER_PASSWORD],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    daphne = os.path.join(os.path.dirname(sys.executable), "daphne")
    processes = {
        "bridge-1": Process.start("bridge-1", [*manage, "bridge"], env),
        "bridge-2": Process.start("bridge-2", [*manage, "bridge"], env),
    }
    workers = []
    for n, port in enumerate(ports, 1):
        args = [daphne, "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"]
        processes[f"web-{n}"] = Process.start(f"web-{n}", args, env)
        workers.append(f"http://127.0.0.1:{port}")
    yield workers, processes, postgres_url
    for proc in processes.values():
        proc.stop()


def ready(url):
    try:
        return httpx.get(f"{url}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


async def test_it_serves_browsers_on_every_worker_and_hands_over_when_the_bridge_dies(
    simulator, topology
):
    workers, processes, database = topology
    bridges = [processes["bridge-1"], processes["bridge-2"]]
    await until(lambda: all(ready(url) for url in workers), 30, "both workers ready")
    leaders = [b for b in bridges if b.said("leading: this bridge holds")]
    assert len(leaders) == 1, "exactly one bridge leads"
    active, standby = leaders[0], next(b for b in bridges if b is not leaders[0])
    assert standby.said("following: another bridge holds")

    browsers = [await Browser(url).open("bob") for url in workers]
    await until(lambda: all(b.states for b in browsers), 10, "the snapshot on both workers")

    agent = sorted(sim_states(simulator))[0]
    simulator.control("pause")  # the behaviour model stops: only forced changes from here
    simulator.control("agent-status", agent_id=agent, status="offline")
    await until(
        lambda: all(b.states.get(agent) == "offline" for b in browsers), 10, "the same change"
    )

    os.killpg(active.popen.pid, signal.SIGKILL)
    killed = time.monotonic()
    simulator.control("agent-status", agent_id=agent, status="paused")  # while no one leads
    seen = await until(
        lambda: all(b.states.get(agent) == "paused" for b in browsers),
        HANDOVER_S + 5,
        "the change made during the hand-over",
    )
    assert standby.said("leading: this bridge holds")
    assert seen - killed < HANDOVER_S, f"hand-over took {seen - killed:.1f} s"
    print(f"hand-over seen by both browsers {seen - killed:.1f} s after the kill")

    # After the resync, every agent on both workers is in the state the service has.
    truth = sim_states(simulator)
    await until(lambda: all(b.states == truth for b in browsers), 10, "every agent right")
    simulator.control("agent-status", agent_id=agent, status="available")
    await until(
        lambda: all(b.states.get(agent) == "available" for b in browsers), 10, "a later change"
    )
    assert all(ready(url) for url in workers)

    # Webhooks reach a web worker and are processed by the new leader, once, in PostgreSQL.
    ids = simulator.control("webhook", event="coaching_alert")["deliveries"]
    await until(lambda: processed(database, ids), 15, "the delivery processed")
    for b in browsers:
        await b.close()


def processed(database, ids):
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT status FROM quality_delivery WHERE delivery_id = ANY(%s)", [ids]
        ).fetchall()
    return len(rows) == len(ids) and all(status == "processed" for (status,) in rows)
