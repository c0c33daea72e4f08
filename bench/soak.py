"""`make soak`: the dashboard under a floor's load for SOAK_MIN minutes, its memory and its
database followed minute by minute (not part of `make test` or `make bench`).

The simulated tenant runs at 1,000 agents and 200 events a second (SOAK_AGENTS,
SOAK_RATE) against `manage.py serve` on SQLite with everything on: the replay's recorder,
the drill-down's journal, the alert rules with their chat webhook (a local receiver), and
one live view and one wallboard open in Chromium. Each minute it reads the web process's
RSS, the database's bytes in use (its pages, WAL included, as a reader sees them) and each
page's JS heap after a garbage collection (CDP), and prints them; at the end, each one's
slope per hour, fitted over the minutes after the first fifth (the warm-up: the day's
backfill, the first whole states, the caches filling).

It fails (exit 1) where memory grows without bound: the RSS or a page's heap rising
faster than RSS_MB_PER_H or HEAP_MB_PER_H over the fitted minutes; or where the database
outgrows its retention: more than TARGET_BYTES_PER_EVENT (docs/deploy.md, Sizing) for
each event applied. It writes the figures to bench/results/soak-<time>.json.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bench.browser import Browser, Page
from bench.storage import TARGET_BYTES_PER_EVENT, used_bytes
from dashboard.testing.receiver import Receiver
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

RESULTS = Path(__file__).resolve().parent / "results"
RSS_MB_PER_H = 30  # a web process that keeps what it no longer needs grows faster
HEAP_MB_PER_H = 10
TOKEN = "soak-metrics"
APPLIED = re.compile(r"^dashboard_events_applied_total\{[^}]*\} (\S+)$", re.M)
KIOSK = (
    "from datetime import timedelta\n"
    "from django.utils import timezone\n"
    "from dashboard.wallboard.models import KioskLink\n"
    "link = KioskLink.objects.create(name='Soak TV', panels=['agents'],"
    " expires_at=timezone.now() + timedelta(days=2))\n"
    "print('kiosk', link.token)\n"
)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def heap_mb(cdp) -> float:
    """The page's JS heap in use after a full garbage collection."""
    cdp.send("HeapProfiler.collectGarbage")
    return round(cdp.send("Runtime.getHeapUsage")["usedSize"] / 2**20, 2)


def opened(browser: Browser, url: str, cookies: list[dict], page: Page):
    """The page open as a person has it (no latency probe, which keeps every tile it saw);
    its CDP session."""
    context = browser.chromium.new_context(viewport={"width": page.width, "height": page.height})
    context.add_cookies(cookies)
    tab = context.new_page()
    tab.goto(url)
    tab.wait_for_function(
        "() => document.querySelectorAll('#agents .agent').length > 0", timeout=60_000
    )
    return context.new_cdp_session(tab)


def applied(url: str) -> int:
    r = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
    r.raise_for_status()
    return round(sum(float(x) for x in APPLIED.findall(r.text)))


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (minute, value) points, per hour."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    if not var:
        return 0.0
    return 60 * sum((x - mx) * (y - my) for x, y in points) / var


def soak(minutes: float, agents: int, rate: float, workdir: Path) -> dict:
    receiver = Receiver()
    sim = start_simulator("--agents", agents, "--events-per-second", rate, "--seed", 7)
    browser = None
    try:
        env = {
            "METRICS_TOKEN": TOKEN,
            "ALERT_WEBHOOK_URL": receiver.url,
            "ALERT_WEBHOOK_SECRET": "soak",
        }
        server = start_dashboard(sim, workdir, env)
        try:
            server.add_user("soak", "supervisor")
            token = server.manage("shell", "-c", KIOSK).split("kiosk ", 1)[1].split()[0]
            http = server.signed_in_client("soak")
            cookies = [{"name": k, "value": v, "url": server.url} for k, v in http.cookies.items()]
            http.close()
            browser = Browser()
            pages = {
                "live": Page("live", "/", 1920, 1080),
                "wallboard": Page("wallboard", f"/wallboard/{token}/", 1920, 1080),
            }
            cdps = {
                name: opened(browser, server.url + page.path, cookies, page)
                for name, page in pages.items()
            }
            samples = []
            started = time.monotonic()
            first_events, first_bytes = applied(server.url), used_bytes(server.database)[0]
            for minute in range(int(minutes) + 1):
                if minute:
                    time.sleep(max(0.0, started + 60 * minute - time.monotonic()))
                sample = {
                    "minute": minute,
                    "rss_mb": rss_mb(server.process.pid),
                    "db_mb": round(used_bytes(server.database)[0] / 1e6, 2),
                    "events": applied(server.url) - first_events,
                    **{f"{name}_heap_mb": heap_mb(cdp) for name, cdp in cdps.items()},
                }
                samples.append(sample)
                print(json.dumps(sample), flush=True)
            last_bytes = used_bytes(server.database)[0]
            alerts = len(receiver.received)
        finally:
            if browser:
                browser.close()
            server.stop()
    finally:
        sim.stop()
        receiver.close()
    return verdict(samples, last_bytes - first_bytes, alerts, agents, rate)


def verdict(samples: list[dict], grown: int, alerts: int, agents: int, rate: float) -> dict:
    fitted = samples[len(samples) // 5 :]
    slopes = {
        key: round(slope_per_hour([(s["minute"], s[key]) for s in fitted]), 2)
        for key in samples[0]
        if key.endswith("_mb")
    }
    events = max(1, samples[-1]["events"])
    per_event = grown / events
    failures = []
    if slopes["rss_mb"] > RSS_MB_PER_H:
        failures.append(f"the web process's RSS grows {slopes['rss_mb']} MB an hour")
    for key, value in slopes.items():
        if key.endswith("_heap_mb") and value > HEAP_MB_PER_H:
            failures.append(f"the {key.split('_')[0]} page's JS heap grows {value} MB an hour")
    if per_event > TARGET_BYTES_PER_EVENT:
        failures.append(f"the database grows {per_event:.1f} bytes an event")
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "agents": agents,
        "events_per_s": rate,
        "minutes": samples[-1]["minute"],
        "events_applied": events,
        "alert_posts": alerts,
        "samples": samples,
        "slopes_per_hour": slopes,
        "db_bytes_per_event": round(per_event, 1),
        "db_mb_per_hour": round(grown / 1e6 / max(1, samples[-1]["minute"]) * 60, 1),
        "limits": {
            "rss_mb_per_h": RSS_MB_PER_H,
            "heap_mb_per_h": HEAP_MB_PER_H,
            "db_bytes_per_event": TARGET_BYTES_PER_EVENT,
        },
        "failures": failures,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=float(os.environ.get("SOAK_MIN", 30)))
    parser.add_argument("--agents", type=int, default=int(os.environ.get("SOAK_AGENTS", 1000)))
    parser.add_argument("--rate", type=float, default=float(os.environ.get("SOAK_RATE", 200)))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        result = soak(args.minutes, args.agents, args.rate, Path(workdir))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"soak-{datetime.now(UTC):%Y%m%dT%H%M%S}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "samples"}, indent=1))
    print(f"written to {out}")
    if result["failures"]:
        print("FAILED: " + "; ".join(result["failures"]), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
