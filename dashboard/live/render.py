"""The live view's fragments, rendered from the live state once per change.

Each fragment is a top-level element with a stable id, so htmx's websocket extension swaps
it out of band wherever it stands; rows the page has not seen yet name their list in
`data-into`. Django's autoescaping applies to every value.
"""

from datetime import UTC, datetime

from django.template.loader import get_template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from dashboard.shared.filling import filling_past_sentence
from dashboard.shared.templatetags.links import agent_url
from dashboard.upstream import contract as c

from . import explain
from .call_row import call_row
from .state import LiveState, scoped
from .strip import strip_html
from .tile import agent_tile

STATE_LOOK = {  # icon, label: state is shown by colour AND by text
    "available": ("●", "Available"),
    "ringing": ("◔", "Ringing"),
    "on_call": ("☎", "On call"),
    "wrap_up": ("✎", "Wrap-up"),
    "paused": ("‖", "Paused"),
    "offline": ("○", "Offline"),
    "unknown": ("?", "Unknown"),
}
LIMITED_STATES = {"ringing", "wrap_up", "paused"}  # time in state has amber/red limits
CALL_STATES = {
    "ringing": "Ringing",
    "in_progress": "Talking",
    "on_hold": "On hold",
    "wrap_up": "Wrap-up",
}


def ascii_html(html: str) -> str:
    """Non-ASCII characters as character references, which the browser shows the same. An
    ASCII str is kept a byte a character, so the UTF-8 encode Daphne does once per socket
    is a copy, not a transcoding: about 16 ms less per push at 500 browsers
    (docs/performance.md). Only for markup without <script> or <style>, where references
    are not decoded: the pushed fragments have none."""
    return html.encode("ascii", "xmlcharrefreplace").decode("ascii")


