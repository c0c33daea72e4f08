"""How the record of the agents' states is encoded: a row's entries as one compressed JSON
list, about 10 bytes an entry. Times are whole microseconds since the epoch, so a replayed
time equals the live one exactly.

An entry is `[delta, state, call, shown, extra]`, trailing defaults left out:
- delta: microseconds from the previous entry's `since` (the first: from the row's start);
- call: the agent's call id (null: none), or 0 for the previous entry's (the default);
- shown: when the floor showed it, as microseconds after `since` (0, the default: at
  `since`), or `[k]` for an entry noted after the replay's whole state at `since + k`,
  which it follows (an event held during a reload, or of the same millisecond);
- extra: {"n": name, "t": team, "p": pending state, "b": changed by, where any differs
  from the agent's previous entry; "u": 1 when the service gave no `since`; "o": how many
  events the floor showed at the same moment before this one (the replay applies them in
  that order: the live state's sums are floats, so the order is part of the figures)}.
Rows written before entries had `shown` and `extra` (`[delta, state, call]`) read as
shown at `since`. State "" is an agent that left the floor (a reload without it).
"""

import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dashboard.upstream import contract as c

WINDOW = timedelta(minutes=10)  # a row's stretch: an open row is rewritten, so keep it short
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
US = timedelta(microseconds=1)
GONE = ""  # the state of an agent that left the floor
LEVEL = 9


def us(when: datetime) -> int:
    return (when - EPOCH) // US


def at(value: int) -> datetime:
    return EPOCH + value * US


def window_of(when: datetime) -> datetime:
    return EPOCH + (when - EPOCH) // WINDOW * WINDOW


@dataclass(frozen=True, order=True)
class Change:
    """A change of an agent's state, as the agent's day reads it."""

    since: datetime
    state: str
    call_id: str = ""


@dataclass(frozen=True)
class Entry:
    """A change as noted: `at` is when the floor showed it, or (`late`) the replay's whole
    state it follows; `who` is (name, team, pending, changed by) where noted with them."""

    since: datetime
    state: str
    call_id: str | None
    at: datetime
    late: bool = False
    who: tuple | None = None
    since_known: bool = True
    order: int = 0  # events shown at the same moment before it

    @property
    def change(self) -> Change:
        return Change(self.since, self.state, self.call_id or "")


def who_of(agent: c.Agent) -> tuple:
    return agent.name, agent.team, agent.pending_status, agent.changed_by


def encode(start: datetime, entries: Iterable[Entry]) -> bytes:
    return compress(text_of(rows_of(us(start), None, entries)[0]))


def text_of(rows: list) -> str:
    return json.dumps(rows, separators=(",", ":"))


def compress(text: str) -> bytes:
    return zlib.compress(text.encode(), LEVEL)


def rows_of(last: int, call: str | None, entries: Iterable[Entry]) -> tuple[list, int, object]:
    """The rows of `entries` following an entry since `last` (the row's start: none) with
    call `call`; and the since and call of the last of them."""
    rows = []
    for x in entries:
        since = us(x.since)
        shown = [us(x.at) - since] if x.late else us(x.at) - since
        extra = {}
        if x.who is not None:
            extra = {k: v for k, v in zip("ntpb", x.who, strict=True) if v}
        if not x.since_known:
            extra["u"] = 1
        if x.order:
            extra["o"] = x.order
        row = [since - last, x.state, 0 if x.call_id == call else x.call_id, shown, extra]
        while len(row) > 2 and row[-1] in (0, {}):
            row.pop()
        rows.append(row)
        last, call = since, x.call_id
    return rows, last, call


def raw(start: datetime, blob):
    """Each entry as (since, state, call, shown, late, extra), times in microseconds: what
    a reader of many rows walks before it builds the few entries it keeps."""
    since, call = us(start), None
    for row in json.loads(zlib.decompress(bytes(blob))):
        since += row[0]
        n = len(row)
        if n > 2 and row[2] != 0:
            call = row[2]
        shown = row[3] if n > 3 else 0
        late = isinstance(shown, list)
        yield (
            since,
            row[1],
            call,
            since + (shown[0] if late else shown),
            late,
            row[4] if n > 4 else None,
        )


def entry(r: tuple) -> Entry:
    since, state, call, moment, late, extra = r
    who = None
    if extra and extra.keys() - {"u", "o"}:
        who = (extra.get("n", ""), extra.get("t", ""), extra.get("p"), extra.get("b"))
    known = not (extra and extra.get("u"))
    order = extra.get("o", 0) if extra else 0
    return Entry(at(since), state, call, at(moment), late, who, known, order)


def decode(start: datetime, blob) -> list[Entry]:
    return [entry(r) for r in raw(start, blob)]


def agent_of(agent_id: str, x: Entry, who: tuple | None) -> c.Agent:
    name, team, pending, by = who or (agent_id, "", None, None)
    since = x.since if x.since_known else None
    return c.Agent(agent_id, name, team, x.state, since, x.call_id, pending, by)


def pack_opening(agents: Iterable[c.Agent]) -> bytes:
    rows = [
        [a.agent_id, a.name, a.team, a.status, a.since and us(a.since), a.call_id]
        + ([a.pending_status, a.changed_by] if a.pending_status or a.changed_by else [])
        for a in agents
    ]
    return zlib.compress(json.dumps(rows, separators=(",", ":")).encode(), LEVEL)


def unpack_opening(blob) -> dict[str, c.Agent]:
    out = {}
    for r in json.loads(zlib.decompress(bytes(blob))):
        since = None if r[4] is None else at(r[4])
        out[r[0]] = c.Agent(r[0], r[1], r[2], r[3], since, r[5], *r[6:8])
    return out
