"""The journal: calls as the service's events tell them, kept for the call's facts and the
agent's page, and, when it carries the state journal (the floor replay does not record),
the agents' states into the one record (dashboard/states/).

A second sink of the bridge beside the live feed (the composition root hands both what
the bridge learns). On the event loop it only notes what changed; every FLUSH_S the notes
are written in a thread, in one transaction, so the database never slows the live path.
A failed write is logged once and tried again on the next pass (a few times, then
dropped), and the live view goes on whatever the database does.
"""

import asyncio
import logging

from channels.db import database_sync_to_async
from django.db import transaction

from dashboard.shared.aio import pause
from dashboard.states import journal as states
from dashboard.states.journal import StateJournal
from dashboard.upstream import contract as c

from .models import CallSeen

log = logging.getLogger("dashboard.drilldown.journal")
FLUSH_S = 2.0
MAX_TRIES = 5  # passes a batch may fail before it is dropped


class Journal:
    def __init__(self, every: float = FLUSH_S, states: StateJournal | None = None):
        self.every = every
        self.states = states  # the agents' states, noted and written here (or elsewhere)
        self.calls: dict[str, dict] = {}  # call id -> the facts learned since the last write
        self.tries = 0
        self.failing = False

    # ---- The bridge's sink (on the event loop: notes only) ------------------------------------
    def snapshot(self, agents: list[c.Agent], calls: list[c.Call]):
        if self.states:
            self.states.snapshot(agents, calls)
        for call in calls:
            self._call(call)

    def event(self, event: c.Event):
        body = event.body
        if self.states:
            self.states.event(event)
        if isinstance(body, c.CallStarted):
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
        calls = self.calls
        work = self.states.take() if self.states else ([], [])
        if not (calls or work[0] or work[1]):
            return
        self.calls = {}
        try:
            written = await database_sync_to_async(write)(work, calls)
        except Exception as exc:
            self.tries += 1
            if not self.failing:
                log.warning("journal not written, trying again: %s: %s", type(exc).__name__, exc)
                self.failing = True
            again = self.tries < MAX_TRIES
            if self.states:
                self.states.failed(work, again)
            if again:  # with what arrived meanwhile
                for call_id, facts in calls.items():
                    self.calls[call_id] = {**facts, **self.calls.get(call_id, {})}
            else:
                changes = sum(len(x) for _, _, x in work[0])
                log.warning("journal dropped %d state changes and %d calls", changes, len(calls))
                self.tries = 0
            return
        if self.states:
            self.states.written(written)
        if self.failing:
            log.info("journal written again")
        self.failing, self.tries = False, 0


@transaction.atomic
def write(states_work: tuple, calls: dict[str, dict]):
    """Writes the agents' states (the state journal's work) and the calls; what the state
    journal wrote."""
    written = states.write(states_work)
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
    return written
