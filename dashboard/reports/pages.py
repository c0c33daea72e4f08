"""What the campaigns pages show, for the views and for the live pushes alike."""

from datetime import UTC, datetime

from dashboard.shared import summaries
from dashboard.shared.figures import chart_panels, explain
from dashboard.shared.today import start_of_today

from .metrics import campaign_chart, campaign_row, outcome_mix


def campaigns_context() -> dict:
    entry = summaries.load("campaigns")
    return {"summary": entry, "rows": [campaign_row(x) for x in entry["data"] or []]}


def campaign_context(campaign_id: str) -> dict:
    """The campaign's page; `campaign` is None when the service has not been reached yet."""
    entry = summaries.load("campaigns")
    found = next((x for x in entry["data"] or [] if x.id == campaign_id), None)
    since = start_of_today()
    charts = {"chart-campaign": campaign_chart(campaign_id, since, datetime.now(UTC))}
    return {
        "summary": entry,
        "campaign_id": campaign_id,
        "campaign": campaign_row(found) if found else None,
        "charts": charts,
        "outcomes": outcome_mix(campaign_id, since),
        "panels": [explain(key) for key in CAMPAIGN_TILES] + chart_panels(charts),
    }


# The campaign page's explain panels beside its chart's; their inputs come with the pushes.
CAMPAIGN_TILES = ("progress", "connect_rate", "appointments", "conversion", "outcome_mix")
