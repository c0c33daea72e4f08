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

import re
import sqlite3
import time
from pathlib import Path

import httpx

from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

TARGET_BYTES_PER_EVENT = 40
TOKEN = "bench-metrics"
APPLIED = re.compile(r"^dashboard_events_applied_total\{[^}]*\} (\S+)$", re.M)
SIZES = """
SELECT name, SUM(pgsize) FROM dbstat GROUP BY name
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


def applied(url: str) -> int:
    r = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
    r.raise_for_status()
    return round(sum(float(x) for x in APPLIED.findall(r.text)))


def measure(workdir, spawn=None, agents=1000, rate=200, seconds=300, warmup=60) -> dict:
    sim = start_simulator("--agents", agents, "--events-per-second", rate, "--seed", 7)
    try:
        server = start_dashboard(sim, workdir, {"METRICS_TOKEN": TOKEN})
        try:
            time.sleep(warmup)
            bytes0, tables0 = used_bytes(server.database)
            events0, started = applied(server.url), time.monotonic()
            time.sleep(seconds)
            bytes1, tables1 = used_bytes(server.database)
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
    keep = sys.argv[2] if len(sys.argv) > 2 else None  # a folder to keep the database in
    with tempfile.TemporaryDirectory() as workdir:
        print(json.dumps(measure(keep or workdir, seconds=secs), indent=1))
