"""Pushing one rendered string to every socket of a group: a `push.html` message, framed
once per process by its relay (fanout.py) and written to each `PushConsumer` socket."""

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

FLOOR_CHARTS = "floor-charts"  # the live view's intraday charts; wallboards have none
# The alerts (dashboard/alerts/): the tray every signed-in page shows, and the wallboards'
# banner, without the alerts about one agent (links that show no agents) and with them.
# Each is pushed to its group and kept in the cache under its name, for a page's first look.
ALERTS = "alerts"
ALERTS_BOARD = "alerts-board"
ALERTS_BOARD_AGENTS = "alerts-board-agents"


def alerts_key(group: str) -> str:
    """The cache key of the alerts' last rendered html for `group`."""
    return f"alerts:html:{group}"


def push_html(group: str, html: str):
    """From sync code (a view, the processor's thread): send `html` to `group`'s sockets."""
    async_to_sync(get_channel_layer().group_send)(group, {"type": "push.html", "html": html})
