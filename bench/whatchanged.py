"""The `whatchanged` figure: what one evaluation of "What changed" costs the bridge.

Four weeks of the same weekday and today's morning of 15-minute slots (the floor, two
queues, a campaign; today with a queue surge from an hour ago, so changes are found and
their causes broken down) are written into a fresh SQLite database, beside a live state of
1,000 agents in 20 teams, a tenth of them paused. Timed: the bridge's whole evaluation
(normal/watch.py: who is away, read on the loop, then normal/panel.py's `evaluate` in a
thread), EVALS times, in wall-clock and in CPU time (which other work on the machine does
not inflate). It runs once per NORMAL_EVAL_S (30 s) and after each slot, in a
worker thread, never per browser. Beside it, what a thread evaluating back to back (the
worst case: the bridge does it once in 30 s) does to an event loop's timeliness: the p99
of how late a 5 ms timer wakes, for LAG_S seconds idle and for LAG_S while evaluating.

Run as a module it is the child process that does this (bench/run.py starts it with its
own database).
"""

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

AGENTS, TEAMS, EVALS = 1000, 20, 30
LAG_S, TIMER_S = 5.0, 0.005


async def _late_ms(seconds: float) -> list[float]:
    late, end = [], time.perf_counter() + seconds
    while time.perf_counter() < end:
        started = time.perf_counter()
        await asyncio.sleep(TIMER_S)
        late.append((time.perf_counter() - started - TIMER_S) * 1000)
    return sorted(late)


def loop_lag_p99(work=None, seconds: float = LAG_S) -> float:
    """The p99 of how late the loop's timer woke (ms) in `seconds`, with `work` run over
    and over in a thread meanwhile (none: idle)."""
    stop = threading.Event()

    def again():
        from django.db import connection

        while not stop.is_set():
            work()
        connection.close()

    thread = threading.Thread(target=again) if work else None
    if thread:
        thread.start()
    try:
        late = asyncio.run(_late_ms(seconds))
    finally:
        stop.set()
        if thread:
            thread.join()
    return round(late[int(0.99 * (len(late) - 1))], 2)


def child(a):
    import django

    os.environ["DATABASE_URL"] = a.database_url
    # A zone where it is about 11:00 now, so today has a morning of slots to judge.
    os.environ["TIME_ZONE"] = f"Etc/GMT{-((11 - datetime.now(UTC).hour + 12) % 24 - 12):+d}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.conf import settings

    from dashboard.live.state import LiveState
    from dashboard.normal.panel import away_of, evaluate
    from dashboard.shared.charts import zone
    from dashboard.testing.normal_days import PLANS, rows, slot, write
    from dashboard.upstream import contract as c

    now = datetime.now(zone())
    hour = now.hour + now.minute / 60
    surge = hour // 1 - 1

    def shape(h, weeks_ago):
        return slot(80, sl=(12, 20), sales=60) if weeks_ago == 0 and h >= surge else None

    write(rows(zone(), now, until=hour, shape=shape))
    state = LiveState(zone(), settings.SERVICE_LEVEL_THRESHOLD_S)
    agents = [
        c.Agent(
            f"a{n}",
            f"Agent {n}",
            f"Team {n % TEAMS}",
            "paused" if n % 10 == 0 else "available",
            now - timedelta(minutes=n % 90),
            None,
        )
        for n in range(a.agents)
    ]
    state.load_snapshot(agents, [], datetime.now(UTC))
    ms, found, cpu = [], 0, time.process_time()
    for _ in range(a.evals):
        started = time.perf_counter()
        what = evaluate(datetime.now(UTC), away_of(state, datetime.now(UTC)), PLANS)
        ms.append((time.perf_counter() - started) * 1000)
        found = len(what["changes"])
    cpu_ms = (time.process_time() - cpu) * 1000 / a.evals  # what a loaded machine does not inflate
    ms.sort()
    idle = loop_lag_p99(seconds=a.lag_seconds)
    evaluating = loop_lag_p99(lambda: evaluate(datetime.now(UTC), [], PLANS), a.lag_seconds)
    print(
        json.dumps(
            {
                "agents": a.agents,
                "evals": a.evals,
                "changes_found": found,
                "whatchanged_ms_per_eval": round(statistics.median(ms), 2),
                "whatchanged_p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2),
                "whatchanged_cpu_ms_per_eval": round(cpu_ms, 2),
                "every_s": settings.NORMAL_EVAL_S,
                "loop_lag_p99_ms_idle": idle,
                "loop_lag_p99_ms_evaluating": evaluating,
            }
        )
    )


def measure(workdir: Path, spawn=None, **size) -> dict:
    """bench/run.py's entry: the child in its own process and database."""
    from dashboard.testing.servers import migrated_sqlite

    url = migrated_sqlite(workdir / "whatchanged.sqlite3")
    args = [f"--{k.replace('_', '-')}={v}" for k, v in size.items()]
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    run = subprocess.run(
        [sys.executable, "-m", "bench.whatchanged", f"--database-url={url}", *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if run.returncode:
        raise RuntimeError(run.stderr[-3000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--database-url", required=True, help="sqlite:///…")
    p.add_argument("--agents", type=int, default=AGENTS)
    p.add_argument("--evals", type=int, default=EVALS)
    p.add_argument("--lag-seconds", type=float, default=LAG_S, help="each loop-lag window")
    child(p.parse_args())
