"""The feed's view on its own: what changed rendered once into the parts of a push, the
whole view kept beside them, and a subscriber's parts asked for only when they may have
changed (no loop, no cache, no layer)."""

import asyncio
from zoneinfo import ZoneInfo

import pytest

from dashboard.live.inbox import Inbox
from dashboard.live.state import LiveState
from dashboard.live.subscribers import Subscriber
from dashboard.live.view import ROWS_SLICE, FloorView
from dashboard.testing.feeds import T0, Events
from dashboard.upstream import contract as c


class Board(Subscriber):
    """A subscriber whose one part names the campaigns it was rendered from."""

    def __init__(self):
        self.asked = 0

    def parts(self, board):
        self.asked += 1
        names = ", ".join(x.name for x in board.campaigns) or "none"
        return {"board": f'<p id="board">{names} · {len(board.names)} agents</p>'}


@pytest.fixture
def subscriber():
    return Board()


@pytest.fixture
def view(subscriber):
    inbox = Inbox(LiveState(ZoneInfo("UTC")), figures={"service_level_s": 20})
    agents = [c.Agent(f"a{i}", f"Agent {i}", "Sales", "available", T0, None) for i in (1, 2)]
    inbox.snapshot(agents, [])
    view = FloorView(inbox, heartbeat=60, subscribers=(subscriber,))
    view.render_changes(inbox.take())  # the first push: the whole view
    return view


def test_the_first_push_is_the_whole_view_with_the_subscribers_parts(view, subscriber):
    parts = view.full_parts()
    assert 'id="agent-a1"' in parts["agents"] and 'id="agent-a2"' in parts["agents"]
    assert parts["board"] == '<p id="board">none · 2 agents</p>' and subscriber.asked == 1
    assert "No calls right now" in parts["calls"] and parts["status"]


def test_a_push_carries_only_the_tiles_that_changed_and_keeps_the_rest(view, subscriber):
    view.inbox.event(Events().agent(5, "a2", "paused", name="Agent 2"))
    changes = view.inbox.take()
    parts = view.render_changes(changes)
    assert 'id="agent-a2"' in parts["agents"] and 'id="agent-a1"' not in parts["agents"]
    assert 'data-state="paused"' in parts["agents"]
    assert parts["calls"] == "" and parts["queues"] == "" and "board" not in parts
    assert subscriber.asked == 1  # nothing of the board changed: not asked again
    assert set(view.tiles(changes)) == {"a2"}
    whole = view.full_parts()["agents"]
    assert 'id="agent-a1"' in whole and whole.count('data-state="paused"') == 1


def test_the_subscribers_parts_go_out_when_the_board_changed_and_only_then(view, subscriber):
    campaign = c.Campaign("cmp-1", "Spring renewals", "active", "predictive", 200, 50, 20, 5, T0)
    view.inbox.campaigns([campaign])  # a new name: its calls, and the board
    parts = view.render_changes(view.inbox.take())
    assert parts["board"] == '<p id="board">Spring renewals · 2 agents</p>'
    view.inbox.set_figures({"appointments_today": 3})  # the board may have changed; it did not
    parts = view.render_changes(view.inbox.take())
    assert subscriber.asked == 3 and "board" not in parts
    assert view.full_parts()["board"] == '<p id="board">Spring renewals · 2 agents</p>'


def test_a_call_that_ended_is_removed_from_the_whole_view(view):
    events = Events()
    view.inbox.event(events.started(0, "k1", "a1"))
    view.render_changes(view.inbox.take())
    assert 'id="call-k1"' in view.full_parts()["calls"]
    view.inbox.event(events.ended(30, "k1", 30))
    parts = view.render_changes(view.inbox.take())
    assert 'id="call-k1" hx-swap-oob="delete"' in parts["calls"]
    assert "No calls right now" in view.full_parts()["calls"]


def test_each_teams_part_holds_its_agents_current_tiles_after_changes_and_moves(view):
    """The teams' joined tiles (cached per team for team pages) against the truth: every
    agent's current tile, under its current team, once."""
    events = Events()
    moves = [("a1", "Support"), ("a2", "Sales"), ("a3", "Support"), ("a1", "Sales")]
    for n, (agent_id, team) in enumerate(moves * 3):
        status = ("paused", "available", "wrap_up")[n % 3]
        view.inbox.event(events.agent(n, agent_id, status, name=f"Agent {n}", team=team))
        if n % 2:
            view.render_changes(view.inbox.take())
    view.render_changes(view.inbox.take())
    state = view.inbox.state
    for team in ("Sales", "Support"):
        expected = sorted(view.agent_html[a] for a, x in state.agents.items() if x.team == team)
        joined = view.teams.html[team]
        assert sorted(t for t in expected if t in joined) == expected
        assert len(joined) == sum(map(len, expected))


async def test_a_whole_view_drawn_a_slice_at_a_time_is_current_after_the_next_push():
    """A whole view's rows are drawn ROWS_SLICE at a time, the event loop free between:
    what changes meanwhile (an agent already drawn and one not yet, a call ended and one
    started) shows as it is after the next push, in the tiles, the calls and the teams."""
    events = Events()
    inbox = Inbox(LiveState(ZoneInfo("UTC")))
    n = 3 * ROWS_SLICE
    agents = [c.Agent(f"a{i}", f"Agent {i}", "Sales", "available", T0, None) for i in range(n)]
    inbox.snapshot(agents, [])
    inbox.event(events.started(0, "k1", "a1"))
    view = FloorView(inbox, heartbeat=60)
    whole = inbox.take()
    drawing = asyncio.ensure_future(view.render_rows())
    await asyncio.sleep(0)  # its first slice
    inbox.event(events.agent(1, "a2", "paused", name="Agent 2"))
    inbox.event(events.agent(1, f"a{n - 1}", "paused", name="The last"))
    inbox.event(events.ended(2, "k1", 2))
    inbox.event(events.started(2, "k2", "a3"))
    rows = await drawing
    assert 'data-state="available"' in rows[0]["a2"]  # drawn before it changed
    view.render_changes(whole, rows)
    view.render_changes(inbox.take())
    state, draw = inbox.state, view.render
    assert view.agent_html == {
        a: draw.agent(state, x, inbox.stamps.get(a)) for a, x in state.agents.items()
    }
    assert view.call_html == {"k2": draw.call(state, state.calls["k2"])}
    assert view.teams.html["Sales"] == "".join(view.agent_html.values())
    assert view.full_parts()["agents"].count('data-state="paused"') == 2
