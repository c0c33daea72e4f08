"""Live pushes reach every open socket once, through one group membership per process
(here through the relay alone: Channels' test communicator offers no fan-out extension;
tests/live/test_server_fanout.py drives the server's)."""

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache

from dashboard.shared.groups import LIVE_GROUP as GROUP
from dashboard.testing.sockets import socket_for

pytestmark = pytest.mark.django_db(transaction=True)


def push(version, html):
    parts = {"agents": html, "calls": "<i>call</i>", "campaigns": "<b>panel</b>", "status": ""}
    return {"type": "live.push", "version": version, "prev": version - 1, "parts": parts}


async def open_sockets(user, n):
    await sync_to_async(cache.clear)()  # no snapshot: each socket starts at version 0
    sockets = []
    for _ in range(n):
        ws = await socket_for(user)
        assert (await ws.connect())[0]
        assert "waiting for the feed" in await ws.receive_from(timeout=2)
        sockets.append(ws)
    return sockets


async def test_it_pushes_each_change_to_every_open_socket_once(bob):
    layer = get_channel_layer()
    sockets = await open_sockets(bob, 3)
    assert len(layer.groups[GROUP]) == 1  # one membership for the process, not one a socket
    await layer.group_send(GROUP, push(1, "<p>one</p>"))
    for ws in sockets:  # the live view's parts; not the wallboard's panel
        assert await ws.receive_from(timeout=2) == "<p>one</p><i>call</i>"
        assert await ws.receive_nothing(timeout=0.1)
    for ws in sockets:
        await ws.disconnect()


async def test_it_goes_on_pushing_to_the_others_when_a_socket_leaves(bob):
    layer = get_channel_layer()
    first, *others = await open_sockets(bob, 3)
    await first.disconnect()
    await layer.group_send(GROUP, push(1, "<p>still here</p>"))
    for ws in others:
        assert await ws.receive_from(timeout=2) == "<p>still here</p><i>call</i>"
    for ws in others:
        await ws.disconnect()
    assert GROUP not in layer.groups  # the last socket out leaves the group


async def test_a_push_that_cannot_be_framed_is_logged_and_the_next_one_resyncs(bob, caplog):
    layer = get_channel_layer()
    sockets = await open_sockets(bob, 2)
    await layer.group_send(GROUP, {"type": "live.push", "version": 1, "prev": 0})  # no parts
    for ws in sockets:
        assert await ws.receive_nothing(timeout=0.3)  # still open, nothing sent
    assert "push live.push to group live failed" in caplog.text
    await layer.group_send(GROUP, push(2, "<p>after</p>"))
    for ws in sockets:  # version 2 does not follow 0: the whole view (none cached yet) instead
        assert "waiting for the feed" in await ws.receive_from(timeout=2)
        await ws.disconnect()
