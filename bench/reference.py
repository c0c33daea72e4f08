"""The ideal reference, and the benchmark's record of what the simulator emitted.

The reference does the dashboard's job as well as Python can, with nothing else: a
python-socketio client joins organisation A's room on the simulator and, on one asyncio
loop, coalesces agent events on the same leading edge as the live feed (a change after a
quiet tick goes out at once; changes within the tick merge per agent, the newest wins), then
sends one JSON frame per tick with the changed agents to every client of a plain
`websockets` server; a client that follows one team (`/?team=NAME`) is sent its team's
changed agents only, one frame per team and tick. No Django, no rendering, no channel
layer. Without `--port` it only records, so every target's run has the same record of
what was emitted.

Driven by lines on stdin (from bench/run.py): `dump PATH LO HI` writes the agent events
with LO < seq <= HI as {agent: [seq, ...]} to PATH; end of input stops it.
"""

import argparse
import asyncio
import json
import sys
import time
from collections import defaultdict
from urllib.parse import parse_qs, urlsplit

import httpx
import socketio
from websockets.asyncio.server import broadcast, serve


class Coalescer:
    """The live feed's leading-edge tick (dashboard/live/feed.py `LiveFeed.run`)."""

    def __init__(self, tick: float, clients: dict[str | None, set]):
        self.tick, self.clients = tick, clients  # team (None: the whole floor) -> sockets
        self.pending: dict[str, dict] = {}
        self.wakeup = asyncio.Event()

    def add(self, event: dict):
        self.pending[event["agent_id"]] = event
        self.wakeup.set()

    async def run(self):
        last = 0.0
        while True:
            await self.wakeup.wait()
            gap = time.monotonic() - last
            if gap < self.tick:
                await asyncio.sleep(self.tick - gap)
            changed, self.pending = self.pending, {}
            self.wakeup.clear()
            by_team = defaultdict(list)
            for event in changed.values():
                by_team[event.get("team")].append(event)
            for team, sockets in self.clients.items():
                agents = list(changed.values()) if team is None else by_team.get(team)
                if sockets and agents:
                    broadcast(sockets, json.dumps({"agents": agents}))
            last = time.monotonic()


async def main(a):
    events: list[tuple[str, int]] = []
    clients = defaultdict(set)
    coalescer = Coalescer(a.tick, clients)

    async def handler(ws):
        team = (parse_qs(urlsplit(ws.request.path).query).get("team") or [None])[0]
        clients[team].add(ws)
        try:
            await ws.wait_closed()
        finally:
            clients[team].discard(ws)

    def take(data):
        if isinstance(data, dict) and isinstance(data.get("agent_id"), str):
            events.append((data["agent_id"], data["seq"]))
            if a.port:
                coalescer.add(data)

    async with httpx.AsyncClient(base_url=a.sim, timeout=30) as http:
        org = (await http.get("/_control/stats")).json()["org_a"]
        token = (
            await http.post(
                "/auth/v1/token?grant_type=password",
                headers={"apikey": a.anon_key},
                json={"email": a.email, "password": a.password},
            )
        ).json()["access_token"]
    # A process too busy to answer the simulator's pings is dropped by it: it reconnects and
    # joins again, and what it missed meanwhile is lost to its clients, as it would be.
    sio = socketio.AsyncClient()
    joined = asyncio.Event()

    async def join():
        ack = await sio.call("join", {"room": f"org:{org}"}, timeout=10)
        if not ack.get("ok"):
            raise SystemExit(f"joining org:{org} was refused: {ack}")
        joined.set()

    sio.on("connect", lambda: asyncio.ensure_future(join()))
    sio.on("*", lambda kind, data: take(data))
    server = await serve(handler, "127.0.0.1", a.port, compression=None) if a.port else None
    ticking = asyncio.ensure_future(coalescer.run()) if a.port else None
    await sio.connect(a.sim, auth={"token": token}, transports=["websocket"])
    await asyncio.wait_for(joined.wait(), 10)
    print("reference ready", flush=True)
    loop = asyncio.get_running_loop()
    while line := (await loop.run_in_executor(None, sys.stdin.readline)).split():
        if line[0] == "dump":
            path, lo, hi = line[1], int(line[2]), int(line[3])
            window = defaultdict(list)
            for agent, seq in events:
                if lo < seq <= hi:
                    window[agent].append(seq)
            with open(path, "w") as f:
                json.dump({"events": window, "count": sum(map(len, window.values()))}, f)
            print("dumped", flush=True)
    await sio.disconnect()
    if server:
        ticking.cancel()
        server.close()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--sim", required=True, help="the simulator's base URL")
    p.add_argument("--port", type=int, default=0, help="serve the reference here (0: record)")
    p.add_argument("--tick", type=float, default=0.1, help="the coalescing tick, seconds")
    p.add_argument("--anon-key", default="sim-anon-key")
    p.add_argument("--email", default="svc-a@sim.local")
    p.add_argument("--password", default="sim-password")
    asyncio.run(main(p.parse_args()))
