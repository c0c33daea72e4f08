"""The tray's offer to step in: the coaching alerts raised on calls still live, each with
listen and whisper (the interventions' "Act" button, which static/js/interventions.js shows
to people who may act). What quality knows is handed in by the composition root
(dashboard/main/coaching_offers.py) as plain rows; this module renders them once per
change, keeps the copy for a page's first look, and pushes it to the tray's group."""

from channels.layers import get_channel_layer
from django.core.cache import cache
from django.template.loader import render_to_string

from dashboard.shared.cache_keys import COACHING_OFFERS_KEY as KEY
from dashboard.shared.groups import ALERTS

SHOWN = 10  # the newest; the coaching page lists them all


def render(rows: list[dict]) -> str:
    """rows: {"alert", "call", "team", "agent", "kind", "severity", "raised_at"}, newest first."""
    return render_to_string("alerts/_offers.html", {"offers": rows[:SHOWN]})


def store(html: str):
    cache.set(KEY, html, timeout=None)


def current() -> str:
    """What a page shows at load: the last rendered copy (none before the bridge's first)."""
    return cache.get(KEY) or render([])


async def push(html: str):
    """To every signed-in page: replaces its #alert-offers by id."""
    await get_channel_layer().group_send(ALERTS, {"type": "push.html", "html": html})
