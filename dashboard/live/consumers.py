"""Websocket consumers that push pre-rendered htmx fragments to browsers.

Fragments are rendered once per change by whoever publishes them and arrive here as one
string; a consumer's only per-browser work is the socket write.
"""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from dashboard.accounts.roles import RANK, WALLBOARD, user_role

CLOSE_SIGNED_OUT = 4401  # htmx's websocket extension does not retry 4xxx codes
CLOSE_FORBIDDEN = 4403
CLOSE_RESTARTING = 1012  # it does retry this one


class PushConsumer(AsyncWebsocketConsumer):
    """Lets in signed-in people holding `minimum_role`, joins `group`, forwards its pushes.

    Browsers have nothing to say on these sockets: whatever they send is ignored.
    """

    minimum_role = WALLBOARD
    group = ""

    async def connect(self):
        role = await database_sync_to_async(user_role)(self.scope.get("user"))
        if role is None or RANK[role] < RANK[self.minimum_role]:
            await self.close(code=CLOSE_SIGNED_OUT if role is None else CLOSE_FORBIDDEN)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_snapshot()

    async def send_snapshot(self):
        """Send the full current view, so a browser that was away is right at once."""

    async def disconnect(self, code):
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        return None

    async def push_html(self, event):
        await self.send(text_data=event["html"])

    async def server_restarting(self, event):
        await self.close(code=CLOSE_RESTARTING)


class LiveConsumer(PushConsumer):
    group = "live"
