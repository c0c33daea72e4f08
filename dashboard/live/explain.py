"""The live KPI tiles' explanations: the counts behind each number (shown in its explain
panel, dashboard/shared/figures.py) and the difference to the same time last week.

Rendered with the tiles, once per push, as short lines: the panels' fixed wording (formula,
window, source) is in the page, not in every push.
"""

from datetime import datetime

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from dashboard.shared.figures import chart_panels, explain
from dashboard.upstream import contract as c

from .state import LiveState, same_time_last_week, service_level_pct

NO_DATA = "no data"
TILES = (  # the KPI tiles' explain panels, in the tiles' order
    "agent_states",
    "active_calls",
    "ai_calls",
    "waiting",
    "longest_wait",
    "service_level",
    "completed",
    "occupancy",
    "aht",
    "appointments_today",
    "open_critical",
    "voicemail_waiting",
)
DAY_FIGURES = {"service_level", "completed", "occupancy", "aht"}  # counted over the day


def panels(charts: dict) -> list[dict]:
    """The live view's explain panels: the tiles' (their inputs arrive with the pushed
    tiles) and the charts'."""
    tiles = [explain(key, origin="day" if key in DAY_FIGURES else "") for key in TILES]
    return tiles + chart_panels(charts)


def hidden(why: dict[str, list[str]]) -> SafeString:
    """The inputs as hidden `data-why` elements, for static/js/explain.js (joined here, not
    in the template: it is rendered on every push)."""
    return mark_safe(
        "".join(
            f'<p hidden data-why="{escape(key)}">{"<br>".join(map(escape, lines))}</p>'
            for key, lines in why.items()
        )
    )


def clock(seconds) -> str:
    """A duration as m:ss."""
    seconds = round(seconds)
    return f"{'-' if seconds < 0 else ''}{abs(seconds) // 60}:{abs(seconds) % 60:02d}"


def hours(seconds: float) -> str:
    """A long total of agent time: "41 h 07 min"."""
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min"


def signed(value, unit="") -> str:
    return f"{'+' if value > 0 else ''}{value:g}{unit}"


def comparisons(kpis: dict, state: LiveState, now: datetime) -> dict[str, str]:
    """Each compared tile's line: the difference to the same time on the same weekday last
    week, from the stored 15-minute slots; "no data" where none were stored."""
    day = f"last {same_time_last_week(now, state.tz):%a}"
    vs = kpis["vs_last_week"] or {}

    def line(name, show):
        value = vs.get(name)
        return f"{day}: {NO_DATA}" if value is None else f"{show(value)} vs {day}"

    return {
        "service_level_pct": line("service_level_pct", lambda d: signed(d, " pts")),
        "completed_today": line("completed_today", signed),
        "occupancy_pct": line("occupancy_pct", lambda d: signed(d, " pts")),
        "aht_s": line("aht_s", lambda d: ("+" if d > 0 else "") + clock(d)),
    }


def agent_inputs(kpis: dict) -> dict[str, list[str]]:
    """The counts behind the agents' and calls' tiles, by the key of their explain panel:
    a team set's own."""
    agents = kpis["agents"]
    return {
        "agent_states": [
            f"{kpis['agents_total']} agents: "
            + ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in agents.items() if n)
        ],
        "active_calls": [f"{kpis['active_calls']} calls started and not ended"],
        "ai_calls": [f"{kpis['ai_calls']} of {kpis['active_calls']} active calls"],
    }


