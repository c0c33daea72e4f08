"""Live pushes of the summary pages and the intraday charts: each rendered once per
change and sent as one string to the group of the page that shows it."""

import hashlib
from datetime import UTC, datetime

from django.template.loader import render_to_string

from dashboard.quality.metrics import start_of_today
from dashboard.quality.publish import publish_qa, send

from .metrics import floor_charts

CAMPAIGNS = "campaigns"
FLOOR_CHARTS = "floor-charts"  # the live view's charts; wallboards do not show them


def campaign_group(campaign_id: str) -> str:
    """A group name from an id the service chose (group names allow few characters)."""
    return "campaign-" + hashlib.sha256(campaign_id.encode()).hexdigest()[:24]


def floor_changed():
    charts = floor_charts(start_of_today(), datetime.now(UTC))
    send(FLOOR_CHARTS, render_to_string("reports/_chart_data.html", {"charts": charts}))


def summaries_changed():
    """A refresh pass ended: the campaigns list, each campaign's page and the QA page."""
    from dashboard.quality.views import qa_context

    from .views import campaign_context, campaigns_context

    listing = campaigns_context()
    send(CAMPAIGNS, render_to_string("reports/_campaigns_body.html", listing))
    for row in listing["rows"]:
        html = render_to_string("reports/_campaign_body.html", campaign_context(row["id"]))
        send(campaign_group(row["id"]), html)
    publish_qa(qa_context())
