"""Live pushes of the campaigns pages and the floor's intraday charts: each rendered once
per change and sent as one string to the group of the page that shows it."""

import hashlib
from datetime import UTC, datetime

from django.template.loader import render_to_string

from dashboard.live.groups import FLOOR_CHARTS, push_html
from dashboard.shared.today import start_of_today

from .metrics import floor_charts
from .pages import campaign_context, campaigns_context

CAMPAIGNS = "campaigns"


def campaign_group(campaign_id: str) -> str:
    """A group name from an id the service chose (group names allow few characters)."""
    return "campaign-" + hashlib.sha256(campaign_id.encode()).hexdigest()[:24]


def floor_changed():
    charts = floor_charts(start_of_today(), datetime.now(UTC))
    push_html(FLOOR_CHARTS, render_to_string("reports/_chart_data.html", {"charts": charts}))


def campaigns_changed():
    """A refresh pass ended: the campaigns list and each campaign's page."""
    listing = campaigns_context()
    push_html(CAMPAIGNS, render_to_string("reports/_campaigns_body.html", listing))
    for row in listing["rows"]:
        html = render_to_string("reports/_campaign_body.html", campaign_context(row["id"]))
        push_html(campaign_group(row["id"]), html)
