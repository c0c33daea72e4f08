"""Sizing figures for docs/deploy.md; not part of `make test` (pytest only collects test_*
files), run it on purpose:

    .venv/bin/python -m pytest -q -s tests/scale/bench_sockets.py

One Daphne worker on Redis and PostgreSQL, one bridge, the simulated tenant in load mode:
the worker's memory with no live sockets and with BENCH_SOCKETS of them, and its CPU while
they receive the pushes of BENCH_EVENTS agent changes per second.
"""

import asyncio
import os
import time

import pytest

from dashboard.testing.live_view import LiveBrowser
from dashboard.testing.processes import await_until, free_port, let_pass_async
from dashboard.testing.servers import ready, session_cookie, start_topology

SOCKETS = int(os.environ.get("BENCH_SOCKETS", "200"))
EVENTS = int(os.environ.get("BENCH_EVENTS", "20"))
WINDOW_S = 10.0


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        kib = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return kib / 1024


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.timeout(600)  # opening hundreds of signed-in sockets takes a while
async def test_it_measures_a_workers_memory_and_cpu_per_live_socket(
    sim_factory, redis_url, postgres_url
):
    sim = sim_factory("--events-per-second", EVENTS)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    processes = start_topology(sim, redis_url, postgres_url, [port], bridges=1)
    browsers = []
    try:
        await await_until(lambda: ready(url), 30, "the worker ready")
        pid = processes["web-1"].pid
        cookie = await asyncio.to_thread(session_cookie, url, "bob")
        await let_pass_async(2, "the worker settles before its idle RSS")
        idle = rss_mib(pid)
        for _ in range(SOCKETS):
            browsers.append(await LiveBrowser(url).open(cookie))
        await await_until(lambda: all(b.frames for b in browsers), 60, "every socket's snapshot")
        await let_pass_async(2, "the sockets settle before the loaded RSS")
        loaded = rss_mib(pid)
        frames, cpu, started = sum(b.frames for b in browsers), cpu_s(pid), time.monotonic()
        await let_pass_async(WINDOW_S, "the measured window")
        elapsed = time.monotonic() - started
        frames = sum(b.frames for b in browsers) - frames
        cpu = cpu_s(pid) - cpu
        print(
            f"\n{SOCKETS} live sockets, {EVENTS} agent changes/s: worker RSS {idle:.0f} MiB idle,"
            f" {loaded:.0f} MiB with sockets ({(loaded - idle) * 1024 / SOCKETS:.0f} KiB each);"
            f" {frames / elapsed:.0f} frames/s written ({frames / elapsed / SOCKETS:.1f} per"
            f" socket) at {cpu / elapsed * 100:.0f}% of one core"
        )
        assert frames > 0
    finally:
        for b in browsers:
            await b.close()
        for proc in processes.values():
            proc.stop()
