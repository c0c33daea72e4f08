"""The production topology as real processes on 127.0.0.1, and browsers' live sockets."""

import asyncio
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import httpx
import websockets

from tests.servers import ROOT, USER_PASSWORD
from tests.simulator_process import stop_process

AGENT = re.compile(r'<div id="agent-([^"]+)" class="agent"[^>]*? data-state="([^"]*)"')


@dataclass
class Process:
    popen: subprocess.Popen
    lines: list = field(default_factory=list)

    @classmethod
    def start(cls, args, env):
        popen = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        proc = cls(popen)
        threading.Thread(target=lambda: proc.lines.extend(popen.stdout), daemon=True).start()
        return proc

    def said(self, text):
        return any(text in line for line in self.lines)

    def stop(self):
        stop_process(self.popen)


async def sign_in(url, username) -> str:
    """Sign in through the form like a browser; the session cookie."""
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        await client.get("/accounts/login/")
        await client.post(
            "/accounts/login/",
            data={
                "username": username,
                "password": USER_PASSWORD,
                "csrfmiddlewaretoken": client.cookies["csrftoken"],
            },
        )
        return f"sessionid={client.cookies['sessionid']}"


class Browser:
    """A signed-in browser's live socket: keeps the agents' states as the page would."""

    def __init__(self, url):
        self.url, self.states, self.frames = url, {}, 0

    async def open(self, cookie):
        ws_url = self.url.replace("http://", "ws://") + "/ws/live/"
        self.socket = await websockets.connect(
            ws_url, additional_headers={"Cookie": cookie, "Origin": self.url}, max_size=None
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


def start_topology(sim, redis_url, database_url, ports, bridges=2, secret="") -> dict:
    """Migrate, add bob (Supervisor), start `bridges` bridges and a Daphne worker per port.
    Returns the processes by name (bridge-1.., web-1..)."""
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "DATABASE_URL": database_url,
        "UPSTREAM_BASE_URL": sim.base_url,
        "UPSTREAM_AUTH_URL": sim.auth_url,
        "UPSTREAM_ANON_KEY": sim.anon_key,
        "UPSTREAM_EMAIL": sim.email_a,
        "UPSTREAM_PASSWORD": sim.password,
        "UPSTREAM_WEBHOOK_SECRETS": secret,
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
    web = [sys.executable, "-m", "dashboard.live.web"]  # production's worker (docs/deploy.md)
    processes = {}
    for n in range(1, bridges + 1):
        processes[f"bridge-{n}"] = Process.start([*manage, "bridge"], env)
    for n, port in enumerate(ports, 1):
        args = [*web, "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"]
        processes[f"web-{n}"] = Process.start(args, env)
    return processes


def ready(url):
    try:
        return httpx.get(f"{url}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
