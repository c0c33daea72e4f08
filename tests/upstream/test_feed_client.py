"""The bridge's Socket.IO client against a python-socketio server over a real socket on
127.0.0.1: messages that arrive together are each handled once, as sent, binary ones (a
header, then its attachment) among them."""

import asyncio

import socketio
import uvicorn

from dashboard.testing.processes import await_until, free_port
from dashboard.upstream.feed_client import FeedClient

SENT = ["first", b"\x00\x01\x02", "after the attachment"]


async def test_messages_arriving_together_are_each_handled_as_sent():
    server = socketio.AsyncServer(async_mode="asgi")

    @server.on("go")
    async def go(sid, data=None):
        await server.emit("text", SENT[0], to=sid)
        await server.emit("binary", SENT[1], to=sid)
        await server.emit("text", SENT[2], to=sid)

    port = free_port()
    config = uvicorn.Config(socketio.ASGIApp(server), "127.0.0.1", port, log_level="error")
    serving = uvicorn.Server(config)
    task = asyncio.create_task(serving.serve())
    client = FeedClient(reconnection=False)
    got = []
    client.on("text", got.append)
    client.on("binary", got.append)
    try:
        await await_until(lambda: serving.started, 10)
        await client.connect(f"http://127.0.0.1:{port}", transports=["websocket"])
        for _ in range(20):  # twenty at once: their frames come in the same reads
            await client.emit("go")
        await await_until(lambda: len(got) >= 60, 10, lambda: f"60 events, got {got}")
        assert sorted(map(repr, got)) == sorted(map(repr, SENT * 20))
    finally:
        await client.disconnect()
        serving.should_exit = True
        await task
