"""What the production bridge costs per event at the floor10k size, in CPU: a measure that
holds on a loaded machine, where latencies do not.

`python -m bench.bridge_cost` starts the simulator at 10,000 agents in 100 teams, the
production topology (bench/topology.py: Redis, PostgreSQL, one Daphne worker, one
`manage.py bridge`), registers a team set per team (the floor10k bench's team pages: each
asks the feed for its strip and its tiles' part) and keeps two sockets open on the worker
(the whole floor and one team). Then it runs windows of the simulator's load mode (1,000
events a second by default) and reads the bridge's CPU from /proc over each, until the
bridge is idle again: everything the window's events cost it, however late it ran, per
1,000 events. `--profile` samples the bridge with py-spy over each window (bench/probe.py)
and keeps the raw stacks beside the printed summary.
"""

import argparse
import asyncio
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

from dashboard.testing.servers import signed_in_client
from dashboard.testing.simulator import start_simulator

from . import loop_stalls, probe
from .run import TICKS, cpu_ticks, settle
from .topology import Topology
from .wsclient import connect


def hold_sockets(url: str, cookie: str, paths: list[str]) -> threading.Event:
    """Sockets open on `paths` in a thread of their own, read and dropped; set the returned
    event to close them."""
    stop, ready = threading.Event(), threading.Event()

    async def hold():
        headers = {"Origin": url, "Cookie": cookie}
        ws = url.replace("http", "ws", 1)
        sockets = [await connect(f"{ws}{p}", headers, lambda *_: None) for p in paths]
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.2)
        for sock in sockets:
            sock.transport.close()

    threading.Thread(target=asyncio.run, args=(hold(),), daemon=True).start()
    if not ready.wait(60):
        raise RuntimeError("the sockets did not open")
    return stop


def window(sim, bridge_pid: int, metrics_url: str, a: argparse.Namespace, spy: Path | None):
    rate, seconds = a.rate, a.seconds
    sim.control("rate", events_per_second=rate)
    lo = sim.stats()["seq"][sim.org_a]
    lags = probe.lag_buckets(metrics_url)
    stalls = Path(os.environ["LOOP_STALLS_DIR"]) / f"{bridge_pid}.json"
    loop = loop_stalls.read(stalls)
    ticks, wall = cpu_ticks(bridge_pid), time.monotonic()
    profile = probe.Profile(bridge_pid, seconds, spy, gil=True) if spy else None
    sim.control("resume")
    time.sleep(seconds)
    sim.control("pause")
    hi = sim.stats()["seq"][sim.org_a]
    load_s = time.monotonic() - wall
    drain = settle([bridge_pid])
    cpu = (cpu_ticks(bridge_pid) - ticks) / TICKS
    events = max(hi - lo, 1)
    after = probe.lag_buckets(metrics_url)
    inf = float("inf")
    out = {
        "events": hi - lo,
        # applied one by one (each is observed in the lag's histogram); a bridge that fell
        # too far behind reloads the state after a gap instead
        "applied": round(after.get(inf, 0) - lags.get(inf, 0)),
        "load_s": round(load_s, 1),
        "drain_s": drain,
        "bridge_cpu_s": round(cpu, 2),
        "bridge_cpu_s_per_1k_events": round(cpu / events * 1000, 3),
        "bridge_lag_p99_ms": probe.lag_p99_ms(lags, after),
        "sim_lag_ms": sim.stats()["lag_ms"],
        "load_average": round(os.getloadavg()[0], 1),
        "loop": loop_stalls.between(loop, loop_stalls.read(stalls)),
    }
    if profile:
        out["profile"] = profile.summary(top=25)
    return out


def main():
    os.environ["TEST_FORK_SERVER"] = "0"  # every process started as a deployment's is
    hook = str(Path(__file__).resolve().parent / "hook")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [hook, os.environ.get("PYTHONPATH")]))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--agents", type=int, default=10000)
    p.add_argument("--teams", type=int, default=100)
    p.add_argument("--rate", type=float, default=1000)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--windows", type=int, default=2)
    p.add_argument("--profile", type=Path, help="a folder for py-spy's raw stacks")
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="loop-stalls-") as stalls:
        os.environ["LOOP_STALLS_DIR"] = stalls  # the processes time their loops' callbacks
        measure(a)


def measure(a: argparse.Namespace):
    sim = start_simulator(
        "--agents", a.agents, "--teams", a.teams, "--events-per-second", 1, "--faults",
        "--seed", 7, "--history-days", 0,
    )  # fmt: skip
    try:
        sim.control("pause")
        topology = Topology(sim, 1)
        try:
            url = topology.urls[0]
            http = signed_in_client(url, "bob", timeout=120)
            teams = sorted({x["team"] for x in sim.agents()})
            for team in teams:  # each team's page registers its set (accounts/scope.py)
                http.get(f"/?teams={quote(team)}").raise_for_status()
            cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
            http.close()
            stop = hold_sockets(url, cookie, ["/ws/live/", f"/ws/live/?teams={quote(teams[0])}"])
            settle([topology.bridge.pid])
            for n in range(a.windows):
                spy = a.profile / f"bridge-profile-{n}.txt" if a.profile else None
                print(json.dumps(window(sim, topology.bridge.pid, url, a, spy)))
            stop.set()
        finally:
            topology.stop()
    finally:
        sim.stop()


if __name__ == "__main__":
    main()
