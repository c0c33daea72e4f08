"""The recorder's compact encoding: events as short JSON lists, the state as one document,
each zlib-compressed. Times are whole microseconds since the epoch, so a replayed time
equals the live one exactly (floats would not).

The agents' states are not here: they are the one record the agent's day reads too
(dashboard/states/), and a replay takes them from there. A chunk's events are calls,
queues and monitors, seq and time as differences from the previous event's. Chunks
recorded before that held the agents too (by id, or by their place in a day's roster,
`models.Roster`) and read as they were written.

A state keeps what the live view and its KPIs are computed from: calls (and who monitors
them), queues, today's totals and 15-minute slots, last week's slots and where the
figures came from. It leaves out the ids of calls counted today (`seen_started`,
`seen_ended`: up to a million ids by evening), which only the service's call list is
checked against, never a replay.
"""

import json
import zlib
from dataclasses import astuple, replace
from datetime import UTC, date, datetime, timedelta

from dashboard.live.state import Counts, Day, LiveState, Origin, Queue
from dashboard.upstream import contract as c

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
US = timedelta(microseconds=1)
LEVEL = 6  # zlib: 1 is twice as fast and a third larger; 6 keeps a day's storage down


def us(when: datetime | None) -> int | None:
    return None if when is None else (when - EPOCH) // US


def at(value: int | None) -> datetime | None:
    return None if value is None else EPOCH + value * US


def call_row(x: c.Call) -> list:
    return [
        *(x.call_id, x.agent_id, x.campaign_id, x.direction, x.state, int(x.ai_handled)),
        *(us(x.started_at), us(x.ended_at), x.outcome, x.duration_s, x.recording_id),
    ]


def call_of(r: list) -> c.Call:
    return c.Call(*r[:5], bool(r[5]), at(r[6]), at(r[7]), *r[8:])


# ---- Events ------------------------------------------------------------------------------------
def pack_events(events: list[c.Event]) -> bytes:
    """A chunk's events: seq and time as differences from the previous event's."""
    rows, seq, emitted = [], 0, 0
    for event in events:
        row = event_row(event)
        row[0], row[1], seq, emitted = row[0] - seq, row[1] - emitted, row[0], row[1]
        rows.append(row)
    return pack({"delta": rows})


def unpack_events(blob) -> list[list]:
    """A chunk's events with their seq and time whole again (either encoding)."""
    value = unpack(blob)
    if isinstance(value, list):
        return value
    rows, seq, emitted = value["delta"], 0, 0
    for row in rows:
        seq, emitted = row[0] + seq, row[1] + emitted
        row[0], row[1] = seq, emitted
    return rows


def event_row(event: c.Event) -> list:
    b = event.body
    head = [event.seq, us(event.emitted_at)]
    if isinstance(b, c.AgentChanged):  # the state journal keeps them (older chunks held them)
        a = b.agent
        return [*head, "a", a.agent_id, a.name, a.team, a.status, us(a.since), a.call_id]
    if isinstance(b, c.CallStarted):
        return [*head, "s", *call_row(b.call)]
    if isinstance(b, c.CallUpdated):
        return [*head, "u", b.call_id, b.state, b.agent_id]
    if isinstance(b, c.CallEnded):
        return [*head, "e", b.call_id, us(b.ended_at), b.outcome, b.duration_s]
    if isinstance(b, c.CallMonitor):
        return [*head, "m", *monitor_row(b)]
    return [
        *head,
        "q",
        b.queue_id,
        b.name,
        b.waiting,
        b.longest_wait_s,
        b.agents_available,
        b.offered,
        b.answered,
        b.abandoned,
    ]


def monitor_row(m: c.CallMonitor) -> list:
    return [m.call_id, m.session_id, m.supervisor_id, m.supervisor_name, m.mode, m.state, us(m.at)]


def monitor_of(r: list) -> c.CallMonitor:
    return c.CallMonitor(*r[:6], at(r[6]))


def event_of(row: list, entries: list | None = None) -> c.Event:
    """The event of a row; `entries`: the roster of the state the chunk follows, in a
    recording made before the agents' states were their own record."""
    seq, emitted, kind, *f = row
    if kind == "A":
        agent_id, name, team = entries[f[0]]
        since = None if f[2] is None else at(emitted + f[2])
        body = c.AgentChanged(c.Agent(agent_id, name, team, f[1], since, f[3]))
        name = "agent.status"
    elif kind == "a":
        body = c.AgentChanged(c.Agent(f[0], f[1], f[2], f[3], at(f[4]), f[5]))
        name = "agent.status"
    elif kind == "s":
        body = c.CallStarted(call_of(f))
        name = "call.started"
    elif kind == "u":
        body, name = c.CallUpdated(*f), "call.updated"
    elif kind == "e":
        body, name = c.CallEnded(f[0], at(f[1]), f[2], f[3]), "call.ended"
    elif kind == "m":
        body, name = monitor_of(f), "call.monitor"
    else:
        body, name = c.QueueStats(*f), "queue.stats"
    return c.Event(name, "", seq, at(emitted), body)


