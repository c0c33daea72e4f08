"""The open alerts as pages show them: the tray (every signed-in page), and the wallboards'
banner with the tiles to flash. Rendered once per change from the database (who
acknowledged what included), kept in the cache for a page's first look, and pushed to the
groups every socket page and wallboard joins (dashboard/live/groups.py).

The tray is one for everyone: an alert about one agent carries the agent's team, and the
tray its open and alarm counts per team, so each page shows its person's teams' alerts
and counts (static/js/alerts.js) with no tray rendered per team set."""

import json

from django.core.cache import cache
from django.template.loader import render_to_string

from dashboard.live.feed import AGENT_TEAMS_KEY
from dashboard.live.groups import ALERTS, ALERTS_BOARD, ALERTS_BOARD_AGENTS, alerts_key, push_html

from .models import ALARM, Alert, Metric

SHOWN = 50  # the tray lists at most this many; its count says how many are open


def ordered(alerts) -> list[Alert]:
    """The most severe first, then the newest."""
    return sorted(alerts, key=lambda a: (a.level != ALARM, -a.raised_at.timestamp()))


def tiles_of(alert: Alert) -> list[str]:
    """CSS selectors of the tiles that show what the alert is about (live view, wallboard)."""
    kind, _, key = alert.subject.partition(":")
    if kind == "agent":
        return [f"#agent-{key}"]
    if kind == "queue":
        tiles = [f"#queue-{key}"]
        if alert.rule.metric == Metric.LONGEST_WAIT:
            tiles.append('#kpis [data-limit="wait"]')
        return tiles
    if alert.rule.metric == Metric.SERVICE_LEVEL:
        return ["#kpis"]
    if alert.rule.metric == Metric.COACHING:
        return ["#wb-alerts"]
    return []


def with_teams(alerts) -> list[Alert]:
    """Each alert with `team`: its agent's team, "" when it is about no one agent (a queue,
    the floor: everyone's) or about an agent the floor does not know now."""
    teams = cache.get(AGENT_TEAMS_KEY) or {}
    for alert in alerts:
        kind, _, key = alert.subject.partition(":")
        alert.team = teams.get(key, "") if kind == "agent" else ""
    return alerts


def in_teams(alerts, teams) -> list[Alert]:
    """The alerts a person with `teams` sees (all of them for () the whole floor)."""
    return [a for a in alerts if not teams or not a.team or a.team in teams]


def render_all() -> dict[str, str]:
    """The tray and both banners, from the open alerts."""
    alerts = with_teams(
        ordered(
            Alert.objects.filter(cleared_at__isnull=True).select_related("rule", "acknowledged_by")
        )
    )
    alarms = sum(a.level == ALARM for a in alerts)
    by_team: dict[str, list[int]] = {}  # team -> [open, alarms]
    for a in alerts:
        if a.team:
            counts = by_team.setdefault(a.team, [0, 0])
            counts[0] += 1
            counts[1] += a.level == ALARM
    tray = render_to_string(
        "alerts/_tray.html",
        {
            "alerts": alerts[:SHOWN],
            "count": len(alerts),
            "alarms": alarms,
            "by_team": json.dumps(by_team, separators=(",", ":"), sort_keys=True),
        },
    )
    without_agents = [a for a in alerts if not a.subject.startswith("agent:")]
    return {
        ALERTS: tray,
        ALERTS_BOARD: banner(without_agents),
        ALERTS_BOARD_AGENTS: banner(alerts),
    }


def banner(alerts: list[Alert]) -> str:
    tiles = []
    for alert in alerts:
        tiles += [t for t in tiles_of(alert) if t not in tiles]
    return render_to_string(
        "alerts/_board.html",
        {"top": alerts[0] if alerts else None, "more": len(alerts) - 1, "flash": ", ".join(tiles)},
    )


def store(parts: dict[str, str]):
    cache.set_many({alerts_key(g): html for g, html in parts.items()}, timeout=None)


def publish():
    """From sync code (a view): render, keep and push the tray and banners."""
    parts = render_all()
    store(parts)
    for group, html in parts.items():
        push_html(group, html)


def current(group: str = ALERTS) -> str:
    """What a page shows at load: the last rendered copy, or a fresh one."""
    html = cache.get(alerts_key(group))
    if html is None:
        parts = render_all()
        store(parts)
        html = parts[group]
    return html
