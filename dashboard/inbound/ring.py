"""The ring groups' members as a queue's page lists them, kept in the cache apart from the
board: each queue's agent ids under one entry, each member's name and status under one
entry per agent.

The board is redrawn up to twice a second, woken by nearly every event on a large floor;
at 10,000 agents its ring groups list some 13,000 members, which it would otherwise build
and write with every redraw for pages that are mostly closed. Here a redraw writes only the
members whose name or status changed since the last (every member after a reload of the
floor, a change of the ring groups, or a failed write), and a queue's page reads its own.
"""

import hashlib

from django.core.cache import cache

from dashboard.shared.aio import cache_work
from dashboard.upstream import contract as c

MEMBER = "inbound:member:"  # + agent id: (name, status), while the agent is on the floor


def ring_key(queue_id: str) -> str:
    """A queue's agent ids' entry (a hash of its id: any id the service chose makes a key)."""
    return "inbound:ring:" + hashlib.sha256(queue_id.encode()).hexdigest()[:24]


def members(queue_id: str) -> list[dict]:
    """The queue's ring group's agents on the floor, in its order, each with its status."""
    ids = cache.get(ring_key(queue_id)) or ()
    got = cache.get_many([MEMBER + agent_id for agent_id in ids])
    return [
        {"id": agent_id, "name": shown[0], "status": shown[1]}
        for agent_id in ids
        if (shown := got.get(MEMBER + agent_id))
    ]


class Rings:
    """The board's side: what it last wrote, to write only what changed, and each ring
    group's count of agents available as written, kept as they change."""

    def __init__(self):
        self.rings: dict[str, tuple[str, ...]] = {}  # queue id -> its agent ids, as written
        self.members: dict[str, list[str]] = {}  # agent id -> the queues whose ring lists it
        self.written: dict[str, tuple[str, str]] = {}  # agent id -> (name, status), as written
        self.available: dict[str, int] = {}  # queue id -> its members available, as written
        self.moved: set[str] = set()  # members whose entry may be behind
        self.whole = True  # write every entry again

    def changed(self, agent: c.Agent) -> bool:
        """An agent's change: True when it is a member whose entry it puts behind."""
        if agent.agent_id not in self.members:
            return False
        if self.written.get(agent.agent_id) == (agent.name, agent.status):
            return False
        self.moved.add(agent.agent_id)
        return True

    async def write(self, queues: list, agents: dict):
        """Write the entries that are behind: the ring groups of `queues`, their members
        as the live floor's `agents` stand."""
        rings = {q.id: tuple(q.agent_ids) for q in queues}
        whole = self.whole or rings != self.rings
        moved, self.moved, self.whole = self.moved, set(), False
        if whole:
            self.members = {}
            for queue_id, ids in rings.items():
                for agent_id in ids:  # as often as the ring lists it, as it is counted
                    self.members.setdefault(agent_id, []).append(queue_id)
            moved = self.members.keys() | self.written.keys()
        keep = {ring_key(q): ids for q, ids in rings.items()} if whole else {}
        drop = [ring_key(q) for q in self.rings.keys() - rings.keys()]
        shown = {}
        for agent_id in moved:
            agent = agents.get(agent_id) if agent_id in self.members else None
            now = (agent.name, agent.status) if agent else None
            if whole or now != self.written.get(agent_id):
                shown[agent_id] = now
        keep |= {MEMBER + a: now for a, now in shown.items() if now}
        drop += [MEMBER + a for a, now in shown.items() if not now]
        try:
            if keep or drop:
                await cache_work(store, keep, drop)
        except Exception:
            self.whole = True  # what the cache holds is unknown: all of it at the next redraw
            raise
        self.rings = rings
        if whole:
            self.available = dict.fromkeys(rings, 0)
        for agent_id, now in shown.items():
            before = None if whole else self.written.get(agent_id)
            if now:
                self.written[agent_id] = now
            else:
                self.written.pop(agent_id, None)
            more = _available(now) - _available(before)
            for queue_id in self.members.get(agent_id, ()) if more else ():
                self.available[queue_id] += more


def _available(shown: tuple[str, str] | None) -> int:
    return 1 if shown and shown[1] == "available" else 0


def store(keep: dict, drop: list[str]):
    cache.set_many(keep, timeout=None)
    cache.delete_many(drop)
