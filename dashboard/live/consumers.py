"""Websocket consumers that push pre-rendered htmx fragments to browsers.

Fragments are rendered once per change by whoever publishes them, framed once per audience
and written to the sockets by the process's fan-out (fanout.py, hub.py): a consumer sends
its browser the snapshot on connect (and again when the fan-out says it missed pushes),
then follows its groups. Handshakes never wait in Django's one shared sync thread
(handshake.py), where a sign-in's password hash runs.
"""

from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.cache import cache
from django.template.loader import render_to_string

from dashboard.accounts import scope
from dashboard.accounts.roles import RANK, WALLBOARD, user_role
from dashboard.accounts.sockets import AccessGuard
from dashboard.shared import metrics
from dashboard.shared.cache_keys import (
    COACHING_OFFERS_KEY,
    STATUS_KEY,
    TEAMS_KEY,
    alerts_key,
)
from dashboard.shared.close_codes import CLOSE_FORBIDDEN, CLOSE_SIGNED_OUT
from dashboard.shared.groups import ALERTS, FLOOR_CHARTS, LIVE_GROUP, STATUS_GROUP

from . import fanout
from .audiences import LIVE_VIEW, Shows
from .handshake import in_thread
from .hub import SEND
from .whole import VIEWS, Whole

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
    also: tuple[str, ...] = (STATUS_GROUP, ALERTS)  # the header's freshness and alert tray
    audience = None  # what `group`'s pushes are framed for (None: each push's html)
    version = None  # the version of the view sent, for a versioned group

    async def dispatch(self, message):
        """Channels' dispatch, without closing old database connections first: that runs in
        Django's one shared sync thread, behind any sign-in's password hash. Every database
        call here closes its own (`in_thread`)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self):
        role = await in_thread(user_role)(self.scope.get("user"))
        if role is None or RANK[role] < RANK[self.minimum_role]:
            # Accept, then close with the reason: a refused handshake reaches the browser as
            # 1006, which htmx retries for ever instead of showing "signed out".
            await self.accept()
            await self.close(code=CLOSE_SIGNED_OUT if role is None else CLOSE_FORBIDDEN)
            return
        await self.accept()
        metrics.socket_opened(self)
        await self.guard()
        await self.send_snapshot()
        await self.follow()

    async def follow(self):
        """Join the groups, after the snapshot: no push overtakes it."""
        await fanout.join(self, self.group, self.audience, self.version)
        for group in self.also:
            await fanout.join(self, group)

    async def send_snapshot(self):
        """Send what the page needs to be right at once; here, the upstream status (and the
        alert tray: a browser that reconnects may have missed its pushes)."""
        got = await in_thread(cache.get_many)([STATUS_KEY, *self.tray_key()])
        status = got.get(STATUS_KEY)
        if status:
            await self.send(text_data=render_to_string("live/_upstream.html", {"status": status}))
        await self.send_tray(got)

    def tray_key(self) -> list[str]:
        """The cache keys of the alert tray and its offers (dashboard/alerts/), for sockets
        that follow it: a page loaded before a push and joined after it is right at once."""
        return [alerts_key(ALERTS), COACHING_OFFERS_KEY] if ALERTS in self.also else []

    async def send_tray(self, got: dict):
        """The tray and its offers in one frame (each replaces its element by id)."""
        parts = [got[key] for key in self.tray_key() if got.get(key)]
        if parts:
            await self.send(text_data="".join(parts))

    async def disconnect(self, code):
        metrics.socket_closed(self)
        await self.unguard()
        for group in (self.group, *self.also):
            await fanout.leave(self, group)

    async def receive(self, text_data=None, bytes_data=None):
        return None

    async def dashboard_fanout_resync(self, event):
        """The server skipped pushes to this socket (it fell behind, or missed one): the
        whole view again, then the pushes that follow it."""
        await self.send_snapshot()
        await self.follow()

    async def take_push(self, text: str, version: int | None = None, prev: int | None = None):
        """A push, where the server has no fan-out of its own (fanout.py). A versioned one
        that does not follow the version this browser has means one was dropped (channel
        layers drop silently when a member is full): the whole view goes instead."""
        if version is not None:
            if version <= self.version:
                return  # already in the view this browser has
            if prev != self.version:
                await self.send_snapshot()  # the cache is written before every push
                return
            self.version = version
        if text:  # "": nothing this page shows changed
            await self.send(text_data=text)


class LiveConsumer(PushConsumer):
    """The live view. Pushes are versioned (see `take_push`); each audience is sent only
    the parts its page shows (the live view: agents, calls, queues, KPIs and status)."""

    group = LIVE_GROUP
    also = (FLOOR_CHARTS, ALERTS)  # the live pushes carry the upstream status themselves
    audience = LIVE_VIEW
    version = 0

    first_snapshot = True

    def query(self, name: str) -> str:
        query = parse_qs(self.scope.get("query_string", b"").decode("utf-8", "replace"))
        return (query.get(name) or [""])[0]

    async def connect(self):
        """The page's team set (`?teams=`, accounts/scope.py) picks the KPI strip it is sent."""
        teams = scope.parse(self.query("teams"))
        if teams:
            self.audience = Shows(LIVE_VIEW.parts, teams)
        await super().connect()

    def rendered_version(self) -> int | None:
        """The version of the view the page was rendered with (`?v=` on the socket's URL)."""
        version = self.query("v")
        return int(version) if version.isdigit() else None

    async def send_snapshot(self):
        """The whole view, and the alert tray as last rendered; the view not at connect when
        the page was rendered with this very version (the floor is on screen already: the
        pushes after it follow), nor under the server's fan-out when it was rendered with an
        older one: the hub writes the pushes since (hub.py), or asks for the view when it no
        longer has them all."""
        if fanout.hub_of(self):  # the hub keeps what is pushed from now until the join
            await fanout.attach(self, self.group, self.audience)
        whole, got = await VIEWS.read(self.audience, (TEAMS_KEY, *self.tray_key()))
        if self.audience.teams:  # the feed renders its strip from its next push on
            await in_thread(scope.register)(self.audience.teams, got.get(TEAMS_KEY))
        rendered = self.rendered_version() if self.first_snapshot else None
        self.first_snapshot = False
        if whole is None:
            self.version = 0
            await self.send(text_data=WAITING)
        else:
            self.version = whole.head[0]
            if rendered is not None and rendered < self.version and fanout.hub_of(self):
                self.version = rendered
            elif self.version != rendered:
                await self.send_whole(whole)
        await self.send_tray(got)

    async def send_whole(self, whole: Whole):
        """The whole view: under our server, the frames it shares with the audience's other
        sockets that asked for it at this version (whole.py)."""
        if fanout.hub_of(self):
            await self.base_send({"type": SEND, "frames": whole.frames})
        else:
            await self.send(text_data=whole.text)


class StatusConsumer(PushConsumer):
    """The header's status and alert tray, for the signed-in pages that follow nothing else
    (the shell's socket, base.html): the same status line on every page."""

    group = STATUS_GROUP
    also = (ALERTS,)
