"""The live socket: the whole view on connect, then each change once, coalesced, versioned."""

import html
from datetime import UTC, datetime, timedelta

import pytest

from dashboard.testing.feeds import running_feed
from dashboard.testing.sockets import socket_for
from dashboard.upstream import contract as c

pytestmark = pytest.mark.django_db(transaction=True)
T0 = datetime.now(UTC)
XSS = "<img src=x onerror=alert(1)>"


def agent(agent_id, status="available", name=None):
    return c.Agent(agent_id, name or f"Agent {agent_id}", "Sales", status, T0, None)


def status_event(seq, agent_id, status, name=None):
    when = T0 + timedelta(seconds=seq)
    return c.Event("agent.status", "org", seq, when, c.AgentChanged(agent(agent_id, status, name)))


@pytest.fixture
async def feed():
    async with running_feed([agent("a1"), agent("a2")]) as f:
        yield f


async def connect(user):
    ws = await socket_for(user)
    connected, _ = await ws.connect()
    assert connected
    return ws


async def test_it_sends_the_whole_view_on_connect(feed, bob):
    ws = await connect(bob)
    first = await ws.receive_from(timeout=2)
    assert '<div id="agents" class="agents">' in first
    assert 'id="agent-a1"' in first and 'id="agent-a2"' in first
    assert 'id="kpis"' in first and 'data-state="connected"' in first
    await ws.disconnect()


async def test_it_then_sends_only_what_changed(feed, bob):
    ws = await connect(bob)
    await ws.receive_from(timeout=2)
    feed.event(status_event(1, "a2", "paused"))
    change = await ws.receive_from(timeout=2)
    assert 'id="agent-a2"' in change and 'data-state="paused"' in change
    assert 'id="agent-a1"' not in change and 'id="agents"' not in change
    await ws.disconnect()


async def test_it_sends_plain_ascii_that_still_reads_as_the_names_and_icons(feed, bob):
    """Non-ASCII goes out as character references (a cheaper write per socket); what the
    browser reads is unchanged."""
    ws = await connect(bob)
    assert (await ws.receive_from(timeout=2)).isascii()
    feed.event(status_event(1, "a2", "on_call", name="Zoë Müller ☎ 李"))
    change = await ws.receive_from(timeout=2)
    assert change.isascii()
    assert "Zoë Müller ☎ 李" in html.unescape(change) and "On call" in change
    await ws.disconnect()


async def test_it_coalesces_a_burst_into_one_push_with_the_newest_state(feed, bob):
    ws = await connect(bob)
    await ws.receive_from(timeout=2)
    feed.event(status_event(1, "a1", "ringing"))  # after a quiet tick: goes at once
    first = await ws.receive_from(timeout=2)
    assert 'data-state="ringing"' in first
    for seq, status in enumerate(["on_call", "wrap_up", "available", "paused"], start=2):
        feed.event(status_event(seq, "a1", status))
    feed.event(status_event(6, "a2", "offline"))
    burst = await ws.receive_from(timeout=2)
    assert burst.count('id="agent-a1"') == 1 and 'data-state="paused"' in burst
    assert 'id="agent-a2"' in burst
    # The KPI strip, rendered at most every KPI_EVERY_S, follows on its own: no tile again.
    # (It comes with the burst when the last strip is that old: a slow connect, say.)
    if 'id="kpis"' not in burst:
        kpis = await ws.receive_from(timeout=2)
        assert 'id="kpis"' in kpis and 'id="agent-' not in kpis
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_it_resends_the_whole_view_after_a_dropped_push(feed, bob):
    ws = await connect(bob)
    await ws.receive_from(timeout=2)
    feed.publisher.version += 1  # as if a push had been dropped on the way to this socket
    feed.event(status_event(1, "a2", "paused"))
    resent = await ws.receive_from(timeout=2)
    assert '<div id="agents" class="agents">' in resent and 'data-state="paused"' in resent
    await ws.disconnect()


async def test_it_shows_hostile_names_as_text(feed, bob):
    ws = await connect(bob)
    await ws.receive_from(timeout=2)
    feed.event(status_event(1, "a1", "available", name=XSS))
    change = await ws.receive_from(timeout=2)
    assert XSS not in change
    assert "&lt;img src=x onerror=alert(1)&gt;" in change
    await ws.disconnect()


async def test_it_ignores_whatever_a_browser_sends(feed, carol):
    ws = await connect(carol)
    await ws.receive_from(timeout=2)
    await ws.send_to(text_data='{"HEADERS": {}, "evil": true}')
    await ws.send_to(bytes_data=b"\x00\xff" * 1000)
    feed.event(status_event(1, "a1", "paused"))
    assert 'data-state="paused"' in await ws.receive_from(timeout=2)
    await ws.disconnect()


async def test_it_closes_browsers_with_1012_when_the_server_restarts(feed, alice):
    from dashboard.live import fanout
    from dashboard.testing.sockets import socket_for

    live = await connect(alice)
    await live.receive_from(timeout=2)
    coaching = await socket_for(alice, "/ws/coaching/")
    assert (await coaching.connect())[0]
    assert 'id="upstream"' in await coaching.receive_from(timeout=2)
    await fanout.close_all()
    for ws in (live, coaching):
        assert await ws.receive_output(timeout=2) == {"type": "websocket.close", "code": 1012}
