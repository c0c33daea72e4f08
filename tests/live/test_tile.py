"""The agent tile and the call row written by Python (live/tile.py, live/call_row.py) are
byte for byte what the templates live/_agent.html and live/_call.html render, for every
kind of agent and call the floor has and for hostile names."""

import itertools
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.template.loader import get_template

from dashboard.live.call_row import call_row
from dashboard.live.render import Renderer, ascii_html
from dashboard.live.state import LiveState
from dashboard.live.tile import agent_tile
from dashboard.testing.feeds import T0
from dashboard.upstream import contract as c

HOSTILE = [
    "Ava Rossi",
    '<script>alert("x")</script>',
    'O\'Brien & "Sons" <b>',
    "Zoë Müller — 東京 ‮reversed",
    "{{ agent.name }}{% if %}",
    "&amp; &#39; &lt;",
    "",
]
CAMPAIGNS = {"camp": "Spring <Renewals> & 'Co'", "plain": "Solar Leads"}


def floor() -> tuple[LiveState, list[c.Agent]]:
    """Agents in every state, on calls in and out, AI and campaign-less, monitored by
    one or two supervisors (dialling or connected), with pauses pending and states set by
    someone else, their names, teams and ids hostile by turns."""
    state = LiveState(ZoneInfo("UTC"))
    agents, calls = [], []
    kinds = itertools.product(
        (*c.AGENT_STATUSES, "unknown"), (None, "inbound", "outbound"), (0, 1, 2)
    )
    for n, (status, direction, variant) in enumerate(kinds):
        name, team = HOSTILE[n % len(HOSTILE)], HOSTILE[(n * 3 + 1) % len(HOSTILE)]
        agent_id = [f"a{n}", f'a{n}<"&>', f"a/{n}"][n % 3]
        call_id = None
        if direction:
            call_id = [f"c{n}", f'c{n}"><i>', f"c/{n}"][variant]
            campaign = ["camp", "plain", None][(n + variant) % 3]
            ai = variant == 2 and campaign is None
            since = T0 + timedelta(seconds=n)
            calls.append(c.Call(call_id, agent_id, campaign, direction, "in_progress", ai, since))
        agents.append(
            c.Agent(
                agent_id,
                name,
                team,
                status,
                None if variant == 1 and n % 2 else T0 + timedelta(seconds=n, milliseconds=n),
                call_id,
                pending_status="paused" if variant == 1 else None,
                changed_by=HOSTILE[n % len(HOSTILE)] if variant == 2 else None,
            )
        )
    state.load_snapshot(agents, calls, T0 + timedelta(hours=1))
    for n, call in enumerate(calls[::2]):
        for k in range(n % 3):
            at = T0 + timedelta(minutes=1, seconds=k)
            monitor = monitoring(call.call_id, f's{n}-{k}"<', n, k, at)
            state.apply(c.Event("call.monitor", "org", n * 3 + k, at, monitor))
    return state, agents


def monitoring(call_id: str, supervisor_id: str, n: int, k: int, at) -> c.CallMonitor:
    """The k-th supervisor on the n-th call: each mode and status in turn, hostile names."""
    return c.CallMonitor(
        call_id,
        supervisor_id,
        f"u{k}",
        HOSTILE[(n + k) % len(HOSTILE)],
        ["listen", "whisper", 'barge"<'][k % 3],
        ["dialing", "connected"][(n + k) % 2],
        at,
    )


@pytest.fixture
def renderer():
    renderer = Renderer()
    renderer.campaigns = CAMPAIGNS
    return renderer


def test_the_python_tile_is_the_templates_for_every_kind_of_agent(renderer):
    template = get_template("live/_agent.html")
    state, agents = floor()
    monitored = pending = by = on_calls = 0
    for n, agent in enumerate(agents):
        stamp = (n + 1, 1_764_000_000_000 + n) if n % 4 else None
        context = renderer.agent_context(state, agent, stamp)
        expected = template.render(context)
        assert agent_tile(context["agent"]) == expected, agent
        assert renderer.agent(state, agent, stamp) == ascii_html(expected)
        monitored += bool(context["agent"]["monitors"])
        pending += 'class="team pending"' in expected
        by += 'class="by"' in expected
        on_calls += 'class="call"' in expected
    # the floor has every branch of the template, hostile names in each
    assert monitored and pending and by and on_calls
    tile = renderer.agent(state, agents[1], None)
    assert "<script>" not in tile and "&lt;script&gt;" in tile


def test_a_tile_with_two_supervisors_listening_names_both_in_order(renderer):
    state, agents = floor()
    watched = [a for a in agents if len(state.monitors_of(a.call_id)) == 2]
    assert watched
    tile = renderer.agent(state, watched[0], None)
    assert tile.count('class="monitored"') == 2
    assert tile.index('data-supervisor="u0"') < tile.index('data-supervisor="u1"')


def calls_floor() -> tuple[LiveState, list[c.Call]]:
    """Calls in every state (and one the dashboard does not name), in and out, AI and
    campaign-less, of an agent the floor has, of one it does not and of none, monitored
    by none, one or two supervisors, their ids, names and teams hostile by turns."""
    state, agents = floor()
    calls = []
    kinds = itertools.product(
        (*c.CALL_STATES, "parked_elsewhere"), ("inbound", "outbound"), (0, 1, 2)
    )
    for n, (status, direction, variant) in enumerate(kinds):
        call_id = [f"r{n}", f'r{n}"><i>', f"r/{n}"][n % 3]
        agent_id = [agents[n % len(agents)].agent_id, "not-on-the-floor", None][variant]
        campaign = ["camp", "plain", None, "unknown"][n % 4]
        ai = n % 5 == 0
        since = None if n % 7 == 0 else T0 + timedelta(seconds=n, milliseconds=n)
        calls.append(c.Call(call_id, agent_id, campaign, direction, status, ai, since))
    state.load_snapshot(agents, calls, T0 + timedelta(hours=1))
    for n, call in enumerate(calls):
        for k in range(n % 3):
            at = T0 + timedelta(minutes=2, seconds=k)
            monitor = monitoring(call.call_id, f"m{n}-{k}<", n, k, at)
            state.apply(c.Event("call.monitor", "org", 1000 + n * 3 + k, at, monitor))
    return state, calls


def test_the_python_call_row_is_the_templates_for_every_kind_of_call(renderer):
    template = get_template("live/_call.html")
    state, calls = calls_floor()
    seen = set()
    for call in calls:
        context = renderer.call_context(state, call)
        expected = template.render(context)
        assert call_row(context["call"]) == expected, call
        assert renderer.call(state, call) == ascii_html(expected)
        seen |= {
            marker
            for marker in ("data-live", 'class="tag ai"', "Unassigned", "<bdi>AI</bdi>",
                           "Inbound", "Outbound", 'class="monitors"', "dialling")
            if marker in expected
        }  # fmt: skip
    # the floor has every branch of the template, hostile names in each
    assert len(seen) == 8
    row = renderer.call(state, calls[1])
    assert '"><i>' not in row and "&quot;&gt;&lt;i&gt;" in row
