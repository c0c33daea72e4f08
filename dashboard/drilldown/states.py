"""Agents' states as the drill-down keeps them: per agent, a row a stretch of WINDOW with
its changes in one compressed list, about 10 bytes a change (a row per state change and
its two indexes took 200). Written by the journal and the history's backfill, read by the
agent's day, the backfill's checks and the purge.

A row's list is `[[delta, state], [delta, state, call_id], ...]`: microseconds since the
previous change (the first since the row's start), and the call id only where it is not
the previous change's."""

import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .models import AgentStates

WINDOW = timedelta(minutes=10)  # a row's stretch: an open row is rewritten, so keep it short
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
US = timedelta(microseconds=1)


@dataclass(frozen=True, order=True)
class Change:
    since: datetime
    state: str
    call_id: str = ""


def window_of(when: datetime) -> datetime:
    return EPOCH + (when - EPOCH) // WINDOW * WINDOW


def encode(start: datetime, changes: Iterable[Change]) -> bytes:
    rows, last, call = [], (start - EPOCH) // US, ""
    for x in changes:
        at = (x.since - EPOCH) // US
        rows.append([at - last, x.state] if x.call_id == call else [at - last, x.state, x.call_id])
        last, call = at, x.call_id
    return zlib.compress(json.dumps(rows, separators=(",", ":")).encode(), 9)


def decode(start: datetime, blob) -> list[Change]:
    out, at, call = [], (start - EPOCH) // US, ""
    for row in json.loads(zlib.decompress(bytes(blob))):
        at += row[0]
        call = row[2] if len(row) > 2 else call
        out.append(Change(EPOCH + at * US, row[1], call))
    return out


def rows_for(agent_id: str, changes: Iterable[Change]) -> list[AgentStates]:
    """New rows holding `changes` of one agent, a row a window."""
    by_window: dict[datetime, list[Change]] = {}
    for x in sorted(set(changes)):
        by_window.setdefault(window_of(x.since), []).append(x)
    return [
        AgentStates(agent_id=agent_id, start=start, states=encode(start, xs))
        for start, xs in by_window.items()
    ]


def changes_of(rows) -> dict[str, list[Change]]:
    """Each agent's changes in `rows` (agent_id, start, states), in time order, once each."""
    found: dict[str, set[Change]] = {}
    for agent_id, start, blob in rows:
        found.setdefault(agent_id, set()).update(decode(start, blob))
    return {agent_id: sorted(xs) for agent_id, xs in found.items()}


def agent_changes(agent_id: str, since: datetime, until: datetime) -> list[Change]:
    """The agent's changes from `since` to `until`, and the last one before `since`."""
    mine = AgentStates.objects.filter(agent_id=agent_id)
    fields = ("agent_id", "start", "states")
    rows = mine.filter(start__gte=window_of(since) - WINDOW, start__lte=until)
    changes = changes_of(rows.values_list(*fields)).get(agent_id, [])
    if not any(x.since < since for x in changes):  # the last stretch before (all its rows)
        older = mine.filter(start__lt=window_of(since) - WINDOW)
        last = older.order_by("-start").values_list("start", flat=True).first()
        earlier = changes_of(older.filter(start=last).values_list(*fields)).get(agent_id, [])
        changes = earlier[-1:] + changes
    before = [x for x in changes if x.since < since][-1:]
    return before + [x for x in changes if since <= x.since <= until]


def known(since: datetime, until: datetime) -> set[tuple[str, datetime]]:
    """(agent id, since) of every change kept from `since` to `until`."""
    rows = AgentStates.objects.filter(start__gte=window_of(since) - WINDOW, start__lt=until)
    found = changes_of(rows.values_list("agent_id", "start", "states").iterator())
    return {(a, x.since) for a, xs in found.items() for x in xs if since <= x.since < until}