def floor_inputs(
    kpis: dict, state: LiveState, figures: dict, now: datetime
) -> dict[str, list[str]]:
    """The counts behind the other tiles, the whole floor's in every strip, and `day`:
    where today's counts came from."""
    day, then = kpis["day"], kpis["last_week"]
    weekday = f"Last {same_time_last_week(now, state.tz):%a} at this time"
    threshold = figures.get("service_level_s", state.service_level_s)
    queues = sorted(state.queues.values(), key=lambda q: q.name)
    longest = max(queues, key=lambda q: q.longest_wait_s, default=None)
    why = {
        "waiting": ["; ".join(f"{q.name}: {q.waiting}" for q in queues) or "no queue figures yet"],
        "longest_wait": [
            f"{longest.name}: {clock(longest.longest_wait_s)} at {_hhmmss(longest.at, state)}"
            + (", callers still waiting" if longest.waiting else "")
            if longest
            else "no queue figures yet"
        ],
        "service_level": _queue_levels(figures.get("inbound"))
        or [
            f"{day.inbound_in_sl} answered within {threshold} s of {day.inbound_answered} "
            "inbound calls answered",
            _then(
                weekday, then, lambda x: f"{service_level_pct(x)}% answered within {threshold} s"
            ),
        ],
        "voicemail_waiting": [_voicemail(figures.get("inbound"))],
        "completed": [
            f"{day.completed} calls ended: {day.handled} agent-handled, "
            f"{day.ai_completed} AI-handled",
            _then(weekday, then, lambda x: f"{round(x.completed)} calls ended"),
        ],
        "aht": [
            f"{hours(day.handle_s)} handle time over {day.handled} agent-handled calls"
            + _under_way(kpis["ongoing"]["wrap_ups"], "wrap-up", "wrap-ups"),
            _then(weekday, then, lambda x: f"{hours(x.handle_s)} over {round(x.handled)} calls"),
        ],
        "occupancy": [
            f"{hours(day.busy_s)} busy of {hours(day.busy_s + day.available_s)} busy or "
            "available"
            + _under_way(
                kpis["ongoing"]["states"], "agent's current state", "agents' current states"
            ),
            _then(
                weekday,
                then,
                lambda x: f"{hours(x.busy_s)} busy of {hours(x.busy_s + x.available_s)}",
            ),
        ],
        "appointments_today": [_count(figures.get("appointments_today"), "appointments booked")],
        "open_critical": [_count(figures.get("open_critical"), "critical alerts not resolved")],
        "day": origin(state),
    }
    return why


def origin(state: LiveState) -> list[str]:
    """Where today's counts came from: the events this process followed, the slots stored
    before it started, and the calls the service listed that neither had counted."""
    o = state.origin
    parts = []
    if o.live_since:
        parts.append(f"the service's events since {_hhmmss(o.live_since, state)}")
    if o.restored_slots:
        n = o.restored_slots
        parts.append(f"{n} 15-minute slot{'' if n == 1 else 's'} stored earlier today")
    if o.filled_calls:
        parts.append(f"{o.filled_calls} calls from the service's call list that neither counted")
    lines = ["Counted from " + ("; ".join(parts) or "nothing yet")]
    if o.service_partial_before:
        lines.append(
            f"The service lists its newest {c.CALL_LIST_CAP} calls only: AI-handled calls "
            f"that started before {_hhmmss(o.service_partial_before, state)} may be missing"
        )
    return lines


def _then(label: str, then, show) -> str:
    return f"{label}: {NO_DATA}" if then is None else f"{label}: {show(then)}"


def _under_way(n: int, one: str, many: str) -> str:
    """States not ended yet, counted up to now."""
    return f", counting {n} {one if n == 1 else many} up to now" if n else ""


def _count(n, what: str) -> str:
    return "not known yet" if n is None else f"{n} {what}"


def _hhmmss(when: datetime, state: LiveState) -> str:
    return f"{when.astimezone(state.tz):%H:%M:%S}"


def _queue_levels(inbound: dict | None) -> list[str]:
    """The floor's service level from the queues' own: each queue's level, target and the
    calls it was offered while open (its weight)."""
    if not inbound:
        return []
    lines = [
        f"{q['name']}: {'no calls' if q['sl_pct'] is None else str(q['sl_pct']) + '%'} "
        f"(goal {q['goal_pct']}% in {q['target_s']} s), weight {q['offered']} offered while open"
        for q in sorted(inbound["queues"].values(), key=lambda q: q["name"])
    ]
    return [*lines, "the queues' own service levels, weighted by calls offered while open"]


def _voicemail(inbound: dict | None) -> str:
    part = (inbound or {}).get("voicemail")
    if not part:
        return "the service offers no voicemail"
    oldest = part["oldest_min"]
    return f"{part['waiting']} messages not handled" + (
        f", the oldest received {oldest} min ago" if oldest is not None else ""
    )
