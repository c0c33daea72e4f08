"""One channel-layer membership per process and group, fanned out to its sockets in process.

With each browser's consumer in the group itself, one push to N browsers costs N layer
sends (a deepcopy and a task each), N queue wake-ups and N dispatches before the N socket
writes (docs/performance.md). Here one relay per process and group receives each push
once. A push (`push.html`, or the versioned `live.push` with its parts) is framed once per
audience present in the process (`Shows`: the live view, each wallboard panel set; None:
the push's own html) and then:

- under our server (server.py, the `dashboard.fanout` extension in the scope) handed to
  its hub once per audience, which writes the same frame to every socket of that audience,
  the event loop let run between audiences every `SLICE_S` of CPU: at 10,000 agents a push
  goes to some 100 audiences and 1,000 sockets (a `send` each, some 10 ms in all), which
  the service's events would otherwise wait behind;
- elsewhere (Channels' test communicator, another ASGI server) handed to each consumer's
  `take_push`, which checks the version and sends it: today's path, per socket.

Other messages (a revoked kiosk link, say) go to each member's handler. The relay lives
while its group has sockets in this process and re-joins the group hourly, inside the
layer's group expiry, and after the layer failed (a Redis restarted empty forgets groups).
"""

import asyncio
import contextlib
import logging

from channels.consumer import get_handler_name

from dashboard.shared import metrics
from dashboard.shared.aio import Slices
from dashboard.shared.close_codes import CLOSE_RESTARTING

from .hub import EXTENSION, JOIN, LEAVE

log = logging.getLogger("dashboard.live.fanout")
REJOIN_S = 3600
SLICE_S = 0.002  # of the loop thread's CPU, between two turns of the loop in a fan-out
BROADCASTS = {"push.html", "live.push"}

_relays: dict[str, "Relay"] = {}


def server_group(group: str, audience) -> str:
    """The hub's name for one audience of a layer group."""
    return group if audience is None else f"{group}/{audience.name}"


def hub_of(consumer):
    """The server's broadcast, when the server offers the fan-out extension."""
    extension = (consumer.scope.get("extensions") or {}).get(EXTENSION)
    return extension and extension["broadcast"]


