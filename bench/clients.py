"""One client process: N websocket clients on one asyncio loop, like N browsers.

`--mode dashboard` opens /ws/live/ with the session cookie of a browser signed in
through the real form (bench/run.py signs in), an Origin header and an offer of
permessage-deflate, as a browser does (bench/wsclient.py),
and reads the agent fragments' `data-seq` and `data-emitted`; `--mode reference` reads
the ideal reference's JSON frames (bench/reference.py). Each client keeps the newest seq
it was shown per agent; latency is taken once per newly shown (agent, seq), from the
simulator's `emitted_at` to receipt.

With `--follow FILE` (JSON: `teams`, the teams to follow, and `agents`, each agent's team)
each client follows one team, as a supervisor's "my floor" does (`/ws/live/?teams=`, the
reference's `/?team=`): the i-th client of the process the i-th team, round the list from
`--offset`; only its team's agents count as delivered or lost, and a tile of another team
counts as `foreign`.

Driven by lines on stdin (from bench/run.py): `window LO` starts measuring events with
seq > LO; `report TRUTH OUT` writes what was measured to OUT; end of input stops it. The
loop's own lag is measured too, so a slow client process is not mistaken for a slow server.
"""

import argparse
import asyncio
import json
import random
import re
import sys
import time
from collections import Counter
from datetime import datetime
from urllib.parse import quote

from .wsclient import connect, inflate

AGENT = re.compile(
    r'<div id="agent-([^"]+)" class="agent"[^>]*? data-seq="(\d+)" data-emitted="(\d+)"'
)
TICK_S = 0.01
CONNECT_ATTEMPTS = 6


class Parser:
    """Every client of a process gets the same pushes: inflate and parse each distinct
    message once."""

    def __init__(self, mode: str):
        self.parse_one = self.fragments if mode == "dashboard" else self.agents
        self.cache: dict[tuple[bytes, bool], list] = {}

    def __call__(self, payload: bytes, compressed: bool) -> list[tuple[str, int, float]]:
        found = self.cache.get((payload, compressed))
        if found is None:
            text = (inflate(payload) if compressed else payload).decode()
            found = self.cache[payload, compressed] = self.parse_one(text)
            if len(self.cache) > 256:
                self.cache.pop(next(iter(self.cache)))
        return found

    @staticmethod
    def fragments(text):
        return [
            (agent, int(seq), int(emitted) / 1000)  # epoch ms
            for agent, seq, emitted in AGENT.findall(text)
        ]

    @staticmethod
    def agents(text):
        return [
            (d["agent_id"], d["seq"], datetime.fromisoformat(d["emitted_at"]).timestamp())
            for d in json.loads(text)["agents"]
        ]


class Measure:
    def __init__(self):
        self.lo: int | None = None
        self.latency = Counter()  # latency in 0.1 ms steps -> count, all clients
        self.lag = Counter()  # this loop's lag in 0.1 ms steps -> count
        self.seen: list[dict[str, int]] = []  # per client: agent -> newest seq shown
        self.team: list[str | None] = []  # per client: the team it follows (None: the floor)
        self.agents: dict[str, str] = {}  # agent -> team, for clients that follow one
        self.foreign: list[int] = []  # per client: tiles of other teams shown
        self.shown: list[int] = []  # per client: fragments newly shown in the window
        self.errors: list[str] = []

    def start(self, lo: int):
        self.lo = lo
        self.latency.clear()
        self.lag.clear()
        self.shown = [0] * len(self.shown)

    def client(self, team: str | None = None) -> int:
        self.seen.append({})
        self.shown.append(0)
        self.team.append(team)
        self.foreign.append(0)
        return len(self.seen) - 1

    def receive(self, n: int, items, received: float):
        seen, team = self.seen[n], self.team[n]
        for agent, seq, emitted in items:
            if team is not None and self.agents.get(agent) != team:
                self.foreign[n] += 1
                continue
            if seq > seen.get(agent, -1):
                seen[agent] = seq
                if self.lo is not None and seq > self.lo:
                    self.latency[round((received - emitted) * 10000)] += 1
                    self.shown[n] += 1


