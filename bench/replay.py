"""The `replay` scenario: recording the floor, and showing any moment of a recorded day.

A day of the floor is synthesized straight into a fresh SQLite database (no waiting a real
day): DAY_S seconds at RATE events a second for AGENTS agents (8 hours at 200/s: 5.8
million events), each applied to a live state and handed to the real recorder, whose
batches are written by its own `write` as the bridge's worker thread does. Measured:
- the write rate sustained: events a second through encoding, compression and insert;
- the cost on the event loop per event (what the live path pays);
- the seek: the frame of SEEKS random moments (the state, the events after it, the live
  view's fragments rendered, the previous and next change), p50 and p99;
- the storage a day: the database file, and the compressed events and states in it.

Run as a module it is the child process that does this (bench/run.py starts it with its
own database).
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

AGENTS, RATE, DAY_S, SEEKS = 1000, 200, 8 * 3600, 200
TEAMS, QUEUES = 12, 6
TARGET_SEEK_P99_MS = 300


def floor_events(agents: int, rate: float, seconds: float, start: datetime, seed: int = 1):
    """Agents taking calls, wrapping up, pausing; queues' statistics: in time order."""
    from dashboard.upstream import contract as c

    rnd = random.Random(seed)
    ids = [f"agent-{i:04d}" for i in range(agents)]
    names = {a: (f"Agent {i:04d}", f"Team {i % TEAMS}") for i, a in enumerate(ids)}
    status = dict.fromkeys(ids, "available")
    calls: dict[str, str] = {}
    seq, made, step = 0, 0, timedelta(seconds=1 / rate)
    at, end = start, start + timedelta(seconds=seconds)

    def event(kind, body):
        nonlocal seq, at
        seq += 1
        at += step  # the rate counts every event
        return c.Event(kind, "org", seq, at, body)

    def agent(a, state, call_id=None):
        name, team = names[a]
        return event("agent.status", c.AgentChanged(c.Agent(a, name, team, state, at, call_id)))

    yield from (agent(a, "available") for a in ids)
    while at < end:
        if rnd.random() < 0.1:
            q = rnd.randrange(QUEUES)
            stats = c.QueueStats(f"queue-{q}", f"Queue {q}", *rnd.choices(range(30), k=3))
            yield event("queue.stats", stats)
            continue
        a = rnd.choice(ids)
        state = status[a]
        if state == "available":
            made += 1
            call_id = f"call-{made}"
            calls[a] = call_id
            call = c.Call(
                call_id,
                a,
                "camp-1",
                rnd.choice(("inbound", "outbound")),
                "ringing",
                rnd.random() < 0.1,
                at,
            )
            yield event("call.started", c.CallStarted(call))
            status[a] = "on_call"
            yield agent(a, "on_call", call_id)
        elif state == "on_call":
            yield event(
                "call.ended", c.CallEnded(calls.pop(a), at, "completed", rnd.randrange(600))
            )
            status[a] = "wrap_up"
            yield agent(a, "wrap_up")
        else:
            status[a] = "paused" if state == "available" or rnd.random() < 0.05 else "available"
            yield agent(a, status[a])


def record_day(agents: int, rate: float, seconds: float, start: datetime) -> dict:
    from zoneinfo import ZoneInfo

    from dashboard.live.state import LiveState
    from dashboard.replay.recorder import Recorder, write

    state = LiveState(ZoneInfo("UTC"))
    recorder = Recorder(state, limit=10**9)
    events = loop_s = write_s = 0.0
    batch_until = start
    for event in floor_events(agents, rate, seconds, start):
        state.apply(event)
        t = time.perf_counter()
        recorder.event(event)
        loop_s += time.perf_counter() - t
        events += 1
        if event.emitted_at >= batch_until:  # a batch a second of the floor's time
            batch_until = event.emitted_at + timedelta(seconds=1)
            t = time.perf_counter()
            recorder.states.written(write(recorder.items, recorder.states.take()))
            write_s += time.perf_counter() - t
            recorder.items, recorder.waiting = [], 0
    write(recorder.items, recorder.states.take())
    return {
        "events": int(events),
        "loop_us_per_event": loop_s / events * 1e6,
        "write_events_per_s": events / write_s,
    }


