"""The live feed: applies what the bridge learns, renders each change once, fans it out.

Coalescing is on the leading edge: a change after a quiet tick goes out at once; changes
that arrive within the tick are merged per row (the newest state wins) into one push.
Each push carries its version and the previous one; the current full view is kept in the
cache first, so a socket that sees a jump (a dropped push) resends its browser the whole
view instead of leaving it wrong. A heartbeat keeps browsers' freshness honest when the
floor is quiet.

A push carries its fragments as named parts (agents, calls, queues, kpis and a KPI strip
per team set pages show (accounts/scope.py), the wallboard's panels, status). Each audience
(`Shows`: the live view of a team set, a wallboard with its panel set) is sent only the
parts its page shows, joined into one frame per audience and push by the
process's fan-out (fanout.py), never per browser: a KPI-only wallboard receives no agent
names, no calls. The composition root hands the feed the wallboard's renderer
(`render_panels`, one fragment per panel).
"""

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache
from django.utils.html import format_html

from dashboard.accounts import scope
from dashboard.shared import metrics
from dashboard.shared.aio import pause
from dashboard.shared.cache_keys import (
    AGENT_TEAMS_KEY,
    NAMES_KEY,
    STATUS_KEY,
    TEAM_SETS_KEY,
    TEAMS_KEY,
)
from dashboard.shared.groups import LIVE_GROUP, STATUS_GROUP
from dashboard.upstream import contract as c

from . import snapshot, team_tiles
from .changed import render_changed
from .leader import still_leading
from .render import Renderer, iso
from .state import Changes, LiveState, ai_share_pct

log = logging.getLogger("dashboard.live.feed")

CALLS_KEY = "live:calls"  # live call id -> (its agent, the agent's team): live_calls()
TICK_S = 0.05  # the coalescing tick; docs/performance.md measured 0.1, 0.05 and 0.033 s
# The KPI strip is rendered and sent at most this often (it changes with nearly every event:
# 4 KB in every push otherwise); a change in between goes out when this much has passed.
KPI_EVERY_S = 0.25
TEAM_SETS_EVERY_S = 1.0  # the team sets pages show (accounts/scope.py) are read this often
# What a wallboard may show ("changed": the live view's "What changed" panel)
PANELS = ("kpis", "agents", "queues", "campaigns", "qa", "alerts", "changed")


@dataclass(frozen=True)
class Shows:
    """An audience of the live pushes: the parts its page shows, and the teams whose KPI
    strip and agent tiles it shows (() for the whole floor's: team_tiles.py). Every frame
    ends with the header's status (freshness, AI line), which every page shows."""

    parts: tuple[str, ...]
    teams: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return "+".join(self.parts) + (f"@{scope.key(self.teams)}" if self.teams else "")

    def part(self, parts: dict[str, str], name: str) -> str:
        """What this audience is sent of the part `name`: its teams' KPI strip and tiles."""
        if name == "kpis":
            return parts.get(kpis_part(self.teams), "")
        if name == "agents" and self.teams:
            return team_tiles.compose(parts, self.teams)
        return parts.get(name, "")

    def compose(self, parts: dict[str, str]) -> str:
        """The frame of a push or a snapshot: "" when nothing it shows changed (the fan-out
        then advances the audience's version without writing anything)."""
        return "".join([*(self.part(parts, p) for p in self.parts), parts.get("status", "")])

    def frame(self, message: dict) -> str:
        return self.compose(message["parts"])


LIVE_VIEW = Shows(("agents", "calls", "queues", "kpis", "changed"))
# The team sets' KPI strips take at most this share of the feed's time: rendered with the
# whole floor's (every KPI_EVERY_S) on a small floor, less often where they are many on a
# large one (100 sets at 10,000 agents take some 40 ms each time on a quiet core).
STRIPS_SHARE = 0.1


