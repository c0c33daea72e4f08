"""What changed, for the live view's and the wallboards' panel: worked out by the bridge
(watch.py) on a cadence, never per browser, as plain rows that the live feed renders once
per change. A row is a run of whole 15-minute slots a figure spent outside its normal
band, a queue's service level spent below its goal, or a queue's or a campaign's figure
spent outside its own band (own_bands.py), newest first, with its numbers ("Service level
91% → 74% since 10:15") and its causes ranked by their share of the change, each cause
broken down in turn (calls offered by queue, agents' time signed in by the teams whose
agents paused or signed out then, calls per agent hour and handle time by campaign) and
linked to its page."""

from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import urlencode

from django.template.loader import render_to_string
from django.urls import reverse

from dashboard.inbound.board import service_level
from dashboard.live.state import SLOT, slot_of
from dashboard.shared.charts import zone

from .changes import Cause, aht_by_campaign, cause_rows, causes_of, shares_of
from .floor import FIGURES, DayNormal, day_normal
from .method import MIN_WEEKS, runs_outside
from .own_bands import campaign_series, queue_series, series_runs
from .pages import shown
from .queue_slots import queue_days, queue_offered

LISTED = 8  # changes kept, newest first
AWAY = {"paused": "paused", "offline": "signed out"}  # states that take an agent off calls
NAMED = 3  # agents named per team, the rest counted


@dataclass(frozen=True)
class Away:
    """An agent not taking calls now, as the live state holds it."""

    agent_id: str
    name: str
    team: str
    status: str
    since: datetime


def away_of(state, now: datetime) -> list[Away]:
    """The agents paused or signed out now (read on the bridge's loop, then handed over)."""
    return [
        Away(a.agent_id, a.name, a.team or "no team", a.status, a.since or now)
        for a in state.agents.values()
        if a.status in AWAY
    ]


@dataclass
class Run:
    key: str  # a figure's key, or "goal:<queue id>"
    label: str
    unit: str
    side: int  # 1 above, -1 below
    start: datetime
    last: datetime
    before: float | None  # the value of the slot before the run (or the normal's median)
    value: float | None  # the run's first slot's: the change
    bound: str  # "its normal band 85% – 95%", "its goal 80%"
    causes: list[Cause]
    link: str = ""  # the queue's or campaign's page
    against: float | None = None  # the median of its band at the first slot, or the goal


def by_queue(days: dict, names: dict, today: date, at: datetime, sign: int) -> list[Cause]:
    """Calls offered by queue against each queue's own normal: the queues that moved the
    same way as the change, each as a share of their calls above (or below) normal."""
    moved = []
    for queue in days:
        offered, their = queue_offered(days, today, queue, at)
        if offered is not None and their.ready and (offered - their.median) * sign > 0:
            moved.append((queue, offered, their, offered - their.median))
    total = sum(excess for *_, excess in moved)
    causes = [
        Cause(
            f"{names.get(queue) or queue} queue offered {offered} against a normal "
            f"{their.median:g} ({_pct(offered / their.median) if their.median else 'new'})",
            round(100 * excess / total),
            reverse("queue", args=[queue]),
            key="queue",
        )
        for queue, offered, their, excess in moved
    ]
    return sorted(causes, key=lambda c: -c.share_pct)


def _pct(ratio: float) -> str:
    off = round(100 * (ratio - 1))
    return f"{abs(off)}% {'above' if off > 0 else 'below'} normal"


# ---- The teams' part: who left the floor around the change --------------------------------
def by_team(away: list[Away], since: datetime, until: datetime | None) -> list[Cause]:
    """The teams whose agents paused or signed out since `since` (and before `until`, for
    a change that is over) and are still away, most agents first, each naming its agents
    (linked to their pages)."""
    groups: dict[tuple[str, str], list[Away]] = {}
    for agent in away:
        if agent.since >= since and (until is None or agent.since < until):
            groups.setdefault((agent.team, agent.status), []).append(agent)
    total = sum(len(g) for g in groups.values())
    causes = []
    for (team, status), agents in groups.items():
        agents.sort(key=lambda a: (a.since, a.name))
        n = len(agents)
        names = ", ".join(a.name for a in agents[:NAMED]) + (", …" if n > NAMED else "")
        first = agents[0].since.astimezone(zone())
        causes.append(
            Cause(
                f"{n} agent{'s' if n > 1 else ''} of {team} {AWAY[status]} since "
                f"{first:%H:%M} ({names})",
                round(100 * n / total),
                reverse("home") + "?" + urlencode({"teams": "all", "team": team}),
                [Cause(a.name, 0, reverse("agent", args=[a.agent_id])) for a in agents],
                key="team",
            )
        )
    return sorted(causes, key=lambda c: (-c.share_pct, c.text))


