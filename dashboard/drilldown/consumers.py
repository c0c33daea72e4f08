"""An agent page's socket: its agent's tile, live, the header's freshness, and the word to
fetch its day's figures again once today is read from the service's history (refresh.py)."""

from dashboard.accounts.roles import SUPERVISOR
from dashboard.live.consumers import PushConsumer
from dashboard.shared.aio import cache_work

from . import tiles
from .refresh import REFRESH, still_filling


class AgentConsumer(PushConsumer):
    """Joins the agent pages' group (tiles.py), not the floor's: of each message, it
    forwards its own agent's tile. Messages are versioned; one that does not follow the
    version this page has means one was dropped, and the tile is read from the cache."""

    minimum_role = SUPERVISOR
    group = tiles.GROUP
    version = 0

    async def connect(self):
        self.agent_id = self.scope["url_route"]["kwargs"]["agent_id"]
        # Only a page rendered while today filled holds the element REFRESH replaces.
        self.refresh_due = b"filling=1" in self.scope.get("query_string", b"")
        await super().connect()

    async def send_snapshot(self):
        await super().send_snapshot()  # the header's freshness
        await self.send_tile()
        if self.refresh_due and not await still_filling():
            await self.send_refresh()  # rendered while filling, read since

    async def send_tile(self):
        self.version, tile = await cache_work(tiles.current, self.agent_id)
        await self.send(text_data=tile or tiles.absent(self.agent_id))

    async def agent_tiles(self, event):
        if event["version"] <= self.version:
            return  # already in the tile this page has
        if event["prev"] != self.version:
            await self.send_tile()  # the cache is written before every message
            return
        self.version = event["version"]
        tile = event["tiles"].get(self.agent_id)
        if tile is None and event["full"]:
            tile = tiles.absent(self.agent_id)
        if tile is not None:
            await self.send(text_data=tile)

    async def agent_refresh(self, event):
        """Today read from the service's history: the page fetches its day's figures."""
        if self.refresh_due:
            await self.send_refresh()

    async def send_refresh(self):
        self.refresh_due = False  # once: the page then holds today's figures
        await self.send(text_data=REFRESH)