def seek_times(start: datetime, seconds: float, seeks: int, agents: int) -> list[float]:
    from dashboard.replay.pages import frame

    rnd = random.Random(2)
    frame(start + timedelta(seconds=seconds / 2))  # templates loaded, as in a running server
    times = []
    for _ in range(seeks):
        when = start + timedelta(seconds=rnd.uniform(0, seconds))
        t = time.perf_counter()
        shown = frame(when)
        times.append((time.perf_counter() - t) * 1000)
        assert shown["parts"]["agents"].count('class="agent"') == agents
    return times


def child(a):
    import django

    os.environ["DATABASE_URL"] = a.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from dashboard.replay.models import Chunk

    call_command("migrate", "replay", verbosity=0)
    call_command("migrate", "states", verbosity=0)  # the agents' states: the state journal's
    start = datetime(2026, 11, 24, 9, tzinfo=UTC)
    t = time.monotonic()
    written = record_day(a.agents, a.rate, a.seconds, start)
    synth_s = time.monotonic() - t
    with connection.cursor() as cursor:  # the tables with their indexes (and TOAST)
        if connection.vendor == "sqlite":
            cursor.execute(
                "SELECT SUM(pgsize) FROM dbstat"
                " WHERE name LIKE 'replay_chunk%' OR name LIKE 'states_%'"
            )
        else:
            cursor.execute(
                "SELECT pg_total_relation_size('replay_chunk')"
                " + pg_total_relation_size('states_agentstates')"
                " + pg_total_relation_size('states_opening')"
            )
        (db_bytes,) = cursor.fetchone()
        cursor.execute(
            "SELECT SUM(LENGTH(events)), SUM(COALESCE(LENGTH(state), 0)) FROM replay_chunk"
        )
        events_bytes, state_bytes = cursor.fetchone()
    seeks = seek_times(start, a.seconds, a.seeks, a.agents)
    print(
        json.dumps(
            {
                "agents": a.agents,
                "events_per_s": a.rate,
                "hours": round(a.seconds / 3600, 2),
                **{k: round(v, 1) if isinstance(v, float) else v for k, v in written.items()},
                "chunks": Chunk.objects.count(),
                "states": Chunk.objects.filter(has_state=True).count(),
                "table_mb": round(db_bytes / 1e6, 1),
                "events_mb": round(events_bytes / 1e6, 1),
                "states_mb": round(state_bytes / 1e6, 1),
                "bytes_per_event": round(db_bytes / written["events"], 1),
                # a day as the targets count it: 8 hours at 200 events a second
                "mb_per_day": round(db_bytes / written["events"] * RATE * DAY_S / 1e6),
                "seek_p50_ms": round(statistics.median(seeks), 1),
                "seek_p99_ms": round(statistics.quantiles(seeks, n=100, method="inclusive")[98], 1),
                "seek_max_ms": round(max(seeks), 1),
                "seeks": len(seeks),
                "target_seek_p99_ms": TARGET_SEEK_P99_MS,
                "synthesized_s": round(synth_s, 1),
            }
        )
    )


def measure(workdir: Path, spawn=None, **size) -> dict:
    """bench/run.py's entry: the child in its own process and database."""
    args = [f"--{k}={v}" for k, v in size.items()]
    db = workdir / "replay.sqlite3"
    run = subprocess.run(
        [sys.executable, "-m", "bench.replay", f"--database-url=sqlite:///{db}", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode:
        raise RuntimeError(run.stderr[-3000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--database-url", required=True, help="sqlite:///… or postgres://…")
    p.add_argument("--agents", type=int, default=AGENTS)
    p.add_argument("--rate", type=float, default=RATE)
    p.add_argument("--seconds", type=float, default=DAY_S)
    p.add_argument("--seeks", type=int, default=SEEKS)
    child(p.parse_args())
