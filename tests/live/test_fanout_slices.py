"""A push to many audiences lets the event loop run between them: the service's events
wait behind one audience's sockets at most, not behind the whole fan-out (fanout.py)."""

import asyncio

from channels.layers import get_channel_layer

from dashboard.live import fanout
from dashboard.live.audiences import Shows
from dashboard.live.hub import EXTENSION
from dashboard.testing.processes import await_until

GROUP = "slices-test"


class Socket:
    """A socket's consumer as the relay sees it, under a server offering the fan-out."""

    def __init__(self, broadcast):
        self.scope = {"extensions": {EXTENSION: {"broadcast": broadcast}}}
        self.channel_layer = get_channel_layer()

    async def base_send(self, message):
        """The join and leave messages to the server: the relay alone is tested here."""


async def test_the_loop_runs_between_the_audiences_of_one_push(monkeypatch):
    monkeypatch.setattr(fanout, "SLICE_S", 0)  # as if each audience took a slice's CPU
    loop, written = asyncio.get_running_loop(), []

    def broadcast(group, text, version, prev):
        if not written:  # what arrives meanwhile: it runs before the next audience's
            loop.call_soon(written.append, "the loop ran")
        written.append(text)

    sockets = [Socket(broadcast) for _ in range(3)]
    for n, socket in enumerate(sockets):
        await fanout.attach(socket, GROUP, Shows(("agents",), (f"Team {n}",)))
    try:
        parts = {f"agents@Team {n}": f"<p>{n}</p>" for n in range(3)}
        message = {"type": "live.push", "version": 1, "prev": 0, "parts": parts}
        await get_channel_layer().group_send(GROUP, message)
        await await_until(lambda: len(written) == 4, 10, "the push to every audience")
        assert written == ["<p>0</p>", "the loop ran", "<p>1</p>", "<p>2</p>"]
    finally:
        for socket in sockets:
            await fanout.leave(socket, GROUP)
