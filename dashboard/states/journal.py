"""The state journal: every change of an agent the bridge hands on, noted once into the one
record the agent's day and the floor replay read.

It rides with a writer of the bridge that passes it what the bridge learns and writes its
rows in the same transaction as its own (the floor replay's recorder when the replay
records, which also tells it when it took a whole state; the drill-down's journal
otherwise). On the event loop it only notes; `take` hands over what to write, `write` (in
the writer's thread) stores it, and `written` or `failed` says how that went. An agent's
entries of a stretch go into its row of that stretch, rewritten while the stretch is
open; the first entry of a new stretch first notes the stretch's opening (every agent on
the floor as it began, in the live state's order), and so does a reload that changes
that order (the first, or one with agents added or gone).
"""

from datetime import UTC, datetime

from django.db import connection

from dashboard.upstream import contract as c

from . import codec
from .codec import GONE, Entry, window_of
from .models import AgentStates, Opening


class StateJournal:
    def __init__(self):
        self.stretches: dict[tuple, Stretch] = {}  # (agent id, window) -> its row
        self.dirty: set[tuple] = set()  # stretches changed since they were last written
        self.last: dict[str, c.Agent] = {}  # each agent on the floor as last noted
        self.window: datetime | None = None  # the stretch of the newest entry
        self.openings: list[tuple] = []  # (start, agents) noted, to write
        self.whole_at: datetime | None = None  # the replay's last whole state
        self.shown: tuple = (None, 0)  # the moment of the last event, and events shown then

    # ---- Noting (on the event loop) -----------------------------------------------------------
    def snapshot(self, agents: list[c.Agent], calls=(), at: datetime | None = None):
        """A reload of the service's truth, shown from `at` (now): agents not in it left.
        The live state takes the service's order: where that is not the order the floor
        had, an opening keeps it."""
        at = at or datetime.now(UTC)
        fresh, order = {a.agent_id: a for a in agents}, list(self.last)
        for agent in agents:
            self._note(agent, at)
        for agent in [a for a_id, a in self.last.items() if a_id not in fresh]:
            self._note(agent, at, gone=True)
        if list(fresh) != order:  # the live state's order changes with it
            self.openings.append((at, list(agents)))
        self.last = fresh

    def event(self, event: c.Event):
        """Every event of the floor: an agent's change is noted; the others count towards
        the order of what the floor showed at the same moment."""
        late = self.whole_at is not None and event.emitted_at <= self.whole_at
        moment = self.whole_at if late else event.emitted_at
        agent = isinstance(event.body, c.AgentChanged)
        if not agent or self._note(event.body.agent, moment, late):  # a repeat shows nothing
            self._count(moment)

    def whole_state(self, at: datetime):
        """The replay took the whole floor at `at`: what is noted after it and shown no
        later follows that state."""
        self.whole_at, self.shown = at, (at, 0)

    def _count(self, moment: datetime):
        at, n = self.shown
        self.shown = (moment, n + 1 if at == moment else 1)

    def _order(self, moment: datetime) -> int:
        at, n = self.shown
        return n if at == moment else 0

    def _note(self, agent: c.Agent, moment: datetime, late=False, gone=False) -> bool:
        before = self.last.get(agent.agent_id)
        if before == agent and not gone:
            return False  # the same again (a reload after a reconnect)
        self._open(window_of(moment))
        said = before is not None and codec.who_of(before) == codec.who_of(agent)
        x = Entry(
            agent.since or moment,
            GONE if gone else agent.status,
            None if gone else agent.call_id,
            moment,
            late,
            None if gone or said else codec.who_of(agent),
            agent.since is not None,
            self._order(moment),
        )
        if gone:
            del self.last[agent.agent_id]
        else:
            self.last[agent.agent_id] = agent
        key = (agent.agent_id, window_of(moment))
        self.stretches.setdefault(key, Stretch()).new.append(x)
        self.dirty.add(key)
        return True

    def _open(self, window: datetime):
        if self.window is not None and window > self.window and self.last:
            self.openings.append((window, list(self.last.values())))
        self.window = max(window, self.window or window)

    # ---- Writing ------------------------------------------------------------------------------
    def take(self) -> tuple:
        """What to write now (copied: more may be noted while it is written)."""
        dirty, openings = self.dirty, self.openings
        self.dirty, self.openings = set(), []
        rows = [(key, self.stretches[key], list(self.stretches[key].new)) for key in dirty]
        return rows, openings

    def written(self, result: list):
        for stretch, pk, text, tail, taken in result:  # what arrived meanwhile stays new
            stretch.pk, stretch.text, stretch.tail = pk, text, tail
            del stretch.new[:taken]
        self._forget()

    def failed(self, work: tuple, again: bool = True):
        """Not written: tried again with the next (`again`), or left to each stretch's
        next write (an open stretch's entries wait in it; a past one's are dropped)."""
        rows, openings = work
        if again:
            self.dirty |= {key for key, _, _ in rows}
            self.openings[:0] = openings
        else:
            self._forget()

    def pending(self) -> bool:
        return bool(self.dirty or self.openings)

    def _forget(self):
        """Stretches written and two windows before the newest: a late change starts a row
        of its own."""
        if not self.stretches:
            return
        past = max(k[1] for k in self.stretches) - 2 * codec.WINDOW
        for key in [k for k in self.stretches if k[1] < past and k not in self.dirty]:
            del self.stretches[key]


class Stretch:
    """An agent's open row: its id, its list as last written (as JSON text, so a write
    appends to it without decoding it: a couple of KB an agent at most) with the since and
    call of its last entry, and the entries since."""

    def __init__(self):
        self.pk: int | None = None
        self.text: str | None = None
        self.tail: tuple = (None, None)
        self.new: list[Entry] = []


def write(work: tuple) -> list:
    """Writes the stretches' rows and the openings (in the caller's transaction); each
    stretch's row id, list as written (text, and its last entry's since and call) and how
    many of its new entries that took."""
    rows, openings = work
    inserts, updates, written = [], [], []
    for (agent_id, start), stretch, fresh in rows:
        if stretch.text in (None, "[]"):
            more, *tail = codec.rows_of(codec.us(start), None, fresh)
            text = codec.text_of(more)
        else:
            more, *tail = codec.rows_of(*stretch.tail, fresh)
            text = f"{stretch.text[:-1]},{codec.text_of(more)[1:]}" if more else stretch.text
        blob = codec.compress(text)
        if stretch.pk is None:
            inserts.append((stretch, AgentStates(agent_id=agent_id, start=start, states=blob)))
        else:
            updates.append((blob, stretch.pk))
        written.append((stretch, stretch.pk, text, tuple(tail), len(fresh)))
    AgentStates.objects.bulk_create([row for _, row in inserts])
    ids = {id(stretch): row.pk for stretch, row in inserts}
    if updates:
        table = AgentStates._meta.db_table
        with connection.cursor() as cursor:
            cursor.executemany(f"UPDATE {table} SET states = %s WHERE id = %s", updates)
    Opening.objects.bulk_create(
        [Opening(start=start, agents=codec.pack_opening(agents)) for start, agents in openings]
    )
    return [(s, pk or ids[id(s)], text, tail, n) for s, pk, text, tail, n in written]
