"""The wallboard socket: the live feed framed for the link's panels (and nothing else) for
a valid link; a tampered, expired or revoked link is told so and closed with 4403 (htmx
does not retry)."""

from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.test import Client

from config.asgi import application
from dashboard.shared.cache_keys import SNAPSHOT_KEY
from dashboard.testing.feeds import running_feed
from dashboard.testing.links import make_link, tampered
from dashboard.testing.processes import await_until
from dashboard.testing.sockets import Communicator, following, socket_for
from dashboard.upstream import contract as c
from dashboard.wallboard import catching_up
from dashboard.wallboard.build import build_id

pytestmark = pytest.mark.django_db(transaction=True)
T0 = datetime.now(UTC)
CAMPAIGN = c.Campaign("cmp-1", "Spring renewals", "active", "predictive", 200, 50, 20, 5, T0)
CALL = c.Call("call-9", "a1", None, "inbound", "in_progress", False, T0)
LEADERS = {"qa_leaderboard": [{"agent_id": "a2", "scored": 3, "avg_pct": 91.5, "pass_pct": 100}]}


def agent(agent_id, status="available", name=None):
    return c.Agent(agent_id, name or f"Agent {agent_id}", "Sales", status, T0, None)


@pytest.fixture
async def feed():
    async with running_feed([agent("a1"), agent("a2", name="Ada Lovelace")]) as f:
        yield f


def call_started(seq=1):
    return c.Event("call.started", "org", seq, T0, c.CallStarted(CALL))


def wallboard_socket(token):
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000")]
    return Communicator(application, f"/ws/wallboard/{token}/", headers=headers)


async def open_board(link):
    """Connect; returns the socket and its snapshot (after the build id)."""
    ws = wallboard_socket(link.token)
    connected, _ = await ws.connect()
    assert connected
    build = await ws.receive_from(timeout=2)
    assert f'data-build="{build_id()}"' in build
    view = await ws.receive_from(timeout=2)
    await following(link.group)  # it joins after the snapshot and a read of the banner
    return ws, view


async def closed_with(ws, reason):
    notice = await ws.receive_from(timeout=5)
    assert f'data-reason="{reason}"' in notice
    assert await ws.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}


async def test_it_sends_a_valid_link_the_build_the_view_and_its_panels(feed):
    link = await sync_to_async(make_link)()
    ws, view = await open_board(link)
    assert '<div id="agents" class="agents">' in view and 'id="kpis"' in view
    assert 'id="wb-campaigns"' in view and 'id="wb-qa"' in view and 'id="wb-alerts"' in view
    feed.event(c.Event("agent.status", "org", 1, T0, c.AgentChanged(agent("a1", "paused"))))
    change = await ws.receive_from(timeout=2)
    assert 'id="agent-a1"' in change and 'data-state="paused"' in change
    assert "wb-campaigns" not in change  # the panels did not change: not resent
    await ws.disconnect()


async def test_it_never_sends_a_wallboard_call_rows(feed):
    link = await sync_to_async(make_link)()
    ws, view = await open_board(link)
    assert 'id="calls-list"' not in view
    feed.event(call_started())
    change = await ws.receive_from(timeout=2)
    assert 'id="agent-a1"' in change and "call-9" not in change
    await ws.disconnect()


async def received(ws) -> list[str]:
    """The next frame, then every one until the socket has been quiet for half a second
    (five ticks). The first is waited for longer: a loaded machine may take that long to
    push it."""
    frames = [await ws.receive_from(timeout=5)]
    while not await ws.receive_nothing(timeout=0.5):
        frames.append(await ws.receive_from(timeout=1))
    return frames


async def test_a_kpi_only_link_is_sent_the_kpis_and_nothing_else(feed):
    """No agent tiles (names), calls, queues, QA leaderboard or campaigns: at connect and in
    every push."""
    link = await sync_to_async(make_link)(panels=["kpis"])
    ws, view = await open_board(link)
    assert 'id="kpis"' in view and 'id="upstream"' in view
    feed.event(call_started())
    feed.campaigns([CAMPAIGN])  # a new campaign name: its calls and their tiles redrawn
    feed.set_figures({**LEADERS, "open_alerts": {"critical": 2}})
    pushed = await received(ws)
    assert any('id="kpis"' in frame for frame in pushed)
    assert feed.view.panel_html["qa"].count("Ada Lovelace") == 1  # the feed did render the panels
    for frame in [view, *pushed]:
        for absent in ('id="agent', "Agent a1", "Ada Lovelace", "call-9", "calls-list"):
            assert absent not in frame
        for absent in ("queues-list", "wb-campaigns", "Spring renewals", "wb-qa", "wb-alerts"):
            assert absent not in frame
    await ws.disconnect()


async def test_it_fans_out_campaigns_and_figures_to_wallboards_only(feed, bob):
    link = await sync_to_async(make_link)()
    board, _ = await open_board(link)
    live = await socket_for(bob)
    assert (await live.connect())[0]
    await live.receive_from(timeout=2)
    feed.campaigns([CAMPAIGN])
    feed.set_figures({**LEADERS, "open_alerts": {"critical": 2, "info": 1}})
    panels = "".join(await received(board))
    assert "Spring renewals" in panels and 'value="25.0"' in panels  # 50 of 200 dialled
    assert "40%" in panels and "25%" in panels  # connected ÷ dialled, booked ÷ connected
    assert "Ada Lovelace" in panels and "91.5%" in panels
    assert '<p class="wb-alerts-total num">3</p>' in panels
    pushed = "".join(await received(live))  # the supervisor's view is pushed, not the panels
    assert all(panel not in pushed for panel in ("wb-campaigns", "wb-qa", "wb-alerts"))
    await board.disconnect()
    await live.disconnect()


