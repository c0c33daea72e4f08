"""The periodic access check of open sockets: one lookup per session and interval.

What no signal sees (an expired session, a row changed in bulk, a change made by another
process on the in-memory layer) is caught by looking the session's role up again every
SOCKET_RECHECK_S. Asked by each socket on its own, that is one lookup (the session, its
user and groups: 1.6 ms of CPU) per socket and interval: 17 a second at 1,000 sockets,
half of a starved web process's samples in the bench's floor of 10,000 agents, where the
sockets share a session (as a person's tabs do).
Here the process looks each session up once an interval, whatever number of sockets it
has, and closes those of its sockets whose role no longer suffices. The sessions due are
looked up together, in one worker thread, at most `STEPS` times an interval.
"""

import asyncio
import logging

from channels.db import database_sync_to_async
from django.conf import settings

log = logging.getLogger("dashboard.accounts.rechecks")
STEPS = 20  # wake-ups per interval: a change is caught within 1 + 1/STEPS intervals


class Rechecks:
    """The guarded sockets of one event loop by session, and the task that checks them."""

    def __init__(self, lookup):
        self.lookup = lookup  # session key -> its role now (sync: run in a worker thread)
        self.sessions: dict[str | None, set] = {}  # session key -> its guarded consumers
        self.due: dict[str | None, float] = {}  # session key -> when it is looked up next
        self.task: asyncio.Task | None = None

    def add(self, session_key: str | None, consumer):
        if session_key not in self.sessions:
            self.sessions[session_key] = set()
            self.due[session_key] = asyncio.get_running_loop().time() + settings.SOCKET_RECHECK_S
        self.sessions[session_key].add(consumer)
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self.run())

    def discard(self, session_key: str | None, consumer):
        members = self.sessions.get(session_key)
        if members is not None:
            members.discard(consumer)
            if not members:
                del self.sessions[session_key], self.due[session_key]

    async def run(self):
        """While any socket is guarded: look up the sessions that are due."""
        loop = asyncio.get_running_loop()
        while self.sessions:
            await asyncio.sleep(settings.SOCKET_RECHECK_S / STEPS)
            now = loop.time()
            due = [key for key, at in self.due.items() if at <= now]
            if due:
                for key in due:
                    self.due[key] = now + settings.SOCKET_RECHECK_S
                await self.check(due)

    async def check(self, keys: list):
        try:
            roles = await database_sync_to_async(self.look_up, thread_sensitive=False)(keys)
        except Exception:  # the database away: let these browsers reconnect and sign in afresh
            log.exception(
                "checking the access of %d sessions failed; closing their sockets", len(keys)
            )
            roles = None
        for key in keys:
            for consumer in list(self.sessions.get(key, ())):
                try:
                    kept = await consumer.recheck(roles[key] if roles else None, roles is None)
                except Exception:  # one socket's failure is not the others'
                    log.exception("closing a socket that lost its access failed")
                    kept = False
                if not kept:  # closing: its disconnect follows; no second check meanwhile
                    self.discard(key, consumer)

    def look_up(self, keys: list) -> dict:
        return {key: self.lookup(key) for key in keys}


_rechecks: dict = {}  # event loop -> its Rechecks (tests run one loop each)


def of_loop(lookup) -> Rechecks:
    """This event loop's checks (one per process under Daphne)."""
    loop = asyncio.get_running_loop()
    rechecks = _rechecks.get(loop)
    if rechecks is None:
        for old in [k for k in _rechecks if k.is_closed()]:
            del _rechecks[old]
        rechecks = _rechecks[loop] = Rechecks(lookup)
    return rechecks
