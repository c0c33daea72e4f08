"""Live pushes reach every open socket once, through one group membership per process."""

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache

from dashboard.live.feed import GROUP
from dashboard.testing.sockets import socket_for

pytestmark = pytest.mark.django_db(transaction=True)


def push(version, html):
    return {"type": "live.push", "version": version, "prev": version - 1, "html": html, "board": ""}


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
    for ws in sockets:
        assert await ws.receive_from(timeout=2) == "<p>one</p>"
        assert await ws.receive_nothing(timeout=0.1)
    for ws in sockets:
        await ws.disconnect()


async def test_it_goes_on_pushing_to_the_others_when_a_socket_leaves(bob):
    layer = get_channel_layer()
    first, *others = await open_sockets(bob, 3)
    await first.disconnect()
    await layer.group_send(GROUP, push(1, "<p>still here</p>"))
    for ws in others:
        assert await ws.receive_from(timeout=2) == "<p>still here</p>"
    for ws in others:
        await ws.disconnect()
    assert GROUP not in layer.groups  # the last socket out leaves the group


async def test_a_push_a_socket_cannot_take_closes_it_with_1012_and_the_relay_goes_on(bob):
    layer = get_channel_layer()
    sockets = await open_sockets(bob, 2)
    await layer.group_send(GROUP, {"type": "live.push", "html": "no version"})
    for ws in sockets:
        assert await ws.receive_output(timeout=2) == {"type": "websocket.close", "code": 1012}
    [fresh] = await open_sockets(bob, 1)
    await layer.group_send(GROUP, push(1, "<p>after</p>"))
    assert await fresh.receive_from(timeout=2) == "<p>after</p>"
    await fresh.disconnect()
