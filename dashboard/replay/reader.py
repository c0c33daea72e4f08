"""A moment of the floor, replayed: the last whole state at or before it with the agents
as the state journal had them then, and the events and agents' changes after that up to
the moment, applied by the same `LiveState` code the live view runs, so the replayed floor
is the live one's. Rendered by the live view's own renderer, so it reads
like it and shows no more of a call than it does."""

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings

from dashboard.live.render import Renderer
from dashboard.live.state import LiveState, day_start
from dashboard.live.view import floor_parts
from dashboard.shared import summaries
from dashboard.states import reader as states
from dashboard.upstream import contract as c

from .codec import at, event_of, state_of, unpack, unpack_events, us
from .models import Chunk, Gap, Roster


@dataclass
class Moment:
    at: datetime
    state: LiveState | None  # None: nothing recorded at or before `at`
    gap: Gap | None  # events lost around `at`: the state is the one before them
    events: int  # events applied after the whole state


def state_at(when: datetime) -> Moment:
    gap = Gap.objects.filter(start__lte=when, end__gt=when).first()
    wholes = Chunk.objects.filter(has_state=True).order_by("start", "id")
    base = wholes.filter(start__lte=when).reverse().values_list("id", "start", "state").first()
    if base is None:
        return Moment(when, None, gap, 0)
    base_id, start, blob = base
    doc = unpack(blob)
    entries = roster(doc["roster"]) if "roster" in doc else None
    zone, level = ZoneInfo(settings.TIME_ZONE), settings.SERVICE_LEVEL_THRESHOLD_S
    state = state_of(doc, zone, level, entries)
    # The events after it in the order they were applied live (`id`), up to the next state:
    # after a reload, events emitted before it may follow it, as they did in the live view.
    following = wholes.filter(start__gte=start).exclude(id=base_id)
    chunks = Chunk.objects.filter(id__gte=base_id).order_by("id")
    next_id = following.values_list("id", flat=True).first()
    if next_id is not None:
        chunks = chunks.filter(id__lt=next_id)
    limit, after = us(when), []
    for events in chunks.values_list("events", flat=True).iterator(chunk_size=20):
        for row in unpack_events(events):
            if row[1] > limit:
                break
            after.append((max(row[1], us(start)), event_of(row, entries)))
        else:
            continue
        break
    if "agents" not in doc:  # the agents are the state journal's
        state.agents, changes = agents_at(start, when, zone)
        after = in_order(after, changes)
    for _, event in after:
        if isinstance(event, str):
            state.agents.pop(event, None)  # left the floor (a reload without it)
        else:
            state.apply(event)
    return Moment(when, state, gap, len(after))


def agents_at(start: datetime, when: datetime, zone) -> tuple[dict, list]:
    """The agents as the whole state at `start` had them, and their changes up to `when`
    as (moment, order, event; an agent that left: its id)."""
    base, later = states.floor(start, when, day_start(start.astimezone(zone).date(), zone))
    changes = [
        (us(moment), order, a_id if agent is None else agent_event(agent, moment))
        for moment, order, a_id, agent in later
    ]
    return base, changes


def agent_event(agent: c.Agent, moment: datetime) -> c.Event:
    return c.Event("agent.status", "", 0, moment, c.AgentChanged(agent))


def in_order(events: list[tuple], changes: list[tuple]) -> list[tuple]:
    """The chunks' events and the agents' changes as the floor showed them: by moment, and
    within a moment each change at its place among the moment's events."""
    moments: dict[int, tuple[list, list]] = {}
    for key, event in events:
        moments.setdefault(key, ([], []))[0].append(event)
    for key, order, change in changes:
        moments.setdefault(key, ([], []))[1].append((order, change))
    out = []
    for key in sorted(moments):
        rest, placed = moments[key]
        placed.sort(key=lambda x: x[0])
        rest.reverse()
        for place in range(len(rest) + len(placed)):
            if placed and (placed[0][0] <= place or not rest):
                out.append((key, placed.pop(0)[1]))
            else:
                out.append((key, rest.pop()))
    return out


def roster(rows: list[int]) -> list[list]:
    """The roster's entries in the rows a state names, in order."""
    blobs = dict(Roster.objects.filter(id__in=rows).values_list("id", "agents"))
    return [entry for row in rows for entry in unpack(blobs[row])]


def span() -> tuple[datetime, datetime] | None:
    """The first and last moments recorded, or None."""
    first = Chunk.objects.order_by("start", "id").values_list("start", flat=True).first()
    last = Chunk.objects.order_by("-start", "-id").values_list("end", flat=True).first()
    if first is None:
        return None
    return first, max(first, last, states.last_change() or first)


def next_change(when: datetime) -> datetime | None:
    """The time of the first event or agent's change after `when`."""
    return min(filter(None, (next_event(when), states.change_after(when))), default=None)


def previous_change(when: datetime) -> datetime | None:
    """The time of the last event or agent's change before `when`."""
    return max(filter(None, (previous_event(when), states.change_before(when))), default=None)


def next_event(when: datetime) -> datetime | None:
    limit = us(when)
    rows = Chunk.objects.filter(end__gt=when, count__gt=0, start__gte=earlier_start(when))
    for events in rows.order_by("start", "id").values_list("events", flat=True)[:3]:
        later = [row[1] for row in unpack_events(events) if row[1] > limit]
        if later:
            return at(min(later))
    return None


def previous_event(when: datetime) -> datetime | None:
    limit = us(when)
    rows = Chunk.objects.filter(start__lt=when, count__gt=0).order_by("-start", "-id")
    for events in rows.values_list("events", flat=True)[:3]:
        earlier = [row[1] for row in unpack_events(events) if row[1] < limit]
        if earlier:
            return at(max(earlier))
    return None


def earlier_start(when: datetime) -> datetime:
    """The start of the chunk under way at `when` (chunks never overlap by more)."""
    under_way = Chunk.objects.filter(start__lte=when).order_by("-start", "-id")
    return under_way.values_list("start", flat=True).first() or when


FIGURES = ("appointments_today", "open_critical")  # from outside the events: not recorded


def parts_at(moment: Moment) -> dict[str, str]:
    """The live view's parts (agents, calls, queues, KPI strip) for a replayed moment."""
    state, render = moment.state, Renderer()
    render.campaigns = {x.id: x.name for x in summaries.load("campaigns")["data"] or []}
    figures = {"service_level_s": settings.SERVICE_LEVEL_THRESHOLD_S, **dict.fromkeys(FIGURES)}
    rows = floor_parts(
        {a: render.agent(state, x) for a, x in state.agents.items()},
        {k: render.call(state, x) for k, x in state.calls.items()},
        {k: render.queue(x) for k, x in state.queues.items()},
    )
    return {**rows, "kpis": render.kpis(state, figures, moment.at)}