class StripPace:
    """When the team sets' strips are next due: KPI_EVERY_S after the last, or as long
    after as keeps their share of the time under STRIPS_SHARE."""

    def __init__(self):
        self.at, self.every = -KPI_EVERY_S, KPI_EVERY_S

    def due(self, clock: float) -> bool:
        return clock - self.at >= self.every

    def rendered(self, clock: float, took_s: float):
        self.at, self.every = clock, max(KPI_EVERY_S, took_s / STRIPS_SHARE)


def kpis_part(teams: tuple[str, ...]) -> str:
    """The name of the KPI strip's part for a team set ("kpis": the whole floor's)."""
    return f"kpis@{scope.key(teams)}" if teams else "kpis"


def wallboard(panels) -> Shows:
    """What a kiosk link's screen is sent: its panels and nothing else (calls never)."""
    return Shows(tuple(p for p in PANELS if p in panels))


class LiveFeed:
    def __init__(
        self,
        state: LiveState,
        *,
        tick: float = TICK_S,
        heartbeat: float = 5.0,
        figures=None,
        render_panels=None,
        on_tiles=None,
    ):
        self.state = state
        # (changed agents' tiles by id, whether all changed) -> awaitable: the agent pages
        self.on_tiles = on_tiles
        # (campaigns, figures, agent names) -> the wallboard's panels by name; none without one
        self.panels = render_panels or (lambda campaigns, figures, names: {})
        self.tick = tick
        self.heartbeat = heartbeat
        self.figures = dict(figures or {})  # from outside the feed (webhook records, settings)
        self.render = Renderer()
        self.layer = get_channel_layer()
        self.pending = Changes(full=True)
        self.wakeup = asyncio.Event()
        self.version = 0
        self.upstream = {"state": "connecting", "reason": "", "since": iso(now())}
        self.ai_enabled: bool | None = None  # GET /ai, as the refresher last read it
        # agent id -> the seq and emitted time (epoch ms) of the event its tile shows
        self.stamps: dict[str, tuple[int, int]] = {}
        self.agent_html: dict[str, str] = {}
        self.teams = team_tiles.TeamTiles()  # each team's tiles, for team pages and the cache
        self.call_html: dict[str, str] = {}
        self.queue_html: dict[str, str] = {}
        self.kpi_html: dict[tuple, str] = {}  # team set (() the whole floor) -> its KPI strip
        self.team_sets: set[tuple[str, ...]] = set()  # the team sets pages show (accounts/scope.py)
        self._sets_at = -TEAM_SETS_EVERY_S  # when they were last read
        self.campaign_rows: list[c.Campaign] = []
        self.panel_html: dict[str, str] = {}  # the wallboard's campaigns, qa and alerts panels
        self.changed_html = ""  # "What changed", from the figure `what_changed`
        self._changed_from = None  # the figure it was rendered from
        self._named = 0  # how many agents the cached names and teams cover
        self._status_sent: tuple = (None, 0.0)  # (status, when) last sent to STATUS_GROUP
        self._status_pushed: tuple = ("", 0.0)  # (html, when) last carried by a live push
        self._status_html: tuple = (None, "")  # (status view, its html) last rendered
        self._kpis_at = 0.0  # when the KPI strip was last rendered
        self.kpis_due: float | None = None  # a KPI change waits for its turn until then
        self.strips = StripPace()  # how often the team sets' strips are rendered

    # ---- The bridge's sink ---------------------------------------------------------------------
    def snapshot(self, agents, calls):
        self._merge(self.state.load_snapshot(agents, calls, now()))

    def event(self, event: c.Event):
        changes = self.state.apply(event)
        metrics.PENDING_EVENTS.note(event.emitted_at)
        stamp = (event.seq, round(event.emitted_at.timestamp() * 1000))
        for agent_id in changes.agents:
            self.stamps[agent_id] = stamp
        self._merge(changes)

    def status(self, state: str, reason: str = ""):
        if state != self.upstream["state"] or reason != self.upstream["reason"]:
            log.info("upstream %s%s", state, f": {reason}" if reason else "")
            self.upstream = {"state": state, "reason": reason, "since": iso(now())}
            self.wakeup.set()  # every push carries the status

    def campaigns(self, campaigns: list[c.Campaign]):
        names = {x.id: x.name for x in campaigns}
        if names != self.render.campaigns:
            self.render.campaigns = names
            self._merge(Changes(full=True))
        if campaigns != self.campaign_rows:
            self.campaign_rows = campaigns
            self._merge(Changes(board=True))

    def ai_status(self, enabled: bool):
        if enabled != self.ai_enabled:
            self.ai_enabled = enabled
            self.wakeup.set()  # every push carries the header's status

    def set_figures(self, figures: dict):
        """Figures from outside the feed (appointments, alerts) may have changed."""
        changed = {k for k, v in figures.items() if self.figures.get(k) != v}
        if changed:
            self.figures.update(figures)
            # The inbound side's figures show on each queue's row too.
            queues = set(self.state.queues) if "inbound" in changed else set()
            self._merge(Changes(kpis=True, board=True, queues=queues))

    def _merge(self, changes: Changes):
        self.pending.merge(changes)
        self.wakeup.set()

    # ---- Pushing ----------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event):
        last = 0.0
        watcher = asyncio.ensure_future(stop.wait())
        watcher.add_done_callback(lambda _: self.wakeup.set())  # stopping wakes the loop
        while not stop.is_set():
            wait = self.heartbeat  # on a quiet floor: a heartbeat push
            if self.kpis_due is not None:
                wait = max(0.0, min(wait, self.kpis_due - time.monotonic()))
            await pause(self.wakeup, wait)
            gap = time.monotonic() - last
            if gap < self.tick:
                await asyncio.sleep(self.tick - gap)  # coalesce what else arrives
            changes, self.pending = self.pending, Changes()
            self.wakeup.clear()
            try:
                await self.push(changes)
            except Exception:
                log.exception("live push failed; the next one resends what changed")
                self.pending.merge(changes)
            last = time.monotonic()

    async def push(self, changes: Changes):
        if not still_leading():
            return  # fenced: another bridge may lead by now; this one is being stopped
        if time.monotonic() - self._sets_at >= TEAM_SETS_EVERY_S:
            self._sets_at = time.monotonic()
            sets = await sync_to_async(cache.get, thread_sensitive=False)(TEAM_SETS_KEY)
            self.team_sets = scope.in_use(sets)
        parts = self.render_changes(changes)
        self.version += 1
        tiles = self.teams.to_write()  # the whole view in the cache, its tiles by team
        keep = snapshot.entries(self.version, self.view_parts(), tiles, self.teams.html)
        if changes.full or len(self.state.agents) != self._named:
            agents = self.state.agents.values()
            keep[TEAMS_KEY] = sorted({a.team for a in agents if a.team})
            keep[NAMES_KEY] = {a.agent_id: a.name for a in agents}
            keep[AGENT_TEAMS_KEY] = {a.agent_id: a.team for a in agents}
            self._named = len(self.state.agents)
        if changes.full or changes.calls or changes.removed_calls:
            agents = self.state.agents
            keep[CALLS_KEY] = {
                k: (x.agent_id or "", agents[x.agent_id].team if x.agent_id in agents else "")
                for k, x in self.state.calls.items()
            }
        # In a thread of its own: `cache.aset` would queue behind every view's database work
        # in Django's one shared sync thread (a sign-in's password hash alone takes 0.3 s).
        await sync_to_async(store, thread_sensitive=False)(
            keep, {STATUS_KEY: self.status_view()}, 3 * self.heartbeat
        )
        self.teams.written(tiles)
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
        if self.on_tiles and (changes.agents or changes.full):  # the agent pages (drill-down)
            shown = self.agent_html if changes.full else changes.agents
            tiles = {a: self.agent_html[a] for a in shown if a in self.agent_html}
            await self.on_tiles(tiles, changes.full)
        sent, when = self._status_sent
        if sent is not self.upstream or time.monotonic() - when >= self.heartbeat:
            await self.layer.group_send(
                STATUS_GROUP, {"type": "push.html", "html": self.upstream_html()}
            )
            self._status_sent = (self.upstream, time.monotonic())

    def render_changes(self, changes: Changes) -> dict[str, str]:
        """Render what changed once, into the fragments kept for the full view. Returns the
        parts to push ("" where nothing changed), or the full view's when everything did."""
        state = self.state
        agents, calls, queues = [], [], []
        if changes.full:
            self.agent_html = {
                a: self.render.agent(state, x, self.stamps.get(a)) for a, x in state.agents.items()
            }
            self.teams.reset({a: x.team for a, x in state.agents.items()})
            self.call_html = {k: self.render.call(state, x) for k, x in state.calls.items()}
            self.queue_html = {
                k: self.render.queue(x, self.queue_plan(k)) for k, x in state.queues.items()
            }
        else:
            teams = {}  # agent id -> the teams its tile goes to (a moved agent's old one too)
            for agent_id in changes.agents:
                agent = state.agents.get(agent_id)
                if agent:
                    self.agent_html[agent_id] = self.render.agent(
                        state, agent, self.stamps.get(agent_id)
                    )
                    agents.append(self.agent_html[agent_id])
                    teams[agent_id] = self.teams.changed(agent_id, agent.team)
            for call_id in changes.removed_calls:
                self.call_html.pop(call_id, None)
                calls.append(self.render.removed_call(call_id))
            for call_id in changes.calls:
                call = state.calls.get(call_id)
                if call:
                    self.call_html[call_id] = self.render.call(state, call)
                    calls.append(self.call_html[call_id])
            for queue_id in changes.queues:
                plan = self.queue_plan(queue_id)
                self.queue_html[queue_id] = self.render.queue(state.queues[queue_id], plan)
                queues.append(self.queue_html[queue_id])
        self.teams.join(self.agent_html)
        kpis = self.render_kpis(changes)
        panels = {**self.render_panels(changes), **self.render_changed()}
        if changes.full:
            return self.full_parts()
        parts = {
            "agents": "".join(agents),
            **team_tiles.by_team({a: self.agent_html[a] for a in teams}, teams),
            "calls": "".join(calls),
            "queues": "".join(queues),
            **kpis,
            **panels,
        }
        parts["status"] = self.status_part(any(parts.values()))
        return parts

    def queue_plan(self, queue_id: str) -> dict | None:
        """A queue's own target, goal, service level and hours (the inbound side's figures)."""
        return ((self.figures.get("inbound") or {}).get("queues") or {}).get(queue_id)

    def render_kpis(self, changes: Changes) -> dict[str, str]:
        """The KPI strips that changed (the whole floor's and each team set's in use, by
        part name), at most every KPI_EVERY_S; a team set new in use at once. They are
        re-rendered even without events: states under way count up to now (the heartbeat
        keeps them right on a quiet floor)."""
        clock = time.monotonic()
        new_set = not self.team_sets <= self.kpi_html.keys()
        if not changes.full and not new_set and clock - self._kpis_at < KPI_EVERY_S:
            if changes.kpis and self.kpis_due is None:
                self.kpis_due = self._kpis_at + KPI_EVERY_S  # the run loop wakes for it
            return {}
        self._kpis_at, self.kpis_due = clock, None
        sets = self.team_sets if changes.full or new_set or self.strips.due(clock) else set()
        started = time.perf_counter()
        strips = self.render.kpi_strips(self.state, self.figures, now(), sets)
        if sets:
            self.strips.rendered(clock, time.perf_counter() - started)
        kept = {t: h for t, h in self.kpi_html.items() if t in self.team_sets}
        strips = {**kept, **strips}  # team sets not due keep their last strip
        changed = {kpis_part(t): h for t, h in strips.items() if h != self.kpi_html.get(t)}
        self.kpi_html = strips
        return changed

    def status_part(self, busy: bool) -> str:
        """The header's status, in a push when it changed, in every push with nothing else,
        and at least once a heartbeat: every page hears from the feed that often."""
        html, when = self._status_pushed
        current, clock = self.upstream_html(), time.monotonic()
        if current == html and busy and clock - when < self.heartbeat:
            return ""
        self._status_pushed = (current, clock)
        return current

    def render_panels(self, changes: Changes) -> dict[str, str]:
        """The wallboard's panels that changed (all of them the first time)."""
        if not (changes.board or changes.full or not self.panel_html):
            return {}
        names = {a.agent_id: a.name for a in self.state.agents.values()}
        rendered = self.panels(self.campaign_rows, self.figures, names)
        changed = {k: v for k, v in rendered.items() if v != self.panel_html.get(k)}
        self.panel_html = rendered
        return changed

    def render_changed(self) -> dict[str, str]:
        """The "What changed" panel, when the bridge's evaluation handed a new one."""
        what = self.figures.get("what_changed")
        if self.changed_html and what is self._changed_from:
            return {}
        self._changed_from, html = what, render_changed(what)
        changed = html != self.changed_html
        self.changed_html = html
        return {"changed": html} if changed else {}

    def upstream_html(self) -> str:
        """The header's status, rendered again only when it changed (every push carries it
        to the snapshot, most pushes to the browsers too)."""
        view = self.status_view()
        if view != self._status_html[0]:
            self._status_html = (view, self.render.upstream(view))
        return self._status_html[1]

    def status_view(self) -> dict:
        """The header's status: the feed's freshness and the AI's part in today's calls."""
        return {
            **self.upstream,
            "ai_enabled": self.ai_enabled,
            "ai_share_pct": ai_share_pct(self.state.day.totals),
        }

    def full_parts(self) -> dict[str, str]:
        """The whole view as out-of-band containers: what a (re)connecting browser gets."""
        return {
            **self.view_parts(),
            "agents": floor_parts(self.agent_html, {}, {})["agents"],
            **{team_tiles.part(t): html for t, html in self.teams.html.items() if t},
        }

    def view_parts(self) -> dict[str, str]:
        """The whole view but its agent tiles (the cache keeps them by team: snapshot.py)."""
        calls_queues = floor_parts({}, self.call_html, self.queue_html)
        return {
            "calls": calls_queues["calls"],
            "queues": calls_queues["queues"],
            **{kpis_part(teams): html for teams, html in self.kpi_html.items()},
            **self.panel_html,
            "changed": self.changed_html,
            "status": self.upstream_html(),
        }


