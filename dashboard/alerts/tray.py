"""The open alerts as pages show them: the tray (every signed-in page), and the wallboards'
banner with the tiles to flash. Rendered once per change from the database (who
acknowledged what included), kept in the cache for a page's first look, and pushed to the
groups every signed-in page and wallboard joins (dashboard/shared/groups.py).

The tray is one for everyone: an alert about agents (a team's group, or one agent) carries
the team, and the tray its open and alarm counts per team, so each page shows its person's
teams' alerts first, and their counts (static/js/alerts.js), with no tray rendered per team
set. Each team's groups are listed even past the first `SHOWN`, so a supervisor of 20
agents finds their own at the top of the tray."""

import json

from django.core.cache import cache
from django.db.models import Case, IntegerField, Value, When
from django.template.loader import render_to_string

from dashboard.live import dom
from dashboard.live.groups import push_html
from dashboard.shared.cache_keys import AGENT_TEAMS_KEY, alerts_key
from dashboard.shared.groups import ALERTS, ALERTS_BOARD, ALERTS_BOARD_AGENTS

from .models import AGENT_STATES, ALARM, Alert, Metric

# The tray lists at most this many, and as many of each team's; its count says how many are
# open, and the alerts page lists them all. Every open page is sent the tray on each change.
SHOWN = 10


def ordered():
    """The open alerts, the most severe first, then the newest (in the database's order)."""
    severity = Case(When(level=ALARM, then=Value(0)), default=Value(1), output_field=IntegerField())
    return (
        Alert.objects.filter(cleared_at__isnull=True)
        .select_related("rule", "acknowledged_by")
        .order_by(severity, "-raised_at", "-id")
    )


def about_agents(subject: str, metric: str) -> bool:
    """One agent's alert, or a team's group of them: not for links that show no agents."""
    return subject.startswith("agent:") or metric in AGENT_STATES


def tiles_of(subject: str, metric: str, members=()) -> list[str]:
    """CSS selectors of the tiles that show what an alert is about (live view, wallboard)."""
    kind, _, key = subject.partition(":")
    if kind == "agent":
        return [dom.agent_tile(key)]
    if metric in AGENT_STATES:  # a group: its agents' tiles
        return [dom.agent_tile(m[0]) for m in members or ()]
    if kind == "queue":
        tiles = [dom.queue_tile(key)]
        if metric == Metric.LONGEST_WAIT:
            tiles.append(dom.WAIT_FIGURE)
        return tiles
    if metric == Metric.SERVICE_LEVEL:
        return [dom.KPIS]
    if metric == Metric.COACHING:
        return [dom.COACHING_PANEL]
    return []


def agent_teams() -> dict[str, str]:
    """Agent id -> team, as the live feed last kept it."""
    return cache.get(AGENT_TEAMS_KEY) or {}


def team_of(subject: str, teams: dict[str, str]) -> str:
    """The team an alert is about (a team's group, or its agent's); "" when it is about no
    team (a queue, the floor: everyone's) or about an agent the floor does not know now."""
    kind, _, key = subject.partition(":")
    if kind == "team":
        return key
    return teams.get(key, "") if kind == "agent" else ""


def with_teams(alerts, teams: dict[str, str] | None = None) -> list[Alert]:
    """Each alert with `team` (`team_of`)."""
    teams = agent_teams() if teams is None else teams
    for alert in alerts:
        alert.team = team_of(alert.subject, teams)
    return alerts


def by_team(rows, teams: dict[str, str]) -> str:
    """{team: [open, alarms]} of the open alerts about a team, as JSON, from their
    (subject, metric, level, members) rows."""
    out: dict[str, list[int]] = {}
    for subject, _, level, _ in rows:
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
    rows = list(alerts.values_list("id", "subject", "rule__metric", "level", "members"))
    listed, per_team = [], {}
    for i, (pk, subject, *_) in enumerate(rows):
        team = team_of(subject, teams)
        if i < SHOWN or (team and per_team.get(team, 0) < SHOWN):
            listed.append(pk)
            per_team[team] = per_team.get(team, 0) + 1
    shown = with_teams(list(alerts.filter(pk__in=listed)), teams)
    rows = [row[1:] for row in rows]
    counts = {"count": len(rows), "alarms": sum(row[2] == ALARM for row in rows)}
    tray = render_to_string(
        "alerts/_tray.html", {"alerts": shown, **counts, "by_team": by_team(rows, teams)}
    )
    subjects = [(s, m, members) for s, m, _, members in rows]
    others = [row for row in subjects if not about_agents(row[0], row[1])]
    top_other = next((a for a in shown if not about_agents(a.subject, a.rule.metric)), None)
    if top_other is None and others:
        top_other = next(a for a in alerts if not about_agents(a.subject, a.rule.metric))
    return {
        ALERTS: tray,
        ALERTS_BOARD: banner(top_other, others),
        ALERTS_BOARD_AGENTS: banner(shown[0] if shown else None, subjects),
    }


def banner(top: Alert | None, subjects: list[tuple[str, str, list]]) -> str:
    tiles = {}  # ordered, without repeats
    for subject, metric, members in subjects:
        tiles.update(dict.fromkeys(tiles_of(subject, metric, members)))
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
