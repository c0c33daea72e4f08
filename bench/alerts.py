"""The `alerts` figure: how many alerts and chat posts the floor makes at 1,000 agents.

The simulated tenant runs in load mode (the floor scenario's 1,000 agents and 200 state
changes a second) for a few minutes against a dashboard with the shipped rules and its
chat webhook pointed at a local receiver. Counted: the alerts raised (from the dashboard's
database, by rule), the POSTs the receiver got and the transitions they carried, scaled to
an hour, and the most POSTs in any one minute. Targets: under 60 alerts raised an hour,
under 6 chat posts a minute (docs/alerts.md, Defaults).
"""

import json
import time

from dashboard.testing.receiver import Receiver
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

TARGET_RAISED_PER_HOUR = 60
TARGET_POSTS_PER_MINUTE = 6
RAISED = """
import datetime, json
from django.db.models import Count
from dashboard.alerts.models import Alert
since = datetime.datetime.fromtimestamp({since}, datetime.UTC)
rows = Alert.objects.filter(raised_at__gte=since).values("rule__name").annotate(n=Count("id"))
print("raised", json.dumps({{r["rule__name"]: r["n"] for r in rows}}))
"""


def largest_burst(times: list[float], window_s: float = 60) -> int:
    """The most of these moments in any `window_s`."""
    times, most, first = sorted(times), 0, 0
    for last, t in enumerate(times):
        while t - times[first] >= window_s:
            first += 1
        most = max(most, last - first + 1)
    return most


def measure(workdir, spawn, agents=1000, rate=200, seconds=600) -> dict:
    receiver = Receiver()
    sim = start_simulator(
        "--agents", agents, "--events-per-second", rate, "--faults", "--seed", 7
    )  # fmt: skip
    try:
        env = {"ALERT_WEBHOOK_URL": receiver.url, "ALERT_WEBHOOK_SECRET": "bench"}
        server = start_dashboard(sim, workdir, env)
        try:
            started = time.time()
            time.sleep(seconds)
            ended = time.time()
            out = server.manage("shell", "-c", RAISED.format(since=started))
        finally:
            server.stop()
    finally:
        sim.stop()
        receiver.close()
    by_rule = json.loads(out.split("raised ", 1)[1])
    posts = [
        (at, json.loads(body))
        for at, (_, body) in zip(receiver.received_at, receiver.received, strict=False)
        if started <= at <= ended
    ]
    carried = sum(len(p["alerts"]) if p["transition"] == "digest" else 1 for _, p in posts)
    hours = (ended - started) / 3600
    raised = sum(by_rule.values())
    burst = largest_burst([at for at, _ in posts])
    return {
        "agents": agents,
        "events_per_s": rate,
        "seconds": round(ended - started),
        "alerts_raised": raised,
        "alerts_raised_per_hour": round(raised / hours, 1),
        "raised_by_rule": by_rule,
        "chat_posts": len(posts),
        "chat_posts_per_hour": round(len(posts) / hours, 1),
        "transitions_posted": carried,
        "largest_burst_posts_per_minute": burst,
        "target_raised_per_hour": TARGET_RAISED_PER_HOUR,
        "target_posts_per_minute": TARGET_POSTS_PER_MINUTE,
        "met": raised / hours < TARGET_RAISED_PER_HOUR and burst < TARGET_POSTS_PER_MINUTE,
    }