def iso(when: datetime | None) -> str:
    """UTC to the millisecond, as browsers' `Date.parse` reads it: a third shorter than
    `isoformat`'s microseconds and offset, in every tile pushed to every browser."""
    if not when:
        return ""
    return when.astimezone(UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def monitors(state: LiveState, call_id: str | None) -> list[dict]:
    """The open monitoring sessions on a call, as the tile and the row show them: everyone
    sees who is listening; each page's script finds its own person's session by id."""
    return [
        {
            "session": m.session_id,
            "supervisor": m.supervisor_id,
            "name": m.supervisor_name,
            "mode": m.mode,
            "state": m.state,
            "since": iso(state.monitor_started.get(m.session_id)),
        }
        for m in state.monitors_of(call_id)
    ]


def duration(seconds) -> str:
    if seconds is None:
        return "–"
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


class Renderer:
    def __init__(self):
        self._queue = get_template("live/_queue.html")
        self._kpis_floor = get_template("live/_kpis_floor.html")
        self._upstream = get_template("live/_upstream.html")
        self.campaigns: dict[str, str] = {}
        self.agent_urls: dict[str, str] = {}  # agent id -> its page's address, worked out once

    @staticmethod
    def _render(template, context: dict) -> str:
        return ascii_html(template.render(context))

    def agent(self, state: LiveState, agent: c.Agent, stamp=None) -> str:
        """An agent's tile, written by tile.py as the template `live/_agent.html` would."""
        return ascii_html(agent_tile(self.agent_context(state, agent, stamp)["agent"]))

    def agent_context(self, state: LiveState, agent: c.Agent, stamp=None) -> dict:
        """What an agent's tile shows: the template's context."""
        icon, label = STATE_LOOK[agent.status]
        call = state.call_of(agent)
        return {
            "agent": {
                "id": agent.agent_id,
                "url": self.agent_url(agent.agent_id),
                "name": agent.name,
                "team": agent.team,
                "state": agent.status,
                "icon": icon,
                "label": label,
                "since": iso(agent.since),
                "limit": agent.status if agent.status in LIMITED_STATES else "",
                "pending": agent.pending_status,
                "changed_by": agent.changed_by,
                "monitors": monitors(state, call.call_id) if call else (),
                "seq": stamp[0] if stamp else "",
                "emitted": stamp[1] if stamp else "",
                "call": call
                and {
                    "id": call.call_id,
                    "direction": call.direction,
                    "started_at": iso(call.started_at),
                    "campaign": self.campaign(call),
                },
            }
        }

    def agent_url(self, agent_id: str) -> str:
        """An agent's page (`links.agent_url`: a URL reversal), once per agent: a sixth of
        a tile's rendering, a thousand tiles a second on a floor of 10,000."""
        url = self.agent_urls.get(agent_id)
        if url is None:
            url = self.agent_urls[agent_id] = agent_url(agent_id)
        return url

    def call(self, state: LiveState, call: c.Call) -> str:
        """A call's row, written by call_row.py as the template `live/_call.html` would."""
        return ascii_html(call_row(self.call_context(state, call)["call"]))

    def call_context(self, state: LiveState, call: c.Call) -> dict:
        """What a call's row shows: the template's context (`agent_url` for the writer)."""
        agent = state.agents.get(call.agent_id or "")
        return {
            "call": {
                "id": call.call_id,
                "direction": call.direction,
                "ai_handled": call.ai_handled,
                "agent_name": agent.name if agent else "",
                "agent_id": agent.agent_id if agent else "",
                "agent_url": self.agent_url(agent.agent_id) if agent else "",
                "team": agent.team if agent else "",
                "live": call.state == "in_progress",
                "monitors": monitors(state, call.call_id),
                "started_at": iso(call.started_at),
                "campaign": self.campaign(call),
                "state_label": CALL_STATES.get(call.state, call.state.replace("_", " ")),
            }
        }

    def queue(self, queue, plan: dict | None = None) -> str:
        return self._render(
            self._queue,
            {
                "plan": plan,
                "queue": {
                    "id": queue.id,
                    "name": queue.name,
                    "waiting": queue.waiting,
                    "longest_wait_s": queue.longest_wait_s,
                    "longest_wait": duration(queue.longest_wait_s),
                    "agents_available": queue.agents_available,
                    "offered": queue.offered,
                    "answered": queue.answered,
                    "abandoned": queue.abandoned,
                },
            },
        )

    def kpis(self, state: LiveState, figures: dict, now: datetime) -> str:
        return self.kpi_strips(state, figures, now, ())[()]

    def kpi_strips(self, state: LiveState, figures: dict, now: datetime, team_sets) -> dict:
        """The whole floor's KPI strip and each team set's, by team set (() the floor's)."""
        return dict(self.strips(state, figures, now, team_sets))

    def strips(self, state: LiveState, figures: dict, now: datetime, team_sets):
        """`kpi_strips` one at a time, as (team set, strip): the floor's figures worked out
        and rendered once (and once more as a team set's strip shows them), the teams'
        agents counted as they change (tally.py), all before the first strip, so every
        strip is of that moment however long the caller takes between two."""
        team_sets, kpis = tuple(team_sets), state.kpis(now)
        vs = explain.comparisons(kpis, state, now)
        why = explain.hidden(explain.floor_inputs(kpis, state, figures, now))
        whole = self._strip(kpis, self._floor(kpis, figures, vs, False), why)
        if team_sets:
            by_team, floor = state.team_figures(), self._floor(kpis, figures, vs, True)
        yield (), whole
        for teams in team_sets:
            yield teams, self._strip(scoped(kpis, by_team, teams), floor, why, teams)

    def _floor(self, kpis, figures, vs, teams: bool) -> SafeString:
        """The floor's figures of a strip, a team set's or the whole floor's."""
        context = {
            "kpis": kpis,
            "figures": figures,
            "aht": duration(kpis["aht_s"]),
            "longest_wait": duration(kpis["longest_wait_s"]),
            "vs": vs,
            "compare_note": compare_note(figures),
            "teams": teams,
        }
        # without the template file's last line break, as if written inside the strip
        return mark_safe(self._kpis_floor.render(context).rstrip("\n"))

    def _strip(self, kpis, floor: SafeString, why: SafeString, teams=()) -> str:
        """A strip, written by strip.py as the template `live/_kpis.html` would."""
        agents_why = explain.hidden(explain.agent_inputs(kpis))
        return ascii_html(strip_html(kpis, floor, agents_why + why, ", ".join(teams)))

    def upstream(self, status: dict) -> str:
        return self._render(self._upstream, {"status": status})

    def campaign(self, call: c.Call) -> str:
        if call.ai_handled and not call.campaign_id:
            return "AI"
        return self.campaigns.get(call.campaign_id or "", "") or (
            "Inbound" if call.direction == "inbound" else "Campaign"
        )

    @staticmethod
    def removed_call(call_id: str) -> str:
        return format_html('<li id="call-{}" hx-swap-oob="delete"></li>', call_id)


def compare_note(figures: dict) -> str | None:
    """What the comparisons with last week say while they cannot be made (None: they can)."""
    if figures.get("filling_past_pct") is not None:
        return filling_past_sentence(figures["filling_past_pct"])
    if figures.get("filling_pct") is not None:
        return "vs last week once today is read"
    return None
