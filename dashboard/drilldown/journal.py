"""The journal: agents' states and calls as the service's events tell them, kept for the
agent's timeline and the call's facts.

A second sink of the bridge beside the live feed (the composition root hands both what
the bridge learns). On the event loop it only notes what changed; every FLUSH_S the notes
are written in a thread, in one transaction, so the database never slows the live path.
States go into each agent's row of the current stretch (states.py), which is rewritten
while the stretch is open; a stretch is forgotten once written and past. A failed write
is logged once and tried again on the next pass (a few times, then dropped), and the live
view goes on whatever the database does.
"""

import asyncio
import logging
from datetime import UTC, datetime

from channels.db import database_sync_to_async
from django.db import connection, transaction

from dashboard.shared.aio import pause
from dashboard.upstream import contract as c

from . import states
from .models import AgentStates, CallSeen

log = logging.getLogger("dashboard.drilldown.journal")
FLUSH_S = 2.0
MAX_TRIES = 5  # passes a batch may fail before it is dropped


class Journal:
    def __init__(self, every: float = FLUSH_S):
        self.every = every
        self.stretches: dict[tuple, Stretch] = {}  # (agent id, window) -> its row
        self.dirty: set[tuple] = set()  # stretches changed since they were last written
        self.calls: dict[str, dict] = {}  # call id -> the facts learned since the last write
        self.last: dict[str, tuple] = {}  # agent id -> (state, since, call id) last noted
        self.tries = 0
        self.failing = False

    # ---- The bridge's sink (on the event loop: notes only) ------------------------------------
    def snapshot(self, agents: list[c.Agent], calls: list[c.Call]):
        now = datetime.now(UTC)
        for agent in agents:
            self._agent(agent, now)
        for call in calls:
            self._call(call)

    def event(self, event: c.Event):
        body = event.body
        if isinstance(body, c.AgentChanged):
            self._agent(body.agent, event.emitted_at)
        elif isinstance(body, c.CallStarted):
            self._call(body.call)
        elif isinstance(body, c.CallUpdated) and body.agent_id:
            self._note(body.call_id, agent_id=body.agent_id)
        elif isinstance(body, c.CallEnded):
            self._note(
                body.call_id,
                ended_at=body.ended_at or event.emitted_at,
                outcome=body.outcome[:60],
                duration_s=body.duration_s,
            )

    def status(self, state: str, reason: str = ""):
        pass  # the journal keeps facts, not the connection's state

    def _agent(self, agent: c.Agent, at: datetime):
        seen = (agent.status, agent.since or at, agent.call_id or "")
        if self.last.get(agent.agent_id) == seen:
            return  # the same state again (a reload after a reconnect)
        self.last[agent.agent_id] = seen
        change = states.Change(seen[1], seen[0], seen[2])
        key = (agent.agent_id, states.window_of(change.since))
        self.stretches.setdefault(key, Stretch()).new.append(change)
        self.dirty.add(key)

    def _call(self, call: c.Call):
        self._note(
            call.call_id,
            agent_id=call.agent_id or "",
            campaign_id=call.campaign_id or "",
            direction=call.direction[:20],
            ai_handled=call.ai_handled,
            started_at=call.started_at,
        )

    def _note(self, call_id: str, **facts):
        self.calls.setdefault(call_id, {}).update(facts)

    # ---- Writing ----------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event):
        while not stop.is_set():
            await pause(stop, self.every)
            await self.flush()
        await self.flush()  # what the last pass left

    async def flush(self):
        dirty, calls = self.dirty, self.calls
        if not (dirty or calls):
            return
        self.dirty, self.calls = set(), {}
        # What the thread writes: each stretch's row as written and its changes since (copied
        # here: more may arrive while it writes).
        rows = [(key, self.stretches[key], list(self.stretches[key].new)) for key in dirty]
        try:
            written = await database_sync_to_async(write)(rows, calls)
        except Exception as exc:
            self.tries += 1
            if not self.failing:
                log.warning("journal not written, trying again: %s: %s", type(exc).__name__, exc)
                self.failing = True
            if self.tries < MAX_TRIES:  # with what arrived meanwhile
                self.dirty |= dirty
                for call_id, facts in calls.items():
                    self.calls[call_id] = {**facts, **self.calls.get(call_id, {})}
            else:
                changes = sum(len(x) for _, _, x in rows)
                log.warning("journal dropped %d state changes and %d calls", changes, len(calls))
                self.tries = 0
                self._forget()  # what is past goes; an open stretch is written with its next
            return
        for stretch, pk, blob, taken in written:  # what arrived meanwhile stays new
            stretch.pk, stretch.blob = pk, blob
            del stretch.new[:taken]
        if self.failing:
            log.info("journal written again")
        self.failing, self.tries = False, 0
        self._forget()

    def _forget(self):
        """Stretches written and two windows before the newest: a late change starts a row
        of its own."""
        if not self.stretches:
            return
        past = max(k[1] for k in self.stretches) - 2 * states.WINDOW
        for key in [k for k in self.stretches if k[1] < past and k not in self.dirty]:
            del self.stretches[key]


class Stretch:
    """An agent's open row: its id and its list as last written (compressed: the journal
    holds a few hundred bytes an agent, not every change), and the changes since."""

    def __init__(self):
        self.pk: int | None = None
        self.blob: bytes | None = None
        self.new: list[states.Change] = []


@transaction.atomic
def write(stretches: list[tuple], calls: dict[str, dict]):
    """Writes the stretches' rows and the calls; each stretch's row id, list as written and
    how many of its new changes that took."""
    inserts, updates, written = [], [], []
    for (agent_id, start), stretch, fresh in stretches:
        kept = states.decode(start, stretch.blob) if stretch.blob else []
        blob = states.encode(start, sorted({*kept, *fresh}))
        if stretch.pk is None:
            inserts.append((stretch, AgentStates(agent_id=agent_id, start=start, states=blob)))
        else:
            updates.append((blob, stretch.pk))
        written.append((stretch, stretch.pk, blob, len(fresh)))
    AgentStates.objects.bulk_create([row for _, row in inserts])
    ids = {id(stretch): row.pk for stretch, row in inserts}
    if updates:
        table = AgentStates._meta.db_table
        with connection.cursor() as cursor:
            cursor.executemany(f"UPDATE {table} SET states = %s WHERE id = %s", updates)
    known = {x.call_id: x for x in CallSeen.objects.filter(call_id__in=list(calls))}
    new, changed, fields = [], [], set()
    for call_id, facts in calls.items():
        row = known.get(call_id)
        if row is None:
            new.append(CallSeen(call_id=call_id, **facts))
            continue
        for name, value in facts.items():
            setattr(row, name, value)
        changed.append(row)
        fields |= facts.keys()
    CallSeen.objects.bulk_create(new)
    if changed:
        CallSeen.objects.bulk_update(changed, sorted(fields))
    return [(s, pk or ids[id(s)], blob, taken) for s, pk, blob, taken in written]
