"""An agent page's socket: its agent's tile on connect and on every change of that agent,
nothing of the others', from one message per push to the agent pages' group; the tile read
again from the cache after a dropped message."""

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache

from dashboard.drilldown import tiles
from dashboard.testing.feeds import running_feed
from dashboard.testing.sockets import closed_with, socket_for
from dashboard.upstream import contract as c

pytestmark = pytest.mark.django_db(transaction=True)
T0 = datetime.now(UTC)


def agent(agent_id, status="available"):
    return c.Agent(agent_id, f"Agent {agent_id}", "Sales", status, T0, None)


def status_event(seq, agent_id, status):
    when = T0 + timedelta(seconds=seq)
    return c.Event("agent.status", "org", seq, when, c.AgentChanged(agent(agent_id, status)))


@pytest.fixture
async def feed():
    async with running_feed([agent("a1"), agent("a2")]) as f:
        yield f


async def page_of(user, agent_id):
    ws = await socket_for(user, f"/ws/agents/{agent_id}/")
    assert (await ws.connect())[0]
    return ws


async def tile_of(ws, agent_id):
    """The next frame holding the agent's tile (the header's status may come first)."""
    while True:
        frame = await ws.receive_from(timeout=3)
        if f'id="agent-{agent_id}"' in frame:
            return frame


async def test_it_sends_the_agents_tile_on_connect_and_each_change_of_it_only(feed, bob):
    ws = await page_of(bob, "a1")
    first = await tile_of(ws, "a1")
    assert 'data-state="available"' in first and "agent-a2" not in first
    feed.event(status_event(1, "a2", "paused"))  # another agent's change: nothing
    feed.event(status_event(2, "a1", "on_call"))
    change = await tile_of(ws, "a1")
    assert 'data-state="on_call"' in change and "agent-a2" not in change
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_one_message_per_push_reaches_every_agent_page(feed, bob):
    """The feed sends the agent pages one message per push whatever their number."""
    layer = get_channel_layer()
    listener = await layer.new_channel()
    await layer.group_add(tiles.GROUP, listener)
    feed.event(status_event(1, "a1", "paused"))
    feed.event(status_event(2, "a2", "paused"))
    message = await asyncio.wait_for(layer.receive(listener), 3)
    assert set(message["tiles"]) == {"a1", "a2"} and message["type"] == "agent.tiles"
    await layer.group_discard(tiles.GROUP, listener)


async def test_a_dropped_message_is_made_good_from_the_cache(feed, bob):
    ws = await page_of(bob, "a1")
    await tile_of(ws, "a1")
    feed.event(status_event(1, "a1", "wrap_up"))
    await tile_of(ws, "a1")
    version, _ = await sync_to_async(tiles.current)("a1")
    # A push the channel layer dropped: the cache has it, the page never got it.
    await sync_to_async(cache.set_many)(
        {tiles.tile_key("a1"): '<div id="agent-a1" data-state="paused"></div>'},
        timeout=None,
    )
    await sync_to_async(cache.set)(tiles.VERSION_KEY, version + 1, None)
    publisher = next(s for s in feed.publisher.subscribers if isinstance(s, tiles.TilePublisher))
    publisher.version = version + 1  # the next message follows the dropped one
    feed.event(status_event(2, "a2", "on_call"))  # not this page's agent, but a gap
    resent = await tile_of(ws, "a1")
    assert 'data-state="paused"' in resent
    await ws.disconnect()


async def test_it_says_when_its_agent_leaves_the_floor(feed, bob):
    ws = await page_of(bob, "a1")
    await tile_of(ws, "a1")
    feed.snapshot([agent("a2")], [])
    assert "Not on the live floor now" in await tile_of(ws, "a1")
    assert await sync_to_async(cache.get)(tiles.tile_key("a1")) is None
    await ws.disconnect()


async def test_wallboard_viewers_and_signed_out_people_get_no_agent_page(carol):
    assert await closed_with(await socket_for(carol, "/ws/agents/a1/")) == 4403


async def test_a_thousand_agents_tiles_evict_nothing_else_from_the_cache():
    """One key per agent's tile: the in-process cache (no Redis) keeps them all and what
    else it holds (the service's organisation, which webhook processing waits for)."""
    await sync_to_async(cache.set)("dashboard:organization-probe", "org-a", None)
    shown = {f"a{i}": f'<div id="agent-a{i}"></div>' for i in range(1000)}
    await tiles.TilePublisher().on_tiles(shown, True)
    assert await sync_to_async(cache.get)("dashboard:organization-probe") == "org-a"
    kept = await sync_to_async(lambda: {a: tiles.current(a)[1] for a in shown})()
    assert kept == shown
