"""Websocket handshakes never wait in Django's one shared sync thread, where a sign-in's
password hash runs (docs/performance.md: 500 browsers reconnecting while 20 people sign in).
"""

import asyncio
import threading
from datetime import UTC, datetime

import pytest
from asgiref.sync import sync_to_async

from dashboard.testing.feeds import running_feed
from dashboard.testing.links import make_link
from dashboard.testing.sockets import communicator, socket_for
from dashboard.upstream import contract as c

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def feed():
    agent = c.Agent("a1", "Agent a1", "Sales", "available", datetime.now(UTC), None)
    async with running_feed([agent]) as f:
        yield f


async def test_sockets_connect_while_the_shared_sync_thread_is_held(feed, alice):
    live = await socket_for(alice)
    coaching = await socket_for(alice, "/ws/coaching/")
    board = communicator(path=f"/ws/wallboard/{(await sync_to_async(make_link)()).token}/")
    release = threading.Event()
    # What a sign-in does for half a second: hold the thread every sync view runs in.
    holding = asyncio.ensure_future(sync_to_async(release.wait, thread_sensitive=True)())
    try:
        for ws, first in ((live, 'id="agents"'), (coaching, 'id="upstream"'), (board, "build")):
            assert (await ws.connect(timeout=5))[0]
            assert first in await ws.receive_from(timeout=5)
            assert not holding.done()  # all of it while the thread was still held
    finally:
        release.set()
        await holding
    for ws in (live, coaching, board):
        await ws.disconnect()