def broken_down(causes, days, names, away, run) -> list[Cause]:
    """Each cause's own parts: calls offered by queue, handle time by campaign, and
    agents' time signed in, when it fell, by the teams who left the floor from the slot
    before the change on."""
    normal, today, start, last, sign, ongoing = run
    staffed = normal.value("staffed", start)
    fell = staffed is not None and staffed < (normal.normal("staffed", start).median or 0)
    for cause in causes:
        if cause.key == "offered":
            cause.details = by_queue(days, names, today, start, sign)
        elif cause.key == "staffed" and fell:
            cause.details = by_team(away, start - SLOT, None if ongoing else last + SLOT)
        elif cause.key == "aht" and not cause.details:
            aht, their = normal.value("aht", start), normal.normal("aht", start).median
            if aht is not None and their:
                cause.details = aht_by_campaign(normal, start, 1 if aht > their else -1)
    return causes


# ---- Runs of slots outside the band, and below a goal -------------------------------------
def figure_runs(normal: DayNormal, current: datetime) -> list[tuple]:
    """(figure, side, first slot, last slot, value before) of each run of whole slots
    a figure spent outside its band (a noisy band judges nothing)."""

    def points(fig):
        for at in normal.slots:
            if at >= current:
                return
            yield at, normal.value(fig.key, at), normal.normal(fig.key, at)

    shown_figures = [fig for fig in FIGURES if fig.shown]
    return [[fig, *run[:4]] for fig in shown_figures for run in runs_outside(points(fig))]


def goal_runs(days: dict, plans: dict, today: date, current: datetime) -> list[tuple]:
    """(queue, first slot, last slot, level before, level at the first) of each run of whole
    slots a queue's service level (open minutes) spent below the queue's goal."""
    runs = []
    for queue, plan in plans.items():
        goal = plan.get("goal_pct")
        slots = days.get(queue, {}).get(today, {})
        run, before = None, None
        for at in sorted(slots):
            if at >= current or goal is None:
                break
            _, answered, within, abandoned, short = slots[at]
            level = service_level(within, answered, abandoned, short)
            if level is None:
                continue
            if level < goal and run:
                run[2] = at
            elif level < goal:
                run = [queue, at, at, before, level]
                runs.append(run)
            else:
                run = None
            before = level
    return runs


def evaluate(
    now: datetime, away: list[Away], plans: dict, filling_pct=None, filling_past_pct=None
) -> dict:
    """What the panel shows as of `now`: whether there is a normal to judge by, a note,
    the changes, newest first, and all of it rendered (`html`), which the live feed places
    in the live view's and the wallboards' panel. `plans`: each queue's name and goal (the
    inbound board's figures); `away`: the agents paused or signed out now; `filling_pct`:
    how far today is read from the service's history (None: done), while which today's
    slots are partial, and `filling_past_pct`: how far the past weeks are (the normal
    partial meanwhile): while either is read nothing is judged, nor the normal read."""
    whole = slot_of(now) - SLOT  # the last whole slot: a run that reaches it is under way
    what = {
        "ready": False,
        "note": "",
        "as_of": whole.astimezone(zone()).strftime("%H:%M"),
        "changes": [],
        "filling_pct": filling_pct,
        "filling_past_pct": filling_past_pct,
    }
    if filling_pct is None and filling_past_pct is None:
        normal = day_normal(now.astimezone(zone()).date())
        runs = runs_of(normal, slot_of(now), away, plans)
        what["ready"] = len(normal.days) >= MIN_WEEKS
        what["note"] = note(normal, whole)
        what["changes"] = [row(r, whole) for r in runs[:LISTED]]
    return {**what, "html": render_to_string("normal/_panel.html", {"what": what})}