class Relay:
    def __init__(self, layer, group: str):
        self.layer, self.group = layer, group
        self.loop = asyncio.get_running_loop()
        self.members: dict = {}  # consumer -> its audience
        self.audiences: dict = {}  # audience -> {consumer: None}
        self.broadcast = None  # the hub's, under our server
        self.channel = ""
        self.tasks: list[asyncio.Task] = []
        self.started = False
        self.joined = asyncio.Event()

    def add(self, consumer, audience):
        self.members[consumer] = audience
        self.audiences.setdefault(audience, {})[consumer] = None
        self.broadcast = hub_of(consumer)

    def discard(self, consumer):
        audience = self.members.pop(consumer, None)
        members = self.audiences.get(audience)
        if members is not None:
            members.pop(consumer, None)
            if not members:
                del self.audiences[audience]

    async def start(self):
        """Join, then listen. `started` is set before the first await, so two sockets
        arriving together (the Redis layer yields in group_add) cannot start two relays:
        the second waits for `joined`."""
        self.started = True
        self.channel = await self.layer.new_channel()
        await self.join_group()
        self.tasks = [asyncio.ensure_future(self.relay()), asyncio.ensure_future(self.rejoin())]
        self.joined.set()

    async def join_group(self):
        while True:
            try:
                await self.layer.group_add(self.group, self.channel)
                return
            except Exception:  # the layer's trouble (Redis away): wait, then try again
                log.exception("joining group %s failed; retrying", self.group)
                await asyncio.sleep(1)

    async def stop(self):
        if self.tasks:
            tasks, self.tasks, self.started, self.joined = self.tasks, [], False, asyncio.Event()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.layer.group_discard(self.group, self.channel)

    async def relay(self):
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except Exception as error:  # the layer's trouble (Redis away): wait, then listen
                metrics.store_error(error)
                log.exception("receiving %s's pushes failed; retrying", self.group)
                await asyncio.sleep(1)
                # A Redis that restarted empty has forgotten the group's members.
                await self.join_group()
                continue
            if message.get("type") in BROADCASTS:
                await self.fan_out(message)
                metrics.pushed(message)
            else:
                for consumer in list(self.members):
                    await self.hand(consumer, getattr(consumer, get_handler_name(message)), message)

    async def fan_out(self, message: dict):
        version, prev = message.get("version"), message.get("prev")
        slices = Slices(SLICE_S)
        for audience, members in list(self.audiences.items()):
            if slices.spent():
                await slices.turn()  # each audience's sockets are written in one piece
            try:
                text = audience.frame(message) if audience else message["html"]
                if self.broadcast:
                    self.broadcast(server_group(self.group, audience), text, version, prev)
                    continue
            except Exception:  # a push that cannot be framed: the next one's version resyncs
                log.exception("push %s to group %s failed", message.get("type"), self.group)
                continue
            for consumer in list(members):
                await self.hand(consumer, consumer.take_push, text, version, prev)

    async def hand(self, consumer, handler, *args):
        try:
            await handler(*args)
        except Exception:  # one socket's failure is not the others'
            log.exception("a push to a socket failed; closing it")
            self.discard(consumer)
            with contextlib.suppress(Exception):
                await consumer.close(code=CLOSE_RESTARTING)  # htmx reconnects, resyncs

    async def rejoin(self):
        """Channel layers drop group members after a day (`group_expiry`); a wallboard
        stays for weeks, and a quiet group may see no push for days."""
        while True:
            await asyncio.sleep(REJOIN_S)
            try:
                await self.layer.group_add(self.group, self.channel)
            except Exception:
                log.exception("re-joining group %s failed; trying again later", self.group)


async def attach(consumer, group: str, audience=None) -> "Relay":
    """Have this process's relay frame `group`'s pushes for `audience` from now on. Under our
    server, a socket attaches before reading its snapshot: the hub then keeps the pushes it
    may miss until it joins (hub.py's history)."""
    relay = _relays.get(group)
    if relay is None or relay.loop is not asyncio.get_running_loop():
        if relay is not None:  # its loop is gone (tests run one loop each): leave the group
            with contextlib.suppress(Exception):
                await relay.layer.group_discard(group, relay.channel)
        relay = _relays[group] = Relay(consumer.channel_layer, group)
    relay.add(consumer, audience)
    if not relay.started:
        await relay.start()  # the in-memory layer never yields here: joined at once
    await relay.joined.wait()
    return relay


async def join(consumer, group: str, audience=None, version: int | None = None):
    """Deliver `group`'s messages to `consumer`, framed for its `audience`; `version` is the
    version of the view it was last sent, for a versioned group."""
    await attach(consumer, group, audience)
    if hub_of(consumer):  # after what this socket was sent: no push overtakes it
        await consumer.base_send(
            {"type": JOIN, "group": server_group(group, audience), "version": version}
        )


async def leave(consumer, group: str):
    relay = _relays.get(group)
    if relay and consumer in relay.members:
        audience = relay.members[consumer]
        relay.discard(consumer)
        if hub_of(consumer):
            await consumer.base_send({"type": LEAVE, "group": server_group(group, audience)})
        if not relay.members:
            await relay.stop()


async def close_all():
    """Close this process's sockets with 1012 (a restart: htmx reconnects, to another
    worker if need be). Not a group message: with Redis that would reach every worker's."""
    for relay in list(_relays.values()):
        if relay.loop is asyncio.get_running_loop():
            for consumer in list(relay.members):
                with contextlib.suppress(Exception):
                    await consumer.close(code=CLOSE_RESTARTING)
