"""The wallboard's socket: the live pushes framed for the link's panels, for whoever holds
a valid kiosk link. No sign-in; the token in the path is the credential.

A link is sent only the panels it was made with (at connect and in every push): links
with the same panels are one audience of the fan-out, with one frame per push.
A revoked link's sockets hear it through the link's group (across workers); an expiring
one closes itself at the expiry time. Either way the screen is told why before the close.
A screen that says it cannot keep up is sent whole panels at its pace (catching_up.py).
"""

import asyncio

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import format_html

from dashboard.live import fanout
from dashboard.live.audiences import wallboard
from dashboard.live.consumers import LiveConsumer
from dashboard.live.handshake import in_thread
from dashboard.live.whole import VIEWS
from dashboard.shared import metrics
from dashboard.shared.cache_keys import alerts_key
from dashboard.shared.close_codes import CLOSE_FORBIDDEN
from dashboard.shared.groups import ALERTS_BOARD, ALERTS_BOARD_AGENTS

from .build import build_id
from .catching_up import Refresher, said
from .models import KioskLink


def closed_html(reason: str, link: KioskLink | None = None) -> str:
    return render_to_string("wallboard/_closed.html", {"reason": reason, "link": link})


class WallboardConsumer(LiveConsumer):
    also = ()  # the link's group, once known
    expiry: asyncio.Task | None = None
    refresher: Refresher | None = None

    async def connect(self):
        token = self.scope["url_route"]["kwargs"]["token"]
        link = await in_thread(KioskLink.from_token)(token)
        # Accept before closing: a refused handshake reaches the browser as 1006, which
        # htmx retries; 4403 it does not, and the screen has been told why.
        await self.accept()
        if link is None or link.state != KioskLink.ACTIVE:
            await self.refuse(link.state if link else "invalid", link)
            return
        # The alerts' banner: a link that shows no agents is not told about one agent.
        banner = ALERTS_BOARD_AGENTS if "agents" in link.panels else ALERTS_BOARD
        self.also, self.audience = (link.group, banner), wallboard(link.panels)
        metrics.socket_opened(self)
        await self.send(
            text_data=format_html('<div id="build" hidden data-build="{}"></div>', build_id())
        )
        await self.send_snapshot()
        alerts = await in_thread(cache.get)(alerts_key(banner))
        if alerts:
            await self.send(text_data=alerts)
        await self.follow()
        self.refresher = Refresher(self)
        self.expiry = asyncio.ensure_future(self.expire(link))

    async def receive(self, text_data=None, bytes_data=None):
        if self.refresher:
            self.refresher.hear(said(text_data))

    async def stop_following(self):
        """While the screen is sent whole panels: none of the live pushes."""
        await fanout.leave(self, self.group)

    async def refresh(self) -> str:
        """The link's panels as they are now, as one frame ("" before the first push)."""
        whole, _ = await VIEWS.read(self.audience, ())
        if whole is None:
            return ""
        self.version = whole.head[0]
        return whole.text

    async def resume(self):
        """The live pushes again, from the version of the last refresh."""
        await fanout.join(self, self.group, self.audience, self.version)

    async def dashboard_fanout_resync(self, event):
        if not (self.refresher and self.refresher.running):  # it sends whole panels anyway
            await super().dashboard_fanout_resync(event)

    async def expire(self, link: KioskLink):
        await asyncio.sleep(max(0.0, (link.expires_at - timezone.now()).total_seconds()))
        await self.refuse(KioskLink.EXPIRED, link)

    async def refuse(self, reason: str, link: KioskLink | None):
        await self.send(text_data=closed_html(reason, link))
        await self.close(code=CLOSE_FORBIDDEN)

    async def disconnect(self, code):
        if self.expiry:
            self.expiry.cancel()
        if self.refresher:
            self.refresher.stop()
        if self.also:
            await super().disconnect(code)

    async def wallboard_revoked(self, event):
        await self.refuse(KioskLink.REVOKED, None)
