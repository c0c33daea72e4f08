"""A group alert's page socket: its list of agents, live, and the header's tray."""

from django.core.cache import cache

from dashboard.accounts.roles import SUPERVISOR
from dashboard.live.consumers import PushConsumer
from dashboard.shared.aio import cache_work

from . import members


class AlertConsumer(PushConsumer):
    """Joins the group pages' group (members.py): of each message, it forwards its own
    alert's list, when it changed."""

    minimum_role = SUPERVISOR
    group = members.GROUP

    async def connect(self):
        self.alert_id = str(self.scope["url_route"]["kwargs"]["pk"])
        self.sent = None
        await super().connect()

    async def send_snapshot(self):
        await super().send_snapshot()  # the header's freshness and tray
        lists = await cache_work(cache.get, members.KEY)
        await self.send_list(lists)

    async def send_list(self, lists):
        if lists is None:
            return  # none published yet: the page's own render stands
        html = lists.get(self.alert_id) or members.CLEARED
        if html != self.sent:
            self.sent = html
            await self.send(text_data=html)

    async def alert_members(self, event):
        await self.send_list(event["lists"])