def floor_parts(agents: dict, calls: dict, queues: dict) -> dict[str, str]:
    """The live view's containers around its rendered rows (the floor replay's too); the
    KPI strips are parts of their own, one per team set."""
    empty = '<li class="empty">{}</li>'
    calls = "".join(calls.values()) or format_html(empty, "No calls right now")
    queues = "".join(queues.values()) or format_html(empty, "No queue figures yet")
    return {
        "agents": "".join([team_tiles.AGENTS_OPEN, *agents.values(), team_tiles.AGENTS_CLOSE]),
        # Scrollable lists: reachable by keyboard, and named (WCAG 2.1.1, 4.1.2)
        "calls": f'<ul id="calls-list" class="rows" tabindex="0" aria-label="Live calls">'
        f"{calls}</ul>",
        "queues": f'<ul id="queues-list" class="rows" tabindex="0" aria-label="Queues">'
        f"{queues}</ul>",
    }


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


def now() -> datetime:
    return datetime.now(UTC)


def store(keep: dict, lapsing: dict, lapse_s: float):
    """Write what stays until replaced, and what lapses unless renewed.

    The status lapses when no bridge pushes any more (every push, heartbeats included,
    renews it): /readyz then says so instead of repeating a dead bridge's last word.
    """
    cache.set_many(keep, timeout=None)
    cache.set_many(lapsing, timeout=lapse_s)
