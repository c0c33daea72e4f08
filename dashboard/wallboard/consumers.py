"""The wallboard's socket: the live view's pushes plus the wallboard's own panels, for
whoever holds a valid kiosk link. No sign-in; the token in the path is the credential.

A revoked link's sockets hear it through the link's group (across workers); an expiring
one closes itself at the expiry time. Either way the screen is told why before the close.
"""

import asyncio

from channels.db import database_sync_to_async
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import format_html

from dashboard.live import fanout
from dashboard.live.consumers import CLOSE_FORBIDDEN, LiveConsumer

from .build import build_id
from .models import KioskLink


def closed_html(reason: str, link: KioskLink | None = None) -> str:
    return render_to_string("wallboard/_closed.html", {"reason": reason, "link": link})


class WallboardConsumer(LiveConsumer):
    link_group = ""
    expiry: asyncio.Task | None = None

    async def connect(self):
        token = self.scope["url_route"]["kwargs"]["token"]
        link = await database_sync_to_async(KioskLink.from_token)(token)
        # Accept before closing: a refused handshake reaches the browser as 1006, which
        # htmx retries; 4403 it does not, and the screen has been told why.
        await self.accept()
        if link is None or link.state != KioskLink.ACTIVE:
            await self.refuse(link.state if link else "invalid", link)
            return
        self.link_group = link.group
        await self.send(
            text_data=format_html('<div id="build" hidden data-build="{}"></div>', build_id())
        )
        await self.send_snapshot()
        for group in (self.group, self.link_group):  # after the snapshot, as PushConsumer
            await fanout.join(self, group)
        self.expiry = asyncio.ensure_future(self.expire(link))

    async def expire(self, link: KioskLink):
        await asyncio.sleep(max(0.0, (link.expires_at - timezone.now()).total_seconds()))
        await self.refuse(KioskLink.EXPIRED, link)

    async def refuse(self, reason: str, link: KioskLink | None):
        await self.send(text_data=closed_html(reason, link))
        await self.close(code=CLOSE_FORBIDDEN)

    async def disconnect(self, code):
        if self.expiry:
            self.expiry.cancel()
        if self.link_group:
            for group in (self.group, self.link_group):
                await fanout.leave(self, group)

    async def wallboard_revoked(self, event):
        await self.refuse(KioskLink.REVOKED, None)

    async def forward(self, html: str, board: str):
        await self.send(text_data=html)
        if board:
            await self.send(text_data=board)
