"""The baseline, and the benchmark's record of what the simulator emitted.

A bare relay: a python-socketio client joins organisation A's room on the simulator and
every event is sent on, as the JSON it came as, to every client of a plain `websockets`
server: no Django, no coalescing, one frame per event per client. Without `--port` it only
records, so the dashboard's run has the same record of what was emitted.

Driven by lines on stdin (from bench/run.py): `dump PATH LO HI` writes the agent events
with LO < seq <= HI as {agent: [seq, ...]} to PATH; end of input stops it.
"""

import argparse
import asyncio
import json
import sys
from collections import defaultdict

import httpx
import socketio
from websockets.asyncio.server import broadcast, serve


async def main(a):
    events: list[tuple[str, int]] = []
    clients = set()

    async def handler(ws):
        clients.add(ws)
        try:
            await ws.wait_closed()
        finally:
            clients.discard(ws)

    def relay(data):
        if isinstance(data, dict) and isinstance(data.get("agent_id"), str):
            events.append((data["agent_id"], data["seq"]))
        if clients:
            broadcast(clients, json.dumps(data))

    async with httpx.AsyncClient(base_url=a.sim, timeout=30) as http:
        org = (await http.get("/_control/stats")).json()["org_a"]
        token = (
            await http.post(
                "/auth/v1/token?grant_type=password",
                headers={"apikey": a.anon_key},
                json={"email": a.email, "password": a.password},
            )
        ).json()["access_token"]
    # A relay too busy to answer the simulator's pings is dropped by it: it reconnects and
    # joins again, and what it missed meanwhile is lost to its clients, as it would be.
    sio = socketio.AsyncClient()
    joined = asyncio.Event()

    async def join():
        ack = await sio.call("join", {"room": f"org:{org}"}, timeout=10)
        if not ack.get("ok"):
            raise SystemExit(f"joining org:{org} was refused: {ack}")
        joined.set()

    sio.on("connect", lambda: asyncio.ensure_future(join()))
    sio.on("*", lambda kind, data: relay(data))
    server = await serve(handler, "127.0.0.1", a.port, compression=None) if a.port else None
    await sio.connect(a.sim, auth={"token": token}, transports=["websocket"])
    await asyncio.wait_for(joined.wait(), 10)
    print("relay ready", flush=True)
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
        server.close()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--sim", required=True, help="the simulator's base URL")
    p.add_argument("--port", type=int, default=0, help="serve the relay here (0: record only)")
    p.add_argument("--anon-key", default="sim-anon-key")
    p.add_argument("--email", default="svc-a@sim.local")
    p.add_argument("--password", default="sim-password")
    asyncio.run(main(p.parse_args()))
