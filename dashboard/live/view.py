"""The floor as the pages show it: each fragment rendered once per change and kept.

A push carries only the fragments that changed; the kept ones make the whole view, which
is cached for every socket that (re)connects or sees a jump (publish.py; its agent tiles
by team: snapshot.py). A changed tile also goes out in its team's part (team_tiles.py),
for the pages of a team set. The KPI strip changes with nearly every event (4 KB in every
push otherwise), so it is rendered at most every KPI_EVERY_S, the team sets' strips within
STRIPS_SHARE of the feed's time (a slice at a time, the event loop free between), and the
header's status only when it changed.
"""

import time

from django.utils.html import format_html

from dashboard.shared.aio import Slices, turn

from . import team_tiles
from .audiences import kpis_part
from .changed import render_changed
from .inbox import Inbox, now
from .render import Renderer
from .state import Changes, ai_share_pct
from .subscribers import Board, Subscriber

# The KPI strip is rendered and sent at most this often; a change in between goes out when
# this much has passed.
KPI_EVERY_S = 0.25
# The team sets' KPI strips take at most this share of the time, in the loop thread's CPU
# (what they take from the service's events, however loaded the machine): rendered with the
# whole floor's (every KPI_EVERY_S) on a small floor, less often where they are many on a
# large one (100 sets at 10,000 agents take some 5 ms each time on a quiet core).
STRIPS_SHARE = 0.1
# The strips rendered between two turns of the event loop, in seconds of its CPU: the service's
# events would otherwise wait behind the 100 sets' strips at 10,000 agents.
STRIPS_SLICE_S = 0.002
# Rows rendered between two turns of the event loop when the whole view is drawn again (a
# snapshot at 10,000 agents: their tiles and thousands of calls' rows, half a second at once):
# a call's row takes some 35 us (call_row.py), an agent's tile 30.
ROWS_SLICE = 100


class StripPace:
    """When the team sets' strips are next due: KPI_EVERY_S after the last, or as long
    after as keeps their share of the time under STRIPS_SHARE."""

    def __init__(self):
        self.at, self.every = -KPI_EVERY_S, KPI_EVERY_S

    def due(self, clock: float) -> bool:
        return clock - self.at >= self.every

    def rendered(self, clock: float, took_s: float):
        self.at, self.every = clock, max(KPI_EVERY_S, took_s / STRIPS_SHARE)


