"""The campaigns list and a campaign's page (Supervisor, Manager). Views stay thin: the
figures come from metrics.py, the summaries from the cache the refresher fills."""

from datetime import UTC, datetime

from django.http import Http404
from django.shortcuts import render

from dashboard.accounts.roles import SUPERVISOR, role_required
from dashboard.quality.metrics import start_of_today

from . import summaries
from .metrics import campaign_chart, campaign_row, outcome_mix


def campaigns_context() -> dict:
    entry = summaries.load("campaigns")
    return {"summary": entry, "rows": [campaign_row(x) for x in entry["data"] or []]}


def campaign_context(campaign_id: str) -> dict:
    """The campaign's page; `c` is None when the service has not been reached yet."""
    entry = summaries.load("campaigns")
    found = next((x for x in entry["data"] or [] if x.id == campaign_id), None)
    since = start_of_today()
    return {
        "summary": entry,
        "campaign_id": campaign_id,
        "c": campaign_row(found) if found else None,
        "charts": {"chart-campaign": campaign_chart(campaign_id, since, datetime.now(UTC))},
        "outcomes": outcome_mix(campaign_id, since),
    }


@role_required(SUPERVISOR)
def campaigns(request):
    return render(request, "reports/campaigns.html", campaigns_context())


@role_required(SUPERVISOR)
def campaign(request, campaign_id):
    context = campaign_context(campaign_id[:200])
    if context["c"] is None and context["summary"]["data"] is not None:
        raise Http404("The service has no such campaign.")
    return render(request, "reports/campaign.html", context)
