"""Websocket consumers that push pre-rendered htmx fragments to browsers.

Fragments are rendered once per change by whoever publishes them and arrive here as one
string; a consumer's only per-browser work is the socket write.
"""

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.cache import cache
from django.template.loader import render_to_string

from dashboard.accounts.roles import RANK, WALLBOARD, user_role
from dashboard.accounts.sockets import CLOSE_FORBIDDEN, CLOSE_SIGNED_OUT, AccessGuard

from . import fanout
from .feed import GROUP, SNAPSHOT_KEY, STATUS_GROUP, STATUS_KEY
from .groups import FLOOR_CHARTS

WAITING = (
    '<div id="upstream" hidden data-state="connecting" data-since="">waiting for the feed</div>'
)


class PushConsumer(AccessGuard, AsyncWebsocketConsumer):
    """Lets in signed-in people holding `minimum_role`, joins `group`, forwards its pushes.
    Groups are joined through the process's relay (fanout.py), not one membership each.
    The socket closes when its person loses that access, and reconnects now and then
    (AccessGuard).

    Browsers have nothing to say on these sockets: whatever they send is ignored.
    """

    minimum_role = WALLBOARD
    group = ""
    also: tuple[str, ...] = (STATUS_GROUP,)  # the header's freshness indicator

    async def connect(self):
        role = await database_sync_to_async(user_role)(self.scope.get("user"))
        if role is None or RANK[role] < RANK[self.minimum_role]:
            # Accept, then close with the reason: a refused handshake reaches the browser as
            # 1006, which htmx retries for ever instead of showing "signed out".
            await self.accept()
            await self.close(code=CLOSE_SIGNED_OUT if role is None else CLOSE_FORBIDDEN)
            return
        await self.accept()
        await self.guard()
        await self.send_snapshot()
        for group in (self.group, *self.also):  # after the snapshot: no push overtakes it
            await fanout.join(self, group)

    async def send_snapshot(self):
        """Send what the page needs to be right at once; here, the upstream status."""
        status = await cache.aget(STATUS_KEY)
        if status:
            await self.send(text_data=render_to_string("live/_upstream.html", {"status": status}))

    async def disconnect(self, code):
        await self.unguard()
        for group in (self.group, *self.also):
            await fanout.leave(self, group)

    async def receive(self, text_data=None, bytes_data=None):
        return None

    async def push_html(self, event):
        await self.send(text_data=event["html"])


class LiveConsumer(PushConsumer):
    """The live view. Pushes are versioned: one that does not follow the version this
    browser has means a push was dropped (channel layers drop silently when a member is
    full), so the browser gets the whole current view again instead."""

    group = GROUP
    also = (FLOOR_CHARTS,)  # the live pushes carry the upstream status themselves
    version = 0

    async def send_snapshot(self):
        # Not `cache.aget`: that waits in Django's one shared sync thread (see feed.push).
        snapshot = await sync_to_async(cache.get, thread_sensitive=False)(SNAPSHOT_KEY)
        if snapshot is None:
            self.version = 0
            await self.send(text_data=WAITING)
            return
        self.version, html, board = snapshot
        await self.forward(html, board)

    async def live_push(self, event):
        if event["version"] <= self.version:
            return  # already in the view this browser has
        if event["prev"] != self.version:
            await self.send_snapshot()  # the cache is written before every push
            return
        self.version = event["version"]
        await self.forward(event["html"], event["board"])

    async def forward(self, html: str, board: str):
        """Send a push on; `board` (the wallboard's own panels) is not for the live view."""
        await self.send(text_data=html)