class FloorView:
    def __init__(self, inbox: Inbox, *, heartbeat: float, subscribers: tuple[Subscriber, ...] = ()):
        self.inbox = inbox  # what is rendered: the state, the figures, the statuses, the campaigns
        self.heartbeat = heartbeat
        self.subscribers = subscribers  # their own parts ride along (the wallboard's panels)
        self.render = Renderer()
        self.agent_html: dict[str, str] = {}
        self.teams = team_tiles.TeamTiles()  # each team's tiles, for team pages and the cache
        self.call_html: dict[str, str] = {}
        self.queue_html: dict[str, str] = {}
        self.kpi_html: dict[tuple, str] = {}  # team set (() the whole floor) -> its KPI strip
        self.team_sets: set[tuple[str, ...]] = set()  # the team sets pages show (accounts/scope.py)
        self.panel_html: dict[str, str] = {}  # the subscribers' parts
        self._board_drawn = False  # whether the subscribers' parts were asked for yet
        self.changed_html = ""  # "What changed", from the figure `what_changed`
        self._changed_from = None  # the figure it was rendered from
        self._status_pushed: tuple = ("", 0.0)  # (html, when) last carried by a push
        self._status_html: tuple = (None, "")  # (status view, its html) last rendered
        self._kpis_at = 0.0  # when the KPI strip was last rendered
        self.kpis_due: float | None = None  # a KPI change waits for its turn until then
        self.strips = StripPace()  # how often the team sets' strips are rendered

    def render_changes(self, changes: Changes, rows: tuple | None = None) -> dict[str, str]:
        """Render what changed once, into the fragments kept for the full view. Returns the
        parts to push ("" where nothing changed), or the full view's when everything did:
        with `rows` (`render_rows`) as its agents' tiles and calls' rows, if given."""
        *_, parts = self.rendering(changes, rows)
        return parts

    def rendering(self, changes: Changes, rows: tuple | None = None):
        """`render_changes` a slice at a time, for the push to let the event loop run
        between: None after each STRIPS_SLICE_S of the KPI strips, then the parts. The
        strips are of the moment the tiles were rendered, whatever the loop does between."""
        state = self.inbox.state
        stamps = self.inbox.stamps
        self.render.campaigns = self.inbox.campaign_names
        agents, calls, queues = [], [], []
        if changes.full:
            self.agent_html, self.call_html = rows or (
                {a: self.render.agent(state, x, stamps.get(a)) for a, x in state.agents.items()},
                {k: self.render.call(state, x) for k, x in state.calls.items()},
            )
            teams = {a: x.team for a, x in state.agents.items() if a in self.agent_html}
            self.teams.reset(self.agent_html, teams)
            self.queue_html = {
                k: self.render.queue(x, self.queue_plan(k)) for k, x in state.queues.items()
            }
        else:
            teams = {}  # agent id -> the teams its tile goes to (a moved agent's old one too)
            for agent_id in changes.agents:
                agent = state.agents.get(agent_id)
                if agent:
                    html = self.render.agent(state, agent, stamps.get(agent_id))
                    self.agent_html[agent_id] = html
                    agents.append(html)
                    teams[agent_id] = self.teams.changed(agent_id, agent.team, html)
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
        self.teams.join()
        kpis = yield from self.render_kpis(changes)
        panels = {**self.render_board(changes), **self.render_changed()}
        if changes.full:
            yield self.full_parts()
            return
        parts = {
            "agents": "".join(agents),
            **team_tiles.by_team({a: self.agent_html[a] for a in teams}, teams),
            "calls": "".join(calls),
            "queues": "".join(queues),
            **kpis,
            **panels,
        }
        parts["status"] = self.status_part(any(parts.values()))
        yield parts

    async def render_rows(self) -> tuple[dict[str, str], dict[str, str]]:
        """Every agent's tile and every call's row, for a whole view, ROWS_SLICE at a time
        with the event loop free between: what changes meanwhile is in the next push's
        changes, and drawn again there."""
        state, stamps = self.inbox.state, self.inbox.stamps
        self.render.campaigns = self.inbox.campaign_names
        agents = await sliced(state.agents, lambda a, x: self.render.agent(state, x, stamps.get(a)))
        calls = await sliced(state.calls, lambda _, x: self.render.call(state, x))
        return agents, calls

    def tiles(self, changes: Changes) -> dict[str, str]:
        """The changed agents' tiles as just rendered (every agent's when all changed)."""
        shown = self.agent_html if changes.full else changes.agents
        return {a: self.agent_html[a] for a in shown if a in self.agent_html}

    def queue_plan(self, queue_id: str) -> dict | None:
        """A queue's own target, goal, service level and hours (the inbound side's figures)."""
        return ((self.inbox.figures.get("inbound") or {}).get("queues") or {}).get(queue_id)

    def render_kpis(self, changes: Changes):
        """The KPI strips that changed (the whole floor's and each team set's in use, by
        part name), at most every KPI_EVERY_S; a team set new in use at once. They are
        re-rendered even without events: states under way count up to now (the heartbeat
        keeps them right on a quiet floor). A generator: None after each STRIPS_SLICE_S of
        rendering (`rendering`), the strips that changed as its return value."""
        clock = time.monotonic()
        new_set = not self.team_sets <= self.kpi_html.keys()
        if not changes.full and not new_set and clock - self._kpis_at < KPI_EVERY_S:
            if changes.kpis and self.kpis_due is None:
                self.kpis_due = self._kpis_at + KPI_EVERY_S  # the run loop wakes for it
            return {}
        self._kpis_at, self.kpis_due = clock, None
        sets = self.team_sets if changes.full or new_set or self.strips.due(clock) else set()
        strips, slices = {}, Slices(STRIPS_SLICE_S)
        for teams, html in self.render.strips(self.inbox.state, self.inbox.figures, now(), sets):
            strips[teams] = html
            if slices.spent():
                slices.end()
                yield None
                slices.begin()
        if sets:  # the CPU the strips took, not the time the loop ran between them
            slices.end()
            self.strips.rendered(clock, slices.took)
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

    def render_board(self, changes: Changes) -> dict[str, str]:
        """The subscribers' parts that changed (all of them the first time)."""
        if not (changes.board or changes.full or not self._board_drawn):
            return {}
        self._board_drawn = True
        agents = self.inbox.state.agents.values()
        board = Board(
            self.inbox.campaign_rows, self.inbox.figures, {a.agent_id: a.name for a in agents}
        )
        rendered = {k: v for s in self.subscribers for k, v in s.parts(board).items()}
        changed = {k: v for k, v in rendered.items() if v != self.panel_html.get(k)}
        self.panel_html = rendered
        return changed

    def render_changed(self) -> dict[str, str]:
        """The "What changed" panel, when the bridge's evaluation handed a new one."""
        what = self.inbox.figures.get("what_changed")
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
            **self.inbox.upstream,
            "ai_enabled": self.inbox.ai_enabled,
            "ai_share_pct": ai_share_pct(self.inbox.state.day.totals),
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


async def sliced(rows: dict, render) -> dict[str, str]:
    """`render(key, row)` of each of `rows`, ROWS_SLICE at a time, a turn of the loop between."""
    items, out = list(rows.items()), {}
    for at in range(0, len(items), ROWS_SLICE):
        began = time.thread_time()
        out.update((key, render(key, row)) for key, row in items[at : at + ROWS_SLICE])
        await turn(began)
    return out


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
