"""The channel-layer groups that more than one room uses: a group's writers send to it
(`group_send`), its readers' consumers join it. A group that one room alone sends to and
joins is named beside its consumer (quality's, reports', the agent pages', a person's,
a kiosk link's)."""

from .registry import Entry

LIVE_GROUP = "live"  # the live feed's versioned pushes: the live view and the wallboards
STATUS_GROUP = "status"  # the header's upstream status, on every signed-in page
FLOOR_CHARTS = "floor-charts"  # the live view's intraday charts; wallboards have none
# The alerts: the tray every signed-in page shows, and the wallboards' banner, without the
# alerts about one agent (links that show no agents) and with them. Each is also kept in the
# cache (cache_keys.alerts_key), for a page's first look.
ALERTS = "alerts"
ALERTS_BOARD = "alerts-board"
ALERTS_BOARD_AGENTS = "alerts-board-agents"

REGISTRY = {
    "LIVE_GROUP": Entry("live", ("live",), ("live", "wallboard")),
    "STATUS_GROUP": Entry("live", ("live",), ("live", "wallboard")),
    "FLOOR_CHARTS": Entry("live", ("reports",), ("live",)),
    "ALERTS": Entry("alerts", ("alerts",), ("live",)),
    "ALERTS_BOARD": Entry("alerts", ("alerts",), ("wallboard",)),
    "ALERTS_BOARD_AGENTS": Entry("alerts", ("alerts",), ("wallboard",)),
}