async def client(url: str, headers: dict, parse: Parser, m: Measure, ready, team=None):
    """One browser. A failed handshake is retried with jittered backoff, as htmx's websocket
    extension does after 1006; once connected, an end is recorded and not retried, so any
    event it costs is counted lost."""
    n = m.client(team)

    def receive(payload: bytes, compressed: bool):
        m.receive(n, parse(payload, compressed), time.time())

    for attempt in range(CONNECT_ATTEMPTS):
        try:
            ws = await connect(url, headers, receive)
            break
        except Exception as e:
            if attempt == CONNECT_ATTEMPTS - 1:
                m.errors.append(f"client {n}: could not connect: {type(e).__name__}: {e}")
                ready(False)
                return
            await asyncio.sleep(random.uniform(0, 2**attempt))
    ready(True)
    m.errors.append(f"client {n}: ended ({await ws.closed})")


async def loop_lag(m: Measure):
    while True:
        t = time.monotonic()
        await asyncio.sleep(TICK_S)
        m.lag[round((time.monotonic() - t - TICK_S) * 10000)] += 1


async def main(a):
    m, parse = Measure(), Parser(a.mode)
    ws_url = a.url.replace("http", "ws", 1)
    headers = {"Origin": a.url, **({"Cookie": a.cookie} if a.cookie else {})}
    if a.mode == "dashboard":
        ws_url += "/ws/live/"
    lagging = asyncio.create_task(loop_lag(m))
    connected = asyncio.Event()
    answers = []

    def ready(ok: bool):
        answers.append(ok)
        if len(answers) == a.count:
            connected.set()

    teams = []
    if a.follow:
        with open(a.follow) as f:
            follow = json.load(f)
        teams, m.agents = follow["teams"], follow["agents"]
    tasks = []
    for i in range(a.count):  # ramp up, so connecting is not a thundering herd
        team = teams[(a.offset + i) % len(teams)] if teams else None
        url = ws_url
        if team is not None:
            url += f"{'?teams=' if a.mode == 'dashboard' else '/?team='}{quote(team)}"
        tasks.append(asyncio.create_task(client(url, headers, parse, m, ready, team)))
        await asyncio.sleep(a.ramp)
    await connected.wait()
    print(f"connected {sum(answers)}", flush=True)
    loop = asyncio.get_running_loop()
    while line := (await loop.run_in_executor(None, sys.stdin.readline)).split():
        if line[0] == "window":
            m.start(int(line[1]))
            print("measuring", flush=True)
        elif line[0] == "report":
            with open(line[1]) as f:
                truth = json.load(f)
            with open(line[2], "w") as f:
                json.dump(results(m, truth), f)
            m.lo = None
            print("reported", flush=True)
    lagging.cancel()
    for task in tasks:
        task.cancel()


def results(m: Measure, truth: dict) -> dict:
    """Per client: an emitted event is delivered when the client was shown its seq or a
    newer seq of the same agent; otherwise it is lost."""
    newest = truth["events"]  # agent -> seqs emitted in the window, ascending
    lost = []
    for seen, team in zip(m.seen, m.team, strict=True):
        lost.append(
            sum(
                sum(1 for s in seqs if s > seen.get(agent, -1))
                for agent, seqs in newest.items()
                if team is None or m.agents.get(agent) == team
            )
        )
    return {
        "clients": len(m.seen),
        "lost": lost,
        "foreign": sum(m.foreign),
        "shown": m.shown,
        "latency": dict(m.latency),
        "lag": dict(m.lag),
        "errors": m.errors[:20],
    }


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["dashboard", "reference"], required=True)
    p.add_argument("--url", required=True, help="the dashboard's or the reference's http:// base")
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--cookie", default="", help="the session cookie of a browser signed in")
    p.add_argument("--ramp", type=float, default=0.02, help="seconds between connects")
    p.add_argument("--follow", default="", help="JSON of the teams to follow, agents' teams")
    p.add_argument("--offset", type=int, default=0, help="the first client's team's index")
    asyncio.run(main(p.parse_args()))
