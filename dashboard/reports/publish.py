"""Live pushes of the campaigns pages and the floor's intraday charts: each rendered once
per change and sent as one string to the group of the page that shows it.

A campaign's page has two audiences: Managers see its controls (start, stop, mark a
booking handled), Supervisors do not. Each is rendered once and pushed to its own group.
"""

import hashlib
from datetime import UTC, datetime

from django.template.loader import render_to_string

from dashboard.live.groups import push_html
from dashboard.shared.groups import FLOOR_CHARTS
from dashboard.shared.today import start_of_today

from .metrics import floor_charts
from .pages import campaign_context, campaigns_context

CAMPAIGNS = "campaigns"


def campaign_group(campaign_id: str, manage: bool = False) -> str:
    """A group name from an id the service chose (group names allow few characters); the
    Managers' audience has a group of its own."""
    digest = hashlib.sha256(campaign_id.encode()).hexdigest()[:24]
    return f"campaign-{digest}" + ("-manage" if manage else "")


def floor_changed(charts=floor_charts):
    """`charts(since, now)`: the charts' data (the composition root may lay more over it)."""
    charts = charts(start_of_today(), datetime.now(UTC))
    push_html(FLOOR_CHARTS, render_to_string("shared/_chart_data.html", {"charts": charts}))


def campaigns_changed():
    """A refresh pass ended: the campaigns list and each campaign's page."""
    listing = campaigns_context()
    push_html(CAMPAIGNS, render_to_string("reports/_campaigns_body.html", listing))
    for row in listing["rows"]:
        push_campaign(row["id"])


def campaign_changed(campaign_id: str):
    """One campaign changed (started, stopped, a booking handled): its page and the list."""
    push_html(CAMPAIGNS, render_to_string("reports/_campaigns_body.html", campaigns_context()))
    push_campaign(campaign_id)


def push_campaign(campaign_id: str):
    context = campaign_context(campaign_id)
    for manage in (False, True):
        html = render_to_string("reports/_campaign_body.html", {**context, "manage": manage})
        push_html(campaign_group(campaign_id, manage), html)
