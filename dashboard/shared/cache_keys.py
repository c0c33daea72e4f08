"""The cache keys that more than one room uses (the cache is the only state the web
processes and the bridge share besides the database). The writer sets the key; readers only
read it. A key one room alone uses stays beside it (the summaries, the bridge's lease, the
agent pages' tiles, the alert rules' stamps, the webhooks' organisation)."""

from .registry import Entry

SNAPSHOT_KEY = "live:snapshot"  # (version, parts): the whole live view, for resyncs
STATUS_KEY = "live:upstream"  # the upstream status the header shows
NAMES_KEY = "live:agent-names"  # agent id -> name (live/names.py), for pages fed by webhooks
AGENT_TEAMS_KEY = "live:agent-teams"  # agent id -> team, for the alerts about one agent
TEAMS_KEY = "live:teams"  # the teams the live floor knows, sorted
TEAM_SETS_KEY = "live:team-sets"  # team-set key -> when a page last asked for it (epoch s)
# The floor's service level per 15 minutes from the queues' own targets (inbound/board.py):
# {"today": {slot start ISO: %}, "last_week": {...}}, for the intraday chart; None: no queues
QUEUE_SL_SLOTS_KEY = "inbound:floor-sl-slots"
# How far today and the past weeks are read from the service's history, in whole percent
# ({"today": pct, "past": pct}, None: not filling): the live feed's figures `filling_pct`
# and `filling_past_pct`, mirrored for the web processes with an expiry (reports/filling.py),
# written and read through `shared.filling`.
FILLING_KEY = "reports:filling-pct"


def alerts_key(group: str) -> str:
    """The alerts' last rendered html for one of the alert groups (groups.ALERTS...)."""
    return f"alerts:html:{group}"


# The tray's offers to step in on coaching alerts' live calls (alerts/offers.py), rendered.
COACHING_OFFERS_KEY = alerts_key("coaching-offers")


REGISTRY = {
    "SNAPSHOT_KEY": Entry("live", ("live",), ("live", "main")),
    "STATUS_KEY": Entry("live", ("live",), ("live",)),
    "NAMES_KEY": Entry("live", ("live",), ("live",)),  # others ask live.names.agent_names
    "AGENT_TEAMS_KEY": Entry("live", ("live",), ("alerts", "interventions")),
    "TEAMS_KEY": Entry("live", ("live",), ("accounts", "live")),
    "TEAM_SETS_KEY": Entry("accounts", ("accounts",), ("live",)),
    "QUEUE_SL_SLOTS_KEY": Entry("inbound", ("inbound",), ("reports",)),
    "FILLING_KEY": Entry("reports", ("shared",), ("shared",)),  # through shared.filling
    "alerts_key": Entry("alerts", ("alerts",), ("live", "wallboard")),
    "COACHING_OFFERS_KEY": Entry("alerts", ("alerts",), ("live",)),
}
