"""A moment of the floor, replayed: the last whole state at or before it, and the events
after that up to the moment, applied by the same `LiveState` code the live view runs, so
the replayed floor is the live one's. Rendered by the live view's own renderer, so it reads
like it and shows no more of a call than it does."""

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings

from dashboard.live.render import Renderer
from dashboard.live.state import LiveState
from dashboard.live.view import floor_parts
from dashboard.shared import summaries

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
    states = Chunk.objects.filter(has_state=True).order_by("start", "id")
    base = states.filter(start__lte=when).reverse().values_list("id", "start", "state").first()
    if base is None:
        return Moment(when, None, gap, 0)
    base_id, start, blob = base
    doc = unpack(blob)
    entries = roster(doc["roster"]) if "roster" in doc else None
    zone, level = ZoneInfo(settings.TIME_ZONE), settings.SERVICE_LEVEL_THRESHOLD_S
    state = state_of(doc, zone, level, entries)
    # The events after it in the order they were applied live (`id`), up to the next state:
    # after a reload, events emitted before it may follow it, as they did in the live view.
    following = states.filter(start__gte=start).exclude(id=base_id)
    chunks = Chunk.objects.filter(id__gte=base_id).order_by("id")
    next_id = following.values_list("id", flat=True).first()
    if next_id is not None:
        chunks = chunks.filter(id__lt=next_id)
    limit, applied = us(when), 0
    for events in chunks.values_list("events", flat=True).iterator(chunk_size=20):
        for row in unpack_events(events):
            if row[1] > limit:
                return Moment(when, state, gap, applied)
            state.apply(event_of(row, entries))
            applied += 1
    return Moment(when, state, gap, applied)


def roster(rows: list[int]) -> list[list]:
    """The roster's entries in the rows a state names, in order."""
    blobs = dict(Roster.objects.filter(id__in=rows).values_list("id", "agents"))
    return [entry for row in rows for entry in unpack(blobs[row])]


def span() -> tuple[datetime, datetime] | None:
    """The first and last moments recorded, or None."""
    first = Chunk.objects.order_by("start", "id").values_list("start", flat=True).first()
    last = Chunk.objects.order_by("-start", "-id").values_list("end", flat=True).first()
    return None if first is None else (first, max(first, last))


def next_change(when: datetime) -> datetime | None:
    """The time of the first event after `when`."""
    limit = us(when)
    rows = Chunk.objects.filter(end__gt=when, count__gt=0, start__gte=earlier_start(when))
    for events in rows.order_by("start", "id").values_list("events", flat=True)[:3]:
        later = [row[1] for row in unpack_events(events) if row[1] > limit]
        if later:
            return at(min(later))
    return None


def previous_change(when: datetime) -> datetime | None:
    """The time of the last event before `when`."""
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
