"""The live view's element ids that other rooms point at: the alerts flash the tile an alert
is about and link to it. The templates write the same ids (live/_agent.html `agent-<id>`,
_queue.html `queue-<id>`, _kpis.html the wait figure); change both together."""


def agent_tile(agent_id: str) -> str:
    return f"#agent-{agent_id}"


def queue_tile(queue_id: str) -> str:
    return f"#queue-{queue_id}"


KPIS = "#kpis"  # the KPI strip, _kpis.html
WAIT_FIGURE = '#kpis [data-limit="wait"]'  # the longest wait, beside the service level
VOICEMAIL_TILE = "#kpi-voicemail"  # the voicemail backlog's KPI tile, _kpis.html
COACHING_PANEL = "#wb-alerts"  # the wallboard's coaching panel, one of the feed's panels
