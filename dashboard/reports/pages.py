"""What the campaigns pages show, for the views and for the live pushes alike."""

from datetime import UTC, datetime

from dashboard.live.names import agent_names
from dashboard.shared import summaries
from dashboard.shared.figures import chart_panels, explain
from dashboard.shared.filling import filling_pct
from dashboard.shared.overlays import laid_over
from dashboard.shared.today import start_of_today

from . import outbound
from .metrics import campaign_chart, campaign_row, outcome_mix
from .models import CampaignAction, HandledBooking


def campaigns_context() -> dict:
    entry = summaries.load("campaigns")
    queue, callbacks = summaries.load("dialer_queue"), summaries.load("callbacks")
    queues = outbound.queue_rows()
    due = outbound.callbacks_due_counts(datetime.now(UTC))
    rows = [
        {
            **campaign_row(x),
            "queue": queues.get(x.id),
            "callbacks_due": None if callbacks["data"] is None else due.get(x.id, 0),
        }
        for x in entry["data"] or []
    ]
    return {"summary": entry, "rows": rows, "queue_summary": queue, "callbacks_summary": callbacks}


def campaign_context(campaign_id: str, manage: bool = False) -> dict:
    """The campaign's page; `campaign` is None when the service has not been reached yet.
    `manage`: the Managers' audience, who see the controls."""
    entry = summaries.load("campaigns")
    found = next((x for x in entry["data"] or [] if x.id == campaign_id), None)
    since, now = start_of_today(), datetime.now(UTC)
    chart = campaign_chart(campaign_id, since, now)
    charts = {"chart-campaign": laid_over("campaign", chart, campaign_id=campaign_id, now=now)}
    return {
        "summary": entry,
        "campaign_id": campaign_id,
        "campaign": campaign_row(found) if found else None,
        "charts": charts,
        "outcomes": outcome_mix(campaign_id, since),
        "filling_pct": filling_pct(),  # the completed calls of today are partial meanwhile
        "panels": [explain(key) for key in CAMPAIGN_TILES] + chart_panels(charts),
        "manage": manage,
        **outbound_context(campaign_id, found is not None and found.dial_mode == "ai", since),
    }


# The campaign page's explain panels beside its chart's; their inputs come with the pushes.
CAMPAIGN_TILES = ("progress", "connect_rate", "appointments", "conversion", "outcome_mix")


# ---- Outbound operations --------------------------------------------------------------------
def outbound_context(campaign_id: str, ai_campaign: bool, since: datetime) -> dict:
    """The dialer queue, callbacks, pending bookings, AI dialer and start/stop panels."""
    now = datetime.now(UTC)
    queue = outbound.queue_rows().get(campaign_id)
    ai = outbound.ai_dialer_row(campaign_id)
    handled = {
        x.booking_id: x
        for x in HandledBooking.objects.filter(campaign_id=campaign_id).select_related("by")
    }
    bookings = outbound.pending_bookings_of(campaign_id)
    return {
        "names": agent_names(),
        "queue": {
            "summary": summaries.load("dialer_queue"),
            "row": queue and {**queue, "runway": duration(queue["runway_min"])},
            "window": duration(queue["rate"].over_min) if queue and queue["rate"] else "",
            "due_now": bool(queue and queue["next_attempt_at"] and queue["next_attempt_at"] <= now),
        },
        "callbacks": {
            "summary": summaries.load("callbacks"),
            **outbound.callbacks_of(campaign_id, now, since),
        },
        "bookings": {
            "summary": summaries.load("pending_bookings"),
            "open": [x for x in bookings if x.id not in handled],
            "handled": [(x, handled[x.id]) for x in bookings if x.id in handled],
        },
        "ai": {"summary": summaries.load("ai_dialer"), "row": ai} if ai_campaign or ai else None,
        "actions": CampaignAction.objects.filter(campaign_id=campaign_id).select_related("by")[:20],
    }


def duration(minutes: float | None) -> str:
    """The time as people say it: "40 s", "42 min", "3 h 05 min"."""
    if minutes is None:
        return ""
    if minutes < 1:
        return f"{round(minutes * 60)} s"
    whole = round(minutes)
    return f"{whole} min" if whole < 60 else f"{whole // 60} h {whole % 60:02d} min"
