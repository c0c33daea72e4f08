"""A moment before the dashboard recorded the floor, rebuilt from the service's history
(contract 6.3): each agent's state then and the calls under way then, laid out by the live
view's own renderer. The day's counters are not rebuilt here (the live view's charts and
figures hold them): the strip says what the frame is instead."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils.html import format_html

from dashboard.live.render import Renderer
from dashboard.live.state import LiveState
from dashboard.live.view import floor_parts
from dashboard.shared import summaries
from dashboard.upstream import contract as c
from dashboard.upstream import history as h
from dashboard.upstream.on_request import service

CALLS_BEFORE = timedelta(hours=1)  # how long before the moment a call under way may have begun
NOTE = (
    "Rebuilt from the service's history (agents' states and calls), not recorded live: "
    "this moment is before the dashboard followed the floor."
)


async def every(read, **kwargs) -> list:
    rows, cursor = [], None
    while True:
        page = await read(cursor=cursor, **kwargs)
        rows += page.rows
        cursor = page.next_cursor
        if cursor is None:
            return rows


async def floor_at(when: datetime) -> LiveState:
    """The floor at `when` as the service's history tells it."""
    rest = service()
    after = when + timedelta(milliseconds=1)
    spans = await every(h.states_page, rest=rest, since=when, until=after)
    calls = await every(h.calls_page, rest=rest, since=when - CALLS_BEFORE, until=after)
    known = {a.agent_id: a for a in await rest.agents()}  # names and teams
    agents = []
    for x in spans:
        if x.since <= when and (x.until is None or x.until > when):
            who = known.get(x.agent_id)
            agents.append(
                c.Agent(
                    x.agent_id,
                    who.name if who else x.agent_id,
                    who.team if who else "",
                    x.status,
                    x.since,
                    x.call_id,
                )
            )
    under_way = [
        c.Call(
            x.call_id,
            x.agent_id,
            x.campaign_id,
            x.direction,
            "in_progress",
            x.ai_handled,
            x.started_at,
        )
        for x in calls
        if x.started_at and x.started_at <= when and (x.ended_at is None or x.ended_at > when)
    ]
    state = LiveState(ZoneInfo(settings.TIME_ZONE), settings.SERVICE_LEVEL_THRESHOLD_S)
    state.load_snapshot(agents, under_way, when)
    return state


def parts(state: LiveState) -> dict[str, str]:
    render = Renderer()
    render.campaigns = {x.id: x.name for x in summaries.load("campaigns")["data"] or []}
    rows = floor_parts(
        {a: render.agent(state, x) for a, x in state.agents.items()},
        {k: render.call(state, x) for k, x in state.calls.items()},
        {},
    )
    by_state: dict[str, int] = {}
    for agent in state.agents.values():
        by_state[agent.status] = by_state.get(agent.status, 0) + 1
    kpis = format_html(
        '<div id="kpis" class="kpis" aria-label="Key figures"><div class="kpi rebuilt">'
        '<div class="label">From the service\'s history</div><div class="value">{}</div>'
        '<div class="sub">agents · {} on calls · {} calls under way</div></div></div>',
        len(state.agents),
        by_state.get("on_call", 0),
        len(state.calls),
    )
    return {**rows, "kpis": kpis}