def runs_of(normal: DayNormal, current: datetime, away: list[Away], plans: dict) -> list[Run]:
    """Every change of the day's whole slots before `current`, newest first."""
    today = normal.today
    whole = current - SLOT
    names = {q: p.get("name") or q for q, p in plans.items()}
    days = queue_days(normal)
    runs = []
    for fig, side, start, last, before in figure_runs(normal, current):
        their = normal.normal(fig.key, start)
        causes = causes_of(normal, fig.key, start, side)
        sign = -side if fig.key == "service_level" else side
        runs.append(
            Run(
                fig.key,
                fig.label,
                fig.unit,
                side,
                start,
                last,
                their.median if before is None else before,
                normal.value(fig.key, start),
                f"its normal band {shown(their.low, fig.unit)} – {shown(their.high, fig.unit)}",
                broken_down(
                    causes, days, names, away, (normal, today, start, last, sign, last >= whole)
                ),
                against=their.median,
            )
        )
    for queue, start, last, before, level in goal_runs(days, plans, today, current):
        runs.append(
            Run(
                f"goal:{queue}",
                f"{names[queue]} service level",
                "%",
                -1,
                start,
                last,
                before,
                level,
                f"its goal {plans[queue]['goal_pct']:g}%",
                broken_down(
                    goal_causes(normal, days, queue, today, start),
                    days,
                    names,
                    away,
                    (normal, today, start, last, 1, last >= whole),
                ),
                against=plans[queue]["goal_pct"],
            )
        )
    below_goal = {(r.key.removeprefix("goal:"), r.start) for r in runs if r.key.startswith("goal:")}
    runs += own_runs(normal, days, names, away, current, below_goal)
    runs.sort(key=lambda r: (r.start, r.key), reverse=True)
    return runs


def own_runs(normal: DayNormal, days, names, away, current: datetime, below_goal) -> list[Run]:
    """Each queue and campaign outside its own band; a queue's service level below its
    band from the slot it went below its goal is told once, as the goal's change."""
    today, whole = normal.today, current - SLOT
    series = queue_series(days, names, today) + campaign_series(normal)
    runs = []
    for one, side, start, last, before, their in series_runs(series, normal.slots, current):
        if one.figure == "service_level" and (one.owner, start) in below_goal:
            continue
        pressure = (one.figure, side) in (("service_level", -1), ("abandoned", 1))
        causes = goal_causes(normal, days, one.owner, today, start) if pressure else []
        runs.append(
            Run(
                one.key,
                one.label,
                one.unit,
                side,
                start,
                last,
                their.median if before is None else before,
                one.value(start),
                f"its own normal band {shown(their.low, one.unit)} – {shown(their.high, one.unit)}",
                broken_down(
                    causes, days, names, away, (normal, today, start, last, 1, last >= whole)
                ),
                one.link,
                their.median,
            )
        )
    return runs


def goal_causes(normal: DayNormal, days: dict, queue: str, today: date, at: datetime):
    """A queue below its goal: its calls offered, the floor's handle time and agents' time
    signed in, each against its normal (more pressure, lower service level)."""
    offered, their = queue_offered(days, today, queue, at)
    ratio = offered / their.median if their.ready and their.median and offered else None
    link = reverse("queue", args=[queue])
    parts = [(f"its calls offered {_pct(ratio)}" if ratio else "", ratio, link, 1, "")]
    for key, text, power in (
        ("aht", "average handle time", 1),
        ("staffed", "agents' time signed in", -1),
    ):
        value, their = normal.value(key, at), normal.normal(key, at)
        r = value / their.median if value and their.ready and their.median else None
        parts.append((f"{text} {_pct(r)}" if r else text, r, "", power, key))
    return shares_of(parts, 1)


def note(normal: DayNormal, last: datetime) -> str:
    """What the panel says besides its changes: no normal yet, or the figures too noisy."""
    if len(normal.days) < MIN_WEEKS:
        return (
            f"No normal yet: the dashboard holds {len(normal.days)} of the {MIN_WEEKS} "
            "same weekdays it needs."
        )
    noisy = [f.label for f in FIGURES if f.shown and normal.normal(f.key, last).noisy]
    if noisy:
        return f"Too noisy to judge at this time of day: {', '.join(noisy)}."
    return ""


def row(run: Run, last_whole: datetime) -> dict:
    """One change as the panel lists it: plain values, compared to decide whether to push."""
    start = run.start.astimezone(zone())
    ongoing = run.last >= last_whole
    until = "" if ongoing else f" until {(run.last + SLOT).astimezone(zone()):%H:%M}"
    return {
        "key": run.key,
        "since": f"{start:%H:%M}",
        "sentence": (
            f"{run.label} {shown(run.before, run.unit)} → {shown(run.value, run.unit)} "
            f"since {start:%H:%M}{until}"
        ),
        "where": f"{'above' if run.side > 0 else 'below'} {run.bound}",
        "ongoing": ongoing,
        "link": run.link,
        "causes": cause_rows(run.causes),
    }
