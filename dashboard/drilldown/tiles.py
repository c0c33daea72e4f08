"""The agent pages' live part: each agent's tile as the live feed renders it.

The feed hands every push's changed tiles here (the composition root subscribes it), and they go
out as ONE message to the group of agent pages, keyed by agent id: each page's socket
forwards its own agent's tile, a dict lookup, so an agent page costs no per-agent message
and never joins the floor's `live` group (at 1,000 agents, every push). Each tile is kept
in the cache first, with the messages' version, so a page that connects, or sees a gap (a
dropped message), reads its agent's tile from there.
"""

import logging

from channels.layers import get_channel_layer
from django.core.cache import cache
from django.utils.html import format_html

from dashboard.live.subscribers import Subscriber
from dashboard.shared.aio import cache_work

log = logging.getLogger("dashboard.drilldown.tiles")
GROUP = "agent-pages"
VERSION_KEY = "drilldown:tiles-version"


def tile_key(agent_id: str) -> str:
    return f"drilldown:tile:{agent_id}"


def absent(agent_id: str) -> str:
    """What an agent page shows while its agent is not on the live floor."""
    return format_html(
        '<div id="agent-{}" class="agent" data-state="unknown"><span class="name">'
        "Not on the live floor now</span></div>",
        agent_id,
    )


class TilePublisher(Subscriber):
    """A subscriber of the live feed: called once per push with the tiles that changed."""

    def __init__(self):
        self.version: int | None = None  # numbered on from the last published (another bridge's)
        self.layer = get_channel_layer()
        self.shown: set[str] = set()  # agents with a tile in the cache
        self.failing = False

    async def on_tiles(self, tiles: dict[str, str], full: bool):
        try:
            await self.publish(tiles, full)
        except Exception as exc:  # the next message's version tells pages to read the cache
            if not self.failing:
                log.warning("agent tiles not published: %s: %s", type(exc).__name__, exc)
            self.failing = True
            return
        self.failing = False

    async def publish(self, tiles: dict[str, str], full: bool):
        if self.version is None:
            self.version = await cache_work(cache.get, VERSION_KEY, 0)
        self.version += 1
        gone = self.shown - tiles.keys() if full else set()
        self.shown = set(tiles) if full else self.shown | tiles.keys()
        keep = {tile_key(agent_id): html for agent_id, html in tiles.items()}
        await cache_work(store, {**keep, VERSION_KEY: self.version}, [tile_key(a) for a in gone])
        await self.layer.group_send(
            GROUP,
            {
                "type": "agent.tiles",
                "version": self.version,
                "prev": self.version - 1,
                "tiles": tiles,
                "full": full,
            },
        )


def store(keep: dict, gone: list[str]):
    cache.set_many(keep, timeout=None)
    if gone:
        cache.delete_many(gone)


def current(agent_id: str) -> tuple[int, str | None]:
    """The messages' version and the agent's tile as the cache holds them (sync)."""
    got = cache.get_many([VERSION_KEY, tile_key(agent_id)])
    return got.get(VERSION_KEY, 0), got.get(tile_key(agent_id))
