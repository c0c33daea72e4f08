"""The open alerts as pages show them: the tray (every signed-in page), and the wallboards'
banner with the tiles to flash. Rendered once per change from the database (who
acknowledged what included), kept in the cache for a page's first look, and pushed to the
groups every signed-in page and wallboard joins (dashboard/shared/groups.py).

The tray is one for everyone: an alert about one agent carries the agent's team, and the
tray its open and alarm counts per team, so each page shows its person's teams' alerts
and counts (static/js/alerts.js) with no tray rendered per team set."""

import json

from django.core.cache import cache
from django.db.models import Case, IntegerField, Value, When
from django.template.loader import render_to_string

from dashboard.live.groups import push_html
from dashboard.shared.cache_keys import AGENT_TEAMS_KEY, alerts_key
from dashboard.shared.groups import ALERTS, ALERTS_BOARD, ALERTS_BOARD_AGENTS

from .models import ALARM, Alert, Metric

# The tray lists at most this many; its count says how many are open, and the alerts page
# lists them all. Every open page is sent the tray on each change: at 1,000 agents with 250
# alerts open, 50 entries made a 35 KB frame for each of 500 sockets twice a second.
SHOWN = 10


def ordered():
    """The open alerts, the most severe first, then the newest (in the database's order)."""
    severity = Case(When(level=ALARM, then=Value(0)), default=Value(1), output_field=IntegerField())
    return (
        Alert.objects.filter(cleared_at__isnull=True)
        .select_related("rule", "acknowledged_by")
        .order_by(severity, "-raised_at", "-id")
    )


def tiles_of(subject: str, metric: str) -> list[str]:
    """CSS selectors of the tiles that show what an alert is about (live view, wallboard)."""
    kind, _, key = subject.partition(":")
    if kind == "agent":
        return [f"#agent-{key}"]
    if kind == "queue":
        tiles = [f"#queue-{key}"]
        if metric == Metric.LONGEST_WAIT:
            tiles.append('#kpis [data-limit="wait"]')
        return tiles
    if metric == Metric.SERVICE_LEVEL:
        return ["#kpis"]
    if metric == Metric.COACHING:
        return ["#wb-alerts"]
    return []


def agent_teams() -> dict[str, str]:
    """Agent id -> team, as the live feed last kept it."""
    return cache.get(AGENT_TEAMS_KEY) or {}


def team_of(subject: str, teams: dict[str, str]) -> str:
    """The team of the agent an alert is about; "" when it is about no one agent (a queue,
    the floor: everyone's) or about an agent the floor does not know now."""
    kind, _, key = subject.partition(":")
    return teams.get(key, "") if kind == "agent" else ""


def with_teams(alerts, teams: dict[str, str] | None = None) -> list[Alert]:
    """Each alert with `team` (`team_of`)."""
    teams = agent_teams() if teams is None else teams
    for alert in alerts:
        alert.team = team_of(alert.subject, teams)
    return alerts


def by_team(rows, teams: dict[str, str]) -> str:
    """{team: [open, alarms]} of the open alerts about one agent, as JSON, from their
    (subject, metric, level) rows."""
    out: dict[str, list[int]] = {}
    for subject, _, level in rows:
        team = team_of(subject, teams)
        if team:
            counts = out.setdefault(team, [0, 0])
            counts[0] += 1
            counts[1] += level == ALARM
    return json.dumps(out, separators=(",", ":"), sort_keys=True)


def in_teams(alerts, teams) -> list[Alert]:
    """The alerts a person with `teams` sees (all of them for () the whole floor)."""
    return [a for a in alerts if not teams or not a.team or a.team in teams]


def render_all() -> dict[str, str]:
    """The tray and both banners, from the open alerts: the shown ones as rows, the rest
    counted (in all, and per team of the agents they are about), and every one's tiles for
    the banners' flash."""
    alerts, teams = ordered(), agent_teams()
    shown = with_teams(list(alerts[:SHOWN]), teams)
    rows = list(alerts.values_list("subject", "rule__metric", "level"))
    counts = {"count": len(rows), "alarms": sum(level == ALARM for _, _, level in rows)}
    tray = render_to_string(
        "alerts/_tray.html", {"alerts": shown, **counts, "by_team": by_team(rows, teams)}
    )
    subjects = [(s, m) for s, m, _ in rows]
    others = [(s, m) for s, m in subjects if not s.startswith("agent:")]
    top_other = next((a for a in shown if not a.subject.startswith("agent:")), None)
    if top_other is None and others:
        top_other = alerts.exclude(subject__startswith="agent:").first()
    return {
        ALERTS: tray,
        ALERTS_BOARD: banner(top_other, others),
        ALERTS_BOARD_AGENTS: banner(shown[0] if shown else None, subjects),
    }


def banner(top: Alert | None, subjects: list[tuple[str, str]]) -> str:
    tiles = {}  # ordered, without repeats
    for subject, metric in subjects:
        tiles.update(dict.fromkeys(tiles_of(subject, metric)))
    return render_to_string(
        "alerts/_board.html",
        {"top": top, "more": len(subjects) - 1, "flash": ", ".join(tiles)},
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
