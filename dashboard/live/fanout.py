"""One channel-layer membership per process and group, fanned out to its sockets in process.

With each browser's consumer in the group itself, one push to N browsers costs N layer
sends (a deepcopy and a task each), N queue wake-ups and N dispatches before the N socket
writes; at 500 browsers and ten pushes a second that was most of the web process's time
(docs/performance.md). Here one relay per process and group receives each push once and
hands it to its consumers' handlers in turn: per browser, what is left is the handler
(for the live view, a version check) and the socket write. The relay lives while its group
has sockets in this process and re-joins the group hourly, inside the layer's group expiry.
"""

import asyncio
import contextlib
import logging

from channels.consumer import get_handler_name

log = logging.getLogger("dashboard.live.fanout")
REJOIN_S = 3600
CLOSE_RESTARTING = 1012  # htmx's websocket extension retries it (4xxx it does not)

_relays: dict[str, "Relay"] = {}


class Relay:
    def __init__(self, layer, group: str):
        self.layer, self.group = layer, group
        self.loop = asyncio.get_running_loop()
        self.members: set = set()
        self.channel = ""
        self.tasks: list[asyncio.Task] = []
        self.started = False
        self.joined = asyncio.Event()

    async def start(self):
        """Join, then listen. `started` is set before the first await, so two sockets
        arriving together (the Redis layer yields in group_add) cannot start two relays:
        the second waits for `joined`."""
        self.started = True
        self.channel = await self.layer.new_channel()
        while True:
            try:
                await self.layer.group_add(self.group, self.channel)
                break
            except Exception:  # the layer's trouble (Redis away): wait, then try again
                log.exception("joining group %s failed; retrying", self.group)
                await asyncio.sleep(1)
        self.tasks = [asyncio.ensure_future(self.relay()), asyncio.ensure_future(self.rejoin())]
        self.joined.set()

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
            except Exception:  # the layer's trouble (Redis away): wait, then listen again
                log.exception("receiving %s's pushes failed; retrying", self.group)
                await asyncio.sleep(1)
                continue
            for consumer in list(self.members):
                try:
                    await getattr(consumer, get_handler_name(message))(message)
                except Exception:  # one socket's failure is not the others'
                    log.exception("push %s to a socket failed; closing it", message.get("type"))
                    self.members.discard(consumer)
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


async def join(consumer, group: str):
    """Deliver `group`'s messages to `consumer`'s handlers, as if it were a member."""
    relay = _relays.get(group)
    if relay is None or relay.loop is not asyncio.get_running_loop():
        if relay is not None:  # its loop is gone (tests run one loop each): leave the group
            with contextlib.suppress(Exception):
                await relay.layer.group_discard(group, relay.channel)
        relay = _relays[group] = Relay(consumer.channel_layer, group)
    relay.members.add(consumer)
    if not relay.started:
        await relay.start()  # the in-memory layer never yields here: joined at once
    await relay.joined.wait()


async def leave(consumer, group: str):
    relay = _relays.get(group)
    if relay and consumer in relay.members:
        relay.members.discard(consumer)
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
