"""The `storage` figure: how fast the database grows on a busy floor, measured from outside.

The simulated tenant runs in load mode (1,000 agents, 200 events a second) against a
dashboard on its own SQLite file, with everything that writes on: the journal, the replay,
alerts, the reports' recorder. After a warm-up (the day's backfill and first writes), the
bytes the database holds (its pages in use, WAL included, as a reader sees them) are read
at the start and the end of a window of five minutes, and so are the events the dashboard
applied (its own /metrics counter). The figure is the growth divided by the events; the
tables' shares come from SQLite's `dbstat`. Target: under 40 bytes an event (about 30 MB
an hour at that rate, docs/deploy.md, Sizing).
"""

import contextlib
import re
import sqlite3
import time
from pathlib import Path

import httpx
import psycopg

from dashboard.testing.servers import dashboard_env, manage, start_dashboard
from dashboard.testing.simulator import start_simulator
from dashboard.testing.stores import postgres_server

TARGET_BYTES_PER_EVENT = 40
TOKEN = "bench-metrics"
APPLIED = re.compile(r"^dashboard_events_applied_total\{[^}]*\} (\S+)$", re.M)
SIZES = """
SELECT name, SUM(pgsize) FROM dbstat GROUP BY name
"""
PG_SIZES = """
SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 't')
"""


def used_bytes(database: Path) -> tuple[int, dict[str, int]]:
    """The bytes in the database's pages in use, and by table or index."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)
    try:
        page = db.execute("PRAGMA page_size").fetchone()[0]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        free = db.execute("PRAGMA freelist_count").fetchone()[0]
        tables = dict(db.execute(SIZES).fetchall())
    finally:
        db.close()
    return (pages - free) * page, tables


def pg_used_bytes(url: str) -> tuple[int, dict[str, int]]:
    """The database's size on disk (tables, indexes, TOAST, free space within them), and
    by table or index."""
    with psycopg.connect(url) as db:
        total = db.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        return total, dict(db.execute(PG_SIZES).fetchall())


def applied(url: str) -> int:
    r = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
    r.raise_for_status()
    return round(sum(float(x) for x in APPLIED.findall(r.text)))


def measure(
    workdir, spawn=None, agents=1000, rate=200, seconds=300, warmup=60, postgres=False
) -> dict:
    """On SQLite, or with `postgres` on a PostgreSQL the run starts."""
    sim = start_simulator("--agents", agents, "--events-per-second", rate, "--seed", 7)
    try:
        with postgres_server() if postgres else contextlib.nullcontext() as pg:
            env = {"METRICS_TOKEN": TOKEN}
            if pg:
                env["DATABASE_URL"] = url = pg.new_database()
                manage(dashboard_env(sim, url), "migrate", "--noinput", "-v0")
            server = start_dashboard(sim, workdir, env)
            size = (lambda: pg_used_bytes(url)) if pg else (lambda: used_bytes(server.database))
            try:
                time.sleep(warmup)
                bytes0, tables0 = size()
                events0, started = applied(server.url), time.monotonic()
                time.sleep(seconds)
                bytes1, tables1 = size()
                events1, ended = applied(server.url), time.monotonic()
            finally:
                server.stop()
    finally:
        sim.stop()
    events = max(1, events1 - events0)
    grown = {
        name: round((tables1.get(name, 0) - tables0.get(name, 0)) / events, 1)
        for name in tables1
        if tables1.get(name, 0) != tables0.get(name, 0)
    }
    per_event = (bytes1 - bytes0) / events
    hours = (ended - started) / 3600
    return {
        "database": "postgresql" if postgres else "sqlite",
        "agents": agents,
        "events_per_s": rate,
        "seconds": round(ended - started),
        "events_applied": events,
        "bytes_grown": bytes1 - bytes0,
        "bytes_per_event": round(per_event, 1),
        "mb_per_hour": round((bytes1 - bytes0) / hours / 1e6, 1),
        "bytes_per_event_by_table": dict(sorted(grown.items(), key=lambda x: -x[1])),
        "target_bytes_per_event": TARGET_BYTES_PER_EVENT,
        "met": per_event < TARGET_BYTES_PER_EVENT,
    }


if __name__ == "__main__":
    import json
    import sys
    import tempfile

    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 300
    postgres = "--postgres" in sys.argv
    with tempfile.TemporaryDirectory() as workdir:
        print(json.dumps(measure(workdir, seconds=secs, postgres=postgres), indent=1))
