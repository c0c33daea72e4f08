"""Each push, once, to everyone who follows the floor.

A push is numbered and carries the previous number; the whole view is written to the cache
first (its agent tiles by team, only the teams that changed: snapshot.py), so a socket that
sees a jump (a dropped push) resends its browser the whole view instead of leaving it
wrong. Then one message goes to the group `live` (the live view, each team set's and each
wallboard's audience: audiences.py, framed per audience by fanout.py), the changed tiles
to the subscribers (the agent pages), and the header's status to the pages that follow
only it.
"""

import time

from channels.layers import get_channel_layer
from django.core.cache import cache

from dashboard.accounts import scope
from dashboard.shared import metrics
from dashboard.shared.aio import cache_work, turn
from dashboard.shared.cache_keys import (
    AGENT_TEAMS_KEY,
    NAMES_KEY,
    STATUS_KEY,
    TEAM_SETS_KEY,
    TEAMS_KEY,
)
from dashboard.shared.groups import LIVE_GROUP, STATUS_GROUP

from . import snapshot
from .audiences import Shows
from .leader import still_leading
from .state import Changes
from .subscribers import Subscriber
from .view import FloorView

CALLS_KEY = "live:calls"  # live call id -> (its agent, the agent's team): live_calls()
TEAM_SETS_EVERY_S = 1.0  # the team sets pages show (accounts/scope.py) are read this often


class Publisher:
    def __init__(
        self, view: FloorView, *, heartbeat: float, subscribers: tuple[Subscriber, ...] = ()
    ):
        self.view = view
        self.heartbeat = heartbeat
        self.subscribers = subscribers  # they hear each push's changed tiles (the agent pages)
        self.layer = get_channel_layer()
        self.version = 0
        self._sets_at = -TEAM_SETS_EVERY_S  # when the team sets in use were last read
        self._named = 0  # how many agents the cached names and teams cover
        self._status_sent: tuple = (None, 0.0)  # (status, when) last sent to STATUS_GROUP

    async def publish(self, changes: Changes):
        if not still_leading():
            return  # fenced: another bridge may lead by now; this one is being stopped
        view, state = self.view, self.view.inbox.state
        if time.monotonic() - self._sets_at >= TEAM_SETS_EVERY_S:
            self._sets_at = time.monotonic()
            sets = await cache_work(cache.get, TEAM_SETS_KEY)
            view.team_sets = scope.in_use(sets)
        rows = await view.render_rows() if changes.full else None  # the loop free between
        rendering, parts = view.rendering(changes, rows), None
        while parts is None:  # a slice at a time; the last one's are the parts
            began = time.thread_time()
            parts = next(rendering)
            await turn(began)  # the events that arrived meanwhile are the next push's
        self.version += 1
        tiles = view.teams.to_write()  # the whole view in the cache, its tiles by team
        keep = snapshot.entries(self.version, view.view_parts(), tiles, view.teams.html)
        if changes.full or len(state.agents) != self._named:
            agents = state.agents.values()
            keep[TEAMS_KEY] = sorted({a.team for a in agents if a.team})
            keep[NAMES_KEY] = {a.agent_id: a.name for a in agents}
            keep[AGENT_TEAMS_KEY] = {a.agent_id: a.team for a in agents}
            self._named = len(state.agents)
        if changes.full or changes.calls or changes.removed_calls:
            agents = state.agents
            keep[CALLS_KEY] = {
                k: (x.agent_id or "", agents[x.agent_id].team if x.agent_id in agents else "")
                for k, x in state.calls.items()
            }
        await cache_work(store, keep, {STATUS_KEY: view.status_view()}, 3 * self.heartbeat)
        view.teams.written(tiles)
        await self.layer.group_send(
            LIVE_GROUP,
            {
                "type": "live.push",
                "version": self.version,
                "prev": self.version - 1,
                "parts": parts,
                "emitted": metrics.PENDING_EVENTS.take(),
            },
        )
        if self.subscribers and (changes.agents or changes.full):
            tiles = view.tiles(changes)
            for subscriber in self.subscribers:
                await subscriber.on_tiles(tiles, changes.full)
        upstream = view.inbox.upstream
        sent, when = self._status_sent
        if sent is not upstream or time.monotonic() - when >= self.heartbeat:
            await self.layer.group_send(
                STATUS_GROUP, {"type": "push.html", "html": view.upstream_html()}
            )
            self._status_sent = (upstream, time.monotonic())


def store(keep: dict, lapsing: dict, lapse_s: float):
    """Write what stays until replaced, and what lapses unless renewed.

    The status lapses when no bridge pushes any more (every push, heartbeats included,
    renews it): /readyz then says so instead of repeating a dead bridge's last word.
    """
    cache.set_many(keep, timeout=None)
    cache.set_many(lapsing, timeout=lapse_s)


def rendered_floor(audience: Shows) -> tuple[int | None, dict[str, str]]:
    """The floor as the last push left it, for a page to arrive with: the version and the
    parts its audience shows, the header's status among them; (None, {}) before any push.
    The page's socket then skips the snapshot of that same version (consumers.py)."""
    whole, _ = snapshot.read(audience.teams, tiles="agents" in audience.parts)
    if whole is None:
        return None, {}
    version, parts = whole
    return version, {
        **{p: audience.part(parts, p) for p in audience.parts},
        "status": parts.get("status", ""),
    }


def live_calls() -> dict[str, tuple[str, str]]:
    """The calls live now: (agent id, team), "" for none, as the last push left them."""
    return cache.get(CALLS_KEY) or {}