async def test_it_resends_the_whole_board_after_a_dropped_push(feed):
    link = await sync_to_async(make_link)(panels=["agents", "qa"])
    ws, _ = await open_board(link)
    feed.publisher.version += 1  # as if a push had been dropped on the way to this socket
    feed.event(c.Event("agent.status", "org", 1, T0, c.AgentChanged(agent("a2", "paused"))))
    view = await ws.receive_from(timeout=2)
    assert '<div id="agents" class="agents">' in view and 'data-state="paused"' in view
    assert 'id="wb-qa"' in view and "wb-campaigns" not in view and 'id="kpis"' not in view
    await ws.disconnect()


async def test_it_closes_a_tampered_token_with_4403(feed):
    link = await sync_to_async(make_link)()
    for token in (tampered(link.token), "not-a-token"):
        ws = wallboard_socket(token)
        assert (await ws.connect())[0]
        await closed_with(ws, "invalid")


async def test_it_closes_an_expired_or_revoked_link_at_connect(feed):
    expired = await sync_to_async(make_link)(expires_in=timedelta(seconds=-1))
    revoked = await sync_to_async(make_link)(revoked=True)
    for link, reason in ((expired, "expired"), (revoked, "revoked")):
        ws = wallboard_socket(link.token)
        assert (await ws.connect())[0]
        await closed_with(ws, reason)


async def test_it_closes_open_sockets_when_a_manager_revokes_the_link(feed, alice):
    link = await sync_to_async(make_link)()
    other = await sync_to_async(make_link)("Other TV")
    screens = [(await open_board(link))[0], (await open_board(link))[0]]
    bystander, _ = await open_board(other)
    client = Client()
    await sync_to_async(client.force_login)(alice)
    response = await sync_to_async(client.post)(f"/wallboards/{link.pk}/revoke/")
    assert response.status_code == 302
    for ws in screens:
        await closed_with(ws, "revoked")
    assert await bystander.receive_nothing(timeout=0.5)  # another link's screen stays on
    await bystander.disconnect()


async def test_it_closes_an_open_socket_when_its_link_expires(feed):
    link = await sync_to_async(make_link)(expires_in=timedelta(seconds=2))
    ws, _ = await open_board(link)
    await closed_with(ws, "expired")


def version_after(v0):
    def pushed():
        stored = cache.get(SNAPSHOT_KEY)
        return stored and stored[0] > v0

    return pushed


async def test_a_screen_that_says_it_is_behind_is_sent_whole_panels_at_its_pace(feed, monkeypatch):
    """The pushes are held back: each painted refresh is followed by the next, with every
    change since merged in; then the socket follows the pushes again from there."""
    link = await sync_to_async(make_link)(panels=["agents", "kpis"])
    ws, _ = await open_board(link)
    await ws.send_to(text_data="not json")  # ignored, as any other browser's noise
    await ws.send_to(text_data='{"behind": true}')
    first = await ws.receive_from(timeout=5)
    assert '<div id="agents" class="agents">' in first and 'id="kpis"' in first
    assert 'id="wb-catching-up"' in first and 'data-refresh="1"' in first
    assert "nothing is lost" in first and "hidden" not in first.split('id="wb-catching-up"')[1]
    v0 = (await sync_to_async(cache.get)(SNAPSHOT_KEY))[0]
    feed.event(c.Event("agent.status", "org", 1, T0, c.AgentChanged(agent("a1", "paused"))))
    await await_until(version_after(v0), 5, "the push of a1's pause", interval=0.02)
    await ws.send_to(text_data='{"painted": 1}')
    second = await ws.receive_from(timeout=10)  # not the push: the next whole refresh
    assert 'data-refresh="2"' in second and '<div id="agents" class="agents">' in second
    assert 'id="agent-a1"' in second and 'data-state="paused"' in second
    monkeypatch.setattr(catching_up, "HOLD_S", 0.0)  # refreshed long enough: pushes again
    await ws.send_to(text_data='{"painted": 2}')
    assert 'data-refresh="3"' in await ws.receive_from(timeout=10)  # after REFRESHES of them
    await ws.send_to(text_data='{"painted": 3}')
    done = await ws.receive_from(timeout=10)
    assert 'id="wb-catching-up"' in done and "hidden" in done and "nothing is lost" not in done
    await following(link.group)
    v1 = (await sync_to_async(cache.get)(SNAPSHOT_KEY))[0]
    feed.event(c.Event("agent.status", "org", 2, T0, c.AgentChanged(agent("a2", "paused"))))
    await await_until(version_after(v1), 5, "the push of a2's pause", interval=0.02)
    change = await ws.receive_from(timeout=5)
    assert 'id="agent-a2"' in change and 'data-state="paused"' in change
    assert '<div id="agents"' not in change  # one tile, not the whole panel
    await ws.disconnect()
