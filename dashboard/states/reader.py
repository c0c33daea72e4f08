"""Reading the record of the agents' states: one agent's changes (the agent's day, its
exports, the backfill's checks) from that agent's rows, and the whole floor at a moment
(the replay) from the last opening before it and the rows of its stretch."""

from collections.abc import Iterable
from datetime import datetime

from dashboard.upstream import contract as c

from .codec import (
    GONE,
    WINDOW,
    Change,
    Entry,
    agent_of,
    at,
    decode,
    encode,
    entry,
    raw,
    unpack_opening,
    us,
    window_of,
)
from .models import AgentStates, Opening

FIELDS = ("agent_id", "start", "states")


# ---- One agent --------------------------------------------------------------------------------
def rows_for(agent_id: str, changes: Iterable[Change]) -> list[AgentStates]:
    """New rows holding `changes` of one agent (shown at their start), a row a window."""
    by_window: dict[datetime, list[Entry]] = {}
    for x in sorted(set(changes)):
        entry = Entry(x.since, x.state, x.call_id or None, x.since)
        by_window.setdefault(window_of(x.since), []).append(entry)
    return [
        AgentStates(agent_id=agent_id, start=start, states=encode(start, xs))
        for start, xs in by_window.items()
    ]


def changes_of(rows) -> dict[str, list[Change]]:
    """Each agent's changes in `rows` (agent_id, start, states), in time order, once each."""
    found: dict[str, set[Change]] = {}
    for agent_id, start, blob in rows:
        mine = found.setdefault(agent_id, set())
        mine.update(x.change for x in decode(start, blob) if x.state != GONE)
    return {agent_id: sorted(xs) for agent_id, xs in found.items()}


def agent_changes(agent_id: str, since: datetime, until: datetime) -> list[Change]:
    """The agent's changes from `since` to `until`, and the last one before `since`."""
    mine = AgentStates.objects.filter(agent_id=agent_id)
    rows = mine.filter(start__gte=window_of(since) - WINDOW, start__lte=until)
    changes = changes_of(rows.values_list(*FIELDS)).get(agent_id, [])
    if not any(x.since < since for x in changes):  # the last stretch before (all its rows)
        older = mine.filter(start__lt=window_of(since) - WINDOW)
        last = older.order_by("-start").values_list("start", flat=True).first()
        earlier = changes_of(older.filter(start=last).values_list(*FIELDS)).get(agent_id, [])
        changes = earlier[-1:] + changes
    before = [x for x in changes if x.since < since][-1:]
    return before + [x for x in changes if since <= x.since <= until]


def known(since: datetime, until: datetime) -> set[tuple[str, datetime]]:
    """(agent id, since) of every change kept from `since` to `until`."""
    rows = AgentStates.objects.filter(start__gte=window_of(since) - WINDOW, start__lt=until)
    found = changes_of(rows.values_list(*FIELDS).iterator())
    return {(a, x.since) for a, xs in found.items() for x in xs if since <= x.since < until}


# ---- The floor --------------------------------------------------------------------------------
def floor(whole_at: datetime, until: datetime, day_start: datetime):
    """Every agent on the floor as the replay's whole state at `whole_at` had it, and the
    agents' changes after that state up to `until` ((moment, agent or None: it left), in
    the order the floor showed them, and how many events it showed at the same moment
    before each): from the last opening (a stretch's or a reload's) at or before `whole_at`
    (none: from `day_start`) and the rows from there."""
    opening = (
        Opening.objects.filter(start__lte=whole_at, start__gte=day_start)
        .order_by("-start", "-id")
        .values_list("start", "agents")
        .first()
    )
    base = unpack_opening(opening[1]) if opening else {}
    since = us(opening[0] if opening else day_start)
    rows = AgentStates.objects.filter(
        start__gte=window_of(at(since)), start__lte=window_of(until)
    ).order_by("start", "id")
    whole, last = us(whole_at), us(until)
    best: dict[str, tuple] = {}  # agent id -> (key, entry) of its newest change at the state
    later, said = [], {}  # (key, agent id, entry) after it; agent id -> [(key, who)]
    for pk, agent_id, start, blob in rows.values_list("id", *FIELDS).iterator(chunk_size=500):
        for n, r in enumerate(raw(start, blob)):
            moment, late, extra = r[3], r[4], r[5]
            if moment > last:  # a row's entries are in the order noted: the rest are later
                break
            if moment < since:  # in the opening
                continue
            key = (moment, late, pk, n)
            if extra and extra.keys() - {"u", "o"}:
                said.setdefault(agent_id, []).append((key, entry(r).who))
            if moment < whole or moment == whole and not late:
                if agent_id not in best or key > best[agent_id][0]:
                    best[agent_id] = (key, r)
            else:
                later.append((key, agent_id, r))
    who = {a: (x.name, x.team, x.pending_status, x.changed_by) for a, x in base.items()}

    def agent(key, agent_id, r) -> c.Agent | None:
        x = entry(r)
        if x.state == GONE:
            return None
        told = max(((k, w) for k, w in said.get(agent_id, ()) if k <= key), default=None)
        return agent_of(agent_id, x, told[1] if told else who.get(agent_id))

    for agent_id, (key, r) in sorted(best.items(), key=lambda kv: kv[1][0]):
        now = agent(key, agent_id, r)
        if now is None:
            base.pop(agent_id, None)
        else:
            base[agent_id] = now
    later.sort(key=lambda x: x[0])
    return base, [
        (at(key[0]), entry(r).order, agent_id, agent(key, agent_id, r))
        for key, agent_id, r in later
    ]


def change_after(when: datetime, stretches: int = 3) -> datetime | None:
    """The moment of the first agent's change after `when` (this stretch or the next few)."""
    first = window_of(when)
    rows = AgentStates.objects.filter(start__gte=first, start__lte=first + stretches * WINDOW)
    found = [
        x.at
        for start, blob in rows.values_list("start", "states").iterator(chunk_size=500)
        for x in decode(start, blob)
        if x.at > when
    ]
    return min(found, default=None)


def change_before(when: datetime) -> datetime | None:
    """The moment of the last agent's change before `when` (this stretch or the last)."""
    rows = AgentStates.objects.filter(
        start__gte=window_of(when) - WINDOW, start__lte=window_of(when)
    )
    found = [
        x.at
        for start, blob in rows.values_list("start", "states").iterator(chunk_size=500)
        for x in decode(start, blob)
        if x.at < when
    ]
    return max(found, default=None)


def last_change() -> datetime | None:
    """The moment of the newest agent's change noted."""
    newest = AgentStates.objects.order_by("-start").values_list("start", flat=True).first()
    if newest is None:
        return None
    rows = AgentStates.objects.filter(start=newest).values_list("states", flat=True)
    return max(x.at for blob in rows for x in decode(newest, blob))
