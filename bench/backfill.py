"""The `backfill` scenario: a dashboard started at about 11:00 on a floor of 1,000 agents
with its morning behind it reads the day (and the same day last week) from the service's
history while the floor moves at 200 events a second.

Measured: `backfill_s`, from the dashboard's start until today and the comparison days
(the same weekday of the last four weeks) are filled (its log says so), and the live
view's push latency (event emitted to frame received, from each agent tile's
`data-emitted`) of a few signed-in sockets while it runs (`live_p99_ms_during`) and for as
long again once it is done, at most `after_s` (`live_p99_ms_after`); `today_s` is when
today alone was filled (the comparison days follow).

Beside them, what explains a p99 during the fill: the most agent tiles one push carried
(`push_tiles_max_during`; a few dozen on a steady floor) and how far the simulator's events
fell behind their own schedule (`peer_lag_ms_max`, read every 2 s while the fill runs). A
simulator behind its schedule sends what it owes in a burst, hundreds of agents changed at
once, and the push that carries them is late for every tile. And the CPU the dashboard's
process and the simulator's took per second of wall time (`/proc`), from the sockets' start
to the fill's end and in the window after it (`dashboard_cores_during`, `_after`,
`peer_cores_during`): the fill's part of the dashboard's core is the difference, and it is
what the live feed's pushes wait beside.
"""

import asyncio
import os
import re
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

import websockets

from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

AGENTS, RATE, SOCKETS = 1000, 200, 20
EMITTED = re.compile(r'data-emitted="(\d+)"')
TODAY, PAST = "today filled from the service's history", "last week's and the"


def late_morning() -> str:
    hours = (11 - datetime.now(UTC).hour + 12) % 24 - 12
    return f"Etc/GMT{-hours:+d}"


async def listen(
    url: str, cookie: str, phase: list, samples: dict, stop: asyncio.Event, most: dict
):
    ws_url = url.replace("http://", "ws://") + "/ws/live/"
    async with websockets.connect(
        ws_url, additional_headers={"Cookie": cookie, "Origin": url}, max_size=None
    ) as socket:
        await socket.recv()  # the whole view: not a push
        while not stop.is_set():
            try:
                frame = await asyncio.wait_for(socket.recv(), 1)
            except TimeoutError:
                continue
            now = time.time()
            stamps = EMITTED.findall(frame)  # each tile's event's emitted_at, in epoch ms
            most[phase[0]] = max(most[phase[0]], len(stamps))
            for stamp in stamps:
                if stamp.isdigit():
                    samples[phase[0]].append(1000 * now - int(stamp))


def cpu_s(pid: int) -> float:
    """A process's CPU seconds so far (user and system), from `/proc`; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Cores:
    """The cores processes took between two reads (CPU seconds per second of wall time)."""

    def __init__(self, *pids: int):
        self.pids = pids
        self.at, self.cpu = time.monotonic(), [cpu_s(p) for p in pids]

    def read(self) -> list[float]:
        at, cpu = time.monotonic(), [cpu_s(p) for p in self.pids]
        took = [
            round((b - a) / max(at - self.at, 1e-9), 3) for a, b in zip(self.cpu, cpu, strict=True)
        ]
        self.at, self.cpu = at, cpu
        return took


def p99(values: list) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[int(0.99 * (len(values) - 1))], 1)


def measure(
    workdir,
    spawn=None,
    agents=AGENTS,
    rate=RATE,
    sockets=SOCKETS,
    after_s=30.0,
    history_delay_s=0.0,
) -> dict:
    """`history_delay_s`: the service's history answers each page that late (under the
    dashboard's 10 s time-out), for a floor so small that its fill would be over before
    the sockets are in."""
    zone = late_morning()
    sim = start_simulator(
        "--agents",
        agents,
        "--events-per-second",
        rate,
        "--faults",
        "--seed",
        7,
        "--history-days",
        35,
        "--zone",
        zone,
    )
    server = None
    try:
        if history_delay_s:
            sim.control("history-delay", seconds=history_delay_s, for_s=120)
        started = time.monotonic()
        server = start_dashboard(
            sim, workdir, {"TIME_ZONE": zone, "LOG_LEVEL": "INFO"}, port=free_port()
        )
        server.add_user("bench", "supervisor")
        http = server.signed_in_client("bench")
        cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
        http.close()
        return {
            "agents": agents,
            "events_per_s": rate,
            **asyncio.run(_window(server, sim, cookie, sockets, started, after_s)),
        }
    finally:
        if server:
            server.stop()
        sim.stop()


async def peer_lag_ms(sim, phase: list) -> float:
    """The most the simulator's events were behind their schedule while `phase` is
    "during" (its stats give the most over its last 5,000 events: 25 s at 200 a second)."""
    most = 0.0
    while phase[0] == "during":
        most = max(most, (await asyncio.to_thread(sim.stats))["lag_ms"]["max"])
        await asyncio.sleep(2)
    return most


async def _window(server, sim, cookie: str, sockets: int, started: float, after_s: float) -> dict:
    phase, samples, stop = ["during"], {"during": [], "after": []}, asyncio.Event()
    most = {"during": 0, "after": 0}  # agent tiles in one push
    readers = [
        asyncio.ensure_future(listen(server.url, cookie, phase, samples, stop, most))
        for _ in range(sockets)
    ]
    lagging = asyncio.ensure_future(peer_lag_ms(sim, phase))
    cores = Cores(server.process.pid, sim.process.pid)
    try:
        await asyncio.to_thread(wait_until, lambda: TODAY in server.log(), 600, "today")
        today_s = time.monotonic() - started
        await asyncio.to_thread(wait_until, lambda: PAST in server.log(), 600, "the past weeks")
        backfill_s = time.monotonic() - started
        phase[0] = "after"
        during = cores.read()
        lag = await lagging
        await asyncio.sleep(min(max(backfill_s, 10), after_s))
        after = cores.read()
    finally:
        stop.set()
        phase[0] = "after"  # the lag's reader too
        await asyncio.gather(*readers, lagging, return_exceptions=True)
    return {
        "backfill_s": round(backfill_s, 1),
        "today_s": round(today_s, 1),
        "live_p99_ms_during": p99(samples["during"]),
        "live_p99_ms_after": p99(samples["after"]),
        "live_p50_ms_during": samples["during"] and round(statistics.median(samples["during"]), 1),
        "pushes_during": len(samples["during"]),
        "push_tiles_max_during": most["during"],
        "peer_lag_ms_max": lag,
        "dashboard_cores_during": during[0],
        "dashboard_cores_after": after[0],
        "peer_cores_during": during[1],
    }
