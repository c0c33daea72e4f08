"""The agent pages open while today is read from the service's history fetch their day's
figures again when it is read, without a reload.

A page rendered while today fills holds an empty `#drill-refresh`. When the fill of today
ends (its progress written for the web processes first), ONE message goes to the agent
pages' group, and each socket of such a page (its URL says `filling=1`) sends it the same
fixed element, `REFRESH`, once, nothing
rendered per page: on arriving it fetches the page it is in and takes from it the panels of
today's figures (htmx `hx-select-oob`). Each page asks for its own agent's figures once, as
a reload would, and a note being typed stays as it is. A page rendered while filling whose
socket connects after the fill ended is sent it on connecting."""

from channels.layers import get_channel_layer

from dashboard.shared.aio import cache_work
from dashboard.shared.filling import filling_pct

from .tiles import GROUP

PANELS = ("drill-today", "drill-states", "drill-calls", "drill-qa", "drill-checks", "drill-alerts")
REFRESH = (
    '<div id="drill-refresh" hidden hx-get="." hx-trigger="load" hx-swap="none" '
    f'hx-select-oob="{",".join("#" + p for p in PANELS)}"></div>'
)


async def still_filling() -> bool:
    return await cache_work(filling_pct) is not None


class TodayRead:
    """Told each time the fill's progress was written (`moved`); sends REFRESH when today's
    went from filling to read."""

    def __init__(self):
        self.filling = False

    async def moved(self):
        filling = await still_filling()
        if self.filling and not filling:
            await get_channel_layer().group_send(GROUP, {"type": "agent.refresh"})
        self.filling = filling