def pack(value) -> bytes:
    return zlib.compress(json.dumps(value, separators=(",", ":")).encode(), LEVEL)


def unpack(blob) -> object:
    return json.loads(zlib.decompress(bytes(blob)))


# ---- The state ---------------------------------------------------------------------------------
def copy_state(state: LiveState) -> LiveState:
    """A copy the writer thread can encode while the live state goes on changing: agents,
    calls and queues are replaced, never changed in place, so their dicts are copied
    shallowly; the counters, which are added to in place, are copied."""
    out = LiveState(state.tz, state.service_level_s)
    out.agents, out.calls, out.queues = dict(state.agents), dict(state.calls), dict(state.queues)
    out.day = replace(state.day, totals=replace(state.day.totals))
    out.slots = {k: replace(v) for k, v in state.slots.items()}
    out.base = {k: replace(v) for k, v in state.base.items()}
    out.origin = replace(state.origin)
    out.snapshots, out.last_event_at = state.snapshots, state.last_event_at
    out.last_week = dict(state.last_week)
    # a call's sessions are changed in place: each call's dict is copied
    out.monitors = {k: dict(v) for k, v in state.monitors.items()}
    out.monitor_started = dict(state.monitor_started)
    return out


def _counts(by_slot: dict) -> list:
    return [[us(k), list(astuple(v))] for k, v in by_slot.items()]


def _counts_of(rows: list) -> dict:
    return {at(k): Counts(*v) for k, v in rows}


def state_doc(s: LiveState) -> dict:
    """The state as a document, but for its agents (the state journal's)."""
    o = s.origin
    return {
        "calls": [call_row(x) for x in s.calls.values()],
        "queues": [
            [
                *(q.id, q.name, q.waiting, q.longest_wait_s, q.agents_available, us(q.at)),
                *(q.offered, q.answered, q.abandoned),  # the day's counts; older rows lack them
            ]
            for q in s.queues.values()
        ],
        "day": [
            s.day.date and s.day.date.isoformat(),
            us(s.day.start),
            us(s.day.end),
            list(astuple(s.day.totals)),
        ],
        "slots": _counts(s.slots),
        "base": _counts(s.base),
        "last_week": _counts(s.last_week),
        "origin": [
            us(o.live_since),
            o.restored_slots,
            o.filled_calls,
            o.service_listed,
            us(o.service_partial_before),
        ],
        "snapshots": s.snapshots,
        "last_event_at": us(s.last_event_at),
        "monitors": [
            [*monitor_row(m), us(s.monitor_started.get(m.session_id))]
            for sessions in s.monitors.values()
            for m in sessions.values()
        ],
    }


def state_of(doc: dict, tz, service_level_s: int, entries: list | None = None) -> LiveState:
    """The state of a document; `entries`: the roster its agents are placed in, if any (a
    document without agents has none: the replay adds them from the state journal's)."""
    s = LiveState(tz, service_level_s)
    if entries is None:
        s.agents = {r[0]: c.Agent(*r[:4], at(r[4]), r[5]) for r in doc.get("agents", ())}
    else:
        s.agents = {
            entries[r[0]][0]: c.Agent(*entries[r[0]], r[1], at(r[2]), r[3]) for r in doc["agents"]
        }
    s.calls = {r[0]: call_of(r) for r in doc["calls"]}
    s.queues = {r[0]: Queue(*r[:5], at(r[5]), *r[6:9]) for r in doc["queues"]}
    day, start, end, totals = doc["day"]
    s.day = Day(day and date.fromisoformat(day), at(start), at(end), Counts(*totals))
    s.slots, s.base = _counts_of(doc["slots"]), _counts_of(doc["base"])
    s.last_week = _counts_of(doc["last_week"])
    live_since, restored, filled, listed, partial = doc["origin"]
    s.origin = Origin(at(live_since), restored, filled, listed, at(partial))
    s.snapshots, s.last_event_at = doc["snapshots"], at(doc["last_event_at"])
    for r in doc.get("monitors", ()):  # recorded before monitors were: none
        m = monitor_of(r)
        s.monitors.setdefault(m.call_id, {})[m.session_id] = m
        s.monitor_started[m.session_id] = at(r[7]) or m.at
    return s
